"""Shared steps of the AI seat tests (issue 30): a harness game with AI seats, played to
the end by simulated people while the chat's alarm makes the bots' moves."""
from __future__ import annotations

import random
from typing import Any

from localdev.autoplay import Driver, Policy
from tests.unit.gamebot_fakes import GROUP, HarnessScreen


def seat_ai_seats(h: Any, host: int, count: int, chat: int = GROUP) -> None:
    """The host presses the lobby's 🤖 add button ``count`` times."""
    for _ in range(count):
        h.press_label(host, chat, "🤖 Add")


def play_out(h: Any, people: list[int], chat: int = GROUP, seed: int = 3, max_steps: int = 4000) -> list[str]:
    """People play by reading their chats; when none has anything to do, time passes: what waits in the
    outbox goes out, else the chat's next alarm fires (the bots' moves, a time limit). The outcomes of
    the alarms fired, in order."""
    driver = Driver(HarnessScreen(h), chat, people, Policy(rng=random.Random(seed)))
    fired: list[str] = []
    for _ in range(max_steps):
        if driver.over():
            return fired
        if any(t.at <= h.clock.now for t in h.sched.pending()):  # the scheduler fires while people press
            fired.append(h.fire(h.sched.pop_next()))
            continue
        if driver.step() or h.idle(chat):
            continue
        timer = h.sched.pop_next()
        assert timer is not None, "the game waits for nothing"
        fired.append(h.fire(timer))
    raise AssertionError("the game did not end")


__all__ = ["Driver", "HarnessScreen", "Policy", "play_out", "seat_ai_seats"]
