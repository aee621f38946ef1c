"""/cancel closes everything (issue 35): once a game is cancelled, no message in any chat keeps a button
(the round message and its /status copies, the board, the Leader's picker, a private prompt), the board
tells its final state (no one awaited, no time limit) and stays pinned as at the normal end, the history
is told only when something was played; a game that does not load gets what can still be closed."""
from __future__ import annotations

import random

import pytest

from engine import prompts
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from localdev import updates as U
from localdev.autoplay import Driver, Policy
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session
from tests.unit.timer_fakes import Timed

PLAYERS = [1, 2, 3, 4, 5]
ME = 7
HISTORY = "<b>History</b>"


@pytest.fixture
def timed():
    """The unit harness with phase timers on (the board and the vote tell their time limits)."""
    harness = Timed()
    yield harness
    harness.close()


def buttons(h: Harness) -> list[tuple[int, int, str]]:
    """Every message of every chat that carries buttons now: (chat, message id, its text's start)."""
    return [(m.chat_id, m.message_id, m.text[:40]) for m in h.io.msgs.values() if m.keyboard]


def pass_time(h: Timed, chat: int) -> None:
    """Time passes: the chat's alarm delivers what waits in its outbox (the group's budget was full)."""
    h.group = chat
    h.settle()


def assert_final_board(h: Harness, chat: int, board: int) -> None:
    msg = h.io.msgs[(chat, board)]
    assert msg.keyboard is None
    assert "Game cancelled" in msg.text
    assert "Waiting" not in msg.text and "until" not in msg.text and "tg-time" not in msg.text


def vote_open(h: Harness, players: list[int], chat: int = GROUP) -> None:
    driver = Driver(HarnessScreen(h), chat, players, Policy(rng=random.Random(1)))
    while h.io.with_button(chat, "Approve") is None:
        assert driver._picker()


def test_a_game_cancelled_mid_quest_closes_a_status_copy_of_the_quest_as_the_quest_message(timed: Timed) -> None:
    """The copy no longer tells the team to play with the buttons below: it shows the quest as it stood."""
    h = timed
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    vote_open(h, PLAYERS)
    for uid in PLAYERS:
        h.press_label(uid, GROUP, "Approve")
    quest_msg = h.io.with_button(GROUP, "Success")[0]
    h.command(2, "/status")
    copy = h.io.last(GROUP)
    assert copy is not quest_msg and copy.keyboard and "play your card with the buttons below" in copy.text
    h.command(1, "/cancel")
    pass_time(h, GROUP)
    assert buttons(h) == []
    assert copy.text == quest_msg.text and "Cards played: 0/2" in copy.text and "buttons below" not in copy.text


def test_a_group_game_cancelled_mid_vote_keeps_no_button_and_its_board_tells_the_end(timed: Timed) -> None:
    h = timed
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    pinned = session(h).pinned
    vote_open(h, PLAYERS)
    for _ in range(4):  # copies of the board and the vote: the group's budget of the minute runs out
        h.command(3, "/status")
    h.press_label(2, GROUP, "Approve")
    assert len(buttons(h)) >= 6
    h.command(1, "/cancel")
    pass_time(h, GROUP)
    s = session(h)
    assert s.status == "cancelled" and s.keyboards == []
    assert buttons(h) == []  # in the group and in every private chat
    (live,) = [m for m in h.io.chat(GROUP) if m.message_id == s.vote_msg]
    assert "Still to vote" in live.text and "⏳" not in live.text  # the round as it stood: no time limit running
    assert pinned is not None and s.pinned == pinned  # (unpinned when the group's next lobby opens, as at the end)
    assert_final_board(h, GROUP, s.board_msg)
    assert_final_board(h, GROUP, pinned)  # the board pinned at the start too, though /status sent newer ones
    texts = [m.text for m in h.io.chat(GROUP)]
    assert any(t.startswith("🛑 <b>Game cancelled</b> by Bob.") for t in texts)
    history = [t for t in texts if t.startswith(HISTORY)]
    assert len(history) == 1 and "vote open, 1 voted so far" in history[0]  # a team was proposed: told


def test_a_game_cancelled_with_a_private_prompt_open_keeps_no_button_anywhere(h: Harness) -> None:
    players = list(range(1, 8))
    h.lobby(players)
    for label in ("Settings", "Options", "Lady of the Lake", "Back", "Done"):
        h.press_label(1, GROUP if label == "Settings" else 1, label)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)))
    for _ in range(300):
        state = session(h).game()
        if any(p.kind == "lady" for seat in range(state.n) for p in prompts(state, seat)):
            break
        assert driver.step() or h.idle()  # (what the budget held back goes out when due)
    else:
        raise AssertionError("no Lady of the Lake")
    holder = next(seat for seat in range(state.n) if any(p.kind == "lady" for p in prompts(state, seat)))
    assert [m for m in h.io.chat(players[holder]) if m.keyboard]  # the Lady of the Lake's prompt
    h.command(1, "/cancel")
    while h.idle():  # (the group's budget: what waits goes out when due, as the chat's alarm delivers it)
        pass
    assert buttons(h) == []
    assert_final_board(h, GROUP, session(h).board_msg)


def test_a_game_cancelled_before_any_team_tells_no_empty_history(h: Harness) -> None:
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    leader = PLAYERS[session(h).game().leader]
    assert h.io.with_button(leader, "Propose team") is not None
    h.command(1, "/cancel")
    texts = [m.text for m in h.io.chat(GROUP)]
    assert not any(t.startswith(HISTORY) for t in texts)  # nothing was played: no history to tell
    end = [t for t in texts if t.startswith("🛑 <b>Game cancelled</b>")]
    assert len(end) == 1 and "<b>Roles</b>" in end[0]
    assert buttons(h) == []
    assert_final_board(h, GROUP, session(h).board_msg)


def practice(h: Timed) -> Session:
    h.send(U.start(h.user(ME)))
    Harness.command(h, ME, "/practice", chat_id=ME)
    h.press_label(ME, ME, "▶️ Start")
    return Session.from_body(h.repo.items[chat_key(ME)].body)


def test_a_practice_game_cancelled_closes_its_chat_the_same(timed: Timed) -> None:
    """The practice's table is the player's private chat (seed 7: they are the first Leader, their team
    picker open): cancelled before any team, it keeps no button, its board tells the end, no history."""
    h = timed
    s = practice(h)
    assert s.game().leader == 0 and h.io.with_button(ME, "Propose team") is not None
    Harness.command(h, ME, "/cancel", chat_id=ME)
    pass_time(h, ME)
    assert Session.from_body(h.repo.items[chat_key(ME)].body).status == "cancelled"
    assert buttons(h) == []
    assert_final_board(h, ME, s.board_msg)
    texts = [m.text for m in h.io.chat(ME)]
    assert not any(t.startswith(HISTORY) for t in texts)
    assert len([t for t in texts if t.startswith("🛑 <b>Game cancelled</b> by Heidi.")]) == 1


def test_cancel_of_a_game_that_does_not_load_closes_what_it_can(h: Harness) -> None:
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    pinned = session(h).pinned
    vote_open(h, PLAYERS)
    assert pinned is not None and len(buttons(h)) == 2  # the board's and the vote's
    item = h.repo.items[chat_key(GROUP)]
    h.repo.items[item.key] = Item(key=item.key, body={**item.body, "state": "{not a game"}, version=item.version)
    sent = len(h.io.outs)
    h.command(1, "/cancel")
    assert session(h).status == "cancelled" and session(h).pinned is None
    assert buttons(h) == []
    assert [(o.op, o.message_id) for o in h.io.outs[sent:] if o.op == "unpin"] == [("unpin", pinned)]
    assert "could not be read any more" in h.io.outs[-1].text
