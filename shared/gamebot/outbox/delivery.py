"""What a delivery sends and learns: outbox entries to Bot API operations and back, and what the
answers teach the session (message ids, buttons on screen, players the bot cannot reach).

Used by the unit of work (``gamebot.outbox.uow``) and the courier (``gamebot.outbox.courier``) around each
delivery; no I/O here.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gamebot.botapi.telegram_io import Btn, Out, Result
from gamebot.language.markup import restored
from gamebot.storage.effects import Effect, keyboard_data
from gamebot.storage.session import MAX_REMINDERS, PLAYING, Reminder, Session, serial, with_keyboard


@dataclass
class Facts:
    """What a delivery taught, for the service's follow-up messages."""

    blocked: list[int] = field(default_factory=list)  # users who blocked the bot (403 in private)
    lost: dict[int, set[str]] = field(default_factory=dict)  # user -> prompt kinds that could not be sent
    cannot_pin: bool = False

    @classmethod
    def of(cls, results: list[Result]) -> Facts:
        facts = cls(
            blocked=sorted({r.out.user_id for r in results if r.error == "forbidden" and r.out.user_id}),
            cannot_pin=any(r.out.op == "pin" and not r.ok for r in results),
        )
        for r in results:
            tag = r.out.tag or ""
            if not r.ok and r.error == "bad_request" and r.out.op == "send" and r.out.user_id and (
                    tag == "role" or tag.startswith("prompt:")):
                facts.lost.setdefault(r.out.user_id, set()).add(tag.partition(":")[2])
        return facts


def learn(session: Session, r: Result) -> None:
    """What a successful call tells the session: remembered ids, buttons on screen."""
    out = r.out
    if out.op == "pin":
        session.pinned = out.message_id
    if out.remember and r.message_id and r.message_id != out.message_id:
        setattr(session, out.remember, r.message_id)
    if out.expires_with and r.message_id and out.op == "send":  # a reminder: deleted once its decision is over
        session.reminders = [*session.reminders, Reminder(chat=out.chat_id or 0, msg=r.message_id,
                                                          key=out.expires_with)][-MAX_REMINDERS:]
    if out.live is not None and r.message_id and out.op == "send" and out.chat_id is not None:  # (sent to a chat)
        state = session.game() if session.status == PLAYING else None
        if state is not None and serial(state) == out.live:
            session.keyboards = with_keyboard(session.keyboards, out.chat_id, r.message_id, out.live)
        else:  # the decision ended while its message was on its way: take the buttons away
            session.outbox.add(Effect(seq=0, op="markup", chat=out.chat_id, message_id=r.message_id,
                                      tag="stale"))


def held_back(r: Result) -> bool:
    """Progress (never stored) that Telegram's flood control refused: the edit of a group view (the board,
    the vote) or of a known message (a private prompt's selection, the answered prompt, the buttons taken
    away), which must still go out later: its chat would otherwise keep showing an older state."""
    out = r.out
    return (r.error == "retry_after" and out.seq is None
            and (bool(out.view) or (out.op in ("edit", "markup") and out.message_id is not None)))


def to_effect(out: Out, step: int | None = None, progress: bool = False) -> Effect:
    """``out`` as an outbox entry; ``step``: the step it belongs to (None: an entry on its own); ``progress``:
    progress that must wait here (refused when the outbox is full). An answer to a button press is never
    stored (the unit of work answers it at once): there is no entry for it."""
    if out.op == "answer":
        raise ValueError("an answer to a button press is never stored")
    return Effect(seq=0, op=out.op, chat=out.chat_id or 0, text=out.text, keyboard=keyboard_data(out.keyboard),
                  message_id=out.message_id, user_id=out.user_id, remember=out.remember, live=out.live,
                  fallback_send=out.fallback_send, tag=out.tag or "", picture=out.picture, step=step,
                  expires_with=out.expires_with, progress=progress or None)


def to_out(e: Effect, session: Session | None, photo: Callable[[Session, Effect], Out | None]) -> Out | None:
    """An outbox entry as the Bot API call it stores. Its text was markup when it was stored (``to_effect``
    of an ``Out``, whose texts the Bot API module accepts only as markup): stored as JSON it came back a
    plain string, and is markup again here (``markup.restored``), the one place that may say so."""
    if e.op == "photo":
        out = photo(session, e) if session is not None else None
        if out is not None:
            out.seq = e.seq
        return out
    keyboard = None if e.keyboard is None else [
        [Btn(b["text"], b.get("data"), b.get("url")) for b in row] for row in e.keyboard]
    return Out(e.op, chat_id=e.chat, text=restored(e.text), keyboard=keyboard, message_id=e.message_id, user_id=e.user_id,
               remember=e.remember, live=e.live, fallback_send=e.fallback_send, tag=e.tag, seq=e.seq,
               essential=not e.progress,  # (progress that had to wait behind its chat stays progress)
               expires_with=e.expires_with)
