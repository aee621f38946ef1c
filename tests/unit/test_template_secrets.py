"""The bot token and the webhook secret never reach a function's configuration: the stack names the SSM
Parameter Store SecureStrings holding them, the functions get the names and may read those parameters
alone, and a new ``SecretsVersion`` (a rotation) reaches the functions and both custom resources. The
Bot API's URL must be https (the token travels in every request's path)."""
from __future__ import annotations

import re
from typing import Any

import pytest

from gamebot.environment import _READ
from tests.unit.cfn_template import environment, functions, resources, template

SECRET_VARIABLES = {"TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET"}


def arn(parameter: str) -> str:
    """The ``Fn::Sub`` of the ARN of the SSM parameter the template parameter ``parameter`` names."""
    return "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${" + parameter + "}"


PARAMETERS = {"token": "TelegramBotTokenParameter", "secret": "TelegramWebhookSecretParameter"}
# what each function reads, and the variables naming it
READS = {"WebhookFunction": ("token", "secret"), "TimerFunction": ("token",), "SetupWebhookFunction": ("token", "secret")}
VARIABLES = {"token": "TELEGRAM_BOT_TOKEN_PARAMETER", "secret": "TELEGRAM_WEBHOOK_SECRET_PARAMETER"}


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in (key, *_strings(value))]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return [node] if isinstance(node, str) else []


def _statements(function: str) -> list[dict[str, Any]]:
    return [s for policy in resources[function]["Properties"].get("Policies", []) for s in policy["Statement"]]


def test_no_function_has_the_token_or_the_webhook_secret_in_its_environment():
    assert set(functions()) == set(READS)
    for function in functions():
        assert not SECRET_VARIABLES & set(environment(function)), function
    # nor does anything else of the stack carry them: no secret parameter, no custom resource property
    assert not [name for name, p in template["Parameters"].items() if p.get("NoEcho")]
    assert not {"TelegramBotToken", "TelegramWebhookSecret"} & set(template["Parameters"])
    for name in ("TelegramWebhook", "BotInfo"):
        assert not {"BotToken", "SecretToken"} & set(resources[name]["Properties"]), name


@pytest.mark.parametrize("function", ["WebhookFunction", "TimerFunction"])
def test_the_game_functions_get_the_parameters_names_and_the_secrets_version(function):
    env = environment(function)
    for what in ("token", "secret"):
        if what in READS[function]:
            assert env[VARIABLES[what]] == {"Ref": PARAMETERS[what]}
        else:
            assert VARIABLES[what] not in env  # (the timer function never needs the webhook secret)
    assert env["SECRETS_VERSION"] == {"Ref": "SecretsVersion"}
    assert {name for name in env if name.startswith(("TELEGRAM_", "SECRETS_"))} <= _READ  # (what the bot reads)


@pytest.mark.parametrize("function", sorted(READS))
def test_each_function_may_read_exactly_its_parameters_with_get_parameters(function):
    ssm = [s for s in _statements(function) if any(x.startswith(("ssm:", "kms:")) for x in _strings(s["Action"]))]
    (statement,) = ssm  # no kms statement: the AWS managed key aws/ssm decrypts for the account's principals
    assert statement["Effect"] == "Allow" and statement["Action"] == "ssm:GetParameters"
    resource = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
    assert resource == [{"Fn::Sub": arn(PARAMETERS[what])} for what in READS[function]]
    assert "Condition" not in statement


def test_a_parameters_arn_has_one_slash_before_its_name():
    # A name starting with / (the AllowedPattern) makes ...:parameter/avalon-bot/...: "parameter" and the
    # name are joined with nothing between them (with a slash: parameter//avalon-bot, which matches nothing).
    for what, parameter in PARAMETERS.items():
        default = template["Parameters"][parameter]["Default"]
        resolved = arn(parameter).replace("${" + parameter + "}", default)
        assert resolved.endswith(f":parameter{default}") and "parameter//" not in resolved, what
        assert default.startswith("/") and resolved.endswith(":parameter/avalon-bot/" + default.split("/")[-1])


@pytest.mark.parametrize("parameter", sorted(PARAMETERS.values()))
def test_the_parameters_are_names_starting_with_a_slash(parameter):
    spec = template["Parameters"][parameter]
    assert spec["Type"] == "String" and "NoEcho" not in spec
    pattern = re.compile(spec["AllowedPattern"])
    assert pattern.fullmatch(spec["Default"]) and spec["Default"].startswith("/avalon-bot/")
    for good in ("/avalon-bot/telegram-bot-token", "/prod/bots/Avalon_2.token", "/x"):
        assert pattern.fullmatch(good), good
    for bad in ("avalon-bot/token", "/avalon-bot//token", "/avalon-bot/", "", "/a b", "/a/b*",
                "arn:aws:ssm:us-east-1:1:parameter/x"):
        assert not pattern.fullmatch(bad), bad


def test_the_defaults_are_what_the_secrets_script_puts():
    from scripts import bot_secrets

    assert template["Parameters"]["TelegramBotTokenParameter"]["Default"] == bot_secrets.TOKEN_PARAMETER
    assert template["Parameters"]["TelegramWebhookSecretParameter"]["Default"] == bot_secrets.SECRET_PARAMETER
    assert {name for name, _ in bot_secrets.OVERRIDES.values()} == set(PARAMETERS.values())


def test_a_new_secrets_version_reaches_the_functions_and_both_custom_resources():
    version = template["Parameters"]["SecretsVersion"]
    assert version["Type"] == "String" and version["Default"] == "1"
    assert re.fullmatch(version["AllowedPattern"], "2") and not re.fullmatch(version["AllowedPattern"], "")
    webhook, info = resources["TelegramWebhook"]["Properties"], resources["BotInfo"]["Properties"]
    assert webhook["SecretsVersion"] == info["SecretsVersion"] == {"Ref": "SecretsVersion"}
    assert (webhook["BotTokenParameter"], webhook["SecretTokenParameter"]) == (
        {"Ref": "TelegramBotTokenParameter"}, {"Ref": "TelegramWebhookSecretParameter"})
    assert info["BotTokenParameter"] == {"Ref": "TelegramBotTokenParameter"} and "SecretTokenParameter" not in info


def test_the_bot_api_url_must_be_https():
    spec = template["Parameters"]["TelegramApiBaseUrl"]
    pattern = re.compile(spec["AllowedPattern"])
    assert pattern.fullmatch(spec["Default"]) and spec["Default"] == "https://api.telegram.org"
    for good in ("https://api.telegram.org", "https://bots.example.com:8443/telegram"):
        assert pattern.fullmatch(good), good
    for bad in ("http://api.telegram.org", "HTTP://api.telegram.org", "ftp://api.telegram.org", "https://",
                "api.telegram.org", "https://api.telegram.org /x", "//api.telegram.org"):
        assert not pattern.fullmatch(bad), bad
