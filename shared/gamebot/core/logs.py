"""Log lines as JSON objects, one per line, with the fields of the invocation under way.

Every line has ``timestamp`` (UTC, ISO 8601, milliseconds), ``level``, ``logger`` and ``message`` (the key
names of Lambda's own JSON log format), ``requestId`` (Lambda's) when known, the fields of the invocation
under way (``gamebot.core.metrics.Invocation``: ``update_id``, ``update_type``, ``chat_id``, ``game_id``;
the summary line at its end adds ``outcome`` and ``duration_ms``) and, with an exception, ``errorType``,
``errorMessage`` and ``stackTrace``. Nothing else of a record is copied: no message text of a chat ever
reaches a field, and the bot token and the webhook secret, should a message or a traceback hold one, are
replaced by ``***`` (:func:`keep_secret`).

Standard library only, and nothing imported that a cold start would not load anyway (``json``,
``logging``): the README's design notes say why this rather than Powertools' Logger or Lambda's
``LogFormat: JSON``.
"""
from __future__ import annotations

import json
import logging
import time
import traceback
from typing import Any

from gamebot.core.metrics import current

FIELDS = ("update_id", "update_type", "timer", "chat_id", "game_id", "outcome", "status", "duration_ms")
MIN_SECRET = 8  # characters: a shorter "secret" (tests) is not searched for, it would blank ordinary words

_secrets: tuple[str, ...] = ()
_encode = json.JSONEncoder(ensure_ascii=False, default=str).encode  # json.dumps(..., ensure_ascii=False, default=str)


def keep_secret(*secrets: str) -> None:
    """The strings no log line may show (the bot token, the webhook secret): each is replaced by ``***``."""
    global _secrets
    _secrets = tuple(s for s in secrets if len(s) >= MIN_SECRET)


def redacted(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, "***")
    return text


class JsonFormatter(logging.Formatter):
    """One JSON object per record (``newline``: end it with one, for a handler that adds none: Lambda's)."""

    def __init__(self, newline: bool = False) -> None:
        super().__init__()
        self.end = "\n" if newline else ""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        inv = current()
        request_id = (inv.request_id if inv is not None else "") or getattr(record, "aws_request_id", "")
        if request_id:
            line["requestId"] = request_id
        if inv is not None:
            fields = inv.fields
            line.update((k, fields[k]) for k in FIELDS if fields.get(k) is not None)
        if record.exc_info and record.exc_info[0] is not None:
            kind, exc, tb = record.exc_info
            line["errorType"] = kind.__name__
            line["errorMessage"] = str(exc)
            line["stackTrace"] = traceback.format_tb(tb)
        return redacted(_encode(line)) + self.end


def structure(root: logging.Logger | None = None) -> None:
    """Every handler of the root logger (Lambda's runtime installs one) formats JSON lines from now on."""
    for handler in (root or logging.getLogger()).handlers:
        if not isinstance(handler.formatter, JsonFormatter):
            handler.setFormatter(JsonFormatter(newline=not isinstance(handler, logging.StreamHandler)))
