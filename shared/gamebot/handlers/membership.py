"""Membership: the bot added to or removed from a group, a player who blocked the bot (or opened it
again), a group that became a supergroup (its chat id changed)."""
from __future__ import annotations

import logging

from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import GROUP_TYPES, Deps, lang_of
from gamebot.handlers.commands import close
from gamebot.handlers.handling import Job, finish, transact
from gamebot.language import texts
from gamebot.outbox.plan import Plan
from gamebot.storage import idle_record, subscribers
from gamebot.storage.session import CANCELLED, Session, chat_key, user_key
from gamebot.storage.store import Item, VersionConflict, Write

log = logging.getLogger("gamebot.core.service")


async def on_my_chat_member(deps: Deps, job: Job) -> None:
    m = job.my_chat_member
    chat = m.chat
    status = m.new_chat_member.status
    if chat.type == "private":
        if status in ("kicked", "left"):
            await user_blocked(deps, job, chat.id)
        elif status == "member":
            deps.mark_user(chat.id, started=True, blocked=False)
        return
    if chat.type not in GROUP_TYPES:
        return
    if status in ("left", "kicked"):
        def decide(s: Session | None) -> Plan:
            if s is None or not s.active:
                return Plan()
            return close(deps, s, "", removed=True)

        plan = transact(deps, job, chat.id, decide)
        await finish(deps, job, plan)
    elif m.old_chat_member.status in ("left", "kicked") and status in ("member", "administrator"):
        lang = lang_of(m.from_user)
        text = texts.t("help.title", lang) + "\n\n" + texts.t("help.body", lang)
        await finish(deps, job, Plan(outs=[Out("send", chat_id=chat.id, text=text, essential=False, tag="hello")]))


async def user_blocked(deps: Deps, job: Job, user_id: int) -> None:
    rec = deps.mark_user(user_id, blocked=True)
    if rec is None or rec.chat is None:  # (None: only for an update id already seen, and none is given)
        return
    chat_id = rec.chat

    def decide(s: Session | None) -> Plan:
        seat = s.seat_of(user_id) if s is not None else None
        if s is None or not s.active or s.game_id != rec.game_id or seat is None:
            return Plan()
        if user_id in s.unreachable:
            return Plan()
        s.unreachable.append(user_id)
        table = deps.table(s)
        return Plan(session=s, outs=[Out("send", chat_id=s.chat_id, tag="blocked",
                                         text=table.t("blocked.group", name=table.mention(seat), link=table.deep_link("r")))])

    plan = transact(deps, job, chat_id, decide)
    await finish(deps, job, plan)


async def migrate(deps: Deps, job: Job, old_id: int, new_id: int) -> None:
    """A group became a supergroup: its chat id changed. Move the session to the new id."""
    session, version = deps.load(old_id)
    if session is None or not session.active:
        return
    target, target_version = deps.load(new_id)
    if target is not None and target.active:
        return
    session.chat_id = new_id
    session.lobby_msg = session.board_msg = session.vote_msg = None
    session.deadline = None  # its timers name the old chat: the next write plans new ones
    writes = [Write(Item(key=chat_key(new_id), body=session.body()), target_version)]
    old = session.model_copy(update={"chat_id": old_id, "status": CANCELLED})
    writes.append(Write(Item(key=chat_key(old_id), body=old.body()), version))
    for p in session.players:
        rec, v = deps.load_user(p.id)
        if rec.chat == old_id:
            writes.append(Write(Item(key=user_key(p.id), body=rec.model_copy(update={"chat": new_id}).body()), v))
    deletes = []
    for move in (subscribers.renamed, idle_record.renamed):  # the group's items of its own move with it
        more, gone = move(deps.repo, old_id, new_id)
        writes += more
        deletes += gone
    try:
        deps.repo.transact(writes, deletes)
        job.committed = True
    except VersionConflict:
        log.warning("migration of a chat raced; leaving it")
