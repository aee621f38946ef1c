#!/usr/bin/env python3
"""Register, inspect or delete the bot's Telegram webhook by hand.

A deploy registers the webhook by itself (the stack's ``TelegramWebhook`` custom resource); use
this to re-register it, e.g. after pointing the bot elsewhere for a while, or to see what Telegram
reports (``--info``: pending updates, last delivery error, max_connections). Setting it sends the same
parameters as a deploy (``set_webhook_params`` of the custom resource: max_connections 100 included).

Values come from the options, else from the environment (TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_URL,
TELEGRAM_WEBHOOK_SECRET, TELEGRAM_API_BASE_URL), else, with ``--stack NAME``, from the deployed stack:
the URL from its outputs, the API base URL and the names of the SSM parameters holding the token and
the secret from the webhook function's environment, and the values from those parameters, in one
GetParameters call (needs cloudformation:DescribeStacks, lambda:GetFunctionConfiguration and
ssm:GetParameters; a stack of an earlier template kept the values themselves in the function's
environment: they are read there). Prefer the environment or ``--stack`` to ``--token``: options end up
in shell history.

    scripts/set_webhook.py --stack avalon-bot            # setWebhook + setMyCommands, as a deploy does
    scripts/set_webhook.py --stack avalon-bot --info     # getWebhookInfo
    scripts/set_webhook.py --stack avalon-bot --delete   # deleteWebhook
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram accepts


def _load_setup_module() -> Any:
    """The custom resource's module: the same request-building as a deploy."""
    shared = str(ROOT / "shared")
    if shared not in sys.path:
        sys.path.insert(0, shared)  # gamebot.botapi.commands
    spec = importlib.util.spec_from_file_location("setup_webhook_app", ROOT / "functions/setup_webhook/app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


setup = _load_setup_module()
from gamebot.core.secrets import SecretsUnavailable  # noqa: E402 (the layer is on the path now)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(description="Register, inspect or delete the bot's Telegram webhook.")
    parser.add_argument("--stack", help="read missing values from this deployed CloudFormation stack")
    parser.add_argument("--region", help="AWS region of the stack (default: your AWS configuration)")
    parser.add_argument("--token", default=env("TELEGRAM_BOT_TOKEN"), help="bot token (env TELEGRAM_BOT_TOKEN)")
    parser.add_argument("--url", default=env("TELEGRAM_WEBHOOK_URL"), help="webhook URL (env TELEGRAM_WEBHOOK_URL)")
    parser.add_argument(
        "--secret", default=env("TELEGRAM_WEBHOOK_SECRET"), help="secret token (env TELEGRAM_WEBHOOK_SECRET)"
    )
    parser.add_argument(
        "--api-base-url", default=env("TELEGRAM_API_BASE_URL"), help="Bot API server (env TELEGRAM_API_BASE_URL)"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--delete", action="store_true", help="deleteWebhook")
    action.add_argument("--info", action="store_true", help="getWebhookInfo")
    parser.add_argument("--keep-pending", action="store_true", help="keep updates Telegram holds (default: drop)")
    parser.add_argument("--no-commands", action="store_true", help="skip setMyCommands")
    args = parser.parse_args(argv)
    args.parser = parser
    return args


def settings_from_stack(
    stack: str, region: str | None, *, want_function_env: bool, cfn: Any = None, lambda_client: Any = None,
    ssm: Any = None,
) -> dict[str, str | None]:
    """The webhook URL from the stack outputs and, if asked, the webhook function's settings: the token
    and the secret from the SSM parameters its environment names (an earlier template's stack: from its
    environment itself)."""
    def session() -> Any:
        import boto3  # only needed with --stack

        return boto3.session.Session(region_name=region)

    if cfn is None or (want_function_env and lambda_client is None):
        cfn = cfn or session().client("cloudformation")
        lambda_client = lambda_client or session().client("lambda")
    stacks = cfn.describe_stacks(StackName=stack)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    found: dict[str, str | None] = {"url": outputs.get("WebhookUrl")}
    function = outputs.get("WebhookFunctionName")
    if want_function_env and function:
        config = lambda_client.get_function_configuration(FunctionName=function)
        variables = (config.get("Environment") or {}).get("Variables") or {}
        found["token"] = variables.get("TELEGRAM_BOT_TOKEN")
        found["secret"] = variables.get("TELEGRAM_WEBHOOK_SECRET")
        found["api_base_url"] = variables.get("TELEGRAM_API_BASE_URL")
        names = {key: variables.get(f"TELEGRAM_{variable}_PARAMETER")
                 for key, variable in (("token", "BOT_TOKEN"), ("secret", "WEBHOOK_SECRET"))}
        names = {key: name for key, name in names.items() if name}
        if names:  # one GetParameters call for both (gamebot.core.secrets: the functions' own reading)
            values = setup.read_parameters(list(names.values()), client=ssm or session().client("ssm"))
            found.update({key: values[name] for key, name in names.items()})
    return found


def main(argv: list[str] | None = None, *, cfn: Any = None, lambda_client: Any = None, ssm: Any = None) -> int:
    args = parse_args(argv)
    parser = args.parser
    if args.stack:
        setting = not (args.delete or args.info)
        need_env = not args.token or (setting and not args.secret) or not args.api_base_url
        try:
            found = settings_from_stack(
                args.stack, args.region, want_function_env=need_env, cfn=cfn, lambda_client=lambda_client, ssm=ssm
            )
        except SecretsUnavailable as exc:  # (names the parameters, never a value)
            print(f"error: {exc}", file=sys.stderr)
            return 1
        for name in ("token", "url", "secret", "api_base_url"):
            if not getattr(args, name) and found.get(name):
                setattr(args, name, found[name])
    if not args.token:
        parser.error("no bot token: pass --stack, set TELEGRAM_BOT_TOKEN or use --token")
    base = setup.api_base_url(args.api_base_url)
    deadline = setup.Deadline(60.0)
    try:
        if args.info:
            info = setup.call_bot_api(args.token, "getWebhookInfo", base_url=base, deadline=deadline)
            print(json.dumps(info, indent=2, sort_keys=True))
            return 0
        if args.delete:
            params = {"drop_pending_updates": not args.keep_pending}
            setup.call_bot_api(args.token, "deleteWebhook", params, base_url=base, deadline=deadline)
            print(f"webhook deleted for bot {setup.bot_id(args.token)}")
            return 0
        if not args.url:
            parser.error("no webhook URL: pass --stack, set TELEGRAM_WEBHOOK_URL or use --url")
        if not args.secret or not SECRET_PATTERN.match(args.secret):
            parser.error("the secret must be 1-256 characters of A-Z a-z 0-9 _ - (TELEGRAM_WEBHOOK_SECRET)")
        params = setup.set_webhook_params(args.url, args.secret, drop_pending_updates=not args.keep_pending)
        setup.call_bot_api(args.token, "setWebhook", params, base_url=base, deadline=deadline)
        print(f"webhook of bot {setup.bot_id(args.token)} set to {args.url}")
        print(f"allowed updates: {', '.join(params['allowed_updates'])}")
        print(f"max connections: {params['max_connections']}")
        if not args.no_commands:
            for menu in setup.load_menus():
                setup.call_bot_api(args.token, "setMyCommands", menu, base_url=base, deadline=deadline)
                where = f" ({menu['language_code']})" if "language_code" in menu else ""
                print(f"command menu set{where}: {' '.join('/' + c['command'] for c in menu['commands'])}")
        return 0
    except setup.TelegramError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
