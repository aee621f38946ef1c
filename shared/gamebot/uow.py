"""The unit of work: load a chat's session, decide, commit with a version check, then deliver.

``commit`` runs one attempt under ``store.retrying``: read the chat's session (one read), let the
decision change it, sort the operations it produced (``gamebot.effects``: essential ones into the
outbox, progress sent only within the group's budget), bring the chat's alarm up to date
(``gamebot.alarm``), record the update id, take the delivery lease and write the session back with a
condition on the version read. A conflict re-runs the attempt from a fresh read; a redelivered update
(its id is recorded) is applied once, and only what its first delivery left undelivered goes out.

``deliver`` sends after the commit: each chat's operations in order, the chats at the same time (at
most ``IN_FLIGHT`` calls at once), while the scheduler calls run in a worker thread; then it writes
once (the ack) what was delivered and what the calls taught (message ids, unreachable players...).
What waits (Telegram's flood control) wakes the chat through its alarm; a failure of the process leaves
it to the redelivery, the chat's next update or the alarm.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from .delivery import Facts, held_back, learn, to_effect, to_out
from .effects import LEASE_SECONDS, RECEIPT_DAYS, Budget, Effect, Lease, receipts_key
from .session import Session, chat_key
from .steps import Plan, Reply, Step
from .store import Item, Repository, Write, retrying
from .telegram_io import Out, Result

log = logging.getLogger("gamebot.uow")

IN_FLIGHT = 16  # Bot API calls at once (the bot may make about 30 per second in all; the HTTP pool holds 16)
MAX_DRAIN = 3  # delivery rounds one update may run (notices found by the ack, entries others left)
RETRY_LATER = 5.0  # seconds before an entry that failed on the network is tried again (times its tries)
GIVE_UP = 8  # tries of an entry that keeps failing (5xx, network) before it is dropped (about 3 minutes)


class UnitOfWork:
    def __init__(self, repo: Repository, io: Any, clock: Callable[[], float] = time.time,
                 plan_timers: Callable[[Session, Any], None] | None = None,
                 schedule: Callable[[list[Any]], None] | None = None,
                 arm: Callable[[Session, float, set[int], bool], list[Any]] | None = None,
                 follow_up: Callable[[Session, Facts], list[Out]] | None = None,
                 photo: Callable[[Session, Effect], Out | None] | None = None,
                 settle: Callable[[Plan], None] | None = None,
                 refresh: Callable[[Session, str], Out | None] | None = None,
                 tally: Callable[[Effect], None] | None = None,
                 budget: Budget | None = None) -> None:
        self.repo = repo
        self.io = io
        self.clock = clock
        self.plan_timers = plan_timers or (lambda s, old: None)
        self.schedule = schedule or (lambda calls: None)
        self.arm = arm or (lambda s, now, in_flight, fired: [])
        self.follow_up = follow_up or (lambda s, facts: [])
        self.photo = photo or (lambda s, e: None)
        self.settle = settle or (lambda plan: None)
        self.refresh = refresh or (lambda s, view: None)
        self.tally = tally or (lambda e: None)  # a "stats" effect: count a finished game (blocking store calls)
        self.budget = budget or Budget()

    # --- commit ------------------------------------------------------------------------------------

    def commit(self, owner: int | None, chat_id: int, decide: Callable[[Session | None], Plan],
               user_id: int | None = None) -> Plan:
        """Run ``decide`` under the version-checked write. ``owner``: the update id (None: a timer);
        ``user_id``: who pressed or wrote (a refused move of a player is recorded too, so that its
        redelivery gets the same refusal)."""
        me = owner or 0

        def attempt() -> Plan:
            stored = self.repo.get(chat_key(chat_id))
            session = Session.from_body(stored.body) if stored is not None else None
            version = stored.version if stored is not None else None
            if session is not None and owner is not None and owner in session.seen:
                return self._resume(Plan(), session, version, chat_id, me)  # a redelivery: applied once
            deadline = session.deadline if session is not None else None
            try:
                plan = decide(session)
            except Reply as r:
                plan = Plan(answer=r.text, alert=r.alert, url=r.url)
                if session is None or user_id is None or session.seat_of(user_id) is None:
                    return self._uncommitted(plan, session, version, chat_id, me)
                plan.session = Session.from_body(stored.body)  # as read: decide may have changed its copy
            if plan.session is None and stored is not None and (
                    any(o.essential and o.op in ("send", "photo") for o in plan.outs) or plan.picture is not None
                    or plan.effects):
                plan.session = Session.from_body(stored.body)  # new messages: record the update
            if plan.session is not None and session is not None and plan.session is not session:
                plan.session.outbox.adopt(session.outbox)  # (a new lobby: finished games still count)
            if plan.session is None:
                if plan.writes:
                    self.repo.transact(plan.writes)
                return self._uncommitted(plan, session, version, chat_id, me, written=bool(plan.writes))
            s = plan.session
            self.settle(plan)
            self.plan_timers(s, deadline)
            step = self._sort(s, plan, chat_id, me)
            s.mark_seen(owner)
            self._write(plan, s, version, chat_id)
            step.version, step.committed = plan.version, True
            plan.step = step
            return plan

        return retrying(attempt)

    def resume(self, chat_id: int, owner: int = 0) -> Plan:
        """Deliver what waits in a chat's outbox (a flush timer, or anyone who finds it waiting)."""

        def attempt() -> Plan:
            stored = self.repo.get(chat_key(chat_id))
            if stored is None:
                return Plan()
            return self._resume(Plan(), Session.from_body(stored.body), stored.version, chat_id, owner)

        return retrying(attempt)

    def _take_over(self, s: Session, chat_id: int, owner: int) -> bool:
        """A delivery that did not finish (its function died, or this is its update again): what its
        receipts say was sent is done, so that only the rest goes out again."""
        box = s.outbox
        lease = box.lease
        if lease is None or (lease.owner != owner and lease.until > self.clock()):
            return False  # nothing to take over, or a delivery still running (its ack records what it sent)
        if lease.id and box.effects:
            for name, message_id in self.repo.notes(receipts_key(chat_id, lease.id)).items():
                effect = next((e for e in box.effects if str(e.seq) == name), None)
                if effect is not None:
                    box.done([effect.seq])
                    learn(s, Result(Out(effect.op, chat_id=effect.chat, message_id=effect.message_id,
                                              remember=effect.remember, live=effect.live), True, message_id))
        box.lease = None
        return True

    def _resume(self, plan: Plan, session: Session, version: int | None, chat_id: int, owner: int) -> Plan:
        plan.session = session
        step = self._sort(session, plan, chat_id, owner)
        if step.stored or step.direct or step.took_over or plan.schedule:  # lease, budget, views, alarm: one write
            self._write(plan, session, version, chat_id)
            step.version, step.committed = plan.version, True
        else:
            step.version = version
        # a redelivery: the closing edits of its first delivery again (they may not have been made; an edit
        # made twice changes nothing, so no write records them)
        step.direct += [o for e in session.outbox.replayed(owner) if (o := to_out(e, session, self.photo))]
        plan.step = step
        return plan

    def _uncommitted(self, plan: Plan, session: Session | None, version: int | None, chat_id: int, owner: int,
                     written: bool = False) -> Plan:
        plan.step = Step(chat_id, owner, session, version, direct=[o for o in plan.outs if o.op != "answer"],
                         committed=written)
        return plan

    def _write(self, plan: Plan, s: Session, version: int | None, chat_id: int) -> None:
        item = Item(key=chat_key(chat_id), body=s.body())
        if plan.writes:
            self.repo.transact([Write(item, version), *plan.writes])
        else:
            self.repo.put(item, version)
        plan.version = (version or 0) + 1

    def _sort(self, s: Session, plan: Plan, chat_id: int, owner: int) -> Step:
        """Essential operations into the outbox; the outbox entries that go out now (the group's within
        its budget, under this delivery's lease); progress within what the budget leaves."""
        took_over = self._take_over(s, chat_id, owner)
        now = self.clock()
        box = s.outbox
        group = s.chat_id
        for out in plan.outs:
            if out.essential and out.op != "answer":
                box.add(to_effect(out))
        if plan.picture is not None:  # drawn at delivery, after the text of the end
            chat, _, lang = plan.picture
            box.add(Effect(seq=0, op="photo", chat=chat, picture=lang, tag="picture"))
            plan.picture = None
        for effect in plan.effects:
            box.add(effect)
        plan.effects = []
        stored: list[Effect] = []
        group_full = False
        for e in box.deliverable(now, owner):
            if e.chat == group:
                if group_full:
                    continue
                slot = box.admit(now, True, self.budget)
                if slot is not None:  # over the group's budget: this and what follows it wait
                    box.wait(e.seq, slot)
                    group_full = True
                    continue
            stored.append(e)
        for e in stored:
            e.not_before = None
        if stored:
            box.lease = Lease(owner=owner, until=now + LEASE_SECONDS, id=f"{owner}.{box.next_seq}.{int(now)}")
        progress: list[Out] = []
        views = {o.view for o in plan.outs if o.view}
        for out in plan.outs:
            if out.essential and out.op != "answer":
                box.shown(out.view, now)  # an essential edit carries the view's latest state
        extra = []  # views whose latest state was held back before
        for v in list(box.dirty):
            if v in views:
                continue
            out = self.refresh(s, v)
            if out is None:  # nothing to show any more (the lobby became the board...)
                box.shown(v, now)
            else:
                extra.append(out)
        queued = {e.chat for e in box.effects if e not in stored}  # chats where something waits
        for out in [*plan.outs, *extra]:
            if out.essential or out.op == "answer":
                continue
            if out.chat_id != group:
                if out.chat_id in queued:  # behind what waits there (Telegram said wait): the chat keeps its order
                    box.add(to_effect(out))
                else:
                    progress.append(out)
                continue
            if box.admit_progress(now, out.view, box.group_waiting(group), self.budget) is None:
                progress.append(out)
            # else held back: the view's latest state goes out with a later edit (or when the alarm wakes)
        closing = [o for o in progress if o.op in ("edit", "markup") and (o.chat_id or 0) > 0 and o.keyboard is None]
        if closing:
            box.keep_for_replay(owner, [to_effect(o) for o in closing])
        # what waits (the budget, flood control, another delivery) wakes the chat when due: its alarm
        plan.schedule = [*plan.schedule, *self.arm(s, now, {e.seq for e in stored}, plan.fired)]
        return Step(chat_id, owner, s, None, stored=stored, direct=progress, took_over=took_over,
                    lease=box.lease.id if stored and box.lease is not None else "")

    # --- delivery ----------------------------------------------------------------------------------

    async def deliver(self, plan: Plan) -> list[Result]:
        """Send what the committed ``plan`` may send now, then record it (one write)."""
        step = plan.step
        if step is None:
            return []
        calls = self._aside(self.schedule, plan.schedule)  # the alarm moves while the messages go out
        results: list[Result] = []
        try:
            for _ in range(MAX_DRAIN):
                batch = await self._send(step)
                results += batch
                if step.session is None or not (step.stored or self._worth_recording(batch)):
                    break
                follow, more = self._ack(step, batch)
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
        return results

    @staticmethod
    def _aside(work: Callable[[list[Any]], None], calls: list[Any]) -> asyncio.Future | None:
        """Run ``work(calls)`` (blocking AWS requests) in a worker thread, so that the event loop keeps
        sending meanwhile; None when there is nothing to do."""
        if not calls:
            return None
        return asyncio.ensure_future(asyncio.to_thread(work, list(calls)))

    @staticmethod
    def _worth_recording(results: list[Result]) -> bool:
        """Did progress teach something the session must keep (an id, a blocked user, the board pinned or
        no right to pin, an edit Telegram's flood control held back)?"""
        return any((r.ok and r.out.remember and r.message_id and r.message_id != r.out.message_id)
                   or r.error == "forbidden" or r.out.op == "pin" or held_back(r) for r in results)

    async def _send(self, step: Step) -> list[Result]:
        """Each chat's operations one after the other, the chats at the same time (at most ``IN_FLIGHT``
        calls at once): a chat never waits for another's calls."""
        outs = [to_out(e, step.session, self.photo) for e in step.stored if e.op != "stats"]
        outs += list(step.direct)
        limit = asyncio.Semaphore(IN_FLIGHT)
        tallies = [self._tally(e) for e in step.stored if e.op == "stats"]  # beside the chats' calls

        async def chain(ops: list[Out]) -> list[Result]:
            done: list[Result] = []
            for i, out in enumerate(ops):
                async with limit:
                    result = (await self.io.run([out]))[0]
                if result.ok and result.message_id and out.seq is not None and out.op in ("send", "photo"):
                    # noted before anything else runs (no await in between): a death after this call
                    # can only repeat this one message if Telegram's answer itself was lost
                    self._receipt(step, out.seq, result.message_id)
                done.append(result)
                if result.error == "retry_after":  # Telegram said wait: the chat's later operations wait too;
                    # its progress is held back as if Telegram had refused it (stored entries stay stored)
                    done += [Result(o, False, error="retry_after", detail=result.detail)
                             for o in ops[i + 1:] if o.seq is None]
                    break
            return done

        per_chat: dict[int | None, list[Out]] = {}
        for o in outs:
            if o is not None:
                per_chat.setdefault(o.chat_id, []).append(o)
        return [r for done in await asyncio.gather(*tallies, *(chain(ops) for ops in per_chat.values()))
                for r in done]

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

    def _receipt(self, step: Step, seq: int, message_id: int) -> None:
        if not step.lease:
            return
        try:
            self.repo.note(receipts_key(step.chat_id, step.lease), str(seq), message_id,
                           int(self.clock()) + RECEIPT_DAYS * 86400)
        except Exception:  # the ack still records it; only a death before the ack would send it again
            log.warning("could not note the receipt of message %s in chat %s", message_id, step.chat_id)

    def _ack(self, step: Step, results: list[Result]) -> tuple[Step | None, list[Any]]:
        """Record the delivery in one version-checked write (re-read on a conflict). Returns the next
        round of delivery when the write left deliverable entries (notices, entries others added), and
        the scheduler calls the write committed (the alarm)."""
        now = self.clock()
        by_seq = {r.out.seq: r for r in results if r.out.seq is not None}
        facts = Facts.of(results)
        tries: list[int] = []
        next_step: list[Step | None] = [None]
        committed: list[Any] = []

        def attempt() -> None:
            if not tries:
                session, version = Session.from_body(step.session.body()), step.version
            else:
                stored = self.repo.get(chat_key(step.chat_id))
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
                        box.add(to_effect(r.out)).not_before = until
            for out in self.follow_up(session, facts):
                box.add(to_effect(out))
            if box.lease is not None and box.lease.owner == step.owner:
                box.lease = None
            plan = Plan(session=session)
            follow = self._sort(session, plan, step.chat_id, step.owner) if box.effects else None
            if follow is None:
                plan.schedule = self.arm(session, now, set(), False)
            item = Item(key=chat_key(step.chat_id), body=session.body())
            self.repo.put(item, version)
            committed[:] = plan.schedule
            if follow is not None and follow.stored:
                follow.session, follow.version, follow.committed = session, (version or 0) + 1, True
                next_step[0] = follow

        try:
            retrying(attempt)
        except Exception:
            log.exception("could not record a delivery in chat %s", step.chat_id)
            return None, []
        return next_step[0], committed
