"""Real bot mode: run the bot by long polling instead of a webhook, on this machine.

Telegram does not hand out updates with ``getUpdates`` while a webhook is set, so :class:`Poller`
first calls ``deleteWebhook`` (keeping pending updates), then loops on ``getUpdates`` (long poll,
``timeout`` seconds) and feeds each update to ``deliver(update) -> HTTP status`` (the playground's
webhook worker, i.e. ``lambda_handler`` with the secret header). An update is confirmed (the next
``offset``) once the handler answered it; a 5xx answer (nothing committed, a retry may help) is
retried a few times first, as Telegram would redeliver it to a webhook.

``api_base`` is any Bot API server (``TELEGRAM_API_BASE_URL``: https://api.telegram.org, or the fake
one in tests). The token is never logged: errors name the method and the error, not the URL.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

log = logging.getLogger("localdev.poller")

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]


class PollError(Exception):
    pass


class Poller:
    def __init__(
        self,
        api_base: str,
        token: str,
        deliver: Callable[[dict[str, Any]], int],
        *,
        timeout: int = 25,
        retries: int = 3,
        retry_pause: float = 0.5,
        client: httpx.Client | None = None,
    ) -> None:
        self._url = f"{api_base.rstrip('/')}/bot{token}"
        self.deliver = deliver
        self.timeout = timeout
        self.retries = retries
        self.retry_pause = retry_pause
        self.offset: int | None = None
        self.handled = 0
        self.removed_webhook = ""  # the URL prepare() removed, if any
        self._client = client or httpx.Client(timeout=httpx.Timeout(timeout + 15, connect=10))

    def api(self, method: str, **params: Any) -> Any:
        try:
            response = self._client.post(f"{self._url}/{method}", json=params)
            data = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise PollError(f"{method}: {type(exc).__name__}") from None
        if not data.get("ok"):
            raise PollError(f"{method}: {data.get('error_code')} {data.get('description')}")
        return data["result"]

    def perform(self, method: dict[str, Any]) -> Any:
        """Carry out the Bot API method the bot's webhook answered with (Telegram would, for a webhook;
        a polling bot calls it itself). A failure is logged, as Telegram gives a webhook no result."""
        params = {k: v for k, v in method.items() if k != "method"}
        try:
            return self.api(str(method["method"]), **params)
        except PollError as exc:
            log.warning("webhook answer not performed: %s", exc)
            return None

    def prepare(self) -> dict[str, Any]:
        """Check the token (getMe, returned) and remove the webhook: getUpdates refuses to run while
        one is set. The removed URL is kept in ``removed_webhook``."""
        me = self.api("getMe")
        self.removed_webhook = str(self.api("getWebhookInfo").get("url") or "")
        if self.removed_webhook:
            self.api("deleteWebhook", drop_pending_updates=False)
        return me

    def poll_once(self, timeout: int | None = None) -> int:
        """One getUpdates call; each update is delivered; returns how many were handled."""
        params: dict[str, Any] = {"timeout": self.timeout if timeout is None else timeout,
                                  "allowed_updates": ALLOWED_UPDATES}
        if self.offset is not None:
            params["offset"] = self.offset
        updates = self.api("getUpdates", **params)
        for update in updates:
            self._deliver(update)
            self.offset = int(update["update_id"]) + 1
            self.handled += 1
        return len(updates)

    def _deliver(self, update: dict[str, Any]) -> None:
        for attempt in range(self.retries + 1):
            status = self.deliver(update)
            if status < 500:
                return
            if attempt < self.retries:
                time.sleep(self.retry_pause * (attempt + 1))
        log.warning("update %s still failing after %d tries: skipped", update.get("update_id"), self.retries + 1)

    def run(self, stop: threading.Event) -> None:
        """Poll until ``stop`` is set; network errors back off (1 s, doubling up to 30 s)."""
        pause = 1.0
        while not stop.is_set():
            try:
                self.poll_once()
                pause = 1.0
            except PollError as exc:
                log.warning("polling failed (%s); retrying in %.0f s", exc, pause)
                stop.wait(pause)
                pause = min(pause * 2, 30.0)

    def close(self) -> None:
        self._client.close()
