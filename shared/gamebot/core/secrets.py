"""The bot token and the webhook secret from SSM Parameter Store, read once per container.

On AWS the functions' environment does not hold the two secrets (anyone allowed
``lambda:GetFunctionConfiguration`` could read them there): it names two SecureString parameters,
``TELEGRAM_BOT_TOKEN_PARAMETER`` and ``TELEGRAM_WEBHOOK_SECRET_PARAMETER`` (template.yaml; the operator
creates them with ``scripts/bot_secrets.py``). :func:`resolved` fills the settings' ``bot_token`` and
``webhook_secret`` from them, with ONE ``GetParameters`` call (``WithDecryption``) for both, at a
container's first invocation; the values are then kept for the container's life. The cache key is the
parameters' names, ``SECRETS_VERSION`` (a rotation changes it: ``SecretsVersion`` in template.yaml, so
the functions' configuration changes and new containers read the new values), the region and the SSM
endpoint. A failure is not kept: the next invocation asks again.

Where no parameter is named (the playground, the tests, any local harness) the settings are returned as
they are (``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_WEBHOOK_SECRET``) and nothing is imported. Otherwise the
Lambda runtime's AWS SDK reads them (our own AWS client speaks DynamoDB and Scheduler alone): botocore,
imported on the first read (``gamebot.aws.runtime_sdk``). Its cost at a cold start: docs/BENCHMARKS.md,
section 2.

A read that fails raises :class:`SecretsUnavailable`, a ``BadSetting``, after one error line naming the
parameters, the region and the error (never a value: none was read): the webhook answers 500 and
Telegram redelivers. ``gamebot.core.runtime.environment`` hands the values read to
``gamebot.core.logs.keep_secret``, and ``runtime.lambda_logging`` keeps botocore's DEBUG lines (which
show response bodies) out of the logs.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gamebot.aws import runtime_sdk
from gamebot.environment import BadSetting, Environment

log = logging.getLogger("gamebot.secrets")

class SecretsUnavailable(BadSetting):
    """The SSM parameters could not be read (the message names them and the error, never a value)."""


Key = tuple[str, str, str, str, str]
_lock = threading.Lock()
_kept: dict[Key, dict[str, str]] = {}  # (at most one entry: the container's settings)


def resolved(env: Environment, client: Any = None) -> Environment:
    """``env`` with the token and the webhook secret its parameters hold (``env`` itself when it names
    none). Read once per container and cache key; raises :class:`SecretsUnavailable`."""
    if not (env.bot_token_parameter or env.webhook_secret_parameter):
        return env
    key = (env.bot_token_parameter, env.webhook_secret_parameter, env.secrets_version, env.aws_region,
           env.aws_endpoint("SSM") or "")
    with _lock:  # (one read per container even if invocations overlap: the playground's threads)
        values = _kept.get(key)
        if values is None:
            names = [name for name in key[:2] if name]
            values = read_parameters(names, env, client)
            _kept.clear()
            _kept[key] = values
    return replace(
        env,
        bot_token=values[env.bot_token_parameter] if env.bot_token_parameter else env.bot_token,
        webhook_secret=values[env.webhook_secret_parameter] if env.webhook_secret_parameter else env.webhook_secret,
    )


def forget() -> None:
    """Drop the values kept (tests that put other values under the same names)."""
    with _lock:
        _kept.clear()


def read_parameters(names: Sequence[str], env: Environment | None = None, client: Any = None) -> dict[str, str]:
    """``{name: decrypted value}`` of the SSM parameters ``names``, in one ``GetParameters`` call (also
    the setup function's and the scripts'). Raises :class:`SecretsUnavailable`, logged, when the call
    fails or a parameter is missing or empty."""
    env = env or Environment.read()
    wanted = list(dict.fromkeys(names))
    try:
        answer = (client or ssm_client(env)).get_parameters(Names=wanted, WithDecryption=True)
    except Exception as exc:  # (no value in it: none was read)
        raise _failure(wanted, env, _reason(exc)) from None
    found = {str(p.get("Name")): str(p.get("Value") or "").strip() for p in answer.get("Parameters") or []}
    missing = [name for name in wanted if not found.get(name)]
    if missing:
        raise _failure(missing, env, "ParameterNotFound: create it with scripts/bot_secrets.py")
    return {name: found[name] for name in wanted}


def ssm_client(env: Environment) -> Any:
    """An SSM client of the runtime's botocore, made on first use (``gamebot.aws.runtime_sdk``)."""
    return runtime_sdk.client("ssm", env)


def _reason(exc: Exception) -> str:
    """The error's type, its AWS code and its message, shortened (an AccessDenied names the role and the
    parameter's ARN: what the operator needs)."""
    error = (getattr(exc, "response", None) or {}).get("Error") or {}
    code = f" {error['Code']}" if error.get("Code") else ""
    message = str(exc).replace("\n", " ")
    return f"{type(exc).__name__}{code}: {message[:300]}" if message else f"{type(exc).__name__}{code}"


def _failure(names: Sequence[str], env: Environment, reason: str) -> SecretsUnavailable:
    shown = ", ".join(names)
    log.error("could not read the bot's secrets from SSM Parameter Store (%s, region %s): %s",
              shown, env.aws_region, reason)
    return SecretsUnavailable(f"the SSM parameter(s) {shown} could not be read: {reason.split(':')[0]}")
