"""Fixtures of the reliability tests: the webhook through ``lambda_handler`` with moto and the fake Bot
API (shared with tests/e2e), and a moto *server* on 127.0.0.1 for tests with real concurrency."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import aws_endpoint, fake_server, lambda_env, table  # noqa: F401 - fixtures used here too
from tests.moto_server import serialised_moto_server


@pytest.fixture(scope="session")
def moto_endpoint():
    """A moto DynamoDB server on 127.0.0.1 that runs one request at a time (tests/moto_server.py)."""
    with serialised_moto_server() as url:
        yield url
