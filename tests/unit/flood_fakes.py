"""The unit harness with Telegram's flood control: the real ``TelegramIO`` (its 429 policy: short waits
waited out inline, longer ones reported) over a stand-in Bot that applies ``localdev.flood.FloodControl``
and then shows the operation in the chats of a ``RecordingIO``; flush timers on a ``FakeScheduler``,
fired when due; a clock the test moves (an inline wait moves it too). Nothing sleeps.

``FloodIO.log`` keeps every operation that reached a chat, with its time on the test clock (the group's
busiest minute is measured from it). Message ids count per chat (1, 2, ...), as on Telegram.
"""
from __future__ import annotations

import asyncio
import contextvars
import random
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from telegram.error import BadRequest, Forbidden, RetryAfter

from gamebot.botapi.telegram_io import Btn, Out, TelegramIO
from gamebot.core.service import Service
from gamebot.storage.effects import Budget
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from gamebot.timing.policy import DEFAULT_LIMITS
from gamebot.timing.scheduler import FakeScheduler, Timer
from localdev import updates as U
from localdev.autoplay import Policy
from localdev.flood import WINDOW, FloodControl
from tests.reliability.support import RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, RecordingIO

# The operation TelegramIO is making: its labels (tag, essential, recipient) go with what the Bot gets.
CURRENT: contextvars.ContextVar[Out | None] = contextvars.ContextVar("flood_current", default=None)
GROUP_OPS = ("send", "edit", "markup", "photo", "pin", "delete")


@dataclass(frozen=True)
class Arrived:
    at: float
    out: Out  # as it reached the chat (an edit that fell back to a send is a send)
    message_id: int | None


def buttons(markup: Any) -> list[list[Btn]] | None:
    if markup is None:
        return None
    return [[Btn(b.text, b.callback_data, b.url) for b in row] for row in markup.inline_keyboard]


class ChatBot:
    """Stands in for ``telegram.Bot`` under ``TelegramIO``: flood control, then the chats of ``io``."""

    def __init__(self, io: FloodIO) -> None:
        self.io = io

    async def _do(self, method: str, op: str, chat_id: int | None, **fields: Any) -> Any:
        await asyncio.sleep(0)  # a call takes a moment: other chats' calls go meanwhile
        flood = self.io.flood
        wait = flood.refuse(method, chat_id) if flood is not None else None
        if wait is not None:
            raise RetryAfter(wait)
        label = CURRENT.get() or Out(op)
        out = Out(op, chat_id=chat_id, essential=label.essential, user_id=label.user_id, tag=label.tag,
                  view=label.view, seq=label.seq, live=label.live, remember=label.remember, **fields)
        result = self.io.apply(out)
        if result.error == "forbidden":
            raise Forbidden("Forbidden: bot was blocked by the user")
        if result.error:
            raise BadRequest(result.detail or "Bad Request: message to edit not found")
        if flood is not None:
            flood.accept(method, chat_id)
        return SimpleNamespace(message_id=result.message_id)

    async def send_message(self, chat_id: int, text: str, parse_mode: Any = None, reply_markup: Any = None,
                           link_preview_options: Any = None) -> Any:
        return await self._do("sendMessage", "send", chat_id, text=text, keyboard=buttons(reply_markup))

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, parse_mode: Any = None,
                                reply_markup: Any = None, link_preview_options: Any = None) -> Any:
        return await self._do("editMessageText", "edit", chat_id, text=text, message_id=message_id,
                              keyboard=buttons(reply_markup))

    async def edit_message_reply_markup(self, chat_id: int, message_id: int, reply_markup: Any = None) -> Any:
        return await self._do("editMessageReplyMarkup", "markup", chat_id, message_id=message_id,
                              keyboard=buttons(reply_markup))

    async def send_photo(self, chat_id: int, photo: Any, caption: str | None = None, parse_mode: Any = None,
                         reply_markup: Any = None) -> Any:
        return await self._do("sendPhoto", "photo", chat_id, text=caption, photo=photo.input_file_content,
                              keyboard=buttons(reply_markup))

    async def pin_chat_message(self, chat_id: int, message_id: int, disable_notification: bool = False) -> Any:
        return await self._do("pinChatMessage", "pin", chat_id, message_id=message_id)

    async def delete_message(self, chat_id: int, message_id: int) -> Any:
        return await self._do("deleteMessage", "delete", chat_id, message_id=message_id)

    async def answer_callback_query(self, callback_query_id: str, text: str | None = None, show_alert: bool = False,
                                    url: str | None = None) -> Any:
        return await self._do("answerCallbackQuery", "answer", None, callback_id=callback_query_id, text=text,
                              alert=show_alert, url=url)


class FloodIO(RecordingIO):
    """``RecordingIO`` reached through the real ``TelegramIO`` and a Bot with (optional) flood control."""

    def __init__(self, clock: Any, flood: FloodControl | None = None) -> None:
        super().__init__()
        self.clock = clock
        self.flood = flood
        self.telegram = TelegramIO(bot=ChatBot(self), sleep=self.sleep)
        self.log: list[Arrived] = []
        self.waits: list[float] = []  # 429s waited out inside an update (TelegramIO's short waits)
        self.lost_replies: list[dict[str, Any]] = []  # webhook replies Telegram refused (nobody is told)
        self._ids: dict[int, int] = {}

    async def sleep(self, seconds: float) -> None:
        until = self.clock.now + seconds
        self.waits.append(seconds)
        await asyncio.sleep(0)
        self.clock.now = max(self.clock.now, until)

    async def run(self, outs: list[Out]) -> list[Any]:
        results = []
        for out in outs:
            token = CURRENT.set(out)
            try:
                results += await self.telegram.run([out])
            finally:
                CURRENT.reset(token)
        return results

    def apply(self, out: Out) -> Any:
        if out.op in ("send", "photo") and out.chat_id is not None:
            self._next = self._ids.get(out.chat_id, 0)  # message ids count per chat
            result = super().apply(out)
            self._ids[out.chat_id] = self._next
        else:
            result = super().apply(out)
        if result.ok and out.op != "answer":
            self.log.append(Arrived(self.clock(), out, result.message_id))
        return result

    def respond(self, method: dict[str, Any] | None) -> None:
        """Telegram performs the webhook's reply, under its flood control like any call."""
        if method and self.flood is not None:
            wait = self.flood.refuse(method.get("method", ""), method.get("chat_id"))
            if wait is not None:
                self.lost_replies.append(method)
                return
            self.flood.accept(method.get("method", ""), method.get("chat_id"))
        super().respond(method)

    # --- what arrived ---------------------------------------------------------------------------------
    def group_times(self, chat_id: int = GROUP) -> list[float]:
        """When each of the group's sends, edits, photos and pins reached it."""
        return sorted(a.at for a in self.log if a.out.chat_id == chat_id and a.out.op in GROUP_OPS)


def busiest_minute(times: list[float]) -> int:
    """The most operations in any 60 seconds (a sliding window)."""
    times = sorted(times)
    best, first = 0, 0
    for last, t in enumerate(times):
        while times[first] <= t - WINDOW:
            first += 1
        best = max(best, last - first + 1)
    return best


class FloodHarness(Harness):
    """``Harness`` with ``FloodIO`` (``flood``: FloodControl's settings, None: no flood control), a
    FakeScheduler whose flush timers fire when due, and the service's group ``budget``."""

    def __init__(self, seed: int = 7, flood: dict[str, Any] | None = None, budget: Budget | None = None) -> None:
        super().__init__(seed=seed)
        self.sched = FakeScheduler()
        self.flood = FloodControl(clock=self.clock, **flood) if flood is not None else None
        self.io = FloodIO(self.clock, self.flood)
        self.service = Service(self.repo, self.io, self.codec, bot_username=U.BOT_USERNAME, seeds=random.Random(seed),
                               clock=self.clock, scheduler=self.sched, budget=budget)
        self.flushes = 0

    def send(self, update: dict[str, Any]) -> int:
        self.fire_due()
        return super().send(update)

    def next_flush(self) -> Timer | None:
        """The chat's alarm when it wakes the chat for what waits in the outbox; None when it waits for
        the time limit's reminder or expiry (players here act in time) or nothing is pending."""
        pending = self.sched.pending()
        if not pending:
            return None
        d = Session.from_body(self.repo.items[chat_key(GROUP)].body).deadline
        if d is not None and pending[0].at >= (d.remind_at if d.remind_at and not d.reminded else d.due):
            return None
        return pending[0]

    def fire(self, timer: Timer) -> None:
        self.sched.timers.remove(timer)
        self.clock.now = max(self.clock.now, timer.at)
        self.flushes += 1
        self.loop.run_until_complete(self.service.timers.fire(timer.payload))

    def fire_due(self) -> None:
        """The flush timers due by now fire."""
        while (timer := self.next_flush()) is not None and timer.at <= self.clock.now:
            self.fire(timer)

    def idle(self, chat_id: int | None = None) -> bool:
        """Nobody acts until the next flush timer fires. False when none is left."""
        timer = self.next_flush()
        if timer is None:
            return False
        self.fire(timer)
        return True

    def outbox(self, chat_id: int = GROUP) -> Any:
        return Session.from_body(self.repo.items[chat_key(chat_id)].body).outbox

    def drain(self, limit: int = 500) -> None:
        """Time passes until every flush timer has fired; then nothing may wait in the outbox."""
        for _ in range(limit):
            if not self.idle():
                break
        box = self.outbox()
        assert not box.effects, f"left in the outbox with no flush timer: {box.effects}"


class FloodScreen(HarnessScreen):
    """The screen the players read; when none of them can act, time passes to the next flush timer."""

    def idle(self) -> bool:
        return self.h.idle()


def game_settings(repo: Any, theme: str, roles: list[str], options: dict[str, Any]) -> None:
    """The game's settings (the host's settings panel), without time limits: the players here act in
    time, but Telegram's flood control may hold the table up for minutes, after which a reminder would
    be due (what the alarm does then is tested in tests/unit/test_gamebot_timers.py)."""
    set_settings(repo, GROUP, theme, roles, options)
    item = repo.get(chat_key(GROUP))
    session = Session.from_body(item.body)
    session.settings.timers.limits = {phase: 0 for phase in DEFAULT_LIMITS}
    repo.put(Item(key=item.key, body=session.body()), item.version)


def play(setup: tuple, seed: int, flood: dict[str, Any] | None = None, budget: Budget | None = None) -> FloodHarness:
    """A whole game of ``setup`` (theme, players, characters, options), one action a second, played by
    people reading their chats (``RobustDriver``); in the end everything that waited is delivered."""
    theme, n, roles, options = setup
    h = FloodHarness(seed=seed, flood=flood, budget=budget)
    players = list(range(1, n + 1))
    h.lobby(players)
    h.settings_at = len(h.sent)
    game_settings(h.repo, theme, roles, options)
    h.press_label(players[0], GROUP, "Start")

    def status(user: int, chat: int) -> int:
        where = U.group(chat) if chat < 0 else U.private(h.user(user))
        return h.send(U.command(where, h.user(user), "/status"))

    h.driver = RobustDriver(FloodScreen(h), GROUP, players, Policy(rng=random.Random(seed), fail_rate=0.4),
                            status=status)
    h.driver.play()
    h.drain()
    return h
