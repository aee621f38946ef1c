"""After the commit: send what it decided, then record what went out (one write, the ack).

``deliver`` sends each chat's operations in order, the chats at the same time (at most ``IN_FLIGHT``
calls at once), while the scheduler calls (the chat's alarm) and the counting of a finished game run in
worker threads. Nothing is written between the calls: the ack writes, under a version check, what was
delivered and what the calls taught (message ids, unreachable players...); what waits (Telegram's flood
control, the group's budget, an entry that failed) wakes the chat through its alarm. A death before the
ack leaves the delivery to the redelivery, the chat's next update or the alarm (``uow.UnitOfWork`` takes
a dead delivery over): what it had sent goes out again, nothing is lost. The counting of a finished game
and the /nextgame notices start once the chat's first message has been answered, so that they never
hold the result's text back.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from gamebot import observe
from gamebot.botapi.telegram_io import Out, Result, TelegramIO
from gamebot.outbox.delivery import Facts, held_back, learn, to_effect, to_out
from gamebot.outbox.plan import Plan, Step
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage.effects import Effect
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item, retrying
from gamebot.timing.alarm import Schedule
from gamebot.timing.policy import closing_reminders

log = logging.getLogger("gamebot.outbox.courier")

TALLIED = ("stats", "idle")  # outbox entries counted in the store (``tally``), no Bot API call of their own
IN_FLIGHT = 16  # Bot API calls at once (the bot may make about 30 per second in all; the HTTP pool holds 16)
MAX_DRAIN = 3  # delivery rounds one update may run (notices found by the ack, entries others left)
RETRY_LATER = 5.0  # seconds before an entry that failed on the network is tried again (times its tries)
GIVE_UP = 8  # tries of an entry that keeps failing (5xx, network) before it is dropped (about 3 minutes)


@dataclass
class Notices:
    """What a delivery calls for (``compose.follow_up`` decides it; the ack applies it, :meth:`Courier.learnt`):
    messages to the group, and what the session learns with them."""

    told: list[Out] = field(default_factory=list)  # the pin hint, the players the bot cannot reach any more
    lost: list[Out] = field(default_factory=list)  # the prompts that could not be sent, announced
    pin_hint: bool = False  # the host is told now how to let the bot pin the board (once a session)
    unreachable: list[int] = field(default_factory=list)  # players now told to be unreachable (once each)


class Courier:
    """Delivers what ``uow``'s commits stored, through ``io`` (``telegram_io.TelegramIO``)."""

    def __init__(self, uow: UnitOfWork, io: TelegramIO,
                 schedule: Callable[[list[Schedule]], None] | None = None,
                 follow_up: Callable[[Session, Facts], Notices] | None = None,
                 mark_blocked: Callable[[int], object] | None = None,
                 tally: Callable[[Effect], None] | None = None,
                 notify: Callable[[Effect, Session | None, int], Awaitable[Result]] | None = None) -> None:
        self.uow = uow
        self.io = io
        self.schedule = schedule or (lambda calls: None)
        self.follow_up = follow_up
        self.mark_blocked = mark_blocked or (lambda user_id: None)  # a user's record: they blocked the bot
        self.tally = tally or (lambda e: None)  # a "stats" or "idle" effect: count a finished game (blocking store calls)
        self.notify = notify  # a "nextgame" effect: tell a batch of the subscribers (its Result says if more wait)

    async def deliver(self, plan: Plan) -> list[Result]:
        """Send what the committed ``plan`` may send now, then record it (one write)."""
        step = plan.step
        if step is None:
            return []
        calls = self._aside(self.schedule, plan.schedule)  # the alarm moves while the messages go out
        results: list[Result] = []
        left = step.session  # the session as the last write left it: what waits in its outbox
        try:
            for _ in range(MAX_DRAIN):
                batch = await self._send(step)
                results += batch
                if step.session is None or not (step.stored or self._worth_recording(batch)):
                    break
                follow, more, left = self._ack(step, step.session, batch)
                if more:
                    if calls is not None:
                        await calls  # (in order: the commit's alarm before the one the ack sets)
                    calls = self._aside(self.schedule, more)
                if follow is None:
                    break
                step = follow
        finally:
            if calls is not None:
                await calls
        if left is not None:  # (for the operator: an outbox that keeps growing or ageing is stuck)
            observe.current().outbox_left(len(left.outbox.effects), left.outbox.oldest(self.uow.clock()))
        return results

    @staticmethod
    def _aside(work: Callable[[list[Schedule]], None], calls: list[Schedule]) -> asyncio.Future[None] | None:
        """Run ``work(calls)`` (blocking AWS requests) in a worker thread, so that the event loop keeps
        sending meanwhile; None when there is nothing to do."""
        if not calls:
            return None
        return asyncio.ensure_future(asyncio.to_thread(work, list(calls)))

    @staticmethod
    def _worth_recording(results: list[Result]) -> bool:
        """Did progress teach something the session must keep (an id, a blocked user, the board pinned or
        no right to pin, an edit Telegram's flood control held back, a reminder to delete later)?"""
        return any((r.ok and r.out.remember and r.message_id and r.message_id != r.out.message_id)
                   or (r.ok and r.out.expires_with and r.message_id)
                   or r.error == "forbidden" or r.out.op == "pin" or held_back(r) for r in results)

    async def _send(self, step: Step) -> list[Result]:
        """Each chat's operations one after the other, the chats at the same time (at most ``IN_FLIGHT``
        calls at once). A finished game's picture is drawn when its turn comes, and its statistics counted
        once the chat's first message (the result's text) has been answered: neither holds the text back."""
        session = step.session
        per_chat: dict[int | None, list[Out | Effect]] = {}
        for e in step.stored:
            if e.op not in (*TALLIED, "nextgame"):
                per_chat.setdefault(e.chat, []).append(e)
        for o in step.direct:
            per_chat.setdefault(o.chat_id, []).append(o)
        later = [e for e in step.stored if e.op in (*TALLIED, "nextgame")]
        limit = asyncio.Semaphore(IN_FLIGHT)
        text_out = asyncio.Event()  # the chat's first message (the end's text) has been answered
        if step.chat_id not in per_chat:
            text_out.set()

        async def chain(chat: int | None, ops: list[Out | Effect]) -> list[Result]:
            done: list[Result] = []
            try:
                for i, item in enumerate(ops):
                    out = to_out(item, session, self.uow.photo) if isinstance(item, Effect) else item
                    if out is None:
                        continue
                    async with limit:
                        result = (await self.io.run([out]))[0]
                    done.append(result)
                    if chat == step.chat_id and out.op in ("send", "photo"):
                        text_out.set()
                    if result.error == "retry_after":  # Telegram said wait: the chat's later operations wait
                        # too; its progress is held back as if Telegram had refused it (stored entries stay)
                        done += [Result(o, False, error="retry_after", detail=result.detail)
                                 for o in ops[i + 1:] if isinstance(o, Out) and o.seq is None]
                        break
            finally:
                if chat == step.chat_id:
                    text_out.set()
            return done

        async def counted() -> list[Result]:
            await text_out.wait()
            found = await asyncio.gather(*(self._tally(e) if e.op in TALLIED else self._notify(e, step)
                                           for e in later))
            return [r for rs in found for r in rs]

        chains = [chain(chat, ops) for chat, ops in per_chat.items()]
        *sent, tallied = await asyncio.gather(*chains, counted())
        return tallied + [r for rs in sent for r in rs]

    async def _tally(self, e: Effect) -> list[Result]:
        """A "stats" effect, in a worker thread (store calls): a failure is tried again like a send."""
        out = Out("stats", chat_id=e.chat, tag=e.tag, seq=e.seq)
        try:
            await asyncio.to_thread(self.tally, e)
        except Exception:
            game = e.stats or {}
            log.exception("could not count game %s of chat %s (tried again later)", game.get("game_id"),
                          game.get("chat_id"))
            return [Result(out, False, error="network")]
        return [Result(out, True)]

    async def _notify(self, e: Effect, step: Step) -> list[Result]:
        """A "nextgame" effect: a batch of the subscribers told (a failure is tried again like a send)."""
        out = Out("nextgame", chat_id=e.chat, tag=e.tag, seq=e.seq)
        if self.notify is None:
            return [Result(out, True)]
        try:
            return [await self.notify(e, step.session, step.owner)]
        except Exception:
            log.exception("could not tell the /nextgame subscribers of chat %s (tried again later)", step.chat_id)
            return [Result(out, False, error="network")]

    def learnt(self, session: Session, facts: Facts) -> list[Out]:
        """What a delivery taught, applied (``session``: the one the ack writes): the users who blocked the
        bot marked so, the session's notices decided (``follow_up``) and remembered, the reminders of a
        decision that is over taken away. Returns the messages it calls for, in their order."""
        for uid in facts.blocked:
            self.mark_blocked(uid)
        if self.follow_up is None:
            return []
        notices = self.follow_up(session, facts)
        if notices.pin_hint:
            session.pin_hint = True
        session.unreachable.extend(notices.unreachable)
        return [*notices.told, *closing_reminders(session), *notices.lost]

    def _ack(self, step: Step, written: Session, results: list[Result]
             ) -> tuple[Step | None, list[Schedule], Session | None]:
        """Record the delivery in one version-checked write (re-read on a conflict; ``written``: the
        session as ``step`` wrote or read it, where the first try starts from). Returns the next
        round of delivery when the write left deliverable entries (notices, entries others added), the
        scheduler calls the write committed (the alarm) and the session it wrote (None: no write)."""
        now = self.uow.clock()
        by_seq = {r.out.seq: r for r in results if r.out.seq is not None}
        facts = Facts.of(results)
        tries: list[int] = []
        next_step: list[Step | None] = [None]
        committed: list[Schedule] = []
        wrote: list[Session] = []

        def attempt() -> None:
            if not tries:
                session, version = Session.from_body(written.body()), step.version
            else:
                stored = self.uow.repo.get(chat_key(step.chat_id))
                if stored is None:
                    return
                session, version = Session.from_body(stored.body), stored.version
            tries.append(1)
            box = session.outbox
            for seq, r in by_seq.items():
                if r.error == "retry_after":
                    box.wait(seq, now + float(r.detail or 1))
                elif r.error in ("network", "telegram") and (r.out.op in ("send", "photo") or r.out.essential) \
                        and box.tries(seq) < GIVE_UP:  # (an edit is tried again too: it cannot show twice)
                    box.wait(seq, now + RETRY_LATER * (1 + box.tries(seq)))
                else:
                    if not r.ok and r.error in ("network", "telegram"):
                        log.warning("gave up on %s (%s) in chat %s after %d tries", r.out.op, r.out.tag,
                                    r.out.chat_id, box.tries(seq) + 1)
                    box.done([seq])
                if r.ok:
                    learn(session, r)
            for r in results:
                if r.ok and r.out.seq is None:
                    learn(session, r)
                elif held_back(r):  # not lost: its latest state goes out once Telegram allows
                    until = now + float(r.detail or 1)
                    if r.out.view and r.out.chat_id == session.chat_id:
                        box.hold(r.out.view, until, now)
                    else:
                        box.add(to_effect(r.out, progress=True)).not_before = until
            for out in self.learnt(session, facts):
                box.add(to_effect(out))
            if box.lease is not None and box.lease.owner == step.owner:
                box.lease = None
            plan = Plan(session=session)
            follow = self.uow.sort(session, plan, step.chat_id, step.owner) if box.effects else None
            if follow is None:
                plan.schedule = self.uow.arm(session, now, set(), False)
            box.stamp(now)
            item = Item(key=chat_key(step.chat_id), body=session.body())
            self.uow.repo.put(item, version)
            committed[:] = plan.schedule
            wrote[:] = [session]
            if follow is not None and follow.stored:
                follow.session, follow.version, follow.committed = session, (version or 0) + 1, True
                next_step[0] = follow

        try:
            retrying(attempt)
        except Exception:
            log.exception("could not record a delivery in chat %s", step.chat_id)
            return None, [], None
        return next_step[0], committed, wrote[0] if wrote else None
