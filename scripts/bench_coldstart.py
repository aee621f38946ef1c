"""Cold start: a fresh interpreter imports the webhook and builds its service, against the bare minimum any
such Lambda pays with boto3 (``import boto3, telegram, pydantic`` and a DynamoDB client).

    .venv/bin/python scripts/bench_coldstart.py              # 15 alternating runs of each
    .venv/bin/python scripts/bench_coldstart.py --quick      # 3 runs of each
    .venv/bin/python scripts/bench_coldstart.py --importtime # also: the handler's slowest imports

All run with ``python -S`` (no site-packages) and the same ``sys.path``: the function directory and the
layer of the SAM build (``.aws-sam/build``, with the checked-hash bytecode ``scripts/check_template``
adds), then boto3 and its dependencies alone (what the Lambda runtime provides), linked from the venv
(the rest of the development venv, e.g. click or pygments that httpx would import, stays out). Without
a SAM build the script assembles an equivalent layer in a temporary directory: the engine, the bot and
the packages of shared/requirements.txt with their dependencies, copied from the venv and compiled the
same way.

"handler" = ``import app``, ``app.service()`` (Bot, HTTP client, DynamoRepository, Service; no getMe: the
username is set as the stack sets it, and without it getMe waits for the first deep link anyway) and the
DynamoDB client: our own (``gamebot.aws.client``), so the handler imports no boto3 although the runtime provides
it (the report says whether boto3 was loaded); the baselines keep boto3 and its client, which is what
the handler saves. Times are measured inside the child
(imports and construction only; the interpreter's own start-up is the same for both) and as wall time
of the whole process. A benchmark, not a test: medians of alternating runs, and their ratio.

"handler, secrets from SSM" is the same handler as deployed: the token and the webhook secret in SSM
Parameter Store, the environment naming the parameters (``gamebot.core.secrets``), so ``app.service()``
also imports botocore, makes an SSM client and makes one ``GetParameters`` call, here to a local server
on 127.0.0.1 that answers it at once (in AWS the round trip to SSM comes on top). "handler" keeps the two
values in its environment (the playground's way, and the stack's before the parameters).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / ".aws-sam" / "build"
SITE = Path(sysconfig.get_paths()["purelib"])
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six")

HANDLER = """
import sys, time
t0 = time.perf_counter()
import app
service = app.service()
service.repo.client
t1 = time.perf_counter()
print("boto3 loaded:", "boto3" in sys.modules or "botocore" in sys.modules)
print(t1 - t0)
"""
BASELINE = """
import time
t0 = time.perf_counter()
import boto3, telegram, pydantic
boto3.client("dynamodb", region_name="us-east-1")
print(time.perf_counter() - t0)
"""
# pydantic 2's ``import pydantic`` is a lazy stub (PEP 562): it loads none of the model machinery, which
# the first ``BaseModel`` subclass does (pydantic.main, the schema generator, annotated_types...). Any
# Lambda that uses pydantic pays that, so the second baseline also defines a one-field model. The
# guide's measured "pydantic 62 ms" is this full import (``from pydantic import BaseModel`` took
# 62 ms here from sources).
BASELINE_MODEL = """
import time
t0 = time.perf_counter()
import boto3, telegram, pydantic
class Model(pydantic.BaseModel):
    x: int
boto3.client("dynamodb", region_name="us-east-1")
print(time.perf_counter() - t0)
"""


def sam_build() -> tuple[Path, Path] | None:
    """The SAM build's layer and function, if there is one and it holds the current sources."""
    layer, function = BUILD / "SharedLayer" / "python", BUILD / "WebhookFunction"
    if not ((layer / "telegram").is_dir() and (function / "app.py").is_file()):
        return None
    pairs = [(ROOT / "functions" / "webhook" / "app.py", function / "app.py")]
    for pkg in ("engine", "gamebot"):
        pairs += [(src, layer / src.relative_to(ROOT / "shared")) for src in (ROOT / "shared" / pkg).rglob("*.py")]
    if any(not built.is_file() or built.read_bytes() != src.read_bytes() for src, built in pairs):
        return None  # stale: run scripts/check_template again (or use the assembled layer)
    return layer, function


def assemble(tmp: Path) -> tuple[Path, Path]:
    """A layer like the SAM build's, from the sources and the venv, with checked-hash bytecode."""
    layer, function = tmp / "layer", tmp / "function"
    layer.mkdir()
    function.mkdir()
    shutil.copy(ROOT / "functions" / "webhook" / "app.py", function / "app.py")
    for pkg in ("engine", "gamebot"):
        shutil.copytree(ROOT / "shared" / pkg, layer / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    # the runtime requirements and their dependencies, as `sam build` would pip-install them
    for name in top_level_modules(dependency_closure(requirements())):
        src = SITE / name
        if src.is_dir():
            shutil.copytree(src, layer / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.with_suffix(".py").is_file():
            shutil.copy(src.with_suffix(".py"), layer / f"{name}.py")
    for path in (layer, function):
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "checked-hash",
                        str(path)], check=True, stdout=subprocess.DEVNULL)
    return layer, function


def runtime(tmp: Path) -> Path:
    """What the Lambda Python runtime provides besides the standard library: boto3 and its dependencies
    (links into the venv; nothing else of the development venv is visible)."""
    out = tmp / "runtime"
    out.mkdir()
    for name in RUNTIME_PROVIDED:
        for src in (SITE / name, SITE / f"{name}.py"):
            if src.exists():
                (out / src.name).symlink_to(src)
    return out


def requirements() -> list[str]:
    lines = (ROOT / "shared" / "requirements.txt").read_text().splitlines()
    return [re.match(r"[A-Za-z0-9_.-]+", x).group(0) for x in lines if x.strip() and not x.startswith("#")]


def dependency_closure(names: list[str]) -> list[Any]:
    """The distributions ``names`` need (no extras), found in the venv."""
    found: dict[str, Any] = {}
    todo = list(names)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in found:
            continue
        try:
            found[name] = dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # only required under another Python version (a marker): not installed here
        for req in dist.requires or []:
            if "extra ==" not in req:
                todo.append(re.match(r"[A-Za-z0-9_.-]+", req).group(0))
    return list(found.values())


def top_level_modules(dists: list[Any]) -> set[str]:
    names = set()
    for dist in dists:
        for f in dist.files or []:
            top = f.parts[0]
            if not top.endswith((".dist-info", ".pth")) and top not in ("..", "__pycache__", "bin"):
                names.add(top[:-3] if top.endswith(".py") else top)
    return names


TOKEN, SECRET = "123456:COLD-start", "x" * 32
PARAMETERS = {"/avalon-bot/telegram-bot-token": TOKEN, "/avalon-bot/webhook-secret": SECRET}


def child_env(path: list[Path], ssm: str | None = None) -> dict[str, str]:
    """The function's environment: the two secrets themselves, or (``ssm``: that SSM endpoint) the names of
    the parameters holding them, as template.yaml sets them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "AWS_", "TELEGRAM_", "SECRETS_"))}
    env.update({
        "PYTHONPATH": os.pathsep.join(str(p) for p in path), "TABLE_NAME": "games",
        "TELEGRAM_BOT_USERNAME": "ColdStartBot", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9",
        "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "cold", "AWS_SECRET_ACCESS_KEY": "cold",
    })
    if ssm is None:
        env.update({"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": SECRET})
    else:
        token_name, secret_name = PARAMETERS
        env.update({"TELEGRAM_BOT_TOKEN_PARAMETER": token_name, "TELEGRAM_WEBHOOK_SECRET_PARAMETER": secret_name,
                    "SECRETS_VERSION": "1", "AWS_ENDPOINT_URL_SSM": ssm})
    return env


class LocalSsm:
    """SSM's GetParameters on 127.0.0.1, answered at once with ``PARAMETERS`` (JSON 1.1, as SSM answers)."""

    def __enter__(self) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))["Names"]
                body = json.dumps({"Parameters": [
                    {"Name": n, "Type": "SecureString", "Value": PARAMETERS[n], "Version": 1} for n in asked],
                    "InvalidParameters": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-amz-json-1.1")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def once(code: str, path: list[Path], extra: list[str] = (), ssm: str | None = None) -> tuple[float, float, str, str]:
    """(seconds inside the child, wall seconds of the whole process, stderr, stdout)."""
    # -S: no site-packages; PYTHONPATH is honoured (-E would drop it), so the path is exactly ``path``.
    argv = [sys.executable, "-S", *extra, "-c", code]
    started = time.perf_counter()
    out = subprocess.run(argv, env=child_env(path, ssm), capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    return float(out.stdout.strip().splitlines()[-1]), wall, out.stderr, out.stdout


def slowest_imports(path: list[Path], top: int = 12) -> list[tuple[int, str]]:
    """The handler's top-level imports by cumulative time (``python -X importtime``)."""
    _, _, err, _ = once(HANDLER, path, ["-X", "importtime"])
    rows = []
    for line in err.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line[len("import time:"):].split("|")
            if cumulative.strip().isdigit() and not name[1:].startswith(" "):
                rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def run(runs: int, importtime: bool) -> dict[str, Any]:
    built = sam_build()
    with tempfile.TemporaryDirectory() as tmp, LocalSsm() as ssm:
        layer, function = built or assemble(Path(tmp))
        path = [function, layer, runtime(Path(tmp))]
        boto3_loaded = "boto3 loaded: True" in once(HANDLER, path)[3]  # (also warms the OS file cache for all,
        # like a Lambda host that has the image)
        ssm_loads_boto3 = "boto3 loaded: True" in once(HANDLER, path, ssm=ssm)[3]
        once(BASELINE, path)
        once(BASELINE_MODEL, path)
        handler, baseline, handler_wall, baseline_wall, model, model_wall = [], [], [], [], [], []
        with_ssm, with_ssm_wall = [], []
        for _ in range(runs):
            t, w = once(HANDLER, path)[:2]
            handler.append(t)
            handler_wall.append(w)
            t, w = once(HANDLER, path, ssm=ssm)[:2]
            with_ssm.append(t)
            with_ssm_wall.append(w)
            t, w = once(BASELINE, path)[:2]
            baseline.append(t)
            baseline_wall.append(w)
            t, w = once(BASELINE_MODEL, path)[:2]
            model.append(t)
            model_wall.append(w)
        result = {
            "layer": "sam build (.aws-sam/build)" if built else "assembled from the venv (no up-to-date SAM build)",
            "runs": runs,
            "handler_loads_boto3": boto3_loaded,
            "handler_ms": statistics.median(handler) * 1000,
            "baseline_ms": statistics.median(baseline) * 1000,
            "ratio": statistics.median(handler) / statistics.median(baseline),
            "handler_wall_ms": statistics.median(handler_wall) * 1000,
            "baseline_wall_ms": statistics.median(baseline_wall) * 1000,
            "ratio_wall": statistics.median(handler_wall) / statistics.median(baseline_wall),
            "baseline_model_ms": statistics.median(model) * 1000,
            "ratio_model": statistics.median(handler) / statistics.median(model),
            "ratio_model_wall": statistics.median(handler_wall) / statistics.median(model_wall),
            "ssm_loads_boto3": ssm_loads_boto3,
            "handler_ssm_ms": statistics.median(with_ssm) * 1000,
            "handler_ssm_wall_ms": statistics.median(with_ssm_wall) * 1000,
            "ssm_extra_ms": (statistics.median(with_ssm) - statistics.median(handler)) * 1000,
            "ssm_extra_wall_ms": (statistics.median(with_ssm_wall) - statistics.median(handler_wall)) * 1000,
        }
        if importtime:
            result["slowest_imports_us"] = slowest_imports(path)
    return result


def report(r: dict[str, Any]) -> str:
    lines = [
        f"Layer: {r['layer']}; {r['runs']} alternating runs of each, medians.",
        f"the handler loads boto3: {'yes' if r['handler_loads_boto3'] else 'no'}",
        f"import + build, inside the process: handler {r['handler_ms']:.0f} ms, baseline {r['baseline_ms']:.0f} ms,"
        f" ratio {r['ratio']:.2f}x",
        f"whole process (python -S start-up included): handler {r['handler_wall_ms']:.0f} ms,"
        f" baseline {r['baseline_wall_ms']:.0f} ms, ratio {r['ratio_wall']:.2f}x",
        f"against the baseline that uses pydantic (a one-field model): {r['baseline_model_ms']:.0f} ms,"
        f" ratio {r['ratio_model']:.2f}x (whole process {r['ratio_model_wall']:.2f}x)",
        f"the token and the secret from SSM Parameter Store (botocore loaded: {'yes' if r['ssm_loads_boto3'] else 'no'};"
        f" one GetParameters to a local server): handler {r['handler_ssm_ms']:.0f} ms,"
        f" +{r['ssm_extra_ms']:.0f} ms over the secrets in the environment"
        f" (whole process {r['handler_ssm_wall_ms']:.0f} ms, +{r['ssm_extra_wall_ms']:.0f} ms)",
    ]
    if "slowest_imports_us" in r:
        lines.append("Handler's slowest top-level imports (cumulative µs, python -X importtime):")
        lines += [f"  {us:8d}  {name}" for us, name in r["slowest_imports_us"]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="3 runs of each")
    ap.add_argument("--importtime", action="store_true", help="list the handler's slowest imports")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    result = run(3 if args.quick else args.runs, args.importtime)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
