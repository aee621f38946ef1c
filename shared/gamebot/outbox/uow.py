"""The unit of work: load a chat's session, decide, commit with a version check.

``commit`` runs one attempt under ``store.retrying``: read the chat's session (one read), let the
decision change it, sort the operations it produced (``gamebot.storage.effects``: essential ones into the
outbox, progress sent only within the group's budget), bring the chat's alarm up to date
(``gamebot.timing.alarm``), record the update id, take the delivery lease and write the session back with a
condition on the version read. A conflict re-runs the attempt from a fresh read; a redelivered update
(its id is recorded) is applied once, and only what its first delivery left undelivered goes out.
A press that changes nothing (refused, or repeated) is answered and writes nothing to the chat's item
(``refusals_key``).

What the commit decided is sent afterwards by ``gamebot.outbox.courier.Courier``, which takes back the
step ``commit`` returns (``Plan.step``).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from gamebot import observe
from gamebot.botapi.telegram_io import Out
from gamebot.outbox.delivery import to_effect, to_out
from gamebot.outbox.plan import Plan, Reply, Step
from gamebot.storage.effects import LEASE_SECONDS, UNLIMITED, Budget, Effect, Lease, Outbox
from gamebot.storage.session import Deadline, LiveKeyboard, Session, chat_key, keeps_moved_out
from gamebot.storage.store import Item, Repository, VersionConflict, Write, retrying
from gamebot.timing.alarm import Schedule

log = logging.getLogger("gamebot.outbox.uow")

def refusals_key(chat_id: int, user_id: int) -> str:
    """The notes item of one player's refused presses in one chat (``Repository.note``: one attribute per
    update id, no version, so it never contends with the chat's item nor with other players). A refusal
    writes nothing to the chat's item: a final one (``Reply.final``: already voted, a button of a decision
    that is over, a move that is not the presser's) is simply refused again when redelivered; one that the
    same press could pass later (not yet their turn, a team not complete...) is noted here, and read back
    only when a press older than the chat's last applied update is about to be applied. The item lives a
    day from its first note and keeps the latest ``lifetimes.MAX_NOTES`` (``gamebot.storage.lifetimes``)."""
    return f"refused#{chat_id}#{user_id}"


@dataclass
class Settled:
    """What settling a plan before it is sorted decided (the service's ``settle``: ``compose.follow_up``),
    applied by the commit (:meth:`UnitOfWork.settled`): the plan's operations as they go, the decision
    buttons on screen after them (None: unchanged), whether the last game's "Play again" is forgotten."""

    outs: list[Out]
    keyboards: list[LiveKeyboard] | None = None
    again_gone: bool = False


class UnitOfWork:
    """Load a chat, let a decision change it, write it back under a version check (with the update id and
    the outbox), retry on a conflict. What the commit decided is sent afterwards by ``courier.Courier``."""

    def __init__(self, repo: Repository, clock: Callable[[], float] = time.time,
                 plan_timers: Callable[[Session, Deadline | None], list[Out]] | None = None,
                 arm: Callable[[Session, float, set[int], bool], list[Schedule]] | None = None,
                 photo: Callable[[Session, Effect], Out | None] | None = None,
                 settle: Callable[[Plan], Settled] | None = None,
                 refresh: Callable[[Session, str], Out | None] | None = None,
                 budget: Budget | None = None,
                 upgrade: Callable[[Repository, Item], Item | None] | None = None) -> None:
        self.repo = repo
        self.clock = clock
        self.plan_timers = plan_timers or (lambda s, old: [])
        self.arm = arm or (lambda s, now, in_flight, fired: [])
        self.photo = photo or (lambda s, e: None)
        self.settle = settle or (lambda plan: Settled(plan.outs))
        self.refresh = refresh or (lambda s, view: None)
        self.budget = budget or Budget()
        self.upgrade = upgrade or (lambda repo, item: None)  # an earlier version's item: moved, then read

    # --- commit ------------------------------------------------------------------------------------

    def commit(self, owner: int | None, chat_id: int, decide: Callable[[Session | None], Plan],
               user_id: int | None = None) -> Plan:
        """Run ``decide`` under the version-checked write. ``owner``: the update id (None: a timer);
        ``user_id``: who pressed or wrote (a refusal writes nothing to the chat's item; a player's refusal
        that the same press could pass later is noted apart, ``refusals_key``, so that its redelivery gets
        the same refusal: ``Plan.early``)."""
        me = owner or 0
        noted: dict[str, bool] = {}  # whether this update was refused before: read once, whatever the retries

        def decided(stored: Item | None) -> Plan:
            session = Session.from_body(stored.body) if stored is not None else None
            version = stored.version if stored is not None else None
            self._observe(session, chat_id, owner)
            before = session.status if session is not None else None
            if session is not None and owner is not None and owner in session.seen:
                return self._resume(Plan(), session, version, chat_id, me, again=False)  # a redelivery: applied once
            deadline = session.deadline if session is not None else None
            try:
                plan = decide(session)
            except Reply as r:  # a refusal writes nothing to the chat's item (see ``refusals_key``)
                if not r.final and owner is not None and user_id is not None and session is not None \
                        and session.seat_of(user_id) is not None:
                    self.repo.note(refusals_key(chat_id, user_id), str(owner), 1)  # (its life: lifetimes)
                plan = Plan(answer=r.text, alert=r.alert, url=r.url)
                return self._uncommitted(plan, session, version, chat_id, me)
            if plan.session is None and stored is not None and (
                    any(o.essential and o.op in ("send", "photo") for o in plan.outs) or plan.picture is not None
                    or plan.effects):
                plan.session = Session.from_body(stored.body)  # new messages: record the update
            if (plan.session is not None or plan.writes) and self._refused_before(session, owner, user_id, chat_id,
                                                                                  noted):
                return self._uncommitted(Plan(early=True), session, version, chat_id, me)
            if plan.session is None:
                if plan.writes:
                    self.repo.transact(plan.writes)
                return self._uncommitted(plan, session, version, chat_id, me, written=bool(plan.writes))
            s = plan.session
            self.settled(plan, s)
            plan.outs += self.plan_timers(s, deadline)  # (and the reminders of a decision that is over go)
            step = self.sort(s, plan, chat_id, me)
            s.mark_seen(owner)
            self._write(plan, s, version, chat_id)
            observe.current().about(chat_id, s.game_id)
            if s.status != before:
                observe.current().status_changed(before, s.status)
            step.version, step.committed = plan.version, True
            plan.step = step
            return plan

        def attempt() -> Plan:
            return decided(self._read(chat_key(chat_id)))

        return retrying(attempt)

    def settled(self, plan: Plan, s: Session) -> None:
        """Apply what settling ``plan`` decided (``s``: the session it writes)."""
        settled = self.settle(plan)
        plan.outs = settled.outs
        if settled.keyboards is not None:
            s.keyboards = settled.keyboards
        if settled.again_gone:
            s.again_msg = s.again_game = None

    def _observe(self, session: Session | None, chat_id: int, owner: int | None) -> None:
        """Tell the operator which chat and game this is, and whether an update (not a timer) finds the
        chat's alarm overdue: the timer that should have woken it has not run (``gamebot.observe``)."""
        watcher = observe.current()
        watcher.about(chat_id, session.game_id if session is not None else None)
        if owner is not None and session is not None and session.alarm is not None:
            overdue = self.clock() - session.alarm.at
            if overdue > 0:
                watcher.alarm_overdue(overdue)

    def _refused_before(self, session: Session | None, owner: int | None, user_id: int | None, chat_id: int,
                        noted: dict[str, bool]) -> bool:
        """Was this update, now about to be applied, refused when it was first handled? Only a press older
        than an update the chat has applied since can have been (a redelivery, or a press another one
        overtook): for it, and only for it, its presser's refusals item is read (once: ``noted``)."""
        if owner is None or user_id is None or session is None or not session.seen or owner > max(session.seen):
            return False
        if "refused" not in noted:
            noted["refused"] = str(owner) in self.repo.notes(refusals_key(chat_id, user_id))
        return noted["refused"]

    def resume(self, chat_id: int, owner: int = 0) -> Plan:
        """Deliver what waits in a chat's outbox (a flush timer, or anyone who finds it waiting)."""

        def attempt() -> Plan:
            stored = self._read(chat_key(chat_id))
            if stored is None:
                return Plan()
            return self._resume(Plan(), Session.from_body(stored.body), stored.version, chat_id, owner)

        return retrying(attempt)

    def _read(self, key: str) -> Item | None:
        return self._upgraded(self.repo.get(key))

    def _upgraded(self, stored: Item | None) -> Item | None:
        """The chat's item as this version keeps it: an item of an earlier version has what now lives in
        items of its own moved there first (one version-checked transaction: ``recovery.move_out``)."""
        if stored is None or not keeps_moved_out(stored.body):
            return stored
        try:
            return self.upgrade(self.repo, stored) or stored
        except VersionConflict:
            raise  # (read again and retry)
        except Exception:  # the group plays on with the item as it is (nothing is dropped from it)
            log.exception("could not move the history out of chat item %s", stored.key)
            return stored

    def _take_over(self, s: Session, owner: int) -> bool:
        """A delivery that did not finish (its function died, or this is its update again): its entries are
        this delivery's to send again (what the dead one sent before its ack goes out a second time)."""
        lease = s.outbox.lease
        if lease is None or (lease.owner != owner and lease.until > self.clock()):
            return False  # nothing to take over, or a delivery still running (its ack records what it sent)
        s.outbox.lease = None
        return True

    def _resume(self, plan: Plan, session: Session, version: int | None, chat_id: int, owner: int,
                again: bool = True) -> Plan:
        """``again``: closing edits due to be sent again and views held back go too (not with a redelivery,
        which writes nothing when nothing else is due: the chat's next update or wake-up sends them)."""
        plan.session = session
        step = self.sort(session, plan, chat_id, owner, again=again)
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
        s.outbox.stamp(self.clock())  # (when each new entry was stored: how long what waits has waited)
        item = Item(key=chat_key(chat_id), body=s.body())
        if plan.writes:
            self.repo.transact([Write(item, version), *plan.writes])
        else:
            self.repo.put(item, version)
        plan.version = (version or 0) + 1

    def budget_of(self, chat_id: int) -> Budget:
        """The table's budget: a group's (about 20 messages and edits a minute); none for a table in a
        private chat (/practice), which has a private chat's limits: Telegram's flood control alone."""
        return self.budget if chat_id < 0 else UNLIMITED

    def _admitted(self, box: Outbox, group: int, now: float, owner: int) -> list[Effect]:
        """The outbox entries that go out now: every private one that may, and the group's within its
        budget, a step's group messages all together or none of them yet (then they and every group
        entry after them wait)."""
        budget = self.budget_of(group)
        deliverable = box.deliverable(now, owner)
        admitted: list[Effect] = []
        steps: set[int] = set()  # the steps whose group messages the budget took
        for i, e in enumerate(deliverable):
            if e.chat != group or (e.step and e.step in steps):
                admitted.append(e)
                continue
            # a step's first group message: the budget takes all of the step's group messages, or none
            # (a private one of the step, the next Leader's picker, may stand between them)
            run = sum(1 for d in deliverable[i:] if d.chat == group and d.step == e.step) if e.step else 1
            slot = box.admit(now, True, budget, run)
            if slot is not None:  # over the group's budget: this step and what follows it wait
                box.wait(e.seq, slot)
                return admitted + [d for d in deliverable[i:] if d.chat != group]
            if e.step:
                steps.add(e.step)
            admitted.append(e)
        return admitted

    def sort(self, s: Session, plan: Plan, chat_id: int, owner: int, again: bool = True) -> Step:
        """Essential operations into the outbox; the outbox entries that go out now (the group's within
        its budget, under this delivery's lease); progress within what the budget leaves."""
        took_over = self._take_over(s, owner)
        now = self.clock()
        box = s.outbox
        self._store(box, plan, now)
        stored = self._admitted(box, s.chat_id, now, owner)
        for e in stored:
            e.not_before = None
        if stored:
            box.lease = Lease(owner=owner, until=now + LEASE_SECONDS)
        for out in plan.outs:
            if out.essential and out.op != "answer":
                box.shown(out.view, now)  # an essential edit carries the view's latest state
        extra, again_outs = self._again(s, plan, now, again)
        queued = {e.chat for e in box.effects if e not in stored}  # chats where something waits
        progress = [out for out in [*plan.outs, *extra, *again_outs] if not (out.essential or out.op == "answer")
                    and self._goes_now(box, s.chat_id, out, now, queued, any(out is o for o in again_outs))]
        self._drawn(box, progress, owner, now)
        # what waits (the budget, flood control, another delivery) wakes the chat when due: its alarm
        plan.schedule = [*plan.schedule, *self.arm(s, now, {e.seq for e in stored}, plan.fired)]
        return Step(chat_id, owner, s, None, stored=stored, direct=progress, took_over=took_over)

    @staticmethod
    def _store(box: Outbox, plan: Plan, now: float) -> None:
        """The plan's essential operations, its picture and its other entries into the outbox, as one step
        (its group messages reach the group together: the board with the news)."""
        step = box.next_seq
        box.drop_repeats(plan.outs)  # (older than this step's edits of the same messages)
        for out in plan.outs:
            if out.essential and out.op != "answer":
                box.add(to_effect(out, step))
            if out.op in ("edit", "markup") and out.message_id and (out.essential or not out.has_buttons()):
                box.closes(to_effect(out), now)  # (a closing edit: repeated if a progress edit may overtake it)
        if plan.picture is not None:  # drawn at delivery, after the text of the end (never holding it back)
            chat, _, lang = plan.picture
            box.add(Effect(seq=0, op="photo", chat=chat, picture=lang, tag="picture"))
            plan.picture = None
        for effect in plan.effects:
            box.add(effect)
        plan.effects = []

    def _again(self, s: Session, plan: Plan, now: float, again: bool) -> tuple[list[Out], list[Out]]:
        """The views whose latest state was held back before, drawn as they stand (not for a redelivery: it
        changes nothing), and the closing edits due to be sent again, once no older progress edit can
        overtake them (like progress: no ack); a message this step edits anyway needs none (its edit is
        newer: a repeat would undo it)."""
        box = s.outbox
        views = {o.view for o in plan.outs if o.view}
        extra = []
        for v in list(box.dirty) if again else []:
            if v in views:
                continue
            fresh = self.refresh(s, v)
            if fresh is None:  # nothing to show any more (the lobby became the board...)
                box.shown(v, now)
            else:
                extra.append(fresh)
        box.drop_repeats(extra)
        repeats = box.due_repeats(now) if again else []
        again_outs = [o for e in repeats if (o := to_out(e, s, self.photo)) is not None]
        for out in again_outs:
            out.essential, out.seq = False, None
        return extra, again_outs

    def _goes_now(self, box: Outbox, group: int, out: Out, now: float, queued: set[int],
                  later: bool) -> bool:
        """Does progress ``out`` go out now? Else it waits: behind what waits in its chat, a repeat (``later``)
        again at a later moment, buttons taken away at the budget's next slot; or it is held back (the view's
        latest state goes out with a later edit, or when the alarm wakes)."""
        if out.chat_id != group or group > 0:  # (a private chat, or the table of one: no group's budget)
            if out.chat_id in queued and later:  # (again once what waits there may go)
                box.repeats.append(to_effect(out).model_copy(update={"tag": "repeat", "not_before": max(
                    [now, *(e.not_before or now for e in box.effects if e.chat == out.chat_id)])}))
            elif out.chat_id in queued:  # behind what waits there (Telegram said wait): the chat keeps its order
                box.add(to_effect(out, progress=True))
            else:
                if out.chat_id == group:
                    box.shown(out.view, now)
                return True
            return False
        retry = box.admit_progress(now, out.view, box.group_waiting(group), self.budget_of(group))
        if retry is None:
            return True
        if later:  # the group's budget is full: again at its next slot
            box.repeats.append(to_effect(out).model_copy(update={"tag": "repeat", "not_before": retry}))
        elif out.view is None and out.op in ("edit", "markup") and out.message_id and not out.has_buttons():
            box.add(to_effect(out))  # buttons taken away are never dropped: the budget's next slot
        return False

    @staticmethod
    def _drawn(box: Outbox, progress: list[Out], owner: int, now: float) -> None:
        """What goes out now is drawn before the write, so that nothing is left to do between the commit and
        its send; its closing edits in private chats are kept for a redelivery."""
        for out in progress:
            out.draw()
            if out.op == "edit" and out.message_id and out.chat_id and out.has_buttons():
                box.raced(out.chat_id, out.message_id, now)
        closing = [o for o in progress if o.op in ("edit", "markup") and (o.chat_id or 0) > 0 and o.keyboard is None
                   and o.tag != "repeat"]  # (a repeat belongs to no step: whichever update runs next sends it)
        if closing:
            box.keep_for_replay(owner, [to_effect(o) for o in closing])
