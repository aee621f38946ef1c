"""Fixtures for end-to-end tests: the real webhook Lambda handler, the fake Bot API server on
127.0.0.1, and DynamoDB and EventBridge Scheduler on a moto server on 127.0.0.1 (``AWS_ENDPOINT_URL``:
the functions' own AWS client speaks HTTP, which moto's in-process ``mock_aws`` would not intercept),
reset for every test, the table created from template.yaml. The servers start once per test process
(per xdist worker)."""
from __future__ import annotations

import io
import logging
import socket

import pytest

from localdev.fake_telegram import FakeTelegram
from localdev.tables import create_table_from_template
from tests.moto_server import admin_dynamo, reset_moto

TOKEN = "123456:E2E-TEST-token"
SECRET = "e2e-webhook-secret"
TABLE = "avalon-e2e"
STACK = "avalon-e2e"
FUNCTION_LOGGERS = ("gamebot", "telegram", "httpx", "httpcore")  # (not the fake server's, not moto's)


def unreachable() -> str:
    """An endpoint on 127.0.0.1 nobody listens on (AWS unreachable: each request is refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture(scope="session")
def fake_server():
    with FakeTelegram(token=TOKEN) as fake:
        yield fake


@pytest.fixture(scope="session")
def aws_endpoint(shared_moto):
    """The moto server of this test process (one request at a time: tests/moto_server.py), shared with
    the other tiers (tests/conftest.py); reset for every test by ``lambda_env``."""
    return shared_moto


@pytest.fixture
def lambda_env(fake_server, aws_endpoint, monkeypatch):
    """Environment of the webhook function, with moto's DynamoDB (emptied) and a fresh fake Telegram."""
    import app

    from gamebot.aws import dynamo

    fake_server.reset()
    env = {
        "TABLE_NAME": TABLE,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "TELEGRAM_API_BASE_URL": fake_server.base_url,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": aws_endpoint,  # DynamoDB and EventBridge Scheduler, our client's and boto3's
        # The bots here play far faster than people (hundreds of actions a second, in real time): the
        # group's budget of messages per minute would stretch a game over many minutes. It is tested with
        # a clock the tests move (tests/unit, tests/reliability) and measured by scripts/bench_webhook.py.
        "GROUP_MESSAGES_PER_MINUTE": "0",
        # For the same reason no player is throttled (gamebot.botapi.throttle: a burst of 10 presses or commands,
        # then 2 a second); the throttle is tested with a clock the test holds (test_throttle_e2e.py).
        "PLAYER_THROTTLE": "0",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    monkeypatch.delenv("TELEGRAM_BOT_USERNAME", raising=False)
    reset_moto(aws_endpoint)
    dynamo.reset_default_client()
    app.reset()
    create_table_from_template(admin_dynamo(aws_endpoint), TABLE, exist_ok=False)  # as template.yaml defines it
    yield fake_server
    app.reset()
    dynamo.reset_default_client()
    fake_server.reset()


@pytest.fixture
def table(lambda_env):
    from localdev.autoplay import WebhookTable

    return WebhookTable(lambda_env, SECRET)


@pytest.fixture
def observed(table, monkeypatch):
    """The game table, with the stack named (EMF blobs on stdout) and the functions' log lines kept as
    Lambda gets them (``gamebot.core.logs``): ``table.log_text()``."""
    from gamebot.core import logs

    monkeypatch.setenv("STACK_NAME", STACK)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(lambda record: record.name.startswith(FUNCTION_LOGGERS))
    root = logging.getLogger()
    root.addHandler(handler)
    table.log_text = out.getvalue
    try:
        yield table
    finally:
        root.removeHandler(handler)

