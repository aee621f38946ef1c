"""What every tier shares: one moto server per test process (per xdist worker), and the order tests run in.

The moto server (DynamoDB, SQS, EventBridge Scheduler, CloudFormation on 127.0.0.1, one request at a time:
tests/moto_server.py) starts once per process, not per module or test: the integration and e2e fixtures
take it from here, and each test makes its own state on it (a fresh table name, or moto's reset first).

Tests marked ``slow`` (several seconds each) are collected first, so that under xdist (``scripts/test``:
``-n auto --dist worksteal``) the longest start at the beginning and the short ones fill the end, where
an idle worker takes them over; ``-m "not slow"`` leaves them all out for a quick run.
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.moto_server import serialised_moto_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # stable: within each group the collection order stays (every worker collects the same order)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def shared_moto() -> Iterator[str]:
    """The endpoint URL of this process's moto server (started on first use, stopped at the end)."""
    with serialised_moto_server() as url:
        yield url
