"""``/nextgame`` in a group: the bot tells you in private when the next lobby opens there, once (then
the subscription ends).

The subscribers live in items of their own (``gamebot.storage.subscribers``), never in the chat's item: a
subscription is one write there. A lobby that opens stores one ``nextgame`` effect in the chat's outbox
(:func:`lobby_opened`), whatever the number of subscribers; each delivery of it (:func:`notify`) tells a
bounded batch (``BATCH`` when the chat's alarm delivers, ``BATCH_UPDATE`` beside an update's own messages,
and no longer than ``SECONDS``) and takes each one told out of their item at once, so that nobody is told
twice or lost. Telegram lets a bot send about 30 messages a second, and an invocation may run 25 seconds:
a group with thousands of subscribers is told over several deliveries, the entry waiting ``PAUSE``
between them (the alarm, or the chat's next update, delivers the next batch). Once the lobby is no longer
open, whoever was not told yet stays subscribed and is told when the next one opens.
"""
from __future__ import annotations

import asyncio

from gamebot.botapi.buttons import Join
from gamebot.botapi.telegram_io import Btn, Out, Result
from gamebot.compose.context import Deps, lang_of, own_lang
from gamebot.handlers.handling import Job, finish
from gamebot.language import texts
from gamebot.messages.table import Table, esc
from gamebot.outbox.plan import Plan
from gamebot.storage import recovery, subscribers
from gamebot.storage.effects import Effect
from gamebot.storage.session import LOBBY, Session, chat_key, user_key

BATCH = 300  # subscribers told by one delivery of the chat's alarm (the timer function may run 30 s)
BATCH_UPDATE = 20  # ... by the delivery of an update (beside its own messages, before its answer)
SECONDS = 12.0  # no new notice starts after this long in one delivery (Telegram may be slow)
IN_FLIGHT = 4  # notices sent at once (Telegram allows about 30 messages a second to a bot)
PAUSE = 1.0  # seconds the entry waits before the next batch


async def cmd_nextgame(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    found = deps.repo.get_many([chat_key(chat.id), user_key(user.id)])  # (one read; nothing written there)
    s = Session.from_body(found[chat_key(chat.id)].body) if chat_key(chat.id) in found else None
    lang = lang_of(user, s)
    if s is not None and s.status == LOBBY:
        await finish(deps, job, Plan(answer=texts.t("nextgame.lobby_open", lang)))
        return
    rec = recovery.user_record(user.id, found[user_key(user.id)].body) if user_key(user.id) in found else None
    if rec is None or not rec.reachable:
        link = Table(chat_id=chat.id, game_id="", bot_username=deps.bot_username).link("nextgame")
        await finish(deps, job, Plan(answer=texts.t("nextgame.need_private", lang, link=link)))
        return
    own = own_lang(user, rec)  # told in their own language ("" when we do not speak it: the group's)
    done = subscribers.subscribe(deps.repo, chat.id, user.id, own)
    if done != subscribers.ADDED:
        await finish(deps, job, Plan(answer=texts.t(f"nextgame.{done}", lang)))
        return
    title = esc((s.title if s is not None else "") or chat.title or "")
    text = texts.t("nextgame.subscribed", own or lang, title=title)
    await finish(deps, job, Plan(outs=[Out("send", chat_id=user.id, user_id=user.id, text=text, tag="nextgame",
                                           essential=False)]))  # (in private: nothing more in the group)


def lobby_opened(lobby: Session) -> Effect:
    """The outbox entry that tells the subscribers that ``lobby`` opened (a batch per delivery)."""
    return Effect(seq=0, op="nextgame", chat=0, tag="nextgame", data={"game": lobby.game_id or ""})


async def notify(deps: Deps, effect: Effect, s: Session | None, owner: int) -> Result:
    """Deliver a ``nextgame`` entry: tell a batch of the subscribers (a Join button each), taking each out
    of their item once told (or once it is clear they need not be: seated in the lobby already, or the bot
    cannot reach them). Ok: nobody waits any more, or the lobby closed; else "retry_after": more wait."""
    out = Out("nextgame", chat_id=effect.chat, tag="nextgame", seq=effect.seq)
    if s is None or s.status != LOBBY or s.game_id != (effect.data or {}).get("game"):
        return Result(out, True)  # whoever waits is told when the next lobby opens
    shards = await asyncio.to_thread(subscribers.waiting, deps.repo, s.chat_id)
    quota = [BATCH if owner == 0 else BATCH_UPDATE]
    ends = deps.clock() + SECONDS
    pause = [0.0]
    join = Join().encode(deps.codec, s.chat_id, s.game_id or "")
    tables: dict[str, Table] = {}
    rows = [sorted(shard.subs.items(), key=lambda kv: int(kv[0])) for shard in shards]
    queue = [(shard, *row[i]) for i in range(max(map(len, rows), default=0))  # the shards in turn
             for shard, row in zip(shards, rows, strict=True) if i < len(row)]

    def notice(uid: str, lang: str) -> Out:
        lang = lang if texts.supported(lang) else s.lang
        if lang not in tables:
            tables[lang] = deps.table(s, lang)
        t = tables[lang]
        return Out("send", chat_id=int(uid), user_id=int(uid), tag="nextgame",
                   text=t.t("nextgame.opened", title=esc(s.title)), keyboard=[[Btn(t.t("nextgame.join"), join)]])

    busy: set[str] = set()  # shards a worker is writing: one worker a shard at a time

    async def worker() -> None:
        while quota[0] > 0 and not pause[0] and deps.clock() < ends:
            entry = next((e for e in queue if e[0].key not in busy), None)
            if entry is None:
                return
            queue.remove(entry)
            shard, uid, lang = entry
            busy.add(shard.key)
            try:
                quota[0] -= 1
                seated = s.seat_of(int(uid)) is not None
                result = None if seated else (await deps.io.run([notice(uid, lang)]))[0]
                if result is not None and result.error == "retry_after":
                    pause[0] = max(float(result.detail or 1), PAUSE)  # Telegram says wait: this one stays
                elif result is None or result.error not in ("network", "telegram"):  # told, or never reachable
                    await asyncio.to_thread(shard.strike, deps.repo, uid)
                    if result is not None and result.error == "forbidden":  # (they blocked the bot)
                        await asyncio.to_thread(deps.mark_user, int(uid), blocked=True)
            finally:
                busy.discard(shard.key)

    await asyncio.gather(*(worker() for _ in range(IN_FLIGHT)))
    if not any(shard.subs for shard in shards):
        return Result(out, True)
    return Result(out, False, error="retry_after", detail=str(pause[0] or PAUSE))
