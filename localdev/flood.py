"""A Telegram-like flood control for the fakes of the Bot API (``FakeTelegram.flood_control`` and the
unit tests' stand-in Bot), on a clock the test moves: nothing here sleeps.

Telegram lets a bot post about 20 messages a minute in a group, edits included. Beyond that it answers
``429 Too Many Requests: retry after N`` with ``parameters.retry_after`` (seconds, up to a minute, and
now and then much longer for a bot that keeps pushing). This model, per group (a negative chat id):

* keeps the times of the group's accepted calls; ``per_minute`` of them in the last 60 seconds (a
  sliding window) fill the group: the next call is refused with retry_after = the whole seconds until
  the oldest of them leaves the window (at least 1, at most ``max_retry_after``);
* with ``long_rate``, such a refusal asks for a long wait instead, with that chance (seeded): any
  number of seconds up to ``max_retry_after``;
* with ``spurious_rate``, any call that posts in a chat (a group's or a private one) is refused with
  that chance even under the limit, with 1 to ``max_retry_after`` seconds (seeded): Telegram's other
  limits, which a bot cannot foresee;
* a refused chat stays closed until its retry_after has passed: every call there meanwhile is refused
  with the seconds left (as Telegram does to a bot that does not wait);
* refused calls do not count; calls that show nothing in a chat (answerCallbackQuery, getChatMember...)
  are never refused.

``refuse(method, chat_id)`` says whether a call may go (None) or how long to wait; ``accept(...)``
records a call that went through. ``refusals`` and ``accepted`` keep what happened, for the tests.
"""
from __future__ import annotations

import bisect
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WINDOW = 60.0
# The calls that post or change a message in a chat: what Telegram's per-group limit counts.
LIMITED = frozenset(name.lower() for name in (
    "sendMessage", "sendPhoto", "sendDocument", "sendAnimation", "sendMediaGroup", "editMessageText",
    "editMessageCaption", "editMessageReplyMarkup", "editMessageMedia", "pinChatMessage", "unpinChatMessage",
    "deleteMessage",
))


@dataclass(frozen=True)
class Refusal:
    at: float  # the clock's time
    chat_id: int
    method: str
    retry_after: int


@dataclass
class FloodControl:
    per_minute: int = 20
    max_retry_after: int = 60
    clock: Callable[[], float] = time.monotonic
    long_rate: float = 0.0
    seed: int = 0
    spurious_rate: float = 0.0
    accepted: dict[int, list[float]] = field(default_factory=dict)  # group -> times of its accepted calls
    refusals: list[Refusal] = field(default_factory=list)
    closed: dict[int, float] = field(default_factory=dict)  # chat -> until when every call is refused

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    @staticmethod
    def chat_of(method: str, chat_id: Any) -> int | None:
        """The chat a call posts in (None: a call this model does not limit)."""
        if method.lower() not in LIMITED:
            return None
        try:
            return int(chat_id)
        except (TypeError, ValueError):
            return None

    def refuse(self, method: str, chat_id: Any) -> int | None:
        """None if the call may go now; else the retry_after Telegram answers (the refusal is recorded)."""
        chat = self.chat_of(method, chat_id)
        if chat is None:
            return None
        now = self.clock()
        wait: float | None = None
        if self.closed.get(chat, 0.0) > now:
            wait = self.closed[chat] - now
        elif self.spurious_rate and self.rng.random() < self.spurious_rate:
            wait = self.rng.randint(1, self.max_retry_after)
        elif chat < 0:
            times = self.accepted.get(chat, [])
            recent = times[bisect.bisect_right(times, now - WINDOW):]
            if len(recent) >= self.per_minute:
                wait = recent[len(recent) - self.per_minute] + WINDOW - now
                if self.long_rate and self.rng.random() < self.long_rate:
                    wait = self.rng.uniform(wait, max(wait, self.max_retry_after))
        if wait is None:
            return None
        seconds = min(max(1, math.ceil(wait - 1e-9)), self.max_retry_after)
        self.closed[chat] = max(self.closed.get(chat, 0.0), now + seconds)
        self.refusals.append(Refusal(now, chat, method, seconds))
        return seconds

    def accept(self, method: str, chat_id: Any) -> None:
        """A call that went through: it counts in its group's window."""
        chat = self.chat_of(method, chat_id)
        if chat is not None and chat < 0:
            bisect.insort(self.accepted.setdefault(chat, []), self.clock())

    def busiest(self, chat_id: int) -> int:
        """The most calls the group accepted in any 60 seconds."""
        times = self.accepted.get(chat_id, [])
        return max((bisect.bisect_left(times, t + WINDOW) - i for i, t in enumerate(times)), default=0)

    @property
    def longest(self) -> int:
        """The longest retry_after answered so far (0: none)."""
        return max((r.retry_after for r in self.refusals), default=0)


def flood_payload(retry_after: int) -> dict[str, Any]:
    """Telegram's answer to a call over the limit."""
    return {"ok": False, "error_code": 429, "description": f"Too Many Requests: retry after {retry_after}",
            "parameters": {"retry_after": retry_after}}
