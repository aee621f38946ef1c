"""Fixtures shared by the unit tests of the Telegram layer.

(No ``from __future__ import annotations`` here: the test event's field types must be real types, not
names to look up later in a module called ``conftest``, which each test folder's conftest replaces.)"""

from typing import TypedDict

import pytest

from engine.event_types import Quest, Seat, event, forget
from tests.unit.gamebot_fakes import Harness


@pytest.fixture
def h():
    """The service with an in-memory repository and a recording Bot API (closed after the test)."""
    harness = Harness()
    yield harness
    harness.close()


class BlackKnightRode(TypedDict):
    """An event of a plug-in that exists only in tests, with no words in the catalogs."""

    holder: Seat
    target: Seat
    quest: Quest
    deck_left: int


@pytest.fixture
def black_knight():
    """``BlackKnightRode`` declared for one test, and forgotten after."""
    event(BlackKnightRode)
    yield BlackKnightRode
    forget("BlackKnightRode")
