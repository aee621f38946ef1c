"""Phase timers end to end: the webhook Lambda schedules on EventBridge Scheduler (moto), and the timer
Lambda is invoked with exactly the payloads the scheduler received, earliest first, as EventBridge
Scheduler would (then the schedule deletes itself: ActionAfterCompletion DELETE). One player never
acts; the game still finishes."""
from __future__ import annotations

import datetime as dtm
import importlib.util
import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from gamebot.session import Session, chat_key
from tests.e2e.conftest import TABLE
from tests.e2e.driver import Driver, Policy

ROOT = Path(__file__).resolve().parents[2]
GROUP_NAME = "avalon-e2e-timers"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:avalon-timer"
ROLE_ARN = "arn:aws:iam::123456789012:role/avalon-scheduler"


def _timer_app():
    spec = importlib.util.spec_from_file_location("timer_app", ROOT / "functions" / "timer" / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def timed(lambda_env, monkeypatch):
    """The webhook and the timer function configured for EventBridge Scheduler, in moto."""
    import app
    import boto3

    monkeypatch.setenv("TIMER_FUNCTION_ARN", TIMER_ARN)
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", ROLE_ARN)
    monkeypatch.setenv("SCHEDULE_GROUP", GROUP_NAME)
    client = boto3.client("scheduler", region_name="us-east-1")
    client.create_schedule_group(Name=GROUP_NAME)
    app.reset()
    timer = _timer_app()
    yield SimpleNamespace(client=client, timer=timer, fake=lambda_env)
    timer.reset()


def schedules(client) -> list[dict]:
    """Every schedule in the group with its details, earliest first."""
    out = []
    for summary in client.list_schedules(GroupName=GROUP_NAME)["Schedules"]:
        out.append(client.get_schedule(Name=summary["Name"], GroupName=GROUP_NAME))
    return sorted(out, key=lambda s: (s["ScheduleExpression"], s["Name"]))


def fire_next(timed) -> tuple[dict, dict]:
    """Invoke the timer function with the earliest schedule's payload, then delete it as AWS would."""
    schedule = schedules(timed.client)[0]
    payload = json.loads(schedule["Target"]["Input"])
    context = SimpleNamespace(invoked_function_arn=TIMER_ARN)
    result = timed.timer.lambda_handler(payload, context)
    timed.client.delete_schedule(Name=schedule["Name"], GroupName=GROUP_NAME)
    return payload, result


def session_of(group: int) -> Session:
    from gamebot import dynamo

    item = dynamo.DynamoRepository(TABLE).get(chat_key(group))
    return Session.from_body(item.body)


def test_the_webhook_schedules_one_time_timers_that_target_the_timer_function(table, timed):
    table.open_lobby([1, 2, 3])
    found = schedules(timed.client)
    assert len(found) == 2  # the join reminder and the join deadline
    s = session_of(table.group)
    for schedule in found:
        payload = json.loads(schedule["Target"]["Input"])
        assert (payload["chat"], payload["game"], payload["phase"]) == (table.group, s.game_id, "join")
        assert schedule["Target"]["Arn"] == TIMER_ARN and schedule["Target"]["RoleArn"] == ROLE_ARN
        assert schedule["ActionAfterCompletion"] == "DELETE" and schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
        assert schedule["GroupName"] == GROUP_NAME and schedule["ScheduleExpressionTimezone"] == "UTC"
        at = payload["due"] if payload["kind"] == "expire" else s.deadline.remind_at
        when = dtm.datetime.fromtimestamp(at, dtm.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        assert schedule["ScheduleExpression"] == f"at({when})"
    assert s.deadline.due == max(json.loads(x["Target"]["Input"])["due"] for x in found)


def test_a_game_where_one_player_never_acts_finishes_through_the_timer_function(table, timed):
    players = [1, 2, 3, 4, 5]
    absent = 4
    table.open_lobby(players)
    assert table.start_game(1) == 200
    driver = Driver(table, table.group, [p for p in players if p != absent], Policy(rng=random.Random(5)))
    outcomes = []
    for _ in range(300):
        driver.play()
        if driver.over():
            break
        payload, result = fire_next(timed)
        outcomes.append((payload["phase"], payload["kind"], result["status"]))
    assert driver.over()
    assert set(table.statuses) == {200}
    assert ("vote", "expire", "expired") in outcomes and any(o[2] == "stale" for o in outcomes)
    s = session_of(table.group)
    assert s.status == "ended" and s.idle.get(str(absent), 0) > 0 and set(s.idle) == {str(absent)}
    group = "\n".join(m["text"] for m in table.messages(table.group))
    assert "⏰ Erin ran out of time." in group and "Game over" in group
    # the absent player was reminded privately and told when the default applied
    private = "\n".join(m["text"] for m in table.messages(absent))
    assert "left for your decision" in private and "⏰ Your time ran out" in private


def test_the_timer_function_ignores_stale_and_malformed_events(table, timed):
    table.open_lobby([1, 2, 3])
    first = json.loads(schedules(timed.client)[-1]["Target"]["Input"])  # the join deadline
    assert table.command(2, "/extend") == 200
    context = SimpleNamespace(invoked_function_arn=TIMER_ARN)
    assert timed.timer.lambda_handler(first, context) == {"status": "stale"}  # extended since
    assert session_of(table.group).status == "lobby"
    assert timed.timer.lambda_handler({"chat": "x"}, context) == {"status": "ignored"}
    assert timed.timer.lambda_handler({**first, "serial": "not a number"}, context) == {"status": "ignored"}
    payloads = [json.loads(x["Target"]["Input"]) for x in schedules(timed.client)]
    current = max((p for p in payloads if p["kind"] == "expire"), key=lambda p: p["due"])
    assert current["due"] > first["due"] and current["serial"] == first["serial"] + 1
    assert timed.timer.lambda_handler(current, context) == {"status": "expired"}
    assert session_of(table.group).status == "cancelled"  # three players: the lobby closes
    assert timed.timer.lambda_handler(current, context) == {"status": "stale"}  # a retried delivery


def test_a_late_vote_racing_the_timer_function_counts_and_the_write_is_retried(table, timed):
    """A human vote commits between the timer's read and its version-checked write (DynamoDB in moto):
    the timer reloads, and times out only the players still missing."""
    import threading

    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    driver = Driver(table, table.group, players, Policy(rng=random.Random(2)))
    while not any(b["text"].endswith("Approve") for m in table.messages(table.group) for row in m["buttons"] for b in row):
        assert driver._picker()
    for uid in (1, 2):
        table.press_label(uid, table.group, "Approve")
    (expire,) = [json.loads(x["Target"]["Input"]) for x in schedules(timed.client)
                 if json.loads(x["Target"]["Input"])["phase"] == "vote" and json.loads(x["Target"]["Input"])["kind"] == "expire"]
    context = SimpleNamespace(invoked_function_arn=TIMER_ARN)
    service = timed.timer.service(TIMER_ARN)
    original, raced = service.repo.put, []

    def put(item, expect):
        if not raced:
            raced.append(True)
            late = threading.Thread(target=lambda: table.press_label(3, table.group, "Reject"))
            late.start()
            late.join()
        return original(item, expect)

    service.repo.put = put
    assert timed.timer.lambda_handler(expire, context) == {"status": "expired"}
    s = session_of(table.group)
    votes = s.game().proposals[-1].votes if s.state else s.last["view"]["proposals"][-1]["votes"]
    assert votes == "AARAA"  # Dave's late Reject counts; Erin and Frank timed out (missing votes approve)
    assert s.idle == {"4": 1, "5": 1} and set(table.statuses) == {200}
