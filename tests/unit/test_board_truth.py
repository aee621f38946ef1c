"""The board tells the truth: it names the decision actually pending, and says the game is over only
once the result is on screen.

Whole games at one action a second under the group's budget (``tests/unit/flood_fakes.py``: nothing
sleeps, the test clock moves). After every update and every wake-up of the chat's alarm, what the group
shows is compared with the game: when nothing waits for the group in the outbox, the board on screen is
the board of the game as it stands; and the board never says "Game over" before the end's result.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import public_view
from gamebot.messages.board import board
from gamebot.storage.session import Session, chat_key
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver
from tests.unit.flood_fakes import FloodHarness, FloodScreen, game_settings
from tests.unit.gamebot_fakes import GROUP

FIVE = ("avalon", 5, ["merlin", "assassin", "percival", "morgana"], {"lady_of_the_lake": True})


class Watched(FloodHarness):
    """A harness that checks the group's screen after every update and every alarm."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.checks = 0
        self.stale: list[tuple[str, str]] = []  # (board on screen, board of the game)
        self.early_end: list[str] = []

    def send(self, update: dict[str, Any]) -> int:
        status = super().send(update)
        self.look()
        return status

    def fire(self, timer: Any) -> None:
        super().fire(timer)
        self.look()

    def look(self) -> None:
        item = self.repo.items.get(chat_key(GROUP))
        if item is None:
            return
        s = Session.from_body(item.body)
        if s.board_msg is None or (GROUP, s.board_msg) not in self.io.msgs:
            return
        shown = self.io.msgs[(GROUP, s.board_msg)].text
        ended = self.service.deps.table(s).t("board.ended")
        if ended in shown and not any("🏁" in m.text for m in self.io.chat(GROUP) if m.message_id != s.board_msg):
            self.early_end.append(shown)
        waiting = [e for e in s.outbox.effects if e.chat == GROUP]
        if s.state and not waiting:
            state = s.game()
            want = board(self.service.deps.table(s), public_view(state), "ended" if state.over else "playing")
            self.checks += 1
            if not shown.endswith(want):  # (the start's news stands atop the first board)
                self.stale.append((shown, want))


def play_watched(setup: tuple, seed: int) -> Watched:
    theme, n, roles, options = setup
    h = Watched(seed)
    players = list(range(1, n + 1))
    h.lobby(players)
    game_settings(h.repo, theme, roles, options)
    h.press_label(players[0], GROUP, "Start")

    def status(user: int, chat: int) -> int:
        where = U.group(chat) if chat < 0 else U.private(h.user(user))
        return h.send(U.command(where, h.user(user), "/status"))

    h.driver = RobustDriver(FloodScreen(h), GROUP, players, Policy(rng=random.Random(seed), fail_rate=0.4),
                            status=status)
    h.driver.play()
    h.drain()
    return h


GAMES = [pytest.param(FIVE, 1, id="5-lady"), pytest.param(FIVE, 2, id="5-lady-2"),
         pytest.param(SETUPS["base"], 1, id="10-every-module"), pytest.param(SETUPS["resistance"], 3, id="10-resistance")]


_PLAYED: dict[tuple[str, int], Watched] = {}


def played(setup: tuple, seed: int) -> Watched:
    """Each game played once per test process, for both tests below: the same seeds make the same game,
    watched for both things at once, so the second test reads what the first one's replay saw."""
    key = (repr(setup), seed)
    if key not in _PLAYED:
        _PLAYED[key] = play_watched(setup, seed)
    return _PLAYED[key]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "seed"), GAMES)
def test_when_nothing_waits_for_the_group_the_board_names_the_decision_actually_pending(setup, seed):
    h = played(setup, seed)
    assert h.driver.over()
    assert h.checks > 20
    assert h.stale == [], f"{len(h.stale)} stale boards, the first:\n{h.stale[0][0]}\n--- instead of ---\n{h.stale[0][1]}"


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "seed"), GAMES)
def test_the_board_says_the_game_is_over_only_once_the_result_is_on_screen(setup, seed):
    h = played(setup, seed)
    assert h.driver.over()
    assert h.early_end == []


def test_a_steps_group_messages_take_the_budget_together_or_wait_together():
    """A step's news and the board that tells it reach the group together: with room for two of three
    group messages, all three wait until three slots are free (and a message of its own goes alone)."""
    from gamebot.outbox.plan import Plan
    from gamebot.outbox.uow import UnitOfWork
    from gamebot.storage.effects import Budget, Effect, Outbox
    from gamebot.storage.session import Session
    from gamebot.storage.store import FakeRepository

    budget = Budget()
    box = Outbox(group_ops=[1000.0 + i for i in range(18)])  # 18 of 20 slots taken in the last minute
    assert box.admit(1030.0, True, budget, 3) == 1000.0 + 60  # when the oldest has left the minute
    assert len(box.group_ops) == 18  # (nothing taken)
    assert box.admit(1030.0, True, budget, 2) is None and len(box.group_ops) == 20
    box = Outbox(group_ops=[1000.0 + i for i in range(18)])
    for text in ("news", "vote", "board"):
        box.add(Effect(seq=0, op="send", chat=-1, text=text, step=7))

    s = Session(chat_id=-1, outbox=box)
    uow = UnitOfWork(FakeRepository(), clock=lambda: 1030.0)
    step = uow.sort(s, Plan(session=s), -1, 1)
    assert step.stored == [] and all(e.not_before == 1060.0 for e in s.outbox.effects)
    step = UnitOfWork(FakeRepository(), clock=lambda: 1060.0).sort(s, Plan(session=s), -1, 1)
    assert [e.text for e in step.stored] == ["news", "vote", "board"]
