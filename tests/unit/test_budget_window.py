"""The group's budget holds in every sliding 60-second window, whatever the timing of the updates: the
times the budget keeps are never earlier than the calls they stand for (an admitted call reaches
Telegram a moment after it is admitted), so a slot never frees early.

A property test: random sub-second timings of steps of one to four group operations, each admitted or
told when to come back, each admitted operation reaching Telegram within a second; no window of 60
seconds (Telegram's rule) holds more than the limit.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamebot.storage.effects import SEND_MARGIN, Budget, Outbox
from tests.unit.flood_fakes import busiest_minute


@settings(max_examples=300, deadline=None)
@given(gaps=st.lists(st.floats(min_value=0.0, max_value=3.0, allow_nan=False), min_size=30, max_size=200),
       sizes=st.lists(st.integers(min_value=1, max_value=4), min_size=30, max_size=200),
       seed=st.integers(min_value=0, max_value=2**32))
@pytest.mark.slow
def test_no_sixty_second_window_holds_more_than_the_limit(gaps, sizes, seed):
    rng = random.Random(seed)
    budget, box = Budget(), Outbox()
    now, arrived = 1_800_000_000.0 + rng.random(), []
    waiting: list[tuple[float, int]] = []  # steps told to come back later: (when, how many operations)
    for gap, size in zip(gaps, sizes, strict=False):
        now += gap
        waiting.append((now, size))
        waiting.sort()
        still = []
        for when, n in waiting:
            if when > now:
                still.append((when, n))
                continue
            slot = box.admit(now, True, budget, n)
            if slot is None:  # admitted: its calls reach Telegram a moment later
                arrived += [now + rng.uniform(0.0, SEND_MARGIN) for _ in range(n)]
            else:
                assert slot > now
                still.append((slot, n))
        waiting = still
    assert busiest_minute(arrived) <= budget.limit


def test_a_slot_frees_only_once_the_call_it_stands_for_has_left_the_minute():
    budget, box = Budget(), Outbox()
    for i in range(20):
        assert box.admit(1000.9 + i, True, budget) is None  # admitted at x.9: sent a moment later
    slot = box.admit(1030.0, True, budget)
    assert slot is not None and slot >= 1000.9 + 60  # not at 1060.0, a second early


def test_a_full_outbox_refuses_new_progress_and_never_drops_an_essential_entry():
    from gamebot.storage.effects import MAX_OUTBOX, Effect

    box = Outbox()
    for i in range(MAX_OUTBOX + 50):  # Telegram keeps saying wait: the essential messages pile up
        box.add(Effect(seq=0, op="send", chat=-1, text=f"essential {i}", not_before=2e9))
    assert [e.text for e in box.effects] == [f"essential {i}" for i in range(MAX_OUTBOX + 50)]
    progress = box.add(Effect(seq=0, op="edit", chat=5, message_id=9, text="who has voted", progress=True))
    assert progress not in box.effects and box.refused == 1
    assert len(box.effects) == MAX_OUTBOX + 50


def test_progress_that_takes_over_a_waiting_essential_edit_is_kept_as_essential():
    from gamebot.storage.effects import Effect

    box = Outbox()
    box.add(Effect(seq=0, op="edit", chat=5, message_id=9, text="the vote's result", not_before=2e9))
    latest = box.add(Effect(seq=0, op="edit", chat=5, message_id=9, text="the latest", progress=True))
    assert box.effects == [latest] and not latest.progress  # it carries the essential edit's state now
