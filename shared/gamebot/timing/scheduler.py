"""One-time timers: ``Scheduler.schedule(Timer(name, at, payload))`` calls the timer handler with
``payload`` at (or shortly after) the epoch second ``at``.

Three implementations of one interface:

* :class:`EventBridgeScheduler` -- production: an EventBridge Scheduler one-time schedule
  (``at(...)`` in UTC, ``ActionAfterCompletion=DELETE``) in the stack's schedule group, whose target is
  the timer Lambda (``functions/timer/app.py``) invoked with the payload as its event, through the
  role the stack gives EventBridge Scheduler. The requests go through our own client
  (``gamebot.aws.scheduler_api.Scheduler``: no boto3), created only when the first timer is scheduled.
  EventBridge Scheduler fires with 60-second precision (docs: "between 1:00:00 and 1:00:59").
  A timer that cannot be delivered is kept: each schedule's target has a retry policy and, when the
  stack gives one (``TIMER_DLQ_ARN``), a dead-letter queue, where an event that still fails after the
  retries lands with the payload as its body (docs/OPERATIONS.md says how to redrive it).
* :class:`FakeScheduler` -- unit tests: records the timers; the test fires them in time order.
* :class:`LocalScheduler` -- the local playground: a background thread with a heap that calls a
  handler in-process when each timer is due.

Each chat has one alarm (``gamebot.timing.alarm``; what it does when it fires:
``gamebot.handlers.timekeeper``): when the moment it must wake changes, the new timer is scheduled and the
old schedule cancelled (``cancel``: best effort, after the commit). The wake-up queue
(``gamebot.timing.wakeup``) wakes the chats to the second by the same interface; a queued wake-up cannot
be cancelled. Scheduling is at-least-once: a timer that still fires after it was replaced finds nothing
due and does nothing.
"""
from __future__ import annotations

import datetime as dtm
import heapq
import itertools
import json
import logging
import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gamebot.storage.store import JsonValue

if TYPE_CHECKING:
    from gamebot.aws.scheduler_api import Scheduler as SchedulerAPI

log = logging.getLogger("gamebot.timing.scheduler")



@dataclass(frozen=True)
class Timer:
    name: str  # unique per timer: [0-9A-Za-z-_.], at most 64 characters
    at: float  # epoch seconds
    payload: dict[str, JsonValue] = field(default_factory=dict)
    delay: int | None = None  # set: due this many whole seconds after it was decided, woken by the queue
    # (``gamebot.timing.wakeup``); None: a schedule at ``at``


class Scheduler(ABC):
    window: float = 0.0  # how far ahead this scheduler wakes a chat to the second, by a queue (0: none)

    @abstractmethod
    def schedule(self, timer: Timer) -> None:
        """Arrange for the timer handler to be called with ``timer.payload`` at ``timer.at``.
        Scheduling the same name twice is harmless (the second is ignored)."""

    @abstractmethod
    def cancel(self, name: str) -> None:
        """Forget the timer ``name`` if it is still pending (a name never scheduled, or already fired, is
        no error)."""


def at_expression(at: float) -> str:
    """EventBridge Scheduler's one-time expression, in UTC: ``at(2025-01-31T18:05:00)``."""
    when = dtm.datetime.fromtimestamp(math.ceil(at), dtm.UTC)
    return f"at({when.strftime('%Y-%m-%dT%H:%M:%S')})"


class EventBridgeScheduler(Scheduler):
    """One-time EventBridge Scheduler schedules that invoke the timer function."""

    MAX_RETRIES = 3
    MAX_EVENT_AGE = 900  # seconds: a timer delivered later than this is useless

    def __init__(self, target_arn: str, role_arn: str, group: str, client: SchedulerAPI | None = None,
                 dead_letter_arn: str = "") -> None:
        self.target_arn = target_arn
        self.role_arn = role_arn
        self.group = group
        self.dead_letter_arn = dead_letter_arn  # the SQS queue of the timers that could not be delivered
        self._client = client
        self.created = 0
        self.deleted = 0

    @property
    def client(self) -> SchedulerAPI:
        if self._client is None:  # lazily: only when a group actually plays with timers
            from gamebot.aws.scheduler_api import (
                Scheduler as SchedulerAPI,  # (endpoint and region: ``gamebot.environment``)
            )

            self._client = SchedulerAPI(max_attempts=3)
        return self._client

    def target(self, timer: Timer) -> dict[str, object]:
        """The schedule's target: the timer function invoked with the payload, retried, then dead-lettered."""
        target: dict[str, object] = {
            "Arn": self.target_arn,
            "RoleArn": self.role_arn,
            "Input": json.dumps(timer.payload, separators=(",", ":")),
            "RetryPolicy": {
                "MaximumRetryAttempts": self.MAX_RETRIES,
                "MaximumEventAgeInSeconds": self.MAX_EVENT_AGE,
            },
        }
        if self.dead_letter_arn:
            target["DeadLetterConfig"] = {"Arn": self.dead_letter_arn}
        return target

    def schedule(self, timer: Timer) -> None:
        try:
            self.client.create_schedule(
                Name=timer.name,
                GroupName=self.group,
                ScheduleExpression=at_expression(timer.at),
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                ActionAfterCompletion="DELETE",
                State="ENABLED",
                Target=self.target(timer),
            )
            self.created += 1
        except Exception as exc:
            code = str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))
            if code == "ConflictException":  # already scheduled (the same decision planned twice)
                return
            raise

    def cancel(self, name: str) -> None:
        try:
            self.client.delete_schedule(Name=name, GroupName=self.group)
            self.deleted += 1
        except Exception as exc:
            code = str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))
            if code == "ResourceNotFoundException":  # it fired (and deleted itself) or was never created
                return
            raise


@dataclass
class FakeScheduler(Scheduler):
    """Records timers for tests: ``pop_next()`` gives the earliest one (ties in scheduling order)."""

    timers: list[Timer] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    calls: list[tuple[str, str]] = field(default_factory=list)  # ("schedule" | "cancel", name), in order

    def schedule(self, timer: Timer) -> None:
        self.calls.append(("schedule", timer.name))
        if timer.name in self.names:
            return
        self.names.add(timer.name)
        self.timers.append(timer)

    def cancel(self, name: str) -> None:
        self.calls.append(("cancel", name))
        self.timers = [t for t in self.timers if t.name != name]
        self.names.discard(name)

    def pending(self) -> list[Timer]:
        return sorted(self.timers, key=lambda t: t.at)  # stable: equal times keep their order

    def pop_next(self) -> Timer | None:
        if not self.timers:
            return None
        timer = self.pending()[0]
        self.timers.remove(timer)
        return timer


class LocalScheduler(Scheduler):
    """Timers for a local run: a daemon thread keeps a heap and calls ``handler(payload)`` when due.

    ``handler`` runs on the scheduler's thread, one timer at a time; an exception is logged and the
    thread carries on. ``clock`` and :meth:`wake` let a test move time without sleeping.
    """

    def __init__(self, handler: Callable[[dict[str, JsonValue]], object], clock: Callable[[], float] = time.time) -> None:
        self.handler = handler
        self.clock = clock
        self._heap: list[tuple[float, int, Timer]] = []
        self._names: set[str] = set()
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.fired: list[Timer] = []

    def start(self) -> LocalScheduler:
        with self._cond:
            if self._thread is None:
                self._stopped = False
                self._thread = threading.Thread(target=self._run, name="local-scheduler", daemon=True)
                self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def __enter__(self) -> LocalScheduler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def schedule(self, timer: Timer) -> None:
        with self._cond:
            if timer.name in self._names:
                return
            self._names.add(timer.name)
            heapq.heappush(self._heap, (timer.at, next(self._order), timer))
            self._cond.notify_all()

    def cancel(self, name: str) -> None:
        with self._cond:
            kept = [entry for entry in self._heap if entry[2].name != name]
            if len(kept) != len(self._heap):
                self._heap = kept
                heapq.heapify(self._heap)
            self._names.discard(name)
            self._cond.notify_all()

    def wake(self) -> None:
        """Look at the clock again now (after a test moved its clock forward)."""
        with self._cond:
            self._cond.notify_all()

    def pending(self) -> list[Timer]:
        with self._cond:
            return [t for _, _, t in sorted(self._heap)]

    def _next_due(self) -> Timer | None:
        """Wait until a timer is due (or the scheduler stops); pop and return it."""
        with self._cond:
            while not self._stopped:
                if self._heap and self._heap[0][0] <= self.clock():
                    return heapq.heappop(self._heap)[2]
                wait = None if not self._heap else max(0.05, self._heap[0][0] - self.clock())
                self._cond.wait(wait)
            return None

    def _run(self) -> None:
        while True:
            timer = self._next_due()
            if timer is None:
                return
            try:
                self.handler(dict(timer.payload))
            except Exception:
                log.exception("local timer %s failed", timer.name)
            self.fired.append(timer)
