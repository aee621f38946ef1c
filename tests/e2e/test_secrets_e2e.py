"""The functions as the stack configures them: the token and the webhook secret in SSM Parameter Store
(SecureStrings on the moto server), the environment naming the parameters and holding neither value.
The webhook plays with the token read there and checks the secret read there, reading them once per
container; the timer function builds its service with the token; a parameter that cannot be read
answers 500 (Telegram redelivers) with one log line that names it and shows no value, and the next
delivery, once it can be read, is handled."""
from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from localdev import updates as U
from localdev.autoplay import WebhookTable
from tests.e2e.conftest import SECRET, TOKEN
from tests.e2e.scheduler_helpers import timer_app
from tests.ssm_helpers import count_reads

TOKEN_PARAMETER = "/avalon-bot/telegram-bot-token"  # template.yaml's defaults
SECRET_PARAMETER = "/avalon-bot/webhook-secret"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:timer"


@pytest.fixture
def ssm(lambda_env, aws_endpoint, monkeypatch) -> Iterator[Any]:
    """The webhook's environment as deployed: the parameters' names, no token, no secret (the moto server
    was emptied by ``lambda_env``: the test puts the parameters)."""
    import boto3

    from gamebot.core import secrets

    for name in ("TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN_PARAMETER", TOKEN_PARAMETER)
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET_PARAMETER", SECRET_PARAMETER)
    monkeypatch.setenv("SECRETS_VERSION", "1")
    secrets.forget()
    yield boto3.client("ssm", endpoint_url=aws_endpoint, region_name="us-east-1")
    secrets.forget()


@pytest.fixture
def log_text() -> Iterator[Any]:
    """Every line the bot logs (its loggers only), as text."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield out.getvalue
    finally:
        root.removeHandler(handler)


def put(ssm: Any, name: str, value: str) -> None:
    ssm.put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=True)


def test_the_webhook_plays_with_the_token_and_the_secret_read_from_ssm_once_per_container(
        ssm, lambda_env, monkeypatch, log_text):
    import app

    put(ssm, TOKEN_PARAMETER, TOKEN)  # (the fake Bot API refuses every other token)
    put(ssm, SECRET_PARAMETER, SECRET)
    reads = count_reads(monkeypatch)
    table = WebhookTable(lambda_env, SECRET)
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    assert table.start_game(1) == 200 and set(table.statuses) == {200}
    assert all(table.messages(uid) for uid in players)  # each role sent in private: the token works
    assert reads == [[TOKEN_PARAMETER, SECRET_PARAMETER]]  # one call for both, for the whole game
    assert app.service().io.bot.token == TOKEN
    assert table.post(U.command(U.group(table.group), U.user(1), "/status"), secret="x" * 32) == 401
    text = log_text()
    assert TOKEN not in text and SECRET not in text


def test_a_new_secrets_version_reads_the_parameters_again(ssm, lambda_env, monkeypatch):
    import app

    put(ssm, TOKEN_PARAMETER, TOKEN)
    put(ssm, SECRET_PARAMETER, SECRET)
    reads = count_reads(monkeypatch)
    table = WebhookTable(lambda_env, SECRET)
    assert table.start_private(1) == 200
    rotated = "rotated-" + "s" * 40
    put(ssm, SECRET_PARAMETER, rotated)
    assert table.start_private(2) == 200  # the same container, the same version: the secret it read
    monkeypatch.setenv("SECRETS_VERSION", "2")  # the deploy that follows the put
    assert table.post(U.command(U.private(3), U.user(3), "/start"), secret=SECRET) == 401
    assert table.post(U.command(U.private(3), U.user(3), "/start"), secret=rotated) == 200
    assert len(reads) == 2 and app.service().io.bot.token == TOKEN


def test_a_parameter_that_cannot_be_read_answers_500_with_a_clear_line_and_no_value(
        ssm, lambda_env, monkeypatch, log_text):
    import app

    put(ssm, SECRET_PARAMETER, SECRET)  # the token's parameter is missing
    event = U.webhook_event(U.command(U.private(1), U.user(1), "/start"), SECRET)
    assert app.lambda_handler(event, None)["statusCode"] == 500  # Telegram redelivers
    lines = [line for line in log_text().splitlines() if TOKEN_PARAMETER in line]
    assert lines and any("could not read the bot's secrets from SSM Parameter Store" in line for line in lines)
    assert any("ParameterNotFound" in line for line in lines)
    assert SECRET not in log_text()
    put(ssm, TOKEN_PARAMETER, TOKEN)  # the operator creates it: the redelivery is handled (no failure kept)
    assert app.lambda_handler(event, None)["statusCode"] == 200
    assert TOKEN not in log_text() and SECRET not in log_text()


def test_a_parameter_the_role_may_not_read_answers_500_without_the_values(ssm, lambda_env, monkeypatch, log_text):
    import app
    from botocore.exceptions import ClientError

    from gamebot.core import secrets

    put(ssm, TOKEN_PARAMETER, TOKEN)
    put(ssm, SECRET_PARAMETER, SECRET)

    class Denied:
        def get_parameters(self, **kwargs: Any) -> Any:
            raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "not authorized to perform: "
                               f"ssm:GetParameters on resource: arn:aws:ssm:us-east-1:1:parameter{TOKEN_PARAMETER}"}},
                              "GetParameters")

    monkeypatch.setattr(secrets, "ssm_client", lambda env: Denied())
    event = U.webhook_event(U.command(U.private(1), U.user(1), "/start"), SECRET)
    assert app.lambda_handler(event, None)["statusCode"] == 500
    text = log_text()
    assert "AccessDeniedException" in text and TOKEN_PARAMETER in text
    assert TOKEN not in text and SECRET not in text


def test_the_timer_function_builds_its_service_with_the_token_from_ssm(ssm, lambda_env, monkeypatch, log_text):
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET_PARAMETER")  # (as the stack configures it: the token alone)
    put(ssm, TOKEN_PARAMETER, TOKEN)
    reads = count_reads(monkeypatch)
    timer = timer_app()
    try:
        assert timer.service(TIMER_ARN).io.bot.token == TOKEN
        payload = {"chat": -1009, "game": "g1", "kind": "wake", "name": "n"}
        assert timer.lambda_handler(payload, None) == {"status": "stale"}  # (no such chat: nothing due)
        assert reads == [[TOKEN_PARAMETER]]
    finally:
        timer.reset()
    assert TOKEN not in log_text()


def test_a_wake_up_whose_secrets_cannot_be_read_comes_again_and_counts_in_timer_errors(
        ssm, lambda_env, monkeypatch, capsys):
    # not logged and dropped as a bug would be: the queue receives it again (and after 3 receives the
    # dead-letter queue keeps it for a redrive), and the operator's TimerErrors alarm hears of it
    from tests import emf

    monkeypatch.setenv("STACK_NAME", "avalon-e2e")
    put(ssm, SECRET_PARAMETER, SECRET)  # the token's parameter is missing
    timer = timer_app()
    body = json.dumps({"chat": -1007, "game": "g1", "kind": "wake", "due": 1, "name": "n"})
    try:
        answer = timer.lambda_handler({"Records": [{"messageId": "m-1", "body": body}]}, None)
        with pytest.raises(Exception, match="could not be read"):  # EventBridge's event: Lambda retries it
            timer.lambda_handler(json.loads(body), None)
    finally:
        timer.reset()
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m-1"}]}
    blobs = emf.blobs(capsys.readouterr().out)
    assert [b.get("TimerErrors") for b in blobs] == [1, 1]
