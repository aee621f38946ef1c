"""The webhook and timer functions give their AWS requests a deadline from the invocation's remaining
time (``gamebot.core.runtime.invocation``): against a DynamoDB that never answers, a request started with
1.3 s left gives up after its first attempt (not four attempts of 5 s: 20 s) and the function answers in
time: the webhook a 500 (nothing was committed: Telegram redelivers), the timer by raising the
retryable error (the invocation fails and is retried). The deadline ends with the invocation."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

from gamebot.aws import dynamo
from gamebot.aws import transport as aws_http
from gamebot.aws.client import AWSNetworkError
from gamebot.core import runtime
from localdev import updates as U
from tests.unit.aws_fakes import SILENT, ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s" * 32
LEFT_MS = 1300  # the deadline: 0.3 s from the start (runtime.ANSWER_RESERVE = 1 s is kept for the answer)


class Context:
    """A Lambda context whose invocation has ``LEFT_MS`` left; it records that it was asked."""

    invoked_function_arn = "arn:aws:lambda:us-east-1:1:function:t"

    def __init__(self) -> None:
        self.asked = 0

    def get_remaining_time_in_millis(self) -> int:
        self.asked += 1
        return LEFT_MS


@pytest.fixture
def silent_dynamodb(monkeypatch):
    """The functions' environment with a DynamoDB (and Scheduler) that reads requests and never answers."""
    with ScriptedServer(*[SILENT] * 8) as server:
        env = {
            "TABLE_NAME": "games", "TELEGRAM_BOT_TOKEN": "123:deadline", "TELEGRAM_WEBHOOK_SECRET": SECRET,
            "TELEGRAM_BOT_USERNAME": "DeadlineBot", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9",
            "AWS_ENDPOINT_URL": server.url, "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
            "AWS_REGION": "us-east-1", "GROUP_MESSAGES_PER_MINUTE": "0",
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for key in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_SESSION_TOKEN", "TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN",
                    "SCHEDULE_GROUP"):
            monkeypatch.delenv(key, raising=False)
        dynamo.reset_default_client()
        yield server
        dynamo.reset_default_client()


@pytest.fixture
def budgets(monkeypatch):
    """The budget each attempt's transport got (seconds; None: no deadline)."""
    seen: list[float | None] = []
    send = aws_http.Transport.send

    def recording(self, method, target, headers, body, budget=None):
        seen.append(budget)
        return send(self, method, target, headers, body, budget)

    monkeypatch.setattr(aws_http.Transport, "send", recording)
    return seen


def test_the_webhook_gives_its_requests_the_invocation_s_time_and_answers_500_in_time(silent_dynamodb,
                                                                                      budgets):
    import app

    app.reset()
    try:
        context = Context()
        event = U.webhook_event(U.command(U.group(-5), U.user(1), "/newgame"), SECRET)
        assert app.lambda_handler(event, context)["statusCode"] == 500  # nothing committed: redelivered
        assert context.asked == 1
        assert len(silent_dynamodb.requests) == 1  # one attempt took the whole time: no other started
        assert budgets and all(b is not None and 0 < b <= (LEFT_MS / 1000 - runtime.ANSWER_RESERVE)
                                     for b in budgets)
        assert aws_http.current_deadline() is None  # nothing left for the next invocation
    finally:
        app.reset()


def test_the_timer_gives_its_requests_the_invocation_s_time_and_raises_in_time(silent_dynamodb, budgets):
    spec = importlib.util.spec_from_file_location("timer_app_deadline", ROOT / "functions" / "timer" / "app.py")
    timer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timer)
    try:
        context = Context()
        payload = {"chat": -5, "game": "g1", "kind": "wake", "due": 1, "name": "n"}
        with pytest.raises(AWSNetworkError) as caught:  # retryable: the invocation fails and is retried
            timer.lambda_handler(payload, context)
        assert caught.value.retryable and context.asked == 1
        assert len(silent_dynamodb.requests) == 1
        assert budgets and all(b is not None and 0 < b <= (LEFT_MS / 1000 - runtime.ANSWER_RESERVE)
                                     for b in budgets)
        assert aws_http.current_deadline() is None
    finally:
        timer.reset()


def test_without_a_lambda_context_there_is_no_deadline():
    with runtime.invocation(None) as left:
        assert left is None and aws_http.current_deadline() is None
    with runtime.invocation(SimpleNamespace(get_remaining_time_in_millis=lambda: 25_000)) as left:
        assert left == 25.0 and aws_http.current_deadline() is not None
    assert aws_http.current_deadline() is None
