"""Where the time of a press goes: a timeline of the votes and quest cards of ``bench_webhook.py``'s games.

    .venv/bin/python scripts/bench_timeline.py            # the 8 games of bench_webhook.py (80 ms / 5 ms)
    .venv/bin/python scripts/bench_timeline.py --quick    # one 5-player game, 10 ms / 1 ms
    .venv/bin/python scripts/bench_timeline.py --kind vote --kind "team: pick" --json timeline.json

The games are those of ``scripts/bench_webhook.py`` (the same delays and clock). Around each step a press
goes through (the webhook handler, the update's parsing, the unit of work's read and write, the decision,
the messages it causes, the item's encoding, the simulated DynamoDB delay) a mark notes
``time.perf_counter()``; for each update kind the script takes the presses whose marks came in the most
common order and prints, per step, the median time since the previous mark and the running total. A
step that overlaps the DynamoDB delay (the update's parsing while the chat's read is on the wire) shows
up before the wait ends; what follows the wait is on the critical path. The marks cost a few microseconds
each: compare the steps with each other, not the total with ``bench_webhook.py``'s wall time.
"""
from __future__ import annotations

import argparse
import collections
import inspect
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

import bench_webhook  # noqa: E402

_marks: list[tuple[str, float]] | None = None


def mark(name: str) -> None:
    if _marks is not None and threading.current_thread() is threading.main_thread():
        _marks.append((name, time.perf_counter()))


def timed(owner: Any, name: str, label: str) -> None:
    """Mark ``label:in`` and ``label:out`` around ``owner.name`` (a function, method, class- or
    static method, or coroutine function)."""
    found = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    kind = type(found) if isinstance(found, classmethod | staticmethod) else None
    fn = found.__func__ if kind is not None else found
    if inspect.iscoroutinefunction(fn):
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            mark(label + ":in")
            try:
                return await fn(*args, **kwargs)
            finally:
                mark(label + ":out")
    else:
        def wrapper(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            mark(label + ":in")
            try:
                return fn(*args, **kwargs)
            finally:
                mark(label + ":out")
    setattr(owner, name, kind(wrapper) if kind is not None else wrapper)


def instrument() -> None:
    import app
    import telegram

    from gamebot.aws import client, dynamo
    from gamebot.compose import game
    from gamebot.core import service
    from gamebot.handlers import handling, play
    from gamebot.outbox import uow
    from gamebot.storage import packing

    recorder = bench_webhook.DynamoRecorder
    for hook, label in (("_send", "request written"), ("_wait", "DynamoDB delay")):
        original = getattr(recorder, hook)

        def hooked(self: Any, op: str, _original: Any = original, _label: str = label) -> Any:
            mark(f"{_label} ({op}):in")
            try:
                return _original(self, op)
            finally:
                mark(f"{_label} ({op}):out")

        setattr(recorder, hook, hooked)
    for owner, name, label in (
        (app, "lambda_handler", "handler"),
        (telegram.Update, "de_json", "PTB parses the update"),
        (service.Service, "handle_update", "service"),
        (uow.UnitOfWork, "commit", "unit of work"),
        (dynamo.DynamoRepository, "get", "read"),
        (dynamo.DynamoRepository, "put", "write"),
        (dynamo.DynamoRepository, "decode_item", "item decoded"),
        (play, "apply_action", "engine move"),
        (game, "game_outs", "messages of the move"),
        (uow.UnitOfWork, "sort", "outbox sorted"),
        (packing, "pack", "pack"),
        (client.DynamoDB, "start", "request encoded"),
        (play, "finish", "answer and delivery"),
        (handling, "respond", "answer"),
    ):
        timed(owner, name, label)


def main() -> None:
    global _marks
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one 5-player game, 10 ms / 1 ms delays")
    ap.add_argument("--kind", action="append", help="update kinds to show (default: vote, quest card)")
    ap.add_argument("--json", help="also write the timelines to this file")
    args = ap.parse_args()
    kinds = args.kind or ["vote", "quest card"]
    instrument()
    runs: dict[tuple[str, tuple[str, ...]], list[list[float]]] = collections.defaultdict(list)
    post = bench_webhook.Bench.post

    def traced(self: Any, update: dict[str, Any]) -> int:
        global _marks
        _marks = []
        try:
            return post(self, update)
        finally:
            marks, _marks = _marks, None
            kind = self.rows[-1]["kind"]
            first = next((i for i, (n, _) in enumerate(marks) if n == "handler:in"), None)
            last = next((i for i, (n, _) in enumerate(marks) if n == "handler:out"), None)
            if kind in kinds and first is not None and last is not None:
                marks = marks[first:last + 1]  # (the bench's own reads before and after are not the handler's)
                order = tuple(n for n, _ in marks)
                runs[(kind, order)].append([(b[1] - a[1]) * 1000 for a, b in zip(marks, marks[1:], strict=False)])

    bench_webhook.Bench.post = traced
    delays = (10.0, 1.0, 1.0) if args.quick else (80.0, 5.0, 5.0)
    bench_webhook.run(args.quick, *delays, per_minute=None)
    result: dict[str, Any] = {}
    for kind in kinds:
        orders = sorted(((len(v), order) for (k, order), v in runs.items() if k == kind), reverse=True)
        if not orders:
            print(f"== {kind}: none")
            continue
        count, order = orders[0]
        rows = runs[(kind, order)]
        print(f"== {kind}: {count} of {sum(c for c, _ in orders)} presses (those whose marks came in the most "
              f"common order); ms since the previous mark, running total")
        total = 0.0
        steps = []
        for i in range(len(order) - 1):
            step = statistics.median(r[i] for r in rows)
            total += step
            steps.append({"from": order[i], "to": order[i + 1], "ms": step, "total_ms": total})
            print(f"  {step:7.3f} {total:8.3f}  {order[i]} -> {order[i + 1]}")
        result[kind] = {"presses": count, "of": sum(c for c, _ in orders), "marks": list(order), "steps": steps}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
