"""The group's budget (``gamebot.storage.effects.Budget``, 20 sends and edits a minute by default): the
busiest minute is counted over a sliding window, the flood control model answers like Telegram, and what
Telegram's flood control refuses anyway (429) is not lost, progress included. (Whole games at one action
a second under the budget: tests/property/test_group_budget_games.py.)

Times are the test clock's (``tests/unit/flood_fakes.py``: one second per update, flush timers fired when
due); every group sendMessage, editMessageText, editMessageReplyMarkup, sendPhoto and pinChatMessage that
reached the group is counted, webhook replies included.
"""
from __future__ import annotations

from localdev.flood import FloodControl
from tests.unit.flood_fakes import FloodHarness, busiest_minute
from tests.unit.gamebot_fakes import GROUP


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
