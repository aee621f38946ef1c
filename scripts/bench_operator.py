"""What the operator's output costs an update: the CPU of one invocation's observer (``gamebot.core.metrics``),
the facts a vote reports, its JSON summary line (``gamebot.core.logs``) and its EMF blob, both written to
/dev/null as Lambda would write them to its log.

    .venv/bin/python scripts/bench_operator.py            # 20,000 votes' worth, then a report outside one

A benchmark, not a test: the CPU time of this thread per vote, and of one report made outside any
invocation (the playground, the tests: the observer that does nothing).
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from gamebot import observe  # noqa: E402
from gamebot.core import logs, metrics  # noqa: E402

VOTE = {"update_id": 5, "callback_query": {"id": "1", "from": {"id": 3}, "data": "x", "message": {
    "message_id": 4, "date": 1, "chat": {"id": -100, "type": "group"}}}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--votes", type=int, default=20_000)
    args = ap.parse_args()
    with open(os.devnull, "w") as sink:
        log = logging.getLogger("gamebot.bench_operator")
        handler = logging.StreamHandler(sink)
        handler.setFormatter(logs.JsonFormatter())
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
        logs.keep_secret("123456:BENCH-token-abcdefghijkl", "bench-webhook-secret-0123456789abcdef")

        def vote() -> None:  # what the webhook adds to a vote: the invocation, its fields, the facts, the output
            stdout, sys.stdout = sys.stdout, sink
            try:
                with metrics.observed("unknown", None, log) as inv:
                    inv.stack = "bench"
                    inv.note(**metrics.described(VOTE))
                    watcher = observe.current()
                    watcher.about(-100, "g1")  # the unit of work: read, then written
                    watcher.about(-100, "g1")
                    watcher.chat_item_written(812)
                    watcher.outbox_left(0, None)
                    inv.note(status=200)
            finally:
                sys.stdout = stdout

        for _ in range(args.votes // 10):
            vote()
        started = time.thread_time()
        for _ in range(args.votes):
            vote()
        per_vote = (time.thread_time() - started) / args.votes
    reports = 200_000
    started = time.thread_time()
    for _ in range(reports):
        observe.current().chat_item_written(1)
    outside = (time.thread_time() - started) / reports
    print(f"per vote: {per_vote * 1e6:.1f} µs of CPU (the facts, the summary line and the EMF blob); "
          f"a report outside an invocation: {outside * 1e9:.0f} ns")


if __name__ == "__main__":
    main()
