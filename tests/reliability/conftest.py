"""Fixtures of the reliability tests: the webhook through ``lambda_handler`` with moto and the fake Bot
API (shared with tests/e2e), and a moto *server* on 127.0.0.1 for tests with real concurrency."""
from __future__ import annotations

import logging
import threading

import pytest

from tests.e2e.conftest import fake_server, lambda_env, table  # noqa: F401 - fixtures used here too


@pytest.fixture(scope="session")
def moto_endpoint():
    """A moto DynamoDB server on 127.0.0.1 that runs one request at a time.

    moto does not isolate concurrent requests (a cancelled TransactWriteItems restores a snapshot of
    the whole table, undoing other requests' writes), so the server serialises them. Clients stay
    concurrent: every read-modify-write is at least two requests and other writers get in between.
    """
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    wsgi = server._server
    app, lock = wsgi.app, threading.Lock()

    def serialised(environ, start_response):
        with lock:
            return list(app(environ, start_response))

    wsgi.app = serialised
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
