"""Commands: /help, /rules, /start (private: welcome, join by deep link, reconnect), /status, /cancel."""
from __future__ import annotations

import logging

from engine import prompts, public_view
from engine.views import PublicView
from gamebot.botapi.callbacks import parse_start_payload
from gamebot.botapi.telegram_io import Out
from gamebot.compose import game as game_messages
from gamebot.compose import redraw
from gamebot.compose.context import (
    GROUP_TYPES,
    Deps,
    display_name,
    lang_of,
    own_lang,
    player_lang,
    seated,
)
from gamebot.compose.follow_up import again_gone, ended_out, round_closings
from gamebot.handlers import lobby
from gamebot.handlers.handling import Job, finish, game_of, reply_lang, transact, transient
from gamebot.handlers.play import archive
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages import round_message
from gamebot.messages.board import board, board_keyboard
from gamebot.messages.lobby import rules_text
from gamebot.messages.reveal_words import reveal_text
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.vote import vote_message
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage import recovery
from gamebot.storage.session import CANCELLED, LOBBY, PLAYING, DamagedSession, Session, chat_key, serial
from gamebot.storage.store import Item
from gamebot.story import end_text

log = logging.getLogger("gamebot.core.service")


async def cmd_help(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    session = deps.load(chat.id)[0] if chat.type in GROUP_TYPES else None
    lang = reply_lang(job, session, deps)
    lines = [texts.t("help.title", lang), "", texts.t("help.body", lang), "", texts.t("help.commands", lang)]
    from gamebot.botapi.commands import commands as command_menu  # only for /help: not at cold start

    for name, description in command_menu(lang):
        lines.append(texts.t("help.command_line", lang, command=name, description=esc(description)))
    languages = ", ".join(texts.language_name(code) for code in texts.languages())
    lines += ["", texts.t("help.languages", lang, languages=esc(languages))]
    await finish(deps, job, Plan(answer=NL.join(lines)))


async def cmd_rules(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    if chat.type in GROUP_TYPES:
        session, _ = deps.load(chat.id)
    else:
        session = deps.group_of(job.user.id)
    lang = reply_lang(job, session, deps)
    if session is not None and session.active:
        table = deps.table(session, lang)
        roles, options = list(session.settings.roles), dict(session.settings.options)
        state = session.game()  # (None: a lobby, no game yet)
        if state is not None:
            cfg = state.config
            roles, options = list(cfg.roles), dict(cfg.options)
        text = rules_text(table, roles, options)
        config = state.config if state is not None else lobby.config(session, min(max(len(session.players), 5), 10))
        text += "\n\n" + reveal_text(table, config)
    else:
        text = Html("\n\n").join(
            rules_text(Table(chat_id=chat.id, game_id="", lang=lang, theme=th), [], {})
            for th in ("avalon", "resistance")
        )
    await finish(deps, job, Plan(answer=text))


async def cmd_start(deps: Deps, job: Job, args: str) -> None:
    user = job.user
    if job.chat.type != "private":
        await cmd_help(deps, job, args)
        return
    lang = lang_of(user)
    parsed = parse_start_payload(args) if args else None
    if parsed and parsed[0] == "j":
        _, chat_id, game_id = parsed
        plan = transact(deps, job, chat_id, lambda s: lobby.join(deps, s, user, game_id, via_start=True))
        if plan.answer and not plan.outs:
            # could not join: still record that the user can be reached
            rec = deps.mark_user(user.id, started=True, blocked=False, name=display_name(user), lang=lang)
            plan.answer = texts.t("start.join_failed", own_lang(user, rec) or lang, reason=plan.answer)
        await finish(deps, job, plan)
        return
    rec = deps.mark_user(user.id, job.update_id, started=True, blocked=False, name=display_name(user), lang=lang)
    if rec is None:
        return  # a redelivered /start: it was answered the first time
    if rec.chat is not None:
        session, _ = deps.load(rec.chat)
        if session is not None and seated(session, user.id):
            await reconnect(deps, job, session, user.id)
            return
    await finish(deps, job, Plan(answer=texts.t("start.welcome", own_lang(user, rec) or lang,
                                                name=esc(user.first_name))))


def seat_in_game(s: Session | None, user_id: int) -> int | None:
    """``user_id``'s seat in the game running in ``s`` (None: not seated there, as ``seated`` says)."""
    return s.seat_of(user_id) if s is not None and seated(s, user_id) else None


async def reconnect(deps: Deps, job: Job, session: Session, user_id: int) -> None:
    """A player who (re)opened the private chat gets their role and current prompts again."""

    def decide(s: Session | None) -> Plan:
        seat = seat_in_game(s, user_id)
        if s is None or seat is None:
            raise Reply(texts.t("status.private_none", reply_lang(job, s)))
        if user_id in s.unreachable:
            s.unreachable.remove(user_id)
            plan = Plan(session=s)
        else:
            plan = Plan()
        plan.outs = game_messages.private_status(deps, s, seat, intro=True)
        return plan

    plan = transact(deps, job, session.chat_id, decide)
    await finish(deps, job, plan)


async def lobby_again(deps: Deps, job: Job, s: Session) -> None:
    """The lobby sent anew at the bottom of its chat (the message its buttons are then pressed on)."""
    text, kb = redraw.lobby(deps, s)
    await finish(deps, job, Plan(outs=[Out("send", chat_id=s.chat_id, text=text, keyboard=kb, remember="lobby_msg",
                                           tag="lobby")]))


async def cmd_status(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    if chat.type == "private":
        session = deps.group_of(user.id)
        if session is not None and session.practice and session.status == LOBBY and session.chat_id == chat.id:
            await lobby_again(deps, job, session)  # (a /practice lobby: this chat is its table)
            return
        if session is None or not seated(session, user.id):
            await finish(deps, job, Plan(answer=texts.t("status.private_none", reply_lang(job, session, deps))))
            return

        def private(s: Session | None) -> Plan:  # recorded: a redelivered /status is answered once
            seat = seat_in_game(s, user.id)
            if s is None or seat is None:
                raise Reply(texts.t("status.private_none", reply_lang(job, s)))
            return Plan(outs=game_messages.private_status(deps, s, seat))

        await finish(deps, job, transact(deps, job, session.chat_id, private))
        return
    session, _ = deps.load(chat.id)
    if session is None or not session.active:
        await finish(deps, job, Plan(answer=texts.t("status.none", reply_lang(job, session))))
        return
    if session.status == LOBBY:
        await lobby_again(deps, job, session)
        return

    def group(s: Session | None) -> Plan:  # recorded: a redelivered /status is answered once
        if s is None or s.status != PLAYING:
            raise Reply(texts.t("status.none", reply_lang(job, s)))
        state = game_of(s)
        table = deps.table(s)
        pv = public_view(state)
        outs = [Out("send", chat_id=chat.id, text=board(table, pv, names=True), remember="board_msg",
                    tag="board", keyboard=board_keyboard(table, deps.codec))]
        if s.board_msg:  # the board this one replaces: without its button (only the latest is kept current)
            outs.insert(0, Out("markup", chat_id=chat.id, message_id=s.board_msg, keyboard=None, tag="stale"))
        now = serial(state)
        if pv["stage"] == "vote" or any(p.kind == "vote" for seat in range(state.n) for p in prompts(state, seat)):
            text, kb = vote_message(table, pv, deps.codec, now)
            outs.append(Out("send", chat_id=chat.id, text=text, keyboard=kb, tag="vote", live=now))
        quest = round_message.status(table, deps.codec, state, pv)  # the quest's cards, while they are played
        return Plan(outs=outs + ([quest] if quest is not None else []))

    await finish(deps, job, transact(deps, job, chat.id, group))


async def cmd_cancel(deps: Deps, job: Job, args: str) -> None:
    try:
        await cancel_game(deps, job)
    except Exception as exc:  # /cancel must always work: else the group could never play again
        if job.committed or transient(exc):
            raise
        if not isinstance(exc, DamagedSession):  # a bug, or a state this version cannot play
            log.exception("update %s: /cancel failed; closing what can be read", job.update_id)
        await cancel_damaged(deps, job)


async def cancel_game(deps: Deps, job: Job) -> None:
    chat = job.chat
    user = job.user
    session, _ = deps.load(chat.id)
    if chat.type == "private" and (session is None or not session.practice or not session.active):
        # (in private, /cancel ends a /practice game: that chat is its table)
        await finish(deps, job, Plan(answer=texts.t("error.group_only", deps.private_lang(user, session))))
        return
    if session is None or not session.active:
        await finish(deps, job, Plan(answer=texts.t("cancel.nothing", reply_lang(job, session))))
        return
    allowed = user.id == session.host or await deps.io.is_admin(chat.id, user.id)
    if not allowed:
        await finish(deps, job, Plan(answer=texts.t("cancel.not_allowed", session.lang)))
        return
    game_id = session.game_id

    def decide(s: Session | None) -> Plan:
        if s is None or not s.active or s.game_id != game_id:
            raise Reply(texts.t("cancel.nothing", reply_lang(job, s)))
        return close(deps, s, display_name(user))

    plan = transact(deps, job, chat.id, decide)
    await finish(deps, job, plan)


async def cancel_damaged(deps: Deps, job: Job) -> None:
    """/cancel of a game that does not load (or cannot be cancelled the usual way): the host or a
    group admin closes what can be salvaged (gamebot.storage.recovery), so that the group can play again."""
    chat_id, user = job.chat.id, job.user
    stored = deps.repo.get(chat_key(chat_id))
    if stored is None:
        await finish(deps, job, Plan(answer=texts.t("cancel.nothing", lang_of(user))))
        return
    salvaged = recovery.salvage(chat_id, stored.body)
    s = recovery.closed(salvaged)
    if user.id != s.host and not await deps.io.is_admin(chat_id, user.id):
        await finish(deps, job, Plan(answer=texts.t("cancel.not_allowed", reply_lang(job, s))))
        return
    plan = Plan(outs=salvaged_closing(salvaged))
    s.keyboards, s.pinned = [], None
    if (gone := again_gone(s)) is not None:  # (the last game's "Play again", if it can do nothing any more)
        plan.outs.append(gone)
        s.again_msg = s.again_game = None
    s.mark_seen(job.update_id)
    deps.repo.put(Item(key=chat_key(chat_id), body=s.body()), stored.version)  # a conflict: redelivered
    job.committed = True
    text = deps.table(s).t("damaged.cancelled", name=esc(display_name(user)))
    plan.outs.append(Out("send", chat_id=chat_id, text=text, tag="end"))
    await finish(deps, job, plan)


def salvaged_closing(s: Session) -> list[Out]:
    """What the /cancel of a session that does not load can still close, from what was salvaged of it:
    the buttons of every message it knows (the lobby, the board, the round message, each decision's),
    and the board it pinned unpinned (its text can no longer be drawn in its final state)."""
    known = [(s.chat_id, m) for m in (s.lobby_msg, s.board_msg, s.vote_msg) if m]
    known += [(k.chat, k.msg) for k in s.keyboards]
    outs = [Out("markup", chat_id=chat, message_id=msg, keyboard=None, essential=False, tag="stale")
            for chat, msg in dict.fromkeys(known)]
    if s.pinned:
        outs.append(Out("unpin", chat_id=s.chat_id, message_id=s.pinned, essential=False, tag="unpin"))
    return outs


def closing(s: Session, table: Table, pv: PublicView, round_now: Out | None = None) -> list[Out]:
    """A cancelled game's messages closed for good: the buttons of every decision still on screen
    taken away (the round message's /status copies, the Leader's picker, the private prompts), the round
    message as it stood, without its time limit (``round_now``; its /status copies of the same decision
    show that too), then the board in its final
    state, without its button (and the pinned one, if /status sent a newer board since): it stays
    pinned, as at the normal end, until the group's next lobby. Essential, like the normal end's board:
    a full group budget makes them wait, never drops them."""
    boards = [m for m in dict.fromkeys((s.board_msg, s.pinned)) if m]
    redrawn = {(round_now.chat_id, round_now.message_id)} if round_now is not None else set()
    closed = round_closings(s.keyboards, [round_now]) if round_now is not None else {}  # (its /status copies too)
    outs = [ended_out(k, closed, essential=True)
            for k in s.keyboards if not (k.chat == s.chat_id and k.msg in boards) and (k.chat, k.msg) not in redrawn]
    if round_now is not None:
        outs.append(round_now)
    final = board(table, pv, status="cancelled")
    outs += [Out("edit", chat_id=s.chat_id, message_id=m, text=final, keyboard=None, tag="board",
                 view="board" if m == s.board_msg else None) for m in boards]
    return outs


def close(deps: Deps, s: Session, by: str, removed: bool = False) -> Plan:
    """Cancel the lobby or game of ``s`` (``by``: who; ``removed``: the bot was removed from the group)."""
    table = deps.table(s)
    plan = Plan(session=s)
    was_playing = s.status == PLAYING
    s.status = CANCELLED
    s.sel = {}
    if was_playing:
        state = game_of(s)
        pv = public_view(state)
        pv["roles"] = list(state.roles)  # the game is over: every role may be shown
        pv["sides"] = [x.value for x in state.sides]
        plan.writes.append(archive(deps, s, state, pv))
    if removed:  # the bot is no longer in the group: tell the players privately
        for seat, p in enumerate(s.players):
            t = deps.table(s, player_lang(s, seat))
            plan.outs.append(Out("send", chat_id=p.id, user_id=p.id, essential=False, tag="removed",
                                 text=t.t("end.removed", title=esc(s.title))))
        return plan
    if not was_playing:
        if s.lobby_msg:
            plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, tag="lobby",
                                 text=table.t("cancel.lobby", name=esc(by))))
        else:
            plan.outs.append(Out("send", chat_id=s.chat_id, tag="notice", text=table.t("cancel.lobby", name=esc(by))))
        return plan
    round_now = round_message.as_it_stood(s, deps.table(s), deps.codec, state, public_view(state))
    plan.outs.extend(closing(s, table, pv, round_now))  # (the settling finds no button left to take away)
    for text in end_text.game_over(table, pv, cancelled_by=by):
        plan.outs.append(Out("send", chat_id=s.chat_id, text=text, tag="end"))
    return plan
