"""Benchmark the rules engine: play random full games and report games/second and microseconds per action.

    .venv/bin/python scripts/bench_engine.py                 # 200 games per configuration
    .venv/bin/python scripts/bench_engine.py --games 1000
    .venv/bin/python scripts/bench_engine.py --quick         # 20 games per configuration
    .venv/bin/python scripts/bench_engine.py --policy random # uniform choice among legal_actions
    (--policy ai_seats, the default: every seat plays as an AI seat, ``engine.policy.ai_seat_move``)

This is a benchmark, not a test: it asserts nothing about speed. "apply" is the time spent in
``apply_action`` alone; "total" also includes choosing the move (the AI seats' policy or ``legal_actions``).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from engine import GameConfig, Theme, actors, apply_action, legal_actions, new_game  # noqa: E402
from engine.policy import ai_seat_move  # noqa: E402

CONFIGS: dict[str, GameConfig] = {
    "5p merlin+assassin": GameConfig(players=5, roles=("merlin", "assassin")),
    "7p percival+morgana, lady": GameConfig(
        players=7,
        roles=("merlin", "assassin", "percival", "morgana"),
        options={"lady_of_the_lake": True},
    ),
    "8p resistance, targeting+blind": GameConfig(
        theme=Theme.RESISTANCE, players=8, roles=(), options={"targeting": True, "blind_spies": True}
    ),
    "10p all base roles, lady+targeting": GameConfig(
        players=10,
        roles=("merlin", "assassin", "percival", "morgana", "mordred", "oberon"),
        options={"lady_of_the_lake": True, "targeting": True},
    ),
    "10p Big Box mix, plot+lady+excalibur": GameConfig(
        players=10,
        roles=(
            "merlin", "percival", "good_lancelot", "good_rogue", "good_sorcerer", "cleric",
            "morgana", "evil_lancelot", "evil_sorcerer", "trickster",
        ),
        options={
            "lancelot": "bigbox_switch", "lady_of_the_lake": True, "excalibur": True, "trapper": True,
            "plot_cards": True,
        },
        assassin="morgana",
    ),
}


def bench(config: GameConfig, games: int, policy: str, seed: int) -> dict[str, float]:
    actions = 0
    apply_time = 0.0
    wins: dict[str, int] = {}
    start = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed + g)
        state, _ = new_game(config, seed + g)
        while not state.over:
            seat = rng.choice(actors(state))
            if policy == "ai_seats":
                action = ai_seat_move(state, seat, rng)
            else:
                action = rng.choice(legal_actions(state, seat))
            t0 = time.perf_counter()
            state, _ = apply_action(state, action)
            apply_time += time.perf_counter() - t0
            actions += 1
        wins[state.win_reason or "?"] = wins.get(state.win_reason or "?", 0) + 1
    total = time.perf_counter() - start
    return {
        "games": games,
        "actions": actions,
        "seconds": total,
        "games_per_s": games / total,
        "us_per_action": total / actions * 1e6,
        "apply_us_per_action": apply_time / actions * 1e6,
        "wins": wins,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per configuration")
    ap.add_argument("--quick", action="store_true", help="20 games per configuration")
    ap.add_argument("--policy", choices=["ai_seats", "random"], default="ai_seats",
                    type=lambda name: "ai_seats" if name == "bots" else name)  # (its former name still accepted)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    games = 20 if args.quick else args.games
    print(f"{games} games per configuration, policy={args.policy}, Python {sys.version.split()[0]}")
    header = f"{'configuration':36} {'games/s':>9} {'µs/action':>10} {'apply µs':>9} {'actions/game':>13}"
    print(header)
    print("-" * len(header))
    all_games = all_actions = 0
    all_seconds = 0.0
    for name, config in CONFIGS.items():
        r = bench(config, games, args.policy, args.seed)
        all_games += r["games"]
        all_actions += r["actions"]
        all_seconds += r["seconds"]
        print(
            f"{name:36} {r['games_per_s']:9.1f} {r['us_per_action']:10.1f} "
            f"{r['apply_us_per_action']:9.1f} {r['actions'] / r['games']:13.1f}   {r['wins']}"
        )
    print("-" * len(header))
    print(
        f"{'all':36} {all_games / all_seconds:9.1f} {all_seconds / all_actions * 1e6:10.1f} "
        f"{'':9} {all_actions / all_games:13.1f}"
    )


if __name__ == "__main__":
    main()
