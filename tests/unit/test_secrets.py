"""``gamebot.core.secrets``: the token and the webhook secret from SSM Parameter Store (moto, in process),
one GetParameters call for both, once per container and cache key; a failure raised as a BadSetting
after one log line without any value, and not kept."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from gamebot.core import logs, runtime, secrets
from gamebot.environment import BadSetting, Environment
from tests.ssm_helpers import count_reads, moto_ssm

TOKEN = "123456:AAE-secret_token-value"
SECRET = "webhook-" + "w" * 40
TOKEN_PARAMETER = "/avalon-bot/telegram-bot-token"
SECRET_PARAMETER = "/avalon-bot/webhook-secret"
DEPLOYED = Environment(bot_token_parameter=TOKEN_PARAMETER, webhook_secret_parameter=SECRET_PARAMETER,
                       secrets_version="1", aws_region="eu-west-1")


@pytest.fixture
def ssm(monkeypatch) -> Iterator[Any]:
    """SSM on moto (in process), with both parameters put; the values kept are forgotten around the test."""
    secrets.forget()
    with moto_ssm(monkeypatch) as client:
        client.put_parameter(Name=TOKEN_PARAMETER, Value=TOKEN, Type="SecureString")
        client.put_parameter(Name=SECRET_PARAMETER, Value=SECRET, Type="SecureString")
        yield client
    secrets.forget()


@pytest.fixture
def reads(ssm, monkeypatch) -> list[list[str]]:
    """The names of each GetParameters call ``secrets`` makes."""
    return count_reads(monkeypatch)


def test_without_parameter_names_the_settings_are_the_variables_and_nothing_is_asked(monkeypatch):
    def never(env: Environment) -> Any:
        raise AssertionError("no SSM client without a parameter name")

    monkeypatch.setattr(secrets, "ssm_client", never)
    env = Environment(bot_token="1:plain", webhook_secret="plain-secret")
    assert secrets.resolved(env) is env


def test_both_are_read_in_one_call_and_kept_for_the_container(reads):
    env = secrets.resolved(DEPLOYED)
    assert (env.bot_token, env.webhook_secret) == (TOKEN, SECRET)
    assert env == replace(DEPLOYED, bot_token=TOKEN, webhook_secret=SECRET)
    for _ in range(3):
        assert secrets.resolved(DEPLOYED) == env
    assert reads == [[TOKEN_PARAMETER, SECRET_PARAMETER]]
    assert TOKEN not in repr(env) and SECRET not in repr(env)


@pytest.mark.parametrize("change", [
    {"secrets_version": "2"}, {"webhook_secret_parameter": "/avalon-bot/other-secret"}, {"aws_region": "us-east-1"},
], ids=["a new version", "another parameter", "another region"])
def test_a_new_cache_key_reads_them_again(ssm, reads, change):
    ssm.put_parameter(Name="/avalon-bot/other-secret", Value="other-" + "o" * 40, Type="SecureString")
    secrets.resolved(DEPLOYED)
    ssm.put_parameter(Name=SECRET_PARAMETER, Value="rotated-" + "r" * 40, Type="SecureString", Overwrite=True)
    assert secrets.resolved(DEPLOYED).webhook_secret == SECRET  # the same key: what the container read
    if change.get("aws_region") == "us-east-1":  # (a parameter lives in one region)
        import boto3

        other = boto3.client("ssm", region_name="us-east-1")
        other.put_parameter(Name=TOKEN_PARAMETER, Value=TOKEN, Type="SecureString")
        other.put_parameter(Name=SECRET_PARAMETER, Value="east-" + "e" * 40, Type="SecureString")
    env = secrets.resolved(replace(DEPLOYED, **change))
    assert len(reads) == 2 and env.webhook_secret != SECRET and env.bot_token == TOKEN


def test_the_timer_function_reads_the_token_alone(reads):
    env = secrets.resolved(replace(DEPLOYED, webhook_secret_parameter=""))
    assert (env.bot_token, env.webhook_secret) == (TOKEN, "")
    assert reads == [[TOKEN_PARAMETER]]


def test_a_value_put_with_a_newline_is_read_without_it(ssm, reads):
    ssm.put_parameter(Name=TOKEN_PARAMETER, Value=TOKEN + "\n", Type="SecureString", Overwrite=True)
    assert secrets.resolved(DEPLOYED).bot_token == TOKEN


def test_a_missing_parameter_is_a_bad_setting_logged_by_name_and_not_kept(ssm, reads, caplog):
    ssm.delete_parameter(Name=SECRET_PARAMETER)
    with caplog.at_level(logging.INFO), pytest.raises(BadSetting) as caught:
        secrets.resolved(DEPLOYED)
    assert isinstance(caught.value, secrets.SecretsUnavailable)
    assert SECRET_PARAMETER in str(caught.value) and "ParameterNotFound" in str(caught.value)
    (line,) = [r for r in caplog.records if r.name == "gamebot.secrets"]
    assert line.levelno == logging.ERROR and SECRET_PARAMETER in line.getMessage()
    assert "eu-west-1" in line.getMessage() and "scripts/bot_secrets.py" in line.getMessage()
    assert TOKEN not in caplog.text and TOKEN not in str(caught.value)  # (the token was read: never shown)
    ssm.put_parameter(Name=SECRET_PARAMETER, Value=SECRET, Type="SecureString")
    assert secrets.resolved(DEPLOYED).webhook_secret == SECRET  # the next invocation asks again
    assert len(reads) == 2


def test_an_error_of_ssm_names_its_code_and_the_parameters(caplog):
    from botocore.exceptions import ClientError

    class Throttled:
        def get_parameters(self, **kwargs: Any) -> Any:
            raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "GetParameters")

    with caplog.at_level(logging.INFO), pytest.raises(secrets.SecretsUnavailable) as caught:
        secrets.resolved(DEPLOYED, client=Throttled())
    assert "ThrottlingException" in str(caught.value) and TOKEN_PARAMETER in str(caught.value)
    assert "ClientError ThrottlingException: An error occurred" in caplog.text and SECRET_PARAMETER in caplog.text


def test_the_runtimes_environment_resolves_them_and_the_logs_hide_them(ssm, monkeypatch):
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN_PARAMETER", TOKEN_PARAMETER)
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET_PARAMETER", SECRET_PARAMETER)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    try:
        env, _ = runtime.environment()
        assert (env.bot_token, env.webhook_secret) == (TOKEN, SECRET)
        assert logs.redacted(f"url /bot{TOKEN}/sendMessage, header {SECRET}") == "url /bot***/sendMessage, header ***"
    finally:
        logs.keep_secret()


def test_the_functions_logging_keeps_botocores_debug_lines_out():
    # (botocore logs response bodies at DEBUG: the decrypted values)
    runtime.lambda_logging("gamebot.test")
    assert logging.getLogger("botocore").getEffectiveLevel() >= logging.WARNING
