"""The unit harness with phase timers on (``Timed``), shared by the timer tests, the settings audit and
the reliability transcripts."""
from __future__ import annotations

import random

from gamebot.core.service import Service
from gamebot.storage.session import Session, chat_key
from gamebot.timing.scheduler import FakeScheduler, Timer
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, T0, Clock, Harness


class Timed(Harness):
    """The unit harness with phase timers on: a FakeScheduler and a clock the test moves."""

    def __init__(self, seed: int = 7) -> None:
        super().__init__(seed=seed)
        self.clock = Clock(T0)
        self.sched = FakeScheduler()
        self.service = Service(self.repo, self.io, self.codec, bot_username=U.BOT_USERNAME,
                               seeds=random.Random(seed), clock=self.clock, scheduler=self.sched)

    def session(self) -> Session:
        return Session.from_body(self.repo.items[chat_key(self.group)].body)

    def record(self) -> dict[str, int]:
        """The group's idle record of all games, as its own item holds it (``gamebot.storage.idle_record``)."""
        from gamebot.storage.idle_record import stored

        return stored(self.repo, self.group)[0]

    def fire(self, timer: Timer) -> str:
        self.clock.now = max(self.clock.now, timer.at)
        return self.loop.run_until_complete(self.service.wake(timer.payload))  # (as the timer function does)

    def fire_next(self, kind: str | None = None) -> tuple[Timer, str]:
        """Fire the chat's alarm; with ``kind`` ("remind" or "expire"), fire alarms until one does that
        (wake-ups for what waits in the outbox may come first)."""
        wanted = {"remind": "reminded", "expire": "expired"}.get(kind or "")
        for _ in range(50):
            timer = self.sched.pop_next()
            assert timer is not None, "no timer left"
            outcome = self.fire(timer)
            if wanted is None or outcome == wanted:
                return timer, outcome
        raise AssertionError(f"no alarm did {kind}")

    def alarm(self) -> Timer:
        """The chat's one pending timer (there is never more than one)."""
        (timer,) = self.sched.pending()
        assert self.session().alarm is not None and self.session().alarm.name == timer.name
        return timer

    def settle(self) -> None:
        """Fire the wake-ups that only deliver what waits in the outbox (held-back progress), until the
        alarm waits for the time limit's next moment (or nothing is pending)."""
        while self.sched.pending():
            d = self.session().deadline
            timer = self.sched.pending()[0]
            if d is not None and timer.at >= (d.remind_at if d.remind_at and not d.reminded else d.due):
                return
            self.sched.pop_next()
            assert self.fire(timer) in ("flushed", "stale")

    def old_alarm(self, at: int, name: str = "gb-an-older-alarm") -> Timer:
        """A timer of this chat firing at ``at`` that the chat no longer waits for (replaced, or scheduled by
        an earlier version): it does what is due then, nothing else."""
        s = self.session()
        return Timer(name=name, at=at, payload={"chat": GROUP, "game": s.game_id, "kind": "wake", "due": at,
                                                 "name": name})

    def command(self, uid: int, text: str) -> None:
        self.send(U.command(U.group(self.group), U.user(uid), text))

    def group_texts(self) -> list[str]:
        return self.io.texts(self.group)
