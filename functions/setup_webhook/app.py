"""CloudFormation custom resources that register the bot with Telegram (one-step deploy).

The token and the webhook secret are not in the properties: the properties name the SSM Parameter Store
SecureStrings that hold them (``BotTokenParameter``, ``SecretTokenParameter``; template.yaml), and the
function reads them with ONE ``GetParameters`` call (``gamebot.core.secrets.read_parameters``: botocore
from the Lambda runtime, imported only then). ``SecretsVersion`` is there only to change: a rotation puts
the new value in SSM and deploys with a new ``SecretsVersion``, so CloudFormation sends an Update, which
reads the new values. (A resource created by an earlier template carries ``BotToken`` and ``SecretToken``
themselves: they are used as they are.)

``Custom::TelegramWebhook``
    Create/Update: ``setWebhook`` (our API URL, the secret token Telegram echoes in the
    ``X-Telegram-Bot-Api-Secret-Token`` header, the update types the bot handles, pending updates
    dropped, ``max_connections`` 100) then ``setMyCommands`` (the command menu from ``gamebot.botapi.commands``, read from the layer:
    one call per catalog language, the default without ``language_code``).
    Delete: ``deleteWebhook``, but only while the bot's webhook still points at this stack's URL, so
    deleting an old stack cannot unhook a newer deployment of the same bot, and only for the bot the
    resource registered (its physical id): after the parameter moved to another bot's token, the Delete
    of the old bot's registration finds the new token and leaves everything alone.
``Custom::TelegramBotInfo``
    Create/Update: ``getMe``, once per deploy that changes ``SecretsVersion`` (a new token, perhaps
    another bot's): the attribute ``Username`` becomes the functions' ``TELEGRAM_BOT_USERNAME``, so no
    cold start asks Telegram for it. It needs only the token (not the webhook function or its API), so
    the functions can depend on it without a cycle.
    Delete: nothing to undo; never calls Telegram.

The handler always answers CloudFormation on the pre-signed ``ResponseURL``: SUCCESS or FAILED,
never silence (silence leaves the stack waiting until the custom resource's ServiceTimeout). Every
network call is bounded by the time Lambda has left. A failed Delete still answers SUCCESS so that
a stack can always be deleted. The bot token never appears in a log line or a response.

Standard library only (urllib), no python-telegram-bot: this function runs once per deploy and
should start fast. From the layer it reads only its settings (``gamebot.environment``, itself standard
library only), the SSM read (``gamebot.core.secrets``) and, for ``setMyCommands``, the command menu.
``scripts/set_webhook.py`` reuses the request-building helpers below.
"""
from __future__ import annotations

import json
import logging
import time
import traceback
import urllib.error
import urllib.request
from typing import Any

from gamebot.core.logs import structure
from gamebot.core.secrets import read_parameters
from gamebot.environment import Environment

# The update types the bot handles. chat_member is not needed (and must be asked for explicitly);
# my_chat_member tells us when the bot is added to or removed from a group.
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
# The simultaneous HTTPS connections Telegram may open to the webhook: 100, Telegram's maximum (its
# default is 40). A connection carries one update at a time and is held until the webhook function
# answers (its commit, then its Bot API calls: up to its 25 s timeout), so each running invocation holds
# one connection of the bot's whole pool, for every group: with 40, 40 slow updates hold back every
# other group's next one, though Lambda could run more. WebhookApi's throttling (burst 100) caps abuse.
MAX_CONNECTIONS = 100
HTTP_TIMEOUT = 10.0  # seconds, for one Bot API call
RESERVE_SECONDS = 4.0  # time kept back to answer CloudFormation before Lambda's own timeout
MAX_REASON = 1000  # CloudFormation rejects responses over 4 KB
BOT_INFO_TYPE = "Custom::TelegramBotInfo"  # getMe at deploy time; every other type: the webhook

logger = logging.getLogger()
logger.setLevel(Environment.read().log_level)
logging.getLogger("botocore").setLevel(logging.WARNING)  # (its DEBUG lines show the parameters' values)
if Environment.read().lambda_function:
    structure()  # one JSON object per line, as the other functions log (gamebot.core.logs)


class TelegramError(Exception):
    """A Bot API call failed; the message is safe to log (no token)."""

    def __init__(self, message: str, *, retry_after: float | None = None, transient: bool = False):
        super().__init__(message)
        self.retry_after = retry_after
        self.transient = transient


class Deadline:
    """Wall-clock budget: the Lambda's remaining time minus what we keep to report back."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    @classmethod
    def from_context(cls, context: Any, default: float = 60.0) -> Deadline:
        getter = getattr(context, "get_remaining_time_in_millis", None)
        remaining = getter() / 1000.0 if callable(getter) else default
        return cls(max(remaining - RESERVE_SECONDS, 0.0))

    def left(self) -> float:
        return self.end - time.monotonic()

    def timeout(self, cap: float = HTTP_TIMEOUT) -> float:
        left = self.left()
        if left < 0.5:
            raise TimeoutError("out of time before the next network call")
        return min(cap, left)


def redact(text: str, *secrets: str | None) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def api_base_url(explicit: str | None = None) -> str:
    return (explicit or Environment.read().api_base_url).rstrip("/")


def bot_id(token: str) -> str:
    """The public numeric part of a token (``123456:ABC...`` -> ``123456``)."""
    head = token.split(":", 1)[0]
    return head if head.isdigit() else "unknown"


def set_webhook_params(url: str, secret_token: str, *, drop_pending_updates: bool = True) -> dict[str, Any]:
    return {
        "url": url,
        "secret_token": secret_token,
        "allowed_updates": list(ALLOWED_UPDATES),
        "drop_pending_updates": drop_pending_updates,
        "max_connections": MAX_CONNECTIONS,
    }


def load_menus() -> list[dict[str, Any]]:
    """Every ``setMyCommands`` request: the default menu, then one per other catalog language
    (with its ``language_code``, so Telegram shows each user the menu in their app's language)."""
    from gamebot.botapi.commands import menus

    return menus()


def call_bot_api(
    token: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    base_url: str | None = None,
    deadline: Deadline | None = None,
    attempts: int = 3,
) -> Any:
    """POST ``params`` as JSON to ``<base>/bot<token>/<method>``; return ``result`` or raise TelegramError.

    Retries network errors, 5xx and 429 (honouring ``retry_after``) while the deadline allows.
    """
    deadline = deadline or Deadline(60.0)
    url = f"{api_base_url(base_url)}/bot{token}/{method}"
    data = json.dumps(params or {}).encode()
    last: TelegramError | None = None
    for attempt in range(attempts):
        if last is not None:
            pause = min(last.retry_after if last.retry_after is not None else 0.5 * 2 ** (attempt - 1), 5.0)
            if deadline.left() < pause + 1.0:
                break
            time.sleep(pause)
        try:
            last = None
            return _post_json(url, data, method, token, deadline)
        except TelegramError as exc:
            if not exc.transient:
                raise
            last = exc
    assert last is not None
    raise last


def _post_json(url: str, data: bytes, method: str, token: str, deadline: Deadline) -> Any:
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=deadline.timeout()) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:  # the Bot API explains errors in a JSON body
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TelegramError(f"{method}: network error: {redact(str(reason), token)}", transient=True) from None
    try:
        payload = json.loads(raw)
    except ValueError:
        raise TelegramError(f"{method}: HTTP {status}, not JSON", transient=status >= 500) from None
    if status == 200 and isinstance(payload, dict) and payload.get("ok"):
        return payload.get("result")
    payload = payload if isinstance(payload, dict) else {}
    retry_after = (payload.get("parameters") or {}).get("retry_after")
    description = redact(str(payload.get("description", "")), token)
    raise TelegramError(
        f"{method}: HTTP {status}: {description}",
        retry_after=float(retry_after) if retry_after is not None else None,
        transient=status == 429 or status >= 500,
    )


def with_secrets(props: dict[str, Any], *, secret: bool, client: Any = None) -> dict[str, Any]:
    """The properties with ``BotToken`` (and, if ``secret``, ``SecretToken``) read from the SSM parameters
    they name (``BotTokenParameter``, ``SecretTokenParameter``), in one call; a value already in the
    properties (an earlier template's) is kept. ``SecretsUnavailable`` when the parameters cannot be read."""
    names = {"BotToken": props.get("BotTokenParameter"),
             "SecretToken": props.get("SecretTokenParameter") if secret else None}
    wanted = {key: str(name) for key, name in names.items() if name and not props.get(key)}
    if not wanted:
        return props
    values = read_parameters(list(wanted.values()), client=client)
    return {**props, **{key: values[name] for key, name in wanted.items()}}


def register(props: dict[str, Any], deadline: Deadline) -> dict[str, Any]:
    token, url, secret = props["BotToken"], props["WebhookUrl"], props["SecretToken"]
    base = props.get("ApiBaseUrl")
    call_bot_api(token, "setWebhook", set_webhook_params(url, secret), base_url=base, deadline=deadline)
    for menu in load_menus():
        call_bot_api(token, "setMyCommands", menu, base_url=base, deadline=deadline)
    logger.info("webhook set to %s for bot %s; allowed updates %s", url, bot_id(token), ALLOWED_UPDATES)
    return {"WebhookUrl": url, "BotId": bot_id(token)}


def bot_info(props: dict[str, Any], deadline: Deadline) -> dict[str, Any]:
    """``getMe``: the bot's username (without @), for deep links."""
    token = props["BotToken"]
    me = call_bot_api(token, "getMe", base_url=props.get("ApiBaseUrl"), deadline=deadline)
    username = me.get("username") if isinstance(me, dict) else None
    if not isinstance(username, str) or not username:
        raise TelegramError("getMe: the answer has no username")
    logger.info("bot %s is @%s", bot_id(token), username)
    return {"Username": username, "BotId": bot_id(token)}


def unregister(props: dict[str, Any], deadline: Deadline, physical_id: str = "") -> str:
    token, url = props.get("BotToken"), props.get("WebhookUrl")
    if not token:
        return "no bot token in the resource properties: nothing to delete"
    registered = physical_id.rsplit("-", 1)[-1] if physical_id.startswith("telegram-webhook-") else ""
    if registered and registered != bot_id(token):  # the parameter holds another bot's token now
        logger.info("the registration of bot %s: the token now is bot %s's; leaving it", registered, bot_id(token))
        return f"bot {registered}'s token is no longer in the parameter: its webhook is left (delete it by hand)"
    base = props.get("ApiBaseUrl")
    info = call_bot_api(token, "getWebhookInfo", base_url=base, deadline=deadline) or {}
    current = info.get("url", "")
    if url and current != url:
        logger.info("webhook of bot %s points elsewhere (%r); leaving it", bot_id(token), current)
        return "webhook points elsewhere; left alone"
    call_bot_api(token, "deleteWebhook", {"drop_pending_updates": False}, base_url=base, deadline=deadline)
    logger.info("webhook deleted for bot %s", bot_id(token))
    return "webhook deleted"


def lambda_handler(event: dict[str, Any], context: Any) -> None:
    deadline = Deadline.from_context(context)
    props = event.get("ResourceProperties") or {}
    found: dict[str, Any] = props if isinstance(props, dict) else {}  # (with the secrets, once read)
    request_type = event.get("RequestType")
    info = event.get("ResourceType") == BOT_INFO_TYPE
    prefix = "telegram-bot" if info else "telegram-webhook"
    token = found.get("BotToken")
    physical_id = event.get("PhysicalResourceId") or (
        f"{prefix}-{bot_id(token)}" if isinstance(token, str) else prefix
    )
    status, reason, data = "FAILED", "", {}
    logger.info("%s request for %s", request_type, event.get("LogicalResourceId"))
    try:
        if request_type in ("Create", "Update"):
            found = with_secrets(props, secret=not info)  # (raises on properties that are not a mapping)
            data = bot_info(found, deadline) if info else register(found, deadline)
            # Stable per bot: an Update for the same bot keeps the id (no Delete follows); a new bot
            # gets a new id, and CloudFormation then Deletes the old one. That Delete reads the parameter,
            # which holds the new bot's token by then: it leaves the old bot's webhook (``unregister``).
            physical_id = f"{prefix}-{bot_id(found['BotToken'])}"
            status = "SUCCESS"
        elif request_type == "Delete" and info:
            reason = "nothing to undo"  # getMe changed nothing
            status = "SUCCESS"
        elif request_type == "Delete":
            try:
                found = with_secrets(found, secret=False)
                reason = unregister(found, deadline, physical_id)
            except Exception as exc:  # never block a stack deletion
                reason = f"deleteWebhook failed, ignored: {redact(str(exc), *_secrets(found))}"
                logger.warning(reason)
            status = "SUCCESS"
        else:
            reason = f"unknown request type {request_type!r}"
    except Exception as exc:
        secrets = _secrets(found)
        reason = redact(f"{type(exc).__name__}: {exc}", *secrets)
        logger.error("%s failed: %s\n%s", request_type, reason, redact(traceback.format_exc(), *secrets))
    finally:
        send_response(event, context, status, reason, physical_id, data, deadline)


def _secrets(props: dict[str, Any]) -> tuple[str | None, ...]:
    """The values no log line or answer may show."""
    values = (props.get("BotToken"), props.get("SecretToken"))
    return tuple(value if isinstance(value, str) else None for value in values)


def send_response(
    event: dict[str, Any],
    context: Any,
    status: str,
    reason: str,
    physical_id: str,
    data: dict[str, Any],
    deadline: Deadline,
) -> bool:
    stream = getattr(context, "log_stream_name", None)
    if stream:
        reason = f"{reason} (log stream {stream})".strip()
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason[:MAX_REASON] or status,
            "PhysicalResourceId": physical_id,
            "StackId": event.get("StackId"),
            "RequestId": event.get("RequestId"),
            "LogicalResourceId": event.get("LogicalResourceId"),
            "NoEcho": False,
            "Data": data,
        }
    ).encode()
    url = event.get("ResponseURL")
    if not url:
        logger.error("no ResponseURL in the event; cannot report %s", status)
        return False
    # A pre-signed S3 PUT: the signature covers an empty Content-Type.
    headers = {"Content-Type": "", "Content-Length": str(len(body))}
    for attempt in range(3):
        try:
            timeout = max(min(HTTP_TIMEOUT, deadline.left() + RESERVE_SECONDS - 1.0), 1.0)
            request = urllib.request.Request(url, data=body, method="PUT", headers=headers)
            with urllib.request.urlopen(request, timeout=timeout) as response:
                logger.info("reported %s to CloudFormation (HTTP %s)", status, response.status)
                return True
        except Exception as exc:
            logger.warning("reporting to CloudFormation failed (attempt %d): %s", attempt + 1, exc)
            if deadline.left() + RESERVE_SECONDS < 3.0:
                break
            time.sleep(0.5 * (attempt + 1))
    return False
