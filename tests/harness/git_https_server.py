#!/usr/bin/env python3
"""Test harness: a private git server on the loopback, as a hosted one answers.

Serves the bare repositories under --root through `git http-backend` (smart HTTP, the protocol
GitHub and GitLab speak) over HTTPS with --cert/--key, and answers every request without the
expected credential with 401 and `WWW-Authenticate: Basic realm="ods-test"` (what git needs to
know credentials are wanted). The credential is --basic USER:PASSWORD or --bearer TOKEN,
compared with the Authorization header. Each request is recorded in --requests as one JSON line
(method, path, status, and whether an Authorization header came: "none", "good" or "wrong"; never
its value). The chosen port is written to --port-file once the server listens. Python's
standard library only.
"""
import argparse
import base64
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--requests", required=True)
    parser.add_argument("--basic")
    parser.add_argument("--bearer")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    if args.basic:
        expected = "Basic " + base64.b64encode(args.basic.encode()).decode()
    elif args.bearer:
        expected = "Bearer " + args.bearer
    else:
        sys.exit("one of --basic or --bearer is required")
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def record(self, status, auth):
            with lock, open(args.requests, "a") as out:
                path = self.path.split("?")[0]
                out.write(json.dumps({"method": self.command, "path": path, "status": status, "auth": auth}) + "\n")

        def serve(self):
            given = self.headers.get("Authorization")
            auth = "none" if given is None else ("good" if given == expected else "wrong")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if auth != "good":
                self.record(401, auth)
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="ods-test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "GIT_PROJECT_ROOT": args.root,
                "GIT_HTTP_EXPORT_ALL": "1",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "REMOTE_USER": "ods-test",
                "REMOTE_ADDR": self.client_address[0],
            }
            for header, variable in (("Git-Protocol", "HTTP_GIT_PROTOCOL"), ("Content-Encoding", "HTTP_CONTENT_ENCODING")):
                if self.headers.get(header):
                    env[variable] = self.headers.get(header)
            done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            if not _:
                head, _, payload = done.stdout.partition(b"\n\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.record(status, auth)
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = serve
        do_POST = serve

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer((args.host, 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
