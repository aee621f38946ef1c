"""Benchmark the webhook against its floor: warm time per update, calls per update type, and the AWS cost
of a game from the measured units.

    .venv/bin/python scripts/bench_webhook.py            # 3 games: 10 players base + Lady, 10 players every module
    .venv/bin/python scripts/bench_webhook.py --quick    # one 7-player game
    .venv/bin/python scripts/bench_webhook.py --json out.json

Whole games are played through ``lambda_handler`` (secret check, JSON, Service.handle) against a moto
DynamoDB *server* and the fake Bot API, both on 127.0.0.1. Every DynamoDB request and Bot API call of
each update is recorded. Right after each update the **floor** makes exactly the same DynamoDB requests
(boto3, same moto server, a second table) and the same Bot API calls (httpx, a second fake Bot API
server, so the chats evolve identically) with no logic in between: the ratio handler/floor is what our
code (Telegram objects, pydantic, the engine, rendering) costs on top of the I/O it cannot avoid.

This is a benchmark, not a test: it asserts nothing about speed. Times are medians of per-update times
measured side by side in the same run; absolute numbers depend on the machine.
"""
from __future__ import annotations

import argparse
import asyncio
import copy
import json
import math
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

TOKEN = "123456:BENCH-token"
SECRET = "bench-webhook-secret-0123456789abcdef"
TABLE, FLOOR_TABLE = "bench-game", "bench-floor"
MEMORY_GB = 0.5  # template.yaml MemorySize: 512

# us-east-1 list prices (USD), 2025: Lambda x86 per GB-s and per request, HTTP API per request,
# DynamoDB on-demand per write / read request unit.
PRICES = {"lambda_gb_s": 0.0000166667, "lambda_request": 0.20 / 1e6, "http_api_request": 1.00 / 1e6,
          "wru": 0.625 / 1e6, "rru": 0.125 / 1e6}


# ---------------------------------------------------------------------------------------------------
# DynamoDB request units from item sizes (DynamoDB's rules: names + values, 1 KB per WRU, 4 KB per
# strongly consistent RRU, transactions twice, a put is charged for the larger of old and new item)
# ---------------------------------------------------------------------------------------------------


def attr_size(value: dict[str, Any]) -> int:
    kind, v = next(iter(value.items()))
    if kind == "S":
        return len(v.encode())
    if kind == "N":
        return (len(v.strip("-").replace(".", "")) + 1) // 2 + 1
    if kind == "B":
        return len(v)
    if kind == "BOOL" or kind == "NULL":
        return 1
    return len(json.dumps(v))


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + attr_size(value) for name, value in item.items())


class DynamoRecorder:
    """Records every request a boto3 DynamoDB client makes, with the request units it consumes."""

    def __init__(self, client: Any) -> None:
        self.ops: list[tuple[str, dict[str, Any]]] = []
        self.sizes: dict[str, int] = {}  # key -> stored item size
        self.rru = self.wru = 0
        client.meta.events.register("provide-client-params.dynamodb.*", self._params)
        client.meta.events.register("after-call.dynamodb.*", self._after)

    def _params(self, params: dict[str, Any], model: Any, **kwargs: Any) -> None:
        self.ops.append((model.name, copy.deepcopy(params)))

    def _after(self, http_response: Any, parsed: dict[str, Any], model: Any, **kwargs: Any) -> None:
        name, params = self.ops[-1]
        if name == "GetItem":
            size = item_size(parsed.get("Item") or {})
            self.rru += max(1, math.ceil(size / 4096))
        elif name == "TransactGetItems":  # twice a strongly consistent read, for every item asked for
            for response in parsed.get("Responses") or []:
                self.rru += 2 * max(1, math.ceil(item_size(response.get("Item") or {}) / 4096))
        elif name == "PutItem":
            self.wru += self._put(params["Item"])
        elif name == "TransactWriteItems":
            for op in params["TransactItems"]:
                if "Put" in op:
                    self.wru += 2 * self._put(op["Put"]["Item"])
                else:
                    self.wru += 2
        elif name == "DeleteItem":
            self.wru += max(1, math.ceil(self.sizes.pop(params["Key"]["pk"]["S"], 0) / 1024))

    def _put(self, item: dict[str, Any]) -> int:
        key = item["pk"]["S"]
        new = item_size(item)
        units = max(1, math.ceil(max(new, self.sizes.get(key, 0)) / 1024))
        self.sizes[key] = new
        return units


# ---------------------------------------------------------------------------------------------------
# The floor: the same requests, nothing else
# ---------------------------------------------------------------------------------------------------


class Floor:
    def __init__(self, endpoint: str, fake_url: str) -> None:
        import boto3
        import httpx

        self.dynamo = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                                   aws_access_key_id="bench", aws_secret_access_key="bench")
        self.loop = asyncio.new_event_loop()
        self.http = httpx.AsyncClient(base_url=f"{fake_url}/bot{TOKEN}/", timeout=10)

    def run(self, ops: list[tuple[str, dict[str, Any]]], calls: list[tuple[str, dict[str, Any]]]) -> float:
        started = time.perf_counter()
        for name, params in ops:
            params = _retarget(params)
            getattr(self.dynamo, _snake(name))(**params)
        self.loop.run_until_complete(self._bot(calls))
        return time.perf_counter() - started

    async def _bot(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        for method, params in calls:
            await self.http.post(method, json=params)

    def close(self) -> None:
        self.loop.run_until_complete(self.http.aclose())
        self.loop.close()


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def _retarget(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (FLOOR_TABLE if k == "TableName" else _retarget(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_retarget(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------------------------------


def update_kind(update: dict[str, Any]) -> str:
    from gamebot.session import kind_tag

    if "callback_query" in update:
        data = update["callback_query"].get("data", "")
        scope, _, _, _, op, _ = (data.split(":") + [""] * 6)[:6]
        if scope == "V":
            return "vote"
        if scope == "P":
            return "quest card" if op[:2] == kind_tag("play") else "private decision"
        if scope == "T":
            return "team: propose" if op == "c" else "team: pick"
        if scope == "L":
            return {"j": "lobby: join", "g": "start game", "s": "lobby: settings"}.get(op, "lobby")
        return "settings panel"
    text = (update.get("message") or {}).get("text", "")
    return text.split()[0] if text.startswith("/") else "other"


class Bench:
    """Plays games through lambda_handler, timing each update and running its floor right after."""

    def __init__(self, fake: Any, floor_fake: Any, endpoint: str) -> None:
        import app

        from gamebot import dynamo

        self.app = app
        self.fake = fake
        self.floor_fake = floor_fake
        self.floor = Floor(endpoint, floor_fake.base_url)
        self.recorder = DynamoRecorder(dynamo.default_client())
        self.rows: list[dict[str, Any]] = []

    def post(self, update: dict[str, Any]) -> int:
        from localdev import updates as U

        event = U.webhook_event(update, SECRET)
        ops_before, calls_before = len(self.recorder.ops), len(self.fake.calls)
        rru, wru = self.recorder.rru, self.recorder.wru
        started = time.perf_counter()
        status = self.app.lambda_handler(event, None)["statusCode"]
        handler = time.perf_counter() - started
        ops = self.recorder.ops[ops_before:]
        calls = [(c.method, c.params) for c in self.fake.calls[calls_before:]]
        floor = self.floor.run(ops, calls)
        self.rows.append({
            "kind": update_kind(update), "handler_s": handler, "floor_s": floor, "status": status,
            "reads": sum(1 for name, _ in ops if name in ("GetItem", "TransactGetItems")),
            "writes": sum(1 for name, _ in ops if name in ("PutItem", "TransactWriteItems", "DeleteItem")),
            "transactions": sum(1 for name, _ in ops if name == "TransactWriteItems"),
            "bot_calls": len(calls), "rru": self.recorder.rru - rru, "wru": self.recorder.wru - wru,
        })
        return status


def play(bench: Bench, name: str, n: int, theme: str, roles: list[str], options: dict[str, Any], seed: int,
         group: int) -> list[dict[str, Any]]:
    from gamebot.dynamo import DynamoRepository
    from localdev import updates as U
    from localdev.autoplay import Policy, WebhookTable
    from tests.reliability.support import RobustDriver, set_settings

    table = WebhookTable(bench.fake, SECRET, group=group)
    table.post = bench.post
    start = len(bench.rows)
    players = list(range(100 * seed + 1, 100 * seed + n + 1))
    bench.fake.add_group(group, table.title)
    for uid in players:
        bench.fake.start_private(U.user(uid))
        bench.floor_fake.start_private(U.user(uid))
        table.post(U.start(U.user(uid)))
    table.command(players[0], "/newgame")
    for uid in players[1:]:
        table.press_label(uid, group, "Join")
    for table_name in (TABLE, FLOOR_TABLE):  # (set-up, not measured: the host's settings panel would do it)
        set_settings(DynamoRepository(table_name, client=bench.floor.dynamo), group, theme, roles, options)
    table.press_label(players[0], group, "Start")
    RobustDriver(table, group, players, Policy(rng=random.Random(seed)),
                 status=lambda u, c: table.command(u, "/status", chat=c)).play()
    rows = bench.rows[start:]
    for row in rows:
        row["game"], row["group"] = name, group
    return rows


GAMES = {
    "10p base roles + Lady": (10, "avalon", ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"],
                              {"lady_of_the_lake": True}),
    "10p every module": (10, "avalon", ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"],
                         {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True,
                          "targeting": True}),
    "7p classic": (7, "avalon", ["merlin", "assassin"], {}),
}


def run(quick: bool) -> dict[str, Any]:
    from moto.server import ThreadedMotoServer

    from localdev.fake_telegram import FakeTelegram
    from localdev.updates import BOT_USERNAME

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with FakeTelegram(token=TOKEN) as fake, FakeTelegram(token=TOKEN) as floor_fake:
        os.environ.update({
            "TABLE_NAME": TABLE, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_BASE_URL": fake.base_url, "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
            "AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1",
        })
        from gamebot import dynamo
        from gamebot.tables import create_table_from_template

        dynamo.reset_default_client()
        for name in (TABLE, FLOOR_TABLE):
            create_table_from_template(dynamo.default_client(), name, str(ROOT / "template.yaml"))
        bench = Bench(fake, floor_fake, endpoint)
        logging.getLogger("gamebot").setLevel(logging.WARNING)
        bench.app.service()  # warm: the first update of a container is a cold start, measured elsewhere
        rows: list[dict[str, Any]] = []
        plan = [("7p classic", 1)] if quick else [("10p base roles + Lady", 1), ("10p every module", 2),
                                                   ("10p every module", 3)]
        for i, (name, seed) in enumerate(plan):
            n, theme, roles, options = GAMES[name]
            rows += play(bench, name, n, theme, roles, options, seed, group=-1007000000000 - i)
        bench.floor.close()
    server.stop()
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    handler = [r["handler_s"] for r in rows]
    floor = [r["floor_s"] for r in rows]
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    kinds = {}
    for kind, rs in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        kinds[kind] = {
            "count": len(rs),
            "reads_max": max(r["reads"] for r in rs), "writes_max": max(r["writes"] for r in rs),
            "reads_mean": statistics.fmean(r["reads"] for r in rs),
            "writes_mean": statistics.fmean(r["writes"] for r in rs),
            "transactions": sum(r["transactions"] for r in rs),
            "bot_calls_mean": statistics.fmean(r["bot_calls"] for r in rs),
            "rru_mean": statistics.fmean(r["rru"] for r in rs), "wru_mean": statistics.fmean(r["wru"] for r in rs),
            "bot_calls_max": max(r["bot_calls"] for r in rs),
            "handler_ms_median": statistics.median(r["handler_s"] for r in rs) * 1000,
            "floor_ms_median": statistics.median(r["floor_s"] for r in rs) * 1000,
        }
    games: dict[str, dict[str, Any]] = {}
    for name, group in dict.fromkeys((r["game"], r["group"]) for r in rows):
        rs = [r for r in rows if r["group"] == group]
        games.setdefault(name, {"games": 0, "updates": 0, "handler_s": 0.0, "floor_s": 0.0, "rru": 0, "wru": 0,
                                "bot_calls": 0, "dynamo_calls": 0})
        g = games[name]
        g["games"] += 1
        g["updates"] += len(rs)
        g["handler_s"] += sum(r["handler_s"] for r in rs)
        g["floor_s"] += sum(r["floor_s"] for r in rs)
        g["rru"] += sum(r["rru"] for r in rs)
        g["wru"] += sum(r["wru"] for r in rs)
        g["bot_calls"] += sum(r["bot_calls"] for r in rs)
        g["dynamo_calls"] += sum(r["reads"] + r["writes"] for r in rs)
    return {
        "updates": len(rows),
        "errors": sum(1 for r in rows if r["status"] != 200),
        "handler_ms_median": statistics.median(handler) * 1000,
        "floor_ms_median": statistics.median(floor) * 1000,
        "ratio_median": statistics.median(handler) / statistics.median(floor),
        "ratio_total": sum(handler) / sum(floor),
        "kinds": kinds,
        "games": {name: cost(g) for name, g in games.items()},
    }


def cost(g: dict[str, Any], bot_api_ms: float = 80.0, dynamo_ms: float = 6.0) -> dict[str, Any]:
    """Per game. Lambda time in AWS = our compute (handler - floor, measured) + the latency of every
    remote call (assumed: Bot API ``bot_api_ms`` from us-east-1, DynamoDB ``dynamo_ms``)."""
    per = {k: g[k] / g["games"] for k in ("updates", "handler_s", "floor_s", "rru", "wru", "bot_calls", "dynamo_calls")}
    compute_s = max(per["handler_s"] - per["floor_s"], 0.0)
    lambda_s = compute_s + per["bot_calls"] * bot_api_ms / 1000 + per["dynamo_calls"] * dynamo_ms / 1000
    parts = {
        "lambda_duration": MEMORY_GB * lambda_s * PRICES["lambda_gb_s"],
        "lambda_requests": per["updates"] * PRICES["lambda_request"],
        "http_api": per["updates"] * PRICES["http_api_request"],
        "dynamodb_writes": per["wru"] * PRICES["wru"],
        "dynamodb_reads": per["rru"] * PRICES["rru"],
    }
    return {**per, "games": g["games"], "compute_s": compute_s, "lambda_s": lambda_s, "gb_s": MEMORY_GB * lambda_s,
            "bot_api_ms": bot_api_ms, "dynamo_ms": dynamo_ms, "usd": parts, "usd_total": sum(parts.values())}


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{result['updates']} updates ({result['errors']} not 200). Warm time per update, median: "
        f"handler {result['handler_ms_median']:.2f} ms, floor {result['floor_ms_median']:.2f} ms, "
        f"ratio {result['ratio_median']:.2f}x (total time ratio {result['ratio_total']:.2f}x)",
        "",
        f"{'update':18} {'count':>5} {'reads':>9} {'writes':>9} {'tx':>3} {'RRU':>5} {'WRU':>5} {'Bot API':>9} "
        f"{'handler ms':>10} {'floor ms':>9} {'ratio':>6}",
    ]
    for kind, k in result["kinds"].items():
        lines.append(
            f"{kind:18} {k['count']:5} {k['reads_mean']:5.2f}/{k['reads_max']:<3} {k['writes_mean']:5.2f}/{k['writes_max']:<3}"
            f" {k['transactions']:3} {k['rru_mean']:5.1f} {k['wru_mean']:5.1f}"
            f" {k['bot_calls_mean']:5.2f}/{k['bot_calls_max']:<3} {k['handler_ms_median']:10.2f}"
            f" {k['floor_ms_median']:9.2f} {k['handler_ms_median'] / k['floor_ms_median']:6.2f}"
        )
    lines.append("(reads, writes, Bot API calls: mean/max per update; tx: TransactWriteItems in total;"
                 " RRU/WRU: mean request units per update)")
    for name, g in result["games"].items():
        usd = g["usd"]
        lines += [
            "",
            f"Cost of one game, {name} (mean of {g['games']}): {g['updates']:.0f} updates, {g['dynamo_calls']:.0f} DynamoDB requests "
            f"({g['rru']:.0f} RRU, {g['wru']:.0f} WRU), {g['bot_calls']:.0f} Bot API calls",
            f"  Lambda time = compute {g['compute_s'] * 1000:.0f} ms + {g['bot_calls']:.0f} x {g['bot_api_ms']:.0f} ms"
            f" + {g['dynamo_calls']:.0f} x {g['dynamo_ms']:.0f} ms = {g['lambda_s']:.2f} s -> {g['gb_s']:.3f} GB-s",
            f"  Lambda {usd['lambda_duration'] + usd['lambda_requests']:.7f} + HTTP API {usd['http_api']:.7f}"
            f" + DynamoDB {usd['dynamodb_writes'] + usd['dynamodb_reads']:.7f} = ${g['usd_total']:.6f}"
            f" (${g['usd_total'] * 1000:.3f} per 1000 games)",
        ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one 7-player game")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    result = run(args.quick)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
