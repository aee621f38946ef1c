"""Fixtures of the reliability tests: the webhook through ``lambda_handler`` with moto and the fake Bot
API (shared with tests/e2e), and a moto *server* on 127.0.0.1 for tests with real concurrency."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import aws_endpoint, fake_server, lambda_env, table  # noqa: F401 - fixtures used here too


@pytest.fixture(scope="session")
def moto_endpoint(shared_moto: str) -> str:
    """The process's moto server on 127.0.0.1 (tests/conftest.py), one request at a time
    (tests/moto_server.py): each test makes its own table on it."""
    return shared_moto
