"""Update handling: Telegram update -> load session -> apply -> version-checked save -> outgoing effects.

Every update that changes a game runs as one attempt under ``store.retrying``: read the chat's session
(one read), apply the update (engine action, lobby change...), and write the session back with a
condition on the version read, recording the update id in the same write (so a redelivered update is
recognised and applied once). On a conflict the attempt is re-run from a fresh read. Bot API calls are
made only after the commit (``TelegramIO.run``), so an error there never causes a second application.

Steady play costs one read and one write per vote or quest card: those updates only edit messages
whose ids are already stored (or the message the button sits on) and send new ones whose ids need not
be remembered. Quest cards are played from the group's round message (``gamebot.round_message``).
"""
from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from telegram import Update

import engine
from engine import (
    Action,
    GameState,
    IllegalAction,
    apply_action,
    new_game,
    prompts,
    public_view,
    validate_config,
    view,
    waiting_for,
)

from . import (
    ending,
    inbound,
    memo,
    recovery,
    render,
    round_message,
    selection,
    settings_check,
    settings_panel,
    texts,
    timers,
    wording,
)
from .bot_name import BotName
from .callbacks import BadCallback, Button, Codec, parse_start_payload
from .effects import Budget
from .extras import Extras
from .render import Table
from .reveal_text import reveal_text
from .session import (
    CANCELLED,
    ENDED,
    LOBBY,
    PLAYING,
    DamagedSession,
    Player,
    Selection,
    Session,
    UserRecord,
    archive_key,
    chat_key,
    kind_tag,
    new_game_id,
    serial,
    user_key,
)
from .steps import Plan, Reply
from .store import Item, Repository, VersionConflict, Write, retrying
from .telegram_io import Out, Result, response_method
from .uow import Facts, UnitOfWork

log = logging.getLogger("gamebot.service")

GROUP_TYPES = ("group", "supergroup")
MAX_PLAYERS = 10
ARCHIVE_DAYS = 30.0


def display_name(user: Any) -> str:
    name = (user.first_name or "").strip() or (user.username or "") or str(user.id)
    if user.last_name:
        name += f" {user.last_name.strip()[:1]}."
    return name[:32]


@dataclass
class Job:
    """One update being handled."""

    update: Update
    update_id: int
    committed: bool = False
    callback_id: str | None = None
    answered: bool = False
    response: dict[str, Any] | None = None  # the Bot API method returned in the webhook's answer


@dataclass
class Answer:
    """What the webhook answers Telegram: the HTTP status and, if any, one Bot API method that Telegram
    performs itself (the answer to a button, a one-message reply): no round trip of ours."""

    status: int
    method: dict[str, Any] | None = None


class Service(Extras):
    def __init__(
        self,
        repo: Repository,
        io: Any,
        codec: Codec,
        bot_username: str | BotName = "",
        clock: Any = time.time,
        seeds: Any = None,
        archive_days: float = ARCHIVE_DAYS,
        scheduler: Any = None,
        budget: Budget | None = None,
    ) -> None:
        """``seeds``: optional ``random.Random`` for game seeds (tests); otherwise ``secrets``.
        ``archive_days``: how long a finished game's archive item lives before DynamoDB's TTL deletes it.
        ``scheduler``: a ``gamebot.scheduler.Scheduler`` for phase timers (None: no time limits).
        ``bot_username``: for deep links; a ``bot_name.BotName`` asks Telegram only when one is rendered."""
        self.seeds = seeds
        self.archive_days = archive_days
        self.repo = repo
        self.io = io
        self.codec = codec
        self.bot_username = bot_username
        self.clock = clock
        self.timers = timers.Timers(self, scheduler)
        self.uow = UnitOfWork(repo, io, clock, plan_timers=self.timers.plan, schedule=self.timers.dispatch,
                              arm=self.timers.arm, follow_up=self._follow_up,
                              photo=self._outbox_photo, settle=self._settle_keyboards, refresh=self._refresh,
                              budget=budget)

    def set_clock(self, clock: Any) -> None:
        """Use ``clock`` for time everywhere (tests that move time)."""
        self.clock = clock
        self.uow.clock = clock

    @property
    def repo(self) -> Repository:
        return self._repo

    @repo.setter
    def repo(self, value: Repository) -> None:  # (tests swap the repository: the unit of work follows)
        self._repo = value
        if getattr(self, "uow", None) is not None:
            self.uow.repo = value

    # ------------------------------------------------------------------------------------------------
    # Entry point
    # ------------------------------------------------------------------------------------------------

    async def handle(self, data: dict[str, Any]) -> int:
        """Process one update; the HTTP status for Telegram (see ``handle_update`` for the answer)."""
        return (await self.handle_update(data)).status

    async def handle_update(self, data: dict[str, Any], checked: bool = False) -> Answer:
        """Process one update (the webhook's JSON): the status and the method to return to Telegram.
        ``checked``: the caller found nothing wrong with its shape already (``inbound.refusal``)."""
        problem = None if checked else inbound.refusal(data)  # checked before anything reads or stores it
        update = None
        if problem is None:
            try:
                update = Update.de_json(inbound.essentials(data), getattr(self.io, "bot", None))
            except Exception as exc:  # e.g. a date out of range: not an update Telegram would send
                problem = f"not understood ({type(exc).__name__})"
        if update is None or not well_formed(update):
            # a redelivery would fail the same way: 200, nothing stored, nothing sent
            log.warning("ignored a malformed update: %s", problem or "fields missing")
            return Answer(200)
        job = Job(update=update, update_id=update.update_id)
        try:
            await self._dispatch(job)
            return Answer(200, job.response)
        except DamagedSession as exc:  # a clear answer (to a button or a command) until /cancel closes it
            log.warning("update %s: %s", job.update_id, exc)
            u = job.update
            if u.callback_query is not None or (u.message is not None and (u.message.text or "").startswith("/")):
                self._respond(job, Plan(answer=texts.t("damaged.notice", self._lang(u.effective_user)), alert=True))
            return Answer(200, job.response)
        except Exception as exc:
            log.exception("update %s failed (%s)", job.update_id, "after commit" if job.committed else "before commit")
            retry = not job.committed and transient(exc)
            if job.callback_id and not retry:
                self._respond(job, Plan(answer=texts.t("error.generic", self._lang(update.effective_user))))
            # Only ask Telegram to redeliver when nothing was committed and a retry may help (storage
            # unavailable, throttled, contention), or when what was committed is not delivered yet. A bug
            # would fail again on every redelivery: 200.
            return Answer(500) if retry else Answer(200, job.response)

    async def _dispatch(self, job: Job) -> None:
        u = job.update
        if u.callback_query is not None:
            job.callback_id = u.callback_query.id
            await self._on_callback(job)
        elif u.message is not None:
            await self._on_message(job)
        elif u.my_chat_member is not None:
            await self._on_my_chat_member(job)
        # every other update type is ignored (200)

    # ------------------------------------------------------------------------------------------------
    # Plumbing: transactions, effects, follow-ups
    # ------------------------------------------------------------------------------------------------

    def _load(self, chat_id: int) -> tuple[Session | None, int | None]:
        item = self.repo.get(chat_key(chat_id))
        if item is None:
            return None, None
        return Session.from_body(item.body), item.version

    def _split_reachable(self, s: Session) -> tuple[list[Player], list[Player]]:
        """The lobby's players the bot can message privately, and the others (every record in one read)."""
        found = self.repo.get_many([user_key(p.id) for p in s.players])
        keep: list[Player] = []
        dropped: list[Player] = []
        for p in s.players:
            item = found.get(user_key(p.id))
            reachable = item is not None and recovery.user_record(p.id, item.body).reachable
            (keep if reachable else dropped).append(p)
        return keep, dropped

    def _load_user(self, user_id: int) -> tuple[UserRecord, int | None]:
        item = self.repo.get(user_key(user_id))
        if item is None:
            return UserRecord(id=user_id), None
        return recovery.user_record(user_id, item.body), item.version

    def _transact(self, job: Job, chat_id: int, decide: Any) -> Plan:
        """Run ``decide(session) -> Plan`` in the unit of work (version-checked write, effects stored)."""
        user = job.update.effective_user if job.update is not None else None
        plan = self.uow.commit(job.update_id, chat_id, decide, user_id=user.id if user is not None else None)
        if plan.step is not None and plan.step.committed:
            job.committed = True
        return plan

    def _settle_keyboards(self, plan: Plan) -> None:
        """Keep the session's list of decision buttons on screen current with this plan's edits, and take
        away the buttons of every decision that has ended (a timeout, a resolved vote, a /status copy)."""
        s = plan.session
        edited = set()
        for out in plan.outs:
            if out.op in ("edit", "markup") and out.message_id and out.chat_id is not None:
                s.track_keyboard(out.chat_id, out.message_id, out.live if out.keyboard else None)
                edited.add((out.chat_id, out.message_id))
        state = s.game() if s.status == PLAYING else None
        current = serial(state) if state is not None else None
        for k in s.ended_keyboards(current):
            if (k.chat, k.msg) not in edited:
                plan.outs.append(Out("markup", chat_id=k.chat, message_id=k.msg, keyboard=None, essential=False,
                                     tag="stale"))

    def _respond(self, job: Job, plan: Plan) -> None:
        """The answer of this update that goes back in the webhook's reply (a method Telegram performs):
        the answer to the pressed button, or a one-message reply to a command."""
        if job.response is not None or job.update is None:
            return
        if job.callback_id and not job.answered:
            job.response = response_method("answer", callback_id=job.callback_id, text=(plan.answer or "")[:200] or None,
                                           alert=plan.alert, url=plan.url)
            job.answered = True
        elif plan.answer and not job.callback_id and job.update.effective_chat is not None:
            chat = job.update.effective_chat.id
            if len(plan.answer) <= render.MAX_TEXT and not any(o.chat_id == chat for o in plan.outs):
                job.response = response_method("send", chat_id=chat, text=plan.answer)
            else:
                plan.outs.insert(0, Out("send", chat_id=chat, text=plan.answer, tag="reply", essential=False))
            plan.answer = None

    async def _finish(self, job: Job, plan: Plan, chat_id: int | None = None) -> list[Result]:
        self._respond(job, plan)
        committed = plan.step is not None and plan.step.committed
        if (not job.callback_id and not committed and (job.response or plan.picture is not None
                                                       or any(o.op != "answer" for o in plan.outs))
                and not self._claim(job.update_id)):
            job.response = None  # a command already answered: Telegram redelivered it
            return []
        if plan.step is not None:
            return await self.uow.deliver(plan)
        outs = [o for o in plan.outs if o.op != "answer"]
        if plan.picture is not None:  # (no session to keep it in: drawn and sent now)
            photo = self._picture_out(*plan.picture)
            if photo is not None:
                outs.append(photo)
        return await self.io.run(outs) if outs else []

    def _claim(self, update_id: int) -> bool:
        """Record that this update (a command whose answer nothing else records) is answered: False if
        it already was. One conditional write; the record expires after a day (Telegram gives up
        redelivering long before). A storage failure answers anyway: twice is better than never."""
        try:
            self.repo.put(Item(key=f"update#{update_id}", body={}, expires_at=int(self.clock()) + 86400), None)
        except VersionConflict:
            return False
        except Exception:
            log.warning("could not record that update %s is answered", update_id)
        return True

    def _refresh(self, s: Session, view: str) -> Out | None:
        """The latest state of a group message kept current (``view``), when its last edit was held back
        by the group's budget: sent by a later update or a flush timer."""
        state = s.game() if s.status == PLAYING or s.status == ENDED else None
        table = self._table(s)
        if view == "board" and s.board_msg and state is not None:
            return Out("edit", chat_id=s.chat_id, message_id=s.board_msg, essential=False, tag="board", view="board",
                       text=memo.board(render.board, table, memo.public(state), "ended" if state.over else "playing"))
        if view == "vote" and state is not None:
            return round_message.refresh(s, table, self.codec, state, memo.public(state))
        if view == "lobby" and s.lobby_msg and s.status == LOBBY:
            text, kb = self._lobby(s)
            return Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, essential=False,
                       tag="lobby", view="lobby")
        return None

    def _outbox_photo(self, s: Session, effect: Any) -> Out | None:
        """The picture of the session's last game, drawn when its outbox entry is delivered."""
        if not s.last:
            return None
        return self._picture_out(effect.chat, dict(s.last), effect.picture or s.lang, essential=True)

    def _follow_up(self, session: Session, facts: Facts) -> list[Out]:
        """Messages a delivery calls for: a player the bot cannot reach any more, a prompt that could not
        be sent, the host told once how to let the bot pin the board. Changes ``session``."""
        for uid in facts.blocked:
            self._mark_user(uid, blocked=True)
        notices: list[Out] = []
        chat_id = session.chat_id
        table = self._table(session)
        if facts.cannot_pin and not session.pin_hint:
            session.pin_hint = True
            host = session.seat_of(session.host) if session.host is not None else None
            notices.append(Out("send", chat_id=chat_id, tag="pin_hint", text=table.t(
                "pin.need_admin", host=table.mention(host) if host is not None else "")))
        if session.active:
            for uid in facts.blocked:
                seat = session.seat_of(uid)
                if seat is None or uid in session.unreachable:
                    continue
                session.unreachable.append(uid)
                notices.append(Out("send", chat_id=chat_id, tag="unreachable",
                                   text=table.t("unreachable", name=table.mention(seat), link=table.deep_link("r"))))
        if session.status == PLAYING and facts.lost:
            hidden = {p.kind for p in session.game().pending if p.hidden}
            for uid, kinds in sorted(facts.lost.items()):
                seat = session.seat_of(uid)
                if seat is None or uid in facts.blocked or uid in session.unreachable or kinds <= hidden:
                    continue  # (the group must not learn that someone has a hidden decision)
                notices.append(Out("send", chat_id=chat_id, tag="undelivered",
                                   text=table.t("undelivered", name=table.mention(seat), link=table.deep_link("r"))))
        return notices

    def _mark_user(self, user_id: int, update_id: int | None = None, **changes: Any) -> UserRecord | None:
        """Update the user's record. With ``update_id``: None if that update was already applied (a
        redelivery), else it is recorded in the same write."""

        def attempt() -> UserRecord | None:
            rec, version = self._load_user(user_id)
            if update_id is not None and update_id in rec.seen:
                return None
            rec = rec.model_copy(update=changes)
            if update_id is not None:
                rec.mark_seen(update_id)
            self.repo.put(Item(key=user_key(user_id), body=rec.body()), version)
            return rec

        return retrying(attempt)

    def _table(self, session: Session, lang: str | None = None) -> Table:
        theme = session.settings.theme
        if session.state:
            theme = session.game().config.theme.value
        return Table(
            chat_id=session.chat_id,
            game_id=session.game_id or "",
            title=session.title,
            lang=lang or session.lang,
            theme=theme,
            names=session.names(),
            user_ids=[p.id for p in session.players],
            bot_username=self.bot_username,
        )

    def _active_elsewhere(self, rec: UserRecord, chat_id: int) -> Session | None:
        """The other group's session whose active game this user is in (pointers are checked lazily)."""
        if rec.chat is None or rec.chat == chat_id:
            return None
        try:
            other, _ = self._load(rec.chat)
        except DamagedSession:  # that group's own updates say so; it keeps nobody from playing here
            return None
        if other is None or not other.active or other.game_id != rec.game_id or other.seat_of(rec.id) is None:
            return None
        return other

    # ------------------------------------------------------------------------------------------------
    # Messages and commands
    # ------------------------------------------------------------------------------------------------

    async def _on_message(self, job: Job) -> None:
        msg = job.update.message
        if msg.migrate_to_chat_id:
            await self._migrate(job, msg.chat.id, msg.migrate_to_chat_id)
            return
        text = msg.text or ""
        if not text.startswith("/") or msg.from_user is None:
            return
        word, _, args = text.partition(" ")
        cmd, _, target = word[1:].partition("@")
        if target and self.bot_username and target.lower() != self.bot_username.lower():
            return  # addressed to another bot
        cmd = cmd.lower()
        private = msg.chat.type == "private"
        handler = {
            "start": self._cmd_start,
            "newgame": self._cmd_newgame,
            "status": self._cmd_status,
            "rules": self._cmd_rules,
            "help": self._cmd_help,
            "cancel": self._cmd_cancel,
            "leave": self._cmd_leave,
            "extend": self.timers.cmd_extend,
            "forcestart": self.timers.cmd_forcestart,
            "idles": self.timers.cmd_idles,
            "stats": self._cmd_stats,
            "history": self._cmd_history,
            "language": self._cmd_language,
        }.get(cmd)
        if handler is None:
            return
        if private and cmd in ("newgame", "cancel", "leave", "extend", "forcestart", "idles"):
            await self._finish(job, Plan(answer=texts.t("error.group_only", self._lang(msg.from_user))))
            return
        if not private and msg.chat.type not in GROUP_TYPES:
            return
        await handler(job, args.strip())

    def _user_lang(self, job: Job) -> str:
        return self._lang(job.update.effective_user)

    async def _cmd_help(self, job: Job, args: str) -> None:
        chat = job.update.effective_chat
        session = self._load(chat.id)[0] if chat.type in GROUP_TYPES else None
        lang = self._reply_lang(job, session)
        lines = [texts.t("help.title", lang), "", texts.t("help.body", lang), "", texts.t("help.commands", lang)]
        from .commands import commands as command_menu  # only for /help: not at cold start

        for name, description in command_menu(lang):
            lines.append(texts.t("help.command_line", lang, command=name, description=render.esc(description)))
        languages = ", ".join(texts.language_name(code) for code in texts.languages())
        lines += ["", texts.t("help.languages", lang, languages=render.esc(languages))]
        await self._finish(job, Plan(answer="\n".join(lines)))

    async def _cmd_rules(self, job: Job, args: str) -> None:
        chat = job.update.effective_chat
        session = None
        if chat.type in GROUP_TYPES:
            session, _ = self._load(chat.id)
        elif job.update.effective_user:
            session = self._group_of(job.update.effective_user.id)
        lang = self._reply_lang(job, session)
        if session is not None and session.active:
            table = self._table(session, lang)
            roles, options = list(session.settings.roles), dict(session.settings.options)
            if session.state:
                cfg = session.game().config
                roles, options = list(cfg.roles), dict(cfg.options)
            text = render.rules_text(table, roles, options)
            config = session.game().config if session.state else self._config(session, min(max(len(session.players), 5), 10))
            text += "\n\n" + reveal_text(table, config)
        else:
            text = "\n\n".join(
                render.rules_text(Table(chat_id=chat.id, game_id="", lang=lang, theme=th), [], {})
                for th in ("avalon", "resistance")
            )
        await self._finish(job, Plan(answer=text))

    async def _cmd_start(self, job: Job, args: str) -> None:
        msg = job.update.message
        user = msg.from_user
        if msg.chat.type != "private":
            await self._cmd_help(job, args)
            return
        lang = self._lang(user)
        parsed = parse_start_payload(args) if args else None
        if parsed and parsed[0] == "j":
            _, chat_id, game_id = parsed
            plan = self._transact(job, chat_id, lambda s: self._join(job, s, user, game_id, via_start=True))
            if plan.answer and not plan.outs:
                # could not join: still record that the user can be reached
                self._mark_user(user.id, started=True, blocked=False, name=display_name(user), lang=lang)
                plan.answer = texts.t("start.join_failed", lang, reason=plan.answer)
            await self._finish(job, plan, chat_id)
            return
        rec = self._mark_user(user.id, job.update_id, started=True, blocked=False, name=display_name(user), lang=lang)
        if rec is None:
            return  # a redelivered /start: it was answered the first time
        if rec.chat is not None:
            session, _ = self._load(rec.chat)
            if session is not None and session.status == PLAYING and session.seat_of(user.id) is not None:
                await self._reconnect(job, session, user.id)
                return
        await self._finish(job, Plan(answer=texts.t("start.welcome", lang, name=render.esc(user.first_name))))

    async def _reconnect(self, job: Job, session: Session, user_id: int) -> None:
        """A player who (re)opened the private chat gets their role and current prompts again."""
        chat_id = session.chat_id

        def decide(s: Session | None) -> Plan:
            if s is None or s.status != PLAYING or s.seat_of(user_id) is None:
                raise Reply(texts.t("status.private_none", self._reply_lang(job, s)))
            seat = s.seat_of(user_id)
            if user_id in s.unreachable:
                s.unreachable.remove(user_id)
                plan = Plan(session=s)
            else:
                plan = Plan()
            plan.outs = self._private_status(s, seat, intro=True)
            return plan

        plan = self._transact(job, chat_id, decide)
        await self._finish(job, plan, chat_id)

    def _private_status(self, s: Session, seat: int, intro: bool = False) -> list[Out]:
        state = s.game()
        player = s.players[seat]
        table = self._table(s, self._player_lang(s, seat))
        outs = []
        if intro:
            outs.append(Out("send", chat_id=player.id, user_id=player.id, tag="reconnect",
                            text=table.t("start.reconnected", name=render.esc(player.name), title=render.esc(s.title))))
        v = view(state, seat)
        outs.append(Out("send", chat_id=player.id, user_id=player.id, text=render.role_card(table, v), tag="role"))
        outs.extend(self._prompt_outs(s, state, seat, v))
        mine = [p for p in prompts(state, seat) if p.kind == "propose"]
        if mine:  # the Leader's team picker, as it stands
            sel = s.sel.get("g")
            outs.append(self._picker_out(s, state, mine[0], sel if sel and sel.serial == serial(state) else None))
        return outs

    async def _cmd_newgame(self, job: Job, args: str) -> None:
        msg = job.update.message
        user = msg.from_user
        chat = msg.chat
        own = texts.lang_for(user.language_code, "")  # "" when we do not speak the user's language

        def decide(s: Session | None) -> Plan:
            if s is not None and s.active:
                raise Reply(texts.t("newgame.exists", s.lang))
            # the group keeps its language (/language, settings); a new group speaks its first host's
            lang = s.lang if s is not None and texts.supported(s.lang) else own or texts.DEFAULT_LANG
            session = Session(
                chat_id=chat.id,
                title=chat.title or "",
                lang=lang,
                game_id=new_game_id(),
                status=LOBBY,
                host=user.id,
                settings=lobby_settings(s.settings if s is not None else None, args),
                seen=list(s.seen) if s is not None else [],
                **timers.carry_over(s),
                last=s.last if s is not None else None,
                pin_hint=s.pin_hint if s is not None else False,
            )
            plan = Plan(session=session)
            rec, version = self._load_user(user.id)
            table = self._table(session)
            elsewhere = self._active_elsewhere(rec, chat.id) if rec.reachable else None
            if rec.reachable and elsewhere is None:
                session.players.append(Player(id=user.id, name=display_name(user), lang=own))
                rec = rec.model_copy(update={"chat": chat.id, "game_id": session.game_id, "name": display_name(user)})
                plan.writes.append(Write(Item(key=user_key(user.id), body=rec.body()), version))
                table = self._table(session)
            text, kb = self._lobby(session)
            plan.outs.append(Out("send", chat_id=chat.id, text=text, keyboard=kb, remember="lobby_msg", tag="lobby"))
            if elsewhere is not None:
                plan.outs.append(Out("send", chat_id=chat.id, tag="notice", text=table.t(
                    "lobby.in_other_game", title=render.esc(elsewhere.title or "?"))))
            elif not session.players:
                plan.outs.append(Out("send", chat_id=chat.id, tag="notice", text=table.t(
                    "newgame.host_not_reachable", name=render.esc(display_name(user)), link=table.deep_link("j"))))
            return plan

        plan = self._transact(job, chat.id, decide)
        await self._finish(job, plan, chat.id)

    def _lobby(self, s: Session) -> tuple[str, list]:
        table = self._table(s)
        host = next((p.name for p in s.players if p.id == s.host), None)
        assassin = settings_panel.assassin_label(table, s.settings, min(max(len(s.players), 5), 10))
        return render.lobby(table, host, list(s.settings.roles), dict(s.settings.options), self.codec, assassin)

    async def _cmd_status(self, job: Job, args: str) -> None:
        chat = job.update.effective_chat
        user = job.update.effective_user
        if chat.type == "private":
            session = self._group_of(user.id)
            if session is None or session.status != PLAYING or session.seat_of(user.id) is None:
                await self._finish(job, Plan(answer=texts.t("status.private_none", self._reply_lang(job, session))))
                return
            group = session.chat_id

            def private(s: Session | None) -> Plan:  # recorded: a redelivered /status is answered once
                if s is None or s.status != PLAYING or s.seat_of(user.id) is None:
                    raise Reply(texts.t("status.private_none", self._reply_lang(job, s)))
                return Plan(outs=self._private_status(s, s.seat_of(user.id)))

            await self._finish(job, self._transact(job, group, private), group)
            return
        session, _ = self._load(chat.id)
        if session is None or not session.active:
            await self._finish(job, Plan(answer=texts.t("status.none", self._reply_lang(job, session))))
            return
        if session.status == LOBBY:
            text, kb = self._lobby(session)
            await self._finish(job, Plan(outs=[Out("send", chat_id=chat.id, text=text, keyboard=kb,
                                                   remember="lobby_msg", tag="lobby")]), chat.id)
            return
        def group(s: Session | None) -> Plan:  # recorded: a redelivered /status is answered once
            if s is None or s.status != PLAYING:
                raise Reply(texts.t("status.none", self._reply_lang(job, s)))
            state = s.game()
            table = self._table(s)
            pv = public_view(state)
            outs = [Out("send", chat_id=chat.id, text=render.board(table, pv, names=True), remember="board_msg",
                        tag="board")]
            now = serial(state)
            if pv["stage"] == "vote" or any(p.kind == "vote" for seat in range(state.n) for p in prompts(state, seat)):
                text, kb = render.vote_message(table, pv, self.codec, now)
                outs.append(Out("send", chat_id=chat.id, text=text, keyboard=kb, tag="vote", live=now))
            quest = round_message.status(table, self.codec, state, pv)  # the quest's cards, while they are played
            return Plan(outs=outs + ([quest] if quest is not None else []))

        await self._finish(job, self._transact(job, chat.id, group), chat.id)

    async def _cmd_cancel(self, job: Job, args: str) -> None:
        try:
            await self._cancel_game(job)
        except Exception as exc:  # /cancel must always work: else the group could never play again
            if job.committed or transient(exc):
                raise
            if not isinstance(exc, DamagedSession):  # a bug, or a state this version cannot play
                log.exception("update %s: /cancel failed; closing what can be read", job.update_id)
            await self._cancel_damaged(job)

    async def _cancel_game(self, job: Job) -> None:
        chat = job.update.effective_chat
        user = job.update.effective_user
        session, _ = self._load(chat.id)
        if session is None or not session.active:
            await self._finish(job, Plan(answer=texts.t("cancel.nothing", self._reply_lang(job, session))))
            return
        allowed = user.id == session.host or await self.io.is_admin(chat.id, user.id)
        if not allowed:
            await self._finish(job, Plan(answer=texts.t("cancel.not_allowed", session.lang)))
            return
        game_id = session.game_id

        def decide(s: Session | None) -> Plan:
            if s is None or not s.active or s.game_id != game_id:
                raise Reply(texts.t("cancel.nothing", self._reply_lang(job, s)))
            return self._cancel(s, display_name(user))

        plan = self._transact(job, chat.id, decide)
        await self._finish(job, plan, chat.id)

    async def _cancel_damaged(self, job: Job) -> None:
        """/cancel of a game that does not load (or cannot be cancelled the usual way): the host or a
        group admin closes what can be salvaged (gamebot.recovery), so that the group can play again."""
        chat_id, user = job.update.effective_chat.id, job.update.effective_user
        stored = self.repo.get(chat_key(chat_id))
        if stored is None:
            await self._finish(job, Plan(answer=texts.t("cancel.nothing", self._lang(user))))
            return
        s = recovery.closed(recovery.salvage(chat_id, stored.body))
        if user.id != s.host and not await self.io.is_admin(chat_id, user.id):
            await self._finish(job, Plan(answer=texts.t("cancel.not_allowed", self._reply_lang(job, s))))
            return
        s.mark_seen(job.update_id)
        self.repo.put(Item(key=chat_key(chat_id), body=s.body()), stored.version)  # a conflict: redelivered
        job.committed = True
        text = self._table(s).t("damaged.cancelled", name=render.esc(display_name(user)))
        await self._finish(job, Plan(outs=[Out("send", chat_id=chat_id, text=text, tag="end")]), chat_id)

    def _cancel(self, s: Session, by: str, removed: bool = False) -> Plan:
        table = self._table(s)
        plan = Plan(session=s)
        was_playing = s.status == PLAYING
        s.status = CANCELLED
        s.sel = {}
        pv: dict[str, Any] = {}
        if was_playing:
            state = s.game()
            pv = public_view(state)
            pv["roles"] = list(state.roles)  # the game is over: every role may be shown
            pv["sides"] = [x.value for x in state.sides]
            plan.writes.append(self._archive(s, state, pv))
        if removed:  # the bot is no longer in the group: tell the players privately
            for seat, p in enumerate(s.players):
                t = self._table(s, self._player_lang(s, seat))
                plan.outs.append(Out("send", chat_id=p.id, user_id=p.id, essential=False, tag="removed",
                                     text=t.t("end.removed", title=render.esc(s.title))))
            return plan
        if not was_playing:
            if s.lobby_msg:
                plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, tag="lobby",
                                     text=table.t("cancel.lobby", name=render.esc(by))))
            else:
                plan.outs.append(Out("send", chat_id=s.chat_id, tag="notice", text=table.t("cancel.lobby", name=render.esc(by))))
            return plan
        if s.board_msg:
            plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.board_msg, essential=False, tag="board",
                                 text=render.board(table, pv, status="cancelled")))
        for text in ending.game_over(table, pv, cancelled_by=by):
            plan.outs.append(Out("send", chat_id=s.chat_id, text=text, tag="end"))
        return plan

    async def _cmd_leave(self, job: Job, args: str) -> None:
        chat = job.update.effective_chat
        user = job.update.effective_user
        plan = self._transact(job, chat.id, lambda s: self._leave(s, user, None))
        await self._finish(job, plan, chat.id)

    def _leave(self, s: Session | None, user: Any, game_id: str | None) -> Plan:
        lang = self._lang(user, s)
        if s is None or not s.active or (game_id is not None and s.game_id != game_id):
            raise Reply(texts.t("leave.nothing", lang))
        if s.status == PLAYING:
            raise Reply(texts.t("leave.in_game", lang), alert=True)
        seat = s.seat_of(user.id)
        if seat is None:
            raise Reply(texts.t("lobby.not_joined", lang))
        del s.players[seat]
        plan = Plan(session=s, answer=texts.t("lobby.left", lang))
        rec, version = self._load_user(user.id)
        if rec.chat == s.chat_id:
            rec = rec.model_copy(update={"chat": None, "game_id": None})
            plan.writes.append(Write(Item(key=user_key(user.id), body=rec.body()), version))
        if not s.players:
            s.status = CANCELLED
            text, kb = self._table(s).t("lobby.closed"), None
        else:
            if s.host == user.id:
                s.host = s.players[0].id
            text, kb = self._lobby(s)
        if s.lobby_msg:  # the lobby's latest state (progress), unless it closed
            plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                                 essential=kb is None, view="lobby"))
        return plan

    # ------------------------------------------------------------------------------------------------
    # Membership
    # ------------------------------------------------------------------------------------------------

    async def _on_my_chat_member(self, job: Job) -> None:
        m = job.update.my_chat_member
        chat = m.chat
        status = m.new_chat_member.status
        if chat.type == "private":
            if status in ("kicked", "left"):
                await self._user_blocked(job, chat.id)
            elif status == "member":
                self._mark_user(chat.id, started=True, blocked=False)
            return
        if chat.type not in GROUP_TYPES:
            return
        if status in ("left", "kicked"):
            def decide(s: Session | None) -> Plan:
                if s is None or not s.active:
                    return Plan()
                return self._cancel(s, "", removed=True)

            plan = self._transact(job, chat.id, decide)
            await self._finish(job, plan, None)
        elif m.old_chat_member.status in ("left", "kicked") and status in ("member", "administrator"):
            lang = self._lang(m.from_user)
            text = texts.t("help.title", lang) + "\n\n" + texts.t("help.body", lang)
            await self._finish(job, Plan(outs=[Out("send", chat_id=chat.id, text=text, essential=False, tag="hello")]))

    async def _user_blocked(self, job: Job, user_id: int) -> None:
        rec = self._mark_user(user_id, blocked=True)
        if rec.chat is None:
            return
        chat_id = rec.chat

        def decide(s: Session | None) -> Plan:
            if s is None or not s.active or s.game_id != rec.game_id or s.seat_of(user_id) is None:
                return Plan()
            if user_id in s.unreachable:
                return Plan()
            s.unreachable.append(user_id)
            table = self._table(s)
            seat = s.seat_of(user_id)
            return Plan(session=s, outs=[Out("send", chat_id=s.chat_id, tag="blocked",
                                             text=table.t("blocked.group", name=table.mention(seat), link=table.deep_link("r")))])

        plan = self._transact(job, chat_id, decide)
        await self._finish(job, plan, chat_id)

    async def _migrate(self, job: Job, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its chat id changed. Move the session to the new id."""
        session, version = self._load(old_id)
        if session is None or not session.active:
            return
        target, target_version = self._load(new_id)
        if target is not None and target.active:
            return
        session.chat_id = new_id
        session.lobby_msg = session.board_msg = session.vote_msg = None
        session.deadline = None  # its timers name the old chat: the next write plans new ones
        writes = [Write(Item(key=chat_key(new_id), body=session.body()), target_version)]
        old = session.model_copy(update={"chat_id": old_id, "status": CANCELLED})
        writes.append(Write(Item(key=chat_key(old_id), body=old.body()), version))
        for p in session.players:
            rec, v = self._load_user(p.id)
            if rec.chat == old_id:
                writes.append(Write(Item(key=user_key(p.id), body=rec.model_copy(update={"chat": new_id}).body()), v))
        try:
            self.repo.transact(writes)
            job.committed = True
        except VersionConflict:
            log.warning("migration of a chat raced; leaving it")

    # ------------------------------------------------------------------------------------------------
    # Callback queries
    # ------------------------------------------------------------------------------------------------

    async def _on_callback(self, job: Job) -> None:
        q = job.update.callback_query
        lang = self._lang(q.from_user)
        try:
            button = self.codec.decode(q.data)
        except BadCallback:
            await self._finish(job, Plan(answer=texts.t("error.stale", lang)))
            return
        handler = {
            "L": self._cb_lobby,
            "S": self._cb_settings,
            "T": self._game_button(self._team_press),
            "V": self._game_button(self._vote_press),
            "Q": self._game_button(self._card_press),
            "P": self._game_button(self._prompt_press),
            "G": self._cb_language,
        }[button.scope]
        await handler(job, button)

    def _check_game(self, s: Session | None, b: Button, status: str, lang: str) -> Session:
        if s is None or s.game_id != b.game_id or s.status != status:
            raise Reply(texts.t("error.stale", lang))
        return s

    # --- lobby ---------------------------------------------------------------------------------------

    async def _cb_lobby(self, job: Job, b: Button) -> None:
        q = job.update.callback_query
        user = q.from_user
        op = b.op
        if op == "j":
            plan = self._transact(job, b.chat_id, lambda s: self._join(job, s, user, b.game_id))
        elif op == "l":
            plan = self._transact(job, b.chat_id, lambda s: self._leave(s, user, b.game_id))
        elif op == "s":
            plan = self._transact(job, b.chat_id, lambda s: self._open_settings(s, user, b))
        elif op == "g":
            plan = self._transact(job, b.chat_id, lambda s: self._start_game(s, user, b, q))
        else:
            plan = Plan(answer=texts.t("error.stale", self._lang(user)))
        await self._finish(job, plan, b.chat_id)

    def _join(self, job: Job, s: Session | None, user: Any, game_id: str, via_start: bool = False) -> Plan:
        lang = self._lang(user, s)
        own = texts.lang_for(user.language_code, "")
        if s is None or s.status != LOBBY or s.game_id != game_id:
            raise Reply(texts.t("start.game_gone", lang) if via_start else texts.t("error.stale", lang))
        table = self._table(s)
        rec, version = self._load_user(user.id)
        if via_start:
            rec = rec.model_copy(update={"started": True, "blocked": False})
        if s.seat_of(user.id) is not None:
            if via_start:
                return Plan(writes=[Write(Item(key=user_key(user.id), body=rec.body()), version)],
                            outs=[Out("send", chat_id=user.id, user_id=user.id, tag="joined",
                                      text=texts.t("start.joined", lang, title=render.esc(s.title)))])
            raise Reply(texts.t("lobby.already_joined", lang))
        if not rec.reachable:
            raise Reply(texts.t("lobby.need_private", lang), url=table.deep_link("j"))
        if len(s.players) >= MAX_PLAYERS:
            raise Reply(texts.t("lobby.full", lang), alert=True)
        other = self._active_elsewhere(rec, s.chat_id)
        if other is not None:
            raise Reply(texts.t("lobby.in_other_game", lang, title=render.esc(other.title or "?")), alert=True)
        name = display_name(user)
        if name in s.names():
            name = f"{name} @{user.username}" if user.username else f"{name} #{len(s.players) + 1}"
        s.players.append(Player(id=user.id, name=name[:40], lang=own))
        if s.host is None:
            s.host = user.id
        rec = rec.model_copy(update={"chat": s.chat_id, "game_id": s.game_id, "name": name, "lang": lang})
        plan = Plan(session=s, writes=[Write(Item(key=user_key(user.id), body=rec.body()), version)])
        text, kb = self._lobby(s)
        if s.lobby_msg:  # the lobby's latest state: progress
            plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                                 essential=False, view="lobby"))
        if via_start:
            plan.outs.append(Out("send", chat_id=user.id, user_id=user.id, tag="joined",
                                 text=texts.t("start.joined", lang, title=render.esc(s.title))))
        else:
            plan.answer = texts.t("lobby.joined", lang)
        return plan

    def _host_check(self, s: Session, user: Any) -> None:
        if user.id != s.host:
            host = next((p.name for p in s.players if p.id == s.host), "?")
            raise Reply(texts.t("lobby.only_host", self._lang(user, s), host=host), alert=True)

    def _open_settings(self, s: Session | None, user: Any, b: Button) -> Plan:
        lang = self._lang(user, s)
        s = self._check_game(s, b, LOBBY, lang)
        self._host_check(s, user)
        rec, _ = self._load_user(user.id)
        if not rec.reachable:
            raise Reply(texts.t("lobby.need_private", lang), url=self._table(s).deep_link("j"))
        text, kb = self._settings_panel(s, "main", lang)
        return Plan(outs=[Out("send", chat_id=user.id, user_id=user.id, text=text, keyboard=kb, tag="settings")],
                    answer=texts.t("lobby.settings_sent", lang))

    def _settings_panel(self, s: Session, page: str, lang: str) -> tuple[str, list]:
        pages = settings_panel.Pages(self._table(s, lang), self.codec, s.settings, len(s.players), s.lang,
                                     timers_enforced=self.timers.scheduler is not None)
        return pages.page(page)

    def _config(self, s: Session, n: int) -> engine.GameConfig:
        return settings_check.config_for(s.settings, n)

    def _start_game(self, s: Session | None, user: Any, b: Button, q: Any) -> Plan:
        lang = self._lang(user, s)
        s = self._check_game(s, b, LOBBY, lang)
        self._host_check(s, user)
        n = len(s.players)
        table = self._table(s)
        if not 5 <= n <= MAX_PLAYERS:
            raise Reply(texts.t("lobby.not_enough", lang, count=n), alert=True)
        try:
            config = self._config(s, n)
        except Exception as exc:
            problems = getattr(exc, "problems", None) or []
            raise Reply(self._config_errors(s, lang, problems), alert=True) from None
        errors = [i for i in validate_config(config) if i.level == "error"]
        if errors:
            raise Reply(self._config_errors(s, lang, errors), alert=True)
        unreachable = [p.name for p in self._split_reachable(s)[1]]
        if unreachable:
            text = table.t("lobby.unreachable", names=render.esc(", ".join(unreachable)), link=table.deep_link("j"))
            return Plan(outs=[Out("send", chat_id=s.chat_id, text=text, tag="notice")], answer=text[:200], alert=True)
        return self._launch(s, config, q.message.message_id if q.message else None)

    def _launch(self, s: Session, config: engine.GameConfig, msg_id: int | None) -> Plan:
        """Deal and start the game; ``msg_id``: the message to turn into the board (else the lobby's)."""
        seed = self.seeds.getrandbits(48) if self.seeds is not None else secrets.randbits(48)
        state, events = new_game(timers.configure(config, s.settings.timers), seed)
        s.status = PLAYING
        s.set_game(state)
        s.board_msg = msg_id or s.lobby_msg
        s.lobby_msg = None
        s.unreachable = []
        plan = Plan(session=s)
        plan.outs = self._game_outs(s, None, state, events, trigger=("start", msg_id))
        if s.board_msg:
            plan.outs.append(Out("pin", chat_id=s.chat_id, message_id=s.board_msg, essential=False, tag="pin"))
        return plan

    def _config_errors(self, s: Session, lang: str, issues: list[Any]) -> str:
        """Why a setup cannot be played, as a (plain text) alert in the host's language."""
        table = self._table(s, lang)
        lines = "\n".join(render.issue_text(table, i, html=False) for i in issues)
        return texts.t("lobby.config_errors", lang, errors=lines)[:200]

    # --- settings (host, private) ---------------------------------------------------------------------

    async def _cb_settings(self, job: Job, b: Button) -> None:
        q = job.update.callback_query
        user = q.from_user
        msg_id = q.message.message_id if q.message else None

        def decide(s: Session | None) -> Plan:
            lang = self._lang(user, s)
            if s is None or s.game_id != b.game_id or s.status != LOBBY:
                raise Reply(texts.t("settings.not_lobby", lang), alert=True)
            self._host_check(s, user)
            if b.op == "d":
                return self._settings_done(s, user, lang, msg_id)
            try:
                page, changed, language = settings_panel.apply(s.settings, b.op, len(s.players))
            except settings_panel.StaleOp:
                raise Reply(texts.t("error.stale", lang)) from None
            if language is not None:
                s.lang, changed = language, True
            text, kb = self._settings_panel(s, page, lang)
            outs = [Out("edit", chat_id=user.id, message_id=msg_id, text=text, keyboard=kb, essential=False, tag="settings")]
            return Plan(session=s if changed else None, outs=outs)

        plan = self._transact(job, b.chat_id, decide)
        await self._finish(job, plan, b.chat_id)

    def _settings_done(self, s: Session, user: Any, lang: str, msg_id: int | None) -> Plan:
        """Done: the panel loses its buttons, the lobby shows the settings; said "saved" only when the
        table that will play can play them (else why not, in an alert)."""
        text, kb = self._lobby(s)
        outs = []
        if msg_id:
            panel, _ = self._settings_panel(s, "main", lang)
            outs.append(Out("edit", chat_id=user.id, message_id=msg_id, text=panel, keyboard=None, tag="settings"))
        if s.lobby_msg:
            outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                            essential=False, view="lobby"))
        answer, alert = settings_check.done_answer(self._table(s, lang), settings_check.check(s.settings, len(s.players)))
        return Plan(outs=outs, answer=answer, alert=alert)

    # --- team picker (group) ----------------------------------------------------------------------------

    def _picker_out(self, s: Session, state: GameState, prompt: Any, sel: Selection | None,
                    message_id: int | None = None) -> Out:
        """The team picker, in the Leader's hands: a keyboard in their private chat (its toggles cost the
        group nothing; the group sees the proposal, with the vote)."""
        leader = s.players[state.leader]
        table = self._table(s, self._player_lang(s, state.leader))
        pv = public_view(state)
        sizes = {int(k): int(v) for k, v in (prompt.info.get("sizes") or {}).items()}
        if not sizes:
            sizes = {pv["quest_choices"][0] if pv["quest_choices"] else 0: prompt.pick}
        text, kb = render.team_picker(
            table, pv, sizes, list(prompt.quests), int(prompt.info.get("attempt", state.vote_track + 1)),
            list(sel.targets) if sel else [], sel.quest if sel else None, self.codec, serial(state),
        )
        if message_id is not None:
            return Out("edit", chat_id=leader.id, message_id=message_id, text=text, keyboard=kb, essential=False,
                       user_id=leader.id, tag="picker", live=serial(state))
        return Out("send", chat_id=leader.id, user_id=leader.id, text=text, keyboard=kb, tag="picker",
                   live=serial(state))

    def _game_button(self, press: Any) -> Any:
        """The handler of a button of the running game (team picker, vote, private prompt): the press is
        decided by ``press(s, state, seat, user, lang, msg_id, b)`` under the version-checked write, once
        the button is known to belong to this game (``seat`` is None for someone not at the table)."""

        async def handle(job: Job, b: Button) -> None:
            q = job.update.callback_query
            user = q.from_user
            msg_id = q.message.message_id if q.message else None

            def decide(s: Session | None) -> Plan:
                lang = self._lang(user, s)
                s = self._check_game(s, b, PLAYING, lang)
                return press(s, s.game(), s.seat_of(user.id), user, lang, msg_id, b)

            plan = self._transact(job, b.chat_id, decide)
            await self._finish(job, plan, b.chat_id)

        return handle

    def _team_press(self, s: Session, state: GameState, seat: int | None, user: Any, lang: str,
                    msg_id: int | None, b: Button) -> Plan:
        if serial(state) != b.serial:
            raise Reply(texts.t("error.stale", lang))
        mine = [p for p in prompts(state, seat) if p.kind == "propose"] if seat is not None else []
        if not mine:
            raise Reply(texts.t("team.only_leader", lang, leader=s.players[state.leader].name))
        prompt = mine[0]
        sel = s.sel.get("g")
        if sel is None or sel.serial != b.serial:
            sel = Selection(serial=b.serial, kind="propose")
        before = sel.model_copy(deep=True)
        op = b.op
        if op.startswith("t") and op[1:].isdigit():
            target = int(op[1:])
            if target not in prompt.targets:
                raise Reply(texts.t("error.stale", lang))
            full = wording.team_full(prompt.model_dump(), sel.quest, len(sel.targets), lang, state.config.theme.value)
            if full and target not in sel.targets:
                raise Reply(full)
            sel.targets = sorted(set(sel.targets) ^ {target})
        elif op.startswith("q") and op[1:].isdigit() and prompt.quests:
            quest = int(op[1:])
            if quest not in prompt.quests:
                raise Reply(texts.t("error.stale", lang))
            sel.quest = quest
        elif op == "c":
            if prompt.quests and sel.quest is None:
                raise Reply(texts.t("team.choose_quest_first", lang), alert=True)
            action = Action(seat=seat, kind="propose", targets=tuple(sel.targets),
                            quest=sel.quest if prompt.quests else None)
            plan = self._apply(s, state, action, lang, trigger=("picker", msg_id))
            s.sel.pop("g", None)
            return plan
        else:
            raise Reply(texts.t("error.stale", lang))
        s.sel["g"] = sel
        names = self._table(s, lang).names
        # a toggle is answered by a toast; the picker is drawn again only when the team becomes whole (or
        # stops being whole), or with another quest chosen (Targeting: other sizes)
        complete = lambda x: selection.team_complete(prompt.model_dump(), x)  # noqa: E731
        redraw = op.startswith("q") or selection.must_redraw(complete, before, sel)
        return Plan(session=s, outs=[self._picker_out(s, state, prompt, sel, msg_id)] if redraw else [],
                    answer=selection.toast([names[t] for t in sel.targets], [], lang, state.config.theme.value))

    # --- votes (group) -------------------------------------------------------------------------------------

    def _vote_press(self, s: Session, state: GameState, seat: int | None, user: Any, lang: str,
                    msg_id: int | None, b: Button) -> Plan:
        if serial(state) != b.serial or b.op[:2] != kind_tag("vote") or b.op[2:] not in ("a", "r"):
            raise Reply(texts.t("error.stale", lang))
        if seat is None:
            raise Reply(texts.t("error.not_in_game", lang))
        choice = "approve" if b.op[2:] == "a" else "reject"
        plan = self._apply(s, state, Action(seat=seat, kind="vote", choice=choice), lang, trigger=("vote", msg_id))
        plan.answer = texts.t("vote.cast", lang, vote=texts.t(f"vote.{choice}", lang))
        return plan

    # --- quest cards (group) -------------------------------------------------------------------------------

    def _card_press(self, s: Session, state: GameState, seat: int | None, user: Any, lang: str,
                    msg_id: int | None, b: Button) -> Plan:
        """A quest card pressed under the round message: seen by the bot alone; the presser alone is
        answered (the card played, or why it is refused and which cards they may play)."""
        cards = memo.public(state)["table_cards"]
        if serial(state) != b.serial or not round_message.quest_open(state) or not b.op.isdigit() \
                or int(b.op) >= len(cards):
            raise Reply(texts.t("error.stale", lang))
        if seat is None:
            raise Reply(texts.t("error.not_in_game", lang))
        table = self._table(s, lang)
        action = Action(seat=seat, kind="play", choice=cards[int(b.op)])
        try:
            new, events = apply_action(state, action)
        except IllegalAction as exc:
            text = round_message.refusal(table, exc)  # about the cards: a toast, to the presser alone
            raise (Reply(text) if text is not None else self._refusal(s, state, action, lang, exc)) from None
        plan = self._commit_game(s, state, new, events, trigger=("card", msg_id))
        plan.answer = round_message.played(table, action.choice)
        return plan

    # --- private prompts ----------------------------------------------------------------------------------

    def _prompt_press(self, s: Session, state: GameState, seat: int | None, user: Any, lang: str,
                    msg_id: int | None, b: Button) -> Plan:
        if seat is None:
            raise Reply(texts.t("error.not_in_game", lang))
        s_now = serial(state)
        mine = [p for p in prompts(state, seat) if kind_tag(p.kind) == b.op[:2]]
        if s_now != b.serial or not mine:
            plan = Plan(answer=texts.t("error.stale", lang))
            if msg_id:  # take the dead buttons away
                plan.outs.append(Out("markup", chat_id=user.id, message_id=msg_id, keyboard=None, essential=False))
            return plan
        prompt = mine[0]
        pd = prompt.model_dump()
        op = b.op[2:]
        mode = render.prompt_mode(pd)
        key = str(seat)
        sel = s.sel.get(key)
        if sel is None or sel.serial != s_now or sel.kind != prompt.kind:
            sel = Selection(serial=s_now, kind=prompt.kind)
        before = sel.model_copy(deep=True)
        action = None
        if op == "p" and prompt.optional:
            action = Action(seat=seat, kind=prompt.kind, choice="pass")
        elif op.startswith("t") and op[1:].isdigit() and int(op[1:]) in prompt.targets:
            target = int(op[1:])
            if mode == "immediate":
                action = Action(seat=seat, kind=prompt.kind, targets=(target,))
            elif target in sel.targets:
                sel.targets.remove(target)
            elif prompt.pick == 1:  # one player to choose: another tap changes who
                sel.targets = [target]
            else:
                sel.targets = sorted([*sel.targets, target])
        elif op.startswith("x") and op[1:].isdigit() and int(op[1:]) < len(prompt.choices):
            choice = prompt.choices[int(op[1:])]
            if mode == "immediate":
                action = Action(seat=seat, kind=prompt.kind, choice=choice)
            else:
                sel.choice = None if sel.choice == choice else choice
        elif op.startswith("q") and op[1:].isdigit() and int(op[1:]) in prompt.quests:
            quest = int(op[1:])
            if mode == "immediate":
                action = Action(seat=seat, kind=prompt.kind, quest=quest)
            else:
                sel.quest = quest
        elif op == "c" and mode == "select":
            only = prompt.choices[0] if len(prompt.choices) == 1 else None  # a single choice needs no tap
            action = Action(seat=seat, kind=prompt.kind, targets=tuple(sel.targets), choice=sel.choice or only,
                            quest=sel.quest)
        else:
            raise Reply(texts.t("error.stale", lang))
        table = self._table(s, self._player_lang(s, seat))
        if action is None:
            s.sel[key] = sel
            # a toggle is answered by a toast; the prompt is drawn again only when the selection becomes
            # complete or stops being complete (a quest chosen: always)
            plan = Plan(session=s, answer=selection.toast(
                [table.names[t] for t in sel.targets],
                [render.choice_label(table, sel.choice, prompt.kind) if sel.choice else "",
                 table.t("team.button.quest", quest=sel.quest + 1, size="·") if sel.quest is not None else ""],
                lang, state.config.theme.value))
            if op.startswith("q") or selection.must_redraw(lambda x: selection.prompt_complete(pd, x), before, sel):
                text, kb = render.private_prompt(table, pd, self.codec, s_now, sel.model_dump(), public_view(state))
                plan.outs.append(Out("edit", chat_id=user.id, message_id=msg_id, text=text, keyboard=kb,
                                     essential=False, user_id=user.id, tag="prompt", live=s_now))
            return plan
        prompt_text, _ = render.private_prompt(table, pd, self.codec, s_now, None, public_view(state))
        plan = self._apply(s, state, action, lang, trigger=("prompt", msg_id))
        s.sel.pop(key, None)
        if msg_id:
            # one message per decision: what it taught this player (a loyalty seen...) closes it too
            told = [o for o in plan.outs if o.tag == "private_event" and o.chat_id == user.id and o.op == "send"]
            plan.outs = [o for o in plan.outs if all(o is not t for t in told)]
            text = "\n".join([render.answered(table, prompt_text, prompt.kind, action), *(o.text for o in told)])
            plan.outs.insert(0, Out("edit", chat_id=user.id, message_id=msg_id, user_id=user.id, tag="answered",
                                    essential=bool(told), fallback_send=bool(told), text=text))
        plan.answer = plan.answer or "✔️"
        return plan

    # ------------------------------------------------------------------------------------------------
    # Applying an engine action and turning its events into messages
    # ------------------------------------------------------------------------------------------------

    def _apply(self, s: Session, state: GameState, action: Action, lang: str, trigger: tuple[str, int | None]) -> Plan:
        if action.kind == timers.TIMEOUT:  # only the timer path (gamebot.timers) times a seat out
            raise Reply(texts.t("error.stale", lang))
        try:
            new, events = apply_action(state, action)
        except IllegalAction as exc:
            raise self._refusal(s, state, action, lang, exc) from None
        return self._commit_game(s, state, new, events, trigger)

    def _refusal(self, s: Session, state: GameState, action: Action, lang: str, exc: IllegalAction) -> Reply:
        """The answer to a move the engine refused: its reason in the presser's language (an alert)."""
        key = f"illegal.{exc.code}"
        text = texts.t(key, lang, **exc.params) if texts.has(key, lang) else exc.reason
        if exc.code == "not_your_turn":  # say whose turn it is, when the table may know
            text = wording.whose_turn(waiting_for(state), s.names(), action.kind, state.stage, lang,
                                      state.config.theme.value) or text
        return Reply(text, alert=True)

    def _commit_game(self, s: Session, state: GameState, new: GameState, events: list[Any],
                     trigger: tuple[str, int | None]) -> Plan:
        """The session after a move: the new state, its messages, and the archive if the game ended."""
        s.set_game(new)
        outs = self._game_outs(s, state, new, events, trigger)
        plan = Plan(session=s, outs=outs)
        if new.over:
            final = public_view(new)
            plan.writes.append(self._archive(s, new, final))
            self._end_extras(s, new, final, plan)  # statistics in this transaction; the picture after it
        return plan

    def _archive(self, s: Session, state: GameState, final_view: dict[str, Any]) -> Write:
        """The game is finished (ended or cancelled): keep its summary in the chat item for good and move
        the whole game to an archive item that expires by TTL. Written in the same transaction."""
        now = self.clock()
        s.last = {
            "game_id": s.game_id,
            "status": s.status,
            "ended_at": now,
            "names": s.names(),
            "user_ids": [p.id for p in s.players],
            "view": final_view,
        }
        record = {
            "chat_id": s.chat_id,
            "game_id": s.game_id,
            "title": s.title,
            "status": s.status,
            "ended_at": now,
            "players": [p.model_dump() for p in s.players],
            "state": s.state,
        }
        s.state = None
        return Write(Item(key=archive_key(s.chat_id, s.game_id or ""), body=record,
                          expires_at=int(now + self.archive_days * 86400)), None)

    def _prompt_outs(self, s: Session, state: GameState, seat: int, v: dict[str, Any] | None = None) -> list[Out]:
        """Private prompt messages for ``seat`` (group decisions — team, vote, quest cards — are not sent here)."""
        player = s.players[seat]
        table = self._table(s, self._player_lang(s, seat))
        pv = public_view(state)
        outs = []
        for p in prompts(state, seat):
            if p.kind in ("propose", "vote", "play"):
                continue
            text, kb = render.private_prompt(table, p.model_dump(), self.codec, serial(state), None, pv)
            outs.append(Out("send", chat_id=player.id, user_id=player.id, text=text, keyboard=kb, tag=f"prompt:{p.kind}",
                            live=serial(state)))
        return outs

    def _game_outs(
        self,
        s: Session,
        before: GameState | None,
        after: GameState,
        events: list[Any],
        trigger: tuple[str, int | None],
    ) -> list[Out]:
        """Every message one state change causes. Group messages use only public data."""
        table = self._table(s)
        tables = {s.lang: table}  # one per language of the private messages

        def table_of(seat: int) -> Table:
            lang = self._player_lang(s, seat)
            if lang not in tables:
                tables[lang] = self._table(s, lang)
            return tables[lang]

        chat = s.chat_id
        pv = memo.public(after)  # (shared: read, never changed)
        pv_before = memo.public(before) if before is not None else None
        s_after = serial(after)
        kind, trig_msg = trigger
        head: list[Out] = []  # edits of existing messages
        group: list[Out] = []  # new group messages
        private: list[Out] = []

        # 1. Role cards at the start.
        if before is None:
            for seat, player in enumerate(s.players):
                t = table_of(seat)
                private.append(Out("send", chat_id=player.id, user_id=player.id, tag="role",
                                   text=render.role_card(t, view(after, seat))))

        # 2. The round's message: who has voted (progress, coalesced within the group's budget), then the
        # votes and what they decided (one essential edit, instead of a message of its own), then the
        # quest's card buttons and the cards played (progress), the buttons gone with the last card.
        round_outs, folded = round_message.edits(s, table, self.codec, before, after, events, pv, pv_before)
        head.extend(round_outs)

        # 3. Private events (loyalty seen, cards seen...).
        for seat, player in enumerate(s.players):
            lines = render.private_events(table_of(seat), events, seat)
            if lines:
                private.append(Out("send", chat_id=player.id, user_id=player.id, text="\n".join(lines), tag="private_event"))

        # 4. Public announcements, one message per update (at the start: with the board, one message).
        lines = render.announcements(table, [e for e in events if e not in folded])
        if lines and not (kind == "start" and s.board_msg):
            group.append(Out("send", chat_id=chat, text="\n".join(lines), tag="announce"))

        # 5. New decisions: the team picker and the vote in the group, everything else in private.
        for seat in range(after.n):
            now = prompts(after, seat)
            if not now:
                continue
            if before is not None:
                old = prompts(before, seat)
                if old and serial(before) == s_after and [p.kind for p in old] == [p.kind for p in now]:
                    continue  # same decision as before: its message is already out
            for p in now:
                if p.kind == "propose":
                    private.append(self._picker_out(s, after, p, None))
                elif p.kind == "vote":
                    if s.vote_serial == s_after:
                        continue
                    s.vote_serial = s_after
                    s.vote_msg = None
                    text, kb = render.vote_message(table, pv, self.codec, s_after)
                    group.append(Out("send", chat_id=chat, text=text, keyboard=kb, remember="vote_msg", tag="vote",
                                     live=s_after))
                elif p.kind == "play":
                    continue  # played from the round message's buttons, in the group
                else:
                    private.extend(self._prompt_outs(s, after, seat))
                    break
        if kind == "picker" and trig_msg and before is not None:
            # the Leader's private picker, once the team is proposed: what they proposed, no buttons
            leader = s.players[before.leader]
            private.insert(0, Out("edit", chat_id=leader.id, message_id=trig_msg, keyboard=None, essential=False,
                                  user_id=leader.id, tag="picker",
                                  text=render.proposal_line(table_of(before.leader), pv)))

        # 6. The board, edited only when its text changes.
        status = "ended" if after.over else "playing"
        board_text = memo.board(render.board, table, pv, status)
        if kind == "start" and s.board_msg:
            # the lobby message becomes the board, opening with the start's announcements: one message
            if lines:
                board_text = "\n".join(lines) + "\n\n" + board_text
            head.insert(0, Out("edit", chat_id=chat, message_id=s.board_msg, text=board_text, keyboard=None,
                               fallback_send=True, remember="board_msg", tag="board", view="board"))
            # (remembered only if the lobby message was gone and the board had to be sent anew)
        elif pv_before is None or memo.board(render.board, table, pv_before) != board_text or after.over:
            if s.board_msg:  # the board's latest state: progress, except the end's
                head.append(Out("edit", chat_id=chat, message_id=s.board_msg, text=board_text, keyboard=None,
                                fallback_send=True, remember="board_msg", tag="board", essential=after.over,
                                view="board"))

        # 7. The end: every role, the winner, the history.
        tail: list[Out] = []
        if after.over and (before is None or not before.over):
            s.status = ENDED
            s.sel = {}
            for text in ending.game_over(table, pv):
                tail.append(Out("send", chat_id=chat, text=text, tag="end"))
        return head + private + group + tail


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


def transient(exc: BaseException) -> bool:
    """Errors a redelivery may get past: storage conflicts, AWS throttling and failures on AWS's side or the
    network's (our client's retryable ``AWSError``, or any botocore/boto3/urllib3 error of an injected client)."""
    from .aws import AWSError

    if isinstance(exc, VersionConflict | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, AWSError):
        return exc.retryable
    module = type(exc).__module__ or ""
    return module.startswith(("botocore", "boto3", "urllib3"))


# What ``/newgame <word>`` may name: the start of a game's name in any of our languages.
GAME_WORDS = {"res": "resistance", "rés": "resistance", "ava": "avalon"}


def lobby_settings(previous: Any, args: str) -> Any:
    """Settings for a new lobby: the group's previous ones (or the defaults), in the game the command
    names if it names one (``/newgame resistance``, ``/newgame avalon``), whatever the group played
    before."""
    from .session import Settings

    settings = previous.model_copy(deep=True) if previous is not None else Settings()
    word = args.strip().lower()[:3]
    if word in GAME_WORDS:
        settings.switch_theme(GAME_WORDS[word])
    return settings
