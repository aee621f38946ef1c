"""The per-player throttle (``gamebot.botapi.throttle``): a token bucket per Telegram user, in memory, with a
bounded table. Through the webhook: tests/e2e/test_throttle_e2e.py."""
from __future__ import annotations

from gamebot.botapi.throttle import BURST, PER_SECOND, Throttle
from localdev import updates as U


class Held:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_sustained_rate():
    clock = Held()
    throttle = Throttle(clock=clock)
    assert [throttle.allow(7) for _ in range(BURST + 1)] == [True] * BURST + [False]
    clock.now += 10.0  # ten seconds of one press a... none: the bucket is full again, never more than BURST
    assert [throttle.allow(7) for _ in range(BURST + 1)] == [True] * BURST + [False]
    passed = 0
    for _ in range(100):  # a script pressing 20 times a second for 5 seconds
        clock.now += 0.05
        passed += throttle.allow(7)
    assert passed == int(100 * 0.05 * PER_SECOND)
    assert throttle.allow(8)  # somebody else is not slowed down


def test_the_table_of_players_is_bounded_and_keeps_the_active_ones():
    clock = Held()
    throttle = Throttle(clock=clock, size=3)
    for _ in range(BURST):
        throttle.allow(1)  # a flooder...
    for user in range(2, 50):  # ...while many others press once
        throttle.allow(user)
        throttle.allow(1)  # still flooding: seen last, never forgotten
    assert len(throttle.buckets) == 3 and 1 in throttle.buckets
    assert not throttle.allow(1)


def test_presses_and_commands_count_other_updates_do_not():
    throttle = Throttle(clock=Held(), burst=1)
    group = U.group()
    assert throttle.check(U.text(group, U.user(1), "hi")) is None
    assert throttle.check(U.text(group, U.user(1), "hi again")) is None
    assert throttle.check(U.bot_added(group, U.user(1))) is None
    assert throttle.check(U.command(group, U.user(1), "/help")) is None  # the one of the bucket
    notice = throttle.check(U.command(group, U.user(1), "/help"))
    assert notice is not None and notice.method["method"] == "sendMessage"
    assert throttle.check(U.command(group, U.user(1), "/rules")).method is None  # no second notice
    press = throttle.check(U.press(U.user(1, language_code="de"), U.message(group["id"], 5), "x"))
    assert press.method["text"] == "Langsam… du tippst zu schnell. Versuch es gleich noch einmal."


def test_a_redelivered_update_is_the_same_press_and_takes_no_second_token():
    # Telegram sends an update again when the first answer was a 500 or came too late: with a bucket of
    # one, the redelivery passes and takes nothing, so the player's honest next tap is not "too fast"
    clock = Held()
    throttle = Throttle(clock=clock, burst=1, per_second=0.5)
    group = U.group()
    press = U.press(U.user(1), U.message(group["id"], 5), "x")
    assert throttle.check(press) is None
    assert throttle.check(press) is None  # the redelivery
    clock.now += 2.0  # the next tap, two seconds on: one token back
    assert throttle.check(U.press(U.user(1), U.message(group["id"], 5), "y")) is None
    assert throttle.check(U.press(U.user(1), U.message(group["id"], 5), "z")) is not None  # a real flood still is
    command = U.command(group, U.user(2), "/status")
    assert throttle.check(command) is None and throttle.check(command) is None


def test_the_updates_a_bucket_remembers_are_bounded():
    from gamebot.botapi.throttle import REMEMBERED

    throttle = Throttle(clock=Held(), burst=REMEMBERED + 5, per_second=0.0)
    group = U.group()
    presses = [U.press(U.user(1), U.message(group["id"], 5), "x") for _ in range(REMEMBERED + 5)]
    assert all(throttle.check(p) is None for p in presses)
    assert len(throttle.buckets[1].admitted) == REMEMBERED
    assert throttle.check(presses[-1]) is None  # remembered
    assert throttle.check(presses[0]) is not None  # forgotten, and the bucket is empty: throttled
