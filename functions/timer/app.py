"""The timer Lambda: EventBridge Scheduler invokes it when a chat's alarm is due.

The event is the payload ``gamebot.timing.alarm`` scheduled: ``{"chat", "game", "kind": "wake", "due",
"name"}`` (timers scheduled by earlier versions carry ``phase``, ``serial``, ``step`` and a kind
``remind``, ``expire`` or ``flush``: they are handled the same way). The handler reads the chat's
session and does whatever is due then (``Timers.fire``): the reminder or the expiry of the running time
limit, in a version-checked write, and what waits in the outbox; that write sets the chat's next alarm.
When that leaves a bot's move due in a few seconds, the invocation waits and plays the bots' moves at their
pace, as the webhook does (``Service.wake``, ``gamebot.core.pacing``), until ``SAFETY_MARGIN`` before its
timeout at the latest.

Like the webhook, the service is built once per container with ONE event loop (``gamebot.core.runtime``).
Its settings come from the environment, read in one place (``gamebot.environment.Environment``): among
them ``TABLE_NAME``, ``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_API_BASE_URL``, ``TELEGRAM_BOT_USERNAME``,
``GAME_ARCHIVE_DAYS``, ``SCHEDULER_ROLE_ARN``, ``SCHEDULE_GROUP``; the alarms it schedules target this
function itself (its ARN comes from the invocation context).
Storage errors are raised so that EventBridge Scheduler retries (a retry of a timer that did act finds
nothing due); anything else is logged and dropped. The AWS requests get a deadline a moment before the
function's timeout (``gamebot.core.runtime.invocation``): one that cannot get through in time is raised as
a storage error too, not cut off by the timeout.

Each invocation ends with one summary log line (the chat, the game, the outcome, the duration) and one EMF
blob (``gamebot.core.metrics.observed``: its duration, how late the timer fired).
"""
from __future__ import annotations

from typing import Any

from gamebot.core.metrics import Invocation, observed
from gamebot.core.runtime import Container, environment, invocation, lambda_logging
from gamebot.environment import Environment, stack_name
from gamebot.storage.session import chat_key

log = lambda_logging("gamebot.timer")

FIELDS = {"chat": int, "kind": str}  # what every timer carries
OPTIONAL = {"game": str, "due": int, "name": str, "phase": str, "serial": int, "step": str}
SAFETY_MARGIN = 3.0  # seconds kept free before the timeout when waiting for the bots (gamebot.core.pacing)

_CONTAINER = Container()


def service(target_arn: str = "") -> Any:
    """The container's service; the timers it schedules invoke ``target_arn`` (this function)."""
    from gamebot.core.runtime import build_service
    from gamebot.timing.scheduler import scheduler_from_env

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


def lambda_handler(event: Any, context: Any = None) -> dict[str, str]:
    # one summary line and one EMF blob per timer (gamebot.core.metrics): its chat, game, lateness, outcome
    with observed("timer", context, log, update=False) as inv:
        inv.stack = stack_name()
        status = _fire(event, context, inv)
        inv.note(outcome=status["status"])
        return status


def _fire(event: Any, context: Any, inv: Invocation) -> dict[str, str]:
    from gamebot.core.service import transient

    payload = payload_of(event)
    if payload is None:
        log.warning("ignored an event that is not a timer payload")
        return {"status": "ignored"}
    inv.note(chat_id=payload["chat"], game_id=payload.get("game") or None, timer=payload["kind"])
    target = getattr(context, "invoked_function_arn", "") or ""
    try:
        svc = service(target)
        if payload.get("due") is not None:  # (EventBridge Scheduler fires within a minute of it, or late)
            inv.timer_fired(svc.clock() - payload["due"])
        # the AWS requests end before the Lambda timeout, so that a storage failure is raised in time
        with invocation(context) as left, svc.repo.prefetching(chat_key(payload["chat"])):  # read while the rest gets ready
            until = None if left is None else svc.clock() + left - SAFETY_MARGIN
            outcome = _CONTAINER.run(svc.wake(payload, until))  # (and the bots' moves that follow soon)
    except Exception as exc:
        if transient(exc):
            raise  # EventBridge Scheduler retries (RetryPolicy)
        log.exception("timer %s failed", payload["kind"])
        return {"status": "error"}
    return {"status": outcome}  # (the summary line says it: gamebot.core.metrics.observed)
