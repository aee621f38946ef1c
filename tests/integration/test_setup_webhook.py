"""The deploy-time webhook registration (custom resource) and the operators' script.

A tiny HTTP server on 127.0.0.1 plays both the Telegram Bot API (``/bot<token>/<method>``) and the
CloudFormation pre-signed ResponseURL (``/cfn/...``); it records every request so the tests can
assert exactly what was sent. The token and the webhook secret are SecureStrings in SSM Parameter
Store (moto, in process, for every test), which the properties name.
"""
from __future__ import annotations

import functools
import importlib.util
import io
import json
import logging
import re
import socket
import subprocess
import sys
import threading
from collections import defaultdict
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from gamebot.botapi.commands import bot_api_commands, commands, menus
from gamebot.language import texts

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:AAE-test_token-value"
OTHER_TOKEN = "987654:AAF-other_token"
SECRET = "s3cr3t-" + "x" * 30
URL = "https://abc123.execute-api.eu-west-1.amazonaws.com/webhook"
TOKEN_PARAMETER = "/avalon-bot/telegram-bot-token"
SECRET_PARAMETER = "/avalon-bot/webhook-secret"


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Loaded by path: functions/webhook/app.py is also called ``app`` on the test path.
setup_app = _load("setup_webhook_app_under_test", ROOT / "functions/setup_webhook/app.py")
set_webhook_script = _load("set_webhook_script_under_test", ROOT / "scripts/set_webhook.py")


@dataclass
class Recorded:
    verb: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def method(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass
class FakeServer:
    """Bot API + CloudFormation response endpoint. Script replies per Bot API method with ``reply``."""

    base_url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    replies: dict[str, list[tuple[int, Any]]] = field(default_factory=lambda: defaultdict(list))
    webhook_url: str = URL  # what getWebhookInfo reports

    def reply(self, method: str, status: int, payload: Any) -> None:
        self.replies[method].append((status, payload))

    def bot_calls(self, token: str = TOKEN) -> list[Recorded]:
        return [r for r in self.requests if r.path.startswith(f"/bot{token}/")]

    def cfn_responses(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.startswith("/cfn/")]

    def answer(self, verb: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
        self.requests.append(Recorded(verb, path, headers, body))
        if path.startswith("/cfn/"):
            return 200, b""
        match = re.fullmatch(r"/bot([^/]+)/(\w+)", path)
        if not match:
            return 404, b'{"ok": false, "error_code": 404, "description": "Not Found"}'
        method = match.group(2)
        if self.replies[method]:
            status, payload = self.replies[method].pop(0)
        elif method == "getWebhookInfo":
            status, payload = 200, {"ok": True, "result": {"url": self.webhook_url, "pending_update_count": 0}}
        else:
            status, payload = 200, {"ok": True, "result": True}
        return status, json.dumps(payload).encode()


@pytest.fixture(autouse=True)
def ssm(monkeypatch):
    """SSM Parameter Store (moto, in process) in the function's region, holding the token and the secret."""
    from moto import mock_aws

    from gamebot.core import secrets

    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SSM", "AWS_PROFILE", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_REGION": "eu-west-1"}.items():
        monkeypatch.setenv(name, value)
    secrets.forget()
    with mock_aws():
        client = _ssm_client()
        put(client, TOKEN_PARAMETER, TOKEN)
        put(client, SECRET_PARAMETER, SECRET)
        yield client


@functools.cache
def _ssm_client() -> Any:
    """One boto3 client for every test (making one takes ~0.1 s): moto's mock answers any client while it is
    on, and each test's mock starts empty."""
    return boto3.client("ssm", region_name="eu-west-1")


def put(ssm: Any, name: str, value: str) -> None:
    ssm.put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=True)


@pytest.fixture
def server():
    fake = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, reply = fake.answer(self.command, self.path, dict(self.headers.items()), body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_POST = do_PUT = _handle

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    # (shutdown waits for the serving loop's next poll: 0.5 s by default, once per test)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield fake
    httpd.shutdown()
    httpd.server_close()


class Context:
    log_stream_name = "2025/01/01/[$LATEST]abcdef"

    def __init__(self, remaining_ms: int = 30_000):
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def props(server: FakeServer, **extra: Any) -> dict[str, Any]:
    """What template.yaml gives TelegramWebhook: the parameters' names, never the values."""
    return {
        "ServiceToken": "arn:aws:lambda:eu-west-1:111111111111:function:setup",
        "BotTokenParameter": TOKEN_PARAMETER,
        "SecretTokenParameter": SECRET_PARAMETER,
        "SecretsVersion": "1",
        "WebhookUrl": URL,
        "ApiBaseUrl": server.base_url,
        **extra,
    }


def legacy_props(server: FakeServer, token: str = TOKEN, **extra: Any) -> dict[str, Any]:
    """What an earlier template gave it: the token and the secret themselves."""
    return {"ServiceToken": "arn:aws:lambda:eu-west-1:111111111111:function:setup", "BotToken": token,
            "SecretToken": SECRET, "WebhookUrl": URL, "ApiBaseUrl": server.base_url, **extra}


def cfn_event(server: FakeServer, request_type: str, properties: Any, **extra: Any) -> dict[str, Any]:
    return {
        "RequestType": request_type,
        "ResponseURL": f"{server.base_url}/cfn/response?X-Amz-Signature=abc",
        "StackId": "arn:aws:cloudformation:eu-west-1:111111111111:stack/bot/guid",
        "RequestId": "request-1",
        "LogicalResourceId": "TelegramWebhook",
        "ResourceType": "Custom::TelegramWebhook",
        "ResourceProperties": properties,
        **extra,
    }


def only_response(server: FakeServer) -> dict[str, Any]:
    responses = server.cfn_responses()
    assert len(responses) == 1, responses
    assert responses[0].verb == "PUT"
    return responses[0].json


# ---- the custom resource -------------------------------------------------------------------------


def test_create_sets_webhook_with_secret_handled_updates_and_dropped_pending(server):
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["setWebhook"] + ["setMyCommands"] * len(texts.languages())
    assert calls[0].headers["Content-Type"] == "application/json"
    assert calls[0].json == {
        "url": URL,
        "secret_token": SECRET,
        "allowed_updates": ["message", "callback_query", "my_chat_member"],
        "drop_pending_updates": True,
        "max_connections": 100,
    }


def test_set_webhook_asks_for_telegrams_maximum_of_simultaneous_connections():
    # Telegram's default is 40; each running webhook invocation holds one connection of the bot's pool.
    assert setup_app.set_webhook_params(URL, SECRET)["max_connections"] == 100
    assert setup_app.set_webhook_params(URL, SECRET, drop_pending_updates=False)["max_connections"] == 100


def test_create_sets_command_menu_from_gamebot_commands(server):
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    menu = server.bot_calls()[1].json["commands"]
    assert menu == [{"command": name, "description": text} for name, text in commands()]
    assert "language_code" not in server.bot_calls()[1].json  # the default menu, for every other language


def test_create_sets_one_translated_menu_per_other_language(server):
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    localized = {c.json["language_code"]: c.json["commands"] for c in server.bot_calls()[2:]}
    assert set(localized) == set(texts.languages()) - {"en"}
    french = {c["command"]: c["description"] for c in localized["fr"]}
    assert list(french) == [name for name, _ in commands()]
    assert french["stats"].startswith("Statistiques") and french["language"] == "Choisir la langue de ce groupe (en privé : la vôtre)"


def test_create_reports_success_to_response_url(server):
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    put = server.cfn_responses()[0]
    assert put.path == "/cfn/response?X-Amz-Signature=abc"
    assert put.headers.get("Content-Type", "") == ""  # the pre-signed URL signs an empty content type
    body = only_response(server)
    assert body["Status"] == "SUCCESS"
    assert body["PhysicalResourceId"] == "telegram-webhook-123456"
    assert body["StackId"] == "arn:aws:cloudformation:eu-west-1:111111111111:stack/bot/guid"
    assert body["RequestId"] == "request-1"
    assert body["LogicalResourceId"] == "TelegramWebhook"
    assert body["Data"] == {"WebhookUrl": URL, "BotId": "123456"}


def test_a_rotation_updates_the_webhook_with_the_new_secret_read_from_ssm_and_keeps_the_physical_id(server, ssm):
    rotated = "rotated-" + "r" * 40
    put(ssm, SECRET_PARAMETER, rotated)  # scripts/bot_secrets.py new-webhook-secret, then a new SecretsVersion
    event = cfn_event(
        server, "Update", props(server, SecretsVersion="2"), PhysicalResourceId="telegram-webhook-123456",
        OldResourceProperties=props(server),
    )
    setup_app.lambda_handler(event, Context())
    assert server.bot_calls()[0].json["secret_token"] == rotated
    body = only_response(server)
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "telegram-webhook-123456")


def test_update_to_another_bot_changes_physical_id(server, ssm):
    put(ssm, TOKEN_PARAMETER, OTHER_TOKEN)
    event = cfn_event(
        server, "Update", props(server, SecretsVersion="2"), PhysicalResourceId="telegram-webhook-123456",
        OldResourceProperties=props(server),
    )
    setup_app.lambda_handler(event, Context())
    assert [c.method for c in server.bot_calls(OTHER_TOKEN)] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert only_response(server)["PhysicalResourceId"] == "telegram-webhook-987654"


def test_the_old_bots_delete_after_a_move_to_another_bot_leaves_both_webhooks(server, ssm):
    # CloudFormation deletes the old physical id with the old properties, which name the same parameter:
    # it holds the new bot's token now, and deleting that bot's webhook would unhook the new deployment.
    put(ssm, TOKEN_PARAMETER, OTHER_TOKEN)
    event = cfn_event(server, "Delete", props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    assert server.bot_calls(OTHER_TOKEN) == [] and server.bot_calls() == []
    body = only_response(server)
    assert body["Status"] == "SUCCESS" and "123456" in body["Reason"] and OTHER_TOKEN not in body["Reason"]


def test_a_resource_of_an_earlier_template_with_the_values_in_its_properties_still_works(server):
    setup_app.lambda_handler(cfn_event(server, "Update", legacy_props(server), PhysicalResourceId="telegram-webhook-123456",
                                       OldResourceProperties=legacy_props(server)), Context())
    assert [c.method for c in server.bot_calls()] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert server.bot_calls()[0].json["secret_token"] == SECRET
    event = cfn_event(server, "Delete", legacy_props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    assert [c.method for c in server.bot_calls()][-2:] == ["getWebhookInfo", "deleteWebhook"]


@pytest.mark.parametrize("missing", [TOKEN_PARAMETER, SECRET_PARAMETER])
def test_a_parameter_that_cannot_be_read_fails_the_deploy_by_name_before_any_call(server, ssm, missing, caplog):
    ssm.delete_parameter(Name=missing)
    with caplog.at_level(logging.INFO):
        setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    body = only_response(server)
    assert body["Status"] == "FAILED" and missing in body["Reason"] and "SecretsUnavailable" in body["Reason"]
    assert server.bot_calls() == []
    everything = caplog.text + server.cfn_responses()[0].body.decode()
    assert TOKEN not in everything and SECRET not in everything


def test_the_delete_reads_the_token_and_a_missing_parameter_never_blocks_it(server, ssm):
    ssm.delete_parameter(Name=TOKEN_PARAMETER)
    event = cfn_event(server, "Delete", props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    body = only_response(server)
    assert body["Status"] == "SUCCESS" and "ignored" in body["Reason"] and TOKEN_PARAMETER in body["Reason"]
    assert server.bot_calls() == []


def test_create_reports_failed_when_telegram_rejects_webhook(server, caplog):
    server.reply("setWebhook", 400, {
        "ok": False, "error_code": 400, "description": "Bad Request: bad webhook: HTTPS url must be provided",
    })
    with caplog.at_level(logging.INFO):
        setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    body = only_response(server)
    assert body["Status"] == "FAILED"
    assert "setWebhook: HTTP 400: Bad Request: bad webhook" in body["Reason"]
    assert Context.log_stream_name in body["Reason"]
    assert [c.method for c in server.bot_calls()] == ["setWebhook"]  # no commands after a failure
    assert TOKEN not in caplog.text and SECRET not in caplog.text


def test_failure_reason_never_contains_bot_token(server, caplog):
    server.reply("setWebhook", 401, {"ok": False, "error_code": 401, "description": f"Unauthorized {TOKEN}"})
    with caplog.at_level(logging.INFO):
        setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    response = server.cfn_responses()[0].body.decode()
    assert json.loads(response)["Status"] == "FAILED"
    assert "Unauthorized ***" in response
    assert TOKEN not in response and TOKEN not in caplog.text


def test_create_reports_failed_when_properties_missing(server):
    properties = props(server)
    del properties["WebhookUrl"]
    setup_app.lambda_handler(cfn_event(server, "Create", properties), Context())
    body = only_response(server)
    assert body["Status"] == "FAILED" and "WebhookUrl" in body["Reason"]
    assert server.bot_calls() == []


def test_malformed_properties_still_get_an_answer(server):
    setup_app.lambda_handler(cfn_event(server, "Create", "not a mapping"), Context())
    assert only_response(server)["Status"] == "FAILED"


def test_unknown_request_type_reports_failed(server):
    setup_app.lambda_handler(cfn_event(server, "Rename", props(server)), Context())
    body = only_response(server)
    assert body["Status"] == "FAILED" and "Rename" in body["Reason"]


def test_telegram_429_is_retried_after_retry_after(server):
    server.reply("setWebhook", 429, {
        "ok": False, "error_code": 429, "description": "Too Many Requests", "parameters": {"retry_after": 0},
    })
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context())
    assert [c.method for c in server.bot_calls()] == ["setWebhook", "setWebhook"] + ["setMyCommands"] * len(menus())
    assert only_response(server)["Status"] == "SUCCESS"


def test_out_of_time_reports_failed_instead_of_hanging(server):
    # Less time left than the handler keeps back for answering: no Bot API call is attempted.
    setup_app.lambda_handler(cfn_event(server, "Create", props(server)), Context(remaining_ms=3_000))
    assert server.bot_calls() == []
    body = only_response(server)
    assert body["Status"] == "FAILED" and "out of time" in body["Reason"]


def test_api_base_url_comes_from_environment_when_not_a_property(server, monkeypatch):
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", server.base_url + "/")
    properties = props(server)
    del properties["ApiBaseUrl"]
    setup_app.lambda_handler(cfn_event(server, "Create", properties), Context())
    assert [c.method for c in server.bot_calls()] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert only_response(server)["Status"] == "SUCCESS"


def test_delete_removes_webhook_that_points_at_this_stack(server):
    event = cfn_event(server, "Delete", props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["getWebhookInfo", "deleteWebhook"]
    assert calls[1].json == {"drop_pending_updates": False}
    body = only_response(server)
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "telegram-webhook-123456")


def test_delete_leaves_webhook_of_another_deployment(server):
    server.webhook_url = "https://other.example.com/webhook"
    event = cfn_event(server, "Delete", props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    assert [c.method for c in server.bot_calls()] == ["getWebhookInfo"]
    assert only_response(server)["Status"] == "SUCCESS"


def test_delete_reports_success_when_telegram_fails(server):
    server.reply("getWebhookInfo", 401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    event = cfn_event(server, "Delete", props(server), PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    body = only_response(server)
    assert body["Status"] == "SUCCESS" and "ignored" in body["Reason"]


def test_delete_reports_success_when_bot_api_unreachable(server):
    with socket.socket() as probe:  # a port nothing listens on: connection refused at once
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    event = cfn_event(server, "Delete", props(server, ApiBaseUrl=f"http://127.0.0.1:{closed_port}"),
                      PhysicalResourceId="telegram-webhook-123456")
    setup_app.lambda_handler(event, Context())
    body = only_response(server)
    assert body["Status"] == "SUCCESS" and "network error" in body["Reason"]


def test_delete_after_failed_create_with_no_token_succeeds(server):
    event = cfn_event(server, "Delete", {"ServiceToken": "arn"}, PhysicalResourceId="telegram-webhook")
    setup_app.lambda_handler(event, Context())
    assert server.bot_calls() == [] and only_response(server)["Status"] == "SUCCESS"


# ---- BotInfo: the username learned at deploy time ------------------------------------------------------


ME = {"id": 123456, "is_bot": True, "first_name": "Avalon GM", "username": "AvalonGameBot"}


def info_props(server: FakeServer, **extra: Any) -> dict[str, Any]:
    return {"ServiceToken": "arn:aws:lambda:eu-west-1:111111111111:function:setup",
            "BotTokenParameter": TOKEN_PARAMETER, "SecretsVersion": "1", "ApiBaseUrl": server.base_url, **extra}


def info_event(server: FakeServer, request_type: str, properties: Any, **extra: Any) -> dict[str, Any]:
    return cfn_event(server, request_type, properties, LogicalResourceId="BotInfo",
                     ResourceType="Custom::TelegramBotInfo", **extra)


@pytest.mark.parametrize("request_type", ["Create", "Update"])
def test_bot_info_returns_the_username_from_getme_and_touches_nothing_else(server, request_type, caplog):
    server.reply("getMe", 200, {"ok": True, "result": ME})
    extra = {"PhysicalResourceId": "telegram-bot-123456", "OldResourceProperties": info_props(server)} \
        if request_type == "Update" else {}
    with caplog.at_level(logging.INFO):
        setup_app.lambda_handler(info_event(server, request_type, info_props(server), **extra), Context())
    assert [c.method for c in server.bot_calls()] == ["getMe"]  # no webhook, no menu
    body = only_response(server)
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "telegram-bot-123456")
    assert body["Data"] == {"Username": "AvalonGameBot", "BotId": "123456"}
    assert body["LogicalResourceId"] == "BotInfo" and TOKEN not in caplog.text


def test_bot_info_for_another_bot_gets_a_new_physical_id(server, ssm):
    server.reply("getMe", 200, {"ok": True, "result": {**ME, "id": 987654, "username": "OtherBot"}})
    put(ssm, TOKEN_PARAMETER, OTHER_TOKEN)  # a rotation: a new SecretsVersion sends the Update
    event = info_event(server, "Update", info_props(server, SecretsVersion="2"), PhysicalResourceId="telegram-bot-123456",
                       OldResourceProperties=info_props(server))
    setup_app.lambda_handler(event, Context())
    body = only_response(server)
    assert (body["PhysicalResourceId"], body["Data"]["Username"]) == ("telegram-bot-987654", "OtherBot")
    assert [c.method for c in server.bot_calls(OTHER_TOKEN)] == ["getMe"]


@pytest.mark.parametrize("reply", [
    (401, {"ok": False, "error_code": 401, "description": f"Unauthorized {TOKEN}"}),
    (200, {"ok": True, "result": {"id": 123456, "is_bot": True, "first_name": "No name"}}),
], ids=["refused", "no username"])
def test_bot_info_fails_the_deploy_when_getme_gives_no_username(server, reply, caplog):
    server.reply("getMe", *reply)
    with caplog.at_level(logging.INFO):
        setup_app.lambda_handler(info_event(server, "Create", info_props(server)), Context())
    body = only_response(server)
    assert body["Status"] == "FAILED" and "getMe" in body["Reason"] and body["Data"] == {}
    assert TOKEN not in server.cfn_responses()[0].body.decode() and TOKEN not in caplog.text


@pytest.mark.parametrize("properties", ["good", "unreachable", "none"])
def test_bot_info_delete_never_calls_telegram_and_always_succeeds(server, properties):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    given = {"good": info_props(server), "none": {"ServiceToken": "arn"},
             "unreachable": {**info_props(server), "ApiBaseUrl": f"http://127.0.0.1:{closed_port}"}}[properties]
    setup_app.lambda_handler(info_event(server, "Delete", given, PhysicalResourceId="telegram-bot-123456"), Context())
    assert server.bot_calls() == []
    body = only_response(server)
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "telegram-bot-123456")


def test_commands_are_valid_bot_commands():
    names = [name for name, _ in commands()]
    assert set(names) == {
        "newgame", "status", "rules", "help", "cancel", "leave", "start", "extend", "forcestart", "idles",
        "stats", "history", "language", "votes", "nextgame", "practice",
    }
    assert len(names) == len(set(names))
    for menu in menus():
        for command in menu["commands"]:
            assert re.fullmatch(r"[a-z0-9_]{1,32}", command["command"])
            assert 1 <= len(command["description"]) <= 256
    first = commands()[0]
    assert bot_api_commands()[0] == {"command": first[0], "description": first[1]}


def test_setup_function_and_commands_need_only_the_standard_library():
    # -I -S: no site-packages, so any third-party import (e.g. a new import in gamebot/__init__.py,
    # which the setup function loads from the layer) fails here as it would slow the function down.
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import app; "
        "menus = app.load_menus(); assert len(menus[0]['commands']) == 16 and len(menus) >= 2; "
        "third = {m.split('.')[0] for m in sys.modules} & {'telegram', 'pydantic', 'httpx', 'boto3', 'engine'}; "
        "assert not third, third"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(ROOT / "shared"), str(ROOT / "functions/setup_webhook")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr


# ---- scripts/set_webhook.py ------------------------------------------------------------------------


def run_script(*argv: str, **clients: Any) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = set_webhook_script.main(list(argv), **clients)
    return code, out.getvalue()


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_API_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_script_sets_webhook_and_commands_like_a_deploy(server, clean_env):
    code, out = run_script("--token", TOKEN, "--url", URL, "--secret", SECRET, "--api-base-url", server.base_url)
    assert code == 0
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert calls[0].json == setup_app.set_webhook_params(URL, SECRET)
    assert [c.json for c in calls[1:]] == menus()
    assert calls[1].json == {"commands": bot_api_commands()}
    assert URL in out and TOKEN not in out
    assert "max connections: 100" in out


def test_script_reads_values_from_environment(server, clean_env):
    clean_env.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    clean_env.setenv("TELEGRAM_WEBHOOK_URL", URL)
    clean_env.setenv("TELEGRAM_WEBHOOK_SECRET", SECRET)
    clean_env.setenv("TELEGRAM_API_BASE_URL", server.base_url)
    code, _ = run_script("--keep-pending", "--no-commands")
    assert code == 0
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["setWebhook"]
    assert calls[0].json["drop_pending_updates"] is False and calls[0].json["secret_token"] == SECRET
    assert calls[0].json["max_connections"] == 100


def test_script_delete_calls_delete_webhook(server, clean_env):
    code, out = run_script("--delete", "--token", TOKEN, "--api-base-url", server.base_url)
    assert code == 0 and "123456" in out
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["deleteWebhook"]
    assert calls[0].json == {"drop_pending_updates": True}


def test_script_info_prints_webhook_info(server, clean_env):
    code, out = run_script("--info", "--token", TOKEN, "--api-base-url", server.base_url)
    assert code == 0
    assert [c.method for c in server.bot_calls()] == ["getWebhookInfo"]
    assert json.loads(out) == {"url": URL, "pending_update_count": 0}


def test_script_info_shows_the_max_connections_telegram_reports(server, clean_env):
    info = {"url": URL, "has_custom_certificate": False, "pending_update_count": 3, "max_connections": 100,
            "allowed_updates": ["message", "callback_query", "my_chat_member"]}
    server.reply("getWebhookInfo", 200, {"ok": True, "result": info})
    code, out = run_script("--info", "--token", TOKEN, "--api-base-url", server.base_url)
    assert code == 0
    assert json.loads(out) == info  # printed whole: what a deploy set, as Telegram has it


def test_script_rejects_secret_telegram_would_refuse(server, clean_env):
    with pytest.raises(SystemExit) as exit_info:
        run_script("--token", TOKEN, "--url", URL, "--secret", "has spaces", "--api-base-url", server.base_url)
    assert exit_info.value.code == 2
    assert server.bot_calls() == []


def test_script_exits_1_when_telegram_refuses(server, clean_env, capsys):
    server.reply("setWebhook", 400, {"ok": False, "error_code": 400, "description": "Bad Request: bad webhook"})
    code, _ = run_script("--token", TOKEN, "--url", URL, "--secret", SECRET, "--api-base-url", server.base_url)
    assert code == 1
    assert "Bad Request: bad webhook" in capsys.readouterr().err


def run_on_stack(variables: dict[str, str], **clients: Any) -> tuple[int, str]:
    """``set_webhook.py --stack avalon-bot`` with CloudFormation's and Lambda's answers stubbed: the stack's
    outputs, and its webhook function's environment ``variables``."""
    credentials = {"region_name": "eu-west-1", "aws_access_key_id": "test", "aws_secret_access_key": "test"}
    cfn = boto3.client("cloudformation", **credentials)
    lam = boto3.client("lambda", **credentials)
    with Stubber(cfn) as cfn_stub, Stubber(lam) as lambda_stub:
        cfn_stub.add_response(
            "describe_stacks",
            {"Stacks": [{
                "StackName": "avalon-bot", "CreationTime": "2025-01-01T00:00:00Z", "StackStatus": "UPDATE_COMPLETE",
                "Outputs": [
                    {"OutputKey": "WebhookUrl", "OutputValue": URL},
                    {"OutputKey": "WebhookFunctionName", "OutputValue": "avalon-bot-WebhookFunction-abc"},
                ],
            }]},
            {"StackName": "avalon-bot"},
        )
        lambda_stub.add_response("get_function_configuration", {"Environment": {"Variables": variables}},
                                 {"FunctionName": "avalon-bot-WebhookFunction-abc"})
        result = run_script("--stack", "avalon-bot", cfn=cfn, lambda_client=lam, **clients)
        cfn_stub.assert_no_pending_responses()
        lambda_stub.assert_no_pending_responses()
    return result


def test_script_stack_reads_outputs_and_function_settings(server, clean_env):
    code, _ = run_on_stack({"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_WEBHOOK_SECRET": SECRET,
                            "TELEGRAM_API_BASE_URL": server.base_url, "TABLE_NAME": "games"})
    assert code == 0
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert calls[0].json == setup_app.set_webhook_params(URL, SECRET)


def test_script_stack_reads_the_token_and_the_secret_from_the_parameters_the_function_names(server, clean_env, ssm):
    code, out = run_on_stack({  # (as template.yaml configures it: the names, not the values)
        "TELEGRAM_BOT_TOKEN_PARAMETER": TOKEN_PARAMETER, "TELEGRAM_WEBHOOK_SECRET_PARAMETER": SECRET_PARAMETER,
        "SECRETS_VERSION": "1", "TELEGRAM_API_BASE_URL": server.base_url, "TABLE_NAME": "games"}, ssm=ssm)
    assert code == 0
    calls = server.bot_calls()
    assert [c.method for c in calls] == ["setWebhook"] + ["setMyCommands"] * len(menus())
    assert calls[0].json == setup_app.set_webhook_params(URL, SECRET)
    assert TOKEN not in out and SECRET not in out
