"""One update being handled (:class:`Job`) and the steps every handler shares: run a decision in the
unit of work (:func:`transact`), answer and deliver (:func:`finish`), and the usual checks.

Bot API calls are made only after the commit, so an error there never causes a second application.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram import CallbackQuery, Chat, ChatMemberUpdated, Message, Update, User

from engine import GameState
from gamebot.botapi.telegram_io import Out, Result, response_method
from gamebot.compose.context import GROUP_TYPES, Deps, lang_of
from gamebot.compose.follow_up import picture_out
from gamebot.language import texts
from gamebot.language.markup import plain
from gamebot.messages.table import MAX_TEXT
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage import lifetimes
from gamebot.storage.session import DamagedSession, Session
from gamebot.storage.store import Item, VersionConflict

log = logging.getLogger("gamebot.core.service")


class MissingPart(LookupError):
    """The update lacks a part its handler relies on. ``gamebot.core.dispatch`` hands each handler only
    updates that have it, so this is a bug (handled as any other: logged, answered 200)."""


@dataclass
class Job:
    """One update being handled (``update`` None: a timer).

    The parts a handler may rely on, by what ``gamebot.core.dispatch`` guarantees (each accessor raises
    :class:`MissingPart` otherwise): a command has its ``message``, its ``chat`` (private, a group or a
    supergroup) and its sender (``user``); a button has its ``query`` and the presser (``user``), but
    not always a chat (the message it sits on may be gone: ``query.message``); a change of the bot's
    membership has its ``my_chat_member`` (and ``chat``, ``user``). A timer's job has none of them."""

    update: Update | None
    update_id: int | None
    committed: bool = False
    callback_id: str | None = None
    answered: bool = False
    reply: Out | None = None  # the update's answer, in the webhook's reply (``response``)

    @property
    def response(self) -> dict[str, Any] | None:
        """``reply`` as the Bot API method returned in the webhook's answer (None: nothing to return)."""
        r = self.reply
        if r is None:
            return None
        if r.op == "answer":
            return response_method("answer", callback_id=r.callback_id, text=r.text, alert=r.alert, url=r.url)
        return response_method("send", chat_id=r.chat_id, text=r.text)

    @property
    def message(self) -> Message:
        """A command's message (``dispatch.on_message``: commands come in messages)."""
        return self._part(self.update.message if self.update is not None else None, "message")

    @property
    def chat(self) -> Chat:
        """The chat a command, or a change of the bot's membership, came from (not for a button)."""
        return self._part(self.update.effective_chat if self.update is not None else None, "chat")

    @property
    def user(self) -> User:
        """Who sent the command (``dispatch.on_message`` hands on only a command with its sender), pressed
        the button (``service.well_formed``) or changed the bot's membership."""
        return self._part(self.update.effective_user if self.update is not None else None, "user")

    @property
    def query(self) -> CallbackQuery:
        """The pressed button (``dispatch.on_callback``: every button's handler)."""
        return self._part(self.update.callback_query if self.update is not None else None, "callback query")

    @property
    def my_chat_member(self) -> ChatMemberUpdated:
        """The change of the bot's membership (``dispatch``: ``membership.on_my_chat_member``)."""
        return self._part(self.update.my_chat_member if self.update is not None else None, "my_chat_member")

    def _part[T](self, part: T | None, name: str) -> T:
        if part is None:
            raise MissingPart(f"update {self.update_id} has no {name}" if self.update is not None
                              else f"a timer's job has no {name}")
        return part


def reply_lang(job: Job, s: Session | None = None, deps: Deps | None = None) -> str:
    """Replies in a group speak the group's language; in private, the user's (else their group's).
    ``deps`` given: a private reply also follows the language the user chose there (their record).
    For a command or a button (``job.user``); a button whose message is gone has no chat."""
    chat = job.update.effective_chat if job.update is not None else None
    if chat is not None and chat.type in GROUP_TYPES and s is not None and texts.supported(s.lang):
        return s.lang
    if deps is not None and chat is not None and chat.type == "private":
        return deps.private_lang(job.user, s)
    return lang_of(job.user, s)


def transact(deps: Deps, job: Job, chat_id: int, decide: Callable[[Session | None], Plan]) -> Plan:
    """Run ``decide(session) -> Plan`` in the unit of work (version-checked write, effects stored)."""
    user = job.update.effective_user if job.update is not None else None
    plan: Plan = deps.uow.commit(job.update_id, chat_id, decide, user_id=user.id if user is not None else None)
    if plan.early:  # refused when it was first handled (a redelivery): refused again, nothing applied
        plan.answer = texts.t("error.early", lang_of(user, plan.step.session if plan.step else None))
    if plan.step is not None and plan.step.committed:
        job.committed = True
    return plan


def respond(job: Job, plan: Plan) -> None:
    """The answer of this update that goes back in the webhook's reply (a method Telegram performs):
    the answer to the pressed button (its plain text: a toast or an alert shows no HTML), or a
    one-message reply to a command (the markup, as HTML)."""
    if job.reply is not None or job.update is None:
        return
    if job.callback_id and not job.answered:
        job.reply = Out("answer", callback_id=job.callback_id, text=plain(plan.answer)[:200] or None,
                        alert=plan.alert, url=plan.url, tag="answer")
        job.answered = True
    elif plan.answer and not job.callback_id and job.update.effective_chat is not None:
        chat = job.update.effective_chat.id
        if len(plan.answer) <= MAX_TEXT and not any(o.chat_id == chat for o in plan.outs):
            job.reply = Out("send", chat_id=chat, text=plan.answer, tag="reply", essential=False)
        else:
            plan.outs.insert(0, Out("send", chat_id=chat, text=plan.answer, tag="reply", essential=False))
        plan.answer = None


async def finish(deps: Deps, job: Job, plan: Plan) -> list[Result]:
    """Answer the update and deliver what the plan sends (committed: through the unit of work)."""
    respond(job, plan)
    committed = plan.step is not None and plan.step.committed
    if (not job.callback_id and not committed and (job.reply is not None or plan.picture is not None
                                                   or any(o.op != "answer" for o in plan.outs))
            and job.update_id is not None and not claim(deps, job.update_id)):  # (a timer has no update to claim)
        job.reply = None  # a command already answered: Telegram redelivered it
        return []
    if plan.step is not None:
        delivered: list[Result] = await deps.courier.deliver(plan)
        return delivered
    outs = [o for o in plan.outs if o.op != "answer"]
    if plan.picture is not None:  # (no session to keep it in: drawn and sent now)
        photo = picture_out(*plan.picture)
        if photo is not None:
            outs.append(photo)
    return await deps.io.run(outs) if outs else []


def claim(deps: Deps, update_id: int) -> bool:
    """Record that this update (a command whose answer nothing else records) is answered: False if
    it already was. One conditional write; the record expires after a day (Telegram gives up
    redelivering long before). A storage failure answers anyway: twice is better than never."""
    try:
        key = f"update#{update_id}"  # (a day on the service's clock: lifetimes)
        deps.repo.put(Item(key=key, body={}, expires_at=lifetimes.expiry(key, deps.clock())), None)
    except VersionConflict:
        return False
    except Exception:
        log.warning("could not record that update %s is answered", update_id)
    return True


def check_game(s: Session | None, game_id: str, status: str, lang: str) -> Session:
    """The session, if the pressed button belongs to its current game in ``status``; else out of date."""
    if s is None or s.game_id != game_id or s.status != status:
        raise Reply(texts.t("error.stale", lang), final=True)  # (that game never comes back to ``status``)
    return s


def game_of(s: Session) -> GameState:
    """The game running in ``s``: a session playing always keeps its state (``lobby.launch`` stores both);
    one that does not is damaged."""
    state = s.game()
    if state is None:
        raise DamagedSession(s.chat_id)
    return state


def host_check(s: Session, user: User) -> None:
    if user.id != s.host:
        host = next((p.name for p in s.players if p.id == s.host), "?")
        raise Reply(texts.t("lobby.only_host", lang_of(user, s), host=host), alert=True)


def transient(exc: BaseException) -> bool:
    """Errors a redelivery may get past: storage conflicts, AWS throttling and failures on AWS's side or the
    network's (our client's retryable ``AWSError``, or any botocore/boto3/urllib3 error of an injected client)."""
    from gamebot.aws.client import (
        AWSError,  # (our AWS client: not needed by the tests' in-memory repository)
    )

    if isinstance(exc, VersionConflict | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, AWSError):
        return exc.retryable
    module = type(exc).__module__ or ""
    return module.startswith(("botocore", "boto3", "urllib3"))
