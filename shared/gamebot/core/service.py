"""Update handling: Telegram update -> handler (``gamebot.core.dispatch``) -> unit of work -> the effects it stored, delivered.

Every update that changes a game runs as one attempt of the unit of work (``gamebot.outbox.uow``): read the
chat's session (one read), let a handler decide (``gamebot.handlers``: lobby, settings, play, prompts,
membership, commands, language, statistics, votes, nextgame; ``gamebot.handlers.timekeeper``), and write
the session back with a condition on the version read, recording the update id in the same write (so a
redelivered update is recognised and applied once). On a conflict the attempt is re-run from a fresh read. Bot API calls are
made only after the commit, so an error there never causes a second application.

Steady play costs one read and one write per vote or quest card: those updates only edit messages
whose ids are already stored (or the message the button sits on) and send new ones whose ids need not
be remembered. Quest cards are played from the group's round message (``gamebot.messages.round_message``).
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial

from telegram import Update

from gamebot.botapi import inbound
from gamebot.botapi.bot_name import BotName
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import TelegramIO
from gamebot.compose import follow_up, redraw
from gamebot.compose.context import Deps, lang_of
from gamebot.core import metrics
from gamebot.core.dispatch import dispatch
from gamebot.environment import ARCHIVE_DAYS
from gamebot.handlers import nextgame, statistics
from gamebot.handlers.handling import Job, respond, transient
from gamebot.handlers.timekeeper import Timers
from gamebot.language import texts
from gamebot.outbox.courier import Courier
from gamebot.outbox.plan import Plan, Reply  # noqa: F401 (Reply: also read from here)
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage import idle_record, recovery
from gamebot.storage.effects import Budget, Effect
from gamebot.storage.session import DamagedSession
from gamebot.storage.store import JsonValue, Repository
from gamebot.timing.scheduler import Scheduler

log = logging.getLogger("gamebot.core.service")


@dataclass
class Answer:
    """What the webhook answers Telegram: the HTTP status and, if any, one Bot API method that Telegram
    performs itself (the answer to a button, a one-message reply): no round trip of ours."""

    status: int
    method: dict[str, JsonValue] | None = None


class Service:
    """The entry point: one update (``handle_update``) or one timer (``self.timers.fire``, a
    ``gamebot.handlers.timekeeper.Timers``) at a time, handed to the handlers (``gamebot.core.dispatch``)
    with their dependencies (``deps``)."""

    def __init__(
        self,
        repo: Repository,
        io: TelegramIO,
        codec: Codec,
        bot_username: str | BotName = "",
        clock: Callable[[], float] = time.time,
        seeds: random.Random | None = None,
        archive_days: float = ARCHIVE_DAYS,
        scheduler: Scheduler | None = None,
        budget: Budget | None = None,
    ) -> None:
        """``seeds``: optional ``random.Random`` for game seeds (tests); otherwise ``secrets``.
        ``archive_days``: how long a finished game's archive item lives before DynamoDB's TTL deletes it.
        ``scheduler``: a ``gamebot.timing.scheduler.Scheduler`` for phase timers (None: no time limits).
        ``bot_username``: for deep links; a ``bot_name.BotName`` asks Telegram only when one is rendered."""
        self.deps = deps = Deps(repo=repo, io=io, codec=codec, bot_username=bot_username, clock=clock, seeds=seeds,
                                archive_days=archive_days, scheduler=scheduler)
        self.timers = Timers(deps)
        self.uow = deps.uow = UnitOfWork(
            repo, clock, plan_timers=self.timers.plan, arm=self.timers.arm, photo=follow_up.outbox_photo,
            settle=follow_up.settle, refresh=partial(redraw.refresh, deps), budget=budget, upgrade=recovery.move_out)
        self.courier = deps.courier = Courier(
            self.uow, io, schedule=self.timers.dispatch, follow_up=partial(follow_up.follow_up, deps),
            mark_blocked=lambda user_id: deps.mark_user(user_id, blocked=True),
            tally=partial(tally, deps), notify=partial(nextgame.notify, deps))

    def set_clock(self, clock: Callable[[], float]) -> None:
        """Use ``clock`` for time everywhere (tests that move time)."""
        self.deps.clock = clock
        self.uow.clock = clock

    @property
    def repo(self) -> Repository:
        return self.deps.repo

    @repo.setter
    def repo(self, value: Repository) -> None:  # (tests swap the repository: the unit of work follows)
        self.deps.repo = value
        self.uow.repo = value

    @property
    def io(self) -> TelegramIO:
        return self.deps.io

    @property
    def codec(self) -> Codec:
        return self.deps.codec

    @property
    def clock(self) -> Callable[[], float]:
        return self.deps.clock

    @clock.setter
    def clock(self, value: Callable[[], float]) -> None:  # the handlers' clock only (``set_clock``: the unit of work's too)
        self.deps.clock = value

    @property
    def bot_username(self) -> str | BotName:
        return self.deps.bot_username

    @property
    def seeds(self) -> random.Random | None:
        return self.deps.seeds

    @seeds.setter
    def seeds(self, value: random.Random | None) -> None:
        self.deps.seeds = value

    async def wake(self, payload: dict[str, JsonValue]) -> str:
        """A chat's wake-up (``functions/timer``): what is due is done (``Timers.fire``). The AI seats' next
        move, if it planned one, is the chat's next wake-up: no invocation waits for it."""
        return await self.timers.fire(payload, Job(update=None, update_id=None))

    # ------------------------------------------------------------------------------------------------
    # Entry point
    # ------------------------------------------------------------------------------------------------

    def reading_ahead(self, data: dict[str, JsonValue]) -> AbstractContextManager[None]:
        """Around the handling of ``data``: a button of the running game has its group's session read
        while the update is parsed (``inbound.read_ahead``, ``Repository.prefetching``)."""
        return self.repo.prefetching(inbound.read_ahead(data, self.codec))

    async def handle(self, data: dict[str, JsonValue]) -> int:
        """Process one update; the HTTP status for Telegram (see ``handle_update`` for the answer)."""
        return (await self.handle_update(data)).status

    async def handle_update(self, data: dict[str, JsonValue], checked: bool = False) -> Answer:
        """Process one update (the webhook's JSON): the status and the method to return to Telegram.
        ``checked``: the caller found nothing wrong with its shape already (``inbound.refusal``). The
        answer comes once the update's own step is delivered: an AI seat's move it planned is the chat's next
        wake-up (``gamebot.timing.wakeup``), never waited for here."""
        problem = None if checked else inbound.refusal(data)  # checked before anything reads or stores it
        update = None
        if problem is None:
            try:
                update = Update.de_json(inbound.essentials(data), getattr(self.deps.io, "bot", None))
            except Exception as exc:  # e.g. a date out of range: not an update Telegram would send
                problem = f"not understood ({type(exc).__name__})"
        if update is None or not well_formed(update):
            # a redelivery would fail the same way: 200, nothing stored, nothing sent
            metrics.outcome("ignored")
            log.warning("ignored a malformed update: %s", problem or "fields missing")
            return Answer(200)
        job = Job(update=update, update_id=update.update_id)
        try:
            await dispatch(self.deps, job)
            return Answer(200, job.response)
        except DamagedSession as exc:  # a clear answer (to a button or a command) until /cancel closes it
            metrics.outcome("error")
            log.warning("update %s: %s", job.update_id, exc)
            u = update
            if u.callback_query is not None or (u.message is not None and (u.message.text or "").startswith("/")):
                respond(job, Plan(answer=texts.t("damaged.notice", lang_of(u.effective_user)), alert=True))
            return Answer(200, job.response)
        except Exception as exc:
            metrics.outcome("error")
            log.exception("update %s failed (%s)", job.update_id, "after commit" if job.committed else "before commit")
            retry = not job.committed and transient(exc)
            if job.callback_id and not retry:
                respond(job, Plan(answer=texts.t("error.generic", lang_of(update.effective_user))))
            # Only ask Telegram to redeliver when nothing was committed and a retry may help (storage
            # unavailable, throttled, contention), or when what was committed is not delivered yet. A bug
            # would fail again on every redelivery: 200.
            return Answer(500) if retry else Answer(200, job.response)


def tally(deps: Deps, effect: Effect) -> None:
    """An outbox entry counted in the store after the commit: a finished game in the statistics, or a
    game's timeouts in the group's idle record."""
    if effect.op == "idle":
        idle_record.count(deps.repo, effect)
    else:
        statistics.tally(deps, effect)


def well_formed(u: Update) -> bool:
    """The fields the handlers rely on are there (Telegram always sends them; a forger may not)."""
    if u.callback_query is not None:
        return u.callback_query.from_user is not None
    if u.message is not None:
        return u.message.chat is not None
    if u.my_chat_member is not None:
        m = u.my_chat_member
        return None not in (m.chat, m.new_chat_member, m.old_chat_member)
    return True
