"""The playground wakes chats as AWS does (``gamebot.timing.wakeup``): an alarm within 2 minutes is a
message of the wake-up queue (SQS on the playground's moto server) delayed to its second, taken by the
timer function through the local stand-in for Lambda's event source mapping (``localdev.wake_consumer``);
the local scheduler (EventBridge Scheduler's part) is left the far alarms. A test that moves the timers'
clock gets the local scheduler alone."""
from __future__ import annotations

import os
import random
import time

from gamebot.storage.seats import MIN_DELAY
from localdev.playground import GROUP_ID, Playground
from tests.integration.playground_wait import GIVE_UP, wait_for


def lobby(pg: Playground) -> dict | None:
    return next((m for m in reversed(pg.fake.messages(GROUP_ID)) if "New game of" in m.get("text", "")), None)


def button(message: dict, starts: str) -> str:
    return next(b["callback_data"] for row in message["reply_markup"]["inline_keyboard"] for b in row
                if b["text"].startswith(starts))


def ai_seat_moves(pg: Playground) -> int:
    """How many moves of the running game its AI seats made (its log, as stored)."""

    def read() -> int:
        import app

        from gamebot.storage.seats import ai_seats
        from gamebot.storage.session import PLAYING, Session, chat_key

        item = app.service().repo.get(chat_key(GROUP_ID))
        session = Session.from_body(item.body) if item is not None else None
        state = session.game() if session is not None and session.status == PLAYING else None
        if state is None or session is None:
            return 0
        seats = set(ai_seats([p.id for p in session.players]))
        return sum(1 for entry in state.log if entry.split("|")[0].isdigit() and int(entry.split("|")[0]) in seats)

    return pg.worker.call(read)


def seed_games(seeds: random.Random) -> None:
    import app

    app.service().seeds = seeds


def test_the_ai_seats_move_when_the_wake_up_queue_wakes_the_chat():
    from localdev.autoplay import Driver, FakeTelegramScreen, Policy

    with Playground(sim_delay=0, seed=3, group_budget=0) as pg:
        assert pg.consumer is not None and pg.wakeups is not None, "the real clock: the wake-up queue"
        assert os.environ["WAKE_QUEUE_URL"] == pg.queue_url and pg.queue_url.endswith("/avalon-playground-wake")
        pg.worker.call(seed_games, random.Random(2))  # (a game where a 🤖 seat leads first)
        (zoe,) = [s.user_id for s in pg.seat([{"name": "Zoe", "simulated": False}], open_lobby=True)]
        assert wait_for(pg, lambda: lobby(pg) is not None)
        for count in range(1, 5):  # the host seats four AI seats (the lobby's 🤖 button)
            shown = lobby(pg)
            assert shown is not None
            assert pg.press(zoe, GROUP_ID, shown["message_id"], button(shown, "🤖"))["status"] == 200
            assert wait_for(pg, lambda c=count: f"{c + 1}. 🤖" in (lobby(pg) or {}).get("text", ""))
        shown = lobby(pg)
        assert shown is not None
        started = time.monotonic()
        assert pg.press(zoe, GROUP_ID, shown["message_id"], button(shown, "▶️"))["status"] == 200
        # Zoe plays her seat (she may lead first); the bots' first moves come when the queue wakes the chat
        driver = Driver(FakeTelegramScreen(pg.fake, pg.deliver, pg.users), GROUP_ID, [zoe],
                        Policy(rng=random.Random(4)), views=pg.seat_view)
        deadline = started + GIVE_UP
        while ai_seat_moves(pg) == 0 and time.monotonic() < deadline:
            since = pg.fake.version  # (before the step: a change while it looks is not waited for)
            if not driver.step():
                pg.fake.wait_changed(since, 0.2)
        waited = time.monotonic() - started
        assert ai_seat_moves(pg) > 0, f"the bots never moved: group={pg.fake.texts(GROUP_ID)[-3:]}"
        # their move was due MIN_DELAY to MAX_DELAY (2-3) seconds after their decision, and a wake-up takes it from
        # a second before its time (``timekeeper.ai_seat_turn``: the queue's delays are whole seconds); another
        # wake-up of the chat (a held message's) can be that one on a busy machine: held back at least that long
        assert waited >= MIN_DELAY - 1, waited
        assert pg.consumer.handled > 0 and pg.consumer.failed == 0
        assert pg.wakeups.queued > 0 and pg.wakeups.fallbacks == 0
        assert pg.scheduler.fired == [], "the local scheduler (EventBridge Scheduler's part) woke nobody"
        assert set(pg.worker.statuses) == {200}
        # the game went on in the group: a 🤖 Leader's proposal (or, had Zoe led, the 🤖 seats' votes)
        round_message = pg.fake.texts(GROUP_ID)[-1]
        assert "Leader 🤖" in round_message or "🤖" in round_message.partition("Votes")[2], round_message


def test_a_moved_timers_clock_gets_the_local_scheduler_alone():
    from gamebot.timing import wakeup

    now = [time.time()]
    with Playground(sim_delay=0, seed=1, group_budget=0, timer_clock=lambda: now[0]) as pg:
        assert pg.consumer is None and pg.wakeups is None and "WAKE_QUEUE_URL" not in os.environ
        assert wakeup.scheduler_from_env() is pg.scheduler
    assert not wakeup.installed_key()
