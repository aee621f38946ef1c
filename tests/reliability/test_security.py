"""Security: only Telegram (with the secret header) gets in, secrets never reach the logs, nobody acts for
another player. (That the group never learns a hidden role before the end is a property of whole games:
tests/property/test_group_secrecy.py.)"""
from __future__ import annotations

import logging
import random

import app
import pytest

from engine import Action, GameState, Side
from gamebot.core.runtime import lambda_logging
from gamebot.storage.session import Session, chat_key
from localdev import updates as U
from localdev.autoplay import Policy
from tests.e2e.conftest import SECRET, TOKEN
from tests.reliability.support import RobustDriver, until_vote
from tests.unit.gamebot_fakes import GROUP, Clock, Harness, HarnessScreen

# ---------------------------------------------------------------------------------------------------
# The webhook's door
# ---------------------------------------------------------------------------------------------------


def test_a_missing_or_wrong_secret_header_is_refused_before_anything_runs(table, monkeypatch):
    table.fake.add_group(table.group)
    update = U.command(U.group(table.group), U.user(1), "/newgame")
    wrong = [None, "", "wrong", SECRET[:-1], SECRET + "x", SECRET.upper(), " " + SECRET, SECRET[: len(SECRET) // 2]]
    for secret in wrong:
        assert table.post(update, secret=secret) == 401
    event = U.webhook_event(update, None)
    event["headers"]["x-telegram-bot-api-secret"] = SECRET  # the right value under another header
    assert app.lambda_handler(event, None)["statusCode"] == 401
    assert table.fake.calls == []  # not even getMe: nothing was built or sent
    repo = app.service().repo
    assert repo.get(chat_key(table.group)) is None  # and nothing was stored
    event = U.webhook_event(update, SECRET)
    event["headers"] = {k.title(): v for k, v in event["headers"].items()}  # header names are case-insensitive
    assert app.lambda_handler(event, None)["statusCode"] == 200
    assert repo.get(chat_key(table.group)) is not None
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", "")  # no secret configured: everything is refused
    assert table.post(U.command(U.group(table.group), U.user(1), "/status"), secret="") == 401


# ---------------------------------------------------------------------------------------------------
# Logs
# ---------------------------------------------------------------------------------------------------


class Capture(logging.Handler):
    """Every record of every logger, formatted with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def debug_logs(monkeypatch):
    """The root logger at DEBUG and the webhook configured with LOG_LEVEL=DEBUG, as an operator might."""
    root = logging.getLogger()
    capture = Capture()
    levels = {name: logging.getLogger(name).level for name in ("", "gamebot", "telegram", "httpx", "httpcore")}
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    monkeypatch.setenv("LOG_LEVEL", "DEBUG")
    lambda_logging("gamebot.webhook")  # what the webhook does at import, now with LOG_LEVEL=DEBUG
    yield capture
    root.removeHandler(capture)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def _leaks(capture: Capture, *secrets: str) -> list[str]:
    return [line for line in capture.lines if any(s in line for s in secrets)]


def test_the_token_and_the_secret_never_reach_the_logs_at_debug_level(table, debug_logs, monkeypatch):
    """A whole game at DEBUG with Bot API errors, refused updates, a broken body and a cold start with a
    rejected token: neither the bot token, nor its secret part, nor the webhook secret is ever logged."""
    players = [1, 2, 3, 4, 5]
    # a clock the test moves, a second per update: what a failure leaves waiting in the outbox goes out
    # when due (``WebhookTable.idle``, as the flush timer delivers it) instead of after real seconds
    clock = Clock()
    app.service().set_clock(clock)
    post = table.post

    def paced(*args, **kwargs):
        clock.now += 1
        return post(*args, **kwargs)

    table.post = paced
    table.open_lobby(players)
    table.fake.inject("sendMessage", status=500, times=3)
    table.fake.inject("editMessageText", status=429, retry_after=1, times=2)
    table.fake.inject("answerCallbackQuery", status=400, description="Bad Request: query is too old", times=2)
    table.fake.inject("sendMessage", status=403, description="Forbidden: bot was blocked by the user", chat_id=3)
    table.start_game(1)
    table.post(U.command(U.group(table.group), U.user(1), "/status"), secret="wrong")
    event = U.webhook_event({"update_id": 1}, SECRET)
    event["body"] = "{not json"
    app.lambda_handler(event, None)
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(1)),
                          status=lambda u, c: table.command(u, "/status", chat=c))
    driver.play()
    assert driver.over(), [m["text"][-300:] for m in table.messages(table.group)[-3:]]
    secrets = (TOKEN, TOKEN.split(":")[1], SECRET)
    assert debug_logs.lines and any(line.startswith("gamebot") for line in debug_logs.lines)
    assert any(line.startswith("gamebot.telegram DEBUG") for line in debug_logs.lines)  # each Bot API call
    assert _leaks(debug_logs, *secrets) == []

    # A cold start whose token Telegram rejects: python-telegram-bot's error message contains the token, and
    # so does the URL of the getMe that learns the username for the lobby's deep link (nothing is asked
    # of Telegram before the update is handled: the rejection comes with the first calls).
    bad = "999999:REJECTED-token-abcdef"
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", bad)
    app.reset()
    status = app.lambda_handler(U.webhook_event(U.command(U.group(table.group), U.user(1), "/newgame"), SECRET))
    assert status["statusCode"] == 200
    assert any("could not learn the bot's username (TelegramError)" in line for line in debug_logs.lines)
    assert any("telegram error on send" in line and "InvalidToken" in line for line in debug_logs.lines)
    assert _leaks(debug_logs, bad, bad.split(":")[1], *secrets) == []


def test_the_log_capture_would_see_a_token_in_an_http_client_log(table, debug_logs):
    """The check above is not vacuous: with httpx at INFO, its request lines carry the token."""
    logging.getLogger("httpx").setLevel(logging.INFO)
    table.fake.add_group(table.group)
    table.command(1, "/newgame")  # (a Bot API call over HTTP: /help is answered in the webhook's reply)
    assert table.fake.calls_to("sendMessage")
    assert _leaks(debug_logs, TOKEN)


# ---------------------------------------------------------------------------------------------------
# Nobody acts for another player
# ---------------------------------------------------------------------------------------------------


@pytest.fixture
def h():
    harness = Harness(seed=5)
    yield harness
    harness.close()


def _state(h: Harness) -> GameState:
    return Session.from_body(h.repo.items[chat_key(GROUP)].body).game()


def test_no_player_can_act_for_another(h):
    players = [1, 2, 3, 4, 5, 6, 7]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1), approve_rate=1.0))
    vote_msg = until_vote(driver, HarnessScreen(h), GROUP)
    approve = next(b["data"] for row in vote_msg["buttons"] for b in row if "Approve" in b["text"])
    msg = h.io.msgs[(GROUP, vote_msg["message_id"])]
    for uid in players:  # everyone presses the same vote button: each press is that presser's own vote
        before = _state(h)
        h.press(uid, msg, approve)
        new = [Action.decode(e) for e in _state(h).log[len(before.log):]]
        assert [a.seat for a in new] == [players.index(uid)]
    state = _state(h)
    team = state.team
    good = [s for s in team if state.sides[s] is Side.GOOD]
    quest_msg = h.io.with_button(GROUP, "Success")[0]  # the quest's cards, under the round message
    for btn in [b for row in quest_msg.keyboard for b in row]:
        for presser in players:  # everyone presses every card: each press is at most the presser's own card
            before = _state(h)
            h.press(presser, quest_msg, btn.data)
            after = _state(h)
            new = [Action.decode(e) for e in after.log[len(before.log):]]
            assert all(a.seat == players.index(presser) for a in new)
            if new:  # it counted as the presser's own card, which the engine allowed them
                assert new[0].seat in team and (new[0].choice == "success" or after.sides[new[0].seat] is Side.EVIL)
            else:  # refused (not on the team, a card they may not play, or played already): nobody's card changed
                assert after.cards == before.cards
    for seat in good:  # and a Good player can never get a Fail in, whoever's button they press
        assert _state(h).cards.get(seat, "success") == "success"
