"""The timer Lambda: a chat's wake-up, from the wake-up queue (SQS) or from EventBridge Scheduler.

A wake-up's payload is what ``gamebot.timing.alarm`` set: ``{"chat", "game", "kind": "wake", "due",
"name"}`` (timers scheduled by earlier versions carry ``phase``, ``serial``, ``step`` and a kind
``remind``, ``expire`` or ``flush``: they are handled the same way). It arrives in one of two events:

* **from the wake-up queue** (``WAKE_QUEUE_URL``: an alarm due within 2 minutes, delayed to its second;
  ``gamebot.timing.wakeup``), Lambda's SQS event, the payload as each record's body::

      {"Records": [{"messageId": "1f0c…", "eventSource": "aws:sqs",
                    "body": "{\"chat\":-100123,\"game\":\"g1\",\"kind\":\"wake\",\"due\":1765100000.5,\"name\":\"gb1-2-3\"}"}]}

  answered ``{"batchItemFailures": [{"itemIdentifier": "<messageId>"}]}`` with the records to receive
  again (a storage failure; the queue's redrive policy ends in the timers' dead-letter queue);
* **from EventBridge Scheduler** (a far alarm, set 90 s ahead, or the backstop), the payload itself as the event::

      {"chat": -100123, "game": "g1", "kind": "wake", "due": 1765100000, "name": "gb1-2-3"}

  answered ``{"status": ...}``; a storage failure is raised, so that EventBridge Scheduler retries.

Any test harness drives the function with those events. For each wake-up the handler reads the chat's
session and does whatever is due then (``Service.wake``: the AI seats' moves, the reminder or the expiry of
the running time limit, what waits in the outbox) in one version-checked write, which sets the chat's
next alarm. A wake-up for an alarm that moved since, a finished game or a chat the bot left finds nothing
due: nothing is sent or written. Nothing here sleeps: the AI seats' next move is the next wake-up.

Like the webhook, the service is built once per container with ONE event loop (``gamebot.core.runtime``).
Its settings come from the environment, read in one place (``gamebot.environment.Environment``); the
schedules it creates target this function itself (its ARN comes from the invocation context). Anything
but a storage error or a bad setting is logged and dropped (a retry would fail the same way). The AWS requests get a
deadline a moment before the function's timeout (``gamebot.core.runtime.invocation``): one that cannot get
through in time is raised as a storage error too, not cut off by the timeout. Settings it cannot build
its service with (a ``BadSetting``: the bot's secrets unreadable from SSM, ``gamebot.core.secrets``) are
raised the same way, as the webhook answers them 500: the wake-up comes again, and ends in the dead-letter
queue, for a redrive, if they stay unreadable. (A value that does not parse stops the module's import:
Lambda counts that as an error of the function and retries the same way.)

Each wake-up ends with one summary log line (the chat, the game, the outcome, the duration) and one EMF
blob (``gamebot.core.metrics.observed``: its duration, how late the timer fired).
"""
from __future__ import annotations

import json
from typing import Any

from gamebot.core.metrics import Invocation, observed
from gamebot.core.runtime import Container, environment, flood_wait, invocation, lambda_logging
from gamebot.environment import Environment, stack_name
from gamebot.storage.session import chat_key

log = lambda_logging("gamebot.timer")

FIELDS = {"chat": int, "kind": str}  # what every timer carries
OPTIONAL = {"game": str, "due": float, "name": str, "phase": str, "serial": int, "step": str}

_CONTAINER = Container()


def service(target_arn: str = "") -> Any:
    """The container's service; the timers it schedules invoke ``target_arn`` (this function)."""
    from gamebot.core.runtime import build_service
    from gamebot.timing.wakeup import scheduler_from_env

    async def build(env: Environment) -> Any:
        return await build_service(env, scheduler=scheduler_from_env(target_arn or None, env=env), pool=8)

    return _CONTAINER.get(environment(target_arn), build)


def reset() -> None:
    """Forget the cached service (tests that change the environment or the mocked AWS)."""
    _CONTAINER.reset()


def payload_of(event: Any) -> dict[str, Any] | None:
    """The timer payload, checked field by field (anything else is ignored, never retried)."""
    if not isinstance(event, dict) or set(FIELDS) - set(event):
        return None
    try:
        payload = {key: kind(event[key]) for key, kind in FIELDS.items()}
        payload.update({key: kind(event[key]) for key, kind in OPTIONAL.items() if event.get(key) is not None})
    except (TypeError, ValueError):
        return None
    if isinstance(event.get("chat"), bool) or len(str(payload["chat"])) > 20:
        return None
    return payload


def lambda_handler(event: Any, context: Any = None) -> dict[str, Any]:
    records = event.get("Records") if isinstance(event, dict) else None
    if isinstance(records, list):  # the wake-up queue's batch
        failed = [mid for record in records if (mid := _record(record, context)) is not None]
        return {"batchItemFailures": [{"itemIdentifier": mid} for mid in failed]}
    # one summary line and one EMF blob per timer (gamebot.core.metrics): its chat, game, lateness, outcome
    with observed("timer", context, log, update=False) as inv:
        inv.stack = stack_name()
        status = _fire(event, context, inv)
        inv.note(outcome=status["status"])
        return status


def _record(record: Any, context: Any) -> str | None:
    """One wake-up of the queue's batch: the message's id if it is to be received again (a storage
    failure), else None (done, or not a wake-up: ignored, never retried)."""
    mid = record.get("messageId") if isinstance(record, dict) else None
    try:
        event = json.loads(record["body"])
    except (TypeError, KeyError, ValueError, RecursionError):
        event = None
    with observed("timer", context, log, update=False) as inv:
        inv.stack = stack_name()
        try:
            status = _fire(event, context, inv)
        except Exception:  # (a storage failure, logged by ``_fire``): the queue delivers it again
            inv.note(outcome="retry")
            return str(mid) if mid else None
        inv.note(outcome=status["status"])
    return None


def _fire(event: Any, context: Any, inv: Invocation) -> dict[str, str]:
    from gamebot.environment import BadSetting
    from gamebot.handlers.handling import transient

    payload = payload_of(event)
    if payload is None:
        log.warning("ignored an event that is not a timer payload")
        return {"status": "ignored"}
    inv.note(chat_id=payload["chat"], game_id=payload.get("game") or None, timer=payload["kind"])
    target = getattr(context, "invoked_function_arn", "") or ""
    try:
        svc = service(target)
        if payload.get("due") is not None:  # (the queue's wake-up arrives within a second or two of it;
            inv.timer_fired(svc.clock() - payload["due"])  # EventBridge Scheduler's within a minute)
        # the AWS requests end before the Lambda timeout, so that a storage failure is raised in time
        with invocation(context) as left, svc.repo.prefetching(chat_key(payload["chat"])):  # read meanwhile
            svc.io.wait_budget = flood_wait(svc.deps.scheduler, left)  # (none with the wake-up queue)
            outcome = _CONTAINER.run(svc.wake(payload))
    except Exception as exc:
        # storage unavailable, or settings the service cannot be built with (the secrets unreadable): the
        # webhook answers those 500 for Telegram to redeliver; a wake-up comes again
        if transient(exc) or isinstance(exc, BadSetting):  # (a BadSetting names its variable, never its value)
            log.warning("timer %s: %s (%s); it will be delivered again", payload["kind"],
                        "storage unavailable" if transient(exc) else exc, type(exc).__name__)
            raise  # EventBridge Scheduler retries (RetryPolicy); the queue receives it again
        log.exception("timer %s failed", payload["kind"])
        return {"status": "error"}
    return {"status": outcome}  # (the summary line says it: gamebot.core.metrics.observed)
