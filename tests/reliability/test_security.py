"""Security: only Telegram (with the secret header) gets in, secrets never reach the logs, nobody acts for
another player, and the group never learns a hidden role before the end, with every role and module."""
from __future__ import annotations

import logging
import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import app
import pytest

import engine
from engine import Action, GameState, Side
from gamebot.compose import game as game_messages
from gamebot.core.runtime import lambda_logging
from gamebot.language.texts import name_of
from gamebot.storage.session import Session, chat_key
from localdev import updates as U
from localdev.autoplay import Policy
from tests.e2e.conftest import SECRET, TOKEN
from tests.reliability.support import SETUPS, RobustDriver, covered_roles, set_settings, until_vote
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


# ---------------------------------------------------------------------------------------------------
# Hidden roles stay hidden from the group until the end, with every role and module
# ---------------------------------------------------------------------------------------------------

SEEDS = [1, 2, 3]
END_PHASE = ("one last chance", "tries to recruit the Untrustworthy Servant", "Game over")
# Public by the rules: the Revealer turns their loyalty face up after the second failed quest.
RULED_PUBLIC = [re.compile(r"reveals themself: <b>" + re.escape(name_of("role", "revealer")) + "</b>"),
                re.compile(r"^🎭 .+ is " + re.escape(name_of("role_a", "revealer")) + r" \(", re.M)]  # the board


def _role_patterns() -> dict[str, re.Pattern[str]]:
    out = {}
    for rid in engine.ROLES:
        name = re.sub(r"^(the|a|an) ", "", name_of("role", rid))
        out[rid] = re.compile(r"\b" + re.escape(name) + r"(?![a-z])")
    return out


@dataclass
class Played:
    """A game played to its end: the group outs of each update, and every ``game_outs`` call with the
    harness's deps (what the game's messages were made of, to make them again)."""

    per_update: list[list[Any]]
    calls: list[tuple[Any, ...]]
    deps: Any


@cache
def played(setup: str, seed: int) -> Played:
    """``setup`` played with ``seed``, once for both tests below (the same game: same seed, same policy)."""
    game_outs = game_messages.game_outs
    calls: list[tuple[Any, ...]] = []

    def recording(deps, s, before, after, events, trigger):
        calls.append((s.model_copy(deep=True), before, after, events, trigger))
        return game_outs(deps, s, before, after, events, trigger)

    h = Harness(seed=seed)
    game_messages.game_outs = recording
    try:
        per_update = _play(setup, seed, h)
    finally:
        game_messages.game_outs = game_outs
        h.close()
    return Played(per_update, calls, h.service.deps)


def _play(setup: str, seed: int, h: Harness) -> list[list[Any]]:
    """Play ``setup``; the group outs of each update, from the start to the end."""
    theme, n, roles, options = SETUPS[setup]
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    per_update: list[list[Any]] = []
    send = h.send

    def recorded(update: dict[str, Any]) -> int:
        start = len(h.io.outs)
        status = send(update)
        per_update.append([o for o in h.io.outs[start:] if o.chat_id == GROUP and o.text])
        return status

    h.send = recorded
    h.press_label(1, GROUP, "Start")
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed), fail_rate=0.4))
    driver.play()
    assert driver.over()
    return per_update


def test_the_setups_cover_every_character():
    assert covered_roles() | {"servant", "minion"} == set(engine.ROLES)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_no_group_message_before_the_end_names_a_hidden_role(setup):
    patterns = _role_patterns()
    for seed in SEEDS:
        checked = 0
        for outs in played(setup, seed).per_update:
            if any(marker in o.text for o in outs for marker in END_PHASE):
                break  # the end phase: Evil reveals itself (assassination, recruitment), then every role
            for o in outs:
                text = o.text
                for ruled in RULED_PUBLIC:
                    text = ruled.sub("", text)
                named = [rid for rid, pattern in patterns.items() if pattern.search(text)]
                assert named == [], (named, o.tag, o.text)
                checked += 1
        assert checked > 20


def _permuted(state: GameState | None, perm: list[int], rng: random.Random) -> GameState | None:
    """The same public history with the hidden roles dealt differently: roles, sides and knowledge move
    to other seats; undisclosed votes and quest cards are shuffled among those who cast them."""
    if state is None or state.over:
        return state
    s = GameState.model_validate(state.model_dump())
    s.roles = [state.roles[p] for p in perm]
    s.sides = [state.sides[p] for p in perm]
    s.knowledge = [state.knowledge[p] for p in perm]
    voters, values = list(s.votes), list(s.votes.values())
    rng.shuffle(values)
    s.votes = dict(zip(voters, values, strict=True))
    players, cards = list(s.cards), list(s.cards.values())
    rng.shuffle(cards)
    s.cards = dict(zip(players, cards, strict=True))
    return s


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_group_messages_are_the_same_whoever_holds_the_hidden_roles(setup):
    """Every state change of real games is rendered again with the hidden roles dealt to other seats (and
    undisclosed votes and cards moved around, private events dropped): the group sees the same."""
    for seed in SEEDS[:2]:
        game = played(setup, seed)

        def original(*args, deps=game.deps):
            return game_messages.game_outs(deps, *args).outs

        rng = random.Random(seed)
        compared = 0
        for s, before, after, events, trigger in game.calls:
            if after.over:
                continue  # the end reveals every role
            perm = list(range(after.n))
            rng.shuffle(perm)
            public = [e for e in events if e.to is None]
            real = original(s.model_copy(deep=True), before, after, events, trigger)
            other = original(s.model_copy(deep=True), _permuted(before, perm, rng), _permuted(after, perm, rng),
                             public, trigger)
            group = [(o.op, o.message_id, o.text, o.keyboard) for o in real if o.chat_id == GROUP]
            assert group == [(o.op, o.message_id, o.text, o.keyboard) for o in other if o.chat_id == GROUP]
            compared += 1
        assert compared > 50
