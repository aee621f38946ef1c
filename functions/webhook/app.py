"""The Telegram webhook Lambda: ``lambda_handler(event, context)`` behind an API Gateway HTTP API.

Thin on purpose: check the secret header, parse the JSON body, hand it to ``gamebot.core.service`` and
answer with the one Bot API method of the reply, once the update's own step is delivered. Nothing here
sleeps: Telegram sends a chat's next update only once this one is answered. An AI seat's move the step
planned, an edit the group's budget holds back or a 429's wait is the chat's next wake-up
(``gamebot.timing.wakeup``: the wake-up queue invokes the timer function at its second); only without
that queue (EventBridge Scheduler alone fires within a minute) is a short 429 waited out here.
The Bot, the repository and the service are built once per container and ONE asyncio event loop is
kept at module scope (``asyncio.run`` per call closes the loop the Bot's HTTP client is bound to).

Its settings come from the environment, read in one place (``gamebot.environment.Environment``: the
variables, their types and defaults). The token and the secret are never logged.

Each update ends with one summary log line (its id, type, chat, game, outcome, status and duration) and one
EMF blob of its metrics on stdout (``gamebot.core.metrics.observed``); in Lambda every log line is JSON
(``gamebot.core.logs``).
"""
from __future__ import annotations

import base64
import hmac
import json
from typing import Any

from gamebot.botapi.inbound import MAX_BODY, refusal
from gamebot.botapi.throttle import Throttle
from gamebot.core.metrics import Invocation, described, observed
from gamebot.core.runtime import Container, environment, flood_wait, invocation, lambda_logging
from gamebot.environment import BadSetting, Environment, stack_name

log = lambda_logging("gamebot.webhook")

SECRET_HEADER = "x-telegram-bot-api-secret-token"

_CONTAINER = Container()  # the service and the one event loop of this container (gamebot.core.runtime)
THROTTLE = Throttle()  # each player's presses and commands in this container (gamebot.botapi.throttle)
_answer_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # (made once, not per answer)


async def _build(env: Environment) -> Any:
    from gamebot.core.runtime import build_service
    from gamebot.timing.wakeup import scheduler_from_env

    return await build_service(env, scheduler=scheduler_from_env(env=env))


def service(settings: Any = None) -> Any:
    """The container's service (rebuilt only if the configuration changed, e.g. between tests)."""
    return _CONTAINER.get(settings or environment(), _build)


def _response(status: int, body: str = "") -> dict[str, Any]:
    return {"statusCode": status, "headers": {"content-type": "text/plain"}, "body": body}


def _authorised(headers: dict[str, str], expected: str) -> bool:
    given = headers.get(SECRET_HEADER, "")
    if not expected:
        return False  # never run open: a missing secret configuration refuses everything
    return hmac.compare_digest(given.encode(), expected.encode())


def lambda_handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    # one summary line and one EMF blob per update (gamebot.core.metrics): its id, type, chat, game, outcome
    with observed("unknown", context, log) as inv:
        response = _handle(event, context, inv)
        inv.note(status=response["statusCode"])
        return response


def _handle(event: dict[str, Any], context: Any, inv: Invocation) -> dict[str, Any]:
    try:
        settings = environment()
    except BadSetting as exc:  # (names the variable, never its value)
        inv.stack = stack_name()
        inv.note(outcome="error")
        log.error("a setting does not parse (%s); Telegram will redeliver", exc)
        return _response(500, "retry")
    env = settings[0]
    inv.stack = env.stack_name
    headers = {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}
    if not _authorised(headers, env.webhook_secret):
        inv.note(outcome="rejected")
        log.warning("refused an update with a missing or wrong secret token")
        return _response(401, "unauthorised")
    body = event.get("body") or ""
    try:
        if event.get("isBase64Encoded"):
            body = base64.b64decode(body).decode()
        if len(body) > MAX_BODY:
            raise ValueError("too large")
        data = json.loads(body)
        problem = refusal(data)  # the update's shape: before the service reads or stores anything
        if problem is not None:
            raise ValueError(problem)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deeply
        inv.note(outcome="ignored")
        log.warning("ignored a body that is not a Telegram update (%s)", str(exc)[:200] or type(exc).__name__)
        return _response(200, "ignored")  # a retry would not help
    inv.note(**described(data))
    # a flood of one player's presses or commands: answered before anything is read (gamebot.botapi.throttle)
    throttled = THROTTLE.check(data) if env.player_throttle else None
    if throttled is not None:
        inv.note(outcome="throttled")
        return _method(throttled.method) if throttled.method is not None else _response(200, "ok")
    try:
        svc = service(settings)
    except Exception as exc:  # e.g. a bad setting; the message may contain the token: log the type only
        inv.note(outcome="error")
        log.error("could not build the service (%s); Telegram will redeliver", type(exc).__name__)
        return _response(500, "retry")
    # the AWS requests end before the Lambda timeout, in time to answer (a 500 if nothing was committed)
    with invocation(context) as left:
        svc.io.wait_budget = flood_wait(svc.deps.scheduler, left)  # (none with the wake-up queue)
        # a button of the running game: its group's session is read while the update is parsed
        with svc.reading_ahead(data):
            answer = _CONTAINER.run(svc.handle_update(data, checked=True))  # (refusal: above)
    if answer.status != 200:
        inv.note(outcome="error")
    if answer.status == 200 and answer.method is not None:
        return _method(answer.method)
    return _response(answer.status, "ok" if answer.status == 200 else "retry")


def _method(method: dict[str, Any]) -> dict[str, Any]:
    """One Bot API method in the reply: Telegram performs it (the answer to a button, a short reply)."""
    return {"statusCode": 200, "headers": {"content-type": "application/json"},
            "body": _answer_json(method)}


def run(coro: Any) -> Any:
    """Run ``coro`` on this container's event loop (tests and the playground: e.g. let the outbox flush)."""
    return _CONTAINER.run(coro)


def reset() -> None:
    """Forget the cached service (tests that change the environment or the mocked AWS)."""
    _CONTAINER.reset()
