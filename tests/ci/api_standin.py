#!/usr/bin/env python3
"""A loopback stand-in for the parts of GitHub's and GitLab's REST APIs the CI steps use, and a
plain file server for release downloads. For the CI-step tests (tests/ci/).

  api_standin.py --port-file FILE --record FILE [--token T] [--read-only-token T]
                 [--other-token T] [--seed N] [--files DIR]

Listens on 127.0.0.1, an ephemeral port written to --port-file once it accepts connections.
Every request is appended to --record as one JSON line {method, path, query, headers (names in
lower case: HTTP header names are case-insensitive), body}.

GitHub (docs.github.com/rest/issues/comments), under /repos/{owner}/{repo}/:
  GET  issues/{n}/comments?per_page&page  200, a JSON array; per_page 30 by default, at most 100;
                                          a Link header with rel="next"/"last" while more pages follow
  POST issues/{n}/comments {"body"}       201, the comment
  PATCH issues/comments/{id} {"body"}     200, the comment; 404 {"message": "Not Found"} if unknown
  GET  user                               403 "Resource not accessible by integration" for --token
                                          (the workflow token has no user; its comments are by
                                          github-actions[bot]); the user for --other-token
  `Authorization: Bearer <token>` or `token <token>`; none or another token: 401 Bad credentials;
  the read-only token (a fork's pull request): reads work, writes 403 "Resource not accessible by
  integration".
GitLab (docs.gitlab.com/api/notes), under /api/v4/projects/{id}/merge_requests/{iid}/:
  GET  notes?per_page&page                200, a JSON array; per_page 20 by default, at most 100;
                                          X-Page, X-Per-Page, X-Next-Page, X-Total, X-Total-Pages, Link
  POST notes {"body"}                     201, the note
  PUT  notes/{id} {"body"}                200, the note
  GET  /api/v4/user                       the token's user (project_7_bot for --token)
  `PRIVATE-TOKEN: <token>`; none or another: 401 {"message": "401 Unauthorized"}; read-only: 403.
Both start with --seed comments by someone else on every pull/merge request, so a list has pages.
--other-token writes as someone else (`mallory`), to plant comments a step must leave alone.
GET /downloads/<name>: the file <name> from --files, else 404.
"""
import argparse
import json
import os
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COMMENTS = {}  # (system, thread key) -> list of comment dicts
NEXT_ID = [1000]
TIME = "2026-01-01T00:00:00Z"
OTHER_USER = "mallory"


def thread(system, key, seed):
    if (system, key) not in COMMENTS:
        COMMENTS[(system, key)] = []
        for i in range(seed):
            add(system, key, f"comment {i + 1} by a reviewer", "reviewer")
    return COMMENTS[(system, key)]


def add(system, key, body, author):
    NEXT_ID[0] += 1
    if system == "github":
        item = {"id": NEXT_ID[0], "node_id": f"IC_{NEXT_ID[0]}", "body": body, "user": {"login": author, "type": "User"},
                "created_at": TIME, "updated_at": TIME, "author_association": "MEMBER",
                "html_url": f"https://github.com/{key[0]}/pull/{key[1]}#issuecomment-{NEXT_ID[0]}"}
    else:
        item = {"id": NEXT_ID[0], "body": body, "author": {"username": author}, "system": False,
                "noteable_type": "MergeRequest", "noteable_iid": int(key[1]), "created_at": TIME, "updated_at": TIME}
    COMMENTS[(system, key)].append(item)
    return item


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, payload=None, headers=None, raw=None):
        data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else b"")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8" if raw is None else "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def record(self, body):
        parts = urllib.parse.urlsplit(self.path)
        entry = {"method": self.command, "path": parts.path, "query": dict(urllib.parse.parse_qsl(parts.query)),
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        with LOCK, open(self.server.options.record, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.record(body)
        parts = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        if parts.path.startswith("/downloads/"):
            return self.download(parts.path[len("/downloads/"):])
        with LOCK:
            if parts.path.startswith("/api/v4/"):
                return self.gitlab(parts.path, query, body)
            return self.github(parts.path, query, body)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any

    def download(self, name):
        base = self.server.options.files
        path = os.path.join(base or "", os.path.basename(name))
        if not base or not os.path.isfile(path):
            return self.reply(404, {"message": "Not Found"})
        self.reply(200, raw=open(path, "rb").read())

    def token(self, system):
        if system == "github":
            m = re.fullmatch(r"(?:Bearer|token) (.+)", self.headers.get("Authorization") or "")
            return m.group(1) if m else None
        return self.headers.get("PRIVATE-TOKEN")

    def author(self, system):
        """Who the request's token writes as."""
        if self.token(system) == self.server.options.other_token:
            return OTHER_USER
        return "github-actions[bot]" if system == "github" else "project_7_bot"

    def authorise(self, system, write):
        """None when allowed, else the error reply already sent."""
        given, o = self.token(system), self.server.options
        if given == o.token or (o.other_token and given == o.other_token):
            return None
        if given == o.read_only_token and o.read_only_token:
            if not write:
                return None
            if system == "github":
                return self.reply(403, {"message": "Resource not accessible by integration",
                                        "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                                        "status": "403"}) or True
            return self.reply(403, {"message": "403 Forbidden"}) or True
        if system == "github":
            return self.reply(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest",
                                    "status": "401"}) or True
        return self.reply(401, {"message": "401 Unauthorized"}) or True

    def page(self, items, query, default, base_url, gitlab):
        per_page = max(1, min(100, int(query.get("per_page", default))))
        page = max(1, int(query.get("page", 1)))
        total_pages = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]

        def link(p):
            q = dict(query, page=str(p), per_page=str(per_page))
            return f"<{base_url}?{urllib.parse.urlencode(q)}>"
        links = []
        if page < total_pages:
            links.append(f'{link(page + 1)}; rel="next"')
        if page > 1:
            links.append(f'{link(page - 1)}; rel="prev"')
        links += [f'{link(1)}; rel="first"', f'{link(total_pages)}; rel="last"']
        headers = {"Link": ", ".join(links)}
        if gitlab:
            headers.update({"X-Page": str(page), "X-Per-Page": str(per_page), "X-Total": str(len(items)),
                            "X-Total-Pages": str(total_pages), "X-Next-Page": str(page + 1) if page < total_pages else "",
                            "X-Prev-Page": str(page - 1) if page > 1 else ""})
        return chunk, headers

    def base_url(self, path):
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def github(self, path, query, body):
        if path == "/user" and self.command == "GET":
            if self.authorise("github", False):
                return
            if self.token("github") == self.server.options.other_token:
                return self.reply(200, {"login": OTHER_USER, "id": 66, "type": "User"})
            return self.reply(403, {"message": "Resource not accessible by integration",
                                    "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
                                    "status": "403"})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
        if m:
            items = thread("github", (m.group(1), m.group(2)), self.server.options.seed)
            if self.command == "GET":
                if self.authorise("github", False):
                    return
                chunk, headers = self.page(items, query, 30, self.base_url(path), False)
                return self.reply(200, chunk, headers)
            if self.command == "POST":
                if self.authorise("github", True):
                    return
                if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                    return self.reply(422, {"message": "Invalid request.\n\n\"body\" wasn't supplied.", "status": "422"})
                return self.reply(201, add("github", (m.group(1), m.group(2)), body["body"], self.author("github")))
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
        if m and self.command == "PATCH":
            if self.authorise("github", True):
                return
            for (system, key), items in COMMENTS.items():
                for item in items:
                    if system == "github" and key[0] == m.group(1) and item["id"] == int(m.group(2)):
                        item["body"], item["updated_at"] = body["body"], "2026-01-01T00:05:00Z"
                        return self.reply(200, item)
            return self.reply(404, {"message": "Not Found", "status": "404"})
        return self.reply(404, {"message": "Not Found", "status": "404"})

    def gitlab(self, path, query, body):
        if path == "/api/v4/user" and self.command == "GET":
            if self.authorise("gitlab", False):
                return
            return self.reply(200, {"id": 7, "username": self.author("gitlab"), "bot": True})
        m = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes(?:/(\d+))?", path)
        if not m:
            return self.reply(404, {"message": "404 Not Found"})
        key = (urllib.parse.unquote(m.group(1)), m.group(2))
        items = thread("gitlab", key, self.server.options.seed)
        note_id = m.group(3)
        if self.command == "GET" and not note_id:
            if self.authorise("gitlab", False):
                return
            chunk, headers = self.page(items, query, 20, self.base_url(path), True)
            return self.reply(200, chunk, headers)
        if self.command == "POST" and not note_id:
            if self.authorise("gitlab", True):
                return
            if not isinstance(body, dict) or not body.get("body"):
                return self.reply(400, {"message": "400 Bad request - body is missing"})
            return self.reply(201, add("gitlab", key, body["body"], self.author("gitlab")))
        if self.command == "PUT" and note_id:
            if self.authorise("gitlab", True):
                return
            for item in items:
                if item["id"] == int(note_id):
                    item["body"] = body["body"]
                    return self.reply(200, item)
            return self.reply(404, {"message": "404 Note Not Found"})
        return self.reply(405, {"message": "405 Method Not Allowed"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--token", default="good-token")
    parser.add_argument("--read-only-token", default="")
    parser.add_argument("--other-token", default="")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--files", default="")
    options = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.options = options
    open(options.record, "a").close()
    with open(options.port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    os.replace(options.port_file + ".tmp", options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
