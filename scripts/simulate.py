"""Play a simulated game in the terminal: bots at every seat, or you at one seat (--seat).

    .venv/bin/python scripts/simulate.py --players 7 --roles merlin,assassin,percival,morgana --lady
    .venv/bin/python scripts/simulate.py --seat 0          # you play seat 0, bots play the rest
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from engine import Action, GameConfig, IllegalAction, actors, apply_action, new_game, prompts, view  # noqa: E402
from engine.bots import choose_action  # noqa: E402


def describe(event, names) -> str | None:
    d = event.data
    t = event.type
    if t == "TeamProposed":
        return f"{names[d['leader']]} proposes quest {d['quest'] + 1}: " + ", ".join(names[s] for s in d["team"])
    if t == "VotesRevealed":
        ok = "APPROVED" if d["approved"] else "rejected"
        return f"  votes: approve {[names[s] for s in d['approve']]} reject {[names[s] for s in d['reject']]} -> {ok}"
    if t == "QuestCompleted":
        res = "SUCCEEDED" if d["success"] else "FAILED"
        return f"  quest {d['quest'] + 1} {res} ({d['cards']})"
    if t == "LadyUsed":
        return f"  Lady of the Lake: {names[d['holder']]} examines {names[d['target']]}"
    if t == "AssassinationAttempted":
        return f"  The Assassin {names[d['assassin']]} names {names[d['target']]}: {'HIT' if d['hit'] else 'miss'}"
    if t == "GameEnded":
        lines = [f"GAME OVER: {d['winner']} wins ({d['reason']})"]
        lines += [f"  {names[i]}: {r} ({s})" for i, (r, s) in enumerate(zip(d["roles"], d["sides"], strict=True))]
        return "\n".join(lines)
    return None


def ask(state, seat, names) -> Action:
    v = view(state, seat)
    p = prompts(state, seat)[0]
    print(f"\nYou are {v['you']['role']} ({v['you']['side']}). You know: {v['you']['knowledge']}")
    print(f"Your move: {p.kind}. Seats: " + ", ".join(f"{i}={n}" for i, n in enumerate(names)))
    while True:
        raw = input(f"{p.kind} {'pick ' + str(p.pick) + ' seats' if p.pick else p.choices}> ").strip()
        try:
            if p.pick:
                parts = raw.split()
                quest = None
                if p.quests:
                    quest = int(parts.pop(0)) - 1
                return Action(seat=seat, kind=p.kind, targets=tuple(int(x) for x in parts), quest=quest)
            return Action(seat=seat, kind=p.kind, choice=raw)
        except ValueError:
            print("Type seat numbers separated by spaces (with Targeting, the quest number first).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--roles", default="merlin,assassin")
    ap.add_argument("--theme", default="avalon", choices=["avalon", "resistance"])
    ap.add_argument("--lady", action="store_true")
    ap.add_argument("--targeting", action="store_true")
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    ap.add_argument("--seat", type=int, default=None, help="play this seat yourself")
    args = ap.parse_args()
    options = {k: True for k, on in (("lady_of_the_lake", args.lady), ("targeting", args.targeting)) if on}
    roles = tuple(r for r in args.roles.split(",") if r) if args.theme == "avalon" else ()
    config = GameConfig(theme=args.theme, players=args.players, roles=roles, options=options)
    names = ["Walter", "Thomas", "Laura", "Evie", "Justin", "Margaret", "Don", "Ron", "Sarah", "Pat"][: args.players]
    rng = random.Random(args.seed)
    state, events = new_game(config, args.seed)
    print(f"Seed {args.seed}. {args.players} players; first Leader: {names[state.leader]}")
    while not state.over:
        seat = rng.choice(actors(state))
        if args.seat is not None and args.seat in actors(state):
            seat = args.seat
        action = ask(state, seat, names) if seat == args.seat else choose_action(state, seat, rng)
        try:
            state, events = apply_action(state, action)
        except IllegalAction as err:
            print(f"Refused: {err.reason}")
            continue
        for e in events:
            if e.to is None or (args.seat is not None and args.seat in e.to):
                line = describe(e, names)
                if line:
                    print(line)


if __name__ == "__main__":
    main()
