"""The operator's metrics (``gamebot.core.metrics``): the contract's names and units, blobs in the Embedded
Metric Format, and each metric moved where its fact happens (the rooms report through ``gamebot.observe``)."""
from __future__ import annotations

import asyncio
import json
import random

import pytest
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from gamebot import observe
from gamebot.botapi.telegram_io import Out, TelegramIO
from gamebot.core import metrics
from gamebot.storage.store import FakeRepository, Item, VersionConflict, retrying
from localdev.autoplay import Driver, Policy
from tests import emf
from tests.unit.gamebot_fakes import GROUP, HarnessScreen
from tests.unit.timer_fakes import Timed

# The contract between the code and template.yaml (docs: ISSUE 28): every metric, its unit, nothing else.
CONTRACT = {
    "Updates": "Count", "HandlerDuration": "Milliseconds", "BotApiErrors": "Count", "BotApi429": "Count",
    "RetryAfterWaited": "Seconds", "OutboxWaiting": "Count", "OutboxOldestAge": "Seconds",
    "VersionConflicts": "Count", "GamesStarted": "Count", "GamesFinished": "Count", "GamesCancelled": "Count",
    "ChatItemBytes": "Bytes", "TimersLate": "Count", "TimerLateness": "Seconds", "TimersMissed": "Count",
    "UpdateErrors": "Count", "TimerErrors": "Count", "SecretRejected": "Count", "Refused": "Count", "Throttled": "Count",
    "ScheduleFailed": "Count",
}


def test_the_metrics_are_exactly_the_contracts():
    assert metrics.METRICS == CONTRACT
    assert metrics.NAMESPACE == "AvalonBot"
    assert metrics.BY_UPDATE_TYPE == ("Updates", "HandlerDuration")
    assert set(metrics.OUTCOMES) == {"ok", "rejected", "throttled", "ignored", "error"}
    assert (metrics.LATE_AFTER, metrics.MISSED_AFTER) == (90, 300)


def blob_of(inv: metrics.Invocation, update: bool = True) -> dict:
    (blob,) = inv.blobs(1_700_000_000_000, update)
    assert emf.problems(json.dumps(blob)) == []
    return blob


def test_a_blob_follows_the_format_with_the_contracts_dimensions():
    inv = metrics.Invocation("button", request_id="req-1", stack="avalon")
    inv.note(outcome="ok", duration_ms=12.5)
    for fact in (lambda o: o.bot_api_failed(429), lambda o: o.bot_api_failed(429), lambda o: o.bot_api_failed(403),
                 lambda o: o.retry_after_waited(1.5), lambda o: o.retry_after_waited(2),
                 lambda o: o.chat_item_written(812), lambda o: o.chat_item_written(1400),
                 lambda o: o.outbox_left(2, 7.0), lambda o: o.version_conflict(),
                 lambda o: o.status_changed("lobby", "playing")):
        fact(inv)
    blob = blob_of(inv)
    typed, rest = blob["_aws"]["CloudWatchMetrics"]
    assert typed == {"Namespace": "AvalonBot", "Dimensions": [["Stack"], ["Stack", "UpdateType"]],
                     "Metrics": [{"Name": "Updates", "Unit": "Count"}, {"Name": "HandlerDuration", "Unit": "Milliseconds"}]}
    assert rest["Namespace"] == "AvalonBot" and rest["Dimensions"] == [["Stack"]]
    assert {m["Name"]: m["Unit"] for m in rest["Metrics"]} == {
        "BotApiErrors": "Count", "BotApi429": "Count", "RetryAfterWaited": "Seconds", "OutboxWaiting": "Count",
        "OutboxOldestAge": "Seconds", "VersionConflicts": "Count", "GamesStarted": "Count", "ChatItemBytes": "Bytes"}
    assert (blob["Stack"], blob["UpdateType"], blob["Outcome"], blob["requestId"]) == ("avalon", "button", "ok", "req-1")
    assert blob["Updates"] == 1 and blob["HandlerDuration"] == 12.5
    assert blob["BotApiErrors"] == 3 and blob["BotApi429"] == 2 and blob["RetryAfterWaited"] == 3.5  # counts: summed
    assert blob["ChatItemBytes"] == [812, 1400] and blob["OutboxWaiting"] == 2 and blob["OutboxOldestAge"] == 7
    assert blob["VersionConflicts"] == 1 and blob["GamesStarted"] == 1


def test_a_timer_counts_no_update_and_more_than_a_hundred_values_take_further_blobs():
    inv = metrics.Invocation("timer", stack="avalon")
    inv.note(duration_ms=3.0)
    for size in range(250):
        inv.chat_item_written(1000 + size)
    blobs = inv.blobs(1, update=False)
    for blob in blobs:
        assert emf.problems(json.dumps(blob)) == []
        assert "Updates" not in blob
    assert [b.get("Outcome") for b in blobs] == ["ok", None, None]  # (the wake-up's outcome, once)
    assert [len(b["ChatItemBytes"]) for b in blobs] == [100, 100, 50]
    assert blobs[0]["HandlerDuration"] == 3.0 and blobs[0]["UpdateType"] == "timer"
    assert "HandlerDuration" not in blobs[1]


def test_the_checker_refuses_what_the_format_forbids():
    inv = metrics.Invocation("command", stack="s")
    inv.note(duration_ms=4.0)
    good = blob_of(inv)
    for broken in ({**good, "Stack": 3}, {**good, "Updates": "1"}, {**good, "Updates": [1] * 101},
                   {k: v for k, v in good.items() if k != "HandlerDuration"},
                   {**good, "_aws": {**good["_aws"], "Timestamp": "now"}},
                   {**good, "_aws": {"Timestamp": 1, "CloudWatchMetrics": [
                       {"Namespace": "AvalonBot", "Dimensions": [[f"d{i}" for i in range(31)]], "Metrics": []}]}}):
        assert emf.problems(json.dumps(broken)), broken


def test_timers_late_and_missed_follow_their_thresholds():
    inv = metrics.Invocation("timer", stack="s")
    inv.timer_fired(30)
    inv.timer_fired(-2)  # (EventBridge Scheduler may fire a moment early)
    inv.timer_fired(120)
    assert inv.values == {"TimerLateness": [30, 0, 120], "TimersLate": [1]}
    inv = metrics.Invocation("button", stack="s")
    inv.alarm_overdue(299)
    assert inv.values == {}
    inv.alarm_overdue(301)
    inv.alarm_overdue(400)  # (the same update, read again after a conflict: counted once)
    assert inv.values == {"TimersMissed": [1]}


def test_without_a_stack_no_blob_is_written_and_the_fields_are_kept(capsys, caplog):
    import logging

    caplog.set_level(logging.INFO, "gamebot.test")
    with metrics.observed("command", None, logging.getLogger("gamebot.test")) as inv:
        assert metrics.current() is inv and observe.current() is inv
    assert capsys.readouterr().out == ""
    assert inv.fields["outcome"] == "ok" and inv.fields["duration_ms"] >= 0
    assert "update handled" in caplog.text
    assert metrics.current() is None and observe.current() is observe.QUIET  # nothing outlives the invocation


def test_an_invocation_writes_one_blob_on_stdout_and_an_error_is_its_outcome(capsys):
    import logging

    with pytest.raises(ValueError), metrics.observed("timer", None, logging.getLogger("gamebot.test"),
                                                     update=False) as inv:
        inv.stack = "avalon"
        inv.timer_fired(100)
        raise ValueError("boom")
    (blob,) = emf.blobs(capsys.readouterr().out)
    assert blob["TimersLate"] == 1 and blob["TimerLateness"] == 100 and blob["HandlerDuration"] >= 0
    assert inv.fields["outcome"] == "error"


def test_reports_reach_the_invocation_from_its_tasks_and_worker_threads():
    inv = metrics.Invocation("button")

    async def work() -> None:
        observe.current().version_conflict()
        await asyncio.to_thread(lambda: observe.current().chat_item_written(5))

    token = observe.start(inv)
    try:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(work())
        loop.close()
    finally:
        observe.stop(token)
    assert inv.values == {"VersionConflicts": [1], "ChatItemBytes": [5]}
    observe.current().version_conflict()  # outside an invocation: nothing, nowhere
    assert inv.values == {"VersionConflicts": [1], "ChatItemBytes": [5]}


def observing() -> tuple[metrics.Invocation, observe.Token]:
    inv = metrics.Invocation("button", stack="s")
    return inv, observe.start(inv)


def test_a_write_that_loses_its_version_check_counts_each_retry():
    repo = FakeRepository()
    repo.put(Item(key="chat#1", body={}), None)
    stale = [0, 0, 1]  # the version the attempt read: twice a stale one (someone wrote meanwhile)
    inv, token = observing()
    try:
        retrying(lambda: repo.put(Item(key="chat#1", body={"n": 1}), stale.pop(0)), backoff=0)
    finally:
        observe.stop(token)
    assert inv.values == {"VersionConflicts": [1, 1]}
    with pytest.raises(VersionConflict):  # the last try: raised, not retried
        retrying(lambda: repo.put(Item(key="chat#1", body={}), 0), tries=1)


def test_a_race_between_two_containers_moves_version_conflicts(h):
    from localdev import updates as U

    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()
    msg, btn = h.io.with_button(GROUP, "Approve")
    theirs = U.press(U.user(2), U.message(GROUP, msg.message_id, msg.text), btn.data)
    h.race_before_next_write(theirs)  # another container commits its vote between our read and our write
    inv, token = observing()
    try:
        assert h.send(U.press(U.user(1), U.message(GROUP, msg.message_id, msg.text), btn.data)) == 200
    finally:
        observe.stop(token)
    assert inv.values["VersionConflicts"] == [1]  # (the other container's invocation is not ours)


class Bot:
    """A Bot whose sendMessage fails as ``faults`` say, then works."""

    def __init__(self, *faults: Exception) -> None:
        self.faults = list(faults)

    async def send_message(self, **kwargs):
        if self.faults:
            raise self.faults.pop(0)
        return type("Message", (), {"message_id": 9})()


def sent(io: TelegramIO) -> tuple[bool, dict[str, list[float]]]:
    from gamebot.language.markup import Html

    inv, token = observing()
    try:
        loop = asyncio.new_event_loop()
        (result,) = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("hi"))]))
        loop.close()
    finally:
        observe.stop(token)
    return result.ok, inv.values


def test_a_429_streak_moves_the_bot_api_metrics_and_the_seconds_waited():
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)

    ok, values = sent(TelegramIO(Bot(RetryAfter(1), RetryAfter(2), RetryAfter(1)), sleep=sleep))
    assert ok and waited == [1, 2, 1]
    assert values == {"BotApiErrors": [1, 1, 1], "BotApi429": [1, 1, 1], "RetryAfterWaited": [1, 2, 1]}
    ok, values = sent(TelegramIO(Bot(RetryAfter(30)), sleep=sleep))  # too long to wait inline: the outbox waits
    assert not ok and values == {"BotApiErrors": [1], "BotApi429": [1]}


def test_other_bot_api_failures_count_as_errors_and_what_counts_as_done_does_not():
    ok, values = sent(TelegramIO(Bot(Forbidden("blocked"))))
    assert not ok and values == {"BotApiErrors": [1]}
    ok, values = sent(TelegramIO(Bot(NetworkError("reset"))))  # (an essential send is tried once more)
    assert ok and values == {"BotApiErrors": [1]}
    ok, values = sent(TelegramIO(Bot(BadRequest("Message is not modified"))))
    assert ok and values == {}


def test_games_started_finished_and_cancelled_are_counted_once_at_their_commit(h):
    players = [1, 2, 3, 4, 5]
    inv, token = observing()
    try:
        h.lobby(players)
        h.press_label(1, GROUP, "Start")
        Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3))).play()
        h.command(1, "/newgame")
        while h.idle():  # (the group's budget, spent by the game at a press a second: the lobby waits its slot)
            pass
        for uid in players[1:]:
            h.press_label(uid, GROUP, "Join")
        h.press_label(1, GROUP, "Start")
        h.command(1, "/cancel")
    finally:
        observe.stop(token)
    assert {k: sum(v) for k, v in inv.values.items() if k.startswith("Games")} == {
        "GamesStarted": 2, "GamesFinished": 1, "GamesCancelled": 1}
    assert inv.fields["chat_id"] == GROUP and inv.fields["game_id"]


def test_an_update_that_finds_the_chats_alarm_long_overdue_counts_a_missed_timer():
    h = Timed()
    try:
        h.lobby([1, 2, 3])
        for late, missed in ((200, {}), (400, {"TimersMissed": [1]})):
            h.clock.now = h.alarm().at + late  # the timer never fired
            inv, token = observing()
            try:
                h.command(2, "/extend")  # (any update that reads the chat in the unit of work)
            finally:
                observe.stop(token)
            assert {k: v for k, v in inv.values.items() if k == "TimersMissed"} == missed
    finally:
        h.close()


def test_a_delivery_reports_what_waits_in_the_outbox_and_since_when():
    from gamebot.storage.effects import Effect, Outbox

    box = Outbox()
    box.add(Effect(seq=0, op="send", chat=GROUP, text="a"))
    box.stamp(1000.0)
    box.add(Effect(seq=0, op="send", chat=GROUP, text="b"))
    box.stamp(1030.0)
    assert [e.at for e in box.effects] == [1000, 1030] and box.oldest(1100.0) == 100
    assert Outbox().oldest(5.0) is None


@pytest.mark.parametrize("outcome, metric", [
    ("error", "UpdateErrors"), ("rejected", "SecretRejected"), ("ignored", "Refused"), ("throttled", "Throttled")])
def test_every_outcome_an_operator_must_hear_of_is_a_metric_of_its_own(outcome, metric):
    inv = metrics.Invocation("button", stack="avalon")
    inv.note(outcome=outcome, duration_ms=3.0, chat_id=-100123, game_id="g7", update_id=42)
    blob = blob_of(inv)
    assert blob[metric] == 1 and blob["Outcome"] == outcome
    assert (blob["chat_id"], blob["game_id"], blob["update_id"]) == (-100123, "g7", 42)
    others = {"UpdateErrors", "SecretRejected", "Refused", "Throttled", "TimerErrors"} - {metric}
    assert not others & set(blob)


def test_an_ok_update_counts_in_no_failure_metric():
    inv = metrics.Invocation("button", stack="avalon")
    inv.note(outcome="ok", duration_ms=3.0)
    blob = blob_of(inv)
    assert not {"UpdateErrors", "SecretRejected", "Refused", "Throttled", "TimerErrors"} & set(blob)
    assert "chat_id" not in blob  # (unknown: left out)


@pytest.mark.parametrize("outcome, counted", [("error", True), ("retry", True), ("stale", False), ("ai_seats", False)])
def test_a_failed_wake_up_counts_in_timer_errors(outcome, counted):
    inv = metrics.Invocation("timer", stack="avalon")
    inv.note(outcome=outcome, duration_ms=3.0, chat_id=-100123)
    blob = blob_of(inv, update=False)
    assert ("TimerErrors" in blob) is counted and "Updates" not in blob and "UpdateErrors" not in blob
    assert blob["chat_id"] == -100123


def test_a_wake_up_the_queue_or_the_scheduler_would_not_take_is_counted():
    inv = metrics.Invocation("timer", stack="avalon")
    inv.schedule_failed()
    inv.schedule_failed()
    inv.note(outcome="ai_seats", duration_ms=3.0)
    assert blob_of(inv, update=False)["ScheduleFailed"] == 2
