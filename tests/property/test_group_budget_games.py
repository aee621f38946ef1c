"""The group's budget (``gamebot.storage.effects.Budget``, 20 sends and edits a minute by default) over
whole games of every set-up at one action a second (two seeds each): the group never gets more than
Telegram allows in any minute, and with the default budget Telegram never has to say wait.

Times are the test clock's (``tests/unit/flood_fakes.py``: one second per update, flush timers fired when
due); every group sendMessage, editMessageText, editMessageReplyMarkup, sendPhoto and pinChatMessage that
reached the group is counted, webhook replies included.
"""
from __future__ import annotations

import pytest

from gamebot.storage.effects import GROUP_LIMIT, Budget
from tests.reliability.support import ALL_MODULES, SETUPS, final_state
from tests.unit.flood_fakes import busiest_minute, play
from tests.unit.gamebot_fakes import GROUP

FIVE = {
    "5-base": ("avalon", 5, ["merlin", "assassin"], {}),
    "5-all-modules": ("avalon", 5, ["merlin", "assassin", "percival", "morgana"], dict(ALL_MODULES)),
    "5-resistance": ("resistance", 5, [], {"plot_cards": True, "targeting": True}),
}
GAMES = [pytest.param(setup, seed, id=f"{name}-seed{seed}")
         for name, setup in [*FIVE.items(), *((f"10-{k}", v) for k, v in SETUPS.items())] for seed in (1, 2)]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "seed"), GAMES)
def test_at_one_action_a_second_the_group_gets_at_most_20_operations_in_any_minute(setup, seed):
    h = play(setup, seed)  # Harness pace: one update a second; the service's default budget
    assert final_state(h.repo, GROUP).over and h.driver.over()
    times = h.io.group_times()
    assert Budget().limit == GROUP_LIMIT == 20
    assert busiest_minute(times) <= 20
    assert len(times) > 20  # (a game long enough for the limit to matter)


@pytest.mark.parametrize(("setup", "seed"), [GAMES[0], GAMES[3], GAMES[7], GAMES[12]])
def test_with_the_default_budget_telegram_never_has_to_say_wait(setup, seed):
    h = play(setup, seed, flood={"per_minute": 20, "max_retry_after": 60})
    assert final_state(h.repo, GROUP).over
    assert h.flood.refusals == [] and h.io.waits == []
    assert h.flood.busiest(GROUP) == busiest_minute(h.io.group_times()) <= 20
