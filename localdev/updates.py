"""Builders of Telegram ``Update`` JSON dicts (what Telegram POSTs to the webhook), for tests and the
local playground. Every builder returns a plain dict that ``telegram.Update.de_json`` accepts; update
ids increase across the process (``next_update_id``), so de-duplication sees each update once.

Arguments named ``chat`` take a chat dict (``group()``, ``private()``) or a bare chat id; arguments
named ``u``/``by`` take a user dict (``user()``) or a bare user id (``user(id)`` is used).

People and chats
    ``user(user_id, first_name=None, *, username=None, language_code="en", last_name=None)``
        -> ``{"id", "is_bot": False, "first_name", "username", "language_code"}``; first_name defaults
        to a name picked by id ("Alice", "Bob", ...), username to its lower case + id.
    ``group(chat_id=-1001000000001, title="Avalon Test Group", *, type=None)`` -> chat dict; type is
        "supergroup" for ids starting with -100, else "group".
    ``private(u)`` -> the private chat ``{"id": user id, "type": "private", "first_name", ...}``.
    ``chat(chat_id)`` -> a chat dict guessed from the id (positive: private, negative: group).
    ``BOT`` / ``BOT_ID`` / ``BOT_USERNAME``: the bot's own User (FakeTelegram's getMe answers it).

Messages (each returns an Update with a ``message``)
    ``command(chat, u, "/newgame args", *, bot_username=None)``: text with a ``bot_command`` entity
        (``bot_username`` given: "/newgame@<bot_username> args").
    ``text(chat, u, "hello", *, reply_to=None)``: plain text (``reply_to``: a message dict).
    ``start(u, payload=None)``: "/start <payload>" in the user's private chat (deep link).

Buttons
    ``message(chat, message_id, text=None, *, from_user=None, reply_markup=None)`` -> a Message dict
        (from the bot by default) to pass to ``press``; a message dict from ``FakeTelegram.last()`` /
        ``.messages()`` works as well.
    ``press(u, msg, data, *, chat_instance=None)``: a ``callback_query`` with a fresh string ``id``,
        ``from`` u, ``message`` msg, ``data`` data.

Membership (``my_chat_member``: the bot's own status changed)
    ``bot_added(chat, by, *, admin=False)``, ``bot_removed(chat, by=None, *, kicked=False)``,
    ``bot_blocked(u)``, ``bot_unblocked(u)``; ``chat_member(status, u)`` builds a ChatMember dict
    (creator, administrator, member, left, kicked) that PTB can parse.

Webhook
    ``webhook_event(update, secret=None, *, path="/webhook")`` -> an API Gateway HTTP API (payload
    v2.0) event: version "2.0", routeKey "POST /webhook", rawPath, lower-case headers incl.
    ``x-telegram-bot-api-secret-token`` (omitted if secret is None), body = JSON string,
    isBase64Encoded False, requestContext.http.method "POST".

``reset(update_id=1)`` restarts the counters (update ids, incoming message ids, callback ids).
"""
from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any

JSON = dict[str, Any]

BOT_ID = 7_000_000_001
BOT_USERNAME = "AvalonTestBot"
BOT: JSON = {"id": BOT_ID, "is_bot": True, "first_name": "Avalon GM", "username": BOT_USERNAME}

DEFAULT_GROUP_ID = -1_001_000_000_001
NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy")

_lock = threading.Lock()
_update_ids = itertools.count(1)
_message_ids = itertools.count(100_000)
_callback_ids = itertools.count(1)


def reset(update_id: int = 1) -> None:
    """Restart the update/message/callback counters."""
    global _update_ids, _message_ids, _callback_ids
    with _lock:
        _update_ids = itertools.count(update_id)
        _message_ids = itertools.count(100_000)
        _callback_ids = itertools.count(1)


def next_update_id() -> int:
    with _lock:
        return next(_update_ids)


def _next_message_id() -> int:
    with _lock:
        return next(_message_ids)


def _now() -> int:
    return int(time.time())


# -- people and chats ---------------------------------------------------------------------------


def user(
    user_id: int,
    first_name: str | None = None,
    *,
    username: str | None = None,
    language_code: str | None = "en",
    last_name: str | None = None,
) -> JSON:
    name = first_name or NAMES[user_id % len(NAMES)]
    out: JSON = {"id": user_id, "is_bot": False, "first_name": name}
    if last_name:
        out["last_name"] = last_name
    out["username"] = username if username is not None else f"{name.lower()}{user_id}"
    if language_code:
        out["language_code"] = language_code
    return out


def _user(u: JSON | int) -> JSON:
    return user(u) if isinstance(u, int) else u


def group(chat_id: int = DEFAULT_GROUP_ID, title: str = "Avalon Test Group", *, type: str | None = None) -> JSON:
    kind = type or ("supergroup" if str(chat_id).startswith("-100") else "group")
    return {"id": chat_id, "type": kind, "title": title}


def private(u: JSON | int) -> JSON:
    who = _user(u)
    out: JSON = {"id": who["id"], "type": "private", "first_name": who["first_name"]}
    for key in ("last_name", "username"):
        if who.get(key):
            out[key] = who[key]
    return out


def chat(chat_id: int) -> JSON:
    """A chat dict guessed from its id: positive ids are private chats, negative ones groups."""
    return private(chat_id) if chat_id > 0 else group(chat_id, f"Group {chat_id}")


def _chat(c: JSON | int) -> JSON:
    return chat(c) if isinstance(c, int) else c


# -- messages -----------------------------------------------------------------------------------


def message(
    chat_or_id: JSON | int,
    message_id: int,
    text: str | None = None,
    *,
    from_user: JSON | int | None = None,
    reply_markup: JSON | None = None,
) -> JSON:
    """A Message dict (sent by the bot unless ``from_user``), e.g. the message a button sits on."""
    out: JSON = {
        "message_id": message_id,
        "date": _now(),
        "chat": _chat(chat_or_id),
        "from": BOT if from_user is None else _user(from_user),
    }
    if text is not None:
        out["text"] = text
    if reply_markup is not None:
        out["reply_markup"] = reply_markup
    return out


def _utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _message_update(c: JSON | int, u: JSON | int, body: str, entities: list[JSON] | None = None,
                    reply_to: JSON | None = None) -> JSON:
    msg = message(c, _next_message_id(), body, from_user=u)
    if entities:
        msg["entities"] = entities
    if reply_to is not None:
        msg["reply_to_message"] = reply_to
    return {"update_id": next_update_id(), "message": msg}


def command(c: JSON | int, u: JSON | int, command_text: str, *, bot_username: str | None = None) -> JSON:
    """A command message, e.g. ``command(group(), user(1), "/newgame avalon")``."""
    body = command_text if command_text.startswith("/") else "/" + command_text
    word, sep, rest = body.partition(" ")
    if bot_username and "@" not in word:
        word = f"{word}@{bot_username}"
    body = word + sep + rest
    return _message_update(c, u, body, [{"type": "bot_command", "offset": 0, "length": _utf16_len(word)}])


def text(c: JSON | int, u: JSON | int, body: str, *, reply_to: JSON | None = None) -> JSON:
    return _message_update(c, u, body, reply_to=reply_to)


def start(u: JSON | int, payload: str | None = None) -> JSON:
    """``/start <payload>`` in the user's private chat (what a t.me/<bot>?start=<payload> link sends)."""
    who = _user(u)
    return command(private(who), who, "/start" + (f" {payload}" if payload else ""))


def press(u: JSON | int, msg: JSON, data: str, *, chat_instance: str | None = None) -> JSON:
    """A callback query: ``u`` pressed the inline button with callback_data ``data`` on ``msg``."""
    with _lock:
        query_id = str(next(_callback_ids))
    chat_id = msg["chat"]["id"]
    return {
        "update_id": next_update_id(),
        "callback_query": {
            "id": f"cbq{query_id}",
            "from": _user(u),
            "message": msg,
            "chat_instance": chat_instance or f"ci{abs(chat_id)}",
            "data": data,
        },
    }


# -- membership ---------------------------------------------------------------------------------

_ADMIN_RIGHTS = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_pin_messages": True,
}


def chat_member(status: str, u: JSON | int) -> JSON:
    """A ChatMember dict: status creator, administrator, member, left or kicked."""
    who = _user(u)
    if status == "creator":
        return {"status": "creator", "user": who, "is_anonymous": False}
    if status == "administrator":
        return {"status": "administrator", "user": who, **_ADMIN_RIGHTS}
    if status == "kicked":
        return {"status": "kicked", "user": who, "until_date": 0}
    if status in ("member", "left"):
        return {"status": status, "user": who}
    raise ValueError(f"unsupported chat member status {status!r}")


def _my_chat_member(c: JSON | int, by: JSON | int, old: str, new: str) -> JSON:
    return {
        "update_id": next_update_id(),
        "my_chat_member": {
            "chat": _chat(c),
            "from": _user(by),
            "date": _now(),
            "old_chat_member": chat_member(old, BOT),
            "new_chat_member": chat_member(new, BOT),
        },
    }


def bot_added(c: JSON | int, by: JSON | int, *, admin: bool = False) -> JSON:
    return _my_chat_member(c, by, "left", "administrator" if admin else "member")


def bot_removed(c: JSON | int, by: JSON | int | None = None, *, kicked: bool = False) -> JSON:
    """The bot left or was removed from a group (``by`` defaults to user 1)."""
    return _my_chat_member(c, 1 if by is None else by, "member", "kicked" if kicked else "left")


def bot_blocked(u: JSON | int) -> JSON:
    who = _user(u)
    return _my_chat_member(private(who), who, "member", "kicked")


def bot_unblocked(u: JSON | int) -> JSON:
    who = _user(u)
    return _my_chat_member(private(who), who, "kicked", "member")


# -- webhook ------------------------------------------------------------------------------------


def webhook_event(update: JSON, secret: str | None = None, *, path: str = "/webhook") -> JSON:
    """The API Gateway HTTP API (payload format 2.0) event for Telegram POSTing ``update``."""
    body = json.dumps(update, separators=(",", ":"), ensure_ascii=False)
    now = time.time()
    headers = {
        "accept-encoding": "gzip, deflate",
        "content-length": str(len(body.encode())),
        "content-type": "application/json",
        "host": "abc123.execute-api.us-east-1.amazonaws.com",
        "x-forwarded-for": "91.108.6.65",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
    }
    if secret is not None:
        headers["x-telegram-bot-api-secret-token"] = secret
    route = f"POST {path}"
    return {
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": headers["host"],
            "domainPrefix": "abc123",
            "http": {
                "method": "POST",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "91.108.6.65",
                "userAgent": "",
            },
            "requestId": f"req-{update.get('update_id', 0)}-{int(now * 1000)}",
            "routeKey": route,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": body,
        "isBase64Encoded": False,
    }


def webhook_reply(response: dict[str, Any]) -> dict[str, Any] | None:
    """The Bot API method a webhook answered with (Telegram performs it), or None."""
    headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
    if response.get("statusCode") != 200 or "json" not in headers.get("content-type", ""):
        return None
    try:
        method = json.loads(response.get("body") or "")
    except ValueError:
        return None
    return method if isinstance(method, dict) and isinstance(method.get("method"), str) else None
