"""EventBridge Scheduler (moto) for end-to-end tests of whole games: the webhook and the timer function
both configured for it and reading a clock the test moves; the chat's alarm fired at its time with the
payload the scheduler holds, as AWS would (then the schedule deletes itself)."""
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

ROOT = Path(__file__).resolve().parents[2]
GROUP_NAME = "avalon-e2e"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:avalon-timer"
ROLE_ARN = "arn:aws:iam::123456789012:role/avalon-scheduler"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        """An invocation's wait for the bots (``gamebot.core.pacing``): the clock moves, nobody sleeps."""
        self.slept.append(seconds)
        self.now += seconds


def timer_app() -> Any:
    spec = importlib.util.spec_from_file_location("timer_app_bots", ROOT / "functions" / "timer" / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def configure(monkeypatch: Any) -> SimpleNamespace:
    """Both functions on EventBridge Scheduler (moto) and on one clock the test moves."""
    import app
    import boto3

    monkeypatch.setenv("TIMER_FUNCTION_ARN", TIMER_ARN)
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", ROLE_ARN)
    monkeypatch.setenv("SCHEDULE_GROUP", GROUP_NAME)
    client = boto3.client("scheduler", region_name="us-east-1")
    client.create_schedule_group(Name=GROUP_NAME)
    app.reset()
    timer = timer_app()
    clock = Clock(float(int(time.time())))
    for service in (app.service(), timer.service(TIMER_ARN)):
        service.set_clock(clock, sleep=clock.sleep)
    return SimpleNamespace(client=client, timer=timer, clock=clock)


def at_of(schedule: dict[str, Any]) -> int:
    when = schedule["ScheduleExpression"][3:-1]
    return int(dtm.datetime.strptime(when, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dtm.UTC).timestamp())


def schedules(client: Any) -> list[dict[str, Any]]:
    out = [client.get_schedule(Name=s["Name"], GroupName=GROUP_NAME)
           for s in client.list_schedules(GroupName=GROUP_NAME)["Schedules"]]
    return sorted(out, key=lambda s: (at_of(s), s["Name"]))


def fire_next(timed: SimpleNamespace) -> str:
    """At the earliest schedule's time, the timer function with its payload (then it is deleted)."""
    schedule = schedules(timed.client)[0]
    payload = json.loads(schedule["Target"]["Input"])
    timed.clock.now = max(timed.clock.now, at_of(schedule))
    timed.client.delete_schedule(Name=schedule["Name"], GroupName=GROUP_NAME)
    result = timed.timer.lambda_handler(payload, SimpleNamespace(invoked_function_arn=TIMER_ARN))
    return str(result["status"])


def play_with_alarms(table: Any, timed: SimpleNamespace, chat: int, people: list[int], seed: int = 3,
                     words: Words | None = None, max_steps: int = 3000) -> list[str]:
    """People play through ``lambda_handler`` by reading their chats; when none has anything to press,
    time passes to the chat's next alarm, which the timer function handles (the bots' moves). The
    outcomes of the alarms, in order."""
    driver = Driver(table, chat, people, Policy(rng=random.Random(seed)), words=words)
    fired: list[str] = []
    for _ in range(max_steps):
        if driver.over():
            return fired
        pending = schedules(timed.client)
        if pending and at_of(pending[0]) <= timed.clock.now:  # the scheduler fires while people press
            fired.append(fire_next(timed))
            continue
        if driver.step():
            timed.clock.now += 1  # (a person takes a second a press)
            continue
        if table.idle():
            continue
        assert schedules(timed.client), "the game waits for nothing"
        fired.append(fire_next(timed))
    raise AssertionError("the game did not end")
