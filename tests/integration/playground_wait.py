"""Waiting on the playground's chats (shared by the playground tests)."""
from __future__ import annotations

import time
from typing import Any

GIVE_UP = 120.0  # seconds: a bound against hanging, generous (not a timing assertion)


def wait_for(pg: Any, predicate: Any) -> bool:
    """Wait for ``predicate`` after each change of the chats; gives up after ``GIVE_UP`` seconds."""
    deadline = time.monotonic() + GIVE_UP
    while time.monotonic() < deadline:
        since = pg.fake.version  # (before the look: a change while it looks is not waited for)
        if predicate():
            return True
        pg.fake.wait_changed(since, 0.5)
    return predicate()
