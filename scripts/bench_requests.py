"""Count the DynamoDB requests of each move: reads, writes and notes per update type, whole games.

    .venv/bin/python scripts/bench_requests.py              # every set-up, 5 to 10 players, seeds 1 and 2
    .venv/bin/python scripts/bench_requests.py --quick      # one seed
    .venv/bin/python scripts/bench_requests.py --json out.json

Whole seeded games of every set-up (5 to 10 players with the base roles, the base roles with the Lady
of the Lake, the base roles with every module; 10 players with each Big Box set-up of the reliability
tests, ``tests.reliability.support.SETUPS``) are played through ``Service`` with the in-memory
repository (``FakeRepository``: it counts its requests as ``DynamoRepository`` makes them) and the
recording Bot API (``tests.unit.gamebot_fakes.Harness``), by the reliability tests' driver. Every
update is counted apart: its reads (GetItem, TransactGetItems, the reading of notes), its writes (puts
and transactions) and its notes (UpdateItem: a delivery's receipts, a refused press), and named by
what it is (``bench_webhook.update_kind``; "end of game": the move after which the game is over;
"vote (a step)": a vote after which the decision is another, as an open vote before the others', or a
vote or card the group is told of, as a card played face up;
"flush": what waited in the outbox delivered when due, the flush timer's work; "... + waiting": a move
made while group messages waited in the outbox for the group's budget, which it delivers with its own
if their time has come, doing a flush's work: counted apart, with no target).

The targets (issue 29), every update at most, counting a note as a write:

* a move that settles nothing (a vote, a card, a pick): 1 read + 1 write;
* a move that settles a step (the last vote, the last card, the proposal, a private decision, an open
  vote): 1 read + 2 writes;
* the start of a game: 1 read + 3 writes;
* the move that ends a game: 2 reads + 3 writes, its statistics included.

A join in the lobby is not a move: it also reads the player's record (whether the bot may message
them, whether they play elsewhere). It is shown, with no target.

The games are seeded: the counts repeat from run to run (nothing here is timed).
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT), str(ROOT / "scripts")]

BASE = ["merlin", "percival", "assassin", "morgana", "mordred", "oberon"]
EVERY = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
EVIL = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
MODULES = {"base": {}, "base + Lady": {"lady_of_the_lake": True}, "every module": EVERY}
SETTLES_NOTHING = ("vote", "quest card", "team: pick")
NOT_A_MOVE = "lobby: join"  # (it reads the player's record too: shown, no target)
SETTLES_A_STEP = ("last vote", "last card", "team: propose", "private decision", "vote (a step)", "quest card (a step)")
# the targets: (reads, writes + notes) at most, per update
TARGETS = {**{k: (1, 1) for k in SETTLES_NOTHING}, **{k: (1, 2) for k in SETTLES_A_STEP},
           "start game": (1, 3), "end of game": (2, 3)}
ORDER = [NOT_A_MOVE, "start game", *SETTLES_NOTHING, *SETTLES_A_STEP, "end of game"]


def base_roles(n: int) -> list[str]:
    """The base roles a table of ``n`` holds: Merlin and Percival, and as many of the Evil ones as it has spies."""
    return BASE[:2] + BASE[2:2 + EVIL[n]]


def setups() -> dict[str, tuple[str, int, list[str], dict[str, Any]]]:
    """Every set-up counted: name -> (theme, players, roles, options)."""
    from tests.reliability.support import SETUPS

    found = {f"{n}p {name}": ("avalon", n, base_roles(n), dict(options))
             for n in range(5, 11) for name, options in MODULES.items()}
    found.update({f"10p Big Box {name}": setup for name, setup in SETUPS.items() if name != "base"})
    return found


def stage(h: Any) -> tuple[str | None, str, Any, bool, int]:
    """The game's stage, the group session's status, the game state, whether entries wait in the
    group's outbox for their time (the group's budget) now (read aside: not counted), and how many
    messages the bot has sent to the group so far."""
    from gamebot.storage.session import Session, chat_key

    item = h.repo.items.get(chat_key(h.group))
    s = Session.from_body(item.body) if item is not None else None
    state = s.game() if s is not None and s.state else None
    waiting = s is not None and any(e.chat == s.chat_id for e in s.outbox.effects)
    told = sum(1 for o in h.io.outs if o.op in ("send", "photo") and o.chat_id == h.group)
    return (state.stage if state is not None else None), (s.status if s is not None else ""), state, waiting, told


def play(name: str, setup: tuple[str, int, list[str], dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """One game; a row per update (and per flush): its kind and its requests."""
    from bench_webhook import update_kind

    from gamebot.storage.session import collecting
    from tests.reliability.support import play_started, set_settings
    from tests.unit.gamebot_fakes import Harness

    theme, n, roles, options = setup
    h = Harness(seed=seed)
    rows: list[dict[str, Any]] = []
    send, idle = h.send, h.idle

    def counted(kind_of: Any, run: Any) -> Any:
        before = dict(h.repo.calls)
        was = stage(h)
        value = run()
        now = stage(h)
        calls = {k: h.repo.calls[k] - before[k] for k in before}
        kind = kind_of(was, now)
        if kind is not None:
            rows.append({"setup": name, "seed": seed, "kind": kind, "reads": calls["read"],
                         "writes": calls["write"], "notes": calls["note"]})
        return value

    def kinded(update: dict[str, Any]) -> Any:
        def kind(was: tuple[Any, ...], now: tuple[Any, ...]) -> str:
            if was[1] == "playing" and now[1] != "playing":
                return "end of game"
            if was[1] != "playing" and now[1] == "playing":
                return "start game"
            found = update_kind(update, was[0], now[0])
            if found in ("vote", "quest card") and was[2] is not None and now[2] is not None \
                    and not collecting(was[2], now[2]) and was[2].to_json() != now[2].to_json():
                found += " (a step)"  # (an open vote that opens the others' vote: a new decision)
            elif found in ("vote", "quest card") and now[4] > was[4]:
                found += " (a step)"  # (a card the rules make public, played face up: the group is told)
            if was[3] and was[1] == "playing" and found in TARGETS:
                found += " + waiting"  # (it also delivers what waited for the group's budget: a flush's work)
            return found
        return kind

    h.send = lambda update: counted(kinded(update), lambda: send(update))  # type: ignore[method-assign]
    h.idle = lambda chat_id=None: counted(lambda was, now: "flush", lambda: idle(chat_id))  # type: ignore[method-assign]
    try:
        players = list(range(100 * seed + 1, 100 * seed + n + 1))
        h.lobby(players)
        set_settings(h.repo, h.group, theme, roles, options)
        driver = play_started(h, players, seed)
        if not driver.over():
            raise RuntimeError(f"{name} (seed {seed}): the game did not end")
    finally:
        h.close()
    return rows


def finish_a_game(h: Any, seed: int = 1) -> None:
    """A 5-player game played to its end on the harness ``h`` (no group budget: the end goes out with its move)."""
    from gamebot.storage.effects import UNLIMITED
    from localdev.autoplay import Policy
    from tests.reliability.support import RobustDriver
    from tests.unit.gamebot_fakes import HarnessScreen

    h.service.uow.budget = UNLIMITED
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(players[0], h.group, "Start")
    driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(seed)))
    driver.play()
    if not driver.over():
        raise RuntimeError("the game did not end")


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per update type: count, and the mean and max of reads, writes, notes and writes + notes."""
    by_kind: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    out = {}
    for kind, rs in by_kind.items():
        k: dict[str, float] = {"count": len(rs)}
        for key in ("reads", "writes", "notes"):
            k[f"{key}_mean"] = sum(r[key] for r in rs) / len(rs)
            k[f"{key}_max"] = max(r[key] for r in rs)
        k["all_writes_max"] = max(r["writes"] + r["notes"] for r in rs)
        out[kind] = k
    return out


def over_target(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The updates that make more requests than their target allows (a note counts as a write)."""
    return [r for r in rows if r["kind"] in TARGETS
            and (r["reads"] > TARGETS[r["kind"]][0] or r["writes"] + r["notes"] > TARGETS[r["kind"]][1])]


def table(s: dict[str, dict[str, float]]) -> str:
    lines = [f"{'update':17} {'count':>5}  {'reads mean/max':>14}  {'writes mean/max':>15}  {'notes mean/max':>14}"
             f"  {'target':>10}"]
    for kind in [*ORDER, *sorted(set(s) - set(ORDER))]:
        if kind not in s:
            continue
        k = s[kind]
        target = "{}+{}".format(*TARGETS[kind]) if kind in TARGETS else ("not a move" if kind == NOT_A_MOVE else "")
        lines.append(f"{kind:17} {k['count']:5.0f}  {k['reads_mean']:8.2f} / {k['reads_max']:.0f}"
                     f"  {k['writes_mean']:9.2f} / {k['writes_max']:.0f}  {k['notes_mean']:8.2f} / {k['notes_max']:.0f}"
                     f"  {target:>10}")
    return "\n".join(lines)


def run(seeds: list[int], only: list[str] | None = None) -> dict[str, Any]:
    """The rows of every set-up (or of the set-ups named in ``only``) played with each seed, and their summary."""
    rows: list[dict[str, Any]] = []
    for name, setup in setups().items():
        if only is None or name in only:
            for seed in seeds:
                rows += play(name, setup, seed)
    return {"summary": summary(rows), "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one seed per set-up")
    parser.add_argument("--seeds", nargs="+", type=int, default=None)
    parser.add_argument("--json", help="write the rows and the summary here")
    args = parser.parse_args(argv)
    seeds = args.seeds or ([1] if args.quick else [1, 2])
    result = run(seeds)
    rows, s = result["rows"], result["summary"]
    print(f"DynamoDB requests per update, {len(setups())} set-ups x seeds {seeds} (target: reads+writes, a note a write)")
    print(table(s))
    over = over_target(rows)
    print(f"updates over their target: {len(over)} of {sum(1 for r in rows if r['kind'] in TARGETS)}")
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": s, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
