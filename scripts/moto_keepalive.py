"""moto's AWS server with connections kept alive, for benchmarks: ``python scripts/moto_keepalive.py``
prints the port it listens on (127.0.0.1, a free one) and serves until its standard input closes.

moto's own server (werkzeug's development server) closes the connection after every answer, so each
request of a benchmark would pay a new TCP connection that a Lambda talking to DynamoDB does not (its
connections stay open between requests). This serves the same moto application over HTTP/1.1 with
``http.server``: one thread per connection, requests answered with their ``Content-Length``, the
connection left open for the next one. moto itself answers one request at a time
(``localdev.serial_moto``: its backend is not safe for two threads).
"""
from __future__ import annotations

import io
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


def make_handler(app: Any) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # (headers and body go in two writes: no 40 ms wait between them)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            environ = {
                "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                "SERVER_NAME": "127.0.0.1", "SERVER_PORT": str(self.server.server_address[1]),
                "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": self.client_address[0],
                "CONTENT_LENGTH": str(length), "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body),
                "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
                "wsgi.run_once": False,
            }
            for name, value in self.headers.items():
                key = "HTTP_" + name.upper().replace("-", "_")
                if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"):
                    environ[key] = value
            answer: dict[str, Any] = {}

            def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                answer["status"], answer["headers"] = status, headers
                return lambda data: None

            chunks = app(environ, start_response)
            try:
                data = b"".join(chunks)
            finally:
                if hasattr(chunks, "close"):
                    chunks.close()
            code, _, reason = answer["status"].partition(" ")
            self.send_response(int(code), reason)
            for name, value in answer["headers"]:
                if name.lower() not in HOP_BY_HOP:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _serve

    return Handler


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from localdev.serial_moto import moto_app

    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(moto_app()))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # until the parent closes our input
    server.shutdown()


if __name__ == "__main__":
    main()
