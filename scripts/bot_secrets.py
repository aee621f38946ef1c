#!/usr/bin/env python3
"""Put the bot token and the webhook secret in SSM Parameter Store, where the stack reads them.

    .venv/bin/python scripts/bot_secrets.py put-token              # asks for the token, hidden as you type
    some-password-manager get bot | .venv/bin/python scripts/bot_secrets.py put-token   # or from stdin
    .venv/bin/python scripts/bot_secrets.py new-webhook-secret     # makes a new secret and puts it

Each puts a SecureString (encrypted with the AWS managed key ``aws/ssm``), overwriting the value, in the
parameter the stack's ``TelegramBotTokenParameter`` / ``TelegramWebhookSecretParameter`` names (their
defaults unless ``--token-parameter`` / ``--secret-parameter``), in ``--region`` or your AWS
configuration's. The token is read with getpass, or from stdin when stdin is not a terminal, never from
the command line (it would stay in the shell history); the secret is ``secrets.token_urlsafe(32)``: 43
characters of Telegram's alphabet (A-Z a-z 0-9 _ -). No secret is ever printed.

Then it prints the next step: ``sam deploy --parameter-overrides SecretsVersion=<n>``, where n is the
sum of the two parameters' SSM versions. Every put raises it, so it always differs from the deployed
value: CloudFormation updates the functions (their new containers read the new values) and sends the
custom resources an Update (setWebhook with the new secret, getMe with the new token). Before a stack's
first deploy, put both, then ``sam deploy --guided`` (docs/DEPLOY.md; rotation: docs/OPERATIONS.md).

Needs ssm:PutParameter and ssm:GetParameters on the two parameters (and boto3: ``.venv``).

(Not called ``secrets.py``: a script's folder comes first on ``sys.path``, so a ``scripts/secrets.py``
would stand in for the standard library's ``secrets`` in every script of this folder, e.g. for pydantic.)
"""
from __future__ import annotations

import argparse
import getpass
import re
import secrets
import sys
from typing import Any, TextIO

TOKEN_PARAMETER = "/avalon-bot/telegram-bot-token"  # template.yaml's defaults
SECRET_PARAMETER = "/avalon-bot/webhook-secret"
TOKEN_PATTERN = re.compile(r"^[0-9]+:[A-Za-z0-9_-]+$")  # what @BotFather gives: 123456789:AAE...
OVERRIDES = {"token_parameter": ("TelegramBotTokenParameter", TOKEN_PARAMETER),
             "secret_parameter": ("TelegramWebhookSecretParameter", SECRET_PARAMETER)}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Put the bot token or a new webhook secret in SSM Parameter Store.")
    parser.add_argument("command", choices=("put-token", "new-webhook-secret"),
                        help="put-token: the token from @BotFather (asked, or read from stdin); "
                             "new-webhook-secret: generate a secret and put it")
    parser.add_argument("--token-parameter", default=TOKEN_PARAMETER, help=f"(default {TOKEN_PARAMETER})")
    parser.add_argument("--secret-parameter", default=SECRET_PARAMETER, help=f"(default {SECRET_PARAMETER})")
    parser.add_argument("--region", help="AWS region of the stack (default: your AWS configuration)")
    args = parser.parse_args(argv)
    for name in ("token_parameter", "secret_parameter"):
        if not re.fullmatch(r"(/[A-Za-z0-9_.-]+)+", getattr(args, name)):  # template.yaml's AllowedPattern
            parser.error(f"--{name.replace('_', '-')} must be a parameter name starting with /")
    return args


def read_token(stdin: TextIO, ask: Any = getpass.getpass) -> str:
    """The token: asked without echo on a terminal, else the first line of stdin."""
    if stdin.isatty():
        return str(ask("Bot token from @BotFather (hidden): ")).strip()
    return stdin.readline().strip()


def version_of(ssm: Any, name: str) -> int | None:
    """The parameter's current version (its value stays encrypted: no decryption), None if it does not exist."""
    found = ssm.get_parameters(Names=[name], WithDecryption=False).get("Parameters") or []
    return int(found[0]["Version"]) if found else None


def main(argv: list[str] | None = None, *, ssm: Any = None, stdin: TextIO | None = None, ask: Any = None) -> int:
    args = parse_args(argv)
    stdin = stdin or sys.stdin
    if args.command == "put-token":
        name, other, other_command = args.token_parameter, args.secret_parameter, "new-webhook-secret"
        value = read_token(stdin, ask or getpass.getpass)
        if not TOKEN_PATTERN.match(value):
            print("error: that is not a bot token (digits, a colon, then A-Z a-z 0-9 _ -); nothing was stored",
                  file=sys.stderr)
            return 2
        what = f"the bot token (bot {value.split(':', 1)[0]})"
    else:
        name, other, other_command = args.secret_parameter, args.token_parameter, "put-token"
        value = secrets.token_urlsafe(32)
        what = "a new webhook secret"
    if ssm is None:
        import boto3

        ssm = boto3.session.Session(region_name=args.region).client("ssm")
    version = int(ssm.put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=True)["Version"])
    print(f"stored {what} in {name} (SecureString, version {version})")
    other_version = version_of(ssm, other)
    if other_version is None:
        print(f"next: {other} does not exist yet: scripts/bot_secrets.py {other_command}")
        return 0
    overrides = [f"SecretsVersion={version + other_version}"] + [
        f"{parameter}={getattr(args, option)}" for option, (parameter, default) in OVERRIDES.items()
        if getattr(args, option) != default]
    print(f"next: sam deploy --parameter-overrides {' '.join(overrides)}")
    print("  (a new stack: sam deploy --guided. A running one: deploy now; until then a container that "
          "starts reads the new value while Telegram and the warm containers still use the old one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
