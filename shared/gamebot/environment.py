"""The deployment's settings: every environment variable the bot reads, typed, read in this module alone.

Lambda gets them from ``template.yaml``; the playground and the tests set them too. ``Environment.read()``
reads them all at once (a few microseconds): the Lambda functions read them per invocation, so that a
container's service is rebuilt when they change (``gamebot.core.runtime.Container``: tests change them
between cases). A value that does not parse raises :class:`BadSetting`, which names the variable (the
functions log it and answer 500; the value itself is never logged, it may be a secret). Secrets are left
out of the object's ``repr``.

On AWS the token and the webhook secret are not in the environment: the stack names two SSM Parameter
Store SecureStrings (``*_PARAMETER``), which ``gamebot.core.secrets`` reads once per container (the
functions' ``gamebot.core.runtime.environment``); where no parameter is named (the playground, the tests),
``TELEGRAM_BOT_TOKEN`` and ``TELEGRAM_WEBHOOK_SECRET`` hold the values themselves.

======================================  ===========================================================  ============
variable                                what it sets                                                 default
======================================  ===========================================================  ============
``TELEGRAM_BOT_TOKEN``                  the bot's token (where no parameter names it)                (none)
``TELEGRAM_WEBHOOK_SECRET``             the webhook's secret header (unset: every update refused)    (none)
``TELEGRAM_BOT_TOKEN_PARAMETER``        the SSM SecureString holding the token (set: it wins over    (none)
                                        ``TELEGRAM_BOT_TOKEN``; the stack sets it)
``TELEGRAM_WEBHOOK_SECRET_PARAMETER``   the SSM SecureString holding the webhook secret (set: it     (none)
                                        wins over ``TELEGRAM_WEBHOOK_SECRET``; the stack sets it)
``SECRETS_VERSION``                     changed by a rotation (``SecretsVersion``): the parameters   (none)
                                        are read again (part of the cache key)
``TELEGRAM_API_BASE_URL``               the Bot API (a fake one in tests and the playground)         Telegram's
``TELEGRAM_BOT_USERNAME``               the bot's username, for deep links (unset: asked once)       (asked)
``TABLE_NAME``                          the DynamoDB table                                           (none)
``GAME_ARCHIVE_DAYS``                   days a finished game's archive item lives                    30
``GROUP_MESSAGES_PER_MINUTE``           the group budget (sends+edits per group per minute; 0: none) 20
``PLAYER_THROTTLE``                     ``0``: no per-player throttle (local play at machine speed)  on
``LOG_LEVEL``                           the bot's log level                                          INFO
``STACK_NAME``                          the stack: the ``Stack`` dimension of every metric (unset:   (none)
                                        no metrics are written, ``gamebot.core.metrics``)
``AWS_LAMBDA_FUNCTION_NAME``            set by Lambda itself: the log lines are JSON                 (none)
                                        (``gamebot.core.runtime.lambda_logging``)
``TIMER_FUNCTION_ARN``,                 EventBridge Scheduler for the phase timers (all three, or    (no timers)
``SCHEDULER_ROLE_ARN``,                 no timers)
``SCHEDULE_GROUP``
``TIMER_DLQ_ARN``                       the SQS queue the timers' schedules dead-letter to (unset:   (none)
                                        a timer that cannot be delivered is dropped)
``WAKE_QUEUE_URL``                      the SQS queue that wakes a chat to the second, within 2      (none: the
                                        minutes (``gamebot.timing.wakeup``; the timer function       schedules
                                        consumes it)                                                 alone)
``AWS_REGION`` /                        the AWS region                                               us-east-1
``AWS_DEFAULT_REGION``
``AWS_ENDPOINT_URL_<SERVICE>`` /        an endpoint override per service (``DYNAMODB``,              AWS's
``AWS_ENDPOINT_URL``                    ``SCHEDULER``, ``SQS``, ``SSM``), or for all: DynamoDB
                                        Local, a moto server
``AWS_CA_BUNDLE``                       a CA bundle for a TLS endpoint of one's own                  system's
``AWS_ACCESS_KEY_ID``,                  credentials (Lambda's); unset: botocore's chain (a           (chain)
``AWS_SECRET_ACCESS_KEY``,              developer's profile)
``AWS_SESSION_TOKEN``
======================================  ===========================================================  ============
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

TELEGRAM_API = "https://api.telegram.org"
DEFAULT_REGION = "us-east-1"
ARCHIVE_DAYS = 30.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class BadSetting(ValueError):
    """An environment variable whose value does not parse (the message names it, never its value)."""


_ENDPOINT = "AWS_ENDPOINT_URL_"  # and a service id: that service's endpoint
_READ = frozenset((  # every variable ``Environment.read`` reads (and those starting with _ENDPOINT)
    "TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_BOT_TOKEN_PARAMETER", "TELEGRAM_WEBHOOK_SECRET_PARAMETER",
    "SECRETS_VERSION", "TELEGRAM_API_BASE_URL", "TELEGRAM_BOT_USERNAME", "TABLE_NAME",
    "GAME_ARCHIVE_DAYS", "GROUP_MESSAGES_PER_MINUTE", "PLAYER_THROTTLE", "LOG_LEVEL", "TIMER_FUNCTION_ARN",
    "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP", "TIMER_DLQ_ARN", "WAKE_QUEUE_URL", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
    "AWS_CA_BUNDLE", "STACK_NAME", "AWS_LAMBDA_FUNCTION_NAME",
))


@dataclass(frozen=True)
class Environment:
    """What the environment sets, typed (see the module's table)."""

    bot_token: str = field(default="", repr=False)
    webhook_secret: str = field(default="", repr=False)
    bot_token_parameter: str = ""  # the SSM parameters holding them (gamebot.core.secrets), "" when none
    webhook_secret_parameter: str = ""
    secrets_version: str = ""
    api_base_url: str = TELEGRAM_API
    bot_username: str = ""
    table_name: str = ""
    archive_days: float = ARCHIVE_DAYS
    group_messages_per_minute: int | None = None  # None: the budget's default
    player_throttle: bool = True
    log_level: str = "INFO"
    timer_function_arn: str = ""
    scheduler_role_arn: str = ""
    schedule_group: str = ""
    timer_dlq_arn: str = ""
    wake_queue_url: str = ""
    aws_region: str = DEFAULT_REGION
    aws_endpoints: tuple[tuple[str, str], ...] = ()  # (service id or "", URL): AWS_ENDPOINT_URL[_<ID>]
    aws_ca_bundle: str = ""
    stack_name: str = ""
    lambda_function: str = ""

    @classmethod
    def read(cls, env: Mapping[str, str] | None = None) -> Environment:
        """The settings ``env`` (default: the process environment) holds now."""
        env = os.environ if env is None else env
        # the variables read below, in a dict: one walk of the names (os.environ decodes each name and
        # value it is asked for, and raises inside ``get`` for each one unset)
        env = {name: env[name] for name in env if name in _READ or name.startswith(_ENDPOINT)}
        level = env.get("LOG_LEVEL", "INFO").strip().upper()
        return cls(
            bot_token=env.get("TELEGRAM_BOT_TOKEN", ""),
            webhook_secret=env.get("TELEGRAM_WEBHOOK_SECRET", ""),
            bot_token_parameter=env.get("TELEGRAM_BOT_TOKEN_PARAMETER", "").strip(),
            webhook_secret_parameter=env.get("TELEGRAM_WEBHOOK_SECRET_PARAMETER", "").strip(),
            secrets_version=env.get("SECRETS_VERSION", "").strip(),
            api_base_url=(env.get("TELEGRAM_API_BASE_URL") or TELEGRAM_API).rstrip("/"),
            bot_username=env.get("TELEGRAM_BOT_USERNAME", ""),
            table_name=env.get("TABLE_NAME", ""),
            archive_days=_number(env, "GAME_ARCHIVE_DAYS", float) or ARCHIVE_DAYS,
            group_messages_per_minute=_number(env, "GROUP_MESSAGES_PER_MINUTE", int, zero=True),
            player_throttle=env.get("PLAYER_THROTTLE", "").strip() != "0",
            log_level=level if level in LOG_LEVELS else "INFO",
            timer_function_arn=env.get("TIMER_FUNCTION_ARN", ""),
            scheduler_role_arn=env.get("SCHEDULER_ROLE_ARN", ""),
            schedule_group=env.get("SCHEDULE_GROUP", ""),
            timer_dlq_arn=env.get("TIMER_DLQ_ARN", ""),
            wake_queue_url=env.get("WAKE_QUEUE_URL", ""),
            aws_region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or DEFAULT_REGION,
            aws_endpoints=tuple(sorted((name[len(_ENDPOINT):], value) for name, value in env.items()
                                       if name.startswith(_ENDPOINT) and value))
            + ((("", env["AWS_ENDPOINT_URL"]),) if env.get("AWS_ENDPOINT_URL") else ()),
            aws_ca_bundle=env.get("AWS_CA_BUNDLE", ""),
            stack_name=stack_name(env),
            lambda_function=env.get("AWS_LAMBDA_FUNCTION_NAME", ""),
        )

    def aws_endpoint(self, service_id: str) -> str | None:
        """``AWS_ENDPOINT_URL_<SERVICE_ID>``, else ``AWS_ENDPOINT_URL``, else None (AWS's own)."""
        found = dict(self.aws_endpoints)
        return found.get(service_id) or found.get("") or None


def stack_name(env: Mapping[str, str] | None = None) -> str:
    """``STACK_NAME`` alone: the metrics of an invocation whose other settings do not parse still name
    their stack."""
    env = os.environ if env is None else env
    return env.get("STACK_NAME", "").strip()


def adopt_timedeltas() -> None:
    """python-telegram-bot 22 deprecates integer time periods (``RetryAfter.retry_after`` among them) and
    warns at each one unless ``PTB_TIMEDELTA`` opts in to what its next major version does: timedeltas.
    The bot reads every period as a timedelta, so the Bot API module opts the process in when it loads
    (the one variable the bot sets rather than reads)."""
    os.environ["PTB_TIMEDELTA"] = "1"


def aws_credentials(env: Mapping[str, str] | None = None) -> tuple[str, str, str | None] | None:
    """The AWS credentials the environment holds (Lambda's): (key id, secret key, session token or None),
    else None. Read at each request's signing, so this reads the three variables alone."""
    env = os.environ if env is None else env
    key, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        return key, secret, env.get("AWS_SESSION_TOKEN") or None
    return None


def _number[T: (int, float)](env: Mapping[str, str], name: str, kind: type[T], zero: bool = False) -> T | None:
    """The number ``name`` holds (above 0, or 0 too if ``zero``), None when unset or empty."""
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        number = kind(value)
    except ValueError:
        raise BadSetting(f"{name} must be a {'whole ' if kind is int else ''}number") from None
    if number < 0 or (number == 0 and not zero):
        raise BadSetting(f"{name} must be {'0 or more' if zero else 'above 0'}")
    return number
