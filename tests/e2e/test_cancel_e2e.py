"""/cancel closes everything, end to end (issue 35): a game cancelled through ``lambda_handler`` while a
vote is open, with the group's budget of the minute spent, leaves no inline keyboard in any chat of the
fake Bot API, and its board tells the end."""
from __future__ import annotations

import random
import time

import pytest

from localdev.autoplay import Driver, Policy

PLAYERS = [1, 2, 3, 4, 5]


class Clock:
    """The functions' clock, moved by the test (players act a few seconds apart, nobody sleeps)."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def budgeted(table, monkeypatch):
    """The game table with the group's budget of messages per minute as deployed, on a clock the test moves."""
    import app

    monkeypatch.setenv("GROUP_MESSAGES_PER_MINUTE", "20")
    app.reset()
    clock = Clock()
    app.service().set_clock(clock)
    table.clock = clock
    return table


def keyboards(table) -> list[tuple[int, int, str]]:
    """Every message of every chat of the fake Bot API that carries an inline keyboard now."""
    return [(chat, m["message_id"], m["text"][:40]) for chat in table.fake.chat_ids()
            for m in table.messages(chat) if any(m["buttons"])]


def settle(table) -> None:
    """Time passes: what waits in the group's outbox goes out when due, as the chat's alarm delivers it."""
    for _ in range(50):
        if not table.idle():
            return


def test_cancel_mid_vote_leaves_no_inline_keyboard_in_any_chat(budgeted):
    table = budgeted
    table.open_lobby(PLAYERS)
    table.clock.now += 5
    assert table.start_game(1) == 200
    settle(table)
    driver = Driver(table, table.group, PLAYERS, Policy(rng=random.Random(2)))
    while not any("Approve" in b["text"] for m in table.messages(table.group) for row in m["buttons"] for b in row):
        assert driver._picker() or table.idle()
        table.clock.now += 2
    for _ in range(4):  # the board and the vote again: the group's budget of the minute runs out
        assert table.command(3, "/status") == 200
    assert table.press_label(2, table.group, "Approve") == 200
    assert len(keyboards(table)) >= 6  # the board's button, the vote's (and its copies')
    assert table.command(1, "/cancel") == 200
    settle(table)
    assert set(table.statuses) == {200}
    assert keyboards(table) == []
    group = {m["message_id"]: m["text"] for m in table.messages(table.group)}
    assert any(t.startswith("🛑 <b>Game cancelled</b> by") for t in group.values())
    board = [i for i, t in group.items() if t.startswith("📜 <b>Avalon</b>")][-1]  # (the newest: /status sent it)
    pinned = table.fake.pinned.get(table.group)  # the board pinned at the start, still pinned as at the end
    assert pinned is not None and pinned != board
    for text in (group[board], group[pinned]):  # both in their final state
        assert text.endswith("🛑 Game cancelled.") and "Waiting" not in text
