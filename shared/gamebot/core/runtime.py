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
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from telegram.request import BaseRequest

from gamebot.core.logs import keep_secret, structure
from gamebot.core.secrets import resolved
from gamebot.environment import Environment

if TYPE_CHECKING:  # (imported when built: a cold start imports them only then)
    from gamebot.core.service import Service
    from gamebot.timing.scheduler import Scheduler

# Seconds of an invocation no AWS request may use: after the last one gives up, the function must still
# log the failure and answer (the webhook's 500 that asks Telegram to redeliver, the timer's raise that
# has it retried). That takes milliseconds; the rest is for lateness: a socket timeout or a backoff
# wakes late when the container's slice of a vCPU is busy (the event loop and the courier's worker
# threads share it), and the time left is read once, when the invocation starts.
ANSWER_RESERVE = 1.0


def lambda_logging(name: str) -> logging.Logger:
    """Logging for a Lambda entry point: ``LOG_LEVEL`` for the bot, never a URL with the token, and in
    Lambda one JSON object per line (``gamebot.core.logs``: the fields of the invocation under way, the
    token and the webhook secret blanked out).

    Request URLs contain the bot token: httpx/httpcore log them at INFO/DEBUG and python-telegram-bot
    logs its API base URL at DEBUG, so those loggers are capped whatever LOG_LEVEL says; so is botocore,
    whose DEBUG lines show response bodies (the SSM parameters' decrypted values: ``gamebot.core.secrets``).
    Outside Lambda (the playground, the tests, the scripts) lines stay as whoever configured logging wants
    them."""
    env = Environment.read()
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO)
    if env.lambda_function:
        structure()  # (the handler Lambda's runtime installed on the root logger)
    keep_secret(env.bot_token, env.webhook_secret)  # (from the SSM parameters: at the first ``environment()``)
    logging.getLogger("gamebot").setLevel(env.log_level)
    for noisy in ("httpx", "httpcore", "botocore", "boto3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("telegram").setLevel(logging.INFO)
    return logging.getLogger(name)


@contextmanager
def invocation(context: object) -> Iterator[float | None]:
    """Run one Lambda invocation: yields the seconds it has left (``context.get_remaining_time_in_millis``;
    None without a Lambda context: tests, the playground) and, inside, every AWS request started (in this
    thread, the asyncio tasks started from it and their ``asyncio.to_thread`` workers) must be over
    ``ANSWER_RESERVE`` seconds before the timeout. Nothing of the deadline outlives the block."""
    from gamebot.aws.transport import deadline

    remaining = getattr(context, "get_remaining_time_in_millis", None)
    left = None if remaining is None else remaining() / 1000
    with deadline(None if left is None else left - ANSWER_RESERVE):
        yield left


FLOOD_WAIT = 20.0  # seconds an invocation may wait out Telegram's 429s in all, without the wake-up queue
FLOOD_MARGIN = 3.0  # seconds such waiting keeps free before the Lambda timeout (one more call, the answer)


def flood_wait(scheduler: Scheduler | None, left: float | None) -> float:
    """The seconds an invocation may wait out Telegram's flood control (``TelegramIO.wait_budget``): none
    when the wake-up queue wakes the chat at the second Telegram allows (``scheduler.window``: the
    message waits in the outbox meanwhile, and nothing holds the webhook); else a short wait, never
    past the Lambda timeout (``left``: its seconds left, None outside Lambda)."""
    if scheduler is not None and scheduler.window > 0:
        return 0.0
    return FLOOD_WAIT if left is None else max(0.0, min(FLOOD_WAIT, left - FLOOD_MARGIN))


# What a container's service is built from, and its cache key: the environment, and the scheduler installed
# in-process (the playground's) with anything else the function adds (the timer function's own ARN).
Settings = tuple[Environment, tuple[str, ...]]


def environment(*extra: str) -> Settings:
    """The settings a container's service is built from now (``Container.get`` rebuilds it on a change),
    the token and the webhook secret read from their SSM parameters when the environment names them
    (once per container: ``gamebot.core.secrets``; a failure raises ``SecretsUnavailable``, a
    ``BadSetting``: the webhook answers 500)."""
    from gamebot.timing.wakeup import installed_key

    env = resolved(Environment.read())
    keep_secret(env.bot_token, env.webhook_secret)  # (the settings may have changed: a test, a new deploy)
    return env, (installed_key(), *extra)


async def build_service(env: Environment, scheduler: Scheduler | None = None, pool: int = 16) -> Service:
    """A Service on DynamoDB and the Bot API from the environment's settings. Nothing is asked of
    Telegram here: without ``TELEGRAM_BOT_USERNAME`` (the stack always sets it) the username is learned
    when a deep link first needs it (``bot_name.BotName``), not before the container's first answer."""
    from telegram import Bot
    from telegram.request import HTTPXRequest

    from gamebot.aws.dynamo import DynamoRepository
    from gamebot.botapi.bot_name import BotName
    from gamebot.botapi.callbacks import Codec
    from gamebot.botapi.telegram_io import TelegramIO, get_me_username
    from gamebot.core.service import Service
    from gamebot.storage.effects import Budget

    token, base_url, per_minute = env.bot_token, env.api_base_url, env.group_messages_per_minute

    def client() -> HTTPXRequest:
        return HTTPXRequest(connection_pool_size=pool, read_timeout=10.0, write_timeout=10.0, connect_timeout=5.0)

    # The HTTP client is built on first use (LazyRequest). get_updates_request: the webhook never polls;
    # sharing the request object saves Bot() a second HTTP client.
    request = LazyRequest(client, read_timeout=10.0)
    bot = Bot(token=token, base_url=f"{base_url}/bot", request=request, get_updates_request=request)
    name: str | BotName = env.bot_username or BotName(lambda: get_me_username(token, base_url))
    return Service(DynamoRepository(env.table_name), TelegramIO(bot), Codec(token), bot_username=name,
                   archive_days=env.archive_days, scheduler=scheduler,
                   budget=Budget.per_minute(per_minute) if per_minute is not None else None)


class LazyRequest(BaseRequest):
    """The Bot's HTTP request object, built on its first use.

    Creating the HTTP client (httpx, with its TLS context and CA bundle) takes tens of milliseconds of a
    cold start. Our AWS client creates its TLS context lazily too, with the first connection
    (``gamebot.aws.transport``); both then happen during the first update instead of while the container
    starts."""

    def __init__(self, factory: Callable[[], BaseRequest], read_timeout: float | None) -> None:
        self._factory = factory
        self._read_timeout = read_timeout
        self._real: BaseRequest | None = None

    @property
    def real(self) -> BaseRequest:
        if self._real is None:
            self._real = self._factory()
        return self._real

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        await self.real.initialize()

    async def shutdown(self) -> None:
        if self._real is not None:
            await self._real.shutdown()

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:  # (BaseRequest's, passed on)
        return await self.real.do_request(*args, **kwargs)


class Container:
    """One service per container and its event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.settings: Settings | None = None
        self.service: Service | None = None

    def run[T](self, coro: Coroutine[object, object, T]) -> T:
        return self.loop.run_until_complete(coro)

    def get(self, settings: Settings, build: Callable[[Environment], Coroutine[object, object, Service]]) -> Service:
        """The service built from ``settings`` (built again when they changed since the last call)."""
        if self.settings != settings:
            self.reset()
            self.service = service = self.run(build(settings[0]))
            self.settings = settings
            return service
        assert self.service is not None  # (built with these settings)
        return self.service

    def reset(self) -> None:
        """Forget the service (shutting its Bot down), e.g. when tests change the environment."""
        old, self.service, self.settings = self.service, None, None
        if old is not None:
            try:  # the HTTP client (the Bot may never have been initialised: see build_service)
                self.run(old.io.bot.request.shutdown())
            except Exception:  # pragma: no cover - best effort
                pass
