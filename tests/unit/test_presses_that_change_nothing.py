"""Presses that change nothing cost no write: a seated player's refused or repeated press (already voted,
not on the team, a card the rules refuse, a button of a decision that is over, a team not complete, a
tap that chooses what is chosen already) is answered and writes nothing to the chat's item, so that it
never bumps the version honest presses are checked against (``uow.UnitOfWork.commit``, ``Reply.final``,
``uow.refusals_key``). A refusal that the same press could pass later is noted in the presser's own
notes item, and a redelivery of it is refused again once the move has become legal."""
from __future__ import annotations

import pytest

from gamebot.outbox.uow import refusals_key
from gamebot.storage.session import chat_key
from localdev import updates as U
from tests.reliability.support import set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, session

PLAYERS = [1, 2, 3, 4, 5, 6, 7]


@pytest.fixture
def h():
    harness = Harness(seed=3)
    yield harness
    harness.close()


def _start(h: Harness, options: dict | None = None) -> None:
    h.lobby(PLAYERS)
    set_settings(h.repo, GROUP, "avalon", ["merlin", "assassin"], options or {})
    h.press_label(1, GROUP, "Start")


def _leader(h: Harness) -> int:
    s = session(h)
    return s.players[s.game().leader].id


def _propose(h: Harness) -> list[int]:
    """The Leader picks the first players the quest needs and proposes; the team's user ids."""
    s = session(h)
    leader = _leader(h)
    team = s.players[:2]  # the first quest of 7 players takes 2
    for p in team:
        h.press_label(leader, leader, p.name)
    h.press_label(leader, leader, "Propose team")
    assert session(h).game().stage == "vote"
    return [p.id for p in team]


class Cost:
    """What the presses between ``__enter__`` and ``__exit__`` cost: writes of the chat's item (its version),
    every write and note, and the notes of refusals."""

    def __init__(self, h: Harness) -> None:
        self.h = h

    def _now(self) -> tuple[int, int, int, int]:
        repo = self.h.repo
        refusals = sum(len(i.body) for k, i in repo.items.items() if k.startswith("refused#"))
        return repo.items[chat_key(GROUP)].version, repo.calls["write"], repo.calls["note"], refusals

    def __enter__(self) -> Cost:
        self.before = self._now()
        return self

    def __exit__(self, *exc: object) -> None:
        after = self._now()
        self.chat_writes, self.writes, self.notes, self.refusals = (a - b for a, b in zip(after, self.before, strict=True))


def test_thirty_repeated_votes_of_one_player_cost_no_write(h):
    _start(h)
    _propose(h)
    msg, approve = h.io.with_button(GROUP, "Approve")
    h.press(2, msg, approve.data)
    with Cost(h) as cost:
        for _ in range(30):
            h.press(2, msg, approve.data)
            assert "You already voted" in h.last_answer().text
    assert (cost.chat_writes, cost.writes, cost.notes) == (0, 0, 0)  # final: not even a note
    # the honest votes that follow are one write each, and the vote resolves
    version = session_version(h)
    for uid in PLAYERS[2:]:
        h.press(uid, msg, approve.data)
    assert session_version(h) >= version + len(PLAYERS[2:])
    assert h.press(1, msg, approve.data) == 200
    assert session(h).game().stage != "vote"


def session_version(h: Harness) -> int:
    return h.repo.items[chat_key(GROUP)].version


def test_refused_quest_cards_and_stale_buttons_write_nothing(h):
    _start(h)
    team = _propose(h)
    vote_msg, approve = h.io.with_button(GROUP, "Approve")
    for uid in PLAYERS:
        h.press(uid, vote_msg, approve.data)
    state = session(h).game()
    assert state.stage == "quest"
    msg, fail = h.io.with_button(GROUP, "Fail")
    _, success = h.io.with_button(GROUP, "Success")
    s = session(h)
    good = next(uid for uid in team if state.sides[s.seat_of(uid)].value == "good")
    outsider = next(uid for uid in PLAYERS if uid not in team)
    with Cost(h) as cost:
        h.press(good, msg, fail.data)  # Good may play only Success
        assert "must play" in h.last_answer().text
        h.press(outsider, msg, success.data)  # not on the team
        assert "only its team plays cards" in h.last_answer().text
        h.press(3, vote_msg, approve.data)  # the vote is over: a button of a decision that ended
        assert "out of date" in h.last_answer().text
        h.press(good, msg, success.data)
        h.press(good, msg, success.data)  # already played
        assert "already played" in h.last_answer().text
    assert cost.chat_writes == 1  # the one card played
    assert (cost.notes, cost.refusals) == (0, 0)


def test_a_team_not_complete_and_a_tap_that_changes_nothing_write_nothing_to_the_chat(h):
    _start(h, {"targeting": True})
    leader = _leader(h)
    s = session(h)
    h.press_label(leader, leader, "Quest 1")
    h.press_label(leader, leader, s.players[0].name)
    with Cost(h) as cost:
        h.press_label(leader, leader, "Quest 1")  # chosen already
        assert "Selected" in h.last_answer().text
        h.press_label(leader, leader, "Propose team")  # one player missing
        assert "Choose 2 players: 1 chosen so far" in h.last_answer().text
    assert cost.chat_writes == 0
    assert cost.refusals == 2  # noted in the Leader's own item: the same taps could pass later
    assert set(h.repo.items[refusals_key(GROUP, leader)].body) == {str(u["update_id"]) for u in h.sent[-2:]}
    assert session(h).game().stage == "team"


def test_a_redelivered_refusal_stays_refused_once_the_move_became_legal(h):
    _start(h)
    leader = _leader(h)
    s = session(h)
    h.press_label(leader, leader, s.players[0].name)
    h.press_label(leader, leader, "Propose team")  # one missing: refused
    early = h.sent[-1]
    refused_with = h.last_answer().text
    h.press_label(leader, leader, s.players[1].name)  # now the team is complete...
    version = session_version(h)
    assert h.send(early) == 200  # ...and Telegram delivers the refused Propose again
    assert "too early" in h.last_answer().text
    assert session(h).game().stage == "team" and session_version(h) == version
    assert h.last_answer().text != refused_with
    h.press_label(leader, leader, "Propose team")  # the Leader's own new press proposes
    assert session(h).game().stage == "vote"


def test_a_redelivered_final_refusal_gets_the_same_answer(h):
    _start(h)
    _propose(h)
    msg, approve = h.io.with_button(GROUP, "Approve")
    h.press(2, msg, approve.data)
    h.press(2, msg, approve.data)
    again = h.sent[-1]
    answer = h.last_answer().text
    h.press(3, msg, approve.data)  # the chat moves on
    version = session_version(h)
    assert h.send(again) == 200
    assert h.last_answer().text == answer and session_version(h) == version


def test_a_refusal_of_someone_without_a_seat_is_not_noted(h):
    _start(h)
    _propose(h)
    msg, approve = h.io.with_button(GROUP, "Approve")
    with Cost(h) as cost:
        h.send(U.press(h.user(42), U.message(GROUP, msg.message_id, msg.text), approve.data))
    assert "not playing" in h.last_answer().text
    assert (cost.chat_writes, cost.writes, cost.notes) == (0, 0, 0)


def test_a_press_overtaken_by_a_later_one_looks_at_its_refusals_once_and_is_applied(h):
    _start(h)
    _propose(h)
    msg, approve = h.io.with_button(GROUP, "Approve")
    m = U.message(GROUP, msg.message_id, msg.text)
    earlier, later = U.press(h.user(3), m, approve.data), U.press(h.user(4), m, approve.data)
    assert h.send(later) == 200
    reads = h.repo.calls["read"]
    assert h.send(earlier) == 200  # older than an update the chat applied: it may have been refused before
    assert "You voted" in h.last_answer().text
    assert h.repo.calls["read"] - reads == 2  # the chat's item, and the presser's refusals (none)
    s = session(h)
    assert {s.seat_of(3), s.seat_of(4)} <= set(s.game().votes)
    reads = h.repo.calls["read"]
    h.press(5, msg, approve.data)  # a press in order: one read
    assert h.repo.calls["read"] - reads == 1
