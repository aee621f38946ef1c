"""What one attempt of the unit of work decides (:class:`Plan`), what its commit hands to the delivery
(:class:`Step`), and how a decision stops with an answer (:class:`Reply`). Data only: the handlers
build plans, ``gamebot.outbox.uow`` commits them and ``gamebot.outbox.courier`` delivers what a commit
hands on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gamebot.botapi.telegram_io import Out
from gamebot.language.markup import Html, require
from gamebot.storage.effects import Effect
from gamebot.storage.session import Session
from gamebot.storage.store import Write
from gamebot.timing.alarm import Schedule


class Reply(Exception):
    """Stop the attempt and answer with this text. Nothing is written to the chat's item. The text is
    markup: a message's reply to a command, or shown as plain text in a button's toast or alert
    (``gamebot.handlers.handling.respond``). ``final``: the same press could never pass later (its
    decision is over, or it is not the presser's to make, or they made it already), so nothing records it;
    otherwise a refused player is noted apart, in an item of their own (``uow.refusals_key``), so that a
    redelivery of the press gets the same refusal."""

    def __init__(self, text: Html, alert: bool = False, url: str | None = None, final: bool = False) -> None:
        super().__init__(text)
        self.text = require(text, "Reply")
        self.alert = alert
        self.url = url
        self.final = final


@dataclass
class Plan:
    """What one attempt decided: the session to write (None: no write), extra writes, operations."""

    session: Session | None = None
    outs: list[Out] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    answer: Html | None = None  # markup: a command's reply, or a pressed button's toast (its plain text)
    alert: bool = False
    url: str | None = None
    schedule: list[Schedule] = field(default_factory=list)  # scheduler calls once committed (gamebot.timing.alarm)
    fired: bool = False  # the chat's alarm fired and this attempt does what was due (gamebot.handlers.timekeeper)
    picture: tuple[int, dict[str, Any], str] | None = None  # (chat, game summary, language): sent last
    effects: list[Effect] = field(default_factory=list)  # outbox entries that are no Bot API call (statistics)
    version: int | None = None  # the chat item's version once this plan's session is written
    early: bool = False  # refused: this update was refused before, when it was pressed (``uow.refusals_key``)
    step: Step | None = None  # set by ``commit``


@dataclass
class Step:
    """A committed attempt: what to deliver now."""

    chat_id: int
    owner: int  # the update id (0: a timer) that holds the delivery lease
    session: Session | None  # as written (or read, when nothing was written)
    version: int | None
    stored: list[Effect] = field(default_factory=list)  # outbox entries this delivery sends
    took_over: bool = False  # a dead delivery's lease was lifted: worth a write
    direct: list[Out] = field(default_factory=list)  # progress sent now, never stored
    committed: bool = False
