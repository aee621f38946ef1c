"""The vote history of the game in progress, asked for with the board's button or ``/votes``: sent to
whoever asked, in private (the group is not flooded), at most once a minute each. Someone the bot
cannot message is given the link that opens its private chat. The history itself: ``gamebot.story.votes_so_far``.
"""
from __future__ import annotations

from telegram import User

from gamebot.botapi.buttons import Pressed
from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps, lang_of, seated
from gamebot.handlers.handling import Job, finish, game_of, reply_lang
from gamebot.language import texts
from gamebot.outbox.plan import Plan
from gamebot.storage.session import PLAYING, Session, user_key
from gamebot.storage.store import Item, retrying
from gamebot.story import votes_so_far

SENT, SEEN, WAIT, UNREACHABLE = "sent", "seen", "wait", "unreachable"


def take_turn(deps: Deps, user_id: int, update_id: int | None, now: float) -> tuple[str, float]:
    """May ``user_id`` be sent a history now? Records it (one conditional write of their record) and
    the update (a redelivery is not sent again). (outcome, seconds to wait)."""

    def attempt() -> tuple[str, float]:
        rec, version = deps.load_user(user_id)
        if update_id is not None and update_id in rec.seen:
            return SEEN, 0.0
        if not rec.reachable:
            return UNREACHABLE, 0.0
        if rec.votes_at is not None and now - rec.votes_at < votes_so_far.WAIT_SECONDS:
            return WAIT, rec.votes_at + votes_so_far.WAIT_SECONDS - now
        rec = rec.model_copy(update={"votes_at": int(now)})
        if update_id is not None:
            rec.mark_seen(update_id)
        deps.repo.put(Item(key=user_key(user_id), body=rec.body()), version)
        return SENT, 0.0

    return retrying(attempt)


async def send(deps: Deps, job: Job, s: Session, user: User, lang: str) -> None:
    """Send ``s``'s history to ``user`` privately, once a minute; the answer says what happened."""
    outcome, wait = take_turn(deps, user.id, job.update_id, deps.clock())
    table = deps.table(s, lang)
    if outcome == SEEN:
        await finish(deps, job, Plan())  # a redelivery: it was sent the first time
        return
    if outcome == UNREACHABLE:
        link = table.deep_link("r")
        await finish(deps, job, Plan(answer=table.t("votes.need_private", link=link), url=link or None,
                                     alert=not link))
        return
    in_group = job.callback_id is None and job.chat.id != user.id  # /votes in the group (a command: a chat)
    if outcome == WAIT:  # (said in private to a command in the group: nothing more in the group)
        note = votes_so_far.wait_text(lang, wait)
        await finish(deps, job, Plan(outs=[Out("send", chat_id=user.id, user_id=user.id, text=note, essential=False,
                                               tag="votes")]) if in_group else Plan(answer=note))
        return
    data = votes_so_far.story(game_of(s), s.names(), s.game_id or "")
    answer = table.t("votes.sent") if job.callback_id is not None else None
    results = await finish(deps, job, Plan(outs=votes_so_far.outs(table, data, user.id), answer=answer))
    failed = [r for r in results if not r.ok and r.out.op == "photo"]
    if failed and failed[0].error == "forbidden":
        deps.mark_user(user.id, blocked=True)
    elif failed:  # the picture could not be sent: the text instead
        await deps.io.run(votes_so_far.outs(table, data, user.id, drawn=False))


async def on_button(deps: Deps, job: Job, pressed: Pressed) -> None:
    """The board's button, pressed by anyone in the group."""
    user = job.query.from_user
    s, _ = deps.load(pressed.chat_id)
    lang = lang_of(user, s)
    if s is None or s.status != PLAYING or s.game_id != pressed.game_id or pressed.op is None:
        await finish(deps, job, Plan(answer=texts.t("error.stale", lang)))
        return
    await send(deps, job, s, user, lang)


async def cmd_votes(deps: Deps, job: Job, args: str) -> None:
    """``/votes``: in a group, its game's history; in private, the game of the group they play in."""
    chat = job.chat
    user = job.user
    if chat.type == "private":
        s = deps.group_of(user.id)
        if s is None or not seated(s, user.id):
            await finish(deps, job, Plan(answer=texts.t("votes.private_none", lang_of(user, s))))
            return
        await send(deps, job, s, user, lang_of(user, s))
        return
    s, _ = deps.load(chat.id)
    if s is None or s.status != PLAYING:
        await finish(deps, job, Plan(answer=texts.t("votes.none", reply_lang(job, s))))
        return
    await send(deps, job, s, user, lang_of(user, s))
