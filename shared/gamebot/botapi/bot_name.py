"""The bot's username, for deep links (``t.me/<username>?start=...``), never asked for at cold start.

On AWS the stack tells every function the username (``TELEGRAM_BOT_USERNAME``: the template's parameter,
or what its BotInfo resource learned from ``getMe`` at deploy time), so the bot never asks Telegram.
Run elsewhere without it, the service gets a :class:`BotName` instead of a string: it asks
(``lookup``, one ``getMe``) the first time the name is actually read, i.e. when a deep link is rendered
or a command names a bot, and keeps the answer for the container's life. A container starts and
answers without waiting on Telegram; updates that need no deep link never ask.

A failed lookup never fails an update: the name reads as "" (deep links are left out: the lobby shows
no "open the bot" button, a text's link is empty, a callback answer opens nothing) and the lookup is
tried again only after ``retry_after`` seconds, so an outage costs one try, not one per message.

The lookup is synchronous (rendering is: it runs in the unit of work's decision, next to the AWS
client's own blocking calls), bounded by its timeout, and happens at most once per container while it
succeeds.

A :class:`BotName` stands in for the username string where ``Service(bot_username=...)`` and
``messages.table.Table`` use it: ``str()``, f-strings, truthiness, ``lower()`` and ``==`` read the name.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("gamebot.botapi.bot_name")

RETRY_AFTER = 30.0  # seconds between two lookups after one failed


class BotName:
    def __init__(self, lookup: Callable[[], str], *, retry_after: float = RETRY_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``lookup()``: the username from Telegram (``getMe``); it may raise."""
        self._lookup = lookup
        self._retry_after = retry_after
        self._clock = clock
        self._name = ""
        self._failed_at: float | None = None
        self.lookups = 0  # how many times Telegram was asked (tests, logs)

    @property
    def known(self) -> str:
        """The name if already learned, without asking ("" otherwise)."""
        return self._name

    def get(self) -> str:
        """The name, asking Telegram once if it is not known yet; "" if that failed (never raises)."""
        if self._name:
            return self._name
        now = self._clock()
        if self._failed_at is not None and now - self._failed_at < self._retry_after:
            return ""
        self.lookups += 1
        try:
            name = str(self._lookup() or "").lstrip("@")
        except Exception as exc:  # the message may contain a URL with the token: the type only
            name, reason = "", type(exc).__name__
        else:
            reason = "no username in the answer"
        if not name:
            self._failed_at = now
            log.warning("could not learn the bot's username (%s): deep links are left out for now", reason)
            return ""
        self._name, self._failed_at = name, None
        log.info("learned the bot's username from getMe: %s", name)
        return name

    def __str__(self) -> str:
        return self.get()

    def __format__(self, spec: str) -> str:
        return format(self.get(), spec)

    def __bool__(self) -> bool:
        return bool(self.get())

    def lower(self) -> str:
        return self.get().lower()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BotName | str):
            return self.get() == str(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # its value changes when learned: not a dict key

    def __repr__(self) -> str:  # never asks (dataclass reprs, logs)
        return f"BotName({self._name!r})" if self._name else "BotName(<not learned yet>)"
