"""CPU per DynamoDB request: boto3's client against ours (``gamebot.aws.client``), side by side in one run.

    .venv/bin/python scripts/bench_aws_client.py            # 400 rounds of each request, both servers
    .venv/bin/python scripts/bench_aws_client.py --quick    # 60 rounds
    .venv/bin/python scripts/bench_aws_client.py --json out.json

Both clients send the requests the bot sends on a vote: a strongly consistent GetItem of a group's
session and its version-checked PutItem (a compressed body of about 1.5 KB, as ``DynamoRepository``
writes it), to moto on 127.0.0.1 in a process of its own (its CPU is not ours). Each call is timed with
``time.thread_time()`` (the calling thread's CPU: user and system, the loopback's kernel work
included); rounds alternate between the clients so that both see the same machine. Two servers:

* **moto as it serves**: its server (werkzeug) closes the connection after every answer, so each
  request of either client opens a new TCP connection;
* **kept alive**: moto's application behind a small HTTP/1.1 server that keeps connections open, as
  DynamoDB does; both clients then reuse theirs (boto3's pool, our connection per thread). This is the
  case of a warm Lambda.

Also measured in fresh interpreters (median of 5 alternating runs): ``import boto3`` and a DynamoDB
client against ``import gamebot.aws.client`` and ours. A benchmark, not a test: medians and their ratio.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared")]

TABLE = "bench-client"
KEYS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_SESSION_TOKEN": "bench-token",
        "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1"}


# -- the servers (child processes) ------------------------------------------------------------------


def serve_moto() -> None:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    print(server.get_host_and_port()[1], flush=True)
    sys.stdin.read()  # until the parent closes our stdin


def serve_kept_alive() -> None:
    """moto's WSGI application behind an HTTP/1.1 server that keeps connections open."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import unquote

    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    app = DomainDispatcherApplication(create_backend_app)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            path, _, query = self.path.partition("?")
            environ = {
                "REQUEST_METHOD": self.command, "PATH_INFO": unquote(path), "QUERY_STRING": query,
                "RAW_URI": self.path, "SERVER_NAME": "127.0.0.1", "SERVER_PORT": str(self.server.server_address[1]),
                "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_LENGTH": str(length),
                "CONTENT_TYPE": self.headers.get("Content-Type", ""), "wsgi.input": io.BytesIO(body),
                "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http", "wsgi.version": (1, 0),
                "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
                **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in self.headers.items()},
            }
            started: dict[str, Any] = {}

            def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
                started.update(status=status, headers=headers)

            data = b"".join(app(environ, start_response))
            head = [f"HTTP/1.1 {started['status']}", f"Content-Length: {len(data)}"]
            head += [f"{name}: {value}" for name, value in started["headers"]
                     if name.lower() not in ("content-length", "connection", "transfer-encoding")]
            self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)  # one write: one packet

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()


def start_server(kind: str) -> tuple[subprocess.Popen, str]:
    child = subprocess.Popen([sys.executable, __file__, "--serve", kind], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    port = int(child.stdout.readline())
    return child, f"http://127.0.0.1:{port}"


# -- measuring --------------------------------------------------------------------------------------


def requests() -> dict[str, dict[str, Any]]:
    """A vote's two requests, as DynamoRepository makes them (a group's session, compressed)."""
    body = json.dumps({"log": [[i % 10, "vote", {"approve": i % 3 != 0}] for i in range(600)],
                       "names": {str(i): f"Player {i}" for i in range(10)}}, separators=(",", ":")).encode()
    item = {"pk": {"S": "chat#-1001234567890"}, "version": {"N": "42"}, "body": {"B": zlib.compress(body)},
            "expires_at": {"N": "1900000000"}}
    return {
        "GetItem": {"TableName": TABLE, "Key": {"pk": item["pk"]}, "ConsistentRead": True},
        "PutItem": {"TableName": TABLE, "Item": item,
                    "ConditionExpression": "attribute_not_exists(pk) OR version = :expected",
                    "ExpressionAttributeValues": {":expected": {"N": "42"}}},
    }


def measure(endpoint: str, rounds: int) -> dict[str, Any]:
    import boto3
    from botocore.config import Config

    from gamebot.aws.client import DynamoDB

    os.environ.update(KEYS)
    boto = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        config=Config(retries={"mode": "standard", "max_attempts": 4}))
    boto.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    clients = {"boto3": boto, "ours": DynamoDB(endpoint=endpoint)}
    calls = {name: {"GetItem": client.get_item, "PutItem": client.put_item} for name, client in clients.items()}
    params = requests()
    cpu: dict[str, dict[str, list[float]]] = {n: {op: [] for op in params} for n in clients}
    for i in range(rounds + 20):  # the first 20 rounds warm up (connections, caches)
        for name in (("boto3", "ours") if i % 2 else ("ours", "boto3")):
            for op in ("PutItem", "GetItem"):
                started = time.thread_time()
                calls[name][op](**params[op])
                spent = time.thread_time() - started
                if i >= 20:
                    cpu[name][op].append(spent)
    out: dict[str, Any] = {}
    for op in params:
        b, o = statistics.median(cpu["boto3"][op]), statistics.median(cpu["ours"][op])
        out[op] = {"boto3_ms": b * 1000, "ours_ms": o * 1000, "ratio": b / o,
                   "boto3_mean_ms": statistics.fmean(cpu["boto3"][op]) * 1000,
                   "ours_mean_ms": statistics.fmean(cpu["ours"][op]) * 1000}
    return out


IMPORTS = {
    "boto3": "import boto3\nboto3.client('dynamodb', region_name='us-east-1')",
    "ours": "import gamebot.aws.client\ngamebot.aws.client.DynamoDB(region_name='us-east-1')",
    "http.client": "import http.client",  # (of ours: the functions load it anyway, through httpx)
}


def imports(runs: int = 5) -> dict[str, float]:
    """Milliseconds to import and build each client in a fresh interpreter (medians)."""
    times: dict[str, list[float]] = {name: [] for name in IMPORTS}
    env = {**os.environ, **KEYS, "PYTHONPATH": str(ROOT / "shared")}
    for _ in range(runs):
        for name, code in IMPORTS.items():
            timed = f"import time\nt0 = time.perf_counter()\n{code}\nprint(time.perf_counter() - t0)"
            out = subprocess.run([sys.executable, "-c", timed], env=env, capture_output=True, text=True, check=True)
            times[name].append(float(out.stdout.strip()) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def run(rounds: int) -> dict[str, Any]:
    result: dict[str, Any] = {"rounds": rounds}
    for kind, label in (("moto", "moto as it serves (a new connection per request)"),
                        ("kept-alive", "kept alive (connections reused, as with DynamoDB)")):
        child, endpoint = start_server(kind)
        try:
            result[kind] = {"label": label, **measure(endpoint, rounds)}
        finally:
            child.stdin.close()
            child.wait(timeout=10)
    result["import_and_client_ms"] = imports()
    return result


def report(r: dict[str, Any]) -> str:
    lines = [f"CPU per request (time.thread_time), median of {r['rounds']} of each, moto on 127.0.0.1:", "",
             "| server | request | boto3 ms | ours ms | boto3 / ours |", "|---|---|---|---|---|"]
    for kind in ("moto", "kept-alive"):
        for op in ("GetItem", "PutItem"):
            m = r[kind][op]
            lines.append(f"| {r[kind]['label']} | {op} | {m['boto3_ms']:.3f} | {m['ours_ms']:.3f} | "
                         f"**{m['ratio']:.1f}x** |")
    imp = r["import_and_client_ms"]
    lines += ["", f"import + client in a fresh interpreter: boto3 {imp['boto3']:.0f} ms, ours {imp['ours']:.1f} ms"
              f" (of which http.client {imp['http.client']:.1f} ms: the functions import it anyway, through httpx)"]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--quick", action="store_true", help="60 rounds")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--serve", choices=["moto", "kept-alive"], help=argparse.SUPPRESS)  # (the server child)
    args = ap.parse_args()
    if args.serve:
        serve_moto() if args.serve == "moto" else serve_kept_alive()
        return
    result = run(60 if args.quick else args.rounds)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
