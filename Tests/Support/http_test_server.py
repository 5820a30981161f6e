#!/usr/bin/python3
"""A misbehaving HTTP server for the remote-input tests.

Usage: http_test_server.py IMAGE

Binds 127.0.0.1 on a free port and prints that port as the first line of stdout. Exits when
its stdin closes, so a test process that dies never leaves it behind. Behaviour by path:

  /ok.png          IMAGE, with its Content-Length
  /missing         404
  /stall           headers and part of the body, then silence
  /silent          accepts the request, then sends nothing at all
  /flaky           503 for the first two requests, then IMAGE
  /once.png        IMAGE for the first request, then 503 for every one after
  /drop            first request: half the declared body, then the connection is cut; then IMAGE
  /huge            claims 4 GiB in Content-Length and streams zeros
  /huge-nolength   streams zeros, chunked, with no Content-Length
  /gzip-bomb       chunked, Content-Encoding: gzip: 4 GiB of zeros in about 4 MB on the wire
  /paced-nolength  as /huge-nolength, at most 100 MB/s: a client that keeps up holds no backlog
  /stats           {"requests": {path: count}, "hangups": {path: count}}: requests seen per
                   path (/stats aside), and clients of /stall and /silent that hung up
"""

import json
import os
import select
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"\0" * 65536
HUGE = 4 << 30


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/stats":
            with self.server.lock:
                body = json.dumps({"requests": self.server.counts, "hangups": self.server.hangups}).encode()
            self.reply(200, body, "application/json")
            return
        with self.server.lock:
            seen = self.server.counts.get(path, 0) + 1
            self.server.counts[path] = seen
        route = ROUTES.get(path)
        try:
            if route is None:
                self.reply(404, b"not here\n")
            else:
                route(self, seen)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def reply(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def image(self, seen):
        self.reply(200, self.server.image, "image/png")

    def stall(self, seen):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.server.image)))
        self.end_headers()
        self.wfile.write(self.server.image[: len(self.server.image) // 4])
        self.wfile.flush()
        self.wait()

    def silent(self, seen):
        self.wait()

    def flaky(self, seen):
        if seen <= 2:
            self.reply(503, b"try later\n")
        else:
            self.image(seen)

    def once(self, seen):
        if seen > 1:
            self.reply(503, b"gone for now\n")
        else:
            self.image(seen)

    def drop(self, seen):
        if seen > 1:
            self.image(seen)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.server.image)))
        self.end_headers()
        self.wfile.write(self.server.image[: len(self.server.image) // 2])
        self.wfile.flush()
        self.close_connection = True

    def huge(self, seen):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(HUGE))
        self.end_headers()
        self.stream(lambda chunk: chunk)

    def huge_nolength(self, seen):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.stream(lambda chunk: b"%x\r\n%s\r\n" % (len(chunk), chunk))

    def gzip_bomb(self, seen):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)

        def frame(chunk):
            packed = packer.compress(chunk)
            return b"%x\r\n%s\r\n" % (len(packed), packed) if packed else b""

        self.stream(frame)

    def paced_nolength(self, seen):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.stream(lambda chunk: b"%x\r\n%s\r\n" % (len(chunk), chunk), rate=100e6)

    def stream(self, frame, rate=None):
        # Bounded, so a client that never stops reading cannot keep this thread forever.
        sent = 0
        started = time.monotonic()
        while sent < HUGE:
            self.wfile.write(frame(CHUNK))
            sent += len(CHUNK)
            if rate is not None:
                ahead = sent / rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        self.close_connection = True

    def wait(self):
        # Silent until the client hangs up, which is counted, or 30 s pass.
        self.close_connection = True
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if not readable:
                continue
            try:
                hung_up = self.connection.recv(4096) == b""
            except ConnectionError:
                hung_up = True
            if hung_up:
                path = self.path.split("?", 1)[0]
                with self.server.lock:
                    self.server.hangups[path] = self.server.hangups.get(path, 0) + 1
                return


ROUTES = {
    "/ok.png": Handler.image,
    "/stall": Handler.stall,
    "/silent": Handler.silent,
    "/flaky": Handler.flaky,
    "/once.png": Handler.once,
    "/drop": Handler.drop,
    "/huge": Handler.huge,
    "/huge-nolength": Handler.huge_nolength,
    "/gzip-bomb": Handler.gzip_bomb,
    "/paced-nolength": Handler.paced_nolength,
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: http_test_server.py IMAGE")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(sys.argv[1], "rb") as file:
        server.image = file.read()
    server.counts = {}
    server.hangups = {}
    server.lock = threading.Lock()

    def stop_when_stdin_closes():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
