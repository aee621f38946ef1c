"""The timer Lambda: EventBridge Scheduler invokes it when a phase's reminder or deadline is due.

The event is the payload ``gamebot.timers`` scheduled (``{"chat", "game", "phase", "serial", "step",
"due", "kind"}``). The handler reads the chat's session and acts only if that exact deadline is still
running (a stale timer does nothing): it reminds the group, or applies the engine's timeout defaults
in a version-checked write and sends the messages, then schedules the next decision's timers.

Like the webhook: the Bot and the service are built once per container, with ONE event loop at module
scope. Environment: ``TABLE_NAME``, ``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_API_BASE_URL``,
``TELEGRAM_BOT_USERNAME``, ``GAME_ARCHIVE_DAYS``, ``SCHEDULER_ROLE_ARN``, ``SCHEDULE_GROUP``; the
timers it schedules target this function itself (its ARN comes from the invocation context).
Storage errors are raised so that EventBridge Scheduler retries; anything else is logged and dropped.
"""
from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

log = logging.getLogger("gamebot.timer")
if not logging.getLogger().handlers:
    logging.basicConfig(level=logging.INFO)
logging.getLogger("gamebot").setLevel(os.environ.get("LOG_LEVEL", "INFO").upper())
logging.getLogger("httpx").setLevel(logging.WARNING)  # httpx logs request URLs, which contain the token
logging.getLogger("httpcore").setLevel(logging.WARNING)

FIELDS = {"chat": int, "game": str, "phase": str, "serial": int, "step": str, "due": int, "kind": str}

_LOOP = asyncio.new_event_loop()
_APP: dict[str, Any] = {}


def _settings(target_arn: str) -> tuple[str, ...]:
    from gamebot.scheduler import env_key

    return (
        os.environ.get("TELEGRAM_BOT_TOKEN", ""),
        os.environ.get("TELEGRAM_API_BASE_URL", "https://api.telegram.org").rstrip("/"),
        os.environ.get("TABLE_NAME", ""),
        os.environ.get("TELEGRAM_BOT_USERNAME", ""),
        os.environ.get("AWS_ENDPOINT_URL_DYNAMODB", ""),
        os.environ.get("GAME_ARCHIVE_DAYS", ""),
        target_arn,
        *env_key(),
    )


async def _build(settings: tuple[str, ...]) -> Any:
    from telegram import Bot
    from telegram.request import HTTPXRequest

    from gamebot.callbacks import Codec
    from gamebot.dynamo import DynamoRepository
    from gamebot.scheduler import scheduler_from_env
    from gamebot.service import ARCHIVE_DAYS, Service
    from gamebot.telegram_io import TelegramIO

    token, base_url, table, username, _, archive_days, target_arn = settings[:7]
    request = HTTPXRequest(connection_pool_size=8, read_timeout=10.0, write_timeout=10.0, connect_timeout=5.0)
    bot = Bot(token=token, base_url=f"{base_url}/bot", request=request)
    await bot.initialize()
    return Service(DynamoRepository(table), TelegramIO(bot), Codec(token), bot_username=username or (bot.username or ""),
                   archive_days=float(archive_days or ARCHIVE_DAYS), scheduler=scheduler_from_env(target_arn or None))


def service(target_arn: str = "") -> Any:
    settings = _settings(target_arn)
    if _APP.get("settings") != settings:
        reset()
        _APP["service"] = _LOOP.run_until_complete(_build(settings))
        _APP["settings"] = settings
    return _APP["service"]


def reset() -> None:
    """Forget the cached service (tests that change the environment or the mocked AWS)."""
    old = _APP.pop("service", None)
    _APP.pop("settings", None)
    if old is not None:
        try:
            _LOOP.run_until_complete(old.io.bot.shutdown())
        except Exception:  # pragma: no cover - best effort
            pass


def payload_of(event: Any) -> dict[str, Any] | None:
    """The timer payload, checked field by field (anything else is ignored, never retried)."""
    if not isinstance(event, dict) or set(FIELDS) - set(event):
        return None
    try:
        return {key: kind(event[key]) for key, kind in FIELDS.items()}
    except (TypeError, ValueError):
        return None


def lambda_handler(event: Any, context: Any = None) -> dict[str, str]:
    from gamebot.service import transient

    payload = payload_of(event)
    if payload is None:
        log.warning("ignored an event that is not a timer payload")
        return {"status": "ignored"}
    target = getattr(context, "invoked_function_arn", "") or ""
    try:
        outcome = _LOOP.run_until_complete(service(target).timers.fire(payload))
    except Exception as exc:
        if transient(exc):
            raise  # EventBridge Scheduler retries (RetryPolicy); a stale retry does nothing
        log.exception("timer %s/%s failed", payload["phase"], payload["kind"])
        return {"status": "error"}
    log.info("timer %s %s serial %s -> %s", payload["phase"], payload["kind"], payload["serial"], outcome)
    return {"status": outcome}
