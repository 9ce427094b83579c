#!/usr/bin/env python3
"""A Kubernetes Service stand-in on the loopback: spreads TCP connections over backends.

    service_standin.py <listen port> <backends file>

Each accepted connection goes to the next port of the backends file (one port a line, re-read
for every connection; the test rewrites it as replicas start and stop), round robin, as
kube-proxy spreads a Service's connections over its ready endpoints. A backend that refuses the
connection is skipped for the next (an endpoint that went away); when none accepts, the client's
connection is closed. Prints "listening" once bound.
"""
import socket
import sys
import threading

listen_port, backends_file = int(sys.argv[1]), sys.argv[2]
next_index = 0
lock = threading.Lock()


def backends():
    try:
        with open(backends_file) as f:
            return [int(line) for line in f.read().split() if line.strip()]
    except (OSError, ValueError):
        return []


def pipe(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client):
    global next_index
    ports = backends()
    with lock:
        start = next_index
        next_index += 1
    for i in range(len(ports)):
        port = ports[(start + i) % len(ports)]
        try:
            upstream = socket.create_connection(("127.0.0.1", port), timeout=5)
            upstream.settimeout(None)
        except OSError:
            continue
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        pipe(upstream, client)
        upstream.close()
        client.close()
        return
    client.close()


server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(64)
print("listening", flush=True)
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
