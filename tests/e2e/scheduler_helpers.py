"""The chat's wake-ups as AWS delivers them, for end-to-end tests of whole games: the webhook and the timer
function both on one clock the test moves, waking chats through the wake-up queue (modelled on that clock:
``aws_model.ModelQueue``) and EventBridge Scheduler (moto), each delivered to the timer function as its own
event, late as AWS is late (``aws_model``)."""
from __future__ import annotations

import datetime as dtm
import importlib.util
import json
import random
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from localdev.autoplay import Driver, Policy, Words
from tests.aws_model import EVENTBRIDGE_LATE, ModelQueue, sqs_event

ROOT = Path(__file__).resolve().parents[2]
GROUP_NAME = "avalon-e2e"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:avalon-timer"
ROLE_ARN = "arn:aws:iam::123456789012:role/avalon-scheduler"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def timer_app() -> Any:
    spec = importlib.util.spec_from_file_location("timer_app_bots", ROOT / "functions" / "timer" / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def configure(monkeypatch: Any, queue: bool = True, late: float = EVENTBRIDGE_LATE) -> SimpleNamespace:
    """Both functions on one clock the test moves, waking chats as the stack does: the wake-up queue
    (``queue``; modelled on that clock) with EventBridge Scheduler (moto) for far alarms and as the
    backstop; ``queue=False``: EventBridge Scheduler alone. ``late``: how late a schedule fires (AWS: up
    to a minute). ``slept``: every wait of an invocation for Telegram's flood control (none, with the
    queue)."""
    import app
    import boto3

    from gamebot.timing import wakeup
    from gamebot.timing.scheduler import EventBridgeScheduler

    monkeypatch.setenv("TIMER_FUNCTION_ARN", TIMER_ARN)
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", ROLE_ARN)
    monkeypatch.setenv("SCHEDULE_GROUP", GROUP_NAME)
    client = boto3.client("scheduler", region_name="us-east-1")
    client.create_schedule_group(Name=GROUP_NAME)
    clock = Clock(float(int(time.time())))
    model = ModelQueue(clock)
    installed = [wakeup.QueueScheduler(model, EventBridgeScheduler(TIMER_ARN, ROLE_ARN, GROUP_NAME))] if queue else []
    monkeypatch.setattr(wakeup, "_INSTALLED", installed)  # (both functions' scheduler; gone after the test)
    app.reset()
    timer = timer_app()
    slept: list[float] = []
    fired: list[str] = []

    async def no_sleep(seconds: float) -> None:  # a wait out of flood control: recorded, the clock moves
        slept.append(seconds)
        clock.now += seconds

    for service in (app.service(), timer.service(TIMER_ARN)):
        service.set_clock(clock)
        service.io.sleep = no_sleep
    timer_service = timer.service(TIMER_ARN)
    wake = timer_service.wake

    async def recorded(payload: dict[str, Any]) -> str:  # (the queue's event answers failures only)
        outcome = await wake(payload)
        fired.append(outcome)
        return outcome

    timer_service.wake = recorded
    return SimpleNamespace(client=client, timer=timer, clock=clock, queue=model, late=late, slept=slept, fired=fired,
                           queue_on=queue)


def at_of(schedule: dict[str, Any]) -> int:
    when = schedule["ScheduleExpression"][3:-1]
    return int(dtm.datetime.strptime(when, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dtm.UTC).timestamp())


def schedules(client: Any) -> list[dict[str, Any]]:
    out = [client.get_schedule(Name=s["Name"], GroupName=GROUP_NAME)
           for s in client.list_schedules(GroupName=GROUP_NAME)["Schedules"]]
    return sorted(out, key=lambda s: (at_of(s), s["Name"]))


def next_wake(timed: SimpleNamespace) -> float | None:
    """When the next wake-up arrives: the queue's next message, or the earliest schedule, late as AWS."""
    times = [timed.queue.next_at()] if timed.queue.next_at() is not None else []
    pending = schedules(timed.client)
    if pending:
        times.append(at_of(pending[0]) + timed.late)
    return min(times) if times else None


def fire_next(timed: SimpleNamespace) -> str:
    """The next wake-up, at its moment: the queue's messages then visible, as one SQS event (the outcomes
    joined by ","), or the earliest schedule's payload (then it is deleted)."""
    at = next_wake(timed)
    assert at is not None, "nothing wakes the chat"
    timed.clock.now = max(timed.clock.now, at)
    context = SimpleNamespace(invoked_function_arn=TIMER_ARN)
    records = timed.queue.receive(timed.clock.now)
    if records:
        before = len(timed.fired)
        answer = timed.timer.lambda_handler(sqs_event(records), context)
        timed.queue.retry(answer["batchItemFailures"], records, timed.clock.now)
        return ",".join(timed.fired[before:]) or "stale"
    schedule = schedules(timed.client)[0]
    payload = json.loads(schedule["Target"]["Input"])
    timed.client.delete_schedule(Name=schedule["Name"], GroupName=GROUP_NAME)
    result = timed.timer.lambda_handler(payload, context)
    return str(result["status"])


def play_with_alarms(table: Any, timed: SimpleNamespace, chat: int, people: list[int], seed: int = 3,
                     words: Words | None = None, max_steps: int = 3000) -> list[str]:
    """People play through ``lambda_handler`` by reading their chats; when none has anything to press,
    time passes to the chat's next wake-up, which the timer function handles (the bots' moves). The
    outcomes of the wake-ups, in order."""
    driver = Driver(table, chat, people, Policy(rng=random.Random(seed)), words=words)
    fired: list[str] = []
    for _ in range(max_steps):
        if driver.over():
            return fired
        at = next_wake(timed)
        if at is not None and at <= timed.clock.now:  # the wake-ups arrive while people press
            fired.append(fire_next(timed))
            continue
        if driver.step():
            timed.clock.now += 1  # (a person takes a second a press)
            continue
        if timed.queue_on is False and table.idle():  # (with the queue, only its wake-ups deliver what waits)
            continue
        assert next_wake(timed) is not None, "the game waits for nothing"
        fired.append(fire_next(timed))
    raise AssertionError("the game did not end")
