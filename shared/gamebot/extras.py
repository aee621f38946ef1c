"""Languages, statistics and game pictures: the /language, /stats and /history commands and what the
end of a game adds to its transaction (statistics) and to its messages (the picture).

A mixin of :class:`gamebot.service.Service` (it uses the service's plumbing: ``_load``,
``_transact``, ``_finish``, ``_table``...), kept apart so the update flow in service.py stays short.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import ending, render, texts
from .callbacks import Button
from .session import ENDED, LOBBY, PLAYING, Session, chat_key
from .store import Write
from .telegram_io import Out

if TYPE_CHECKING:  # pragma: no cover
    from .service import Job
    from .steps import Plan

log = logging.getLogger("gamebot.service")

GROUP_TYPES = ("group", "supergroup")


class Extras:
    """/language, /stats, /history, and the statistics and picture of a finished game."""

    # --- languages -----------------------------------------------------------------------------------

    def _lang(self, user: Any, s: Session | None = None) -> str:
        """A person's language: their Telegram app's if a catalog speaks it, else the group's."""
        fallback = s.lang if s is not None and texts.supported(s.lang) else texts.DEFAULT_LANG
        return texts.lang_for(getattr(user, "language_code", None), fallback)

    def _reply_lang(self, job: Job, s: Session | None = None) -> str:
        """Replies in a group speak the group's language; in private, the user's (else their group's)."""
        chat = job.update.effective_chat
        if chat is not None and chat.type in GROUP_TYPES and s is not None and texts.supported(s.lang):
            return s.lang
        return self._lang(job.update.effective_user, s)

    def _player_lang(self, s: Session, seat: int) -> str:
        """Private messages follow the player's Telegram language when we speak it, else the group's."""
        lang = s.players[seat].lang
        return lang if texts.supported(lang) else s.lang

    @staticmethod
    def _language_names() -> str:
        return ", ".join(f"{texts.language_name(code)} ({code})" for code in texts.languages())

    def _language_picker(self, chat_id: int, lang: str) -> tuple[str, list[list[render.Btn]]]:
        text = texts.t("language.title", lang, language=render.esc(texts.language_name(lang)))
        buttons = [
            render.Btn(("✅ " if code == lang else "") + texts.language_name(code),
                       self.codec.encode("G", chat_id, "", 0, f"l{code}"))
            for code in texts.languages()
        ]
        return text, [buttons[i : i + 3] for i in range(0, len(buttons), 3)]

    async def _cmd_language(self, job: Job, args: str) -> None:
        from .steps import Plan

        chat = job.update.effective_chat
        user = job.update.effective_user
        if chat.type == "private":
            text = texts.t("language.private", self._lang(user), languages=render.esc(self._language_names()))
            await self._finish(job, Plan(answer=text))
            return
        session, _ = self._load(chat.id)
        lang = self._reply_lang(job, session)
        wanted = args.strip().lower()
        if not wanted:
            text, kb = self._language_picker(chat.id, session.lang if session else lang)
            await self._finish(job, Plan(outs=[Out("send", chat_id=chat.id, text=text, keyboard=kb, tag="language")]))
            return
        code = next((c for c in texts.languages() if wanted in (c, texts.language_name(c).lower())), None)
        if code is None:
            text = texts.t("language.unknown", lang, code=render.esc(wanted[:16]),
                           languages=render.esc(self._language_names()))
            await self._finish(job, Plan(answer=text))
            return
        await self._set_language(job, chat, user, code, None)

    async def _cb_language(self, job: Job, b: Button) -> None:
        from .steps import Plan

        q = job.update.callback_query
        code = b.op[1:]
        if not b.op.startswith("l") or not texts.supported(code):
            await self._finish(job, Plan(answer=texts.t("error.stale", self._lang(q.from_user))))
            return
        await self._set_language(job, q.message.chat if q.message else None, q.from_user, code,
                                 q.message.message_id if q.message else None, chat_id=b.chat_id)

    async def _set_language(self, job: Job, chat: Any, user: Any, code: str, picker_msg: int | None,
                            chat_id: int | None = None) -> None:
        """The group's language becomes ``code``. While a lobby or game is open only its host or a group
        admin may change it; otherwise anyone in the group may."""
        from .steps import Plan, Reply

        chat_id = chat_id if chat_id is not None else chat.id
        session, _ = self._load(chat_id)
        admin = False
        if session is not None and session.active and user.id != session.host:
            admin = await self.io.is_admin(chat_id, user.id)
            if not admin:
                await self._finish(job, Plan(answer=texts.t("language.not_allowed", self._reply_lang(job, session)),
                                             alert=True))
                return

        def decide(s: Session | None) -> Plan:
            if s is None:
                s = Session(chat_id=chat_id, title=getattr(chat, "title", None) or "")
            elif s.active and user.id != s.host and not admin:  # a lobby opened meanwhile
                raise Reply(texts.t("language.not_allowed", s.lang), alert=True)
            s.lang = code
            plan = Plan(session=s)
            done = texts.t("language.changed", code, language=render.esc(texts.language_name(code)))
            if picker_msg:
                plan.outs.append(Out("edit", chat_id=chat_id, message_id=picker_msg, text=done, keyboard=None,
                                     tag="language"))
                plan.answer = done[:200]
            else:
                plan.outs.append(Out("send", chat_id=chat_id, text=done, tag="language"))
            if s.status == LOBBY and s.lobby_msg:
                text, kb = self._lobby(s)
                plan.outs.append(Out("edit", chat_id=chat_id, message_id=s.lobby_msg, text=text, keyboard=kb,
                                     tag="lobby", view="lobby"))
            elif s.status == PLAYING and s.board_msg:
                from engine import public_view

                plan.outs.append(Out("edit", chat_id=chat_id, message_id=s.board_msg, tag="board", view="board",
                                     text=render.board(self._table(s), public_view(s.game()))))
            return plan

        plan = self._transact(job, chat_id, decide)
        await self._finish(job, plan, chat_id)

    def _group_of(self, user_id: int) -> Session | None:
        """The session of the group this user last played or joined in (two reads)."""
        rec, _ = self._load_user(user_id)
        return self._load(rec.chat)[0] if rec.chat is not None else None

    # --- statistics --------------------------------------------------------------------------------

    def _stats_writes(self, s: Session, state: Any, final_view: dict[str, Any]) -> list[Write]:
        """Statistics of a game that just ended, to write in the transaction that records its end
        (one batched read of the statistics items; version-checked writes)."""
        from . import stats  # only when a game ends: not at cold start

        idle = getattr(s, "idle", None) or {}  # timeouts per user id (str) this game, when sessions keep them
        o = stats.outcome(s.chat_id, s.game_id or "", [p.id for p in s.players], s.names(), state, final_view,
                          idle if isinstance(idle, dict) else {})
        return stats.writes(o, self.repo.get_many(stats.keys(o)))

    async def _cmd_stats(self, job: Job, args: str) -> None:
        from . import stats
        from .steps import Plan

        chat = job.update.effective_chat
        user = job.update.effective_user
        if chat.type == "private":
            item = self.repo.get(stats.user_stats_key(user.id))
            lang = self._lang(user)
            table = render.Table(chat_id=chat.id, game_id="", lang=lang)
            text = stats.user_text(table, item.body if item else {}, render.esc(user.first_name or ""))
        else:
            found = self.repo.get_many([chat_key(chat.id), stats.chat_stats_key(chat.id)])
            session = Session.from_body(found[chat_key(chat.id)].body) if chat_key(chat.id) in found else None
            item = found.get(stats.chat_stats_key(chat.id))
            table = render.Table(chat_id=chat.id, game_id="", lang=self._reply_lang(job, session))
            text = stats.group_text(table, item.body if item else {}, render.esc(chat.title or ""))
        await self._finish(job, Plan(answer=text))

    # --- the picture of a game ------------------------------------------------------------------------

    def _picture_out(self, chat_id: int, last: dict[str, Any], lang: str, user_id: int | None = None,
                     essential: bool = False) -> Out | None:
        """The photo of the game summarised in ``last``, or None if it cannot be drawn (the text
        history already said everything: a picture is a bonus)."""
        try:
            from .picture import render_png

            png = render_png(last, lang)
        except Exception:
            log.exception("could not draw the picture of game %s", last.get("game_id"))
            return None
        pv = last.get("view") or {}
        theme = str(pv.get("theme") or "avalon")
        if last.get("status") == "cancelled":
            result = texts.t("history.cancelled", lang, theme)
        else:  # who won: a side, or a Rogue alone, by name
            table = render.Table(chat_id=chat_id, game_id=str(last.get("game_id") or ""), lang=lang, theme=theme,
                                 names=list(last.get("names") or []))
            result = ending.result(table, pv)[0]
        caption = texts.t("history.caption", lang, theme, game=texts.t(f"theme.{theme}", lang, theme),
                          players=pv.get("players", len(last.get("names") or [])), result=result)
        return Out("photo", chat_id=chat_id, photo=png, text=caption, user_id=user_id, essential=essential,
                   tag="picture")

    async def _cmd_history(self, job: Job, args: str) -> None:
        from .steps import Plan

        chat = job.update.effective_chat
        user = job.update.effective_user
        if chat.type == "private":
            session = self._group_of(user.id)
            last = session.last if session is not None else None
            lang = self._lang(user, session)
            if not last or user.id not in (last.get("user_ids") or []):
                await self._finish(job, Plan(answer=texts.t("history.private_none", lang)))
                return
            target, user_id = user.id, user.id
        else:
            session, _ = self._load(chat.id)
            last = session.last if session is not None else None
            lang = self._reply_lang(job, session)
            if not last:
                await self._finish(job, Plan(answer=texts.t("history.none", lang)))
                return
            target, user_id = chat.id, None
        out = self._picture_out(target, last, lang, user_id=user_id, essential=True)
        if out is None:  # no picture: the text history instead
            pv = last.get("view") or {}
            table = render.Table(chat_id=target, game_id=str(last.get("game_id") or ""), lang=lang,
                                 theme=str(pv.get("theme") or "avalon"), names=list(last.get("names") or []))
            outs = [Out("send", chat_id=target, text=text, user_id=user_id, tag="history")
                    for text in ending.game_over(table, pv)]
        else:
            outs = [out]
        await self._finish(job, Plan(outs=outs))

    def _end_extras(self, s: Session, state: Any, final_view: dict[str, Any], plan: Plan) -> None:
        """A game has just ended (not cancelled): count it and send its picture after the text."""
        if s.status != ENDED:
            return
        plan.writes.extend(self._stats_writes(s, state, final_view))
        plan.picture = (s.chat_id, dict(s.last or {}), s.lang)
