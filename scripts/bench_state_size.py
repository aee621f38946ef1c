"""Measure the stored game item (``chat#<id>``: the session with the engine state) of the longest games.

    .venv/bin/python scripts/bench_state_size.py             # 20 games per 10-player set-up
    .venv/bin/python scripts/bench_state_size.py --quick     # 1 game per set-up
    .venv/bin/python scripts/bench_state_size.py --json out.json

Games are played through ``Service.handle`` (in-memory repository) by the test driver with a policy
that makes them long: every team is rejected until the fourth proposal of the round (a Plot card may
still overrule it: then the fifth), and quests fail half the time, so games go to four or five quests
with up to 25 proposals. The size is DynamoDB's item size (attribute names + values: ``pk``, ``version``, ``body``)
of the item as ``DynamoRepository`` writes it, at its largest during the game. Target: 16 KB.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT), str(ROOT / "scripts")]

TARGET = 16 * 1024


def stored_size(item: Any) -> int:
    from bench_webhook import item_size

    from gamebot.aws.dynamo import DynamoRepository

    return item_size(DynamoRepository.encode_item(item, item.version))


def breakdown(body: dict[str, Any]) -> dict[str, int]:
    """Bytes of each part of the stored body (JSON), the engine state split into its fields."""
    parts = {k: len(json.dumps(v, separators=(",", ":"))) for k, v in body.items() if k != "state"}
    state = json.loads(body.get("state") or "{}")
    for k, v in state.items():
        if k == "mods":
            for mod, data in v.items():
                parts[f"state.mods.{mod}"] = len(json.dumps(data, separators=(",", ":")))
        else:
            parts[f"state.{k}"] = len(json.dumps(v, separators=(",", ":")))
    return dict(sorted(parts.items(), key=lambda kv: -kv[1]))


def longest(user: int, msg: dict[str, Any], rng: random.Random) -> bool:
    attempt = re.search(r"team (\d) of 5", msg["text"])
    return attempt is None or attempt.group(1) in "45" or rng.random() < 0.03


def play(setup: str, seed: int) -> dict[str, Any]:
    from gamebot.storage.session import chat_key
    from localdev.autoplay import Policy
    from tests.reliability.support import SETUPS, RobustDriver, final_state, set_settings
    from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen

    theme, n, roles, options = SETUPS[setup]
    h = Harness(seed=seed)
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    biggest = {"size": 0}
    put = h.repo.put

    def measured(item: Any, expect: Any) -> Any:
        stored = put(item, expect)
        if item.key == chat_key(GROUP):
            size = stored_size(stored)
            if size > biggest["size"]:
                biggest.update(size=size, body=stored.body, json=len(json.dumps(stored.body, separators=(",", ":"))))
        return stored

    h.repo.put = measured
    h.press_label(1, GROUP, "Start")
    rng = random.Random(seed)
    policy = Policy(rng=random.Random(seed), fail_rate=0.5, vote=lambda u, m: longest(u, m, rng))
    RobustDriver(HarnessScreen(h), GROUP, players, policy).play()
    state = final_state(h.repo, GROUP)
    h.close()
    return {"setup": setup, "seed": seed, "size": biggest["size"], "json": biggest["json"], "body": biggest["body"],
            "actions": len(state.log),
            "proposals": len(state.proposals), "quests": len(state.quests), "over": state.over}


def run(games: int, only: list[str] | None = None) -> dict[str, Any]:
    """``games`` games of every 10-player set-up (or of those named in ``only``)."""
    from tests.reliability.support import SETUPS

    names = [setup for setup in SETUPS if only is None or setup in only]
    results = [play(setup, seed) for setup in names for seed in range(1, games + 1)]
    worst = max(results, key=lambda r: r["size"])
    per_setup = {}
    for setup in names:
        rs = [r for r in results if r["setup"] == setup]
        per_setup[setup] = {"max_bytes": max(r["size"] for r in rs), "max_json_bytes": max(r["json"] for r in rs),
                            "max_actions": max(r["actions"] for r in rs),
                            "max_proposals": max(r["proposals"] for r in rs)}
    return {"games": len(results), "target_bytes": TARGET, "max_bytes": worst["size"], "json_bytes": worst["json"],
            "worst": {k: worst[k] for k in ("setup", "seed", "actions", "proposals", "quests")},
            "breakdown": breakdown(worst["body"]), "setups": per_setup}


def report(r: dict[str, Any]) -> str:
    w = r["worst"]
    lines = [f"{r['games']} games of 10 players. Largest game item: {r['max_bytes']} bytes stored "
             f"({r['max_bytes'] / 1024:.1f} KB; target {r['target_bytes'] // 1024} KB; its body is {r['json_bytes']} bytes"
             f" of JSON) in {w['setup']} seed {w['seed']}: {w['actions']} actions, {w['proposals']} proposals,"
             f" {w['quests']} quests", "",
             f"{'set-up':26} {'max stored':>10} {'max JSON':>9} {'max actions':>11} {'max proposals':>13}"]
    for setup, s in r["setups"].items():
        lines.append(f"{setup:26} {s['max_bytes']:10} {s['max_json_bytes']:9} {s['max_actions']:11} {s['max_proposals']:13}")
    lines += ["", "Largest item by part (bytes of JSON):"]
    lines += [f"  {k:36} {v:6}" for k, v in list(r["breakdown"].items())[:14]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per set-up")
    ap.add_argument("--quick", action="store_true", help="1 game per set-up")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    result = run(1 if args.quick else args.games)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
