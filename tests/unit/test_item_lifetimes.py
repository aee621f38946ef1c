"""Issue 36: every kind of item the code writes has a bounded life (``gamebot.storage.lifetimes``).

Whole games (one with a player who never acts: timeouts and the idle record) and what groups do around them
(/nextgame, the statistics, commands answered, refused presses, a group becoming a supergroup) run through
the real service on ``FakeRepository``, its clock the game's. Every write is watched: its key must be of a
kind ``lifetimes.KINDS`` lists (the repository raises otherwise), every kind must be seen, and each item
must expire exactly its kind's life after the write (a long-lived one: a year after its *last* write),
a notes item a day after its first note at most.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from gamebot.outbox.uow import refusals_key
from gamebot.storage import lifetimes
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import FakeRepository, Item
from localdev import updates as U
from tests.reliability import transcripts
from tests.unit.gamebot_fakes import GROUP, Harness, session
from tests.unit.timer_fakes import Timed

SETUP: transcripts.Setup = ("avalon", 7, ["merlin", "assassin", "percival", "morgana"], {"lady_of_the_lake": True})
DAY = 86_400


@dataclass
class Written:
    key: str
    at: float  # the repository's clock (the game's) when it was written
    expires_at: int | None
    note: bool  # a note (Repository.note) rather than a versioned write


def watch(h: Harness, log: list[Written]) -> Harness:
    """The harness's repository on the game's clock, its every write recorded in ``log``."""
    repo: FakeRepository = h.repo
    repo.clock = h.clock
    transact, note = repo.transact, repo.note

    def transacting(writes: Any, deletes: Any = None) -> list[Item]:
        out = transact(writes, deletes)
        log.extend(Written(i.key, repo.clock(), i.expires_at, False) for i in out)
        return out

    def noting(key: str, name: str, value: int, expires_at: int | None = None) -> None:
        note(key, name, value, expires_at)
        log.append(Written(key, repo.clock(), repo.items[key].expires_at, True))

    repo.transact, repo.note = transacting, noting  # type: ignore[method-assign]
    return h


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> list[Written]:
    """Every write of the harnesses ``transcripts.play`` builds, and of those built by ``watched``."""
    out: list[Written] = []

    class Watched(Harness):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            watch(self, out)

    monkeypatch.setattr(transcripts, "Harness", Watched)
    monkeypatch.setattr(transcripts, "_timed", lambda seed: watch(Timed(seed=seed), out))
    return out


def around_a_game(h: Harness) -> None:
    """What a group does besides playing: /nextgame, refused presses noted, becoming a supergroup."""
    players = [1, 2, 3, 4, 5]
    for uid in (8, 9):
        h.send(U.start(h.user(uid)))
    h.command(9, "/nextgame")  # (told when the lobby opens: the item goes)
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    h.command(8, "/nextgame")  # (waits for the next game: moves with the group)
    s = session(h)
    leader = s.players[s.game().leader].id
    h.press_label(leader, leader, s.players[0].name)
    h.press_label(leader, leader, "Propose team")  # one player missing: noted for a redelivery
    assert refusals_key(GROUP, leader) in h.repo.items
    h.send({"update_id": U.next_update_id(), "message": {
        **U.message(GROUP, 900, None, from_user=U.user(1)), "migrate_to_chat_id": -1002000000002}})
    assert Session.from_body(h.repo.items[chat_key(-1002000000002)].body).status == "playing"


def test_every_item_whole_games_write_is_of_a_listed_kind_and_lives_its_kinds_life(log):
    games = [transcripts.play(SETUP, seed=1, absent=3), transcripts.play(SETUP, seed=2)]
    side = watch(Harness(seed=5), log)
    around_a_game(side)
    for h in [*games, side]:
        h.close()
    kinds = {lifetimes.kind_of(w.key).prefix for w in log}
    assert kinds == {k.prefix for k in lifetimes.KINDS}  # every kind written, and none unlisted
    wrong = []
    for w in log:
        kind = lifetimes.kind_of(w.key)
        if w.note:  # a day from the item's first note, whatever came later
            ok = w.expires_at is not None and w.at < w.expires_at <= w.at + kind.life and kind.notes
        else:  # its kind's life from this write (game#: GAME_ARCHIVE_DAYS, the default here)
            ok = w.expires_at is not None and 0 <= w.at + kind.life - w.expires_at < 1 and not kind.notes
        if not ok:
            wrong.append((w.key, w.at, w.expires_at, kind.life))
    assert not wrong


def test_a_long_lived_item_lives_a_year_after_its_last_write_and_is_then_gone():
    """A group or a player that never comes back does not stay forever (before: no expiry at all)."""
    clock = [1_800_000_000.0]
    repo = FakeRepository(clock=lambda: clock[0])
    for key in ("chat#-5", "user#7", "next#-5#3", "idle#-5#3", "stats#chat#-5", "stats#user#7"):
        repo.put(Item(key, {"v": 1}), None)
        clock[0] += 100 * DAY
        repo.put(Item(key, {"v": 2}), 1)  # a write, a hundred days later: a year from then
        clock[0] += lifetimes.YEAR - 1
        assert repo.get(key) is not None
        clock[0] += 1
        assert repo.get(key) is None, key


def test_a_key_of_a_kind_nobody_listed_fails_loudly():
    repo = FakeRepository()
    with pytest.raises(lifetimes.UnknownKind, match="KINDS"):
        repo.put(Item("session#-5", {}), None)
    assert repo.items == {}


def test_five_refusals_20_hours_apart_keep_their_items_expiry_and_stay_few():
    """Before: each refusal moved the item's expiry a day on and added a note (5 refusals 20 h apart:
    5 notes, still a day from expiry). Now a day from the item's first note; one after that starts afresh."""
    clock = [1_800_000_000.0]
    repo = FakeRepository(clock=lambda: clock[0])
    key = refusals_key(GROUP, 7)
    seen = []
    for i in range(5):
        clock[0] = 1_800_000_000.0 + i * 20 * 3600
        repo.note(key, str(100 + i), 1)
        seen.append((repo.items[key].expires_at - 1_800_000_000, len(repo.notes(key))))
    assert seen == [(24 * 3600, 1), (24 * 3600, 2), (64 * 3600, 1), (64 * 3600, 2), (104 * 3600, 1)]


def test_a_players_refusals_item_holds_at_most_max_notes_the_latest():
    clock = [1_800_000_000.0]
    repo = FakeRepository(clock=lambda: clock[0])
    key = refusals_key(GROUP, 7)
    for update_id in range(9_990, 10_100):  # (ids crossing a power of ten: compared as numbers)
        clock[0] += 1
        repo.note(key, str(update_id), 1)
    assert sorted(map(int, repo.notes(key))) == list(range(10_100 - lifetimes.MAX_NOTES, 10_100))
    assert repo.items[key].expires_at == 1_800_000_001 + DAY


def test_a_redelivered_refusal_is_refused_again_also_once_its_players_item_is_full():
    """What ``uow`` relies on stays: a press refused for now and redelivered once the move became legal is
    refused again; with more refusals than the item holds, the latest are those kept."""
    h = Harness(seed=3)
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.press_label(1, GROUP, "Start")
        s = session(h)
        leader = s.players[s.game().leader].id
        h.press_label(leader, leader, s.players[0].name)
        for _ in range(lifetimes.MAX_NOTES + 5):
            h.press_label(leader, leader, "Propose team")  # one player missing: refused, noted
        first, early = h.sent[-lifetimes.MAX_NOTES - 5], h.sent[-1]
        noted = h.repo.notes(refusals_key(GROUP, leader))
        assert len(noted) == lifetimes.MAX_NOTES and str(first["update_id"]) not in noted
        h.press_label(leader, leader, s.players[1].name)  # now the team is complete...
        assert h.send(early) == 200  # ...and Telegram delivers the latest refused Propose again
        assert "too early" in h.last_answer().text and session(h).game().stage == "team"
    finally:
        h.close()
