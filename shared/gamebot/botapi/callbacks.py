"""``callback_data`` codec: at most 64 bytes, tamper-evident, with enough context to reject stale presses.

A button carries ``scope:chat:game:serial:op:mac``:

* ``scope``: what the button belongs to (``L`` lobby, ``S`` settings panel, ``T`` team picker,
  ``V`` vote, ``Q`` a quest card played from the group, ``P`` a private prompt, ``G`` a group setting
  such as the language, ``H`` the vote history of the game in progress, sent in private).
* ``chat``: the group's chat id (base 36, ``-`` kept), so a press in a private chat finds its game
  with one read.
* ``game``: the short id of the game in that chat: a button from a previous game is refused.
* ``serial``: the decision point the button was made for (``session.serial``); a press after that
  decision has moved on is refused as out of date.
* ``op``: what the press does (``j`` join, ``t3`` toggle seat 3, ``c`` confirm, ``x1`` choice 1...).
* ``mac``: 6 characters of an HMAC-SHA256 over the rest, keyed by a secret derived from the bot token,
  so hand-made callback data (a modified client can send any bytes) is refused.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

MAX_BYTES = 64
SCOPES = frozenset("LSTVQPGH")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadCallback(ValueError):
    """Callback data that is malformed, forged, or too long."""


def b36(n: int) -> str:
    if n < 0:
        return "-" + b36(-n)
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if n == 0:
            return out


def unb36(text: str) -> int:
    if not text or text in ("-",):
        raise ValueError(text)
    return int(text, 36)


@dataclass(frozen=True)
class Button:
    scope: str
    chat_id: int
    game_id: str
    serial: int
    op: str


class Codec:
    def __init__(self, secret: str | bytes) -> None:
        raw = secret.encode() if isinstance(secret, str) else secret
        self._key = hashlib.sha256(b"gamebot-callback|" + raw).digest()

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:6]).decode().rstrip("=")[:6]

    def encode(self, scope: str, chat_id: int, game_id: str, serial: int, op: str) -> str:
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}")
        if ":" in game_id or ":" in op:
            raise ValueError("':' is reserved")
        body = f"{scope}:{b36(chat_id)}:{game_id}:{b36(serial)}:{op}"
        data = f"{body}:{self._mac(body)}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback_data too long ({len(data)} bytes): {data!r}")
        return data

    def decode(self, data: str | None) -> Button:
        if not data or len(data.encode()) > MAX_BYTES:
            raise BadCallback("missing or too long")
        parts = data.split(":")
        if len(parts) != 6:
            raise BadCallback("malformed")
        scope, chat, game_id, serial, op, mac = parts
        body = ":".join(parts[:5])
        if not hmac.compare_digest(mac, self._mac(body)):
            raise BadCallback("bad signature")
        if scope not in SCOPES:
            raise BadCallback("unknown scope")
        try:
            return Button(scope, unb36(chat), game_id, unb36(serial), op)
        except ValueError as exc:
            raise BadCallback("malformed number") from exc


# --- /start deep-link payloads (t.me/<bot>?start=<payload>: A-Z a-z 0-9 _ -, at most 64) ---------


def start_payload(kind: str, chat_id: int, game_id: str) -> str:
    """``j`` (join) or ``r`` (reconnect) payload for the game ``game_id`` in ``chat_id``."""
    payload = f"{kind}{b36(chat_id)}_{game_id}"
    if len(payload) > 64:  # pragma: no cover - chat ids are at most 52 bits
        raise ValueError(payload)
    return payload


def parse_start_payload(payload: str) -> tuple[str, int, str] | None:
    if not payload or payload[0] not in "jr" or "_" not in payload:
        return None
    chat, _, game_id = payload[1:].partition("_")
    try:
        chat_id = unb36(chat)
    except ValueError:
        return None
    if not game_id.isalnum():
        return None
    return payload[0], chat_id, game_id
