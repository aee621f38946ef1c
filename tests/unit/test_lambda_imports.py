"""The webhook and timer functions never import boto3 or botocore: not to import the handler, not to
build the service and its AWS clients (the wake-up queue's included: boto3's client is made on the first
wake-up it sends), not to answer an update that wakes no chat (its DynamoDB requests go to a scripted
server on 127.0.0.1). ``import boto3`` and a client cost about 300 ms of a cold start. Nor do they load
Pillow, openskill or Babel before a picture is drawn, a game's end is counted or a plural is shown."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.aws_fakes import ScriptedServer

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import json, os, sys
sys.path[:0] = [sys.argv[1], sys.argv[2], sys.argv[3]]
import app
svc = app.service()
svc.repo.client  # the DynamoDB client
from gamebot.timing.scheduler import EventBridgeScheduler
EventBridgeScheduler("arn:t", "arn:r", "g").client  # the EventBridge Scheduler client
from localdev import updates as U
event = U.webhook_event(U.command(U.group(-5), U.user(1), "/help"), os.environ["TELEGRAM_WEBHOOK_SECRET"])
status = app.lambda_handler(event, None)["statusCode"]
import importlib.util
spec = importlib.util.spec_from_file_location("timer_app", sys.argv[4])
timer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(timer)
timer.service("arn:aws:lambda:us-east-1:1:function:t")
from gamebot.timing.wakeup import QueueScheduler
assert isinstance(app.service().deps.scheduler, QueueScheduler)  # (the queue is configured, not yet used)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "botocore", "s3transfer"))
lazy = sorted(m for m in sys.modules if m.split(".")[0] in ("openskill", "PIL", "babel"))
print(json.dumps({"status": status, "loaded": loaded, "lazy": lazy}))
"""


def test_the_functions_never_import_boto3_or_botocore():
    with ScriptedServer() as server:  # every DynamoDB request answered 200 {}
        env = {
            "PATH": "/usr/bin:/bin", "TABLE_NAME": "games", "TELEGRAM_BOT_TOKEN": "123:imports",
            "TELEGRAM_WEBHOOK_SECRET": "s" * 32, "TELEGRAM_BOT_USERNAME": "ImportsBot",
            "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9", "AWS_ENDPOINT_URL": server.url,
            "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_REGION": "us-east-1",
            "TIMER_FUNCTION_ARN": "arn:aws:lambda:us-east-1:1:function:t",
            "SCHEDULER_ROLE_ARN": "arn:aws:iam::1:role/r", "SCHEDULE_GROUP": "g",
            "WAKE_QUEUE_URL": "http://127.0.0.1:9/1/wake",
        }
        result = subprocess.run(
            [sys.executable, "-c", CODE, str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT),
             str(ROOT / "functions" / "timer" / "app.py")],
            capture_output=True, text=True, check=False, env=env, cwd=ROOT,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {"status": 200, "loaded": [], "lazy": []}
    assert any(r.headers.get("x-amz-target", "").startswith("DynamoDB_") for r in server.requests)
