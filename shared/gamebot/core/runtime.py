"""What the Lambda entry points share (the webhook and the timer function): the service of a container.

The Bot, the repository and the service are built once per container and ONE asyncio event loop is kept
for it (``asyncio.run`` per call would close the loop the Bot's HTTP client is bound to). The service
is rebuilt only when its settings change (e.g. between tests that change the environment).

Each invocation runs inside :func:`invocation`, which gives the AWS requests it starts a deadline
``ANSWER_RESERVE`` before the Lambda's timeout (``gamebot.aws.transport.deadline``).
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

# Seconds of an invocation no AWS request may use: after the last one gives up, the function must still
# log the failure and answer (the webhook's 500 that asks Telegram to redeliver, the timer's raise that
# has it retried). That takes milliseconds; the rest is for lateness: a socket timeout or a backoff
# wakes late when the container's slice of a vCPU is busy (the event loop and the courier's worker
# threads share it), and the time left is read once, when the invocation starts.
ANSWER_RESERVE = 1.0


def lambda_logging(name: str) -> logging.Logger:
    """Logging for a Lambda entry point: ``LOG_LEVEL`` for the bot, and never a URL with the token.

    Request URLs contain the bot token: httpx/httpcore log them at INFO/DEBUG and python-telegram-bot
    logs its API base URL at DEBUG, so those loggers are capped whatever LOG_LEVEL says."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO)
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    logging.getLogger("gamebot").setLevel(level if level in ("DEBUG", "INFO", "WARNING", "ERROR") else "INFO")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    logging.getLogger("telegram").setLevel(logging.INFO)
    return logging.getLogger(name)


@contextmanager
def invocation(context: Any) -> Iterator[float | None]:
    """Run one Lambda invocation: yields the seconds it has left (``context.get_remaining_time_in_millis``;
    None without a Lambda context: tests, the playground) and, inside, every AWS request started (in this
    thread, the asyncio tasks started from it and their ``asyncio.to_thread`` workers) must be over
    ``ANSWER_RESERVE`` seconds before the timeout. Nothing of the deadline outlives the block."""
    from gamebot.aws.transport import deadline

    remaining = getattr(context, "get_remaining_time_in_millis", None)
    left = None if remaining is None else remaining() / 1000
    with deadline(None if left is None else left - ANSWER_RESERVE):
        yield left


def environment(*names: str) -> tuple[str, ...]:
    """The settings a service is built from: the common environment, then ``names``, then the scheduler's."""
    from gamebot.timing.scheduler import env_key

    common = (
        os.environ.get("TELEGRAM_BOT_TOKEN", ""),
        os.environ.get("TELEGRAM_API_BASE_URL", "https://api.telegram.org").rstrip("/"),
        os.environ.get("TABLE_NAME", ""),
        os.environ.get("TELEGRAM_BOT_USERNAME", ""),
        os.environ.get("AWS_ENDPOINT_URL_DYNAMODB", ""),
        os.environ.get("GAME_ARCHIVE_DAYS", ""),
        os.environ.get("GROUP_MESSAGES_PER_MINUTE", ""),
    )
    return common + tuple(os.environ.get(n, "") for n in names) + env_key()


async def build_service(settings: tuple[str, ...], scheduler: Any = None, pool: int = 16) -> Any:
    """A Service on DynamoDB and the Bot API from ``environment()``'s settings. Nothing is asked of
    Telegram here: without ``TELEGRAM_BOT_USERNAME`` (the stack always sets it) the username is learned
    when a deep link first needs it (``bot_name.BotName``), not before the container's first answer."""
    from telegram import Bot
    from telegram.request import HTTPXRequest

    from gamebot.aws.dynamo import DynamoRepository
    from gamebot.botapi.bot_name import BotName
    from gamebot.botapi.callbacks import Codec
    from gamebot.botapi.telegram_io import LazyRequest, TelegramIO, get_me_username
    from gamebot.core.service import ARCHIVE_DAYS, Service
    from gamebot.storage.effects import Budget

    token, base_url, table, username, _, archive_days, per_minute = settings[:7]

    def client() -> HTTPXRequest:
        return HTTPXRequest(connection_pool_size=pool, read_timeout=10.0, write_timeout=10.0, connect_timeout=5.0)

    # The HTTP client is built on first use (LazyRequest). get_updates_request: the webhook never polls;
    # sharing the request object saves Bot() a second HTTP client.
    request = LazyRequest(client, read_timeout=10.0)
    bot = Bot(token=token, base_url=f"{base_url}/bot", request=request, get_updates_request=request)
    name: str | BotName = username or BotName(lambda: get_me_username(token, base_url))
    return Service(DynamoRepository(table), TelegramIO(bot), Codec(token), bot_username=name,
                   archive_days=float(archive_days or ARCHIVE_DAYS), scheduler=scheduler,
                   budget=Budget.per_minute(int(per_minute)) if per_minute.strip().isdigit() else None)


class Container:
    """One service per container and its event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.settings: tuple[str, ...] | None = None
        self.service: Any = None

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(coro)

    def get(self, settings: tuple[str, ...], build: Callable[[tuple[str, ...]], Coroutine[Any, Any, Any]]) -> Any:
        if self.settings != settings:
            self.reset()
            self.service = self.run(build(settings))
            self.settings = settings
        return self.service

    def reset(self) -> None:
        """Forget the service (shutting its Bot down), e.g. when tests change the environment."""
        old, self.service, self.settings = self.service, None, None
        if old is not None:
            try:  # the HTTP client (the Bot may never have been initialised: see build_service)
                self.run(old.io.bot.request.shutdown())
            except Exception:  # pragma: no cover - best effort
                pass
