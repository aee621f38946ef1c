"""A per-player throttle for floods of presses and commands: in memory, per container, before anything
reads storage.

The webhook asks it about every update once the update's shape is checked (``gamebot.botapi.inbound``) and
before a button's chat is read ahead (``Service.reading_ahead``): a throttled update costs no DynamoDB
request and no Bot API call of ours. A throttled press is answered with a short toast in the presser's
language (their Telegram app's: the throttle reads nothing, so it cannot know a language chosen with
/language) through the webhook's reply; a throttled command is ignored, with one short notice in its chat
at most once a minute per player (also the webhook's reply). Anything else (a plain message in a group,
the bot's membership) is never counted.

Each player (Telegram user id) has a token bucket: ``BURST`` presses or commands at once, refilled at
``PER_SECOND``. A real player never reaches it: the longest run of taps in the game is the Leader picking
a team of 5 and proposing it (6 taps) or a Plot card's choice and its player and Confirm (3), each answered
by an edit the player waits to see; and nobody taps twice a second for long in a turn-based game (after a
burst, one tap every half second still passes). A script pressing as fast as it can gets about 2 updates
a second through to the service, whatever it sends.

A Lambda container handles one update at a time and is kept warm between updates, so the bucket of a
flooding player lives as long as the flood hits the same container (a flood spread over new containers
is spread thin by Lambda's own concurrency). The table keeps the ``MAX_PLAYERS`` players seen last
(an active flooder is always among them); older ones are forgotten, which only gives them a full bucket.

A redelivered update (Telegram sends an update again when the first answer was a 500 or came too late)
is the same press, not a second one: each bucket remembers the ids of the last ``REMEMBERED`` updates it
admitted, and one of them comes through again without taking a token.
"""
from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gamebot.language import texts
from gamebot.storage.store import JsonValue

BURST = 10  # presses or commands a player may send at once
PER_SECOND = 2.0  # ...and then, sustained
NOTICE_EVERY = 60.0  # seconds between two notices of throttled commands to one player
MAX_PLAYERS = 10_000  # players remembered per container (a bucket is about 100 bytes, plus its ids)
REMEMBERED = 16  # update ids a bucket keeps of what it admitted (a redelivery comes within minutes)


@dataclass
class Bucket:
    tokens: float
    at: float  # when ``tokens`` was counted
    noticed: float | None = None  # when the last notice of a throttled command was given
    admitted: deque[int] = field(default_factory=lambda: deque(maxlen=REMEMBERED))  # update ids let through


@dataclass
class Throttled:
    """A throttled update: the method the webhook answers with (None: just 200)."""

    method: dict[str, JsonValue] | None = None


class Throttle:
    """The buckets of the players this container has seen (see the module's docstring)."""

    def __init__(self, burst: int = BURST, per_second: float = PER_SECOND,
                 clock: Callable[[], float] = time.monotonic, size: int = MAX_PLAYERS) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self.size = size
        self.buckets: OrderedDict[int, Bucket] = OrderedDict()
        self.stats = {"admitted": 0, "throttled": 0}

    def allow(self, user_id: int, update_id: int | None = None) -> bool:
        """Take one token of ``user_id``'s bucket; False when it is empty. ``update_id``: an update this
        bucket let through already passes again, taking nothing (a redelivery)."""
        now = self.clock()
        bucket = self.buckets.get(user_id)
        if bucket is not None and update_id is not None and update_id in bucket.admitted:
            self.buckets.move_to_end(user_id)
            self.stats["admitted"] += 1
            return True
        if bucket is None:
            bucket = self.buckets[user_id] = Bucket(tokens=float(self.burst), at=now)
            while len(self.buckets) > self.size:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(user_id)
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
            bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            self.stats["admitted"] += 1
            if update_id is not None:
                bucket.admitted.append(update_id)
            return True
        self.stats["throttled"] += 1
        return False

    def check(self, data: dict[str, Any]) -> Throttled | None:  # (open JSON: checked by inbound.refusal)
        """None: ``data`` (an update whose shape ``inbound.refusal`` accepted) goes on; else how the webhook
        answers it, having done nothing else."""
        update_id = data.get("update_id")
        update_id = update_id if isinstance(update_id, int) else None
        query = data.get("callback_query")
        if isinstance(query, dict):
            user = query["from"]
            if self.allow(user["id"], update_id):
                return None
            text = texts.t("throttle.press", texts.lang_for(user.get("language_code"), texts.DEFAULT_LANG))
            return Throttled({"method": "answerCallbackQuery", "callback_query_id": query["id"], "text": text})
        message = data.get("message")
        if not isinstance(message, dict) or not str(message.get("text") or "").startswith("/"):
            return None
        user = message.get("from")
        if not isinstance(user, dict) or self.allow(user["id"], update_id):
            return None
        bucket = self.buckets[user["id"]]
        now = self.clock()
        if bucket.noticed is not None and now - bucket.noticed < NOTICE_EVERY:
            return Throttled()
        bucket.noticed = now
        text = texts.t("throttle.command", texts.lang_for(user.get("language_code"), texts.DEFAULT_LANG))
        return Throttled({"method": "sendMessage", "chat_id": message["chat"]["id"], "text": text,
                          "reply_parameters": {"message_id": message["message_id"],
                                               "allow_sending_without_reply": True}})
