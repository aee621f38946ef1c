"""What the invocations' waits for the bots cost (``gamebot.core.pacing``), counted from played games.

    .venv/bin/python scripts/bot_wait_cost.py             # 20 games of 3 people and 2 bots
    .venv/bin/python scripts/bot_wait_cost.py --games 5 --people 1 --bots 4

Each game is played through ``Service.handle_update`` and ``Service.wake`` (the unit harness: in-memory
repository, recording Bot API, the FakeScheduler, a clock the script moves): the people press buttons
(``localdev.autoplay``), and every wait of an invocation for the bots moves the clock instead of sleeping
(``Harness.sleep`` records it). Lambda bills an invocation's duration, sleeping included: the waits are
GB-seconds at the webhook's MemorySize (template.yaml), priced at the us-east-1 list price of Lambda x86.
A count, not a timing: the numbers are the same on any machine (the games are seeded).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT)]

from tests.bot_seats_helpers import play_out, seat_bots  # noqa: E402
from tests.unit.cfn_template import template  # noqa: E402
from tests.unit.gamebot_fakes import GROUP  # noqa: E402
from tests.unit.timer_fakes import Timed  # noqa: E402

PRICE_GB_S = 0.0000166667  # Lambda x86, us-east-1 (the price docs/OPERATIONS.md uses)


def memory_gb() -> float:
    """The webhook function's memory (its own MemorySize, else the Globals'), in GB."""
    own = template["Resources"]["WebhookFunction"]["Properties"].get("MemorySize")
    return float(own or template["Globals"]["Function"]["MemorySize"]) / 1024


def one_game(seed: int, people: int, bots: int) -> tuple[int, float, int]:
    """The bot steps the invocations played, the seconds they waited, and the bot steps the alarm played."""
    h = Timed(seed=seed)
    try:
        ids = list(range(1, people + 1))
        h.lobby(ids)
        seat_bots(h, ids[0], bots)
        h.press_label(ids[0], GROUP, "Start")
        fired = play_out(h, ids, seed=seed)
        assert h.session().status == "ended"
        return len(h.slept), sum(h.slept), fired.count("bots")
    finally:
        h.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--people", type=int, default=3)
    parser.add_argument("--bots", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(30)
    rows = [one_game(rng.randrange(1 << 30), args.people, args.bots) for _ in range(args.games)]
    steps = [r[0] for r in rows]
    waits = [r[1] for r in rows]
    gb = memory_gb()
    gb_s = statistics.mean(waits) * gb
    print(f"{args.games} games of {args.people} people and {args.bots} bots (webhook MemorySize {gb * 1024:.0f} MB)")
    print(f"bot steps played by the waiting invocations per game: mean {statistics.mean(steps):.1f}, "
          f"min {min(steps)}, max {max(steps)}; by the alarm: {sum(r[2] for r in rows)} in all")
    print(f"seconds waited per game: mean {statistics.mean(waits):.1f}, min {min(waits):.0f}, max {max(waits):.0f}; "
          f"per bot step {sum(waits) / max(1, sum(steps)):.2f}")
    print(f"billed: {gb_s:.1f} GB-s per game -> ${gb_s * PRICE_GB_S * 1000:.3f} per 1,000 games")


if __name__ == "__main__":
    main()
