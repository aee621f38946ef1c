"""The operator's view of an invocation: its log fields and its CloudWatch metrics, in the Embedded Metric
Format (EMF: one JSON line on stdout at the end of the invocation, which CloudWatch Logs turns into metrics;
no API call, nothing on the players' path but a few dictionary updates).

:class:`Invocation` is the observer (``gamebot.observe``) of one invocation of a Lambda function: the rooms
report facts to it (a Bot API call failed, a write lost its version check, a chat item of so many bytes
was written...), the function notes the update's id, type and outcome, and :func:`observed` writes, when
the invocation ends, one summary log line (``gamebot.core.logs`` formats every line as JSON with these
fields) and the EMF blob. Without ``STACK_NAME`` (the playground, the tests that do not set it) there is
no stack to name, so no blob is written: the log fields are kept all the same.

Every metric and its unit is in :data:`METRICS` (the names the template's alarms and dashboard use:
``template.yaml``; a test compares both). Namespace ``AvalonBot``; every metric has the dimension set
``[Stack]``, and ``Updates`` and ``HandlerDuration`` also ``[Stack, UpdateType]``. ``Updates`` carries the
update's ``Outcome`` as a property (a member of the blob that is not a dimension: Logs Insights reads it).
Every outcome an operator must hear of is a metric of its own, which an alarm of the template watches:
``UpdateErrors`` (an update that failed, whether Telegram was answered 200 or 500), ``TimerErrors`` (a
wake-up that failed, or is to be received again), ``SecretRejected`` (a request without the webhook's
secret), ``Refused`` (a body, with the secret, that is not an update the bot can read: Telegram's own) and
``ScheduleFailed`` (a wake-up the queue or EventBridge Scheduler would not take); ``Throttled`` counts a
player's flood (answered, no failure: the dashboard shows it). Each blob also carries the invocation's ``chat_id``,
``game_id`` and ``update_id`` (properties), so that a Logs Insights query finds the chat of a metric.
A count is written as one number per invocation (the sum); a size, an age or a lateness as the list of
its values (at most 100 a blob, as EMF allows: more go into further blobs).
"""
from __future__ import annotations

import json
import logging
import math
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gamebot import observe
from gamebot.storage.store import JsonValue

NAMESPACE = "AvalonBot"
STACK, UPDATE_TYPE, OUTCOME = "Stack", "UpdateType", "Outcome"

UPDATES = "Updates"  # each update handled (property Outcome: OUTCOMES)
HANDLER_DURATION = "HandlerDuration"  # each update and each timer invocation, ms
BOT_API_ERRORS = "BotApiErrors"  # a Bot API call failed (any error)
BOT_API_429 = "BotApi429"  # a Bot API call got 429
RETRY_AFTER_WAITED = "RetryAfterWaited"  # seconds of retry_after waited inside an update
OUTBOX_WAITING = "OutboxWaiting"  # messages left waiting in a chat's outbox after a delivery
OUTBOX_OLDEST_AGE = "OutboxOldestAge"  # age of the oldest message waiting in that outbox, s
VERSION_CONFLICTS = "VersionConflicts"  # a version-checked write lost and was retried
GAMES_STARTED, GAMES_FINISHED, GAMES_CANCELLED = "GamesStarted", "GamesFinished", "GamesCancelled"
CHAT_ITEM_BYTES = "ChatItemBytes"  # size of the chat item written (stored bytes)
TIMERS_LATE = "TimersLate"  # a timer fired more than LATE_AFTER seconds after its due time
TIMER_LATENESS = "TimerLateness"  # how late a timer fired, s
TIMERS_MISSED = "TimersMissed"  # an update found the chat's alarm overdue by more than MISSED_AFTER seconds
UPDATE_ERRORS = "UpdateErrors"  # an update whose outcome is "error" (answered 500, or 200 after a failure)
TIMER_ERRORS = "TimerErrors"  # a wake-up whose outcome is "error" or "retry" (to be received again)
SECRET_REJECTED = "SecretRejected"  # a request without the webhook's secret header, or with a wrong one (401)
REFUSED = "Refused"  # a body with the secret that is not an update the bot can read ("ignored": Telegram's)
THROTTLED = "Throttled"  # a player's flood, answered unread ("throttled": handled, no failure of ours)
SCHEDULE_FAILED = "ScheduleFailed"  # a wake-up the queue or EventBridge Scheduler would not take

METRICS: dict[str, str] = {
    UPDATES: "Count", HANDLER_DURATION: "Milliseconds", BOT_API_ERRORS: "Count", BOT_API_429: "Count",
    RETRY_AFTER_WAITED: "Seconds", OUTBOX_WAITING: "Count", OUTBOX_OLDEST_AGE: "Seconds",
    VERSION_CONFLICTS: "Count", GAMES_STARTED: "Count", GAMES_FINISHED: "Count", GAMES_CANCELLED: "Count",
    CHAT_ITEM_BYTES: "Bytes", TIMERS_LATE: "Count", TIMER_LATENESS: "Seconds", TIMERS_MISSED: "Count",
    UPDATE_ERRORS: "Count", TIMER_ERRORS: "Count", SECRET_REJECTED: "Count", REFUSED: "Count", THROTTLED: "Count",
    SCHEDULE_FAILED: "Count",
}
BY_UPDATE_TYPE = (UPDATES, HANDLER_DURATION)  # also dimensioned by UpdateType
SUMMED = {name for name, unit in METRICS.items() if unit == "Count" and name != OUTBOX_WAITING} | {RETRY_AFTER_WAITED}
OUTCOMES = ("ok", "rejected", "throttled", "ignored", "error")  # an update's ("rejected": the secret)
# the metric each outcome that is not "ok" counts in (an update's; a timer's: TIMER_FAILED)
OUTCOME_METRICS = {"error": UPDATE_ERRORS, "rejected": SECRET_REJECTED, "ignored": REFUSED, "throttled": THROTTLED}
TIMER_FAILED = ("error", "retry")  # the outcomes of a wake-up counted in TimerErrors
PROPERTIES = ("chat_id", "game_id", "update_id")  # log fields every blob carries (when known)
LATE_AFTER = 90.0  # seconds after its due time a timer counts as late
MISSED_AFTER = 300.0  # seconds an alarm may be overdue before an update counts its timer as missed
MAX_VALUES = 100  # values of one metric in one blob (EMF)

_compact = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(..., separators=...), made once

# what a status change of a chat's session means for its game (``gamebot.storage.session``'s statuses, spelt
# out: this module stays standard library only, for the setup function's JSON lines)
GAME_CHANGES = {("lobby", "playing"): GAMES_STARTED, ("playing", "ended"): GAMES_FINISHED,
                ("playing", "cancelled"): GAMES_CANCELLED}


class Invocation(observe.Observer):
    """One invocation's log fields (``fields``: update_id, update_type, chat_id, game_id, outcome,
    duration_ms) and metric values. The rooms report to it from the invocation's tasks and worker
    threads: every change takes the lock."""

    def __init__(self, update_type: str, request_id: str = "", stack: str = "") -> None:
        self.fields: dict[str, Any] = {"update_type": update_type}  # (noted values, read by their names)
        self.request_id = request_id
        self.stack = stack  # the Stack dimension ("": no blob)
        self.values: dict[str, list[float]] = {}
        self.started = time.perf_counter()
        self.missed = False
        self.lock = threading.Lock()

    def add(self, name: str, value: float) -> None:
        with self.lock:
            self.values.setdefault(name, []).append(float(value))

    def note(self, **fields: object) -> None:
        """Log fields of this invocation (None values are left out)."""
        with self.lock:
            self.fields.update((k, v) for k, v in fields.items() if v is not None)

    # --- what the rooms report (gamebot.observe) ----------------------------------------------------
    def about(self, chat_id: int | None = None, game_id: str | None = None) -> None:
        self.note(chat_id=chat_id, game_id=game_id or None)

    def bot_api_failed(self, status: int | None) -> None:
        self.add(BOT_API_ERRORS, 1)
        if status == 429:
            self.add(BOT_API_429, 1)

    def retry_after_waited(self, seconds: float) -> None:
        self.add(RETRY_AFTER_WAITED, seconds)

    def outbox_left(self, waiting: int, oldest_age: float | None) -> None:
        self.add(OUTBOX_WAITING, waiting)
        if waiting and oldest_age is not None:
            self.add(OUTBOX_OLDEST_AGE, max(0.0, oldest_age))

    def version_conflict(self) -> None:
        self.add(VERSION_CONFLICTS, 1)

    def status_changed(self, before: str | None, after: str) -> None:
        name = GAME_CHANGES.get((before or "", after))
        if name is not None:
            self.add(name, 1)

    def chat_item_written(self, size: int) -> None:
        self.add(CHAT_ITEM_BYTES, size)

    def schedule_failed(self) -> None:
        self.add(SCHEDULE_FAILED, 1)

    def alarm_overdue(self, seconds: float) -> None:
        if seconds > MISSED_AFTER and not self.missed:  # (once per invocation, whatever its retries)
            self.missed = True
            self.add(TIMERS_MISSED, 1)

    # --- what the functions note ----------------------------------------------------------------------
    def timer_fired(self, lateness: float) -> None:
        """A timer ran ``lateness`` seconds after its due time (early: 0)."""
        lateness = max(0.0, lateness)
        self.add(TIMER_LATENESS, lateness)
        if lateness > LATE_AFTER:
            self.add(TIMERS_LATE, 1)

    # --- the blob ----------------------------------------------------------------------------------------
    def blobs(self, timestamp_ms: int, update: bool) -> list[dict[str, object]]:
        """The EMF blobs of this invocation (``update``: an update, which counts in ``Updates``; else a
        timer). Needs ``stack``; ``fields['duration_ms']`` is the handler's duration."""
        with self.lock:
            values = {name: list(v) for name, v in self.values.items()}
            fields = dict(self.fields)
        outcome = str(fields.get("outcome", "ok"))
        if update:
            values[UPDATES] = [1.0]
            if outcome in OUTCOME_METRICS:
                values[OUTCOME_METRICS[outcome]] = [1.0]
        elif outcome in TIMER_FAILED:
            values[TIMER_ERRORS] = [1.0]
        if "duration_ms" in fields:
            values[HANDLER_DURATION] = [float(fields["duration_ms"])]
        columns: dict[str, list[list[float] | float]] = {}
        for name, found in values.items():
            if name in SUMMED:
                columns[name] = [sum(found)]
            else:
                columns[name] = [found[i:i + MAX_VALUES] for i in range(0, len(found), MAX_VALUES)]
        blobs = []
        for i in range(max((len(c) for c in columns.values()), default=0)):
            present = [name for name in METRICS if name in columns and i < len(columns[name])]
            typed = [n for n in present if n in BY_UPDATE_TYPE]
            rest = [n for n in present if n not in BY_UPDATE_TYPE]
            directives = []
            if typed:
                directives.append({"Namespace": NAMESPACE, "Dimensions": [[STACK], [STACK, UPDATE_TYPE]],
                                   "Metrics": [{"Name": n, "Unit": METRICS[n]} for n in typed]})
            if rest:
                directives.append({"Namespace": NAMESPACE, "Dimensions": [[STACK]],
                                   "Metrics": [{"Name": n, "Unit": METRICS[n]} for n in rest]})
            blob: dict[str, object] = {"_aws": {"Timestamp": timestamp_ms, "CloudWatchMetrics": directives},
                                    STACK: self.stack, UPDATE_TYPE: str(fields.get("update_type", "other"))}
            if i == 0:
                blob[OUTCOME] = outcome
            for name in PROPERTIES:  # (Logs Insights finds the chat and game of a metric by them)
                if fields.get(name) is not None:
                    blob[name] = fields[name]
            if self.request_id:
                blob["requestId"] = self.request_id
            for name in present:
                column = columns[name][i]
                blob[name] = column[0] if isinstance(column, list) and len(column) == 1 else column
            blobs.append(blob)
        return blobs


# the UpdateType of an update: what it is, or "unknown" when it was not read (refused, not an update); a
# timer invocation's is "timer"
UPDATE_TYPES = ("command", "button", "message", "membership", "other", "unknown", "timer")


def described(data: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The log fields of an update (a webhook body ``inbound.refusal`` accepted): its id, its type (one of
    ``UPDATE_TYPES``: a few, as every value of a dimension is a metric of its own) and the chat it came
    from (the unit of work names the chat whose session it reads instead: ``Invocation.about``)."""
    chat = None
    if isinstance(q := data.get("callback_query"), dict):
        kind = "button"
        chat = m.get("chat") if isinstance(m := q.get("message"), dict) else None
    elif isinstance(m := data.get("message"), dict):
        kind = "command" if str(m.get("text") or "").startswith("/") else "message"
        chat = m.get("chat")
    elif isinstance(c := data.get("my_chat_member"), dict):
        kind = "membership"
        chat = c.get("chat")
    else:
        kind = "other"
    chat_id = chat.get("id") if isinstance(chat, dict) else None
    return {"update_id": data.get("update_id"), "update_type": kind,
            "chat_id": chat_id if isinstance(chat_id, int) else None}


def current() -> Invocation | None:
    """The invocation under way in this context, if a Lambda function runs one (None: the playground, the
    tests that call the service directly)."""
    found = observe.current()
    return found if isinstance(found, Invocation) else None


def outcome(value: str) -> None:
    """The outcome of the update under way (``OUTCOMES``), if an invocation is observed."""
    found = current()
    if found is not None:
        found.note(outcome=value)


def write(line: str) -> None:
    """Where a blob goes: one line on stdout (Lambda sends it to CloudWatch Logs, which extracts the metrics)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@contextmanager
def observed(update_type: str, context: object, log: logging.Logger, update: bool = True) -> Iterator[Invocation]:
    """Run one invocation under its own :class:`Invocation` (``context``: Lambda's, for the request id). At
    the end: ``duration_ms`` and the outcome (``error`` if the block raised, else what the function
    noted, ``ok`` by default), one summary line on ``log`` and, with a stack, the EMF blobs."""
    inv = Invocation(update_type, request_id=str(getattr(context, "aws_request_id", "") or ""))
    token = observe.start(inv)
    try:
        yield inv
    except BaseException:
        inv.note(outcome="error")
        raise
    finally:
        duration = (time.perf_counter() - inv.started) * 1000
        inv.note(duration_ms=round(duration, 1))
        if "outcome" not in inv.fields:
            inv.note(outcome="ok")
        try:
            log.info("%s handled", "update" if update else "timer")
            if inv.stack:
                stamp = math.floor(time.time() * 1000)
                for blob in inv.blobs(stamp, update):
                    write(_compact(blob))
        except Exception:  # (the metrics never fail an invocation)
            log.warning("could not write the invocation's metrics", exc_info=True)
        finally:
            observe.stop(token)
