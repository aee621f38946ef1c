"""The ONLY module that talks to the Telegram Bot API (python-telegram-bot v22 ``telegram.Bot``; and
``get_me_username``, one synchronous ``getMe`` for a bot run without its username: see ``bot_name``).

The service describes what to do as a list of :class:`Out` operations; :meth:`TelegramIO.run` executes
them in order and reports each one's :class:`Result`. Failure policy:

* 429 ``RetryAfter``: a short wait (at most ``INLINE_WAIT`` seconds) is waited out and the call tried
  again, as long as the update's time budget allows, however many times Telegram says so; a longer
  one is reported (``retry_after``): the delivery keeps an outbox entry waiting and holds back a progress
  edit of a message it knows (to go out as that message then stands), the chat's alarm sends them when
  Telegram allows (``gamebot.outbox.courier``); other progress is dropped.
* 403 ``Forbidden`` on a private chat: reported as ``forbidden`` so the service marks the user
  unreachable and tells the group how to fix it.
* 400 "message is not modified": ignored (counts as done). An essential edit whose message is gone
  can fall back to sending a new message (``fallback_send``).
* timeouts / network errors: an essential send, photo or edit is tried once more at once; then it is
  reported (``network``), and the delivery tries an outbox entry again later (``courier.GIVE_UP`` times
  at most).

Errors are logged without the token or the webhook secret (PTB never puts the token in messages).

Texts: a message, an edit and a photo's caption are sent with ``parse_mode=HTML`` and must be markup
(``gamebot.language.markup.Html``): a plain ``str`` is refused (``markup.NotMarkup``) before anything is sent, so
user text that was never escaped cannot reach Telegram as HTML. The answer to a button press takes plain
text (``markup.plain`` of the markup), and markup is refused there.
"""
from __future__ import annotations

import asyncio
import datetime as dtm
import json
import logging
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from gamebot import observe
from gamebot.environment import adopt_timedeltas
from gamebot.language.markup import Html, plain, require, require_plain
from gamebot.storage.store import JsonValue

log = logging.getLogger("gamebot.telegram")
adopt_timedeltas()  # python-telegram-bot's periods as its next major version gives them

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass(frozen=True)
class Btn:
    """An inline button. Its label is plain text: a markup label becomes what it shows (a name in it
    raw again, never escaped)."""

    text: str
    data: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.text, Html):
            object.__setattr__(self, "text", plain(self.text))


Keyboard = list[list[Btn]]

OutOp = Literal["send", "edit", "markup", "answer", "photo", "pin", "unpin", "delete", "stats", "idle", "nextgame"]
"""What an :class:`Out` does. Bot API calls: ``send``, ``edit`` (text and buttons), ``markup`` (the buttons
only), ``answer`` (a button press), ``photo`` (``photo`` bytes, ``text`` the caption), ``pin``, ``unpin``,
``delete``. The outbox's entries that are no Bot API call (``gamebot.storage.effects.EffectOp``) stand as
operations too when a delivery reports on them: ``stats`` and ``idle`` (counted in the store), ``nextgame``
(the /nextgame subscribers told)."""


@dataclass
class Out:
    """One Bot API call the service wants made."""

    op: OutOp
    chat_id: int | None = None
    text: str | None = None
    keyboard: list[list[Btn]] | None = None
    message_id: int | None = None
    essential: bool = True
    user_id: int | None = None  # private recipient: a 403 marks this user unreachable
    remember: str | None = None  # store the sent message id in the session under this name
    fallback_send: bool = False  # an edit whose message is gone is sent anew
    callback_id: str | None = None
    alert: bool = False
    url: str | None = None
    tag: str | None = None  # free label for tests and logs (e.g. "board", "vote", "role")
    photo: bytes | None = None  # a PNG to upload (op "photo")
    live: int | None = None  # the decision (serial) whose buttons this message carries, if any
    picture: str | None = None  # op "photo" from the outbox: the last game's picture in this language
    seq: int | None = None  # the outbox entry this operation delivers (None: progress, never stored)
    view: str | None = None  # the group message this edit keeps current ("board", "vote"): progress coalesces
    expires_with: str | None = None  # a reminder of this time limit (``policy.key``): deleted once it is over

    def has_buttons(self) -> bool:
        """Whether the message will carry buttons."""
        return bool(self.keyboard)

    def draw(self) -> None:
        """Draw now what is drawn when first read (``DrawnLater``); an operation built drawn has nothing to do."""


Drawing = Callable[[], tuple[Html, "list[list[Btn]] | None"]]  # (a group message's text: markup)


class DrawnLater(Out):
    """A progress edit of a group message kept current (``view``) whose text and buttons are drawn
    when first read: the group's budget holds most progress back, and what is held back is drawn again,
    as it then stands, by the edit that carries it later. ``buttons``: whether it carries any (known
    without drawing it). A value set replaces what the drawing gives; the constructor's None does not."""

    def __init__(self, draw: Drawing, buttons: bool, **fields: Any) -> None:
        self._draw: Drawing | None = draw
        self._drawn: tuple[str, list[list[Btn]] | None] | None = None
        self.buttons = buttons
        super().__init__("edit", essential=False, **fields)

    def _content(self) -> tuple[str, list[list[Btn]] | None]:
        if self._drawn is None:
            assert self._draw is not None
            self._drawn, self._draw = self._draw(), None
        return self._drawn

    @property
    def text(self) -> str:
        return self._content()[0]

    @text.setter
    def text(self, value: str | None) -> None:
        if value is not None:
            self._drawn = (value, self._content()[1])

    @property
    def keyboard(self) -> list[list[Btn]] | None:
        return self._content()[1]

    @keyboard.setter
    def keyboard(self, value: list[list[Btn]] | None) -> None:
        if value is not None:
            self._drawn = (self._content()[0], value)

    def has_buttons(self) -> bool:
        return self.buttons

    def draw(self) -> None:
        self._content()


@dataclass
class Result:
    out: Out
    ok: bool
    message_id: int | None = None
    error: str | None = None  # "forbidden" | "gone" | "retry_after" | "not_modified" | "bad_request" | "network" | "telegram"
    detail: str = ""


def markup(keyboard: list[list[Btn]] | None) -> InlineKeyboardMarkup | None:
    if keyboard is None:
        return None
    rows = [
        [
            InlineKeyboardButton(b.text, url=b.url) if b.url else InlineKeyboardButton(b.text, callback_data=b.data)
            for b in row
        ]
        for row in keyboard
    ]
    return InlineKeyboardMarkup(rows)


def get_me_username(token: str, base_url: str, timeout: float = 5.0) -> str:
    """The bot's username from ``getMe``, synchronously (for ``bot_name.BotName``, which is read while a
    message is rendered, outside any coroutine). Raises on any failure; the error never holds the token."""
    request = urllib.request.Request(f"{base_url.rstrip('/')}/bot{token}/getMe", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read())
    except Exception as exc:
        observe.current().bot_api_failed(None)
        raise TelegramError(f"getMe failed ({type(exc).__name__})") from None
    result = answer.get("result") if isinstance(answer, dict) and answer.get("ok") else None
    return str(result.get("username") or "") if isinstance(result, dict) else ""


def _seconds(value: dtm.timedelta | float) -> float:
    """A period as python-telegram-bot gives it (a timedelta: ``environment.adopt_timedeltas``), in seconds."""
    if isinstance(value, dtm.timedelta):
        return value.total_seconds()
    return float(value)


def _given[T](value: T | None, missing: str) -> T:
    """A parameter the Bot API method requires. Without it Telegram refuses the call (400, ``missing`` its
    description): refused here the same way (the same error, as python-telegram-bot raises it), without
    the round trip."""
    if value is None:
        raise BadRequest(f"Bad Request: {missing}")
    return value


NO_CHAT, NO_MESSAGE, NO_TEXT = "chat_id is empty", "message identifier is not specified", "message text is empty"
NO_QUERY = "query is too old and response timeout expired or query ID is invalid"


def error_code(exc: TelegramError) -> int | None:
    """The Bot API's error code of ``exc``, where python-telegram-bot's type says it (429, 403, 400); else
    None (the network, a timeout, another error)."""
    for kind, code in ((RetryAfter, 429), (Forbidden, 403), (BadRequest, 400)):
        if isinstance(exc, kind):
            return code
    return None


INLINE_WAIT = 3.0  # seconds of a 429 worth waiting for inside the update; longer: the outbox waits


def response_method(op: Literal["answer", "send"], chat_id: int | None = None, text: str | None = None,
                    callback_id: str | None = None, alert: bool = False, url: str | None = None
                    ) -> dict[str, JsonValue]:
    """A Bot API call as a webhook reply (Telegram performs it once it has our answer): ``answer`` a
    button press (plain text), or ``send`` one message (markup: a plain ``str`` is refused)."""
    if op == "answer":
        method: dict[str, JsonValue] = {"method": "answerCallbackQuery", "callback_query_id": callback_id}
        text = require_plain(text, "answerCallbackQuery")
        if text:
            method["text"] = text
        if alert:
            method["show_alert"] = True
        if url:
            method["url"] = url
        return method
    text = str(require(text, "sendMessage"))
    return {"method": "sendMessage", "chat_id": chat_id, "text": text, "parse_mode": "HTML",
            "link_preview_options": {"is_disabled": True}}


@dataclass
class TelegramIO:
    bot: Bot
    wait_budget: float = 20.0  # seconds an update may spend waiting on short 429s in total
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    stats: dict[str, int] = field(default_factory=lambda: {"calls": 0, "errors": 0, "dropped": 0})

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as exc:
            observe.current().bot_api_failed(error_code(exc))
            log.warning("getChatMember failed: %s", type(exc).__name__)
            return False
        return member.status in ("creator", "administrator")

    async def run(self, outs: list[Out]) -> list[Result]:
        results = []
        deadline = time.monotonic() + self.wait_budget
        for out in outs:
            results.append(await self._one(out, deadline))
        return results

    async def _call(self, out: Out) -> int | None:
        self.stats["calls"] += 1
        if out.op == "send":
            text = require(out.text, "sendMessage")  # (plain text fails loudly, before anything else)
            msg = await self.bot.send_message(
                chat_id=_given(out.chat_id, NO_CHAT),
                text=_given(text, NO_TEXT),
                parse_mode=ParseMode.HTML,
                reply_markup=markup(out.keyboard),
                link_preview_options=NO_PREVIEW,
            )
            return msg.message_id
        if out.op == "edit":
            await self.bot.edit_message_text(
                text=_given(require(out.text, "editMessageText"), NO_TEXT),
                chat_id=out.chat_id,
                message_id=out.message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup(out.keyboard),
                link_preview_options=NO_PREVIEW,
            )
            return out.message_id
        if out.op == "markup":
            await self.bot.edit_message_reply_markup(
                chat_id=out.chat_id, message_id=out.message_id, reply_markup=markup(out.keyboard)
            )
            return out.message_id
        if out.op == "answer":
            answer = require_plain(out.text, "answerCallbackQuery")
            await self.bot.answer_callback_query(
                callback_query_id=_given(out.callback_id, NO_QUERY), text=answer, show_alert=out.alert,
                url=out.url or None
            )
            return None
        if out.op == "photo":
            caption = require(out.text, "sendPhoto")
            msg = await self.bot.send_photo(
                chat_id=_given(out.chat_id, NO_CHAT),
                photo=InputFile(out.photo or b"", filename="game.png"),
                caption=caption,
                parse_mode=ParseMode.HTML,
                reply_markup=markup(out.keyboard),
            )
            return msg.message_id
        if out.op == "pin":
            await self.bot.pin_chat_message(chat_id=_given(out.chat_id, NO_CHAT),
                                            message_id=_given(out.message_id, NO_MESSAGE), disable_notification=True)
            return out.message_id
        if out.op == "delete":
            await self.bot.delete_message(chat_id=_given(out.chat_id, NO_CHAT),
                                          message_id=_given(out.message_id, NO_MESSAGE))
            return out.message_id
        if out.op == "unpin":
            await self.bot.unpin_chat_message(chat_id=_given(out.chat_id, NO_CHAT), message_id=out.message_id)
            return out.message_id
        raise ValueError(f"unknown op {out.op}")

    async def _one(self, out: Out, deadline: float) -> Result:
        tries = 0
        while True:
            tries += 1
            try:
                mid = await self._call(out)
                log.debug("%s (%s) to a %s chat: message %s", out.op, out.tag,
                          "private" if (out.chat_id or 0) > 0 else "group", mid)
                return Result(out, True, mid)
            except RetryAfter as exc:
                observe.current().bot_api_failed(429)
                wait = _seconds(exc.retry_after)
                if out.op == "answer" or wait > INLINE_WAIT or time.monotonic() + wait > deadline:
                    self.stats["dropped"] += 1
                    log.warning("Bot API 429 (flood control) on %s (%s) to a %s chat: retry after %.0f s; %s",
                                out.op, out.tag, "private" if (out.chat_id or 0) > 0 else "group", wait,
                                "not answered" if out.op == "answer" else "it waits in the outbox")
                    return Result(out, False, error="retry_after", detail=str(wait))
                log.info("Bot API 429 (flood control) on %s (%s): waiting %.1f s of retry_after", out.op, out.tag, wait)
                await self.sleep(wait)
                observe.current().retry_after_waited(wait)
            except Forbidden as exc:
                observe.current().bot_api_failed(403)
                self.stats["errors"] += 1
                log.info("forbidden: %s to a %s chat", out.op, "private" if out.user_id else "group")
                return Result(out, False, error="forbidden", detail=exc.message)
            except BadRequest as exc:
                text = exc.message.lower()
                if "not modified" in text:
                    return Result(out, True, out.message_id, error="not_modified")
                if out.op == "delete" and ("not found" in text or "can't be deleted" in text):
                    return Result(out, True, out.message_id, error="gone")  # deleted already (or too old): done
                if out.op == "edit" and out.fallback_send and ("not found" in text or "can't be edited" in text):
                    out = Out(**{**out.__dict__, "op": "send", "message_id": None})
                    continue
                observe.current().bot_api_failed(400)
                self.stats["errors"] += 1
                if out.op != "answer":  # an old callback query can no longer be answered: harmless
                    log.warning("bad request on %s (%s): %s", out.op, out.tag, exc.message)
                return Result(out, False, error="bad_request", detail=exc.message)
            except (TimedOut, NetworkError) as exc:
                observe.current().bot_api_failed(None)
                self.stats["errors"] += 1
                if out.essential and out.op in ("send", "photo", "edit") and tries < 2:  # (an edit cannot show twice)
                    continue
                log.warning("network error on %s (%s): %s", out.op, out.tag, type(exc).__name__)
                return Result(out, False, error="network", detail=type(exc).__name__)
            except TelegramError as exc:
                observe.current().bot_api_failed(error_code(exc))
                self.stats["errors"] += 1
                log.warning("telegram error on %s (%s): %s", out.op, out.tag, type(exc).__name__)
                return Result(out, False, error="telegram", detail=type(exc).__name__)
