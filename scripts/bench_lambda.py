"""CPU per update type scaled to Lambda's share of a vCPU, and a table of latency and cost per memory
size (as AWS Lambda Power Tuning draws it), from the rows of ``scripts/bench_webhook.py``.

    .venv/bin/python scripts/bench_lambda.py                       # plays bench_webhook's 8 games itself
    .venv/bin/python scripts/bench_webhook.py --rows rows.json && .venv/bin/python scripts/bench_lambda.py --rows rows.json
    .venv/bin/python scripts/bench_lambda.py --quick --json out.json   # CI: one 5-player game

Each row is one update or timer played through ``lambda_handler`` against moto and the fake Bot API with
simulated round trips (see bench_webhook). Its **CPU** is the handler thread's CPU time plus that of the
event loop's worker threads (``asyncio.to_thread``: the statistics of a finished game, the schedules);
its **floor** is the I/O it cannot avoid (the longest chain of Bot API calls to one chat x the round
trip, every DynamoDB request and CreateSchedule x its delay).

Lambda gives a function CPU in proportion to its memory: 1,769 MB is one vCPU (AWS documents this), so
512 MB is 0.29 of one. That a full core of this machine is worth one Lambda vCPU is an assumption. The
predicted duration of an invocation at ``mb`` is, conservatively, ``floor + CPU / share(mb)``: as if none
of the CPU overlapped the round trips (on a full core here part of it does: the wall time less moto is
shown beside it). Above 1,769 MB the share is capped at one vCPU: the handler runs on one thread.

Cost: Lambda bills each invocation's duration rounded up to the millisecond, times its memory in GB
(MB / 1,024), at the architecture's price per GB-second, plus a price per request (us-east-1 list
prices; template.yaml deploys x86_64, the arm64 price is shown for comparison). DynamoDB, the
scheduler and the HTTP API do not depend on the memory: they are one column, from bench_webhook's prices.
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

MEMORIES = (256, 512, 1024, 1769)  # MB
ONE_VCPU_MB = 1769  # Lambda: the memory size that has one vCPU's worth of CPU
DEPLOYED_MB = 512  # template.yaml, Globals: MemorySize
# us-east-1 list prices (USD): Lambda per GB-second (first tier) by architecture, per request
GB_S = {"x86_64": 0.0000166667, "arm64": 0.0000133334}
REQUEST = 0.20 / 1e6
TIMERS = ("flush timer", "phase timer")
ENDINGS = ("last vote", "last card", "private decision")  # the update types that can end a game


def share(mb: float) -> float:
    """The fraction of one vCPU a function of ``mb`` MB gets (capped at one: the handler is one thread)."""
    return min(mb / ONE_VCPU_MB, 1.0)


def predicted_s(floor_s: float, cpu_s: float, mb: float) -> float:
    """Conservative duration at ``mb``: the I/O floor, then the CPU slowed to the memory's share."""
    return floor_s + cpu_s / share(mb)


def invocation_usd(seconds: float, mb: float, arch: str = "x86_64") -> float:
    """What one invocation of ``seconds`` at ``mb`` costs: billed milliseconds (rounded up) x GB x price,
    plus the request."""
    billed = math.ceil(round(seconds * 1000, 6)) / 1000
    return billed * mb / 1024 * GB_S[arch] + REQUEST


def cpu_s(row: dict[str, Any]) -> float:
    """The row's CPU: the handler's thread and the event loop's workers."""
    return max(float(row["cpu_s"]) + float(row.get("cpu_workers_s", 0.0)), 0.0)


def aws_s(row: dict[str, Any]) -> float:
    """The measured wall time less moto's own local round trips (the DynamoDB delay stands for the request)."""
    return float(row["wall_s"]) - float(row["dynamo_wire_s"])


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def kinds(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per update type: CPU here (median, p90, max), the floor, the measured time, predicted durations."""
    from bench_webhook import KINDS

    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["kind"]].append(r)
    order = [k for k in KINDS if k in by] + sorted(k for k in by if k not in KINDS)
    out = {}
    for kind in order:
        rs = by[kind]
        cpus = [cpu_s(r) * 1000 for r in rs]
        k: dict[str, Any] = {
            "count": len(rs), "cpu_ms_median": statistics.median(cpus), "cpu_ms_p90": _p(cpus, 0.9),
            "cpu_ms_max": max(cpus), "workers_ms_max": max(float(r.get("cpu_workers_s", 0.0)) * 1000 for r in rs),
            "floor_ms_median": statistics.median(r["floor_s"] * 1000 for r in rs),
            "measured_ms_median": statistics.median(aws_s(r) * 1000 for r in rs),
        }
        for mb in MEMORIES:
            durations = [predicted_s(r["floor_s"], cpu_s(r), mb) * 1000 for r in rs]
            k[f"ms_{mb}_median"] = statistics.median(durations)
            k[f"ms_{mb}_p90"] = _p(durations, 0.9)
            k[f"cpu_ms_{mb}_median"] = statistics.median(cpus) / share(mb)
        out[kind] = k
    return out


def text_at_ms(sent_ms: float, rtt_ms: float, cpu_ms: float, mb: float) -> float:
    """When a message sent ``sent_ms`` into an invocation of ``cpu_ms`` CPU (on a full core) arrives at
    ``mb``, at the latest: all the CPU spent before it was sent (no more than ``sent_ms``) runs slower, then
    one round trip."""
    return sent_ms + min(cpu_ms, sent_ms) * (1 / share(mb) - 1) + rtt_ms


def endings(rows: list[dict[str, Any]], rtt_s: float) -> list[dict[str, Any]]:
    """Each game's end: the update that ended it (the last of ``ENDINGS`` in the game), the invocation
    that sent the end's first message to the group (that update, or a flush timer when the group's
    budget held it back) and when that message arrived, and the invocation that sent the picture."""
    games: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        games[r["group"]].append(r)
    out = []
    for group, rs in games.items():
        ends = [i for i, r in enumerate(rs) if r["kind"] in ENDINGS]
        if not ends:
            continue
        end = rs[ends[-1]]

        def first_text(r: dict[str, Any]) -> float | None:
            return next((ms for ms, method, chat in r["calls"] if chat == "group" and method == "sendMessage"), None)

        told = next((r for r in rs[ends[-1]:] if first_text(r) is not None), None)
        photo = next((r for r in rs if "sendPhoto (group)" in r["sent"]), None)
        sent = first_text(told) if told is not None else None
        out.append({
            "game": end.get("game", str(group)), "kind": end["kind"], "detail": end.get("detail", ""),
            "cpu_ms": cpu_s(end) * 1000, "workers_ms": float(end.get("cpu_workers_s", 0.0)) * 1000,
            "floor_ms": end["floor_s"] * 1000, "measured_ms": aws_s(end) * 1000,
            "ratio": aws_s(end) / end["floor_s"] if end["floor_s"] else 0.0,
            "moto_ms": float(end["dynamo_wire_s"]) * 1000,
            "text_moto_ms": float(told["dynamo_wire_s"]) * 1000 if told is not None else 0.0,
            "text_by": ("the same update" if told is end else told["kind"]) if told is not None else "",
            "text_sent_ms": sent, "rtt_ms": rtt_s * 1000, "text_cpu_ms": cpu_s(told) * 1000 if told is not None else 0.0,
            "picture_by": ("the same update" if photo is end else photo["kind"]) if photo else "",
            "picture_cpu_ms": cpu_s(photo) * 1000 if photo else 0.0,
            "picture_floor_ms": photo["floor_s"] * 1000 if photo else 0.0,
            "picture_measured_ms": aws_s(photo) * 1000 if photo else 0.0,
        })
    return out


def memory_table(rows: list[dict[str, Any]]) -> dict[str, dict[int, dict[str, float]]]:
    """Per set-up, means per game at each memory size: Lambda seconds and dollars (both architectures),
    the median and p90 invocation, and what does not depend on the memory."""
    from bench_webhook import PRICES

    games: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        games[r.get("game", "all")][r["group"]].append(r)
    out: dict[str, dict[int, dict[str, float]]] = {}
    for name, per_group in games.items():
        n = len(per_group)
        every = [r for rs in per_group.values() for r in rs]
        updates = sum(1 for r in every if r["kind"] not in TIMERS)
        timers = len(every) - updates
        rest = (sum(r["wru"] for r in every) * PRICES["wru"] + sum(r["rru"] for r in every) * PRICES["rru"]
                + timers * PRICES["scheduler_invocation"] + updates * PRICES["http_api_request"]) / n
        table = {}
        for mb in MEMORIES:
            durations = [predicted_s(r["floor_s"], cpu_s(r), mb) for r in every]
            x86 = sum(invocation_usd(d, mb) for d in durations) / n
            arm = sum(invocation_usd(d, mb, "arm64") for d in durations) / n
            table[mb] = {"invocations": len(every) / n, "lambda_s": sum(durations) / n,
                         "gb_s": sum(durations) * mb / 1024 / n, "usd_lambda": x86, "usd_lambda_arm64": arm,
                         "usd_rest": rest, "usd_game": x86 + rest,
                         "median_ms": statistics.median(durations) * 1000, "p90_ms": _p(durations, 0.9) * 1000,
                         "max_ms": max(durations) * 1000}
        out[name] = table
    return out


def balanced(table: dict[int, dict[str, float]], weight: float = 0.5) -> int:
    """The memory size AWS Lambda Power Tuning's "balanced" strategy would pick: the least
    ``weight x Lambda cost / the largest + (1 - weight) x duration / the largest`` (weight 1: the
    cheapest, 0: the fastest)."""
    cost = max(v["usd_lambda"] for v in table.values())
    duration = max(v["lambda_s"] for v in table.values())
    return min(table, key=lambda mb: weight * table[mb]["usd_lambda"] / cost
               + (1 - weight) * table[mb]["lambda_s"] / duration)


# ---------------------------------------------------------------------------------------------------
# Tables, in docs/BENCHMARKS.md's format
# ---------------------------------------------------------------------------------------------------


def kind_lines(k: dict[str, dict[str, Any]]) -> list[str]:
    head = " | ".join(f"{mb} MB ({share(mb):.3g} vCPU)" for mb in MEMORIES)
    scaled = " / ".join(str(mb) for mb in MEMORIES)
    lines = [f"| update | count | CPU ms here: median / p90 / max | median CPU ms at {scaled} MB | floor ms |"
             f" measured ms (1 core) | {head} |", "|---|---|---|---|---|---|" + "---|" * len(MEMORIES)]
    for kind, v in k.items():
        cells = " | ".join(f"{v[f'ms_{mb}_median']:.0f} ({v[f'ms_{mb}_p90']:.0f})" for mb in MEMORIES)
        cpus = " / ".join(f"{v[f'cpu_ms_{mb}_median']:.0f}" for mb in MEMORIES)
        lines.append(f"| {kind} | {v['count']} | {v['cpu_ms_median']:.1f} / {v['cpu_ms_p90']:.1f} / {v['cpu_ms_max']:.1f}"
                     f" | {cpus} | {v['floor_ms_median']:.1f} | {v['measured_ms_median']:.1f} | {cells} |")
    lines.append("")
    lines.append("(CPU at a memory size: CPU here / share; predicted duration = floor + CPU / share: median (p90)"
                 " ms per memory size)")
    return lines


def ending_lines(ends: list[dict[str, Any]]) -> list[str]:
    lines = ["| game | ended by | its CPU ms (of which workers) | its floor ms | measured ms | measured / floor |"
             " moto ms | end's first text sent by | arrived ms (1 core) | " + " | ".join(f"text {mb} MB" for mb in MEMORIES)
             + " | picture sent by | its CPU ms | " + " | ".join(f"picture {mb} MB" for mb in MEMORIES) + " |",
             "|---|---|---|---|---|---|---|---|---|" + "---|" * len(MEMORIES) + "---|---|" + "---|" * len(MEMORIES)]
    for e in ends:
        if e["text_sent_ms"] is not None:
            text = f"{e['text_sent_ms'] + e['rtt_ms']:.0f}"
            texts = " | ".join(f"{text_at_ms(e['text_sent_ms'], e['rtt_ms'], e['text_cpu_ms'], mb):.0f}"
                               for mb in MEMORIES)
        else:
            text, texts = "-", " | ".join("-" for _ in MEMORIES)
        pictures = " | ".join(f"{predicted_s(e['picture_floor_ms'], e['picture_cpu_ms'], mb):.0f}"
                              if e["picture_by"] else "-" for mb in MEMORIES)
        lines.append(f"| {e['game']} | {e['kind']} {e['detail']} | {e['cpu_ms']:.1f} ({e['workers_ms']:.1f}) |"
                     f" {e['floor_ms']:.0f} | {e['measured_ms']:.0f} | {e['ratio']:.2f}x | {e['moto_ms']:.0f} |"
                     f" {e['text_by'] or '-'} |"
                     f" {text} | {texts} | {e['picture_by'] or '-'} | {e['picture_cpu_ms']:.1f} | {pictures} |")
    lines.append("")
    lines.append("(ms from the start of the invocation. The end's first text: when its sendMessage reached the Bot"
                 " API + one round trip, on a full core here; at a memory size, at the latest: the CPU spent before"
                 " it was sent (at most the invocation's, at most that time) slowed to the share. Picture: the whole invocation that sent it, floor + CPU /"
                 " share. measured: the wall time less moto's local time beyond its delays (moto ms), which the"
                 " statistics' requests in a worker thread can spend while the sends go on: then measured < floor;"
                 " the text's arrival includes moto's time)")
    return lines


def memory_lines(table: dict[str, dict[int, dict[str, float]]]) -> list[str]:
    lines = ["| game (mean per game) | memory | vCPU | Lambda s | GB-s | median / p90 / max invocation ms |"
             " Lambda $ x86_64 (arm64) | rest $ | game $ | per 1,000 games $ |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, t in table.items():
        for mb, v in t.items():
            lines.append(f"| {name} | {mb} MB | {share(mb):.3g} | {v['lambda_s']:.2f} | {v['gb_s']:.2f} |"
                         f" {v['median_ms']:.0f} / {v['p90_ms']:.0f} / {v['max_ms']:.0f} |"
                         f" {v['usd_lambda']:.6f} ({v['usd_lambda_arm64']:.6f}) | {v['usd_rest']:.6f} |"
                         f" {v['usd_game']:.6f} | {1000 * v['usd_game']:.3f} |")
    lines.append("")
    lines.append("(Lambda $: duration rounded up to the ms x GB x price + $0.20 per million requests; rest:"
                 " DynamoDB, scheduler, HTTP API, the same at every memory size)")
    lines.append("Lambda Power Tuning's choice (balanced, weight 0.5 / cheapest / fastest): " + "; ".join(
        f"{name}: {balanced(t)} / {balanced(t, 1.0)} / {balanced(t, 0.0)} MB" for name, t in table.items()))
    return lines


def summarise(rows: list[dict[str, Any]], rtt_ms: float) -> dict[str, Any]:
    return {"kinds": kinds(rows), "endings": endings(rows, rtt_ms / 1000), "memory": memory_table(rows),
            "rows": len(rows)}


def report(result: dict[str, Any]) -> str:
    lines = [f"{result['rows']} updates and timers; Bot API round trip {result['rtt_ms']:g} ms;"
             f" CPU share at 1 core here = 1 vCPU (1,769 MB)", "", "CPU per update type, scaled:",
             *kind_lines(result["kinds"]), "", "The end of each game:", *ending_lines(result["endings"]), "",
             "Memory sizes, a whole game:", *memory_lines(result["memory"])]
    if result.get("max_rss_mb"):
        lines += ["", f"Peak resident memory of the bench's process (the handler, the fake Bot API, the bench):"
                      f" {result['max_rss_mb']:.0f} MB"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--rows", help="bench_webhook's rows (--rows FILE); without it the games are played here")
    ap.add_argument("--quick", action="store_true", help="one 5-player game, 10 ms / 1 ms / 1 ms (CI)")
    ap.add_argument("--rtt-ms", type=float, help="Bot API round trip of the rows (default 80; 10 with --quick)")
    ap.add_argument("--dynamo-ms", type=float, help="DynamoDB delay when playing (default 5; 1 with --quick)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    rtt = args.rtt_ms if args.rtt_ms is not None else (10.0 if args.quick else 80.0)
    rss = 0.0
    if args.rows:
        rows = json.loads(Path(args.rows).read_text())
    else:
        import tempfile

        import bench_webhook

        dyn = args.dynamo_ms if args.dynamo_ms is not None else (1.0 if args.quick else 5.0)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "rows.json"
            bench_webhook.run(args.quick, rtt, dyn, dyn, None, str(path))
            rows = json.loads(path.read_text())
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {**summarise(rows, rtt), "rtt_ms": rtt, "max_rss_mb": rss}
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    main()
