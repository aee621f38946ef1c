"""What every handler needs (:class:`Deps`: the repository and unit of work, the Bot API, the clock, the
button codec, the bot's name, the time limits' scheduler) and the small reads they share: a chat's
session, a user's record, the table a message is drawn for, a person's language.

Built once per :class:`gamebot.core.service.Service` and handed to the handlers; nothing here points back
up to the service.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gamebot.botapi.bot_name import BotName
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import TelegramIO
from gamebot.environment import ARCHIVE_DAYS
from gamebot.language import texts
from gamebot.language.markup import plain, shorten
from gamebot.messages.table import Table
from gamebot.outbox.courier import Courier
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage import recovery
from gamebot.storage.seats import is_ai_seat_id
from gamebot.storage.session import PLAYING, DamagedSession, Player, Session, UserRecord, chat_key, user_key
from gamebot.storage.store import Item, Repository, retrying
from gamebot.timing.policy import running
from gamebot.timing.scheduler import Scheduler

GROUP_TYPES = ("group", "supergroup")
MAX_PLAYERS = 10


class Person(Protocol):
    """Who wrote or pressed: a ``telegram.User`` (the fields read here), or a stand-in of the playground."""

    @property
    def id(self) -> int: ...
    @property
    def first_name(self) -> str: ...
    @property
    def last_name(self) -> str | None: ...
    @property
    def username(self) -> str | None: ...
    @property
    def language_code(self) -> str | None: ...


def display_name(user: Person) -> str:
    name = (user.first_name or "").strip() or (user.username or "") or str(user.id)
    if user.last_name:
        name += f" {user.last_name.strip()[:1]}."
    return shorten(name, 32)


def own_lang(user: Person, rec: UserRecord | None = None) -> str:
    """The language a person reads in private wherever they play: the one they chose with ``/language``
    in the bot's private chat (``UserRecord.chosen_lang``), else their Telegram app's if a catalog speaks
    it; "" when neither (then each group's)."""
    chosen = rec.chosen_lang if rec is not None else ""
    return chosen if texts.supported(chosen) else texts.lang_for(getattr(user, "language_code", None), "")


def lang_of(user: Person | None, s: Session | None = None) -> str:
    """A person's language: their seat's in ``s`` when they have one (what they chose, else their app's:
    ``Player.lang``), else their Telegram app's if a catalog speaks it, else the group's."""
    seat = s.seat_of(user.id) if s is not None and user is not None else None
    if s is not None and seat is not None and texts.supported(s.players[seat].lang):
        return s.players[seat].lang
    fallback = s.lang if s is not None and texts.supported(s.lang) else texts.DEFAULT_LANG
    return texts.lang_for(getattr(user, "language_code", None), fallback)


def seated(s: Session | None, user_id: int) -> bool:
    """Does ``user_id`` have a seat in the game running in ``s``?"""
    return s is not None and s.status == PLAYING and s.seat_of(user_id) is not None


def player_lang(s: Session, seat: int) -> str:
    """Private messages follow the player's own language (chosen in private, else their Telegram app's)
    when we speak it, else the group's."""
    lang = s.players[seat].lang
    return lang if texts.supported(lang) else s.lang


@dataclass
class Deps:
    """The handlers' dependencies. ``scheduler``: the phase timers' scheduler (None: no time limits);
    ``seeds``: a ``random.Random`` for game seeds (tests), else ``secrets``. ``uow`` and ``courier`` are
    built with these dependencies (their callbacks read them), so they are set right after, by whoever
    builds them (``gamebot.core.service.Service``): not arguments, and unset until then."""

    repo: Repository
    io: TelegramIO
    codec: Codec
    bot_username: str | BotName = ""
    clock: Callable[[], float] = time.time
    seeds: random.Random | None = None
    archive_days: float = ARCHIVE_DAYS
    scheduler: Scheduler | None = None
    uow: UnitOfWork = field(init=False, repr=False, compare=False)  # the unit of work the handlers commit through
    courier: Courier = field(init=False, repr=False, compare=False)  # sends what the unit of work committed

    def table(self, session: Session, lang: str | None = None) -> Table:
        """The table messages about ``session`` are drawn for (``lang``: default the group's)."""
        theme = session.settings.theme
        state = session.game()  # (None: no game stored)
        if state is not None:
            theme = state.config.theme.value
        limit = running(session, self.clock()) if self.scheduler is not None else None
        return Table(
            chat_id=session.chat_id,
            game_id=session.game_id or "",
            # (a practice table's name, "Practice", in the language it is read in: it may change)
            title=plain(texts.t("practice.title", lang or session.lang)) if session.practice else session.title,
            lang=lang or session.lang,
            theme=theme,
            names=session.names(),
            user_ids=[p.id for p in session.players],
            bot_username=self.bot_username,
            limit=limit.limit if limit is not None else 0,
            due=limit.due if limit is not None else None,
            practice=session.practice,
        )

    def load(self, chat_id: int) -> tuple[Session | None, int | None]:
        item = self.repo.get(chat_key(chat_id))
        if item is None:
            return None, None
        return Session.from_body(item.body), item.version

    def load_user(self, user_id: int) -> tuple[UserRecord, int | None]:
        item = self.repo.get(user_key(user_id))
        if item is None:
            return UserRecord(id=user_id), None
        return recovery.user_record(user_id, item.body), item.version

    def mark_user(self, user_id: int, update_id: int | None = None, **changes: Any) -> UserRecord | None:
        """Update the user's record. With ``update_id``: None if that update was already applied (a
        redelivery), else it is recorded in the same write."""

        def attempt() -> UserRecord | None:
            rec, version = self.load_user(user_id)
            if update_id is not None and update_id in rec.seen:
                return None
            rec = rec.model_copy(update=changes)
            if update_id is not None:
                rec.mark_seen(update_id)
            self.repo.put(Item(key=user_key(user_id), body=rec.body()), version)
            return rec

        return retrying(attempt)

    def private_lang(self, user: Person, s: Session | None = None) -> str:
        """The language of a reply to ``user`` in the bot's private chat: their seat's in ``s``, else the
        one they chose there (their record: one read), else their app's, else ``s``'s group's."""
        if s is not None and s.seat_of(user.id) is not None:
            return lang_of(user, s)
        return own_lang(user, self.load_user(user.id)[0]) or lang_of(user, s)

    def split_reachable(self, s: Session) -> tuple[list[Player], list[Player]]:
        """The lobby's players the bot can message privately, and the others (every record in one read).
        AI seats have no record and need no message: always kept."""
        found = self.repo.get_many([user_key(p.id) for p in s.players if not is_ai_seat_id(p.id)])
        keep: list[Player] = []
        dropped: list[Player] = []
        for p in s.players:
            item = found.get(user_key(p.id))
            reachable = is_ai_seat_id(p.id) or (item is not None and recovery.user_record(p.id, item.body).reachable)
            (keep if reachable else dropped).append(p)
        return keep, dropped

    def active_elsewhere(self, rec: UserRecord, chat_id: int) -> Session | None:
        """The other group's session whose active game this user is in (pointers are checked lazily)."""
        if rec.chat is None or rec.chat == chat_id:
            return None
        try:
            other, _ = self.load(rec.chat)
        except DamagedSession:  # that group's own updates say so; it keeps nobody from playing here
            return None
        if other is None or not other.active or other.game_id != rec.game_id or other.seat_of(rec.id) is None:
            return None
        return other

    def group_of(self, user_id: int) -> Session | None:
        """The session of the group this user last played or joined in (two reads)."""
        rec, _ = self.load_user(user_id)
        return self.load(rec.chat)[0] if rec.chat is not None else None
