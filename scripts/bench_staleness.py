"""How stale the chats are, what the webhook waits and what a game with bots costs, before and after the
precise wake-ups (an alarm within ``QUEUE_WINDOW``, 2 minutes, is an SQS message delayed to its second; a
later one an EventBridge schedule set ``EARLY``, 90 s, ahead), in one sitting, against the issue's targets.

    .venv/bin/python scripts/bench_staleness.py                   # before (4cd6f81) and after, every set-up
    .venv/bin/python scripts/bench_staleness.py --quick           # CI: one short game per set-up
    .venv/bin/python scripts/bench_staleness.py --before <rev>    # "before" = that revision's shared/
    .venv/bin/python scripts/bench_staleness.py --before none     # the after tree alone
    .venv/bin/python scripts/bench_staleness.py --before HEAD     # the checkout against its last commit
    .venv/bin/python scripts/bench_staleness.py --gap 3           # the after tree with a 3 s progress gap
    .venv/bin/python scripts/bench_staleness.py --gaps 0,1,2,3,5,10 # + one row per progress gap (group games)
    .venv/bin/python scripts/bench_staleness.py --json out.json   # the numbers as JSON

Set-ups (seeded, the same games in both trees; the default time limits on, as a scheduler is configured):

* **people**: group games of 5, 6 and 7 people (6 seeds each), at a human pace, the group's budget on (the
  default ``Budget``: 20 operations a minute, progress within 65% of them, ``PROGRESS_GAP`` between two
  progress edits of a message);
* **3 people + 2 bots**: the same (12 seeds), with 2 AI seats (the host presses 🤖 Add twice);
* **practice**: ``/practice 6`` in a person's private chat (12 seeds): one person and 6 bots.

``--quick``: one game of each (5 people).

Everything runs on a **virtual clock** (nothing sleeps; a count, not a timing, except the CPU below; the
work inside an invocation takes no virtual time): the service (``Service``: in-memory repository, the recording Bot API of the unit tests) is driven by an
event loop that takes, in time order, whichever comes first of

* the next **person's press**: the simulated players of ``localdev.autoplay`` (``Driver``, ``Policy``)
  read their chats and press; a press follows the previous one by a seeded 1-4 s (uniform); when none of
  them has anything to press, the next look comes 1-4 s after the chats next change;
* the wake-up queue's next **visible message** (after tree: ``gamebot.timing.wakeup.QueueScheduler`` over
  ``tests.aws_model.ModelQueue``: the delay in whole seconds, then a poll latency drawn uniform in
  [0, ``SQS_LATENCY``] per message, seeded; every message visible then is one timer invocation, as
  Lambda's event source mapping batches them). The queue takes the alarms within its ``window``
  (``QUEUE_WINDOW``: the scheduler has a ``later``, the model below);
* an **EventBridge Scheduler** schedule's modelled fire time: the schedule's second plus a lateness drawn
  uniform in [0, 60) s per schedule (seeded; AWS: "within a minute"). After tree: the far alarms (set
  ``EARLY`` seconds ahead of their moment, as ``QueueScheduler`` asks) and the backstop (``later``);
  before tree: every alarm;
* the end of a **sleep** of an invocation (before tree only: ``Service(sleep=...)``, called by
  ``core/pacing`` while the bots "think", up to its 30 s chain, bounded by the Lambda's time left:
  webhook 25 s, timer 30 s, less pacing's 3 s margin). An invocation that sleeps is parked and the others
  go on meanwhile, each in a container of its own (a person presses while the bots' invocation sleeps).

Measured:

1. **Staleness** of each accepted press (a callback query that changed a chat's session): from the press
   to the first Bot API send or edit made after it (on the virtual clock) of the pressed message (same
   chat and message id), or a new message sent in that chat; a press never shown is counted apart. Also the
   bots: from the commit that gave them their decision (``Session.ai_seat_turn`` planned) to their move.
   **The issue's targets** ("p95 <= 3 s while the budget has room; max <= the budget's next slot + 2 s"):
   each accepted press is either one **with room** -- in a private chat (the practice table, the pickers:
   no group budget), or in the group with, at its commit, no group entry waiting for the budget (an
   outbox entry of the group with a ``not_before`` still ahead), fewer operations in the last minute
   than the progress limit (``Budget.progress``), and nothing its commit asked of the budget refused
   (``Outbox.admit`` answered a time, or progress was held behind a waiting entry) -- or one made **while
   the budget was full** (every other group press). For the latter, its **slot** is the earliest the
   budget lets its state out: the earliest of ``Outbox.admit``'s answers to its commit, and of the
   moment progress may go again (the group's waiting entries gone, ``Outbox.admit(now, progress)`` on
   the session as its commit left it); reported: the staleness less the wait for that slot (0: shown by
   its slot). The commit is the press's webhook invocation (before tree: up to its first sleep).
2. **Webhook held time**: the virtual seconds each webhook invocation slept (before: ``core/pacing``).
3. **Lambda GB-s**: per invocation (webhook updates, timer invocations: each queue batch, each schedule
   fired) billed duration = sleep + work, x 0.5 GB (template.yaml's MemorySize 512), work = AWS requests
   (DynamoDB, SQS SendMessage, Scheduler Create/Delete) x 10 ms one after the other + Bot API calls x
   80 ms, the calls of one chat in sequence and the chats in parallel (the longest chat's count, per
   stretch of the invocation between sleeps) + the CPU measured here x 3.5 (512 MB is about 0.29 vCPU).
   The webhook's reply (Telegram performs it) costs nothing. A timer invocation whose every wake-up did
   nothing (outcome ``stale``: a queued wake-up for an alarm that moved since, which cannot be taken back)
   is counted apart.
4. With ``--gaps``: the after tree's group set-ups again for each progress gap (``Budget.gap``, and
   ``gamebot.storage.effects.PROGRESS_GAP`` patched to it): the group's edits per game against staleness.

Each tree runs in a subprocess with its own ``shared/`` first on ``sys.path`` (before: ``git archive REV
shared localdev tests/unit/gamebot_fakes.py`` into a temporary directory), two at a time.
"""
from __future__ import annotations

import argparse
import asyncio
import contextvars
import heapq
import inspect
import itertools
import json
import math
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "4cd6f81"  # the last commit with core/pacing (the invocations slept while the bots "thought")
T0 = 1_800_000_000.0
GROUP = -1001000000001
HOST = 1
ME = 7  # the practising person

SHOWN_WITHIN = 3.0  # seconds: the share of presses shown within this
ROOM_P95 = 3.0  # the target: p95 of the presses made while the group's budget had room, seconds
PAST_SLOT_MAX = 2.0  # the target: a press made while it was full is shown by its next slot + this
EB_LATE_MAX = 60.0  # EventBridge Scheduler fires up to a minute after a schedule's time
PRESS_GAP = (1.0, 4.0)  # seconds between two presses of the people (uniform)
WEBHOOK_TIMEOUT, TIMER_TIMEOUT, PACING_MARGIN = 25.0, 30.0, 3.0  # template.yaml; the functions' SAFETY_MARGIN
AWS_MS, BOT_API_MS, CPU_FACTOR, MEMORY_GB = 10.0, 80.0, 3.5, 0.5
PRICE_GB_S = 0.0000166667  # Lambda x86, us-east-1
PRICE_REQUEST = 0.20e-6  # per invocation
SEEDS = 12  # games per set-up (the people's set-up: half as many seeds, at 5, 6 and 7 players)
CHUNK = 10  # games per subprocess
AFTER_END = 1000.0  # virtual seconds the wake-ups still run after the game's end (every queued one arrives)

# set-up name -> (where the table is: "group" or "practice", AI seats); "people" is played at 5, 6 and 7 people
SETUPS = {
    "people": ("group", 0),
    "3 people + 2 bots": ("group", 2),
    "practice (1 + 6 bots)": ("practice", 6),
}
GROUP_SETUPS = ("people", "3 people + 2 bots")


# ------------------------------------------------------------------------------------------------------
# The worker: one tree, its set-ups (runs with that tree's shared/ first on sys.path)
# ------------------------------------------------------------------------------------------------------

CURRENT: contextvars.ContextVar[Any] = contextvars.ContextVar("invocation", default=None)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Invocation:
    """One Lambda invocation: what it slept, its CPU, its AWS requests and Bot API calls."""

    def __init__(self, kind: str, start: float) -> None:
        self.kind = kind  # "webhook" | "timer"
        self.start = start
        self.slept = 0.0
        self.sleeps = 0
        self.cpu = 0.0
        self.aws = 0  # DynamoDB requests + SQS / Scheduler requests
        self.bot_ms = 0.0  # Bot API round trips, the chats in parallel
        self.calls: Counter[Any] = Counter()  # per chat, in the current stretch
        self.blocked: Any = None  # a future: the invocation parked (a sleep) or finished
        self.done = False
        self.error: BaseException | None = None
        self.outcome: Any = None
        self.refusals: list[tuple[str, float | None]] = []  # what the group's budget refused: (kind, when free)

    def billed(self) -> float:
        return self.slept + (self.aws * AWS_MS + self.bot_ms) / 1000 + self.cpu * CPU_FACTOR


def watch_budget(outbox: Any) -> None:
    """Record on the running invocation what the group's budget refuses (``Outbox.admit`` answering a time;
    progress held behind an entry that waits): the same methods in both trees."""
    admit, admit_progress = outbox.admit, outbox.admit_progress

    def admitted(self: Any, now: float, essential: bool, budget: Any, count: int = 1) -> float | None:
        answer = admit(self, now, essential, budget, count)
        inv = CURRENT.get()
        if answer is not None and inv is not None and budget.limit:
            inv.refusals.append(("essential" if essential else "progress", answer))
        return answer

    def progress(self: Any, now: float, view: str | None, group_busy: bool, budget: Any) -> float | None:
        inv = CURRENT.get()
        if group_busy and inv is not None and budget.limit:
            inv.refusals.append(("behind", None))
        return admit_progress(self, now, view, group_busy, budget)

    outbox.admit, outbox.admit_progress = admitted, progress


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    tree = Path(spec["tree"])
    sys.path[:0] = [str(tree / "shared"), str(tree)]
    sys.path.append(str(ROOT))  # (tests.aws_model, for a tree that has no wake-up queue of its own to model)
    import logging

    import gamebot.storage.effects as effects
    import gamebot.storage.seats as seats

    if spec.get("gap") is not None:
        effects.PROGRESS_GAP = float(spec["gap"])
    watch_budget(effects.Outbox)
    logged: Counter[str] = Counter()

    class Count(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logged[f"{record.levelname} {record.name}: {record.msg}"] += 1

    logging.getLogger().addHandler(Count(logging.WARNING))
    logging.getLogger().setLevel(logging.WARNING)
    info: dict[str, Any] = {"progress_gap": effects.PROGRESS_GAP if spec.get("gap") is None else float(spec["gap"]),
                            "group_limit": effects.GROUP_LIMIT, "progress_share": effects.PROGRESS_SHARE,
                            "ai_seat_delay": [seats.MIN_DELAY, seats.MAX_DELAY]}
    try:
        import gamebot.timing.wakeup as wakeup

        info["queue"] = {"window": getattr(wakeup, "QUEUE_WINDOW", None), "early": wakeup.EARLY,
                         "max": wakeup.QUEUE_MAX}
    except ImportError:
        info["queue"] = None
    try:
        import gamebot.core.pacing as pacing

        info["pacing"] = {"soon": pacing.SOON, "chain": pacing.CHAIN}
    except ImportError:
        info["pacing"] = None
    results = []
    for setup, people, seed in spec["games"]:
        sim = Sim(setup, people, seed, spec)
        results.append(sim.play())
    return {"label": spec["label"], "games": results, "info": info, "logged": dict(logged)}


class Sim:
    """One game on the virtual clock (see the module's docstring)."""

    def __init__(self, setup: str, people: int, seed: int, spec: dict[str, Any]) -> None:
        from gamebot.botapi.callbacks import Codec
        from gamebot.core.service import Service
        from gamebot.storage.effects import Budget
        from gamebot.storage.store import FakeRepository
        from localdev import updates as U
        from tests.unit.gamebot_fakes import TOKEN, RecordingIO

        self.U = U
        self.setup = setup
        self.kind, self.bots = SETUPS[setup]
        self.table = ME if self.kind == "practice" else GROUP
        self.people = [ME] if self.kind == "practice" else list(range(HOST, HOST + people))
        self.seed = seed
        self.clock = Clock(T0)
        self.rng = random.Random(seed)  # the people's pace
        self.late = random.Random(seed * 7919 + 1)  # EventBridge's lateness, SQS's poll latency
        self.repo = FakeRepository(clock=self.clock)
        self.io = RecordingIO()
        self.codec = Codec(TOKEN)
        self.loop = asyncio.new_event_loop()
        self.log: list[tuple[float, str, int | None, int | None, bool, str]] = []  # (t, op, chat, message, ok, tag)
        self.invocations: list[Invocation] = []
        self.parked: list[tuple[float, int, Invocation, Any]] = []
        self.order = itertools.count()
        self.presses: list[dict[str, Any]] = []
        self.turns: dict[tuple[int, str], float] = {}  # bot turn -> when its decision was committed
        self.turn_seen: tuple[int, str] | None = None
        self.ai_seat_delays: list[float] = []
        self.stale_wakes = 0
        self.errors: list[str] = []
        self._wrap_io()
        self.sleeps = "sleep" in inspect.signature(Service.__init__).parameters  # the before tree
        gap = spec.get("gap")
        budget = None if gap is None else Budget(gap=float(gap))
        self.budget = budget or Budget()  # (the service's: ``UnitOfWork`` takes ``Budget()`` for None)
        self.later = model_eventbridge(self)
        if self.sleeps:
            self.scheduler: Any = self.later
            self.queue = None
        else:
            from gamebot.timing import wakeup
            from gamebot.timing.wakeup import QueueScheduler

            self.queue = model_queue(self)
            self.scheduler = QueueScheduler(self.queue, later=self.later)
            window = getattr(wakeup, "QUEUE_WINDOW", wakeup.QUEUE_MAX)  # (with a ``later``: the near alarms only)
            if self.scheduler.window != window:
                raise RuntimeError(f"the wake-up queue's window is {self.scheduler.window} s, not {window}")
        self.pools: dict[str, list[tuple[Any, list[Invocation | None]]]] = {"webhook": [], "timer": []}

        def make() -> Any:
            kw: dict[str, Any] = dict(bot_username=U.BOT_USERNAME, seeds=random.Random(seed), clock=self.clock,
                                      scheduler=self.scheduler, budget=budget)
            if self.sleeps:
                kw["sleep"] = self.sleep
            svc = Service(self.repo, self.io, self.codec, **kw)
            fire = svc.timers.fire

            async def fired(payload: dict[str, Any], job: Any = None) -> str:
                turn = self.ai_seat_turn()
                outcome = await fire(payload, job)
                if outcome == "ai_seats" and turn is not None and turn in self.turns:
                    self.ai_seat_delays.append(self.clock.now - self.turns.pop(turn))
                return outcome

            svc.timers.fire = fired
            return svc

        self.make = make

    # --- the chats, timestamped -------------------------------------------------------------------------
    def _wrap_io(self) -> None:
        io = self.io
        apply, run = io.apply, io.run

        def applied(out: Any) -> Any:
            result = apply(out)
            mid = result.message_id if out.op in ("send", "photo") else out.message_id
            self.log.append((self.clock.now, out.op, out.chat_id, mid, bool(result.ok), out.tag or ""))
            return result

        async def ran(outs: list[Any]) -> Any:
            inv = CURRENT.get()
            if inv is not None:
                for out in outs:
                    inv.calls[out.chat_id if out.op != "answer" else "answer"] += 1
            return await run(outs)

        io.apply = applied
        io.run = ran

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        out = []
        for m in self.io.chat(chat_id):
            buttons = [[{"text": b.text, "data": b.data, "url": b.url} for b in row] for row in (m.keyboard or [])]
            out.append({"message_id": m.message_id, "text": m.text, "buttons": buttons})
        return out

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> Any:
        m = self.io.msgs[(chat_id, message_id)]
        update = self.U.press(self.U.user(user_id), self.U.message(chat_id, message_id, m.text), data)
        self.webhook(update, press=(chat_id, message_id))

    # --- invocations ----------------------------------------------------------------------------------
    def service(self, kind: str, inv: Invocation) -> Any:
        """A container of ``kind`` that is not busy (a new one when all are)."""
        pool = self.pools[kind]
        for svc, holder in pool:
            if holder[0] is None or holder[0].done:
                holder[0] = inv
                return svc
        svc = self.make()
        pool.append((svc, [inv]))
        return svc

    def stretch(self, inv: Invocation, start: Any) -> None:
        """Run ``inv`` until it parks or finishes: its CPU, requests and calls are this stretch's."""
        inv.blocked = self.loop.create_future()
        inv.calls = Counter()
        requests = sum(self.repo.calls.values())
        cpu = time.process_time()
        start()
        self.loop.run_until_complete(inv.blocked)
        inv.cpu += time.process_time() - cpu
        inv.aws += sum(self.repo.calls.values()) - requests
        inv.bot_ms += BOT_API_MS * max(inv.calls.values(), default=0)
        if inv.error is not None:
            raise inv.error
        self.note_turn()

    def invoke(self, kind: str, work: Any) -> Invocation:
        inv = Invocation(kind, self.clock.now)
        self.invocations.append(inv)
        svc = self.service(kind, inv)

        async def body() -> None:
            CURRENT.set(inv)
            try:
                inv.outcome = await work(svc, inv)
            except BaseException as exc:  # (raised by ``stretch``)
                inv.error = exc
            finally:
                inv.done = True
                if not inv.blocked.done():
                    inv.blocked.set_result("done")

        self.stretch(inv, lambda: self.loop.create_task(body()))
        return inv

    async def sleep(self, seconds: float) -> None:
        """The before tree's wait for the bots (``core/pacing``): this invocation parks; the others go on."""
        inv = CURRENT.get()
        inv.slept += seconds
        inv.sleeps += 1
        fut = self.loop.create_future()
        heapq.heappush(self.parked, (self.clock.now + seconds, next(self.order), inv, fut))
        inv.blocked.set_result("parked")
        await fut

    def resume(self) -> None:
        at, _, inv, fut = heapq.heappop(self.parked)
        self.clock.now = max(self.clock.now, at)
        self.stretch(inv, lambda: fut.set_result(None))

    def webhook(self, update: dict[str, Any], press: tuple[int, int] | None = None) -> None:
        t = self.clock.now
        index = len(self.log)
        versions = self.versions()
        budgeted = press is not None and press[0] == self.table and self.table < 0  # (the group's budget)
        before = self.budget_now(t) if budgeted else None

        async def work(svc: Any, inv: Invocation) -> Any:
            if self.sleeps:
                answer = await svc.handle_update(update, until=inv.start + WEBHOOK_TIMEOUT - PACING_MARGIN)
            else:
                answer = await svc.handle_update(update)
            self.io.respond(answer.method)  # (Telegram performs the reply once the invocation ends)
            return answer.status

        inv = self.invoke("webhook", work)
        if press is not None:
            entry = {"t": t, "chat": press[0], "message": press[1], "index": index,
                     "accepted": self.versions() != versions, "room": True, "slot": None}
            if before is not None:  # the press's commit: this invocation so far (before tree: to its first sleep)
                refused = list(inv.refusals)
                after = self.budget_now(t)
                entry["room"] = before["room"] and not refused
                if not entry["room"]:  # the earliest the budget lets its state out
                    entry["slot"] = min([*(at for _, at in refused if at is not None), after["progress_at"]])
            self.presses.append(entry)

    def budget_now(self, t: float) -> dict[str, Any]:
        """The group's budget as stored now: room (no entry waits for it, fewer operations in the last minute
        than the progress limit), and when progress may next go (the waiting entries gone, a progress slot
        free: ``Outbox.admit`` on a copy)."""
        s = self.session()
        if s is None:
            return {"room": True, "progress_at": t}
        box = s.outbox.model_copy(deep=True)
        waits = [e.not_before for e in box.effects if e.chat == self.table and e.not_before is not None
                 and e.not_before > t]
        ops = [x for x in box.group_ops if x > t - 60]
        slot = box.admit(t, False, self.budget)  # (the copy's: nothing stored)
        return {"room": not waits and len(ops) < self.budget.progress,
                "progress_at": max([t, slot or t, *waits])}

    def wake(self, payloads: list[dict[str, Any]]) -> None:
        async def work(svc: Any, inv: Invocation) -> Any:
            outcomes = []
            for payload in payloads:
                if self.sleeps:
                    outcomes.append(await svc.wake(payload, inv.start + TIMER_TIMEOUT - PACING_MARGIN))
                else:
                    outcomes.append(await svc.wake(payload))
            return outcomes

        inv = self.invoke("timer", work)
        if inv.done and all(o == "stale" for o in inv.outcome or ["stale"]):
            self.stale_wakes += 1

    def versions(self) -> dict[str, int]:
        return {k: v.version for k, v in self.repo.items.items() if k.startswith("chat#")}

    def session(self) -> Any:
        from gamebot.storage.session import Session, chat_key

        item = self.repo.items.get(chat_key(self.table))
        return Session.from_body(item.body) if item is not None else None

    def ai_seat_turn(self) -> tuple[int, str] | None:
        s = self.session()
        # (the before tree, older than the AI seats' name, calls the field by its stored name)
        turn = getattr(s, "ai_seat_turn", None) or getattr(s, "bot_turn", None) if s is not None else None
        return (turn.serial, turn.step) if turn is not None else None

    def note_turn(self) -> None:
        """An AI seat's turn planned by the stretch that just ran: its decision arrived now."""
        turn = self.ai_seat_turn()
        if turn is not None and turn != self.turn_seen and turn not in self.turns:
            self.turns[turn] = self.clock.now
        self.turn_seen = turn

    # --- the people ---------------------------------------------------------------------------------------
    def lobby_script(self) -> list[tuple[str, int, int, str]]:
        """The lobby, pressed at the people's pace: /start in private, /newgame, Join, 🤖 Add, Start."""
        steps: list[tuple[str, int, int, str]] = [("update", uid, uid, "start") for uid in self.people]
        if self.kind == "practice":
            return steps + [("command", ME, ME, f"/practice {self.bots}"), ("press", ME, ME, "Start")]
        steps.append(("command", HOST, GROUP, "/newgame"))
        steps += [("press", uid, GROUP, "Join") for uid in self.people[1:]]
        steps += [("press", HOST, GROUP, "🤖 Add")] * self.bots
        steps.append(("press", HOST, GROUP, "Start"))
        return steps

    def scripted(self, step: tuple[str, int, int, str]) -> None:
        U = self.U
        kind, uid, chat, what = step
        if kind == "update":
            self.webhook(U.start(U.user(uid)))
        elif kind == "command":
            where = U.group(chat) if chat < 0 else U.private(U.user(uid))
            self.webhook(U.command(where, U.user(uid), what))
        else:
            found = self.io.with_button(chat, what)
            if found is None:
                raise RuntimeError(f"{self.setup}: no button {what!r} in chat {chat}")
            msg, btn = found
            self.press(uid, chat, msg.message_id, btn.data)

    # --- the loop ---------------------------------------------------------------------------------------
    def play(self) -> dict[str, Any]:
        from localdev.autoplay import Driver, Policy

        self.U.reset()
        driver = Driver(self, self.table, self.people, Policy(rng=random.Random(self.seed)))
        script = self.lobby_script()
        people_at: float | None = self.clock.now
        looks = 0
        over_at: float | None = None
        seen = len(self.log)
        try:
            for _ in range(20000):
                if over_at is None and not script and driver.over():
                    over_at = self.clock.now
                    people_at = None
                times = []
                if self.parked:
                    times.append((self.parked[0][0], 0, "resume"))
                if self.queue is not None and self.queue.next_at() is not None:
                    times.append((self.queue.next_at(), 1, "queue"))
                if self.later.next_at() is not None:
                    times.append((self.later.next_at(), 2, "schedule"))
                if people_at is not None:
                    times.append((people_at, 3, "people"))
                if not times:
                    if over_at is not None:
                        break
                    if looks < 3 and driver.look_again():  # (a refused vote or card: try again)
                        looks += 1
                        people_at = self.clock.now + self.rng.uniform(*PRESS_GAP)
                        continue
                    self.errors.append(f"stalled at {self.clock.now - T0:.0f} s: nothing to press, nothing due")
                    break
                at, _, what = min(times)
                if over_at is not None and at > over_at + AFTER_END:
                    break
                self.clock.now = max(self.clock.now, at)
                if what == "resume":
                    self.resume()
                elif what == "queue":
                    records = self.queue.receive(self.clock.now)
                    self.wake([json.loads(r["body"]) for r in records])
                elif what == "schedule":
                    self.wake([self.later.pop_next()])
                else:
                    acted = True
                    if script:
                        self.scripted(script.pop(0))
                    else:
                        acted = driver.step()
                    if acted:
                        looks = 0
                    people_at = self.clock.now + self.rng.uniform(*PRESS_GAP) if acted else None
                if people_at is None and over_at is None and any(
                        e[1] != "answer" for e in self.log[seen:]):  # the chats changed: a look in 1-4 s
                    people_at = self.clock.now + self.rng.uniform(*PRESS_GAP)
                seen = len(self.log)
            else:
                self.errors.append("too many events")
        finally:
            for *_, fut in self.parked:
                fut.cancel()
            self.loop.run_until_complete(asyncio.sleep(0))
            self.loop.close()
        s = self.session()
        if over_at is None:
            self.errors.append("the game did not end")
        self.over_at = over_at if over_at is not None else self.clock.now
        return self.report(s.status if s is not None else None)

    # --- what was measured --------------------------------------------------------------------------------
    def shown_after(self, press: dict[str, Any]) -> float | None:
        for t, op, chat, mid, ok, _ in self.log[press["index"]:]:
            if not ok or chat != press["chat"]:
                continue
            if op in ("send", "photo") or (op in ("edit", "markup") and mid == press["message"]):
                return t - press["t"]
        return None

    def report(self, status: Any) -> dict[str, Any]:
        accepted = [p for p in self.presses if p["accepted"]]
        stale = [self.shown_after(p) for p in accepted]
        hooks = [i for i in self.invocations if i.kind == "webhook"]
        timers = [i for i in self.invocations if i.kind == "timer"]
        group = [e for e in self.log if e[2] == GROUP and e[4]]
        return {
            "setup": self.setup, "seed": self.seed, "people": len(self.people), "bots": self.bots,
            "status": str(status), "errors": self.errors,
            "minutes": (self.over_at - T0) / 60,  # (to the end shown in the table's chat)
            "presses": len(self.presses), "accepted": len(accepted),
            "staleness": [x for x in stale if x is not None], "never_shown": sum(x is None for x in stale),
            "staleness_group": [x for p, x in zip(accepted, stale, strict=True) if x is not None and p["chat"] < 0],
            "never_shown_presses": [{"t": round(p["t"] - T0, 2), "chat": p["chat"], "message": p["message"]}
                                    for p, x in zip(accepted, stale, strict=True) if x is None],
            # the targets: the presses with room; those while the budget was full, with their slot
            "staleness_room": [x for p, x in zip(accepted, stale, strict=True) if x is not None and p["room"]],
            "full": [{"t": round(p["t"] - T0, 2), "wait": p["slot"] - p["t"], "stale": x}
                     for p, x in zip(accepted, stale, strict=True) if x is not None and not p["room"]],
            "ai_seat_delays": self.ai_seat_delays,
            "webhooks": len(hooks), "timers": len(timers), "stale_wakes": self.stale_wakes,
            "webhook_slept": [i.slept for i in hooks], "timer_slept": [i.slept for i in timers],
            "billed_s": sum(i.billed() for i in self.invocations),
            "sleep_s": sum(i.slept for i in self.invocations),
            "cpu_s": sum(i.cpu for i in self.invocations),
            "aws_requests": sum(i.aws for i in self.invocations),
            "bot_api_s": sum(i.bot_ms for i in self.invocations) / 1000,
            "group_sends": sum(e[1] in ("send", "photo") for e in group),
            "group_edits": sum(e[1] in ("edit", "markup") for e in group),
        }


def model_eventbridge(sim: Sim) -> Any:
    """EventBridge Scheduler as AWS times it: a schedule fires at its second plus up to a minute (seeded)."""
    from gamebot.timing.scheduler import Scheduler

    class ModelEventBridge(Scheduler):
        def __init__(self) -> None:
            self.timers: dict[str, tuple[float, int, Any]] = {}
            self.created = 0

        def _count(self) -> None:
            inv = CURRENT.get()
            if inv is not None:
                inv.aws += 1

        def schedule(self, timer: Any) -> None:
            self._count()
            if timer.name in self.timers:
                return
            self.created += 1
            due = max(math.ceil(timer.at), sim.clock.now)
            self.timers[timer.name] = (due + sim.late.uniform(0, EB_LATE_MAX), next(sim.order), timer.payload)

        def cancel(self, name: str) -> None:
            self._count()
            self.timers.pop(name, None)

        def next_at(self) -> float | None:
            return min((t[0] for t in self.timers.values()), default=None)

        def pop_next(self) -> dict[str, Any]:
            name = min(self.timers, key=lambda n: self.timers[n][:2])
            return self.timers.pop(name)[2]

    return ModelEventBridge()


def model_queue(sim: Sim) -> Any:
    """The wake-up queue (``tests.aws_model.ModelQueue``) with a poll latency drawn in [0, SQS_LATENCY]."""
    from tests.aws_model import SQS_LATENCY, ModelQueue

    class Queue(ModelQueue):
        def send(self, body: str, delay: int) -> None:
            inv = CURRENT.get()
            if inv is not None:
                inv.aws += 1
            self.latency = sim.late.uniform(0, SQS_LATENCY)
            super().send(body, delay)

    return Queue(sim.clock)


# ------------------------------------------------------------------------------------------------------
# The driver: the trees in subprocesses, the tables
# ------------------------------------------------------------------------------------------------------


def games(quick: bool, setups: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """(set-up, people, seed) of every game, the same in every tree."""
    seeds = (1,) if quick else tuple(range(1, SEEDS + 1))
    out: list[tuple[str, int, int]] = []
    for setup in setups:
        if setup == "people":
            out += [(setup, n, seed) for seed in seeds[:max(1, len(seeds) // 2)] for n in ((5,) if quick else (5, 6, 7))]
        else:
            out += [(setup, 3 if SETUPS[setup][0] == "group" else 1, seed) for seed in seeds]
    return out


def run_job(spec: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec)], capture_output=True, text=True,
                          cwd=ROOT, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{spec['label']}: the worker failed\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def before_tree(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", rev, "shared", "localdev", "tests/unit/gamebot_fakes.py"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def describe(rev: str, checkout: bool = False) -> str:
    """``rev`` as a short commit (and, for the checkout, the files of shared/ changed and not committed)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return rev
    if not checkout:
        return commit
    changed = subprocess.run(["git", "status", "--porcelain", "shared"], cwd=ROOT, capture_output=True,
                             text=True).stdout.split("\n")
    files = [line[3:].removeprefix("shared/") for line in changed if line.strip()]
    return f"{commit}{' + not committed: ' + ', '.join(files) if files else ''}"


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank)."""
    if not values:
        return math.nan
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One set-up's games of one tree, summed up (per game: means)."""
    stale = [x for r in rows for x in r["staleness"]]
    in_group = [x for r in rows for x in r["staleness_group"]]  # (shown; the never shown are counted apart)
    room = [x for r in rows for x in r["staleness_room"]]
    full = [dict(p, past=max(0.0, p["stale"] - p["wait"]), setup=r["setup"], seed=r["seed"], people=r["people"])
            for r in rows for p in r["full"]]
    waits = [p["wait"] for p in full]
    past = [p["past"] for p in full]  # how long after its slot the state went out (0: by its slot)
    accepted = sum(r["accepted"] for r in rows)
    bots = [x for r in rows for x in r["ai_seat_delays"]]
    hook_slept = [r["webhook_slept"] for r in rows]
    n = len(rows)
    invocations = sum(r["webhooks"] + r["timers"] for r in rows) / n
    gb_s = MEMORY_GB * sum(r["billed_s"] for r in rows) / n
    return {
        "games": n, "presses": sum(r["presses"] for r in rows), "accepted": accepted,
        "never_shown": sum(r["never_shown"] for r in rows),
        "p50": pct(stale, 0.5), "p95": pct(stale, 0.95), "max": max(stale, default=math.nan),
        "within": sum(x <= SHOWN_WITHIN for x in stale) / accepted if accepted else math.nan,
        "group_presses": len(in_group), "group_p50": pct(in_group, 0.5), "group_p95": pct(in_group, 0.95),
        "group_within": sum(x <= SHOWN_WITHIN for x in in_group) / len(in_group) if in_group else math.nan,
        "room_presses": len(room), "room_p50": pct(room, 0.5), "room_p95": pct(room, 0.95),
        "room_max": max(room, default=math.nan),
        "room_within": sum(x <= SHOWN_WITHIN for x in room) / len(room) if room else math.nan,
        "full_presses": len(full), "full_wait_p50": pct(waits, 0.5), "full_wait_max": max(waits, default=math.nan),
        "full_p50": pct([p["stale"] for p in full], 0.5), "full_max": max((p["stale"] for p in full), default=math.nan),
        "past_slot_p50": pct(past, 0.5), "past_slot_p95": pct(past, 0.95), "past_slot_max": max(past, default=math.nan),
        "past_slot_over": sum(x > PAST_SLOT_MAX for x in past),
        "slowest_full": sorted((p for p in full if p["past"] > PAST_SLOT_MAX), key=lambda p: -p["past"])[:10],
        "ai_seat_p50": pct(bots, 0.5), "ai_seat_p95": pct(bots, 0.95), "ai_seat_max": max(bots, default=math.nan),
        "ai_seat_moves": len(bots) / n,
        "held_total": sum(map(sum, hook_slept)) / n,
        "held_max": max((max(s, default=0.0) for s in hook_slept), default=0.0),
        "held_count": sum(sum(x > 0 for x in s) for s in hook_slept) / n,
        "timer_slept": sum(sum(r["timer_slept"]) for r in rows) / n,
        "webhooks": sum(r["webhooks"] for r in rows) / n, "timers": sum(r["timers"] for r in rows) / n,
        "stale_wakes": sum(r["stale_wakes"] for r in rows) / n,
        "gb_s": gb_s, "gb_s_sleep": MEMORY_GB * sum(r["sleep_s"] for r in rows) / n,
        "usd_1000": 1000 * (gb_s * PRICE_GB_S + invocations * PRICE_REQUEST),
        "cpu_s": sum(r["cpu_s"] for r in rows) / n,
        "aws_requests": sum(r["aws_requests"] for r in rows) / n,
        "bot_api_s": sum(r["bot_api_s"] for r in rows) / n,
        "group_edits": sum(r["group_edits"] for r in rows) / n, "group_sends": sum(r["group_sends"] for r in rows) / n,
        "minutes": sum(r["minutes"] for r in rows) / n,
        "errors": [f"{r['setup']} ({r['people']} people) seed {r['seed']}: {e}" for r in rows for e in r["errors"]],
        "never_shown_presses": [dict(p, setup=r["setup"], seed=r["seed"], people=r["people"])
                                for r in rows for p in r["never_shown_presses"]],
    }


def by_setup(games_: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for r in games_:
        rows.setdefault(r["setup"], []).append(r)
    return {setup: summary(rows[setup]) for setup in SETUPS if setup in rows}


def f(x: float | None, digits: int = 1) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def met(x: float, target: float) -> str:
    return "-" if math.isnan(x) else ("met" if x <= target else "**not met**")


def rows(results: dict[str, dict[str, Any]], cells: Callable[[dict[str, Any]], str]) -> list[str]:
    """A table's rows, one per set-up and tree that measured it: ``| set-up | tree | <cells> |``."""
    return [f"| {setup} | {tree} | {cells(s)} |" for setup in SETUPS for tree, res in results.items()
            if (s := res.get(setup)) is not None]


def past_slot_over(s: dict[str, Any]) -> str:
    """How many presses went out more than ``PAST_SLOT_MAX`` after their slot, when any did."""
    return f" ({s['past_slot_over']} over {PAST_SLOT_MAX:g} s)" if s["past_slot_over"] else ""


def share(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def tables(results: dict[str, dict[str, dict[str, Any]]], gaps: dict[str, dict[str, dict[str, Any]]],
           meta: dict[str, Any]) -> str:
    before = f"before = {meta['before']}"
    if meta.get("before_gap") is not None:
        pacing = meta.get("before_pacing")
        before += (f" (its own defaults: progress gap {meta['before_gap']:g} s, " + (
            f"core/pacing waits for a bot move due within {pacing['soon']:g} s, {pacing['chain']:g} s in all)"
            if pacing else "no core/pacing)"))
    queue = meta.get("after_queue") or {}
    wakes = (f", the wake-up queue for alarms within {queue['window']:g} s (EventBridge schedules set "
             f"{queue['early']:g} s ahead for the later ones)" if queue.get("window") is not None else "")
    out = [f"Trees: after = this checkout ({meta['after']}), progress gap {meta['after_gap']:g} s{wakes}; {before}. "
           "Seeded games, the same in both trees; per game = the mean over the games.", ""]
    out += ["1. Staleness of accepted presses, s: from the press to the first send or edit of the pressed message or "
            "new send in its chat; the bots' decision (its commit) -> their move (its commit), s", "",
            "| set-up | tree | games | accepted presses (of) | p50 | p95 | max | shown within 3 s | never shown | "
            "bot moves / game | bots p50 | bots p95 | bots max |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    out += rows(results, lambda s: f"{s['games']} | {s['accepted']} ({s['presses']}) | {f(s['p50'])} | "
                                   f"{f(s['p95'])} | {f(s['max'])} | {share(s['within'])} | {s['never_shown']} | "
                                   f"{f(s['ai_seat_moves'])} | {f(s['ai_seat_p50'])} | {f(s['ai_seat_p95'])} | {f(s['ai_seat_max'])}")
    out += ["", f"1b. The issue's targets: p95 <= {ROOM_P95:g} s for the presses made while the group's budget had "
            f"room (private chats included); for those made while it was full, max <= the budget's next slot + "
            f"{PAST_SLOT_MAX:g} s. Room: at the press's commit no group entry waited for the budget, fewer operations "
            "in the last minute than the progress limit, and the commit had nothing refused; the slot: the earliest "
            "of Outbox.admit's answers to the commit and of the moment progress may go again; after the slot = "
            "staleness - the wait for it (0: shown by its slot)", "",
            "| set-up | tree | presses with room | p50 | p95 | max | shown within 3 s | p95 target | "
            "presses while the budget was full | wait for the slot p50 / max | staleness p50 / max | "
            "after the slot p50 / p95 / max | max target |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    out += rows(results, lambda s: f"{s['room_presses']} | {f(s['room_p50'])} | {f(s['room_p95'])} | "
                                   f"{f(s['room_max'])} | {share(s['room_within'])} | {met(s['room_p95'], ROOM_P95)} | "
                                   f"{s['full_presses']} | {f(s['full_wait_p50'])} / {f(s['full_wait_max'])} | "
                                   f"{f(s['full_p50'])} / {f(s['full_max'])} | {f(s['past_slot_p50'])} / "
                                   f"{f(s['past_slot_p95'])} / {f(s['past_slot_max'])} | "
                                   f"{met(s['past_slot_max'], PAST_SLOT_MAX)}{past_slot_over(s)}")
    out += ["", "2. Webhook held time: virtual seconds the webhook invocations slept (before: core/pacing)", "",
            "| set-up | tree | slept / game | max per invocation | invocations that slept / game | "
            "timer invocations' sleep / game |", "|---|---|---|---|---|---|"]
    out += rows(results, lambda s: f"{f(s['held_total'])} | {f(s['held_max'])} | {f(s['held_count'])} | "
                                   f"{f(s['timer_slept'])}")
    out += ["", f"3. Lambda per game: GB-s = (sleep + work) x {MEMORY_GB:g} GB per invocation; work = AWS requests x "
            f"{AWS_MS:g} ms + Bot API calls x {BOT_API_MS:g} ms (the longest chat, per stretch between sleeps) + CPU "
            f"here x {CPU_FACTOR:g}", "",
            "| set-up | tree | webhook invocations | timer invocations (of which stale) | GB-s | of which sleep | "
            "AWS requests | Bot API s | CPU s here | Lambda $ / 1,000 games | group sends | group edits | "
            "game minutes |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    out += rows(results, lambda s: f"{f(s['webhooks'])} | {f(s['timers'])} ({f(s['stale_wakes'])}) | "
                                   f"{f(s['gb_s'], 2)} | {f(s['gb_s_sleep'], 2)} | {f(s['aws_requests'])} | "
                                   f"{f(s['bot_api_s'])} | {f(s['cpu_s'], 2)} | {s['usd_1000']:.3f} | {f(s['group_sends'])} | "
                                   f"{f(s['group_edits'])} | {f(s['minutes'])}")
    if gaps:
        out += ["", "4. The after tree's progress gap (PROGRESS_GAP, Budget.gap): group edits and staleness", "",
                "| gap s | set-up | games | group edits / game | group sends / game | p50 | p95 | max | "
                "shown within 3 s | presses in the group: p50 / p95, within 3 s | never shown | "
                "timer invocations / game | GB-s | with room: p50 / p95 / max | budget full: presses, "
                "after the slot max |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for label, res in gaps.items():
            for setup in GROUP_SETUPS:
                if (s := res.get(setup)) is not None:
                    out.append(f"| {label} | {setup} | {s['games']} | {f(s['group_edits'])} | {f(s['group_sends'])} | "
                               f"{f(s['p50'])} | {f(s['p95'])} | {f(s['max'])} | {share(s['within'])} | "
                               f"{f(s['group_p50'])} / {f(s['group_p95'])}, {share(s['group_within'])} | "
                               f"{s['never_shown']} | {f(s['timers'])} | {f(s['gb_s'], 2)} | "
                               f"{f(s['room_p50'])} / {f(s['room_p95'])} / {f(s['room_max'])} | "
                               f"{s['full_presses']}, {f(s['past_slot_max'])} |")
    out += ["", "Models: " + " ".join(MODELS)]
    unseen = [(tree, p) for tree, res in [*results.items(), *gaps.items()] for s in res.values()
              for p in s["never_shown_presses"]]
    for tree, res in results.items():
        for setup, s in res.items():
            for p in s["slowest_full"][:10 if tree == "after" else 3]:  # (the slowest; their count: table 1b)
                if p["past"] > PAST_SLOT_MAX:
                    out.append(f"past its slot ({tree}): {setup} ({p['people']} people) seed {p['seed']}: the press at "
                               f"{p['t']} s shown after {p['stale']:.1f} s, its slot {p['wait']:.1f} s away")
    for tree, p in unseen[:20]:
        out.append(f"never shown ({tree}): {p['setup']} ({p['people']} people) seed {p['seed']}: the press at "
                   f"{p['t']} s on message {p['message']} of chat {p['chat']}")
    for tree, res in [*results.items(), *gaps.items()]:
        for e in (e for s in res.values() for e in s["errors"]):
            out.append(f"problem ({tree}): {e}")
    for label, lines in meta["logged"].items():
        for line, count in sorted(lines.items()):
            out.append(f"logged ({label}, {count}x): {line}")
    return "\n".join(out)


MODELS = (
    "people press 1-4 s apart (uniform, seeded) and look 1-4 s after their chats change when they had nothing to "
    "press; the work inside an invocation takes no virtual time.",
    "SQS (after: the alarms within QUEUE_WINDOW = 120 s): a message's delay in whole seconds + a poll latency uniform "
    "in [0, SQS_LATENCY = 1 s] per message; every message then visible is one timer invocation.",
    "EventBridge Scheduler: the schedule's second + a lateness uniform in [0, 60) s per schedule, seeded (after: the "
    "alarms further off, set EARLY = 90 s ahead of their moment, and the backstop; before: every alarm).",
    "Before: an invocation sleeps as core/pacing says, bounded by its Lambda's time (webhook 25 s, timer 30 s, less "
    "3 s); the other invocations run meanwhile, each in a container of its own.",
    f"Lambda: {MEMORY_GB:g} GB; duration = sleep + AWS requests (DynamoDB, SQS SendMessage, Scheduler) x "
    f"{AWS_MS:g} ms + Bot API calls x {BOT_API_MS:g} ms (calls of one chat in sequence, chats in parallel) + CPU "
    f"measured here x {CPU_FACTOR:g} (512 MB ~ 0.29 vCPU); $ = GB-s x {PRICE_GB_S} + invocations x {PRICE_REQUEST}.",
)


def chunks(spec: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """``spec``'s games in parts of about ``size`` games, each part with every kind of game (even work)."""
    n = max(1, math.ceil(len(spec["games"]) / size))
    return [dict(spec, games=spec["games"][i::n]) for i in range(n)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--before", default=BEFORE, help=f"the 'before' revision (default {BEFORE}; none: skip)")
    parser.add_argument("--gap", type=float, default=None,
                        help="the after tree's progress gap, seconds (default: the code's PROGRESS_GAP)")
    parser.add_argument("--gaps", default="", help="comma-separated gaps: one row per gap and group set-up (after)")
    parser.add_argument("--quick", action="store_true", help="one short game per set-up (CI)")
    parser.add_argument("--json", type=Path, help="write the numbers as JSON")
    parser.add_argument("--jobs", type=int, default=2, help="subprocesses at a time (default 2)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    started = time.perf_counter()
    gaps = [float(g) for g in args.gaps.split(",") if g.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-staleness-") as tmp:
        specs = [{"label": "after", "tree": str(ROOT), "gap": args.gap, "games": games(args.quick, tuple(SETUPS))}]
        before = args.before if args.before.lower() != "none" else None
        if before is not None:
            try:
                tree = before_tree(before, Path(tmp))
            except (OSError, subprocess.CalledProcessError) as exc:
                print(f"before: {before} could not be read from git ({exc}): the after tree alone")
                before = None
            else:
                specs.append({"label": "before", "tree": str(tree), "gap": None, "games": specs[0]["games"]})
        specs += [{"label": f"gap {g:g}", "tree": str(ROOT), "gap": g,
                   "games": games(args.quick, GROUP_SETUPS)} for g in gaps]
        parts = [part for spec in specs for part in chunks(spec, CHUNK)]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            done = list(pool.map(run_job, parts))
    merged: dict[str, list[dict[str, Any]]] = {}
    info: dict[str, dict[str, Any]] = {}
    logged: dict[str, Counter[str]] = {}
    for part, result in zip(parts, done, strict=True):
        merged.setdefault(part["label"], []).extend(result["games"])
        info[part["label"]] = result["info"]
        logged.setdefault(part["label"], Counter()).update(result["logged"])
    results = {label: by_setup(merged[label]) for label in ("before", "after") if label in merged}
    gap_rows = {f"{g:g}": by_setup(merged[f"gap {g:g}"]) for g in gaps}
    meta = {"after": describe("HEAD", checkout=True), "after_gap": info["after"]["progress_gap"],
            "after_queue": info["after"].get("queue"),
            "before": describe(before) if before else "not run",
            "before_gap": info["before"]["progress_gap"] if "before" in info else None,
            "before_pacing": info["before"]["pacing"] if "before" in info else None,
            "logged": {k: dict(v) for k, v in logged.items() if v}}
    print(tables(results, gap_rows, meta))
    print(f"\n({sum(len(p['games']) for p in parts)} games in {len(parts)} subprocesses, "
          f"{time.perf_counter() - started:.0f} s of wall time)")
    if args.json:
        args.json.write_text(json.dumps({"setups": results, "gaps": gap_rows, "meta": meta, "info": info,
                                         "games": merged}, indent=1, default=str))


if __name__ == "__main__":
    main()
