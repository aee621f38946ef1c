"""A flood of one player's presses or commands through ``lambda_handler`` (moto, the fake Bot API) is cut
off before anything reads storage (``gamebot.botapi.throttle``, held by ``app.THROTTLE``): a burst of 10, then 2
a second. A throttled press is answered with a short toast in the presser's language through the
webhook's reply; a throttled command is ignored, with one short notice at most once a minute. The
throttle's clock is one the test holds (no timing in the test)."""
from __future__ import annotations

from typing import Any

import pytest

from gamebot.botapi.throttle import BURST, Throttle
from localdev import updates as U
from tests.e2e.conftest import SECRET


class Held:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def throttle_on(table, monkeypatch):
    """Turns the throttle on, from now (lambda_env switches it off for the games played at machine speed,
    and the set-up of these tests too), on a held clock; returns the clock."""
    import app

    def on() -> Held:
        clock = Held()
        monkeypatch.setattr(app, "THROTTLE", Throttle(clock=clock))
        monkeypatch.delenv("PLAYER_THROTTLE", raising=False)
        return clock

    return on


def _call(update: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
    """The webhook's status and the method it answered with (as Telegram receives them)."""
    import app

    response = app.lambda_handler(U.webhook_event(update, SECRET), None)
    return response["statusCode"], U.webhook_reply(response)


def _requests() -> dict[str, int]:
    """Every DynamoDB request the container made so far (reads ahead included)."""
    import app

    repo = app.service().repo
    return {**repo.calls, "ahead": repo.read_ahead["started"]}


def _to_vote(table: Any, players: list[int]) -> dict[str, Any]:
    table.open_lobby(players)
    assert table.start_game(1) == 200
    leader = table.leader()
    table.press_label(leader, leader, "Bob")
    table.press_label(leader, leader, "Carol")
    table.press_label(leader, leader, "Propose team")
    return next(m for m in reversed(table.messages(table.group))
                if any("Approve" in b["text"] for row in m["buttons"] for b in row))


def test_a_flood_of_presses_is_answered_slow_down_without_a_request(table, throttle_on):
    players = [1, 2, 3, 4, 5]
    vote = _to_vote(table, players)
    held = throttle_on()
    approve = next(b["data"] for row in vote["buttons"] for b in row if "Approve" in b["text"])
    msg = table.fake.message(table.group, vote["message_id"])
    calls = len(table.fake.calls)
    answers, costs = [], []
    for _ in range(30):  # all at the same moment
        before = _requests()
        status, method = _call(U.press(U.user(2), msg, approve))
        assert status == 200 and method["method"] == "answerCallbackQuery"
        answers.append(method.get("text", ""))
        costs.append(sum(_requests().values()) - sum(before.values()))
    assert "You voted" in answers[0]
    assert all("already voted" in a for a in answers[1:BURST])
    assert answers[BURST:] == ["Slow down… you are tapping too fast. Try again in a moment."] * (30 - BURST)
    assert all(c > 0 for c in costs[:BURST]) and costs[BURST:] == [0] * (30 - BURST)  # no DynamoDB request
    assert len(table.fake.calls) - calls <= 1  # no Bot API call of ours for them (the vote's own edit at most)
    held.now += 1.0  # a second later: two more presses go through
    assert [_call(U.press(U.user(2), msg, approve))[1]["text"].startswith("Slow") for _ in range(3)] == [
        False, False, True]
    # another player is not slowed down by the flood, and the vote goes on
    status, method = _call(U.press(U.user(3), msg, approve))
    assert status == 200 and "You voted" in method["text"]


def test_the_toast_speaks_the_pressers_language(table, throttle_on):
    players = [1, 2, 3, 4, 5]
    vote = _to_vote(table, players)
    throttle_on()
    approve = next(b["data"] for row in vote["buttons"] for b in row if "Approve" in b["text"])
    msg = table.fake.message(table.group, vote["message_id"])
    texts = [_call(U.press(U.user(4, language_code="fr"), msg, approve))[1].get("text", "") for _ in range(BURST + 1)]
    assert texts[-1] == "Doucement… vous appuyez trop vite. Réessayez dans un instant."


def test_a_flood_of_commands_is_ignored_with_one_notice_a_minute(table, throttle_on):
    table.fake.add_group(table.group, table.title)
    for uid in (1, 2):
        table.start_private(uid)
    held = throttle_on()
    group = U.group(table.group, table.title)
    replies = []
    for _ in range(15):
        before = _requests()
        status, method = _call(U.command(group, U.user(1), "/help"))
        assert status == 200
        replies.append((method, sum(_requests().values()) - sum(before.values())))
    assert all(m is not None and m["method"] == "sendMessage" and "/newgame" in m["text"] for m, _ in replies[:BURST])
    notice, cost = replies[BURST]
    assert notice["method"] == "sendMessage" and notice["chat_id"] == table.group and cost == 0
    assert notice["text"] == "Slow down… too many commands at once: I am ignoring them for a moment."
    assert notice["reply_parameters"]["message_id"] > 0  # a reply to the command: whose flood it is
    assert replies[BURST + 1:] == [(None, 0)] * (15 - BURST - 1)  # then ignored: 200, nothing sent or read
    held.now += 10.0  # the bucket refills; flooding again within the minute gets no second notice
    again = [_call(U.command(group, U.user(1), "/help"))[1] for _ in range(BURST + 3)]
    assert all(m is not None for m in again[:BURST]) and again[BURST:] == [None] * 3
    held.now += 60.0
    again = [_call(U.command(group, U.user(1), "/help"))[1] for _ in range(BURST + 2)]
    assert again[BURST]["text"].startswith("Slow down") and again[BURST + 1] is None
    # another player's commands go through
    status, method = _call(U.command(group, U.user(2), "/help"))
    assert status == 200 and method is not None and "/newgame" in method["text"]


def test_chatter_in_the_group_is_never_counted(table, throttle_on):
    table.fake.add_group(table.group, table.title)
    table.start_private(1)
    throttle_on()
    group = U.group(table.group, table.title)
    for _ in range(50):  # a player talking in the group: the bot reads nothing and answers nothing
        assert _call(U.text(group, U.user(1), "hello")) == (200, None)
    status, method = _call(U.command(group, U.user(1), "/help"))
    assert status == 200 and method is not None and "/newgame" in method["text"]
