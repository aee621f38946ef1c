"""What the rooms tell the operator: facts of the invocation under way (a Bot API call failed, a write lost its
version check, the size of a chat item written, the chat and game an update is about...), reported to the
invocation's :class:`Observer`.

The Lambda functions run each invocation under an observer of their own (``gamebot.core.metrics``: it turns
these facts into the invocation's log fields and CloudWatch metrics, and holds the metrics' names and
thresholds). Everywhere else (the playground, the tests that call the service directly) the observer is
this module's, which does nothing. A room below ``core`` reports here, never by importing ``core``.

The observer of an invocation is a context variable: the asyncio tasks an invocation starts and their
``asyncio.to_thread`` workers report to the same one, and nothing of it outlives the invocation. A report
costs a method call: nothing here does I/O or waits.
"""
from __future__ import annotations

from contextvars import ContextVar, Token


class Observer:
    """The facts the rooms report (each method does nothing here: ``gamebot.core.metrics.Invocation``
    records them)."""

    def about(self, chat_id: int | None = None, game_id: str | None = None) -> None:
        """The chat (and its game, if any) the invocation works on: the unit of work read its session."""

    def bot_api_failed(self, status: int | None) -> None:
        """A Bot API call failed (``status``: Telegram's error code: 429 flood control, 403, 400; None: the
        network, a timeout or another error)."""

    def retry_after_waited(self, seconds: float) -> None:
        """The update waited ``seconds`` of a 429's ``retry_after`` before calling again."""

    def outbox_left(self, waiting: int, oldest_age: float | None) -> None:
        """A delivery ended with ``waiting`` entries left in the chat's outbox, the oldest stored
        ``oldest_age`` seconds ago (None: none waits, or no entry says when it was stored)."""

    def version_conflict(self) -> None:
        """A version-checked write lost (someone wrote the item since it was read) and is tried again."""

    def status_changed(self, before: str | None, after: str) -> None:
        """A committed write changed the chat's session status (``gamebot.storage.session``: lobby,
        playing, ended, cancelled; ``before`` None: no session before)."""

    def chat_item_written(self, size: int) -> None:
        """A chat's item was written: ``size`` bytes as the table stores it."""

    def schedule_failed(self) -> None:
        """A wake-up could not be set as planned: the wake-up queue or EventBridge Scheduler refused it
        (the queue's refusal falls back to a schedule; a schedule's is made up only by the chat's next
        update)."""

    def alarm_overdue(self, seconds: float) -> None:
        """An update read a chat whose alarm was due ``seconds`` ago (its timer has not run)."""


QUIET = Observer()
_CURRENT: ContextVar[Observer] = ContextVar("gamebot_observer", default=QUIET)


def current() -> Observer:
    """The observer of the invocation under way (this module's, which does nothing, outside one)."""
    return _CURRENT.get()


def start(observer: Observer) -> Token[Observer]:
    """Report to ``observer`` from now on, in this context (``stop`` with the token it returns)."""
    return _CURRENT.set(observer)


def stop(token: Token[Observer]) -> None:
    _CURRENT.reset(token)
