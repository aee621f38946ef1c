"""Fixtures the integration tests share."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.moto_server import serialised_moto_server


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """A moto server on 127.0.0.1 for the module's tests, one request at a time (``localdev.serial_moto``)."""
    with serialised_moto_server() as url:
        yield url
