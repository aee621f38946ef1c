"""Check the figures the docs quote from benchmarks against a fresh run of those benchmarks.

    .venv/bin/python scripts/check_doc_figures.py                   # the quick checks (a few minutes)
    .venv/bin/python scripts/check_doc_figures.py requests spam     # some checks, by name
    .venv/bin/python scripts/check_doc_figures.py --all             # every check (tens of minutes on 2 cores)
    .venv/bin/python scripts/check_doc_figures.py --list

Each check runs one benchmark at the size the doc quotes, reads the figures from the doc's own sentence or
table, and compares them: counts exactly as the doc prints them (seeded games, virtual clocks: they
repeat from run to run), sizes in bytes within 2 %, figures with this machine's CPU in them (GB-s, $)
within 10 %. Timings are never compared (they depend on the machine): the docs date them instead.
The constants the docs quote (defaults, limits) are checked by ``tests/unit/test_doc_figures.py``.

Exit status 1 if a figure disagrees or its sentence is gone (reworded: update the check with it).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT), str(ROOT / "scripts")]

Found = tuple[str, str, str, bool]  # what, the doc's figure, the fresh one, whether they agree
CHECKS: dict[str, tuple[Callable[[], Iterator[Found]], bool, str]] = {}  # name -> (check, slow, command)


def check(name: str, command: str, slow: bool = False) -> Callable[[Callable[[], Iterator[Found]]], Any]:
    def register(fn: Callable[[], Iterator[Found]]) -> Callable[[], Iterator[Found]]:
        CHECKS[name] = (fn, slow, command)
        return fn
    return register


def text(doc: str) -> str:
    """A doc's text, whitespace folded (a sentence may wrap anywhere)."""
    return " ".join((ROOT / doc).read_text(encoding="utf-8").split())


def sentence(doc: str, pattern: str) -> re.Match[str]:
    found = re.search(pattern, text(doc))
    if found is None:
        raise LookupError(f"{doc}: no sentence matches {pattern!r}")
    return found


def table(doc: str, header: str, after: str = "") -> list[list[str]]:
    """The rows (cells stripped) of the first table of ``doc`` whose header starts with ``header``, after the
    first line containing ``after``."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    head = next((i for i in range(start, len(lines)) if lines[i].startswith(header)), None)
    if head is None:
        raise LookupError(f"{doc}: no table with the header {header!r}" + (f" after {after!r}" if after else ""))
    rows = []
    for line in lines[head + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def same(what: str, doc: str, fresh: float | str, rel: float = 0.0) -> Found:
    """The doc's figure against the fresh one: as the doc prints it (its decimals), or within ``rel``."""
    doc = doc.replace("**", "").replace(",", "").strip()
    if isinstance(fresh, str):
        return what, doc, fresh, doc == fresh
    decimals = len(doc.split(".")[1]) if "." in doc else 0
    shown = f"{fresh:.{decimals}f}"
    ok = shown == doc or (rel > 0 and abs(fresh - float(doc)) <= rel * abs(float(doc)))
    return what, doc, shown, ok


def bench_json(script: str, *args: str) -> Any:
    """Run ``scripts/<script>`` with ``--json`` and return what it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args, "--json", str(out)], check=True,
                       cwd=ROOT, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def _table_lines(lines: list[str], head: int) -> list[str]:
    out = []
    for line in lines[head + 2:]:
        if not line.startswith("|"):
            break
        out.append(line)
    return out


# ---------------------------------------------------------------------------------------------------


@check("requests", ".venv/bin/python scripts/bench_requests.py  (46 seeded games)")
def requests() -> Iterator[Found]:
    from bench_requests import TARGETS

    result = bench_json("bench_requests.py")
    summary, rows = result["summary"], result["rows"]
    for row in table("docs/BENCHMARKS.md", "| update | count | target", "## 9. DynamoDB requests per move"):
        kind, count, _, reads, writes, _, notes, history = row
        k = summary.get(kind)
        if k is None:
            yield f"BENCHMARKS 9: {kind}", count, "none played", False
            continue
        yield same(f"BENCHMARKS 9: {kind}, count", count, k["count"])
        for name, cell in (("reads", reads), ("writes", writes), ("notes", notes)):
            mean, most = cell.split(" / ")
            yield same(f"BENCHMARKS 9: {kind}, {name} mean", mean, k[f"{name}_mean"])
            yield same(f"BENCHMARKS 9: {kind}, {name} max", most, k[f"{name}_max"])
        yield same(f"BENCHMARKS 9: {kind}, writes + notes max", history.split("→")[-1], k["all_writes_max"])
    moves = [r for r in rows if r["kind"] in TARGETS]
    over = [r for r in moves if r["reads"] > TARGETS[r["kind"]][0] or r["writes"] + r["notes"] > TARGETS[r["kind"]][1]]
    m = sentence("docs/BENCHMARKS.md", r"\*\*met, (\d+) of ([\d,]+) moves over\*\*")
    yield same("BENCHMARKS target 3: moves over their target", m[1], len(over))
    yield same("BENCHMARKS target 3: moves", m[2], len(moves))


@check("spam", ".venv/bin/python scripts/bench_spam.py  (3 runs on moto)", slow=True)
def spam() -> Iterator[Found]:
    runs = bench_json("bench_spam.py")["runs"]
    writes = max(r["spam_writes_chat"] for r in runs)
    conflicts = max(r["honest_conflicts"] for r in runs)
    m = sentence("docs/BENCHMARKS.md", r"\*\*met: (\d+) writes, (\d+) conflicts\*\*")
    yield same("BENCHMARKS target 10: the spammer's writes of the chat's item, most of 3 runs", m[1], writes)
    yield same("BENCHMARKS target 10: the honest votes' conflicts, most of 3 runs", m[2], conflicts)
    m = sentence("README.md", r"now (\d+) writes and (\d+) conflicts \(`scripts/bench_spam.py`")
    yield same("README: the spammer's writes", m[1], writes)
    yield same("README: the conflicts", m[2], conflicts)


@check("group_history", ".venv/bin/python scripts/bench_group_history.py  (10,000 subscribers, 1,000 games)",
       slow=True)
def group_history() -> Iterator[Found]:
    r = bench_json("bench_group_history.py")
    m = sentence("docs/BENCHMARKS.md", r"\*\*met: ([\d.]+) KB\*\* stored \((\d+) write units[;)]")
    yield same("BENCHMARKS target 9: the chat item a vote writes, KB", m[1], r["vote_max_bytes"] / 1024, rel=0.02)
    yield same("BENCHMARKS target 9: its write units", m[2], r["vote_wru"])
    m = sentence("docs/BENCHMARKS.md", r"\*\*([\d.]+)–([\d.]+) KB\*\*, (\d+) write units; no history field")
    yield same("BENCHMARKS 4b: the vote's item, smallest KB", m[1], r["vote_min_bytes"] / 1024, rel=0.02)
    yield same("BENCHMARKS 4b: the vote's item, largest KB", m[2], r["vote_max_bytes"] / 1024, rel=0.02)
    m = sentence("docs/BENCHMARKS.md", r"(\d+) items `next#<chat>#<k>`, the largest ([\d.]+) KB")
    yield same("BENCHMARKS 4b: subscriber items", m[1], r["subscriber_items"])
    yield same("BENCHMARKS 4b: the largest, KB", m[2], r["subscriber_item_max_bytes"] / 1024, rel=0.02)
    m = sentence("docs/BENCHMARKS.md", r"(\d+) items `idle#<chat>#<k>`, the largest ([\d.]+) KB")
    yield same("BENCHMARKS 4b: idle record items", m[1], r["idle_record_items"])
    yield same("BENCHMARKS 4b: the largest, KB", m[2], r["idle_record_max_bytes"] / 1024, rel=0.02)
    m = sentence("docs/BENCHMARKS.md", r"\*\*10,000, each once\*\*, in (\d+) deliveries of at most (\d+) notices")
    yield same("BENCHMARKS 4b: deliveries that told subscribers", m[1], r["deliveries_to_tell"])
    yield same("BENCHMARKS 4b: most notices in one delivery", m[2], r["most_notices_in_one_delivery"])
    yield same("BENCHMARKS 4b: subscribers told twice", "0", r["told_twice_or_more"])


@check("state_size", ".venv/bin/python scripts/bench_state_size.py  (120 games)", slow=True)
def state_size() -> Iterator[Found]:
    r = bench_json("bench_state_size.py")
    names = {"base roles, every module": "base", "Lancelot (switch), Rogues, Sorcerers": "lancelot_rogue_sorcerer",
             "Messengers, Cleric, Troublemaker, Untrustworthy Servant, Trickster": "messengers_liars",
             "Lancelot (pre-dealt), Lunatic, Brute": "lancelot_lunatic_brute",
             "Revealer, Mordred, Cleric": "revealer_mordred",
             "The Resistance, Plot cards, Targeting, Blind Spies": "resistance"}
    for setup, stored, body, actions, proposals in table("docs/BENCHMARKS.md", "| set-up | largest stored item"):
        s = r["setups"][names[setup]]
        stored, body = (cell.replace("**", "").removesuffix(" B") for cell in (stored, body))
        yield same(f"BENCHMARKS 4: {setup}, stored B", stored, s["max_bytes"], rel=0.02)
        yield same(f"BENCHMARKS 4: {setup}, JSON B", body, s["max_json_bytes"], rel=0.02)
        yield same(f"BENCHMARKS 4: {setup}, actions", actions, s["max_actions"])
        yield same(f"BENCHMARKS 4: {setup}, proposals", proposals, s["max_proposals"])


@check("staleness", ".venv/bin/python scripts/bench_staleness.py --before none  (42 seeded games, virtual clock)",
       slow=True)
def staleness() -> Iterator[Found]:
    printed = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_staleness.py"), "--before", "none"],
                             check=True, cwd=ROOT, capture_output=True, text=True).stdout
    lines = printed.splitlines()
    fresh = {}
    for header in ("| set-up | tree | games | accepted", "| set-up | tree | webhook invocations"):
        head = next(i for i, line in enumerate(lines) if line.startswith(header))
        cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in _table_lines(lines, head)]
        fresh[header] = {(c[0], c[1]): c for c in cells}
    heads = {h: [c.strip() for c in next(line for line in lines if line.startswith(h)).strip("|").split("|")]
             for h in fresh}
    cpu = ("GB-s", "Lambda $ / 1,000 games")  # this machine's CPU x 3.5 in them: within 10%
    timing = ("CPU s here",)  # a timing: never compared
    checked = (("| set-up | tree | games | accepted", "## 11.", "BENCHMARKS 11, table 1"),
               ("| set-up | tree | webhook invocations", "check_doc_figures: staleness", "BENCHMARKS 11, re-run"))
    for header, after, where in checked:
        for row in table("docs/BENCHMARKS.md", header, after):
            if row[1] != "after":
                continue
            new = fresh[header].get((row[0], "after"))
            if new is None:
                yield f"{where}: {row[0]}", "a row", "none", False
                continue
            for name, old, now in zip(heads[header][2:], row[2:], new[2:], strict=True):
                if name in timing:
                    continue
                if name in cpu:
                    yield same(f"{where}: {row[0]}, {name}", old, float(now), rel=0.10)
                else:
                    yield same(f"{where}: {row[0]}, {name}", old, now)
    per_game = fresh["| set-up | tree | webhook invocations"]
    for row in table("docs/OPERATIONS.md", "| game | GB-s before → after"):
        setup = {"3 people": "3 people + 2 bots", "practice": "practice (1 + 6 bots)", "people o": "people"}
        key = next(v for k, v in setup.items() if row[0].startswith(k))
        new = per_game[(key, "after")]
        yield same(f"OPERATIONS cost with bots: {key}, GB-s", row[1].split("→")[1], float(new[4]), rel=0.10)
        invocations = row[3].split("→")[1].replace("**", "").split("+")
        yield same(f"OPERATIONS cost with bots: {key}, webhook invocations", invocations[0], new[2])
        yield same(f"OPERATIONS cost with bots: {key}, timer invocations", invocations[1], new[3].split(" ")[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help=f"checks to run (default: the quick ones): {', '.join(CHECKS)}")
    ap.add_argument("--all", action="store_true", help="every check, the slow ones too")
    ap.add_argument("--list", action="store_true", help="list the checks and their benchmarks")
    args = ap.parse_args(argv)
    if args.list:
        for name, (_, slow, command) in CHECKS.items():
            print(f"{name:14} {'slow ' if slow else 'quick'} {command}")
        return 0
    unknown = set(args.names) - set(CHECKS)
    if unknown:
        ap.error(f"unknown checks: {', '.join(sorted(unknown))}")
    names = args.names or [n for n, (_, slow, _) in CHECKS.items() if args.all or not slow]
    bad = 0
    for name in names:
        fn, _, command = CHECKS[name]
        started = time.monotonic()
        print(f"== {name}: {command}")
        try:
            found = list(fn())
        except LookupError as exc:
            found = [(f"{name}: the doc's figure", str(exc), "-", False)]
        for what, doc, fresh, ok in found:
            bad += not ok
            print(f"  {'ok ' if ok else 'BAD'} {what}: doc {doc}, fresh {fresh}")
        print(f"  ({len(found)} figures, {time.monotonic() - started:.0f} s)")
    print(f"{bad} figure(s) disagree" if bad else "every figure agrees")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
