"""What a spammer costs: repeated presses during a vote, and a flood against the per-player throttle.

    .venv/bin/python scripts/bench_spam.py                # 30 repeated presses, 3 runs
    .venv/bin/python scripts/bench_spam.py --presses 60 --runs 5 --json out.json

1. **Repeated presses during a vote** (``tests/reliability/spam.py``, the scenario the reliability test
   asserts): two Lambda containers (``tests.reliability.support.Container``: each its own event loop,
   Bot, DynamoDB client and service) against a moto server and the fake Bot API on 127.0.0.1. One
   player votes, then presses Approve ``--presses`` more times in one container while the six other
   players vote one after the other in the other container, each honest vote released together with a
   few spam presses. Printed: the DynamoDB requests of the spam by kind of item (the chat's item, the
   presser's refusals item), and the honest votes' version conflicts (a write that failed its version
   check, then retried from a fresh read). Run it on an older checkout to compare.
2. **A flood against the throttle** (``gamebot.botapi.throttle``, what the webhook asks before anything reads
   storage): ``--flood`` presses of one player in one second and in ten seconds, on a clock the script
   moves: how many reach the service, how many are answered "Slow down" with no request.

A benchmark, not a test: it asserts nothing (``tests/reliability/test_spam_presses.py`` and
``tests/e2e/test_throttle_e2e.py`` do).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]


def repeated_presses(presses: int, runs: int) -> list[dict[str, Any]]:
    import logging

    from localdev.fake_telegram import FakeTelegram
    from tests.e2e.conftest import TOKEN
    from tests.moto_server import serialised_moto_server
    from tests.reliability.spam import spam_during_vote

    logging.getLogger("gamebot").setLevel(logging.ERROR)  # (conflicts are logged as they retry)
    rows = []
    with serialised_moto_server() as endpoint, FakeTelegram(token=TOKEN) as fake:
        for run in range(runs):
            o = spam_during_vote(endpoint, fake, presses=presses, seed=5 + run, group=-1005000000001 - run)
            spam_writes = sum(n for (op, _), n in o.spam.requests.items() if op != "GetItem")
            rows.append({
                "spam_presses": o.spam_presses,
                "spam_reads": sum(n for (op, _), n in o.spam.requests.items() if op == "GetItem"),
                "spam_writes_chat": o.spam.writes("chat"),
                "spam_writes_other": spam_writes - o.spam.writes("chat"),
                "spam_conflicts": sum(o.spam.conflicts.values()),
                "honest_votes": o.honest_votes,
                "honest_writes_chat": o.honest.writes("chat"),
                "honest_conflicts": o.honest.conflicts["chat"],
                "chat_versions": o.chat_versions,
                "answers": dict(o.answers),
                "every_vote_counted": o.counted,
            })
    return rows


def flood(presses: int) -> dict[str, Any]:
    from gamebot.botapi.throttle import BURST, PER_SECOND, Throttle
    from localdev import updates as U

    out: dict[str, Any] = {"burst": BURST, "per_second": PER_SECOND}
    for seconds in (1, 10):
        now = [0.0]
        throttle = Throttle(clock=lambda now=now: now[0])  # (a clock this loop moves)
        passed = 0
        for i in range(presses * seconds):
            now[0] = i / presses
            passed += throttle.check(U.press(U.user(7), U.message(-100, 5), "x")) is None
        out[f"{seconds}s"] = {"presses": presses * seconds, "reach_the_service": passed,
                              "slow_down_no_request": presses * seconds - passed}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presses", type=int, default=30, help="repeated presses of the spammer during the vote")
    ap.add_argument("--runs", type=int, default=3, help="votes played (each in a new game)")
    ap.add_argument("--flood", type=int, default=30, help="presses a second against the throttle")
    ap.add_argument("--quick", action="store_true", help="one run")
    ap.add_argument("--json", help="write the figures there")
    args = ap.parse_args()
    rows = repeated_presses(args.presses, 1 if args.quick else args.runs)
    print(f"Repeated presses during a vote: {args.presses} presses of one player who voted, against "
          f"{rows[0]['honest_votes']} honest votes (two containers, moto)")
    print(f"{'run':>3} {'spam reads':>10} {'spam chat writes':>16} {'spam other writes':>17} "
          f"{'honest chat writes':>18} {'honest conflicts':>16} {'chat versions':>13}  counted")
    for i, r in enumerate(rows, 1):
        print(f"{i:>3} {r['spam_reads']:>10} {r['spam_writes_chat']:>16} {r['spam_writes_other']:>17} "
              f"{r['honest_writes_chat']:>18} {r['honest_conflicts']:>16} {r['chat_versions']:>13}  "
              f"{r['every_vote_counted']}")
    answers: dict[str, int] = {}
    for r in rows:
        for text, n in r["answers"].items():
            answers[text] = answers.get(text, 0) + n
    print("the spammer was answered: " + "; ".join(f"{n} x {text!r}" for text, n in answers.items()))
    try:
        f = flood(args.flood)
    except ImportError:  # an older checkout, before the throttle
        print("\nno per-player throttle in this checkout")
        f = {}
    if not f:
        if args.json:
            Path(args.json).write_text(json.dumps({"runs": rows}, indent=1, ensure_ascii=False))
        return
    print(f"\nThe throttle (burst {f['burst']}, then {f['per_second']:g} a second), {args.flood} presses a second:")
    for span in ("1s", "10s"):
        x = f[span]
        print(f"  over {span}: {x['presses']} presses, {x['reach_the_service']} reach the service, "
              f"{x['slow_down_no_request']} answered 'Slow down' with no request")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": rows, "flood": f}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
