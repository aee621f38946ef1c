"""moto's AWS server on 127.0.0.1 answering one request at a time: the local DynamoDB of the playground,
the tests and the benchmarks.

DynamoDB executes each request atomically. moto's in-memory backend does not guard itself against two
threads: its TransactWriteItems deep-copies whole tables while another request inserts into them
(``RuntimeError: dictionary changed size during iteration``, a 500 and a long traceback), and a
cancelled transaction restores its copy, undoing what other requests wrote meanwhile. werkzeug's server
runs each request in a thread of its own, so :func:`one_at_a_time` puts a lock around the application:
requests still arrive concurrently and a read-modify-write of the bot is still two requests with other
writers' requests between them (conditional writes really conflict), but moto's backend is used by one
request at a time.

One request is let past the lock: SQS's long poll (``ReceiveMessage`` with ``WaitTimeSeconds``: the
playground's wake-up consumer, ``localdev.wake_consumer``), which waits inside moto for a message. Behind
the lock it would hold every other request up for its whole wait, the ``SendMessage`` it waits for
included. moto's SQS guards a queue's messages with a condition of its own for exactly that wait, and the
poll touches no other service's backend.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any

HOST = "127.0.0.1"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


LONG_POLL = "AmazonSQS.ReceiveMessage"  # (the JSON protocol's target: boto3's SQS client)


def one_at_a_time(app: WSGIApp) -> WSGIApp:
    """``app`` behind a lock: each request is answered whole (its body read out) before the next starts;
    SQS's long poll is answered beside them (see above)."""
    lock = threading.Lock()

    def serialised(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("HTTP_X_AMZ_TARGET") == LONG_POLL:
            return app(environ, start_response)
        with lock:
            answer = app(environ, start_response)
            try:
                return list(answer)
            finally:
                close = getattr(answer, "close", None)
                if close is not None:
                    close()

    return serialised


def moto_app() -> WSGIApp:
    """moto's application for every service it mocks (DynamoDB, EventBridge Scheduler...), serialised.

    moto finds a request's service by listing its own package folder on every request (about a hundred
    and fifty ``isdir`` calls); the answer for a host never changes, so it is looked up once per host."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    class Dispatcher(DomainDispatcherApplication):
        @functools.lru_cache(maxsize=64)  # noqa: B019 (one dispatcher per server, kept for its life)
        def get_backend_for_host(self, host: str | None) -> Any:
            return super().get_backend_for_host(host)

    return one_at_a_time(Dispatcher(create_backend_app))


class SerialMotoServer:
    """moto's server on 127.0.0.1 (``port`` 0: a free one) in a daemon thread, one request at a time; the
    interface of moto's ``ThreadedMotoServer`` (start, get_host_and_port, stop) plus ``endpoint``."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> SerialMotoServer:
        from moto.moto_server.werkzeug_app import MotoRequestHandler
        from werkzeug.serving import make_server

        self._server = make_server(HOST, self._port, moto_app(), threaded=True, request_handler=MotoRequestHandler)
        # (stop() waits for the serving loop's next poll: 0.5 s by default, paid by every test's server)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="moto", daemon=True)
        self._thread.start()
        return self

    def get_host_and_port(self) -> tuple[str, int]:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def endpoint(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None
