"""The deployment's settings: one typed object, read from the environment in one place."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from gamebot.environment import ARCHIVE_DAYS, BadSetting, Environment, aws_credentials

ROOT = Path(__file__).resolve().parents[2]


def test_an_empty_environment_gives_the_documented_defaults():
    env = Environment.read({})
    assert env == Environment()
    assert env.api_base_url == "https://api.telegram.org" and env.archive_days == ARCHIVE_DAYS == 30
    assert env.group_messages_per_minute is None and env.player_throttle and env.log_level == "INFO"
    assert env.aws_region == "us-east-1" and env.aws_endpoint("DYNAMODB") is None and (env.timer_function_arn, env.scheduler_role_arn, env.schedule_group) == ("", "", "")


def test_every_variable_is_read_and_typed():
    env = Environment.read({
        "TELEGRAM_BOT_TOKEN": "1:abc", "TELEGRAM_WEBHOOK_SECRET": "s3", "TELEGRAM_API_BASE_URL": "http://x:1/",
        "TELEGRAM_BOT_USERNAME": "avalonbot", "TABLE_NAME": "t", "GAME_ARCHIVE_DAYS": "7.5",
        "GROUP_MESSAGES_PER_MINUTE": "0", "PLAYER_THROTTLE": " 0 ", "LOG_LEVEL": "debug",
        "TIMER_FUNCTION_ARN": "arn:f", "SCHEDULER_ROLE_ARN": "arn:r", "SCHEDULE_GROUP": "g",
        "AWS_DEFAULT_REGION": "eu-west-1", "AWS_ENDPOINT_URL": "http://all", "AWS_ENDPOINT_URL_DYNAMODB": "http://db",
        "AWS_CA_BUNDLE": "/ca.pem", "STACK_NAME": " avalon ", "AWS_LAMBDA_FUNCTION_NAME": "avalon-webhook"})
    assert (env.bot_token, env.webhook_secret, env.api_base_url, env.bot_username, env.table_name) == (
        "1:abc", "s3", "http://x:1", "avalonbot", "t")
    assert env.archive_days == 7.5 and env.group_messages_per_minute == 0 and not env.player_throttle
    assert env.log_level == "DEBUG" and (env.timer_function_arn, env.scheduler_role_arn, env.schedule_group) == ("arn:f", "arn:r", "g") and env.aws_region == "eu-west-1"
    assert env.aws_endpoint("DYNAMODB") == "http://db" and env.aws_endpoint("SCHEDULER") == "http://all"
    assert env.aws_ca_bundle == "/ca.pem"
    assert env.stack_name == "avalon" and env.lambda_function == "avalon-webhook"
    assert Environment.read({"AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "x"}).aws_region == "ap-south-1"
    assert Environment.read({"LOG_LEVEL": "chatty"}).log_level == "INFO"


def test_the_secrets_parameters_and_version_are_read_and_optional():
    env = Environment.read({"TELEGRAM_BOT_TOKEN_PARAMETER": " /avalon-bot/telegram-bot-token ",
                            "TELEGRAM_WEBHOOK_SECRET_PARAMETER": "/avalon-bot/webhook-secret", "SECRETS_VERSION": "2"})
    assert (env.bot_token_parameter, env.webhook_secret_parameter, env.secrets_version) == (
        "/avalon-bot/telegram-bot-token", "/avalon-bot/webhook-secret", "2")
    assert (env.bot_token, env.webhook_secret) == ("", "")  # (gamebot.core.secrets reads the values)
    assert Environment.read({}).bot_token_parameter == "" and Environment.read({}).secrets_version == ""


def test_the_timers_dead_letter_queue_is_read_and_optional():
    assert Environment.read({"TIMER_DLQ_ARN": "arn:aws:sqs:us-east-1:1:q"}).timer_dlq_arn == "arn:aws:sqs:us-east-1:1:q"
    env = Environment.read({"TIMER_FUNCTION_ARN": "arn:f", "SCHEDULER_ROLE_ARN": "arn:r", "SCHEDULE_GROUP": "g"})
    assert env.timer_dlq_arn == "" and (env.timer_function_arn, env.scheduler_role_arn, env.schedule_group) == ("arn:f", "arn:r", "g")  # timers run without it


@pytest.mark.parametrize("name, value", [("GAME_ARCHIVE_DAYS", "thirty"), ("GAME_ARCHIVE_DAYS", "-3"),
                                         ("GROUP_MESSAGES_PER_MINUTE", "20.5"), ("GROUP_MESSAGES_PER_MINUTE", "-1")])
def test_a_value_that_does_not_parse_names_its_variable_and_never_its_value(name, value):
    with pytest.raises(BadSetting) as caught:
        Environment.read({name: value})
    assert name in str(caught.value) and value not in str(caught.value)


def test_secrets_stay_out_of_the_settings_repr():
    shown = repr(Environment.read({"TELEGRAM_BOT_TOKEN": "123:SECRETTOKEN", "TELEGRAM_WEBHOOK_SECRET": "hushhush"}))
    assert "SECRETTOKEN" not in shown and "hushhush" not in shown and "api_base_url" in shown


def test_aws_credentials_come_from_the_environment_only_when_both_keys_are_there():
    assert aws_credentials({"AWS_ACCESS_KEY_ID": "k"}) is None
    assert aws_credentials({"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}) == ("k", "s", None)
    assert aws_credentials({"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t"}) == (
        "k", "s", "t")


def reads_the_environment(path: Path) -> list[int]:
    """Lines of ``path`` that read the process environment (``os.environ``, ``os.getenv``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                and node.attr in ("environ", "getenv"):
            found.append(node.lineno)
    return found


def test_only_the_environment_module_reads_the_environment():
    """The bot's code (the layer and the Lambda functions) reads no variable but through
    ``gamebot.environment``; the playground and the tests set variables, as Lambda does."""
    files = [*(ROOT / "shared").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]
    readers = {str(p.relative_to(ROOT)) for p in files if "__pycache__" not in p.parts and reads_the_environment(p)}
    assert readers == {"shared/gamebot/environment.py"}


def test_a_setting_that_does_not_parse_is_answered_500_so_that_telegram_redelivers(monkeypatch, caplog):
    import app

    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", "s")
    monkeypatch.setenv("GAME_ARCHIVE_DAYS", "a month")
    event = {"headers": {"x-telegram-bot-api-secret-token": "s"}, "body": json.dumps({"update_id": 1})}
    answer = app.lambda_handler(event, None)
    assert answer["statusCode"] == 500
    assert "GAME_ARCHIVE_DAYS" in caplog.text and "a month" not in caplog.text


def test_the_process_environment_reads_as_the_same_variables_in_a_dict(monkeypatch):
    for name, value in {"TABLE_NAME": "t", "AWS_ENDPOINT_URL_DYNAMODB": "http://db", "AWS_ENDPOINT_URL_SQS": "",
                        "GROUP_MESSAGES_PER_MINUTE": "7", "STACK_NAME": "s", "LOG_LEVEL": "warning"}.items():
        monkeypatch.setenv(name, value)
    import os

    env = Environment.read()
    assert env == Environment.read(dict(os.environ))
    assert env.aws_endpoints == (("DYNAMODB", "http://db"),) and env.group_messages_per_minute == 7
