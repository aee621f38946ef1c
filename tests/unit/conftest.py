"""Fixtures shared by the unit tests of the Telegram layer."""
from __future__ import annotations

import pytest

from tests.unit.gamebot_fakes import Harness


@pytest.fixture
def h():
    """The service with an in-memory repository and a recording Bot API (closed after the test)."""
    harness = Harness()
    yield harness
    harness.close()
