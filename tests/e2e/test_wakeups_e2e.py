"""Every screen current as AWS runs it (issue 35), end to end through ``lambda_handler`` and the timer
function: wake-ups by the queue (modelled with AWS's timing: whole seconds of delay, the poller's second:
``tests/aws_model``) and EventBridge Scheduler (moto, firing up to a minute late), the group's budget on.
The /practice picker after a quest result shows each tap at once; a lobby's last join shows within 3 s;
no webhook invocation waits; far alarms go by EventBridge and come back to the queue; a wake-up that
finds nothing due (repeated, late, for a finished game, after the bot left) sends and writes nothing."""
from __future__ import annotations

import html
import json
import random
import re

import pytest

from localdev.autoplay import Driver, Policy
from tests.aws_model import record, sqs_event
from tests.e2e.conftest import TABLE
from tests.e2e.scheduler_helpers import TIMER_ARN, configure, fire_next, next_wake, schedules

ME = 1
SEED = 5  # (a game where the person leads after a quest result at both sizes)


@pytest.fixture
def budgeted(lambda_env, monkeypatch):
    """The group's budget as deployed (20 messages and edits a minute), wake-ups as AWS delivers them."""
    monkeypatch.setenv("GROUP_MESSAGES_PER_MINUTE", "20")
    timed = configure(monkeypatch)
    yield timed
    timed.timer.reset()


def session_of(chat: int):
    from gamebot.aws import dynamo
    from gamebot.storage.session import Session, chat_key

    item = dynamo.DynamoRepository(TABLE).get(chat_key(chat))
    return Session.from_body(item.body) if item is not None else None


def version_of(chat: int) -> int:
    from gamebot.aws import dynamo
    from gamebot.storage.session import chat_key

    return dynamo.DynamoRepository(TABLE).get(chat_key(chat)).version


def wake_until(timed, until: float) -> None:
    """Every wake-up that arrives by ``until``, in order; then the clock stands at ``until``."""
    while (at := next_wake(timed)) is not None and at <= until:
        fire_next(timed)
    timed.clock.now = max(timed.clock.now, until)


def picker(table, chat: int) -> dict | None:
    """The newest message in ``chat`` with a "Propose team" button."""
    for m in reversed(table.messages(chat)):
        if any("Propose team" in b["text"] for row in m["buttons"] for b in row):
            return m
    return None


@pytest.mark.parametrize("bots", [6, 9])
def test_the_practice_picker_after_a_quest_result_shows_each_tap_at_once_and_closes(table, budgeted, bots,
                                                                                   monkeypatch):
    """``/practice`` with 6 and 9 bots (7 and 10 seats; a seeded game whose Leader after the person is
    the first): when the person leads after a quest result, each tap on the picker shows at once (✅, the
    count on Propose), and proposing takes the picker's keyboard away."""
    from engine import new_game
    from gamebot.handlers import lobby

    monkeypatch.setattr(lobby, "new_game", lambda config, seed: new_game(config, SEED, first_leader=1))
    timed = budgeted
    table.start_private(ME)
    assert table.command(ME, f"/practice {bots}", chat=ME) == 200
    assert table.press_label(ME, ME, "▶️ Start") == 200
    driver = Driver(table, ME, [ME], Policy(rng=random.Random(5)))
    checked = 0
    for _ in range(3000):
        s = session_of(ME)
        state = s.game() if s is not None else None
        if state is None or state.over:
            break
        msg = picker(table, ME)
        if msg is not None and state.quests and "(0/" in json.dumps(msg["buttons"]) and checked < 2:
            toggles = [b for row in msg["buttons"] for b in row
                       if b.get("data") and "Propose" not in b["text"] and "🎯" not in b["text"]]
            size = int(re.search(r"\(0/(\d+)\)", json.dumps(msg["buttons"], ensure_ascii=False)).group(1))
            for taps, button in enumerate(toggles[:size], start=1):
                assert table.press(ME, ME, msg["message_id"], button["data"]) == 200
                timed.clock.now += 1
                now = table.fake.message(ME, msg["message_id"])
                shown = html.unescape(now["text"]) + json.dumps(now.get("reply_markup") or {}, ensure_ascii=False)
                assert f"({taps}/{size})" in shown and shown.count("✅") == taps, shown  # the tap, shown at once
                assert "Selected: nobody yet" not in shown
            propose = next(b for row in table.fake.message(ME, msg["message_id"])["reply_markup"]["inline_keyboard"]
                           for b in row if "Propose" in b["text"])
            assert table.press(ME, ME, msg["message_id"], propose["callback_data"]) == 200
            timed.clock.now += 1
            closed = table.fake.message(ME, msg["message_id"])
            assert not (closed.get("reply_markup") or {}).get("inline_keyboard"), closed  # the picker closed
            checked += 1
            continue
        at = next_wake(timed)
        if at is not None and at <= timed.clock.now:
            fire_next(timed)
            continue
        if driver.step():
            timed.clock.now += 1
            continue
        assert at is not None, "the game waits for nothing"
        fire_next(timed)
    assert checked >= 1, "the person never led after a quest result"
    assert timed.slept == []  # no invocation waited out flood control


def lobby_text(table) -> str:
    s = session_of(table.group)
    return html.unescape(table.fake.message(table.group, s.lobby_msg)["text"])


def test_a_lobby_s_last_join_shows_within_3_seconds(table, budgeted):
    """Two joins and a 🤖 within 3 s (a progress edit each, the group's budget on): 3 s after the last
    one, the lobby names everyone, by the wake-up that sends the edit held back."""
    timed = budgeted
    table.fake.add_group(table.group, table.title)
    for uid in (1, 2, 3, 4):
        table.start_private(uid)
    table.command(1, "/newgame")
    timed.clock.now += 5
    for uid in (2, 3):
        assert table.press_label(uid, table.group, "Join") == 200
        timed.clock.now += 1
    assert table.press_label(1, table.group, "🤖 Add a bot") == 200
    last = timed.clock.now
    wake_until(timed, last + 3)
    shown = lobby_text(table)
    assert all(table.user(uid)["first_name"] in shown for uid in (1, 2, 3)) and "(bot)" in shown, shown
    assert "(4/10)" in shown, shown
    assert timed.slept == []


def test_no_webhook_invocation_waits_in_a_game_of_people_and_ai_seats(table, budgeted, monkeypatch):
    """A whole game of 3 people and 2 bots, the group's budget on: no invocation sleeps (the bots' moves,
    the held edits and Telegram's waits are wake-ups of the queue), and the game ends."""
    import asyncio

    from tests.e2e.scheduler_helpers import play_with_alarms

    timed = budgeted
    slept: list[float] = []
    real = asyncio.sleep

    async def sleep(seconds: float, *args):  # anything an invocation would wait for, recorded
        if seconds > 0:
            slept.append(seconds)
        return await real(0, *args)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    table.open_lobby([1, 2, 3])
    table.press_label(1, table.group, "🤖 Add a bot")
    table.press_label(1, table.group, "🤖 Add a bot")
    assert table.start_game(1) == 200
    fired = play_with_alarms(table, timed, table.group, [1, 2, 3])
    assert "Game over" in html.unescape("\n".join(table.fake.texts(table.group)))
    assert "ai_seats" in ",".join(fired) and set(table.statuses) == {200}
    assert slept == [] and timed.slept == []
    assert schedules(timed.client) == []  # every wake-up was the queue's: no EventBridge schedule


# --- wake-ups that find nothing to do ----------------------------------------------------------------


def _wake(timed, payload: dict) -> dict:
    from types import SimpleNamespace

    event = sqs_event([record("m-test", json.dumps(payload))])
    return timed.timer.lambda_handler(event, SimpleNamespace(invoked_function_arn=TIMER_ARN))


def _quiet(table, timed, payload: dict) -> None:
    """The wake-up ``payload`` sends nothing and writes nothing."""
    version, calls = version_of(table.group), len(table.fake.calls)
    assert _wake(timed, payload) == {"batchItemFailures": []}
    assert version_of(table.group) == version and len(table.fake.calls) == calls


def test_a_repeated_a_late_and_a_cancelled_game_s_wake_up_send_and_write_nothing(table, budgeted):
    timed = budgeted
    table.open_lobby([1, 2, 3, 4, 5])
    assert table.start_game(1) == 200
    wake_until(timed, timed.clock.now + 15)  # what the start left to send (held edits) goes
    s = session_of(table.group)
    current = {"chat": table.group, "game": s.game_id, "kind": "wake", "due": s.alarm.at, "name": s.alarm.name}
    older = {**current, "name": "gb-an-older-alarm", "due": timed.clock.now - 30}
    _quiet(table, timed, older)  # reordered: an alarm that moved since, delivered now
    wake_until(timed, s.alarm.at + 2)  # the alarm's own wake-up (the proposal's reminder)
    _quiet(table, timed, current)  # the same wake-up again: at-least-once delivery
    assert table.command(1, "/cancel") == 200
    wake_until(timed, timed.clock.now + 2)
    after = session_of(table.group)
    assert after.status != "playing"
    _quiet(table, timed, {**current, "game": s.game_id})  # the cancelled game's wake-up
    _quiet(table, timed, {"chat": table.group, "game": "", "kind": "wake", "due": timed.clock.now, "name": "x"})


def test_a_wake_up_after_the_bot_left_the_group_sends_and_writes_nothing(table, budgeted):
    timed = budgeted
    table.open_lobby([1, 2, 3, 4, 5])
    wake_until(timed, timed.clock.now + 15)
    s = session_of(table.group)
    payload = {"chat": table.group, "game": s.game_id or "", "kind": "wake", "due": s.alarm.at, "name": s.alarm.name}
    table.post(table.U.bot_removed(table.U.group(table.group), table.user(1)))
    wake_until(timed, timed.clock.now + 15)
    _quiet(table, timed, payload)


def test_a_malformed_record_is_dropped_and_a_storage_failure_is_received_again(table, budgeted, monkeypatch):
    from types import SimpleNamespace

    from gamebot.aws.client import AWSError

    timed = budgeted
    table.open_lobby([1, 2, 3, 4, 5])
    s = session_of(table.group)
    context = SimpleNamespace(invoked_function_arn=TIMER_ARN)
    bad = [record("m-1", "not json"), record("m-2", json.dumps({"chat": "x"})), {"messageId": "m-3"}]
    assert timed.timer.lambda_handler(sqs_event(bad), context) == {"batchItemFailures": []}
    svc = timed.timer.service(TIMER_ARN)

    def unavailable(*args, **kwargs):
        raise AWSError("ProvisionedThroughputExceededException", "slow down", 400, "GetItem")

    monkeypatch.setattr(svc.repo, "get", unavailable)
    good = record("m-4", json.dumps({"chat": table.group, "game": s.game_id or "", "kind": "wake",
                                     "due": s.alarm.at, "name": s.alarm.name}))
    assert timed.timer.lambda_handler(sqs_event([good]), context) == {"batchItemFailures": [{"itemIdentifier": "m-4"}]}
