"""What phase timers cost, measured side by side in one run and reported as ratios.

    .venv/bin/python scripts/bench_timers.py            # 6 games per side, 5 cold starts per side
    .venv/bin/python scripts/bench_timers.py --quick    # 2 games, 2 cold starts

1. Steady play: whole games through ``Service.handle`` (FakeRepository, recording Bot API, bots pressing
   buttons), with timers off (no scheduler) and on (FakeScheduler), alternating. Reports the time per
   update on each side and their ratio, and the DynamoDB reads/writes per update (the timers add none).
2. Cold start: in fresh interpreters, importing the service (what every container pays), versus also
   creating the EventBridge Scheduler client (``gamebot.aws.client``: what a container pays only when a group
   plays with timers; the client is created lazily on the first schedule).

A benchmark, not a test: it asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT)]

from gamebot.core.service import Service  # noqa: E402
from gamebot.timing.scheduler import FakeScheduler  # noqa: E402
from localdev import updates as U  # noqa: E402
from tests.e2e.driver import Driver, Policy  # noqa: E402
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen  # noqa: E402


def one_game(seed: int, timers: bool) -> tuple[float, int, dict[str, int]]:
    h = Harness(seed=seed)
    if timers:
        h.service = Service(h.repo, h.io, h.codec, bot_username=U.BOT_USERNAME, seeds=random.Random(seed),
                            scheduler=FakeScheduler())
    players = [1, 2, 3, 4, 5, 6, 7]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    calls = dict(h.repo.calls)
    sent = len(h.io.outs)
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed)))
    start = time.perf_counter()
    driver.play()
    elapsed = time.perf_counter() - start
    used = {k: h.repo.calls[k] - calls[k] for k in calls}
    assert driver.over() and len(h.io.outs) > sent
    h.close()
    return elapsed, driver.presses, used


def cold(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={"PYTHONPATH": f"{ROOT / 'shared'}", "PATH": "/usr/bin:/bin", "AWS_DEFAULT_REGION": "us-east-1"})
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    games, starts = (2, 2) if args.quick else (6, 5)

    per_update: dict[bool, list[float]] = {False: [], True: []}
    io: dict[bool, list[float]] = {False: [], True: []}
    for seed in range(games):
        for timers in (False, True):  # side by side, alternating
            elapsed, presses, used = one_game(seed, timers)
            per_update[timers].append(elapsed / presses)
            io[timers].append((used["read"] + used["write"]) / presses)
    off, on = statistics.median(per_update[False]), statistics.median(per_update[True])
    print(f"steady play ({games} games of 7 players per side, median per button press):")
    print(f"  timers off: {off * 1000:.2f} ms   timers on: {on * 1000:.2f} ms   ratio on/off: {on / off:.2f}")
    print(f"  DynamoDB calls per press: off {statistics.mean(io[False]):.2f}, on {statistics.mean(io[True]):.2f}")

    service = "import gamebot.core.service"
    client = "from gamebot.aws.scheduler_api import Scheduler; Scheduler(region_name='us-east-1')"
    base, extra = [], []
    for _ in range(starts):
        base.append(cold(service))
        extra.append(cold(f"{service}; {client}"))
    b, e = statistics.median(base), statistics.median(extra)
    print(f"cold start ({starts} fresh interpreters per side, median):")
    print(f"  import the service: {b * 1000:.0f} ms   + the scheduler client: {e * 1000:.0f} ms"
          f"   ratio: {e / b:.2f} (paid only once a group schedules a timer)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
