"""Statistics and history: the /stats and /history commands, and what the end of a game adds to its
messages: the picture, and the effect that counts it in the statistics and ratings (``tally``)."""
from __future__ import annotations

from typing import Any

from engine import GameState
from engine.views import PublicView
from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps, lang_of, own_lang
from gamebot.compose.follow_up import picture_out
from gamebot.handlers.handling import Job, finish, reply_lang
from gamebot.language import texts
from gamebot.messages.table import Table, esc
from gamebot.outbox.plan import Plan
from gamebot.storage import recovery
from gamebot.storage.effects import Effect
from gamebot.storage.seats import ai_seats
from gamebot.storage.session import ENDED, Session, chat_key, user_key
from gamebot.storage.store import retrying
from gamebot.story import end_text


def stats_effect(s: Session, state: GameState, final_view: PublicView) -> Effect | None:
    """The outbox entry that counts a game that just ended in the statistics and ratings, delivered
    after the commit (``tally``); None for a game that does not count (cancelled, too few humans, practice)."""
    from gamebot.scores import stats  # only when a game ends: not at cold start

    seats_ai = ai_seats([p.id for p in s.players])  # the seats the bot played itself
    # Humans: neither an AI seat nor a Telegram bot account that joined like a person (``Player.bot``).
    humans = sum(1 for seat, p in enumerate(s.players) if not p.bot and seat not in seats_ai)
    if s.practice or not stats.counts(s.status, humans, len(seats_ai)):  # (a /practice game never counts)
        return None
    idle = getattr(s, "idle", None) or {}  # timeouts per user id (str) this game, when sessions keep them
    o = stats.outcome(s.chat_id, s.game_id or "", [p.id for p in s.players], s.names(), state, final_view,
                      idle if isinstance(idle, dict) else {}, title=s.title, ai_seats=seats_ai)
    return Effect(seq=0, op="stats", chat=0, stats=o.data(), tag="stats")


def tally(deps: Deps, effect: Effect) -> None:
    """Deliver a ``stats`` effect: read the game's statistics items (one batched read) and write them
    in one version-checked transaction (re-run from fresh reads on a conflict). Items that counted this
    game already are left out, so delivering it again changes nothing."""
    from gamebot.scores import stats

    o = stats.Outcome.of(effect.stats or {})

    def attempt() -> None:
        writes = stats.writes(o, deps.repo.get_many(stats.keys(o)))
        if writes:
            deps.repo.transact(writes)

    retrying(attempt)


def end_extras(deps: Deps, s: Session, state: GameState, final_view: PublicView, plan: Plan) -> None:
    """A game has just ended (not cancelled): count it after the commit, and send its picture after the
    text."""
    if s.status != ENDED:
        return
    effect = stats_effect(s, state, final_view)
    if effect is not None:
        plan.effects.append(effect)
    plan.picture = (s.chat_id, dict(s.last or {}), s.lang)


async def cmd_stats(deps: Deps, job: Job, args: str) -> None:
    from gamebot.messages import stats as shown
    from gamebot.scores import stats  # (not at cold start)

    chat = job.chat
    user = job.user
    if chat.type == "private":
        found = deps.repo.get_many([stats.user_stats_key(user.id), user_key(user.id)])  # (one read)
        item, mine = found.get(stats.user_stats_key(user.id)), found.get(user_key(user.id))
        rec = recovery.user_record(user.id, mine.body) if mine is not None else None
        table = Table(chat_id=chat.id, game_id="", lang=own_lang(user, rec) or lang_of(user))
        text = shown.user_text(table, item.body if item else {}, esc(user.first_name or ""))
    else:
        found = deps.repo.get_many([chat_key(chat.id), stats.chat_stats_key(chat.id)])
        session = Session.from_body(found[chat_key(chat.id)].body) if chat_key(chat.id) in found else None
        item = found.get(stats.chat_stats_key(chat.id))
        table = Table(chat_id=chat.id, game_id="", lang=reply_lang(job, session))
        text = shown.group_text(table, item.body if item else {}, esc(chat.title or ""))
    await finish(deps, job, Plan(answer=text))


async def cmd_history(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    if chat.type == "private":
        session = deps.group_of(user.id)
        last = session.last if session is not None else None
        lang = deps.private_lang(user, session)
        if not last or user.id not in (last.get("user_ids") or []):
            await finish(deps, job, Plan(answer=texts.t("history.private_none", lang)))
            return
        target, user_id = user.id, user.id
    else:
        session, _ = deps.load(chat.id)
        last = session.last if session is not None else None
        lang = reply_lang(job, session)
        if not last:
            await finish(deps, job, Plan(answer=texts.t("history.none", lang)))
            return
        target, user_id = chat.id, None
    out = picture_out(target, last, lang, user_id=user_id, essential=True)
    if out is None:  # no picture: the text history instead
        pv: Any = last.get("view") or {}  # stored JSON (a final public view, {} if lost): read defensively
        table = Table(chat_id=target, game_id=str(last.get("game_id") or ""), lang=lang,
                             theme=str(pv.get("theme") or "avalon"), names=list(last.get("names") or []))
        outs = [Out("send", chat_id=target, text=text, user_id=user_id, tag="history")
                for text in end_text.game_over(table, pv)]
    else:
        outs = [out]
    await finish(deps, job, Plan(outs=outs))
