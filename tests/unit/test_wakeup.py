"""How a chat is woken (issue 35): an alarm within 2 minutes is a message of the wake-up queue delayed to
its second (never early), a later one an EventBridge Scheduler schedule set ahead of it, which brings it
back to the queue; a send the queue refuses falls back to a schedule; a queued wake-up is never cancelled.
The policy is ``gamebot.timing.alarm.rearm``; the routing ``gamebot.timing.wakeup.QueueScheduler``."""
from __future__ import annotations

import json
import math
import random

import pytest

from gamebot.storage.seats import AiSeatTurn
from gamebot.storage.session import Session
from gamebot.timing import wakeup
from gamebot.timing.alarm import rearm
from gamebot.timing.policy import new_deadline
from gamebot.timing.scheduler import EventBridgeScheduler, FakeScheduler, Timer
from gamebot.timing.wakeup import EARLY, QUEUE_MAX, QUEUE_WINDOW, QueueScheduler, SqsQueue

NOW = 1_800_000_000.25
CHAT = -1001


class Sent:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[dict, int]] = []
        self.fail = fail

    def send(self, body: str, delay: int) -> None:
        if self.fail:
            raise ConnectionError("SQS unreachable")
        self.sent.append((json.loads(body), delay))


def session(**fields) -> Session:
    return Session(chat_id=CHAT, **fields)


def test_an_alarm_due_within_the_window_is_queued_to_its_second_and_never_early():
    rng = random.Random(1)
    for _ in range(2000):
        now = NOW + rng.random() * 100
        due = now + rng.choice([0.3, 1, 2, 2.5, 3, 59.9, 100, QUEUE_WINDOW - 1]) + rng.random() / 100
        s = session(ai_seat_turn=AiSeatTurn(serial=1, step="team", due=round(due, 2)))
        (call,) = rearm(s, now, set(), {"game": "g"}, window=QUEUE_WINDOW)
        timer = call.timer
        assert timer is not None and timer.delay is not None and s.alarm is not None and s.alarm.queued
        assert 0 <= timer.delay <= QUEUE_WINDOW
        assert now + timer.delay >= s.ai_seat_turn.due - 0.05  # never before its moment (to a tenth)
        assert now + timer.delay < s.ai_seat_turn.due + 1  # and within the second after it
        assert timer.payload["name"] == s.alarm.name and timer.payload["due"] == s.alarm.at


def test_an_ai_seat_s_move_due_2_or_3_seconds_ahead_is_delayed_exactly_that():
    s = session(ai_seat_turn=AiSeatTurn(serial=1, step="team", due=round(NOW + 2, 2)))
    (call,) = rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert call.timer is not None and call.timer.delay == 2


def test_a_far_alarm_is_a_schedule_at_a_whole_second_and_a_moved_queued_alarm_is_not_cancelled():
    far = new_deadline("vote", 1, "v", 3600, int(NOW) + 3600)
    s = session(deadline=far)
    (call,) = rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert call.timer is not None and call.timer.delay is None and not s.alarm.queued
    assert call.timer.at == math.ceil(call.timer.at) == min(far.due, far.remind_at or far.due)
    s.ai_seat_turn = AiSeatTurn(serial=1, step="v", due=NOW + 3)  # sooner: the queue; the schedule is deleted
    calls = rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert [c.cancel for c in calls if c.cancel] == [call.timer.name] and s.alarm.queued
    s.ai_seat_turn = None  # back to the far moment: the queued wake-up cannot be taken back (it will find nothing)
    calls = rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert [c.cancel for c in calls if c.cancel] == [] and not s.alarm.queued


def test_without_a_queue_every_alarm_is_a_schedule_as_before():
    s = session(ai_seat_turn=AiSeatTurn(serial=1, step="team", due=NOW + 2.5))
    (call,) = rearm(s, NOW, set(), {})
    assert call.timer.delay is None and call.timer.at == math.ceil(NOW + 2.5)


def test_the_queue_scheduler_sends_near_alarms_and_schedules_far_ones_ahead_of_their_moment():
    queue, later = Sent(), FakeScheduler()
    scheduler = QueueScheduler(queue, later)
    near = Timer("gb-near", NOW + 3, {"chat": CHAT, "kind": "wake"}, delay=3)
    far = Timer("gb-far", NOW + 3600, {"chat": CHAT, "kind": "wake"})
    scheduler.schedule(near)
    scheduler.schedule(far)
    assert queue.sent == [({"chat": CHAT, "kind": "wake"}, 3)]
    (scheduled,) = later.pending()
    assert scheduled.name == "gb-far" and scheduled.at == far.at - EARLY  # fires before its moment (a minute late at most)
    scheduler.cancel("gb-far")
    assert later.pending() == []


def test_a_wake_up_the_queue_refuses_is_scheduled_for_its_own_moment():
    queue, later = Sent(fail=True), FakeScheduler()
    scheduler = QueueScheduler(queue, later)
    scheduler.schedule(Timer("gb-near", NOW + 2.5, {"chat": CHAT}, delay=3))
    (scheduled,) = later.pending()
    assert scheduled.at == math.ceil(NOW + 2.5) and scheduled.delay is None and scheduler.fallbacks == 1
    with pytest.raises(ConnectionError):  # with no schedules to fall back on, the failure is the caller's to log
        QueueScheduler(Sent(fail=True)).schedule(Timer("gb-x", NOW + 2, {}, delay=2))


def test_without_eventbridge_a_far_alarm_hops_by_the_queue_s_longest_delay():
    queue = Sent()
    QueueScheduler(queue).schedule(Timer("gb-far", NOW + 3600, {"chat": CHAT}))
    assert queue.sent == [({"chat": CHAT}, QUEUE_MAX)]


def test_the_stack_s_settings_give_the_queue_with_eventbridge_behind_it(monkeypatch):
    from gamebot.environment import Environment

    env = Environment.read({"WAKE_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/wake",
                            "TIMER_FUNCTION_ARN": "arn:t", "SCHEDULER_ROLE_ARN": "arn:r", "SCHEDULE_GROUP": "g"})
    found = wakeup.scheduler_from_env(env=env)
    assert isinstance(found, QueueScheduler) and isinstance(found.later, EventBridgeScheduler)
    assert isinstance(found.queue, SqsQueue) and found.queue.url.endswith("/wake") and found.window == QUEUE_WINDOW
    alone = wakeup.scheduler_from_env(env=Environment.read({"WAKE_QUEUE_URL": "https://q"}))
    assert isinstance(alone, QueueScheduler) and alone.later is None and alone.window == QUEUE_MAX
    assert wakeup.scheduler_from_env(env=Environment.read({})) is None


def test_a_far_alarm_s_early_schedule_finds_nothing_due_and_sets_the_alarm_again_by_the_queue():
    """The chain a far alarm follows: a schedule fires ahead of its moment (EventBridge: within a minute
    after ``at - EARLY``), nothing is due yet, and the write that records it queues the wake-up."""
    far = new_deadline("vote", 1, "v", 300, int(NOW) + 300)  # a 5-minute limit: its reminder 4 min ahead
    s = session(deadline=far)
    (call,) = rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert call.timer.delay is None and call.timer.at == far.remind_at
    fired_at = call.timer.at - EARLY + 59  # the latest EventBridge Scheduler fires it
    calls = rearm(s, fired_at, set(), {}, consumed=True, window=QUEUE_WINDOW)
    (again,) = calls
    assert again.timer.delay is not None and s.alarm.queued
    assert fired_at + again.timer.delay == pytest.approx(call.timer.at, abs=1)


def test_a_chat_is_quiet_when_nothing_is_due_and_its_alarm_is_set_for_the_next_moment():
    from gamebot.storage.effects import Effect
    from gamebot.timing.alarm import quiet

    s = session(ai_seat_turn=AiSeatTurn(serial=1, step="team", due=NOW + 3))
    assert not quiet(s, NOW)  # no alarm set for it yet: a wake-up sets it
    rearm(s, NOW, set(), {}, window=QUEUE_WINDOW)
    assert quiet(s, NOW) and not quiet(s, NOW + 3)  # then due: not quiet
    s.outbox.add(Effect(seq=0, op="edit", chat=CHAT, message_id=4, text="board", tag="board"))
    assert not quiet(s, NOW)  # something to deliver now
    s.outbox.effects = []
    s.alarm = s.alarm.model_copy(update={"at": NOW - 5})
    assert not quiet(s, NOW)  # an alarm overdue: the wake-up sets it again


def test_flood_control_is_waited_out_only_without_the_wake_up_queue():
    from gamebot.core.runtime import FLOOD_MARGIN, FLOOD_WAIT, flood_wait

    assert flood_wait(QueueScheduler(Sent(), FakeScheduler()), 20.0) == 0.0  # the queue wakes the chat instead
    assert flood_wait(FakeScheduler(), None) == FLOOD_WAIT
    assert flood_wait(FakeScheduler(), 10.0) == 10.0 - FLOOD_MARGIN  # never past the Lambda's timeout
    assert flood_wait(None, 1.0) == 0.0
