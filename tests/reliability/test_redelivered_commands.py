"""Telegram redelivers a command whose answer it did not get (the function timed out or died after
answering). The command is answered once: a reply in the webhook's answer or a message sent, never
both deliveries. Commands whose answer changes the session are recorded in it (``Session.seen``);
the others (/help, /rules, /status...) claim their update id with one conditional write."""
from __future__ import annotations

import pytest

from gamebot.storage.session import chat_key
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness


@pytest.fixture
def h():
    harness = Harness(seed=4)
    yield harness
    harness.close()


def _twice(h: Harness, update: dict) -> tuple[int, int]:
    """(operations of the first delivery, of the second): sends, edits, webhook replies."""
    before = len(h.io.outs)
    assert h.send(update) == 200
    first = len(h.io.outs) - before
    assert h.send(update) == 200
    return first, len(h.io.outs) - before - first


def _commands(h: Harness, where: str) -> list[dict]:
    group, private = U.group(GROUP), U.private(h.user(1))
    chat = group if where == "group" else private
    return [U.command(chat, h.user(1), text) for text in ("/help", "/rules", "/status", "/rules avalon")]


@pytest.mark.parametrize("where", ["group", "private"])
@pytest.mark.parametrize("moment", ["no game", "lobby", "playing"])
def test_a_redelivered_command_is_answered_once(h, where, moment):
    players = [1, 2, 3, 4, 5]
    if moment == "no game":
        h.send(U.start(h.user(1)))
    else:
        h.lobby(players)
    if moment == "playing":
        h.press_label(1, GROUP, "Start")
    for update in _commands(h, where):
        first, second = _twice(h, update)
        assert first >= 1, update["message"]["text"]
        assert second == 0, update["message"]["text"]


def test_a_redelivered_status_in_the_group_sends_no_second_picker(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    pickers = sum(1 for o in h.io.outs if o.tag == "picker" and o.op == "send")
    first, second = _twice(h, U.command(U.group(GROUP), h.user(2), "/status"))
    assert first >= 1 and second == 0
    assert sum(1 for o in h.io.outs if o.tag == "picker" and o.op == "send") <= pickers + 1
    assert not [o for o in h.io.outs if o.chat_id == GROUP and o.tag == "picker"]  # the picker is the Leader's


def test_the_claim_is_a_single_expiring_record_and_a_new_command_is_answered(h):
    h.send(U.start(h.user(1)))
    update = U.command(U.group(GROUP), h.user(1), "/help")
    _twice(h, update)
    claim = h.repo.items[f"update#{update['update_id']}"]
    assert claim.body == {} and h.clock.now < claim.expires_at <= h.clock.now + 86400
    again = U.command(U.group(GROUP), h.user(1), "/help")  # the same command, a new update: answered
    first, second = _twice(h, again)
    assert (first, second) == (1, 0)
    assert chat_key(GROUP) not in h.repo.items  # (nothing else was stored for a group without a game)
