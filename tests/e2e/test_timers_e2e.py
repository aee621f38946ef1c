"""Phase timers end to end, on EventBridge Scheduler alone (a stack without the wake-up queue; with it, far
alarms and the backstop take this path: tests/e2e/test_wakeups_e2e.py): the webhook Lambda keeps each
chat's alarm on EventBridge Scheduler (moto): one schedule per chat at the next moment something is due. The timer Lambda is invoked with exactly
the payload the scheduler received, at its time (both functions read a clock the test moves), as
EventBridge Scheduler would (then the schedule deletes itself: ActionAfterCompletion DELETE). One
player never acts; the game still finishes."""
from __future__ import annotations

import json
import random
import time
from types import SimpleNamespace

import pytest

from gamebot.storage.session import Session, chat_key
from tests.e2e.conftest import TABLE
from tests.e2e.driver import Driver, Policy
from tests.e2e.scheduler_helpers import GROUP_NAME, ROLE_ARN, TIMER_ARN, at_of, configure, schedules


@pytest.fixture
def timed(lambda_env, monkeypatch):
    """The webhook and the timer function configured for EventBridge Scheduler, in moto, on one clock."""
    timed = configure(monkeypatch, queue=False)
    timed.fake = lambda_env
    yield timed
    timed.timer.reset()


def fire_next(timed) -> tuple[dict, dict]:
    """At the earliest schedule's time, invoke the timer function with its payload; then it deletes
    itself, as AWS does."""
    schedule = schedules(timed.client)[0]
    payload = json.loads(schedule["Target"]["Input"])
    timed.clock.now = max(timed.clock.now, at_of(schedule))
    timed.client.delete_schedule(Name=schedule["Name"], GroupName=GROUP_NAME)
    return payload, invoke(timed, payload)


def invoke(timed, payload: dict) -> dict:
    return timed.timer.lambda_handler(payload, SimpleNamespace(invoked_function_arn=TIMER_ARN))


def session_of(group: int) -> Session:
    from gamebot.aws import dynamo

    item = dynamo.DynamoRepository(TABLE).get(chat_key(group))
    return Session.from_body(item.body)


def test_the_webhook_keeps_one_schedule_per_chat_that_targets_the_timer_function(table, timed):
    table.open_lobby([1, 2, 3])
    (schedule,) = schedules(timed.client)  # the chat's alarm: the join reminder
    s = session_of(table.group)
    payload = json.loads(schedule["Target"]["Input"])
    assert payload == {"chat": table.group, "game": s.game_id, "kind": "wake", "due": s.deadline.remind_at,
                       "name": schedule["Name"]}
    assert schedule["Name"] == s.alarm.name and at_of(schedule) == s.alarm.at == s.deadline.remind_at
    assert schedule["Target"]["Arn"] == TIMER_ARN and schedule["Target"]["RoleArn"] == ROLE_ARN
    assert schedule["ActionAfterCompletion"] == "DELETE" and schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert schedule["GroupName"] == GROUP_NAME and schedule["ScheduleExpressionTimezone"] == "UTC"
    assert fire_next(timed)[1] == {"status": "reminded"}
    (schedule,) = schedules(timed.client)  # then the expiry
    assert at_of(schedule) == session_of(table.group).deadline.due


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
        phase = session_of(table.group).deadline.phase
        _, result = fire_next(timed)
        outcomes.append((phase, result["status"]))
        assert len(schedules(timed.client)) <= 1  # never more than the chat's alarm
    assert driver.over()
    assert set(table.statuses) == {200}
    assert ("vote", "expired") in outcomes  # (whether the absent player was ever sent on a quest varies)
    s = session_of(table.group)
    assert s.status == "ended" and s.idle.get(str(absent), 0) > 0 and set(s.idle) == {str(absent)}
    group = "\n".join(m["text"] for m in table.messages(table.group))
    assert "⏰ Erin ran out of time." in group and "Game over" in group
    # the absent player was reminded privately and told when the default applied; each reminder was
    # deleted once its decision was over (none is left below newer messages)
    private = "\n".join(m["text"] for m in table.messages(absent))
    sent = [c["text"] for c in table.fake.calls_to("sendMessage") if str(c["chat_id"]) == str(absent)]
    assert any("left for your decision" in t for t in sent) and "⏰ Your time ran out" in private
    assert "left for your decision" not in private and any(chat == absent for chat, _ in table.fake.deleted)


def test_the_timer_function_ignores_stale_and_malformed_events(table, timed):
    table.open_lobby([1, 2, 3])
    s = session_of(table.group)
    first = {"chat": table.group, "game": s.game_id, "kind": "wake", "due": s.deadline.due, "name": s.alarm.name}
    # an event of an earlier version (a phase timer of its own) is understood too
    older = {"chat": table.group, "game": s.game_id, "phase": "join", "serial": 0, "step": "",
             "due": s.deadline.due, "kind": "expire"}
    assert table.command(2, "/extend") == 200
    timed.clock.now = first["due"]
    assert invoke(timed, first) == {"status": "stale"}  # extended since: nothing is due
    assert invoke(timed, older) == {"status": "stale"}
    assert session_of(table.group).status == "lobby"
    assert invoke(timed, {"chat": "x"}) == {"status": "ignored"}
    assert invoke(timed, {**first, "due": "not a number"}) == {"status": "ignored"}
    assert invoke(timed, {"kind": "wake"}) == {"status": "ignored"}
    outcomes = [fire_next(timed)[1]["status"] for _ in range(len(schedules(timed.client)) + 1)]
    assert outcomes[-1] == "expired" and session_of(table.group).status == "cancelled"  # three players: closed
    assert schedules(timed.client) == []  # nothing more to wake up for
    assert invoke(timed, first) == {"status": "stale"}  # a retried delivery


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
    s = session_of(table.group)
    assert s.deadline.phase == "vote"
    expire = {"chat": table.group, "game": s.game_id, "kind": "wake", "due": s.deadline.due, "name": "gb-vote"}
    timed.clock.now = s.deadline.due
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
    assert invoke(timed, expire) == {"status": "expired"}
    s = session_of(table.group)
    votes = s.game().proposals[-1].votes if s.state else s.last["view"]["proposals"][-1]["votes"]
    assert votes == "AARAA"  # Dave's late Reject counts; Erin and Frank timed out (missing votes approve)
    assert s.idle == {"4": 1, "5": 1} and set(table.statuses) == {200}


def test_prompts_and_the_board_show_the_time_limit(table, timed):
    """Time limits players can see, through the webhook: the Leader's team picker says how long and until
    when, the board until when (Telegram's date-time entity: each reader's own time zone), and the vote
    as well."""
    import app

    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    session = Session.from_body(app.service().repo.get(chat_key(table.group)).body)
    due = session.deadline.due
    until = f'<tg-time unix="{due}" format="t">{time.strftime("%H:%M", time.gmtime(due))} UTC</tg-time>'
    assert table.fake.messages(table.leader())[-1]["text"].endswith(f"⏳ Time limit: 3 min, until {until}")
    assert any(f"⏱ 3 min to answer, until {until}" in c["text"] for c in table.fake.calls_to("editMessageText")
               if str(c["chat_id"]) == str(table.group))  # the board (the lobby message turned into it)
    driver = Driver(table, table.group, players, Policy(rng=random.Random(2)))
    while not any(m.get("reply_markup") and "Approve" in json.dumps(m["reply_markup"])
                  for m in table.fake.messages(table.group)):
        assert driver._picker()
    vote = next(m for m in table.fake.messages(table.group) if "Approve" in json.dumps(m.get("reply_markup") or {}))
    assert "⏳ Time limit: 2 min" in vote["text"]


def test_the_nextgame_subscribers_are_told_a_batch_by_the_webhook_then_the_rest_by_the_timer_function(table, timed):
    from gamebot.aws import dynamo
    from gamebot.handlers import nextgame
    from gamebot.storage import subscribers

    table.fake.add_group(table.group, table.title)
    subs = list(range(1000, 1000 + nextgame.BATCH_UPDATE + 25))
    for uid in subs:
        table.start_private(uid)
        table.command(uid, "/nextgame")
    assert session_of_or_none(table.group) is None  # (subscribing never writes the chat's item)

    def told() -> dict[int, int]:
        return {uid: sum("A new game is open" in t for t in table.fake.texts(uid)) for uid in subs}

    table.start_private(1)
    table.command(1, "/newgame")  # the lobby: a first batch beside the webhook's own messages
    assert sorted(told().values()) == [0] * 25 + [1] * nextgame.BATCH_UPDATE
    for _ in range(5):  # the chat's alarm: the timer function tells the rest
        if 0 not in told().values():
            break
        fire_next(timed)
    assert set(told().values()) == {1}
    assert subscribers.waiting(dynamo.DynamoRepository(TABLE), table.group) == []


def session_of_or_none(group: int) -> Session | None:
    from gamebot.aws import dynamo

    item = dynamo.DynamoRepository(TABLE).get(chat_key(group))
    return Session.from_body(item.body) if item is not None else None
