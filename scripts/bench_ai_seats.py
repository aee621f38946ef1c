"""How strong the AI seats are (``engine.policy``): seeded whole games, in memory, on the engine only.

    .venv/bin/python scripts/bench_ai_seats.py                   # 2,000 games per set-up and match-up
    .venv/bin/python scripts/bench_ai_seats.py --games 200       # quicker
    .venv/bin/python scripts/bench_ai_seats.py --quick           # CI-sized: 20 games each
    .venv/bin/python scripts/bench_ai_seats.py --previous <commit>  # "previous" = the policy at <commit>
    .venv/bin/python scripts/bench_ai_seats.py --exploit         # exploiters vs the policy: 1,000 games each
    .venv/bin/python scripts/bench_ai_seats.py --exploit --quick --only 5p  # 20 games each, 5 players
    .venv/bin/python scripts/bench_ai_seats.py --exploit --exploiters assassin_reads_votes  # self-play and it
    .venv/bin/python scripts/bench_ai_seats.py --cost            # CPU per decision at 10 players, now and previous

Set-ups: 5, 7 and 10 players; base (Merlin + Assassin), base + Lady of the Lake, and Big Box
characters (Percival and Morgana, Mordred from 7 players, Oberon at 10). Match-ups, Good side against
Evil side: the policy against itself, against uniform random legal play (on either side), and against
the policy as of an earlier commit (``git show <commit>:shared/engine/policy.py``, or the files of
``shared/engine/policy/`` at that commit), both ways; for reference, the previous policy and random
play each against itself. For each it prints the Good and Evil win rates, how often Good passed three
quests, the Assassin's Merlin-hit rate when it came to an assassination, and Merlin's survival in
those games (1 - hit rate).

``--exploit`` (issue 39) plays instead, at 5, 7 and 10 players (base set-ups), the policy against itself
and each fixed exploiter of ``scripts/exploiters.py`` on its side against the policy on the other, on the
same seeds, and prints each exploiter's gain: its side's win rate minus that side's self-play win rate, in
points, with a 95 % confidence interval from the normal approximation for the difference of two
independent proportions (conservative here: the seeds, hence the deals, are the same in both), the
Merlin-hit rate beside it; its last line is ``exploitability: max gain <points> (<exploiter>, <set-up>)``.

``--cost`` plays self-play games at 10 players (base, Big Box) and times, in this process's CPU time, every
decision of the policy and of the previous policy on the same view (alternately first), by kind of prompt:
median, 95th percentile and most, and the ratio of the medians.

Every seat decides from ``engine.view(state, seat)`` only (random play picks among ``legal_actions``).
Games of one row are seeded 0..N-1 (deal and moves), so two runs give the same table. At most two
processes play (``--jobs``); this is a benchmark, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "shared"))
sys.path.insert(0, str(ROOT))

from engine import GameConfig, GameState, actors, apply_action, legal_actions, new_game, policy, view  # noqa: E402
from engine.models import Action  # noqa: E402
from scripts.exploiters import EXPLOITERS  # noqa: E402

PREVIOUS = "3523c48"  # the policy as it came into the engine, before issue 30 made it stronger
BIGBOX = {5: ("percival", "morgana"), 7: ("percival", "morgana", "mordred"),
          10: ("percival", "morgana", "mordred", "oberon")}
MATCHUPS: tuple[tuple[str, str], ...] = (
    ("policy", "policy"), ("policy", "random"), ("random", "policy"),
    ("policy", "previous"), ("previous", "policy"), ("previous", "previous"), ("random", "random"),
)

EXPLOIT_SETUPS = ("5p base", "7p base", "10p base")
SELF = ("policy", "policy")

Player = Callable[[GameState, int, random.Random], Action]


def setups(sizes: tuple[int, ...] = (5, 7, 10)) -> dict[str, GameConfig]:
    """The benchmarked set-ups by name, e.g. ``"7p lady"``."""
    out: dict[str, GameConfig] = {}
    for n in sizes:
        base = ("merlin", "assassin")
        out[f"{n}p base"] = GameConfig(players=n, roles=base)
        out[f"{n}p lady"] = GameConfig(players=n, roles=base, options={"lady_of_the_lake": True})
        out[f"{n}p bigbox"] = GameConfig(players=n, roles=base + BIGBOX[n])
    return out


def load_previous(commit: str) -> ModuleType:
    """The policy as of ``commit`` (``shared/engine/policy.py``, or the ``shared/engine/policy/`` package),
    imported as ``engine._previous_policy`` so that its relative imports reach today's engine. ``commit``
    may also be a folder holding the package's files (e.g. ``shared/engine/policy`` of another checkout:
    no git history needed) or a ``policy.py`` file."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout

    folder = Path(tempfile.mkdtemp(prefix="previous_policy_"))
    given = Path(commit) if Path(commit).is_absolute() else ROOT / commit
    if given.is_dir():
        sources = {path.name: path.read_text() for path in sorted(given.glob("*.py"))}
    elif given.is_file():
        sources = {"": given.read_text()}
    else:
        sources = {Path(path).name: git("show", f"{commit}:{path}")
                   for path in git("ls-tree", "--name-only", commit, "shared/engine/policy/").split()}
        if not sources:
            sources = {"": git("show", f"{commit}:shared/engine/policy.py")}
    name = "engine._previous_policy"
    if "" not in sources:
        package = folder / "_previous_policy"
        package.mkdir()
        for file_name, text in sources.items():
            (package / file_name).write_text(text)
        spec = importlib.util.spec_from_file_location(name, package / "__init__.py",
                                                      submodule_search_locations=[str(package)])
    else:
        single = folder / "_previous_policy.py"
        single.write_text(sources[""])
        spec = importlib.util.spec_from_file_location(name, single)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def random_player(state: GameState, seat: int, rng: random.Random) -> Action:
    return rng.choice(legal_actions(state, seat))


def view_player(module: Any) -> Player:
    def play(state: GameState, seat: int, rng: random.Random) -> Action:
        action = module.decide(view(state, seat), rng)
        assert action is not None
        return action  # type: ignore[no-any-return]
    return play


@dataclass
class Tally:
    """Outcomes of a batch of games (added up across processes)."""
    games: int = 0
    good: int = 0
    three_quests: int = 0  # Good passed three quests (before any assassination)
    assassinations: int = 0
    hits: int = 0

    def add(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.games, self.good, self.three_quests, self.assassinations, self.hits)

    def row(self) -> dict[str, str]:
        """Percentages for the table; "-" where nothing was counted."""
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f}" if b else "-"
        return {"good": pct(self.good, self.games), "evil": pct(self.games - self.good, self.games),
                "three": pct(self.three_quests, self.games), "hit": pct(self.hits, self.assassinations),
                "survives": pct(self.assassinations - self.hits, self.assassinations)}


def outcome(final: GameState) -> Tally:
    """One finished game's tally, from its final public view."""
    public = view(final, 0)
    attempt: dict[str, Any] = dict(public.get("assassination") or {})
    attempted = attempt.get("hit") is not None
    three = sum(r is True for r in final.results) >= 3
    return Tally(games=1, good=int(final.winner is not None and final.winner.value == "good"),
                 three_quests=int(three), assassinations=int(attempted), hits=int(bool(attempt.get("hit"))))


def play(config: GameConfig, seed: int, good: Player, evil: Player, max_actions: int = 5000) -> GameState:
    """A whole seeded game: Good seats play ``good``, Evil seats ``evil`` (by side at the deal)."""
    state, _ = new_game(config, seed)
    sides = [s.value for s in state.sides]
    rng = random.Random(seed)
    for _ in range(max_actions):
        if state.over:
            return state
        seat = rng.choice(actors(state))
        player = good if sides[seat] == "good" else evil
        state, _ = apply_action(state, player(state, seat, rng))
    raise RuntimeError(f"game {seed} did not end")


_PLAYERS: dict[str, Player] = {}


def _init(previous: str | None) -> None:
    _PLAYERS.update(policy=view_player(policy), random=random_player)
    _PLAYERS.update({name: e.player for name, e in EXPLOITERS.items()})
    if previous is not None:
        _PLAYERS["previous"] = view_player(load_previous(previous))


def _batch(job: tuple[str, str, str, int, int]) -> tuple[str, str, str, Tally]:
    name, good, evil, start, stop = job
    config = setups()[name]
    total = Tally()
    for seed in range(start, stop):
        total = total.add(outcome(play(config, seed, _PLAYERS[good], _PLAYERS[evil])))
    return name, good, evil, total


def jobs(names: list[str], games: int, chunk: int = 250,
         matchups: tuple[tuple[str, str], ...] = MATCHUPS) -> list[tuple[str, str, str, int, int]]:
    """The work split in seed ranges: every (set-up, match-up) gets seeds 0..games-1."""
    return [(name, g, e, lo, min(lo + chunk, games)) for name in names for g, e in matchups
            for lo in range(0, games, chunk)]


def exploit_matchups(only: Sequence[str] = ()) -> tuple[tuple[str, str], ...]:
    """Self-play, then each exploiter (Good side, Evil side) against the policy on the other side (only
    those named in ``only``, when given)."""
    chosen = [name for name in EXPLOITERS if not only or name in only]
    return (SELF, *((name, "policy") if EXPLOITERS[name].side == "good" else ("policy", name) for name in chosen))


def side_wins(t: Tally, side: str) -> int:
    return t.good if side == "good" else t.games - t.good


def gain(exploit: Tally, selfplay: Tally, side: str, z: float = 1.96) -> tuple[float, float, float]:
    """(gain, CI low, CI high) in points: ``side``'s win rate with the exploiter minus in self-play, and
    its 95 % interval (normal approximation, two independent proportions)."""
    p1, p0 = side_wins(exploit, side) / exploit.games, side_wins(selfplay, side) / selfplay.games
    se = (p1 * (1 - p1) / exploit.games + p0 * (1 - p0) / selfplay.games) ** 0.5
    d = p1 - p0
    return 100 * d, 100 * (d - z * se), 100 * (d + z * se)


def exploit_rows(results: dict[tuple[str, str, str], Tally]) -> list[dict[str, Any]]:
    """One row per (set-up, exploiter), with its gain over self-play."""
    rows = []
    for (name, good, evil), t in results.items():
        if (good, evil) == SELF:
            continue
        ex = good if good != "policy" else evil
        side = EXPLOITERS[ex].side
        base = results[name, *SELF]
        g, lo, hi = gain(t, base, side)
        rows.append({"setup": name, "exploiter": ex, "side": side, "games": t.games, "wins": side_wins(t, side),
                     "selfplay_games": base.games, "selfplay_wins": side_wins(base, side),
                     "wins_pct": 100 * side_wins(t, side) / t.games,
                     "selfplay_pct": 100 * side_wins(base, side) / base.games, "gain": g, "ci": [lo, hi],
                     "hit": t.row()["hit"], "selfplay_hit": base.row()["hit"],
                     "assassinations": t.assassinations, "hits": t.hits})
    return rows


def exploit_report(rows: list[dict[str, Any]]) -> str:
    """The table, then ``exploitability: max gain <points> (<exploiter>, <set-up>)``."""
    lines = ["| set-up | exploiter | side | games | exploiter side wins % | self-play % | gain points | 95 % CI | "
             "Merlin hit % (self-play) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['setup']} | {r['exploiter']} | {r['side']} | {r['games']} | {r['wins_pct']:.1f} | "
                     f"{r['selfplay_pct']:.1f} | {r['gain']:+.1f} | [{r['ci'][0]:+.1f}, {r['ci'][1]:+.1f}] | "
                     f"{r['hit']} ({r['selfplay_hit']}) |")
    top = max(rows, key=lambda r: r["gain"])
    lines.append(f"\nexploitability: max gain {top['gain']:.1f} ({top['exploiter']}, {top['setup']})")
    return "\n".join(lines)


def table(results: dict[tuple[str, str, str], Tally]) -> str:
    lines = ["| set-up | Good | Evil | games | Good wins % | Evil wins % | 3 quests % | Merlin hit % | "
             "Merlin survives % |", "|---|---|---|---|---|---|---|---|---|"]
    for (name, good, evil), t in results.items():
        r = t.row()
        lines.append(f"| {name} | {good} | {evil} | {t.games} | {r['good']} | {r['evil']} | {r['three']} | "
                     f"{r['hit']} | {r['survives']} |")
    return "\n".join(lines)


def run(work: list[tuple[str, str, str, int, int]], results: dict[tuple[str, str, str], Tally],
        processes: int, previous: str | None) -> None:
    """Play ``work`` and add its tallies into ``results`` (one process, or a Pool of ``processes``)."""
    if processes == 1:
        _init(previous)
        for name, good, evil, t in map(_batch, work):
            results[name, good, evil] = results[name, good, evil].add(t)
    else:
        with Pool(processes, initializer=_init, initargs=(previous,)) as pool:
            for name, good, evil, t in pool.imap_unordered(_batch, work):
                results[name, good, evil] = results[name, good, evil].add(t)


def exploit(args: argparse.Namespace) -> None:
    games = 20 if args.quick else args.games or 1000
    names = [n for n in EXPLOIT_SETUPS if args.only in n]
    only = args.exploiters.split(",") if args.exploiters else []
    if unknown := set(only) - set(EXPLOITERS):
        raise SystemExit(f"unknown exploiters: {', '.join(sorted(unknown))} (known: {', '.join(EXPLOITERS)})")
    matchups = exploit_matchups(only)
    results = {(n, g, e): Tally() for n in names for g, e in matchups}
    run(jobs(names, games, chunk=100, matchups=matchups), results, args.jobs, None)
    print(f"{games} seeded games per row (seeds 0..{games - 1}); gain = the exploiter's side's win rate minus "
          f"that side's in self-play (policy against policy), in points"
          + (f"; only {args.exploiters} of the {len(EXPLOITERS)} exploiters\n" if args.exploiters else "\n"))
    for name in names:
        t = results[name, *SELF]
        print(f"- self-play {name}: Good wins {t.row()['good']} %, Merlin hit {t.row()['hit']} %")
    rows = exploit_rows(results)
    print("\n" + exploit_report(rows))
    if args.json:
        selfplay = {n: {"games": results[n, *SELF].games, "good_wins": results[n, *SELF].good,
                        "percent": results[n, *SELF].row()} for n in names}
        Path(args.json).write_text(json.dumps({"games": games, "mode": "exploit", "selfplay": selfplay,
                                               "rows": rows}, indent=1))


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def cost(args: argparse.Namespace) -> None:
    """CPU per decision at 10 players, the policy and the previous one side by side on the same views."""
    previous = load_previous(args.previous)
    games = 3 if args.quick else args.games or 40
    times: dict[str, tuple[list[float], list[float]]] = {}
    for name in ("10p base", "10p bigbox"):
        for seed in range(games):
            state, _ = new_game(setups()[name], seed)
            rng = random.Random(seed)
            while not state.over:
                seat = rng.choice(actors(state))
                v = view(state, seat)
                kind = str(v["you"]["prompts"][0]["kind"])
                now, before = times.setdefault(kind, ([], []))
                draw = rng.random()
                pair = [(policy, now), (previous, before)]
                decided = {}
                for module, out in pair if len(now) % 2 else pair[::-1]:  # (each goes first every other time)
                    start = time.process_time()
                    decided[module] = module.decide(v, random.Random(draw))
                    out.append(1000 * (time.process_time() - start))
                action = decided[policy]
                assert action is not None
                state, _ = apply_action(state, action)
    print(f"{games} self-play games each of 10p base and 10p bigbox; CPU ms per decision (this process), "
          f"the policy now and at {args.previous}, on the same views\n")
    print("| prompt | decisions | now median | now p95 | now max | previous median | previous max | ratio of "
          "medians |\n|---|---|---|---|---|---|---|---|")
    for kind, (now, before) in sorted(times.items(), key=lambda kv: -len(kv[1][0])):
        mid, was = _percentile(now, 0.5), _percentile(before, 0.5)
        print(f"| {kind} | {len(now)} | {mid:.2f} | {_percentile(now, 0.95):.2f} | {max(now):.2f} | {was:.2f} | "
              f"{max(before):.2f} | {mid / was if was else float('nan'):.2f} |")
    worst = max(max(now) for now, _ in times.values())
    print(f"\nslowest decision now: {worst:.1f} ms (a 512 MB Lambda has about 0.29 of a vCPU: ~{3.5 * worst:.0f} ms there)")
    if args.json:
        kinds = {kind: {"decisions": len(now), "now_median": _percentile(now, 0.5), "now_p95": _percentile(now, 0.95),
                        "now_max": max(now), "previous_median": _percentile(before, 0.5), "previous_max": max(before)}
                 for kind, (now, before) in times.items()}
        Path(args.json).write_text(json.dumps({"games": games, "mode": "cost", "previous": args.previous,
                                               "kinds": kinds, "slowest_ms": worst}, indent=1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="games per row (2,000; 1,000 with --exploit)")
    parser.add_argument("--quick", action="store_true", help="20 games per set-up and match-up")
    parser.add_argument("--previous", default=PREVIOUS,
                        help="the commit of the previous policy (or a folder of its files)")
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    parser.add_argument("--only", default="", help="set-ups whose name contains this text")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--exploit", action="store_true", help="the exploiters of scripts/exploiters.py (issue 39)")
    parser.add_argument("--exploiters", default="", help="with --exploit: only these (comma-separated names)")
    parser.add_argument("--cost", action="store_true", help="CPU per decision at 10 players, now and previous")
    args = parser.parse_args(argv)
    if args.exploit:
        return exploit(args)
    if args.cost:
        return cost(args)
    games = 20 if args.quick else args.games or 2000
    names = [n for n in setups() if args.only in n]
    results: dict[tuple[str, str, str], Tally] = {(n, g, e): Tally() for n in names for g, e in MATCHUPS}
    run(jobs(names, games), results, args.jobs, args.previous)
    print(f"{games} seeded games per row; previous = policy at {args.previous}\n")
    print(table(results))
    if args.json:
        rows = [{"setup": name, "good_side": good, "evil_side": evil, "games": t.games, "good_wins": t.good,
                 "three_quests": t.three_quests, "assassinations": t.assassinations, "hits": t.hits,
                 "percent": t.row()} for (name, good, evil), t in results.items()]
        Path(args.json).write_text(json.dumps({"games": games, "previous": args.previous, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
