"""The shape of an incoming update, checked at the edge, before anything reads or stores it.

Telegram always sends well-typed updates; a forger who has the webhook secret, or a broken proxy, may
not. python-telegram-bot does not check types when it builds an ``Update``, so a float ``update_id``
or a number as callback data would otherwise reach the handlers (a non-integer update id was even
stored among the session's ``seen`` ids, after which the group's session no longer loaded).

``refusal(data)`` says what is wrong with an update (None: nothing): it is a JSON object nested no
deeper than Telegram nests, its ``update_id`` is a real integer within range, it carries at most one
kind of update (as Telegram guarantees), and every field the handlers read has the type and size
Telegram gives it. A refused update is answered 200 (a redelivery would fail the same way), logged in
one line, and ignored: nothing is stored and nothing is sent, not even an answer to a callback query.
"""
from __future__ import annotations

from gamebot.botapi.callbacks import Codec
from gamebot.storage.session import chat_key
from gamebot.storage.store import JsonValue

MAX_BODY = 1 << 20  # bytes of a webhook body; Telegram's largest updates are a few tens of kilobytes
MAX_DEPTH = 32  # levels of objects and arrays; Telegram's updates nest about ten
MAX_NODES = 100_000  # objects, arrays and values in one update
MAX_ID = 2**53  # Telegram ids have at most 52 significant bits (they fit a double)
MAX_DATE = 2**40  # Unix time, seconds
MAX_TEXT = 8192  # a message text is at most 4096 characters (UTF-16 code units)
MAX_NAME = 256  # names, titles, usernames, language codes, chat types, statuses, query ids
MAX_DATA = 64  # callback data: 1 to 64 bytes


class Refused(ValueError):
    """What is wrong with an update."""


def refusal(data: object) -> str | None:
    """Why ``data`` (a decoded webhook body) is not an update the bot should read, or None."""
    try:
        _check_update(data)
    except Refused as exc:
        return str(exc)
    return None


# What the handlers read of the message under a pressed button: which message it is (its id; its date
# tells an inaccessible message) and its chat. Its text, entities and keyboard are most of such an update.
PRESSED_MESSAGE = ("message_id", "date", "chat")


def essentials(data: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """``data`` (an update ``refusal`` accepted) with only what the handlers read, so that no objects are
    built for the rest: of the message under a pressed button, ``PRESSED_MESSAGE``. A copy where it
    differs: ``data`` itself is not changed."""
    q = data.get("callback_query")
    if not isinstance(q, dict):
        return data
    m = q.get("message")
    if not isinstance(m, dict):
        return data
    return {**data, "callback_query": {**q, "message": {k: m[k] for k in PRESSED_MESSAGE if k in m}}}


# ---------------------------------------------------------------------------------------------------
# The update and the kinds the bot handles
# ---------------------------------------------------------------------------------------------------


def _check_update(data: object) -> None:
    if not isinstance(data, dict):
        raise Refused("not a JSON object")
    _check_size(data)
    _integer(data.get("update_id"), "update_id", 0, MAX_ID)
    kinds = [key for key, value in data.items() if key != "update_id" and value is not None]
    if len(kinds) > 1:
        raise Refused("more than one kind of update")
    if kinds and kinds[0] in _KINDS:
        _KINDS[kinds[0]](data[kinds[0]], kinds[0])
    # any other kind is not read (the service ignores it)


def _check_message(value: object, where: str) -> None:
    m = _object(value, where)
    _integer(m.get("message_id"), f"{where}.message_id", 0, MAX_ID)
    _integer(m.get("date"), f"{where}.date", 0, MAX_DATE)
    _check_chat(m.get("chat"), f"{where}.chat")
    if m.get("from") is not None:
        _check_user(m["from"], f"{where}.from")
    _optional_text(m.get("text"), f"{where}.text", MAX_TEXT)
    if m.get("migrate_to_chat_id") is not None:
        _integer(m["migrate_to_chat_id"], f"{where}.migrate_to_chat_id", -MAX_ID, MAX_ID)


def _check_callback_query(value: object, where: str) -> None:
    q = _object(value, where)
    _text(q.get("id"), f"{where}.id", MAX_NAME, empty=False)
    _check_user(q.get("from"), f"{where}.from")
    data = q.get("data")
    if data is not None:
        data = _text(data, f"{where}.data", MAX_DATA, empty=False)
        if not data.isascii() or len(data.encode()) > MAX_DATA:
            raise Refused(f"{where}.data is not ASCII within {MAX_DATA} bytes")
    if q.get("message") is not None:
        _check_message(q["message"], f"{where}.message")


def _check_my_chat_member(value: object, where: str) -> None:
    m = _object(value, where)
    _integer(m.get("date"), f"{where}.date", 0, MAX_DATE)
    _check_chat(m.get("chat"), f"{where}.chat")
    _check_user(m.get("from"), f"{where}.from")
    for side in ("old_chat_member", "new_chat_member"):
        member = _object(m.get(side), f"{where}.{side}")
        _text(member.get("status"), f"{where}.{side}.status", MAX_NAME, empty=False)
        _check_user(member.get("user"), f"{where}.{side}.user")


_KINDS = {
    "message": _check_message,
    "callback_query": _check_callback_query,
    "my_chat_member": _check_my_chat_member,
}


# ---------------------------------------------------------------------------------------------------
# People, chats and values
# ---------------------------------------------------------------------------------------------------


def _check_user(value: object, where: str) -> None:
    u = _object(value, where)
    _integer(u.get("id"), f"{where}.id", 1, MAX_ID)
    if not isinstance(u.get("is_bot"), bool):
        raise Refused(f"{where}.is_bot is not a boolean")
    _text(u.get("first_name"), f"{where}.first_name", MAX_NAME)
    for name in ("last_name", "username", "language_code"):
        _optional_text(u.get(name), f"{where}.{name}", MAX_NAME)


def _check_chat(value: object, where: str) -> None:
    c = _object(value, where)
    _integer(c.get("id"), f"{where}.id", -MAX_ID, MAX_ID)
    _text(c.get("type"), f"{where}.type", MAX_NAME, empty=False)
    for name in ("title", "username", "first_name", "last_name"):
        _optional_text(c.get(name), f"{where}.{name}", MAX_NAME)


def _object(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise Refused(f"{where} is not an object")
    return value


def _integer(value: object, where: str, low: int, high: int) -> None:
    if type(value) is not int:  # not a bool, a float, a string...
        raise Refused(f"{where} is not an integer")
    if not low <= value <= high:
        raise Refused(f"{where} is out of range")


def _text(value: object, where: str, most: int, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise Refused(f"{where} is not a string")
    if len(value) > most:
        raise Refused(f"{where} is longer than {most} characters")
    if not value and not empty:
        raise Refused(f"{where} is empty")
    return value


def _optional_text(value: object, where: str, most: int) -> None:
    if value is not None:
        _text(value, where, most)


def _check_size(data: dict[object, object]) -> None:
    """At most ``MAX_DEPTH`` levels and ``MAX_NODES`` values (walked level by level, without recursion)."""
    level: list[object] = [data]
    seen = 0
    for depth in range(1, MAX_DEPTH + 1):
        seen += len(level)
        if seen > MAX_NODES:
            raise Refused("too many values")
        below: list[object] = []
        for node in level:
            if isinstance(node, dict):
                below.extend(node.values())
            elif isinstance(node, list):
                below.extend(node)
        if not below:
            return
        if depth == MAX_DEPTH:
            raise Refused(f"nested deeper than {MAX_DEPTH} levels")
        level = below


# ---------------------------------------------------------------------------------------------------
# What to read ahead
# ---------------------------------------------------------------------------------------------------

GAME_SCOPES = frozenset("TVQP")  # presses of the running game: the group's session is read first


def read_ahead(data: dict[str, JsonValue], codec: Codec) -> str | None:
    """The storage key a pressed button of the running game (team picker, vote, quest card, private
    prompt) will read first: its group's session, named in its signed callback data (``codec``, a
    ``callbacks.Codec``). None for anything else, or for data that is not ours (no read for a forgery)."""
    q = data.get("callback_query")
    raw = q.get("data") if isinstance(q, dict) else None
    if not isinstance(raw, str) or raw[:1] not in GAME_SCOPES:
        return None
    try:
        button = codec.decode(raw)
    except ValueError:  # BadCallback
        return None
    return chat_key(button.chat_id)
