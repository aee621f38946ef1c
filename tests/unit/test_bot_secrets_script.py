"""``scripts/bot_secrets.py``: the token (asked, or from stdin; never an argument) and a new webhook secret
put in SSM Parameter Store as SecureStrings (moto, in process), the next step printed, no secret printed."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts import bot_secrets
from tests.ssm_helpers import moto_ssm

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456789:AAE-bot_token-value"
TELEGRAM_SECRET = re.compile(r"[A-Za-z0-9_-]{32,256}")  # what setWebhook accepts, with the stack's minimum


class Stdin(io.StringIO):
    def __init__(self, text: str = "", tty: bool = False) -> None:
        super().__init__(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture
def ssm(monkeypatch) -> Iterator[Any]:
    with moto_ssm(monkeypatch) as client:
        yield client


def run(argv: list[str], capsys: Any, **kwargs: Any) -> tuple[int, str]:
    code = bot_secrets.main(argv, **kwargs)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def stored(ssm: Any, name: str) -> dict[str, Any]:
    return dict(ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"])


def test_put_token_reads_stdin_stores_a_securestring_and_asks_for_the_secret_next(ssm, capsys):
    code, out = run(["put-token"], capsys, ssm=ssm, stdin=Stdin(TOKEN + "\n"))
    assert code == 0
    parameter = stored(ssm, bot_secrets.TOKEN_PARAMETER)
    assert (parameter["Type"], parameter["Value"], parameter["Version"]) == ("SecureString", TOKEN, 1)
    assert TOKEN not in out and "bot 123456789" in out and bot_secrets.TOKEN_PARAMETER in out
    assert "scripts/bot_secrets.py new-webhook-secret" in out and "sam deploy" not in out


def test_the_token_is_asked_without_echo_on_a_terminal_and_is_never_an_argument(ssm, capsys):
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return TOKEN

    code, out = run(["put-token"], capsys, ssm=ssm, stdin=Stdin(tty=True), ask=ask)
    assert code == 0 and asked and stored(ssm, bot_secrets.TOKEN_PARAMETER)["Value"] == TOKEN
    assert TOKEN not in out
    with pytest.raises(SystemExit):
        bot_secrets.main(["put-token", TOKEN], ssm=ssm)
    with pytest.raises(SystemExit):
        bot_secrets.main(["put-token", "--token", TOKEN], ssm=ssm)


def test_something_that_is_not_a_token_is_refused_and_not_shown(ssm, capsys):
    wrong = "not a token but a password"
    code, out = run(["put-token"], capsys, ssm=ssm, stdin=Stdin(wrong))
    assert code == 2 and "not a bot token" in out and wrong not in out
    assert ssm.get_parameters(Names=[bot_secrets.TOKEN_PARAMETER])["Parameters"] == []


def test_new_webhook_secret_puts_a_random_telegram_secret_and_prints_the_deploy_with_a_new_version(ssm, capsys):
    run(["put-token"], capsys, ssm=ssm, stdin=Stdin(TOKEN))
    code, out = run(["new-webhook-secret"], capsys, ssm=ssm)
    first = stored(ssm, bot_secrets.SECRET_PARAMETER)
    assert code == 0 and first["Type"] == "SecureString" and TELEGRAM_SECRET.fullmatch(first["Value"])
    assert len(first["Value"]) == 43 and first["Value"] not in out  # secrets.token_urlsafe(32)
    assert "next: sam deploy --parameter-overrides SecretsVersion=2" in out  # token v1 + secret v1
    code, out = run(["new-webhook-secret"], capsys, ssm=ssm)  # a rotation: overwritten, version 2
    second = stored(ssm, bot_secrets.SECRET_PARAMETER)
    assert second["Version"] == 2 and second["Value"] != first["Value"] and second["Value"] not in out
    assert "SecretsVersion=3" in out
    code, out = run(["put-token"], capsys, ssm=ssm, stdin=Stdin(TOKEN))  # a token rotation: higher again
    assert "SecretsVersion=4" in out and TOKEN not in out


def test_other_parameter_names_are_used_and_named_in_the_deploy_and_region_picks_the_client(ssm, capsys):
    names = ["--token-parameter", "/bots/avalon/token", "--secret-parameter", "/bots/avalon/secret"]
    run(["put-token", *names, "--region", "eu-west-1"], capsys, stdin=Stdin(TOKEN))  # (boto3's own client)
    code, out = run(["new-webhook-secret", *names, "--region", "eu-west-1"], capsys)
    assert code == 0 and stored(ssm, "/bots/avalon/token")["Value"] == TOKEN
    assert TELEGRAM_SECRET.fullmatch(stored(ssm, "/bots/avalon/secret")["Value"])
    assert ("sam deploy --parameter-overrides SecretsVersion=2 TelegramBotTokenParameter=/bots/avalon/token "
            "TelegramWebhookSecretParameter=/bots/avalon/secret") in out
    with pytest.raises(SystemExit):
        bot_secrets.main(["new-webhook-secret", "--secret-parameter", "bots/no-slash"], ssm=ssm)


def test_the_script_runs_as_a_script_and_no_script_shadows_the_standard_library():
    # A script's folder comes first on sys.path: a scripts/secrets.py would be imported for the standard
    # library's secrets by every script of the folder (pydantic imports it), so the script is bot_secrets.
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "bot_secrets.py"), "--help"],
                            capture_output=True, text=True, check=False, cwd=ROOT)
    assert result.returncode == 0 and "new-webhook-secret" in result.stdout
    assert not {p.stem for p in (ROOT / "scripts").glob("*.py")} & sys.stdlib_module_names
