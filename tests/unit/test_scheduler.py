"""The scheduler implementations: FakeScheduler, LocalScheduler (a thread), configuration, a lazy client.

LocalScheduler is driven by a fake clock and ``wake()``; the test waits on events (with a generous
timeout that only guards against a hang), never on elapsed time.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gamebot.timing import wakeup
from gamebot.timing.scheduler import (
    EventBridgeScheduler,
    FakeScheduler,
    LocalScheduler,
    Timer,
    at_expression,
)

ROOT = Path(__file__).resolve().parents[2]
HANG = 10.0  # seconds: only a guard against a broken thread, never a timing assertion


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_fake_scheduler_orders_by_time_and_ignores_a_repeated_name():
    fake = FakeScheduler()
    fake.schedule(Timer("b", 20, {"n": 2}))
    fake.schedule(Timer("a", 10, {"n": 1}))
    fake.schedule(Timer("c", 20, {"n": 3}))
    fake.schedule(Timer("a", 5, {"n": 9}))  # same name: ignored
    assert [fake.pop_next().payload["n"] for _ in range(3)] == [1, 2, 3]
    assert fake.pop_next() is None


def test_at_expression_is_utc_to_the_second():
    assert at_expression(0) == "at(1970-01-01T00:00:00)"
    assert at_expression(1_700_000_123) == "at(2023-11-14T22:15:23)"


def test_local_scheduler_calls_the_handler_in_time_order_when_due():
    clock = Clock()
    calls: list[dict] = []
    done = threading.Event()

    def handler(payload):
        calls.append(payload)
        if len(calls) == 3:
            done.set()

    with LocalScheduler(handler, clock=clock) as local:
        local.schedule(Timer("late", 1300, {"n": 3}))
        local.schedule(Timer("early", 1100, {"n": 1}))
        local.schedule(Timer("middle", 1200, {"n": 2}))
        local.schedule(Timer("early", 1000, {"n": 0}))  # a repeated name is ignored
        assert [t.name for t in local.pending()] == ["early", "middle", "late"]
        assert calls == []  # nothing is due yet
        clock.now = 1250
        local.wake()
        deadline = threading.Event()
        for _ in range(200):  # the thread fires the two due timers; wait for it (no timing assertion)
            if len(local.fired) == 2:
                break
            deadline.wait(HANG / 200)
        assert [c["n"] for c in calls] == [1, 2] and [t.name for t in local.pending()] == ["late"]
        clock.now = 1300
        local.wake()
        assert done.wait(HANG)
    assert [c["n"] for c in calls] == [1, 2, 3]


def test_a_failing_handler_does_not_stop_the_local_scheduler():
    clock = Clock()
    ok = threading.Event()

    def handler(payload):
        if payload["boom"]:
            raise RuntimeError("boom")
        ok.set()

    with LocalScheduler(handler, clock=clock) as local:
        local.schedule(Timer("x", 900, {"boom": True}))
        local.schedule(Timer("y", 950, {"boom": False}))
        assert ok.wait(HANG)
        assert [t.name for t in local.fired] == ["x", "y"]


def test_local_scheduler_stops_cleanly_with_timers_pending():
    local = LocalScheduler(lambda p: None, clock=Clock()).start()
    local.schedule(Timer("never", 10**9, {}))
    local.stop()
    assert local.fired == [] and [t.name for t in local.pending()] == ["never"]


def test_scheduler_from_env_needs_the_three_settings(monkeypatch):
    for name in ("TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP"):
        monkeypatch.delenv(name, raising=False)
    assert wakeup.scheduler_from_env() is None
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/r")
    monkeypatch.setenv("SCHEDULE_GROUP", "g")
    assert wakeup.scheduler_from_env() is None  # no target yet
    found = wakeup.scheduler_from_env(target_arn="arn:aws:lambda:us-east-1:123456789012:function:t")
    assert isinstance(found, EventBridgeScheduler) and found.group == "g"
    monkeypatch.setenv("TIMER_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:w")
    assert wakeup.scheduler_from_env().target_arn.endswith(":w")


def test_an_installed_scheduler_wins_over_the_environment():
    local = LocalScheduler(lambda p: None)
    wakeup.install(local)
    try:
        assert wakeup.scheduler_from_env() is local
    finally:
        wakeup.install(None)
    assert wakeup.scheduler_from_env() is not local


def test_without_timers_boto3_and_the_scheduler_client_are_never_loaded():
    """Cold start: building the service and handling an update with timers configured but the group's
    limits off creates no scheduler client (it is made on the first schedule) and imports no boto3."""
    code = """
import asyncio, os, sys
os.environ.update(TIMER_FUNCTION_ARN="arn:aws:lambda:us-east-1:1:function:t", SCHEDULER_ROLE_ARN="arn:aws:iam::1:role/r",
                  SCHEDULE_GROUP="g")
from gamebot.timing.wakeup import scheduler_from_env
from gamebot.core.service import Service
from gamebot.storage.store import FakeRepository
from gamebot.botapi.callbacks import Codec
from tests.unit.gamebot_fakes import RecordingIO
from localdev import updates as U
s = scheduler_from_env()
svc = Service(FakeRepository(), RecordingIO(), Codec("1:x"), bot_username="b", scheduler=s)
from gamebot.storage.session import Session, Settings, TimerSettings, chat_key
from gamebot.storage.store import Item
off = Settings(timers=TimerSettings(limits={"join": 0}))
svc.repo.put(Item(key=chat_key(-5), body=Session(chat_id=-5, settings=off).body()), None)
asyncio.new_event_loop().run_until_complete(svc.handle(U.start(U.user(1))))
asyncio.new_event_loop().run_until_complete(svc.handle(U.command(U.group(-5), U.user(1), "/newgame")))
assert s.created == 0
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "botocore"))
assert not loaded, loaded[:5]
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False,
                            env={"PYTHONPATH": f"{ROOT / 'shared'}:{ROOT}", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("code", ["ConflictException"])
def test_event_bridge_scheduler_treats_an_existing_name_as_done(code):
    class Existing(Exception):
        response = {"Error": {"Code": code}}

    class Client:
        def create_schedule(self, **kwargs):
            raise Existing()

    EventBridgeScheduler("t", "r", "g", client=Client()).schedule(Timer("x", 1, {}))


def test_event_bridge_scheduler_raises_other_errors():
    class Throttled(Exception):
        response = {"Error": {"Code": "ThrottlingException"}}

    class Client:
        def create_schedule(self, **kwargs):
            raise Throttled()

    with pytest.raises(Throttled):
        EventBridgeScheduler("t", "r", "g", client=Client()).schedule(Timer("x", 1, {}))


# -- a timer that cannot be delivered is kept: retry policy and dead-letter queue ----------------------

DLQ = "arn:aws:sqs:us-east-1:123456789012:avalon-TimerDeadLetterQueue-abc"


class Recording:
    def __init__(self) -> None:
        self.created: list[dict] = []

    def create_schedule(self, **kwargs):
        self.created.append(kwargs)
        return {}


def test_each_schedule_is_retried_then_dead_lettered_with_the_payload_as_its_input():
    client = Recording()
    EventBridgeScheduler("arn:f", "arn:r", "g", client=client, dead_letter_arn=DLQ).schedule(
        Timer("wake-5", 1_900_000_000, {"chat": -5, "kind": "wake"}))
    (created,) = client.created
    assert created["Target"] == {
        "Arn": "arn:f", "RoleArn": "arn:r", "Input": '{"chat":-5,"kind":"wake"}',
        "RetryPolicy": {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 900},
        "DeadLetterConfig": {"Arn": DLQ},
    }
    assert EventBridgeScheduler.MAX_RETRIES >= 3 and 60 <= EventBridgeScheduler.MAX_EVENT_AGE <= 86400  # API bounds


def test_without_a_dead_letter_queue_the_target_has_none_but_keeps_its_retries():
    client = Recording()
    EventBridgeScheduler("arn:f", "arn:r", "g", client=client).schedule(Timer("x", 1, {}))
    target = client.created[0]["Target"]
    assert "DeadLetterConfig" not in target and target["RetryPolicy"]["MaximumRetryAttempts"] == 3


def test_the_dead_letter_queue_comes_from_the_environment(monkeypatch):
    for name, value in (("TIMER_FUNCTION_ARN", "arn:f"), ("SCHEDULER_ROLE_ARN", "arn:r"), ("SCHEDULE_GROUP", "g"),
                        ("TIMER_DLQ_ARN", DLQ)):
        monkeypatch.setenv(name, value)
    found = wakeup.scheduler_from_env()
    assert isinstance(found, EventBridgeScheduler) and found.dead_letter_arn == DLQ
    assert found.target(Timer("x", 1, {}))["DeadLetterConfig"] == {"Arn": DLQ}
    monkeypatch.delenv("TIMER_DLQ_ARN")
    found = wakeup.scheduler_from_env()
    assert isinstance(found, EventBridgeScheduler) and "DeadLetterConfig" not in found.target(Timer("x", 1, {}))


def test_the_create_schedule_request_on_the_wire_carries_the_retry_policy_and_the_dead_letter_queue():
    """Through our own client (gamebot.aws.scheduler_api) to a scripted server: the JSON body EventBridge
    Scheduler gets."""
    from gamebot.aws.scheduler_api import Scheduler as SchedulerAPI
    from gamebot.aws.signing import Credentials
    from tests.unit.aws_fakes import Answer, ScriptedServer

    with ScriptedServer(Answer(200, {"ScheduleArn": "arn:x"})) as server:
        api = SchedulerAPI(endpoint=server.url, region_name="us-east-1", creds=lambda: Credentials("AKID", "s", None),
                           sleep=lambda s: None, rand=lambda: 1.0)
        EventBridgeScheduler("arn:f", "arn:r", "g", client=api, dead_letter_arn=DLQ).schedule(
            Timer("wake-7", 1_900_000_000, {"chat": -7, "kind": "wake"}))
    (post,) = server.requests
    assert (post.method, post.target) == ("POST", "/schedules/wake-7")
    target = post.json()["Target"]
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 900}
    assert target["DeadLetterConfig"] == {"Arn": DLQ}
    assert json.loads(target["Input"]) == {"chat": -7, "kind": "wake"}  # what the dead-letter message carries
