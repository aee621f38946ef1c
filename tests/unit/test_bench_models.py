"""The pure parts of two benchmark scripts: the players' paces of ``scripts/count_messages.py`` and the
Lambda model of ``scripts/bench_lambda.py`` (CPU share per memory size, predicted duration, price,
the end of a game found in the rows). No timing is asserted: the rows here are made up."""
from __future__ import annotations

import collections
import math

import pytest

from scripts import bench_lambda as L
from scripts import count_messages as C


def test_one_and_ten_second_paces_are_even():
    assert {C.gap("1s", a, p) for a in "TVQP/" for p in ("T", "V", None)} == {1.0}
    assert {C.gap("10s", a, p) for a in "TVQP/" for p in ("T", "V", None)} == {10.0}


def test_a_bursty_table_talks_45_seconds_before_each_team_then_acts_3_seconds_apart():
    # a team picked, proposed, voted on, its cards played; then the next team
    actions = ["T", "T", "T", "V", "V", "V", "Q", "Q", "P", "T", "T", "V"]
    gaps, previous = [], "L"  # (the lobby's Start before it)
    for a in actions:
        gaps.append(C.gap("bursty", a, previous))
        previous = a
    assert gaps == [45.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 45.0, 3.0, 3.0]
    assert C.gap("bursty", "T", None) == 3.0  # nothing before the first action


def test_an_update_is_the_action_its_button_names():
    assert C.action_of({"callback_query": {"data": "T:-crupjz7l:1:2:x"}}) == "T"
    assert C.action_of({"callback_query": {"data": "V:-crupjz7l:1"}}) == "V"
    assert C.action_of({"message": {"text": "/status"}}) == "/"


def test_an_unknown_pace_is_refused():
    with pytest.raises(ValueError):
        C.gap("2s", "T", None)


def test_capacity_divides_a_45_minute_game_at_30_messages_a_second():
    assert C.capacity(81.0) == pytest.approx(1000.0)
    assert C.capacity(0) == 0.0


def test_sends_and_edits_are_counted_apart_for_the_group_and_in_private():
    counts = collections.Counter({("group", "vote (send)"): 3, ("group", "vote (edit)"): 7,
                                  ("private", "role (send)"): 10, ("private", "picker (edit)"): 4})
    assert C.split(counts) == {"group sends": 3, "group edits": 7, "private sends": 10, "private edits": 4,
                               "total": 24}


def test_the_share_of_a_vcpu_is_proportional_to_memory_up_to_one():
    assert L.share(1769) == 1.0
    assert L.share(512) == pytest.approx(0.289, abs=0.001)
    assert L.share(256) == pytest.approx(0.145, abs=0.001)
    assert L.share(3538) == 1.0  # one thread uses one vCPU at most


def test_the_predicted_duration_is_the_floor_plus_the_cpu_slowed_to_the_share():
    assert L.predicted_s(0.010, 0.004, 1769) == pytest.approx(0.014)
    assert L.predicted_s(0.010, 0.004, 512) == pytest.approx(0.010 + 0.004 * 1769 / 512)


def test_an_invocation_is_billed_by_the_millisecond_rounded_up_plus_its_request():
    # 10.2 ms at 1,024 MB: 11 ms x 1 GB
    assert L.invocation_usd(0.0102, 1024) == pytest.approx(0.011 * L.GB_S["x86_64"] + L.REQUEST)
    assert L.invocation_usd(0.010, 512, "arm64") == pytest.approx(0.010 * 0.5 * L.GB_S["arm64"] + L.REQUEST)
    assert L.invocation_usd(0.010, 512, "arm64") < L.invocation_usd(0.010, 512)


def row(kind, group=-1, cpu=0.002, workers=0.0, floor=0.010, calls=(), sent=None, **more):
    return {"kind": kind, "group": group, "game": "g", "cpu_s": cpu, "cpu_workers_s": workers, "floor_s": floor,
            "wall_s": floor + cpu, "dynamo_wire_s": 0.0, "calls": list(calls), "sent": sent or {}, "detail": "",
            "rru": 1, "wru": 1, **more}


def test_the_end_of_a_game_is_its_last_ending_update_and_the_invocation_that_sent_the_picture():
    rows = [row("vote"), row("last vote", cpu=0.005), row("quest card"),
            row("last card", cpu=0.030, workers=0.006, floor=0.049,
                calls=[(3.0, "editMessageText", "group"), (41.5, "sendMessage", "group")]),
            row("flush timer", cpu=0.140, floor=0.014, sent={"sendPhoto (group)": 1})]
    (end,) = L.endings(rows, rtt_s=0.080)
    assert end["kind"] == "last card"
    assert end["cpu_ms"] == pytest.approx(36.0) and end["workers_ms"] == pytest.approx(6.0)
    assert end["text_by"] == "the same update" and end["text_sent_ms"] == pytest.approx(41.5)
    assert end["picture_by"] == "flush timer" and end["picture_cpu_ms"] == pytest.approx(140.0)


def test_an_end_held_back_by_the_budget_is_told_by_the_flush_timer_that_sends_it():
    rows = [row("private decision", cpu=0.020, calls=[(1.0, "editMessageText", "private")]),
            row("flush timer", cpu=0.002, calls=[]),
            row("flush timer", cpu=0.100, calls=[(99.0, "sendMessage", "group"), (190.0, "sendPhoto", "group")],
                sent={"sendMessage (group)": 1, "sendPhoto (group)": 1})]
    (end,) = L.endings(rows, rtt_s=0.080)
    assert end["kind"] == "private decision"
    assert end["text_by"] == "flush timer" and end["text_sent_ms"] == pytest.approx(99.0)
    assert end["text_cpu_ms"] == pytest.approx(100.0) and end["picture_by"] == "flush timer"


def test_a_text_is_late_by_at_most_the_cpu_spent_before_it_was_sent():
    assert L.text_at_ms(40.0, 80.0, 30.0, 1769) == pytest.approx(120.0)
    # at 512 MB the 30 ms of CPU take 30 / share
    assert L.text_at_ms(40.0, 80.0, 30.0, 512) == pytest.approx(40.0 + 30.0 * (1769 / 512 - 1) + 80.0)
    # no more CPU can have run before the send than the time until it
    assert L.text_at_ms(10.0, 80.0, 100.0, 512) == pytest.approx(10.0 + 10.0 * (1769 / 512 - 1) + 80.0)


def test_the_memory_table_prices_every_invocation_and_keeps_the_rest_unchanged():
    rows = [row("vote", cpu=0.004, floor=0.010), row("flush timer", cpu=0.002, floor=0.020)]
    table = L.memory_table(rows)["g"]
    assert set(table) == set(L.MEMORIES)
    rest = {round(v["usd_rest"], 12) for v in table.values()}
    assert len(rest) == 1
    for mb, v in table.items():
        durations = [L.predicted_s(0.010, 0.004, mb), L.predicted_s(0.020, 0.002, mb)]
        assert v["lambda_s"] == pytest.approx(sum(durations))
        assert v["usd_lambda"] == pytest.approx(sum(L.invocation_usd(d, mb) for d in durations))
    assert table[256]["lambda_s"] > table[512]["lambda_s"] > table[1769]["lambda_s"]
    assert not math.isclose(table[256]["usd_lambda"], table[1769]["usd_lambda"])


def test_the_balanced_choice_weighs_cost_against_duration_as_power_tuning_does():
    table = {256: {"usd_lambda": 1.0, "lambda_s": 10.0}, 512: {"usd_lambda": 1.3, "lambda_s": 7.0},
             1024: {"usd_lambda": 2.0, "lambda_s": 6.0}, 1769: {"usd_lambda": 3.0, "lambda_s": 5.8}}
    assert L.balanced(table, 1.0) == 256  # the cheapest
    assert L.balanced(table, 0.0) == 1769  # the fastest
    # 0.5 x cost / 3 + 0.5 x duration / 10: 0.667, 0.567, 0.633, 0.79
    assert L.balanced(table) == 512
