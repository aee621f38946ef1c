"""Time limits players can see: every decision's message says how long the player has ("2 min") and
until when, the board says until when the decision awaited now runs, and the group's messages and edits
per game do not grow for it. The moment is Telegram's date-time entity (``<tg-time format="t">``): each
reader's app shows it in their own time zone; an older app shows the time in UTC."""
from __future__ import annotations

import random
import time
from typing import Any

import pytest

from gamebot.storage.store import Item
from localdev.autoplay import Driver, Policy
from tests.reliability.support import RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen
from tests.unit.timer_fakes import Timed

PLAYERS = [1, 2, 3, 4, 5, 6, 7]


@pytest.fixture
def h():
    harness = Timed()
    yield harness
    harness.close()


def propose(h: Timed, players: list[int]) -> None:
    """The Leader builds and proposes a team through the picker."""
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()


def _until(h: Timed, utc: str = "{} UTC") -> str:
    due = h.session().deadline.due
    return f'<tg-time unix="{due}" format="t">{utc.format(time.strftime("%H:%M", time.gmtime(due)))}</tg-time>'


def _leader(h: Timed) -> int:
    s = h.session()
    return s.players[s.game().leader].id


def test_the_team_picker_and_the_board_say_how_long_and_until_when(h):
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    picker = h.io.last(_leader(h))
    assert picker.text.endswith(f"⏳ Time limit: 3 min, until {_until(h)}")  # the Leader's team: 180 s by default
    board = h.io.chat(GROUP)[0]
    assert f"⏱ 3 min to answer, until {_until(h)}" in board.text
    assert board.text.index("⏳ Waiting") < board.text.index("⏱")


def test_the_vote_the_quest_cards_and_private_prompts_say_their_limit(h):
    h.lobby(PLAYERS)
    set_settings(h.repo, GROUP, "avalon", ["merlin", "assassin"], {"lady_of_the_lake": True})
    h.press_label(1, GROUP, "Start")
    propose(h, PLAYERS)
    vote, _ = h.io.with_button(GROUP, "Approve")
    assert f"⏳ Time limit: 2 min, until {_until(h)}" in vote.text
    while h.idle():  # (within the group's budget)
        pass
    assert f"until {_until(h)}" in h.io.chat(GROUP)[0].text
    for uid in PLAYERS:
        h.press_label(uid, GROUP, "Approve")
    quest, _ = h.io.with_button(GROUP, "Success")
    assert quest.text.endswith(f"⏳ Time limit: 2 min, until {_until(h)}")
    team = h.session().game().team
    for seat in team:
        h.press(h.session().players[seat].id, quest, h.io.with_button(GROUP, "Success")[1].data)
    assert "Time limit" not in h.io.msgs[(GROUP, quest.message_id)].text  # every card is in: no limit left


def test_a_limit_set_by_the_group_is_the_one_shown(h):
    h.lobby(PLAYERS)
    item = h.repo.get(f"chat#{GROUP}")
    s = h.session()
    s.settings.timers.limits["propose"] = 600  # (what the settings panel's timers page does)
    h.repo.put(Item(key=item.key, body=s.body()), item.version)
    h.press_label(1, GROUP, "Start")
    assert h.io.last(_leader(h)).text.endswith(f"⏳ Time limit: 10 min, until {_until(h)}")


def test_in_french(h):
    for uid in PLAYERS:
        h.langs[uid] = "fr"
    h.lobby(PLAYERS, join="Rejoindre")
    h.press_label(1, GROUP, "Commencer")
    assert h.io.last(_leader(h)).text.endswith(f"⏳ Temps imparti : 3 min, jusqu'à {_until(h)}")
    assert f"pour répondre, jusqu'à {_until(h)}" in h.io.chat(GROUP)[0].text


def test_without_time_limits_nothing_is_said():
    h = Harness()
    try:
        h.lobby(PLAYERS)
        h.press_label(1, GROUP, "Start")
        assert not any("Time limit" in t or "tg-time" in t for chat in [GROUP, *PLAYERS] for t in h.io.texts(chat))
    finally:
        h.close()


class Settled(HarnessScreen):
    """Each press is followed by what waits in the group's outbox (held-back progress) once it is due, so
    that both games' players see the same screens at the same moments: the game does not depend on when
    a coalesced edit happens to go out."""

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> Any:
        status = super().press(user_id, chat_id, message_id, data)
        while self.h.idle():
            pass
        return status


def _group_ops(harness: Harness, seed: int) -> int:
    try:
        players = list(range(1, 11))
        harness.lobby(players)
        set_settings(harness.repo, GROUP, "avalon", ["merlin", "assassin", "percival", "morgana"],
                     {"lady_of_the_lake": True, "excalibur": True, "plot_cards": True})
        harness.press_label(1, GROUP, "Start")
        driver = RobustDriver(Settled(harness), GROUP, players, Policy(rng=random.Random(seed)))
        driver.play()
        while harness.idle():
            pass
        assert driver.over()
        return sum(1 for o in harness.io.outs if o.chat_id == GROUP and o.op in ("send", "edit", "markup", "photo"))
    finally:
        harness.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_showing_the_limits_costs_the_group_no_message_or_edit(seed):
    """The same game with the limits shown and without: the group gets as many sends and edits (the
    board's deadline changes only with its decision, whose board edit says it)."""
    assert _group_ops(Timed(seed=seed), seed) == _group_ops(Harness(seed=seed), seed)
