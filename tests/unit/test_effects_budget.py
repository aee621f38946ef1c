"""The group's budget (``gamebot.storage.effects.Budget``, 20 sends and edits a minute by default) measured on
whole games at one action a second: the group never gets more than Telegram allows in any minute; and
what Telegram's flood control refuses anyway (429) is not lost, progress included.

Times are the test clock's (``tests/unit/flood_fakes.py``: one second per update, flush timers fired when
due); every group sendMessage, editMessageText, editMessageReplyMarkup, sendPhoto and pinChatMessage that
reached the group is counted, webhook replies included.
"""
from __future__ import annotations

import pytest

from gamebot.storage.effects import GROUP_LIMIT, Budget
from localdev.flood import FloodControl
from tests.reliability.support import ALL_MODULES, SETUPS, final_state
from tests.unit.flood_fakes import FloodHarness, busiest_minute, play
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


def test_busiest_minute_counts_a_sliding_window():
    assert busiest_minute([]) == 0
    assert busiest_minute([0, 59, 60, 61, 119.5]) == 3  # 59, 60, 61 (and 60, 61, 119.5)
    assert busiest_minute([float(t) for t in range(0, 120, 3)]) == 20


def test_the_flood_control_model_answers_like_telegram():
    now = [1000.0]
    flood = FloodControl(per_minute=3, clock=lambda: now[0])
    for _ in range(3):
        assert flood.refuse("sendMessage", -5) is None
        flood.accept("sendMessage", -5)
        now[0] += 10
    assert flood.refuse("editMessageText", "-5") == 30  # the oldest leaves the window at 1060
    now[0] += 5
    assert flood.refuse("sendMessage", -5) == 25  # the group stays closed meanwhile
    assert flood.refuse("sendMessage", 7) is None and flood.refuse("answerCallbackQuery", -5) is None
    now[0] = 1060.0
    assert flood.refuse("sendPhoto", -5) is None
    assert [r.retry_after for r in flood.refusals] == [30, 25] and flood.longest == 30
    assert flood.busiest(-5) == 3


# --- what Telegram refuses anyway is not lost -----------------------------------------------------------


def _leader(h: FloodHarness) -> int:
    return next(uid for uid in range(1, 6) if h.io.with_button(uid, "Propose team"))


def _started(closed_for: int = 0) -> FloodHarness:
    h = FloodHarness(seed=3, flood={"per_minute": 20})
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    return h


def test_a_pickers_edit_telegram_refuses_goes_out_when_allowed_and_the_latest_wins():
    """The Leader's toggles are progress (never stored): a 429 longer than worth waiting inline must not
    leave the picker showing an older selection for good, nor deliver an older one after a newer one."""
    h = _started()
    leader = _leader(h)
    picker, _ = h.io.with_button(leader, "Propose team")
    shown = picker.text
    first, second = [b.text for row in picker.keyboard for b in row if b.text.startswith("▫️")][:2]
    h.flood.closed[leader] = h.clock.now + 30  # Telegram: this chat must wait 30 s
    h.press_label(leader, leader, first)
    h.press_label(leader, leader, second)  # the Leader taps on (the toast says what is selected)
    assert picker.text == shown  # nothing could change on their screen yet
    assert [e.op for e in h.outbox().effects] == ["edit"]  # waiting, the newer replacing the older
    h.drain()  # time passes: the flush timer delivers it once Telegram allows
    names = [label.split(" ", 1)[1] for label in (first, second)]
    assert f"Selected: {names[0]} and {names[1]}" in picker.text  # both toggles: the latest state
    assert len(picker.history) == 2  # one edit, once the chat's wait was over


def test_an_edit_held_back_is_never_shown_after_a_newer_one():
    """Telegram opens the chat again before the held-back edit is due: the next toggle's edit must not
    overtake it (the older selection would then be shown last): it joins it in the outbox, in order."""
    h = _started()
    leader = _leader(h)
    picker, _ = h.io.with_button(leader, "Propose team")
    first, second = [b.text for row in picker.keyboard for b in row if b.text.startswith("▫️")][:2]
    h.flood.closed[leader] = h.clock.now + 30
    h.press_label(leader, leader, first)
    h.flood.closed[leader] = h.clock.now  # open again early
    h.press_label(leader, leader, second)
    h.drain()
    names = [label.split(" ", 1)[1] for label in (first, second)]
    assert f"Selected: {names[0]} and {names[1]}" in picker.text


def test_a_vote_progress_edit_telegram_refuses_is_shown_later():
    h = _started()
    leader = _leader(h)
    picker, _ = h.io.with_button(leader, "Propose team")  # the Leader proposes a team of two
    for label in [b.text for row in picker.keyboard for b in row if b.text.startswith("▫️")][:2]:
        h.press_label(leader, leader, label)
    h.press_label(leader, leader, "Propose team")
    vote, _ = h.io.with_button(GROUP, "Approve")
    h.flood.closed[GROUP] = h.clock.now + 40
    h.press_label(2, GROUP, "Approve")  # Carol votes: "Voted (1/5): Carol" cannot reach the group now
    assert "Carol" not in vote.text.partition("Voted (")[2]
    h.drain()
    assert "Voted (1/5): Carol" in vote.text  # once Telegram allows
