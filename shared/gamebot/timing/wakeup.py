"""How a chat is woken: precisely by a queue, or within a minute by EventBridge Scheduler; and which of them
a container uses (``scheduler_from_env``).

EventBridge Scheduler fires a one-time schedule within a minute of its time: too late for what is due in
seconds (an AI seat's move, an edit held back by the group's budget, the next batch of /nextgame
notices). An SQS message can be delayed by whole seconds, up to 15 minutes, and its queue invokes the
timer function (``functions/timer/app.py``) as soon as it is visible: :class:`QueueScheduler` sends every
alarm due within ``QUEUE_WINDOW`` seconds as a message of the wake-up queue, delayed to its second (the
alarm's policy, ``gamebot.timing.alarm``, computes the delay when it decides, so the message can only
arrive at or after its moment). No invocation sleeps for it. A queued wake-up cannot be taken back: one
for an alarm that moved since finds nothing due and writes nothing (``Timers.fire``: one read).

An alarm further off (a time limit's reminder or expiry, minutes ahead: most are answered before, and
their alarm moves) is an EventBridge Scheduler schedule (``later``), which is deleted when the alarm moves,
set ``EARLY`` seconds ahead of its moment: it fires before it (within a minute of its own time), finds
nothing due yet, and the write that records that sets the alarm again, now within the queue's reach, to
the second. The window is that short because a queued wake-up that became stale still costs an
invocation (``scripts/bench_staleness.py``: with 15 minutes, most of a people-only game's wake-ups were
reminders of decisions already taken). EventBridge Scheduler is also the backstop: a wake-up the queue
would not take (SQS unreachable) is scheduled there, for its own moment, and fires within a minute.
Without EventBridge Scheduler, the queue takes every alarm, a far one by hops of its longest delay.
"""
from __future__ import annotations

import json
import logging
import math
import threading
from dataclasses import replace
from typing import Any, Protocol

from gamebot import observe
from gamebot.aws import runtime_sdk
from gamebot.environment import Environment
from gamebot.timing.scheduler import EventBridgeScheduler, Scheduler, Timer

log = logging.getLogger("gamebot.timing.wakeup")

QUEUE_MAX = 900  # seconds: SQS's longest delay of a message
QUEUE_WINDOW = 120  # seconds: alarms this near go by the queue (with schedules behind it for the others)
EARLY = 90  # seconds: a schedule for a far alarm is set this much ahead (it fires within a minute of its time)


class Queue(Protocol):
    def send(self, body: str, delay: int) -> None:
        """Put ``body`` on the queue, to be received ``delay`` whole seconds from now (0 to 900)."""


class SqsQueue:
    """The stack's wake-up queue (``WAKE_QUEUE_URL``), through the Lambda runtime's botocore (our own AWS
    client speaks DynamoDB and Scheduler only: ``gamebot.aws.runtime_sdk``). The client is made on the
    first send: a container that wakes no chat never imports botocore."""

    def __init__(self, url: str, env: Environment | None = None, client: Any = None) -> None:
        self.url = url
        self._env = env
        self._client = client
        self._lock = threading.Lock()  # (the sends run in worker threads: one client is made)

    @property
    def client(self) -> Any:
        with self._lock:
            return self._client or self._make()

    def _make(self) -> Any:
        self._client = runtime_sdk.client("sqs", self._env or Environment.read())
        return self._client

    def send(self, body: str, delay: int) -> None:
        self.client.send_message(QueueUrl=self.url, MessageBody=body, DelaySeconds=delay)


class QueueScheduler(Scheduler):
    """Alarms due within ``window`` seconds by ``queue`` (to the second), later ones by ``later`` (set ahead
    of their moment); ``later`` is also where a wake-up goes that the queue would not take. Without
    ``later``, the queue takes every alarm, a far one by hops: a wake-up at the queue's longest delay, which
    finds nothing due and sets the alarm again."""

    def __init__(self, queue: Queue, later: Scheduler | None = None) -> None:
        self.queue = queue
        self.later = later
        self.window = float(QUEUE_WINDOW if later is not None else QUEUE_MAX)
        self.queued = 0  # wake-ups sent by the queue (this container)
        self.fallbacks = 0  # wake-ups the queue did not take, scheduled with ``later``

    def schedule(self, timer: Timer) -> None:
        body = json.dumps(timer.payload, separators=(",", ":"))
        if timer.delay is None and self.later is not None:
            self.later.schedule(replace(timer, at=timer.at - EARLY))  # (fires before its moment: see above)
            return
        try:
            self.queue.send(body, min(QUEUE_MAX, max(0, timer.delay if timer.delay is not None else QUEUE_MAX)))
            self.queued += 1
        except Exception:
            if self.later is None:
                raise
            observe.current().schedule_failed()
            log.exception("ScheduleFailed: the wake-up queue did not take alarm %s: scheduled within a minute "
                          "instead", timer.name)
            self.fallbacks += 1
            self.later.schedule(replace(timer, at=math.ceil(timer.at), delay=None))

    def cancel(self, name: str) -> None:
        if self.later is not None:  # (a queued wake-up cannot be taken back: the alarm never asks)
            self.later.cancel(name)


_INSTALLED: list[Scheduler] = []


def install(scheduler: Scheduler | None) -> None:
    """Use ``scheduler`` wherever ``scheduler_from_env`` is asked (the local playground, tests that model
    AWS's timing); None removes it."""
    _INSTALLED.clear()
    if scheduler is not None:
        _INSTALLED.append(scheduler)


def scheduler_from_env(target_arn: str | None = None, env: Environment | None = None) -> Scheduler | None:
    """The installed scheduler; else, as the stack configures them, the wake-up queue (``WAKE_QUEUE_URL``)
    with EventBridge Scheduler for far alarms and as the backstop (``SCHEDULE_GROUP``, ``SCHEDULER_ROLE_ARN``,
    ``TIMER_FUNCTION_ARN`` or ``target_arn``; its dead-letter queue ``TIMER_DLQ_ARN`` when set), either
    alone, or None: no timers."""
    if _INSTALLED:
        return _INSTALLED[0]
    env = env or Environment.read()
    target = env.timer_function_arn or target_arn
    role, group = env.scheduler_role_arn, env.schedule_group
    later = EventBridgeScheduler(target, role, group, dead_letter_arn=env.timer_dlq_arn) \
        if target and role and group else None
    if env.wake_queue_url:
        return QueueScheduler(SqsQueue(env.wake_queue_url, env), later)
    return later


def installed_key() -> str:
    """Which scheduler is installed in-process (part of a container's cache key for its service)."""
    return str(id(_INSTALLED[0])) if _INSTALLED else ""
