"""Test doubles for the bot layer: a recording ``TelegramIO`` and a tiny driver that plays through
``Service.handle`` by reading the recorded chats and pressing their buttons, like a person would.

``RecordingIO`` keeps every chat's messages (sent, then edited in place) so a test can look at what
each chat shows now and at the full history of texts a chat was ever shown.
"""
from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Out, Result
from gamebot.core.service import Service
from gamebot.language.markup import require, require_plain
from gamebot.storage.store import FakeRepository
from localdev import updates as U

GROUP = -1001000000001
TOKEN = "123456:TEST-TOKEN"


@dataclass
class Msg:
    chat_id: int
    message_id: int
    text: str
    keyboard: list[list[Btn]] | None = None
    history: list[str] = field(default_factory=list)
    photo: bytes | None = None  # a photo message: ``text`` is its caption


def _rows(keyboard: list[list[Btn]] | None) -> list[list[tuple[str, str | None, str | None]]]:
    return [[(b.text, b.data, b.url) for b in row] for row in keyboard or []]


class RecordingIO:
    """Stands in for ``TelegramIO``: records every operation and simulates the chats."""

    bot = None

    def __init__(self) -> None:
        self.outs: list[Out] = []
        self.msgs: dict[tuple[int, int], Msg] = {}
        self.order: list[tuple[int, int]] = []
        self.answers: list[Out] = []
        self.forbidden: set[int] = set()  # users who blocked the bot
        self.admins: set[int] = set()
        self.photo_error: str | None = None  # e.g. "bad_request": every sendPhoto fails so
        self.cannot_pin = False  # the bot is not an admin of the group: pinChatMessage fails
        self.deleted: list[tuple[int, int]] = []  # (chat, message id) of every message the bot deleted
        self._next = 500

    async def run(self, outs: list[Out]) -> list[Result]:
        for out in outs:  # the texts ``TelegramIO`` takes: markup for HTML, plain text for a button's answer
            if out.op in ("send", "edit", "photo"):
                require(out.text, out.op)
            elif out.op == "answer":
                require_plain(out.text, out.op)
        return [self.apply(out) for out in outs]

    def apply(self, out: Out) -> Result:
        """One operation, recorded and shown in its chat."""
        self.outs.append(out)
        if out.op == "answer":
            self.answers.append(out)
            return Result(out, True)
        if out.user_id in self.forbidden or (out.chat_id in self.forbidden):
            return Result(out, False, error="forbidden")
        if out.op == "photo" and self.photo_error:
            return Result(out, False, error=self.photo_error)
        if out.op == "pin" and self.cannot_pin:
            return Result(out, False, error="bad_request", detail="not enough rights to pin")
        if out.op in ("send", "photo"):
            self._next += 1
            m = Msg(out.chat_id, self._next, out.text or "", out.keyboard, [out.text or ""], out.photo)
            self.msgs[(out.chat_id, self._next)] = m
            self.order.append((out.chat_id, self._next))
            return Result(out, True, self._next)
        if out.op == "delete":
            if self.msgs.pop((out.chat_id, out.message_id), None) is None:
                return Result(out, True, out.message_id, error="gone")  # (Telegram: not found, taken as done)
            self.order.remove((out.chat_id, out.message_id))
            self.deleted.append((out.chat_id, out.message_id))
            return Result(out, True, out.message_id)
        if out.op in ("edit", "markup"):
            m = self.msgs.get((out.chat_id, out.message_id))
            if m is None:
                return Result(out, False, error="bad_request")
            if (out.op == "markup" or out.text == m.text) and _rows(out.keyboard) == _rows(m.keyboard):
                return Result(out, True, out.message_id)  # Telegram: "message is not modified" (counts as done)
            if out.op == "edit":
                m.text = out.text
                m.history.append(out.text)
            m.keyboard = out.keyboard
            return Result(out, True, out.message_id)
        return Result(out, True, out.message_id)

    def respond(self, method: dict[str, Any] | None) -> None:
        """Perform the Bot API method the webhook answered with, as Telegram does."""
        if not method:
            return
        name = method.get("method")
        if name == "answerCallbackQuery":
            out = Out("answer", callback_id=method.get("callback_query_id"), text=method.get("text"),
                      alert=bool(method.get("show_alert")), url=method.get("url"), tag="answer")
        elif name == "sendMessage":
            out = Out("send", chat_id=method.get("chat_id"), text=method.get("text"), tag="reply")
        elif name == "editMessageText":
            out = Out("edit", chat_id=method.get("chat_id"), message_id=method.get("message_id"),
                      text=method.get("text"), tag="reply")
        else:
            raise AssertionError(f"unexpected webhook answer {name}")
        self.apply(out)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return user_id in self.admins

    # --- reading the chats -----------------------------------------------------------------------
    def chat(self, chat_id: int) -> list[Msg]:
        return [self.msgs[k] for k in self.order if k[0] == chat_id]

    def texts(self, chat_id: int) -> list[str]:
        """Every text the chat was ever shown (sends and edits)."""
        return [t for m in self.chat(chat_id) for t in m.history]

    def photos(self, chat_id: int) -> list[Msg]:
        return [m for m in self.chat(chat_id) if m.photo is not None]

    def last(self, chat_id: int) -> Msg:
        return self.chat(chat_id)[-1]

    def with_button(self, chat_id: int, contains: str) -> tuple[Msg, Btn] | None:
        """The newest message in the chat with a button whose label contains ``contains``."""
        for m in reversed(self.chat(chat_id)):
            for row in m.keyboard or []:
                for b in row:
                    if contains in b.text and b.data:
                        return m, b
        return None


T0 = 1_800_000_000.0


class Clock:
    """A clock the test moves (the service's ``clock``)."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Harness:
    """Service + FakeRepository + RecordingIO, driven by update dicts from ``localdev.updates``.

    Updates arrive ``pace`` seconds apart on the service's clock (one action per second by default, the
    brisk pace the group's budget of messages per minute is meant for)."""

    pace = 1.0

    def __init__(self, group: int = GROUP, seed: int = 7) -> None:
        self.repo = FakeRepository()
        self.io = RecordingIO()
        self.codec = Codec(TOKEN)
        self.clock = Clock()
        self.service = Service(self.repo, self.io, self.codec, bot_username=U.BOT_USERNAME, seeds=random.Random(seed),
                               clock=self.clock)
        self.group = group
        self.loop = asyncio.new_event_loop()
        self.langs: dict[int, str | None] = {}  # user id -> Telegram language_code (default "en")
        self.sent: list[dict[str, Any]] = []  # every update delivered, in order
        self._paced: set[Any] = set()

    def close(self) -> None:
        self.loop.close()

    def user(self, user_id: int) -> dict[str, Any]:
        return U.user(user_id, language_code=self.langs.get(user_id, "en"))

    def send(self, update: dict[str, Any]) -> int:
        self.sent.append(update)
        key = repr(update.get("update_id")) if isinstance(update, dict) else None
        if key not in self._paced:  # (a redelivery comes back to the same moment)
            self._paced.add(key)
            self.clock.now += self.pace
        answer = self.loop.run_until_complete(self.service.handle_update(update))
        self.io.respond(answer.method)  # the method answered to the webhook: Telegram performs it
        return answer.status

    def idle(self, chat_id: int | None = None) -> bool:
        """Time passes with nobody acting: what waits in the chat's outbox (the group's budget, flood
        control) goes out when due, as the flush timer would deliver it. True if something went out."""
        from gamebot.storage.session import Session, chat_key

        chat = self.group if chat_id is None else chat_id
        # (a waiting entry may find the budget still full at its time: wait again; a view held back
        # earlier may name a time already past while an essential edit waits for a later one: a second
        # at a time until then)
        for _ in range(90):
            item = self.repo.items.get(chat_key(chat))
            if item is None:
                return False
            box = Session.from_body(item.body).outbox
            if not box.effects and not box.dirty:
                return False
            due = box.next_due()
            if due is not None:
                self.clock.now = max(self.clock.now, due)
            self.clock.now += self.pace
            plan = self.service.uow.resume(chat)
            if self.loop.run_until_complete(self.service.courier.deliver(plan)):
                return True
        return False

    def command(self, user_id: int, text: str, chat_id: int | None = None) -> int:
        """``user_id`` sends ``text`` in the group (default) or, with ``chat_id=user_id``, in private."""
        chat_id = self.group if chat_id is None else chat_id
        chat = U.group(chat_id) if chat_id < 0 else U.private(self.user(user_id))
        return self.send(U.command(chat, self.user(user_id), text))

    def press(self, user_id: int, msg: Msg, data: str) -> int:
        m = U.message(msg.chat_id, msg.message_id, msg.text)
        return self.send(U.press(self.user(user_id), m, data))

    def press_label(self, user_id: int, chat_id: int, contains: str) -> int:
        found = self.io.with_button(chat_id, contains)
        assert found is not None, f"no button {contains!r} in chat {chat_id}"
        msg, btn = found
        return self.press(user_id, msg, btn.data)

    def last_answer(self) -> Out:
        return self.io.answers[-1]

    def race_before_next_write(self, update: dict[str, Any]) -> None:
        """Another container handles ``update`` and commits between our next read and our next write
        of the group's session (then the write conflicts, and the attempt reloads and retries)."""
        import threading

        from gamebot.storage.session import chat_key

        original_put = self.repo.put
        raced: list[bool] = []

        def put(item, expect):
            if not raced and item.key == chat_key(self.group):
                raced.append(True)
                other = Service(self.repo, self.io, self.codec, bot_username=U.BOT_USERNAME)
                loop = asyncio.new_event_loop()
                t = threading.Thread(target=lambda: loop.run_until_complete(other.handle(update)))
                t.start()
                t.join()
                loop.close()
            return original_put(item, expect)

        self.repo.put = put

    def lobby(self, players: list[int], host: int | None = None, join: str = "Join") -> None:
        """Everyone opens the private chat, the host sends /newgame, the others press Join."""
        host = players[0] if host is None else host
        for uid in players:
            self.send(U.start(self.user(uid)))
        self.send(U.command(U.group(self.group), self.user(host), "/newgame"))
        for uid in players:
            if uid != host:
                self.press_label(uid, self.group, join)


class HarnessScreen:
    """``localdev.autoplay.Screen`` over a :class:`Harness` (for unit-level full games)."""

    def __init__(self, harness: Harness) -> None:
        self.h = harness

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        out = []
        for m in self.h.io.chat(chat_id):
            buttons = [[{"text": b.text, "data": b.data, "url": b.url} for b in row] for row in (m.keyboard or [])]
            out.append({"message_id": m.message_id, "text": m.text, "buttons": buttons})
        return out

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> Any:
        return self.h.press(user_id, self.h.io.msgs[(chat_id, message_id)], data)

    def idle(self) -> bool:
        return self.h.idle()


def session(h: Harness, chat: int = GROUP) -> Any:
    """The chat's session as stored now (``gamebot.storage.session.Session``)."""
    from gamebot.storage.session import Session, chat_key

    return Session.from_body(h.repo.items[chat_key(chat)].body)
