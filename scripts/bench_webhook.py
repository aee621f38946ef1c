"""Benchmark the webhook as Telegram sees it: wall time per update against its physical floor, the
group's busiest minute, Bot API calls, capacity and the AWS cost of a game.

    .venv/bin/python scripts/bench_webhook.py               # 8 games, 5 and 10 players; 80 ms / 5 ms / 5 ms
    .venv/bin/python scripts/bench_webhook.py --quick       # one 5-player game; 10 ms / 1 ms / 1 ms (CI)
    .venv/bin/python scripts/bench_webhook.py --rtt-ms 80 --dynamo-ms 5 --json out.json --rows rows.json

Whole games are played through ``lambda_handler`` (secret check, JSON, ``Service.handle``) against a
moto DynamoDB *server* and the fake Bot API, both on 127.0.0.1, by the reliability tests' driver (it
reads the chats and presses buttons like a person). Delays make the run look like AWS:

* every Bot API call the bot makes over HTTP takes ``--rtt-ms`` more (default 80 ms: us-east-1 to
  api.telegram.org): the fake server's handler sleeps that long (a real thread sleep: parallel calls
  overlap, as on the network). The method the webhook returns in its HTTP response (the answer to a
  button, a one-message reply) is performed by "Telegram" once the handler has answered: no delay,
  and it is not part of the handler's time;
* every DynamoDB request takes ``--dynamo-ms`` (default 5 ms) from the moment it goes on the wire to
  the moment its answer can be read, as over the network: hooks on the service's client
  (``gamebot.aws.client``: ``before_send``, ``before_receive``) wait before the answer is read until that
  long after the request went out (a sleep, its last 0.3 ms waited awake: a sleep alone wakes about
  0.1 ms late, which the floor would count against us). moto works meanwhile; what it takes beyond
  the delay is its own local cost (``-moto`` leaves it out). The request units are counted once the
  update's time is taken (the bench's own work). Work the handler does between writing a request and reading
  its answer (``DynamoDB.start``: a button's session is read while the update is parsed) overlaps
  the delay, as it would in AWS;
* timers are on, as the stack deploys them: a scheduler is installed (``gamebot.timing.wakeup.install``)
  that records every timer and delays each CreateSchedule request by ``--scheduler-ms`` (default: the
  DynamoDB delay; EventBridge answers a name already scheduled with ConflictException, still a
  request). The bench fires the timers when due through ``Timers.fire`` (the timer function's work):
  flush timers (an outbox entry that waits for the group's budget, a progress edit held back) and
  phase timers (reminders and time limits: at this pace they are all stale, but each still costs an
  invocation).

Time is a simulated clock (``Service.set_clock``, ``tests.unit.gamebot_fakes.Clock``): one action (an
update) per second; the timers due by then fire first; when nobody can act, time passes to the next
flush timer. Wall time (and the handler thread's CPU time; in the rows also the CPU time of the event
loop's worker threads, ``cpu_workers_s``: a finished game's statistics, the schedules) of each update
and timer is measured for real. The games are seeded: the calls and counts repeat from run to run, the times do not.

The **physical floor** of an update, from its recorded calls: the Bot API calls it made, grouped by
chat; the longest chain (the number of calls to one chat: they must go one after the other, while
different chats may go at the same time) times the round trip; plus every DynamoDB request (reads,
writes, receipts' notes, transactions) times the DynamoDB delay, plus every CreateSchedule times its
delay, counted one after the other because our code makes them one after the other (read, commit,
schedule, a wave's receipts before the next wave that sends, the ack). The ratio wall / floor is what our code adds to the
I/O it cannot avoid: CPU (our code, PTB, httpx, our AWS client), local I/O (moto, the fake server) and any
round trip it does not overlap (``rounds``: calls arriving more than half a round trip after the
round's first call start a new one). ``-moto`` takes out what moto's local round trips took beyond the
DynamoDB delay (in AWS the delay stands for the whole request).

The group's **busiest minute**: the largest number of sendMessage/sendPhoto/edit* calls to the group
(the webhook replies included: Telegram counts them) in any 60 s of simulated time. **Capacity**:
Telegram lets a bot send about 30 messages per second in all, so one bot token hosts at most
30 x 2700 / (sends + edits of a 45-minute game) games at once.

Quick mode (CI) plays one 5-player game with small delays (10 ms / 1 ms) to stay quick; its times mean
little. This is a benchmark, not a test: it asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

TOKEN = "123456:BENCH-token"
SECRET = "bench-webhook-secret-0123456789abcdef"
TABLE = "bench-game"
MEMORY_GB = 0.5  # template.yaml MemorySize: 512 (the webhook and the timer function)
PACE = 1.0  # simulated seconds between two actions
SPIN = 0.0003  # seconds of a simulated delay waited awake at its end (a sleep overshoots by ~0.1 ms)
GAME_SECONDS = 2700  # a 45-minute game, for the capacity
BOT_PER_SECOND = 30  # Telegram: about 30 messages per second per bot, in all
SAME_MODEL = (80.0, 6.0)  # the previous script's cost model: every call one after the other, 80 ms / 6 ms

# us-east-1 list prices (USD), 2025: Lambda x86 per GB-s and per request, HTTP API per request, EventBridge
# Scheduler per invocation (the timers), DynamoDB on-demand per write / read request unit.
PRICES = {"lambda_gb_s": 0.0000166667, "lambda_request": 0.20 / 1e6, "http_api_request": 1.00 / 1e6,
          "scheduler_invocation": 1.00 / 1e6, "wru": 0.625 / 1e6, "rru": 0.125 / 1e6}

MESSAGE_METHODS = {"sendmessage", "sendphoto", "editmessagetext", "editmessagereplymarkup", "editmessagecaption"}
KINDS = ["lobby: join", "start game", "team: pick", "team: propose", "vote", "last vote", "quest card", "last card",
         "private decision"]  # the update types the targets are about, in this order


# ---------------------------------------------------------------------------------------------------
# DynamoDB: request units from item sizes (names + values, 1 KB per WRU, 4 KB per strongly consistent
# RRU, transactions twice, a write charged for the larger of the old and the new item), and the delay
# ---------------------------------------------------------------------------------------------------


def attr_size(value: dict[str, Any]) -> int:
    kind, v = next(iter(value.items()))
    if kind == "S":
        return len(v.encode())
    if kind == "N":
        return (len(v.strip("-").replace(".", "")) + 1) // 2 + 1
    if kind == "B":
        return len(v)
    if kind == "BOOL" or kind == "NULL":
        return 1
    return len(json.dumps(v))


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + attr_size(value) for name, value in item.items())


READS = ("GetItem", "TransactGetItems")
WRITES = ("PutItem", "DeleteItem", "TransactWriteItems")


class DynamoRecorder:
    """Records every request a DynamoDB client (``gamebot.aws.client``) makes, with the request units it consumes
    and its local time; its answer is read no sooner than ``delay`` seconds after it went on the wire
    (``before_send`` notes the time, ``before_receive`` waits out the rest). Thread-safe: what belongs
    to one call (its wait, moto's time beyond the delay) is kept per thread until the call ends (a thread
    has one request on the wire at a time); the totals change under a lock."""

    def __init__(self, client: Any, delay: float) -> None:
        self.ops: list[str] = []
        self.done_at: list[float] = []  # perf_counter when each of ``ops`` was answered
        self.local_s = 0.0  # time in requests, the injected wait left out
        self.wire_s = 0.0  # of which moto's local round trip took beyond the delay (0 in AWS)
        self.delay = delay
        self.sizes: dict[str, int] = {}  # key -> stored item size
        self.rru = self.wru = 0
        self._lock = threading.Lock()
        self._call = threading.local()  # .delayed, .wire, .sent: the current call of this thread
        self._uncounted: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        self.spun_s = 0.0  # CPU time spent waiting awake
        self.spun_by: dict[int, float] = {}  # of which in each thread (by ident)
        client.before_send.append(self._send)
        client.before_receive.append(self._wait)
        client.after_receive.append(self._received)
        client.after_call.append(self._after)
        client.after_error.append(self._failed)  # a failed condition is a request too, and costs its units

    def _send(self, op: str) -> None:
        self._call.sent = time.perf_counter()

    def _wait(self, op: str) -> None:
        call = self._call
        due = call.sent + self.delay
        left = due - time.perf_counter()
        if left > SPIN:  # (a sleep wakes up ~0.1 ms late: the last moments are waited awake)
            time.sleep(left - SPIN)
        spin = time.thread_time()
        while time.perf_counter() < due:
            pass
        spun = time.thread_time() - spin
        with self._lock:
            self.spun_s += spun  # (not the handler's CPU)
            me = threading.get_ident()
            self.spun_by[me] = self.spun_by.get(me, 0.0) + spun
        call.delayed = getattr(call, "delayed", 0.0) + max(left, 0.0)

    def _received(self, op: str) -> None:
        call = self._call
        call.wire = getattr(call, "wire", 0.0) + max(0.0, time.perf_counter() - call.sent - self.delay)

    def _failed(self, op: str, params: dict[str, Any], error: Any, seconds: float) -> None:
        self._after(op, params, error.response, seconds)

    def _after(self, name: str, params: dict[str, Any], parsed: dict[str, Any], seconds: float) -> None:
        call = self._call
        delayed, wire = getattr(call, "delayed", 0.0), getattr(call, "wire", 0.0)
        call.delayed = call.wire = 0.0
        with self._lock:
            self.local_s += seconds - delayed
            self.wire_s += wire
            self.ops.append(name)
            self.done_at.append(time.perf_counter())
            self._uncounted.append((name, params, parsed))  # (units: counted by ``settle``, off the clock)

    def settle(self) -> None:
        """Count the request units of the requests made since the last call (the bench's own work, done
        once the update's time is taken)."""
        with self._lock:
            done, self._uncounted = self._uncounted, []
        for name, params, parsed in done:
            self._count(name, params, parsed)

    def _count(self, name: str, params: dict[str, Any], parsed: dict[str, Any]) -> None:
        if name == "GetItem":
            self.rru += max(1, math.ceil(item_size(parsed.get("Item") or {}) / 4096))
        elif name == "TransactGetItems":  # twice a strongly consistent read, for every item asked for
            for response in parsed.get("Responses") or []:
                self.rru += 2 * max(1, math.ceil(item_size(response.get("Item") or {}) / 4096))
        elif name == "PutItem":
            self.wru += self._put(params["Item"])
        elif name == "UpdateItem":  # a receipt's note: one more number attribute on a small item
            key = params["Key"]["pk"]["S"]
            old = self.sizes.get(key, 0)
            new = (old or len("pk") + len(key) + len("expires_at") + 6) + sum(
                len(n) + 4 for n in (params.get("ExpressionAttributeNames") or {}).values())
            self.sizes[key] = new
            self.wru += max(1, math.ceil(max(old, new) / 1024))
        elif name == "TransactWriteItems":
            for op in params["TransactItems"]:
                self.wru += 2 * self._put(op["Put"]["Item"]) if "Put" in op else 2
        elif name == "DeleteItem":
            self.wru += max(1, math.ceil(self.sizes.pop(params["Key"]["pk"]["S"], 0) / 1024))

    def _put(self, item: dict[str, Any]) -> int:
        key = item["pk"]["S"]
        new = item_size(item)
        units = max(1, math.ceil(max(new, self.sizes.get(key, 0)) / 1024))
        self.sizes[key] = new
        return units


# ---------------------------------------------------------------------------------------------------
# The Bot API, one round trip away
# ---------------------------------------------------------------------------------------------------


def remote_telegram(rtt: float) -> Any:
    from localdev.fake_telegram import FakeTelegram

    class RemoteTelegram(FakeTelegram):
        """The fake Bot API as a Lambda far from Telegram sees it: every call made over HTTP takes ``rtt``
        more. ``arrivals``: (perf_counter, method, chat id or None) of each of those calls."""

        def __init__(self) -> None:
            super().__init__(token=TOKEN)
            self.rtt = rtt
            self.arrivals: list[tuple[float, str, int | None]] = []

        def handle(self, token: str, method: str, params: dict[str, Any], files: dict[str, Any]) -> tuple[int, Any]:
            self.arrivals.append((time.perf_counter(), method, _chat(params)))
            if self.rtt:
                time.sleep(self.rtt)
            return super().handle(token, method, params, files)

        def perform(self, method: dict[str, Any] | None, token: str | None = None) -> Any:
            """The webhook's reply: Telegram performs it, no call of ours (no delay, not in ``arrivals``)."""
            if not method:
                return None
            params = {k: v for k, v in method.items() if k != "method"}
            return FakeTelegram.handle(self, token or TOKEN, str(method["method"]), params, {})

    return RemoteTelegram()


def _chat(params: dict[str, Any]) -> int | None:
    try:
        return int(str(params.get("chat_id")))
    except ValueError:
        return None


def worker_cpu() -> dict[int, float]:
    """CPU seconds so far of each worker thread of the event loops' default executors (``asyncio.to_thread``:
    the courier's scheduler requests and the statistics of a finished game), by thread ident."""
    out = {}
    for t in threading.enumerate():
        if t.name.startswith("asyncio_") and t.ident is not None:
            with contextlib.suppress(OSError, ProcessLookupError):
                out[t.ident] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
    return out


def chains(calls: list[tuple[float, str, int | None]]) -> Counter:
    """Bot API calls per chat (a call without a chat, e.g. answerCallbackQuery, is its own chain)."""
    return Counter(chat if chat is not None else f"call{i}" for i, (_, _, chat) in enumerate(calls))


def rounds(calls: list[tuple[float, str, int | None]], rtt: float) -> int:
    """Round trips one after the other: a call arriving more than rtt/2 after its round's first starts one."""
    n, start = 0, None
    for t, _, _ in sorted(calls):
        if start is None or t - start > rtt / 2:
            n, start = n + 1, t
    return n


def busiest_minute(times: list[float], window: float = 60.0) -> int:
    """The most events in any ``window`` seconds (the times of a group's sends and edits)."""
    times = sorted(times)
    best = lo = 0
    for hi, t in enumerate(times):
        while times[lo] <= t - window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


# ---------------------------------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------------------------------


def update_kind(update: dict[str, Any], before: str | None, after: str | None) -> str:
    """The update's type; ``before``/``after``: the game's stage around it (the last vote, the last card)."""
    from gamebot.storage.session import kind_tag

    if "callback_query" in update:
        data = update["callback_query"].get("data", "")
        scope, _, _, _, op, _ = (data.split(":") + [""] * 6)[:6]
        if scope == "V":
            return "last vote" if before == "vote" and after != "vote" else "vote"
        if scope == "Q" or (scope == "P" and op[:2] == kind_tag("play")):  # (from the group; before: in private)
            return "last card" if before == "quest" and after != "quest" else "quest card"
        if scope == "P":
            return "private decision"
        if scope == "T":
            return "team: propose" if op == "c" else "team: pick"
        if scope == "L":
            return {"j": "lobby: join", "g": "start game", "s": "lobby: settings"}.get(op, "lobby")
        return "settings panel"
    text = (update.get("message") or {}).get("text", "")
    return text.split()[0] if text.startswith("/") else "other"


class BenchScheduler:
    """EventBridge Scheduler as the bench sees it: each ``schedule`` is one CreateSchedule request and each
    ``cancel`` one DeleteSchedule request, delayed by ``delay``; the timers are kept and the bench fires
    them when due (``pop_due``), as EventBridge invokes the timer function."""

    window = 0.0  # (no wake-up queue: every alarm a schedule, as before the queue; see bench_staleness.py)

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.calls = 0
        self.timers: list[Any] = []
        self.names: set[str] = set()

    def schedule(self, timer: Any) -> None:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        if timer.name not in self.names:
            self.names.add(timer.name)
            self.timers.append(timer)

    def cancel(self, name: str) -> None:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        self.timers = [t for t in self.timers if t.name != name]
        self.names.discard(name)

    def pop_due(self, until: float, kind: str | None = None) -> Any:
        """The earliest timer due by ``until`` (of ``kind`` only, if given), removed; None if there is none."""
        due = [t for t in self.timers if t.at <= until and (kind is None or t.payload.get("kind") == kind)]
        if not due:
            return None
        timer = min(due, key=lambda t: t.at)
        self.timers.remove(timer)
        self.names.discard(timer.name)  # (a schedule that fired is deleted: ActionAfterCompletion DELETE)
        return timer

    def next_at(self, chat: int) -> float | None:
        return min((t.at for t in self.timers if t.payload.get("chat") == chat), default=None)


def prompt_kind(update: dict[str, Any], pending: list[str]) -> str:
    """The kind of the private decision a press answers (``lady``, ``excalibur``, a Plot card...), or ""."""
    from gamebot.storage.session import kind_tag

    data = (update.get("callback_query") or {}).get("data", "")
    parts = data.split(":")
    if len(parts) < 5 or parts[0] != "P":
        return ""
    return next((k for k in [*pending, "play"] if kind_tag(k) == parts[4][:2]), "?")


class Bench:
    """Plays through lambda_handler on a simulated clock, timing each update and each timer it fires."""

    def __init__(self, fake: Any, rtt: float, dynamo_delay: float, scheduler_delay: float, endpoint: str) -> None:
        import app

        from gamebot.aws import dynamo
        from gamebot.aws.client import DynamoDB
        from gamebot.aws.dynamo import DynamoRepository
        from gamebot.timing import wakeup
        from tests.unit.gamebot_fakes import Clock

        self.app = app
        self.fake = fake
        self.rtt = rtt
        self.dynamo_delay = dynamo_delay
        self.scheduler_delay = scheduler_delay
        self.recorder = DynamoRecorder(dynamo.default_client(), dynamo_delay)
        # the bench's own reads: another client, not recorded, not delayed
        self.peek_repo = DynamoRepository(TABLE, client=DynamoDB(endpoint=endpoint))
        self.clock = Clock(float(int(time.time())))
        self.scheduler = BenchScheduler(scheduler_delay)
        wakeup.install(self.scheduler)  # (in AWS: EventBridge Scheduler, as template.yaml configures it)
        self.svc = app.service()  # warm: the first update of a container is a cold start, measured elsewhere
        self.svc.set_clock(self.clock)
        self.rows: list[dict[str, Any]] = []
        self.group = 0

    def stage(self) -> tuple[str | None, list[str]]:
        """The game's stage and the kinds of its pending decisions now (read by the bench, not measured)."""
        from gamebot.storage.session import Session, chat_key

        item = self.peek_repo.get(chat_key(self.group))
        s = Session.from_body(item.body) if item is not None else None
        state = s.game() if s is not None and s.state else None
        return (state.stage, [p.kind for p in state.pending]) if state is not None else (None, [])

    # --- measuring ------------------------------------------------------------------------------------
    def measure(self, run: Any, group: int) -> tuple[dict[str, Any], Any]:
        ops0, calls0, schedules0 = len(self.recorder.ops), len(self.fake.arrivals), self.scheduler.calls
        rru, wru, local, wire = self.recorder.rru, self.recorder.wru, self.recorder.local_s, self.recorder.wire_s
        spun, workers, me = dict(self.recorder.spun_by), worker_cpu(), threading.get_ident()
        started, cpu = time.perf_counter(), time.thread_time()
        value, reply = run()
        wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
        after = worker_cpu()
        # the sleeps' last moments waited awake (in this thread or a worker's) are not our CPU
        waited = {t: v - spun.get(t, 0.0) for t, v in self.recorder.spun_by.items()}
        cpu -= waited.get(me, 0.0)
        cpu_workers = sum(v - workers.get(t, 0.0) - waited.get(t, 0.0) for t, v in after.items())
        self.recorder.settle()
        calls = self.fake.arrivals[calls0:]
        if reply:
            self.fake.perform(reply)
        ops = Counter(self.recorder.ops[ops0:])
        per_chat = chains(calls)
        longest = max(per_chat.values(), default=0)
        dynamo_calls = sum(ops.values())
        schedules = self.scheduler.calls - schedules0
        messages = [(m, c) for _, m, c in calls if m.lower() in MESSAGE_METHODS]
        if reply and reply.get("method", "").lower() in MESSAGE_METHODS:
            messages.append((reply["method"], _chat(reply)))
        sent = Counter(f"{m} ({'group' if c == group else 'private'})" for m, c in messages)
        first = next((t for t, m, c in calls if c == group and m == "sendMessage"), None)
        before_first = sum(1 for t in self.recorder.done_at[ops0:] if first is not None and t <= first)
        row = {
            "t": self.clock.now, "group": group, "wall_s": wall, "cpu_s": cpu, "cpu_workers_s": cpu_workers,
            "dynamo_ops": self.recorder.ops[ops0:],
            # the group's first new message of the update: when it is answered (its call went out + one
            # round trip), and its own floor (the DynamoDB requests answered before it, then a round trip
            # for it and for each group call before it)
            "first_group_send_s": None if first is None else first - started + self.rtt,
            "first_group_send_floor_s": None if first is None else before_first * self.dynamo_delay + self.rtt * (
                1 + sum(1 for t, _, c in calls if c == group and t < first)),
            "calls": [(round((t - started) * 1000, 1), m, "group" if c == group else ("private" if c else "-"))
                      for t, m, c in calls],
            "floor_s": longest * self.rtt + dynamo_calls * self.dynamo_delay + schedules * self.scheduler_delay,
            "chain": longest, "rounds": rounds(calls, self.rtt) if self.rtt else longest,
            "chain_chat": ("group" if per_chat.get(group) == longest else "private") if longest else "",
            "bot_calls": len(calls), "reply": (reply or {}).get("method", ""),
            "answers": sum(1 for _, m, _ in calls if m == "answerCallbackQuery"),
            "sends_edits": len(messages), "group_sends_edits": sum(1 for _, c in messages if c == group),
            "private_sends_edits": sum(1 for _, c in messages if c is not None and c > 0),
            "pins": sum(1 for _, m, _ in calls if m == "pinChatMessage"),
            "reads": sum(ops[n] for n in READS), "writes": sum(ops[n] for n in WRITES),
            "notes": ops["UpdateItem"], "transactions": ops["TransactWriteItems"], "dynamo_calls": dynamo_calls,
            "schedules": schedules, "dynamo_local_s": self.recorder.local_s - local,
            "dynamo_wire_s": self.recorder.wire_s - wire,
            "rru": self.recorder.rru - rru, "wru": self.recorder.wru - wru, "sent": dict(sent),
        }
        return row, value

    def post(self, update: dict[str, Any]) -> int:
        """One action, one second after the previous one (the timers due by then fire first)."""
        from localdev import updates as U

        now = self.clock.now + PACE
        self.fire_until(now)
        self.clock.now = now
        before = self.stage()

        def run() -> tuple[int, Any]:
            response = self.app.lambda_handler(U.webhook_event(update, SECRET), None)
            return response["statusCode"], U.webhook_reply(response)

        row, status = self.measure(run, self.group)
        after = self.stage()
        row.update(kind=update_kind(update, before[0], after[0]), detail=prompt_kind(update, before[1]),
                   status=status, ends=before[0] not in (None, "ended") and after[0] in (None, "ended"))
        self.rows.append(row)
        return status

    def fire_until(self, until: float) -> bool:
        """Every timer due by ``until`` fires, in order (the timer function). True if one sent something."""
        sent = False
        while (timer := self.scheduler.pop_due(until)) is not None:
            sent = self.fire(timer) or sent
        return sent

    def fire(self, timer: Any) -> bool:
        """One timer fires at its time: ``Timers.fire``, the timer function's work. True if it sent something."""
        self.clock.now = max(float(timer.at), self.clock.now)

        def run() -> tuple[str, None]:
            from gamebot.storage.session import chat_key

            with self.svc.repo.prefetching(chat_key(int(timer.payload["chat"]))):  # as functions/timer does
                return self.app.run(self.svc.timers.fire(dict(timer.payload))), None

        row, outcome = self.measure(run, int(timer.payload["chat"]))
        phase = outcome in ("reminded", "expired")  # (else it delivered what waited in the outbox, or nothing)
        row.update(kind="phase timer" if phase else "flush timer", detail=str(outcome), status=200)
        self.rows.append(row)
        return bool(row["bot_calls"])

    def idle(self) -> bool:
        """Nobody can act: time passes until the group's alarm wakes it for what waits in its outbox (not
        for a time limit: the players act in time). True if something went out."""
        from gamebot.storage.session import Session, chat_key

        for _ in range(10):
            at = self.scheduler.next_at(self.group)
            item = self.peek_repo.get(chat_key(self.group))
            d = Session.from_body(item.body).deadline if item is not None else None
            if at is None or (d is not None and at >= (d.remind_at if d.remind_at and not d.reminded else d.due)):
                return False
            if self.fire_until(max(at, self.clock.now)):
                return True
        return False


def players_driver(table: Any, group: int, players: list[int], seed: int) -> Any:
    from localdev.autoplay import Policy
    from tests.reliability.support import RobustDriver

    # (it tries refused presses again once before asking /status: the round message may look unchanged)
    return RobustDriver(table, group, players, Policy(rng=random.Random(seed)),
                        status=lambda u, c: table.command(u, "/status", chat=c))


def play(bench: Bench, name: str, n: int, theme: str, roles: list[str], options: dict[str, Any], seed: int,
         group: int) -> int:
    """One game; the number of times the players were stuck (and asked /status)."""
    from localdev import updates as U
    from localdev.autoplay import WebhookTable
    from tests.reliability.support import set_settings

    bench.group = group
    bench.svc.seeds = random.Random(seed)
    table = WebhookTable(bench.fake, SECRET, group=group)
    table.post = bench.post
    table.idle = bench.idle
    players = list(range(100 * seed + 1, 100 * seed + n + 1))
    bench.fake.add_group(group, table.title)
    for uid in players:
        bench.fake.start_private(U.user(uid))
        table.post(U.start(U.user(uid)))
    table.command(players[0], "/newgame")
    for uid in players[1:]:
        table.press_label(uid, group, "Join")
    set_settings(bench.peek_repo, group, theme, roles, options)  # (set-up, not measured: the settings panel)
    table.press_label(players[0], group, "Start")
    driver = players_driver(table, group, players, seed)
    driver.play()
    while bench.idle():  # the end of the game may still wait for the group's budget
        pass
    if not driver.over():
        raise RuntimeError(f"{name}: the game did not end")
    return driver.stuck


BASE = ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"]
EVERY = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
GAMES = {
    "10p base roles + Lady": (10, "avalon", BASE, {"lady_of_the_lake": True}),
    "10p every module": (10, "avalon", BASE, EVERY),
    "5p base roles": (5, "avalon", ["merlin", "assassin", "percival", "morgana"], {}),
    "5p every module": (5, "avalon", ["merlin", "assassin", "percival", "morgana"], EVERY),
}
FULL_PLAN = [("10p base roles + Lady", 1), ("10p base roles + Lady", 2), ("10p every module", 3),
             ("10p every module", 4), ("5p base roles", 5), ("5p base roles", 6), ("5p every module", 7),
             ("5p every module", 8)]
QUICK_PLAN = [("5p base roles", 1)]


class MotoProcess:
    """moto's DynamoDB server in a process of its own, on 127.0.0.1: its request handling (several ms of
    Python per request) then runs on the other core instead of taking turns with the handler for this
    process's interpreter lock, as DynamoDB's own work never competes with a Lambda's; and it keeps
    connections alive (``scripts/moto_keepalive.py``) as DynamoDB does, where moto's own server opens a
    new connection for every request."""

    def __init__(self) -> None:
        self.process: Any = None

    def start(self) -> tuple[str, int]:
        import socket
        import subprocess

        self.process = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "moto_keepalive.py")],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        port = int(self.process.stdout.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
        return "127.0.0.1", port

    def stop(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # (the server exits when its input ends)
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def operator_output() -> Any:
    """What Lambda writes for every update, written to /dev/null: its summary log line as JSON and its EMF
    blob on stdout (``run`` names a stack: ``gamebot.core.metrics``), so that the CPU they take is measured."""
    import logging

    from gamebot.core.logs import JsonFormatter

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        summary = logging.StreamHandler(sink)
        summary.setFormatter(JsonFormatter())
        webhook = logging.getLogger("gamebot.webhook")
        level, propagate = webhook.level, webhook.propagate
        webhook.setLevel(logging.INFO)
        webhook.propagate = False
        webhook.addHandler(summary)
        try:
            yield
        finally:
            webhook.removeHandler(summary)
            webhook.setLevel(level)
            webhook.propagate = propagate


def run(quick: bool, rtt_ms: float, dynamo_ms: float, scheduler_ms: float, per_minute: int | None,
        rows_file: str | None = None) -> dict[str, Any]:
    import logging

    from localdev.updates import BOT_USERNAME

    server = MotoProcess()
    host, port = server.start()
    endpoint = f"http://{host}:{port}"
    for noisy in ("werkzeug", "gamebot", "botocore"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    fake = remote_telegram(rtt_ms / 1000).start()
    games: dict[int, tuple[str, int]] = {}  # group -> (set-up, players)
    stuck: dict[int, int] = {}
    try:
        os.environ.update({
            "TABLE_NAME": TABLE, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_BASE_URL": fake.base_url, "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
            "AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1",
            "PLAYER_THROTTLE": "0",  # the driver presses far faster than people (gamebot.botapi.throttle)
            "STACK_NAME": "bench",  # metrics on, as the stack deploys them (their blobs: ``operator_output``)
        })
        if per_minute is None:
            os.environ.pop("GROUP_MESSAGES_PER_MINUTE", None)  # the default budget
        else:
            os.environ["GROUP_MESSAGES_PER_MINUTE"] = str(per_minute)
        from gamebot.aws import dynamo
        from localdev.tables import admin_client, create_table_from_template

        dynamo.reset_default_client()
        create_table_from_template(admin_client(endpoint), TABLE, str(ROOT / "template.yaml"))
        bench = Bench(fake, rtt_ms / 1000, dynamo_ms / 1000, scheduler_ms / 1000, endpoint)
        logging.getLogger("gamebot").setLevel(logging.ERROR)  # (lambda_logging set it again)
        with operator_output():
            for i, (name, seed) in enumerate(QUICK_PLAN if quick else FULL_PLAN):
                n, theme, roles, options = GAMES[name]
                group = -1007000000000 - i
                games[group] = (name, n)
                stuck[group] = play(bench, name, n, theme, roles, options, seed, group)
            bench.fire_until(math.inf)  # the timers left fire too (stale by now: each still costs an invocation)
    finally:
        from gamebot.timing import wakeup

        wakeup.install(None)
        fake.stop()
        server.stop()
    rows = bench.rows
    for row in rows:
        row["game"], row["players"] = games[row["group"]]
    if rows_file:
        Path(rows_file).write_text(json.dumps(rows, indent=0))
    config = {"rtt_ms": rtt_ms, "dynamo_ms": dynamo_ms, "scheduler_ms": scheduler_ms,
              "budget_per_minute": bench.svc.uow.budget.limit}
    return summarise(rows, config, stuck)


# ---------------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------------

TIMERS = ("flush timer", "phase timer")


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _mean(rs: list[dict[str, Any]], key: str) -> float:
    return statistics.fmean(r[key] for r in rs)


def kind_summary(rs: list[dict[str, Any]]) -> dict[str, Any]:
    wall = statistics.median(r["wall_s"] for r in rs)
    floor = statistics.median(r["floor_s"] for r in rs)
    # what the DynamoDB delay stands for in AWS is the whole request; moto's local round trip comes on top here
    aws = statistics.median(r["wall_s"] - r["dynamo_wire_s"] for r in rs)
    ratios = [r["wall_s"] / r["floor_s"] for r in rs if r["floor_s"]]
    out = {"count": len(rs)}
    for key in ("reads", "writes", "notes", "dynamo_calls", "schedules", "rru", "wru", "bot_calls", "sends_edits",
                "group_sends_edits", "chain", "rounds"):
        out[f"{key}_mean"] = _mean(rs, key)
    for key in ("reads", "writes", "bot_calls", "chain", "rounds"):
        out[f"{key}_max"] = max(r[key] for r in rs)
    out.update({
        "transactions": sum(r["transactions"] for r in rs),
        "replies": sum(1 for r in rs if r["reply"]),
        "chain_in_group": sum(1 for r in rs if r["chain_chat"] == "group"),
        "extra_rounds": sum(max(r["rounds"] - r["chain"], 0) for r in rs),
        "dynamo_wire_ms_median": statistics.median(r["dynamo_wire_s"] for r in rs) * 1000,
        "cpu_ms_median": statistics.median(r["cpu_s"] for r in rs) * 1000,
        "handler_ms_median": wall * 1000, "floor_ms_median": floor * 1000,
        "ratio": wall / floor if floor else 0.0,
        "aws_ms_median": aws * 1000, "ratio_aws": aws / floor if floor else 0.0,
        "ratio_p90": _p(ratios, 0.9) if ratios else 0.0,
        "over_1_2": sum(1 for x in ratios if x > 1.2),
    })
    return out


def summarise(rows: list[dict[str, Any]], config: dict[str, Any], stuck: dict[int, int]) -> dict[str, Any]:
    updates = [r for r in rows if r["kind"] not in TIMERS]
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    order = [k for k in KINDS if k in by_kind] + sorted(k for k in by_kind if k not in KINDS)
    games: dict[str, dict[str, Any]] = {}
    for name, group in dict.fromkeys((r["game"], r["group"]) for r in rows):
        rs = [r for r in rows if r["group"] == group]
        ups = [r for r in rs if r["kind"] not in TIMERS]
        g = games.setdefault(name, defaultdict(float, {"players": rs[0]["players"], "busiest": [], "stuck": [],
                                                         "sent_by": Counter()}))
        g["games"] += 1
        g["updates"] += len(ups)
        g["flushes"] += sum(1 for r in rs if r["kind"] == "flush timer")
        g["phase_timers"] += sum(1 for r in rs if r["kind"] == "phase timer")
        for key in ("wall_s", "floor_s", "rru", "wru", "bot_calls", "answers", "sends_edits", "group_sends_edits",
                    "private_sends_edits", "pins", "dynamo_calls", "notes", "schedules", "dynamo_wire_s"):
            g[key] += sum(r[key] for r in rs)
        g["replies"] += sum(1 for r in rs if r["reply"])
        g["compute_s"] += sum(max(r["wall_s"] - r["dynamo_wire_s"] - r["floor_s"], 0.0) for r in rs)
        g["simulated_s"] += ups[-1]["t"] - ups[0]["t"]
        for r in rs:
            for what, count in r["sent"].items():
                g["sent_by"][f"{r['kind']}: {what}"] += count
        g["busiest"].append(busiest_minute([r["t"] for r in rs for _ in range(r["group_sends_edits"])]))
        g["stuck"].append(stuck.get(group, 0))
    walls = [r["wall_s"] for r in updates]
    floors = [r["floor_s"] for r in updates]
    result = {
        **config,
        "updates": len(updates), "timers": len(rows) - len(updates),
        "errors": sum(1 for r in rows if r["status"] != 200),
        "handler_ms_median": statistics.median(walls) * 1000,
        "floor_ms_median": statistics.median(floors) * 1000,
        "ratio_median": statistics.median(walls) / (statistics.median(floors) or math.inf),
        "ratio_total": sum(walls) / (sum(floors) or math.inf),
        "kinds": {kind: kind_summary(by_kind[kind]) for kind in order},
        "games": {name: cost(g) for name, g in games.items()},
        "end_text": end_text(rows),
    }
    result["busiest_minute"] = {f"{n} players": max(g["busiest_minute"] for g in result["games"].values()
                                                    if g["players"] == n)
                                for n in sorted({g["players"] for g in result["games"].values()})}
    return result


def cost(g: dict[str, Any]) -> dict[str, Any]:
    """Per game (means over the games of a set-up). Measured: Lambda time is the wall time of every update
    and timer with the round trips, less moto's own local round trips (in AWS the DynamoDB delay stands
    for the whole request). The previous script's model, for comparison: our compute (that wall time -
    the physical floor) + every Bot API call x 80 ms + every DynamoDB request x 6 ms, one after the other."""
    n = g["games"]
    keys = ("updates", "flushes", "phase_timers", "wall_s", "floor_s", "compute_s", "rru", "wru", "bot_calls",
            "answers", "replies", "sends_edits", "group_sends_edits", "private_sends_edits", "pins", "dynamo_calls",
            "notes", "schedules", "dynamo_wire_s", "simulated_s")
    per = {k: g[k] / n for k in keys}
    timers = per["flushes"] + per["phase_timers"]
    fixed = {"lambda_requests": (per["updates"] + timers) * PRICES["lambda_request"],
             "scheduler": timers * PRICES["scheduler_invocation"],
             "dynamodb_writes": per["wru"] * PRICES["wru"], "dynamodb_reads": per["rru"] * PRICES["rru"]}

    def priced(lambda_s: float) -> dict[str, Any]:
        usd = {"lambda_duration": MEMORY_GB * lambda_s * PRICES["lambda_gb_s"], **fixed}
        total = sum(usd.values())
        http_api = per["updates"] * PRICES["http_api_request"]
        return {"lambda_s": lambda_s, "gb_s": MEMORY_GB * lambda_s, "usd": {**usd, "http_api": http_api},
                "usd_total": total + http_api, "usd_total_http_api": total + http_api, "usd_total_function_url": total}

    rtt, dyn = SAME_MODEL
    measured = priced(per["wall_s"] - per["dynamo_wire_s"])
    same = priced(per["compute_s"] + per["bot_calls"] * rtt / 1000 + per["dynamo_calls"] * dyn / 1000)
    return {**per, "games": n, "players": g["players"], "busiest_minute": max(g["busiest"]),
            "busiest_minute_each": list(g["busiest"]), "stuck_each": list(g["stuck"]),
            "sends_edits_by": {k: v / n for k, v in g["sent_by"].most_common()},
            "capacity_games": BOT_PER_SECOND * GAME_SECONDS / per["sends_edits"] if per["sends_edits"] else 0.0,
            **measured,
            "same_model": {**same, "bot_api_ms": rtt, "dynamo_ms": dyn}}


def end_text(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The moves that end a game: when the group's first new message (the result's text) is answered, against
    its own floor (the DynamoDB requests answered before its call, then a round trip for it and each group
    call before it); medians and the worst."""
    ends = [r for r in rows if r.get("ends") and r.get("first_group_send_s")]
    if not ends:
        return {}
    ratios = [r["first_group_send_s"] / r["first_group_send_floor_s"] for r in ends]
    return {"count": len(ends), "text_ms_median": statistics.median(r["first_group_send_s"] for r in ends) * 1000,
            "floor_ms_median": statistics.median(r["first_group_send_floor_s"] for r in ends) * 1000,
            "ratio_median": statistics.median(ratios), "ratio_max": max(ratios),
            "wall_ms_median": statistics.median(r["wall_s"] for r in ends) * 1000}


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{result['updates']} updates and {result['timers']} timers ({result['errors']} not 200). Bot API round trip "
        f"{result['rtt_ms']:g} ms, DynamoDB {result['dynamo_ms']:g} ms, CreateSchedule {result['scheduler_ms']:g} ms;"
        f" group budget {result['budget_per_minute'] or 'unlimited'}/min; one action per second (simulated clock)",
        f"Wall time per update, median: {result['handler_ms_median']:.1f} ms, physical floor "
        f"{result['floor_ms_median']:.1f} ms, ratio {result['ratio_median']:.2f}x (total time {result['ratio_total']:.2f}x)",
        "",
        f"{'update':17} {'count':>5} {'reads':>5} {'writes':>6} {'notes':>5} {'sched':>5} {'RRU':>4} {'WRU':>4} "
        f"{'Bot API':>8} {'chain':>8} {'rounds':>8} {'wall ms':>7} {'floor ms':>8} {'ratio':>5} {'p90':>5} {'>1.2':>4}"
        f" {'-moto':>6} {'ratio':>5} {'CPU':>5}",
    ]
    for kind, k in result["kinds"].items():
        lines.append(
            f"{kind:17} {k['count']:5} {k['reads_mean']:5.2f} {k['writes_mean']:6.2f} {k['notes_mean']:5.2f}"
            f" {k['schedules_mean']:5.2f} {k['rru_mean']:4.1f} {k['wru_mean']:4.1f}"
            f" {k['bot_calls_mean']:4.1f}/{k['bot_calls_max']:<3} {k['chain_mean']:4.2f}/{k['chain_max']:<3}"
            f" {k['rounds_mean']:4.2f}/{k['rounds_max']:<3} {k['handler_ms_median']:7.1f} {k['floor_ms_median']:8.1f}"
            f" {k['ratio']:5.2f} {k['ratio_p90']:5.2f} {k['over_1_2']:4} {k['aws_ms_median']:6.1f} {k['ratio_aws']:5.2f}"
            f" {k['cpu_ms_median']:5.1f}")
    lines.append(
        "(means per update. writes: puts and transactions; notes: receipts (UpdateItem); sched: CreateSchedule"
        " requests; Bot API: calls the handler made, the webhook reply not counted, mean/max; chain: the longest run"
        " of calls to one chat, mean/max; rounds: round trips the handler waited; ratio: median wall / median"
        " floor; p90: of wall/floor per update; >1.2: updates over 1.2x; -moto: median wall less moto's local round"
        " trips (the DynamoDB delay stands for the whole request in AWS), and its ratio to the floor; CPU: median"
        " CPU time of the handler's thread (our code, PTB, httpx, our AWS client), ms)")
    e = result.get("end_text") or {}
    if e:
        lines.append(
            f"The end of a game ({e['count']} moves): the result's text answered after {e['text_ms_median']:.1f} ms"
            f" (median), its own floor {e['floor_ms_median']:.1f} ms (the DynamoDB requests before its call + a"
            f" round trip for it and each group call before it): {e['ratio_median']:.2f}x (worst {e['ratio_max']:.2f}x); the whole move {e['wall_ms_median']:.1f} ms")
    for name, g in result["games"].items():
        usd, same = g["usd"], g["same_model"]
        lines += [
            "",
            f"{name} (mean of {g['games']}): {g['updates']:.0f} updates, {g['flushes']:.0f} flush timers,"
            f" {g['phase_timers']:.0f} phase timers, {g['simulated_s'] / 60:.1f} simulated minutes;"
            f" players stuck: {', '.join(map(str, g['stuck_each']))}",
            f"  Bot API: {g['bot_calls']:.0f} calls ({g['answers']:.0f} answers) + {g['replies']:.0f} webhook replies;"
            f" {g['sends_edits']:.0f} sends+edits ({g['group_sends_edits']:.0f} in the group,"
            f" {g['private_sends_edits']:.0f} private; {g['pins']:.0f} pins); busiest minute in the group:"
            f" {g['busiest_minute']} (each game: {', '.join(map(str, g['busiest_minute_each']))})",
            f"  capacity: {BOT_PER_SECOND} x {GAME_SECONDS} s / {g['sends_edits']:.0f} = {g['capacity_games']:.0f}"
            f" simultaneous games per bot token; most sends+edits: "
            + "; ".join(f"{k} {v:.0f}" for k, v in list(g["sends_edits_by"].items())[:6]),
            f"  DynamoDB: {g['dynamo_calls']:.0f} requests ({g['notes']:.0f} notes), {g['rru']:.0f} RRU,"
            f" {g['wru']:.0f} WRU; {g['schedules']:.0f} CreateSchedule requests",
            f"  measured: Lambda {g['lambda_s']:.2f} s (wall {g['wall_s']:.2f} s less moto's local round trips;"
            f" floor {g['floor_s']:.2f} s) -> {g['gb_s']:.2f} GB-s ${usd['lambda_duration']:.6f} + requests"
            f" ${usd['lambda_requests']:.6f} + scheduler ${usd['scheduler']:.6f} + DynamoDB"
            f" ${usd['dynamodb_writes'] + usd['dynamodb_reads']:.6f} + HTTP API ${usd['http_api']:.6f}"
            f" = ${g['usd_total_http_api']:.6f} (Function URL instead: ${g['usd_total_function_url']:.6f})",
            f"  previous model: compute {g['compute_s']:.2f} s + {g['bot_calls']:.0f} x {same['bot_api_ms']:.0f} ms"
            f" + {g['dynamo_calls']:.0f} x {same['dynamo_ms']:.0f} ms = {same['lambda_s']:.2f} s -> {same['gb_s']:.2f}"
            f" GB-s: ${same['usd_total_http_api']:.6f} (Function URL instead: ${same['usd_total_function_url']:.6f})",
        ]
    lines += ["", "Busiest minute in the group at one action per second: "
              + ", ".join(f"{k}: {v}" for k, v in result["busiest_minute"].items())]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one 5-player game, round trips 10 ms / 1 ms / 1 ms unless given")
    ap.add_argument("--rtt-ms", type=float, help="Bot API round trip in ms (default 80; 10 with --quick)")
    ap.add_argument("--dynamo-ms", type=float, help="DynamoDB request delay in ms (default 5; 1 with --quick)")
    ap.add_argument("--scheduler-ms", type=float, help="CreateSchedule delay in ms (default: as --dynamo-ms)")
    ap.add_argument("--per-minute", type=int, help="the group's budget (GROUP_MESSAGES_PER_MINUTE; default: the "
                                                   "service's default, 20; 0: unlimited)")
    ap.add_argument("--front-door", choices=("http-api", "function-url"), default="http-api",
                    help="what usd_total counts: API Gateway HTTP API ($1/M requests) or a Lambda Function URL"
                         " (no request charge); both are reported")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--rows", help="also write every update's record (its calls, in order) to this file")
    args = ap.parse_args()
    rtt = args.rtt_ms if args.rtt_ms is not None else (10.0 if args.quick else 80.0)
    dyn = args.dynamo_ms if args.dynamo_ms is not None else (1.0 if args.quick else 5.0)
    sched = args.scheduler_ms if args.scheduler_ms is not None else dyn
    result = run(args.quick, rtt, dyn, sched, args.per_minute, args.rows)
    result["front_door"] = args.front_door
    if args.front_door == "function-url":
        for g in result["games"].values():
            g["usd_total"] = g["usd_total_function_url"]
            g["same_model"]["usd_total"] = g["same_model"]["usd_total_function_url"]
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
