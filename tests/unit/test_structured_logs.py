"""Log lines as JSON with the invocation's fields (``gamebot.core.logs``), and what the webhook's summary line
and metrics say of the updates it refuses, ignores or throttles before any storage is read."""
from __future__ import annotations

import io
import json
import logging
from types import SimpleNamespace

import pytest

from gamebot import observe
from gamebot.core import logs, metrics, runtime
from localdev import updates as U
from tests import emf

TOKEN = "123456:STRUCTURED-logs-token"
SECRET = "structured-logs-secret-0123456789"


@pytest.fixture
def lines():
    """Every line the bot's loggers write, formatted as in Lambda (the JSON lines, one per record)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    bot = logging.getLogger("gamebot")
    bot.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in out.getvalue().splitlines()]
    finally:
        bot.removeHandler(handler)


def test_a_line_is_one_json_object_with_the_invocations_fields(lines):
    log = logging.getLogger("gamebot.test")
    log.setLevel(logging.INFO)
    inv = metrics.Invocation("button", request_id="req-7")
    inv.note(update_id=41, chat_id=-100, game_id="g7", text="never a field")
    token = observe.start(inv)
    try:
        log.warning("a %s warning", "formatted")
    finally:
        observe.stop(token)
    log.info("outside any invocation")
    first, second = lines()
    assert first["level"] == "WARNING" and first["logger"] == "gamebot.test" and first["message"] == "a formatted warning"
    assert first["timestamp"].endswith("Z") and len(first["timestamp"]) == len("2024-01-01T00:00:00.000Z")
    assert {k: first[k] for k in ("requestId", "update_id", "update_type", "chat_id", "game_id")} == {
        "requestId": "req-7", "update_id": 41, "update_type": "button", "chat_id": -100, "game_id": "g7"}
    assert "text" not in first  # only the known fields
    assert set(second) == {"timestamp", "level", "logger", "message"}


def test_an_exception_is_in_fields_and_the_token_and_secret_never_show(lines):
    logs.keep_secret(TOKEN, SECRET, "short")
    try:
        log = logging.getLogger("gamebot.test")
        try:
            raise RuntimeError(f"https://api.telegram.org/bot{TOKEN}/sendMessage said no to {SECRET}")
        except RuntimeError:
            log.exception("call failed for bot%s", TOKEN)
        log.warning("a short word is left alone")
    finally:
        logs.keep_secret()
    failed, plain = lines()
    text = json.dumps(failed)
    assert TOKEN not in text and SECRET not in text and "***" in failed["message"]
    assert failed["errorType"] == "RuntimeError" and "said no to ***" in failed["errorMessage"]
    assert any("raise RuntimeError" in frame for frame in failed["stackTrace"])
    assert plain["message"] == "a short word is left alone"


def test_in_lambda_every_root_handler_writes_json_lines(monkeypatch):
    class LambdaHandler(logging.Handler):  # as Lambda's runtime installs it: no line ending of its own
        def __init__(self) -> None:
            super().__init__()
            self.got: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.got.append(self.format(record))

    lambda_handler = LambdaHandler()
    monkeypatch.setattr(logging.getLogger(), "handlers", [lambda_handler])
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    runtime.lambda_logging("gamebot.test")
    assert not isinstance(lambda_handler.formatter, logs.JsonFormatter)  # elsewhere: as configured
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "avalon-webhook")
    log = runtime.lambda_logging("gamebot.test")
    log.warning("hello")
    (line,) = lambda_handler.got
    assert line.endswith("\n") and json.loads(line)["message"] == "hello"


@pytest.fixture
def webhook(monkeypatch):
    import app

    for key, value in {"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": SECRET, "TABLE_NAME": "t",
                       "STACK_NAME": "avalon-test"}.items():
        monkeypatch.setenv(key, value)
    app.reset()
    yield app
    app.reset()


def handled(app, capsys, event) -> tuple[int, dict]:
    status = app.lambda_handler(event, SimpleNamespace(aws_request_id="req-1"))["statusCode"]
    (blob,) = emf.blobs(capsys.readouterr().out)
    return status, blob


def test_the_webhook_says_which_updates_it_refused_ignored_or_throttled(webhook, capsys, lines, monkeypatch):
    update = U.command(U.group(-7), U.user(3), "/newgame")
    assert handled(webhook, capsys, U.webhook_event(update, "wrong"))[0] == 401
    assert handled(webhook, capsys, {**U.webhook_event(update, SECRET), "body": "{not json"})[0] == 200
    monkeypatch.setattr(webhook.THROTTLE, "check", lambda data: SimpleNamespace(method=None))
    status, throttled = handled(webhook, capsys, U.webhook_event(update, SECRET))
    assert status == 200
    assert (throttled["Outcome"], throttled["UpdateType"], throttled["Stack"], throttled["Updates"]) == (
        "throttled", "command", "avalon-test", 1)
    summaries = [line for line in lines() if line["message"] == "update handled"]
    assert [(s["outcome"], s["update_type"], s["status"]) for s in summaries] == [
        ("rejected", "unknown", 401), ("ignored", "unknown", 200), ("throttled", "command", 200)]
    assert summaries[-1]["update_id"] == update["update_id"] and summaries[-1]["chat_id"] == -7
    assert all(s["requestId"] == "req-1" and s["duration_ms"] >= 0 for s in summaries)
    assert "/newgame" not in json.dumps(lines())  # (a message's text is never logged)


def test_a_setting_that_does_not_parse_is_an_error_of_the_named_stack(webhook, capsys):
    import os

    os.environ["GAME_ARCHIVE_DAYS"] = "a month"
    try:
        status, blob = handled(webhook, capsys, U.webhook_event(U.command(U.group(-7), U.user(3), "/help"), SECRET))
    finally:
        del os.environ["GAME_ARCHIVE_DAYS"]
    assert status == 500 and blob["Outcome"] == "error" and blob["Stack"] == "avalon-test"


@pytest.mark.parametrize("update, kind", [
    (U.command(U.group(-7), U.user(3), "/newgame"), "command"),
    (U.press(U.user(3), U.message(-7, 5, "board"), "data"), "button"),
    ({"update_id": 9, "message": {"message_id": 1, "date": 1, "chat": {"id": -7, "type": "group"}, "text": "hi"}},
     "message"),
    ({"update_id": 9, "poll": {"id": "1"}}, "other"),
])
def test_an_updates_type_is_one_of_a_few(update, kind):
    described = metrics.described(update)
    assert described["update_type"] == kind and kind in metrics.UPDATE_TYPES
    assert described["update_id"] == update["update_id"]
