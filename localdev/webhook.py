"""Deliver updates to the webhook Lambda locally, one at a time, from one thread.

``functions/webhook/app.py`` keeps ONE asyncio event loop at module scope (as a Lambda container
does); entering it from two threads at once breaks it. :class:`WebhookWorker` owns a single thread:
everything that runs the bot's code (webhook updates from the page, the simulated players, the
long-polling loop, and the timer function when the wake-up queue's consumer or the local scheduler wakes a
chat) goes through :meth:`call`, which
queues the work and waits for its result.

Updates are posted as API Gateway events built by ``localdev.updates.webhook_event`` with the secret
header, so the handler's secret check runs exactly as in AWS.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from localdev import updates as U

T = TypeVar("T")


class WebhookWorker:
    def __init__(self, secret: str, handler: Callable[[dict[str, Any], Any], dict[str, Any]] | None = None,
                 perform: Callable[[dict[str, Any]], Any] | None = None) -> None:
        """``handler``: the Lambda handler (default ``app.lambda_handler``, imported in the worker).
        ``perform``: carries out the Bot API method a webhook answers with, as Telegram does with the
        reply (the fake Bot API's ``perform``, or a call to the real Bot API when long polling)."""
        self.secret = secret
        self._handler = handler
        self.perform = perform
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webhook-worker")
        self._thread_id: int | None = None
        self.statuses: list[int] = []

    def _mark(self) -> None:
        self._thread_id = threading.get_ident()

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` in the worker thread and return its result (exceptions propagate)."""
        if threading.get_ident() == self._thread_id:
            return fn(*args, **kwargs)  # already on the worker (a nested call)
        if self._thread_id is None:
            self._pool.submit(self._mark).result()
        return self._pool.submit(fn, *args, **kwargs).result()

    def handler(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        if self._handler is None:
            import app  # functions/webhook/app.py

            self._handler = app.lambda_handler
        return self._handler

    def _post(self, update: dict[str, Any]) -> int:
        response = self.handler()(U.webhook_event(update, self.secret), None)
        status = int(response["statusCode"])
        method = U.webhook_reply(response)
        if method is not None and self.perform is not None:
            self.perform(method)
        self.statuses.append(status)
        return status

    def post(self, update: dict[str, Any]) -> int:
        """Deliver one Update as Telegram would POST it to the webhook; the HTTP status answered."""
        return self.call(self._post, update)

    def stop(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
