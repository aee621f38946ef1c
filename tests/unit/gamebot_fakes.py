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

from gamebot.callbacks import Codec
from gamebot.render import Btn
from gamebot.service import Service
from gamebot.store import FakeRepository
from gamebot.telegram_io import Out, Result
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
        self._next = 500

    async def run(self, outs: list[Out]) -> list[Result]:
        results = []
        for out in outs:
            self.outs.append(out)
            if out.op == "answer":
                self.answers.append(out)
                results.append(Result(out, True))
            elif out.user_id in self.forbidden or (out.chat_id in self.forbidden):
                results.append(Result(out, False, error="forbidden"))
            elif out.op == "send":
                self._next += 1
                m = Msg(out.chat_id, self._next, out.text, out.keyboard, [out.text])
                self.msgs[(out.chat_id, self._next)] = m
                self.order.append((out.chat_id, self._next))
                results.append(Result(out, True, self._next))
            elif out.op in ("edit", "markup"):
                m = self.msgs.get((out.chat_id, out.message_id))
                if m is None:
                    results.append(Result(out, False, error="bad_request"))
                    continue
                if out.op == "edit":
                    m.text = out.text
                    m.history.append(out.text)
                m.keyboard = out.keyboard
                results.append(Result(out, True, out.message_id))
            else:
                results.append(Result(out, True, out.message_id))
        return results

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return user_id in self.admins

    # --- reading the chats -----------------------------------------------------------------------
    def chat(self, chat_id: int) -> list[Msg]:
        return [self.msgs[k] for k in self.order if k[0] == chat_id]

    def texts(self, chat_id: int) -> list[str]:
        """Every text the chat was ever shown (sends and edits)."""
        return [t for m in self.chat(chat_id) for t in m.history]

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


class Harness:
    """Service + FakeRepository + RecordingIO, driven by update dicts from ``localdev.updates``."""

    def __init__(self, group: int = GROUP, seed: int = 7) -> None:
        self.repo = FakeRepository()
        self.io = RecordingIO()
        self.codec = Codec(TOKEN)
        self.service = Service(self.repo, self.io, self.codec, bot_username=U.BOT_USERNAME, seeds=random.Random(seed))
        self.group = group
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        self.loop.close()

    def send(self, update: dict[str, Any]) -> int:
        return self.loop.run_until_complete(self.service.handle(update))

    def press(self, user_id: int, msg: Msg, data: str) -> int:
        m = U.message(msg.chat_id, msg.message_id, msg.text)
        return self.send(U.press(U.user(user_id), m, data))

    def press_label(self, user_id: int, chat_id: int, contains: str) -> int:
        found = self.io.with_button(chat_id, contains)
        assert found is not None, f"no button {contains!r} in chat {chat_id}"
        msg, btn = found
        return self.press(user_id, msg, btn.data)

    def last_answer(self) -> Out:
        return self.io.answers[-1]

    def lobby(self, players: list[int], host: int | None = None) -> None:
        """Everyone opens the private chat, the host sends /newgame, the others press Join."""
        host = players[0] if host is None else host
        for uid in players:
            self.send(U.start(U.user(uid)))
        self.send(U.command(U.group(self.group), U.user(host), "/newgame"))
        for uid in players:
            if uid != host:
                self.press_label(uid, self.group, "Join")


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
