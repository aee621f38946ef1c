"""The Bot API misbehaves (fault injection in ``localdev.fake_telegram``): 429 with retry_after, 403 for a
player who never started the bot or blocked it, 400 "message is not modified" and "query is too old",
5xx and timeouts. Games still finish, nothing stored is lost, and players are told what to do.

Everything goes through ``lambda_handler`` with moto. Waiting out a 429 is recorded instead of slept
(``TelegramIO.sleep``), and the Bot's HTTP timeouts are shortened so that an injected delay times out
quickly; both are the only test-time changes.
"""
from __future__ import annotations

import random
import re
from typing import Any

import app
import pytest
from telegram.request import HTTPXRequest

from engine import replay
from gamebot.compose.follow_up import follow_up
from gamebot.outbox.courier import Notices
from gamebot.outbox.delivery import Facts
from gamebot.storage.session import ENDED, Session, chat_key
from localdev import updates as U
from localdev.autoplay import Policy
from localdev.fake_telegram import NOT_MODIFIED
from tests.reliability.support import RobustDriver, final_state, until_vote
from tests.unit.gamebot_fakes import Clock

TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
NEVER_STARTED = "Forbidden: bot can't initiate conversation with a user"


class QuickTimeouts(HTTPXRequest):
    """The webhook's HTTP client with a 0.25 s timeout (an injected delay of 0.5 s then times out)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.update(read_timeout=0.25, write_timeout=0.25, connect_timeout=0.25)
        super().__init__(**kwargs)


@pytest.fixture
def waits(table, monkeypatch):
    """Record 429 waits instead of sleeping them; quick HTTP timeouts."""
    import asyncio

    monkeypatch.setattr("telegram.request.HTTPXRequest", QuickTimeouts)
    app.reset()
    recorded: list[float] = []

    async def wait(seconds: float) -> None:
        recorded.append(seconds)
        await asyncio.sleep(0)

    app.service().io.sleep = wait
    # A clock the test moves, one second per update: what a failure leaves waiting in the outbox goes out
    # when due, as the flush timer would send it (``WebhookTable.idle``), without the test sleeping.
    clock = Clock()
    app.service().set_clock(clock)
    post = table.post

    def paced(*args: Any, **kwargs: Any) -> int:
        clock.now += 1
        return post(*args, **kwargs)

    table.post = paced
    return recorded


def _status(table):
    return lambda uid, chat: table.command(uid, "/status", chat=chat)


def _session(table) -> Session:
    return Session.from_body(app.service().repo.get(chat_key(table.group)).body)


def _assert_intact(table) -> None:
    """Nothing stored was lost: the game ended and its state is what its seed and log replay to."""
    state = final_state(app.service().repo, table.group)
    assert _session(table).status == ENDED and state.over, [m["text"][-300:] for m in table.messages(table.group)[-3:]]
    assert replay(state.config, state.seed, state.log).to_json() == state.to_json()


def _link(text: str) -> str:
    return re.search(r"start=([A-Za-z0-9_-]+)", text).group(1)


FAULTS: list[tuple[str, dict[str, Any]]] = [
    ("sendMessage", {"status": 429, "retry_after": 3}),
    ("editMessageText", {"status": 429, "retry_after": 3}),
    ("answerCallbackQuery", {"status": 429, "retry_after": 2}),
    ("sendMessage", {"status": 500}),
    ("sendMessage", {"status": 502, "times": 2}),  # the one retry of a send fails too: the message is lost
    ("editMessageText", {"status": 503}),
    ("editMessageReplyMarkup", {"status": 500}),
    ("answerCallbackQuery", {"status": 400, "description": TOO_OLD}),
    ("editMessageText", {"status": 400, "description": NOT_MODIFIED}),
    ("sendMessage", {"delay": 0.5}),  # a timeout (the server still delivers it, late)
    ("editMessageText", {"delay": 0.5}),
    ("pinChatMessage", {"status": 400, "description": "Bad Request: not enough rights to pin a message"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_finishes_with_nothing_lost_through_a_storm_of_bot_api_errors(table, waits, seed):
    rng = random.Random(seed)
    players = list(range(1, 8))
    table.open_lobby(players, roles=["Percival", "Morgana"], options=["Lady"])
    faults = []
    press = table.press

    def press_with_faults(*args: Any) -> int:  # (the players' /status requests get through)
        if rng.random() < 0.4:
            method, kwargs = rng.choice(FAULTS)
            faults.append(table.fake.inject(method, **kwargs))
        return press(*args)

    table.press = press_with_faults
    table.start_game(1)
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(seed)), status=_status(table))
    driver.play()
    assert driver.over(), [m["text"][-300:] for m in table.messages(table.group)[-3:]]
    assert set(table.statuses) == {200}  # no error ever made Telegram redeliver
    _assert_intact(table)
    hit = {f.status for f in faults if f.hits}
    assert sum(f.hits for f in faults) >= 10 and {429, 400, None} <= hit and hit & {500, 502, 503}
    assert waits and max(waits) <= 3  # essential messages waited out flood control


def test_a_player_who_never_started_the_bot_gets_a_deep_link_in_the_group_and_catches_up(table):
    """Their record says they started the bot, but Telegram refuses: the chat was deleted meanwhile."""
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.fake.inject("sendMessage", status=403, description=NEVER_STARTED, chat_id=3, times=None)
    table.start_game(1)
    notice = next(t for t in table.fake.texts(table.group) if "cannot send private messages to" in t)
    assert 'tg://user?id=3"' in notice and f"t.me/{U.BOT_USERNAME}?start=r" in notice
    assert 3 in _session(table).unreachable
    table.fake.clear_faults()
    table.fake.start_private(U.user(3))
    table.post(U.start(U.user(3), _link(notice)))  # they tap the link and press Start
    texts = table.fake.texts(3)
    assert any("Welcome back" in t for t in texts) and any("Your secret role" in t for t in texts)
    assert 3 not in _session(table).unreachable
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(4)))
    driver.play()
    assert driver.over()
    _assert_intact(table)


def _at_the_first_vote(table, players: list[int], seed: int) -> tuple[RobustDriver, Any]:
    """A game started and played up to its first vote; returns the driver and ``approve_all()``."""
    table.open_lobby(players)
    table.start_game(players[0])
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(seed)))
    vote = until_vote(driver, table, table.group)
    approve = next(b["data"] for row in vote["buttons"] for b in row if "Approve" in b["text"])

    def approve_all() -> None:
        for uid in players:
            table.press(uid, table.group, vote["message_id"], approve)

    return driver, approve_all


def test_a_blocked_player_found_out_on_sending_is_reported_and_reconnects(table):
    """The ``my_chat_member`` update about the block never came: the 403 on sending is the news. The
    first private message after the block is the next Leader's team picker."""
    players = [1, 2, 3, 4, 5]
    driver, approve_all = _at_the_first_vote(table, players, seed=2)
    for uid in players:
        table.fake.block(U.user(uid))
    approve_all()
    notices: list[str] = []
    for _ in range(40):  # the team plays its cards in the group; then the next Leader's picker fails with 403
        notices = [t for t in table.fake.texts(table.group) if "cannot send private messages to" in t]
        if notices or not driver.step():
            break
    unreachable = sorted(_session(table).unreachable)
    assert len(unreachable) == 1 and len(notices) == 1  # one notice, for the Leader, nobody else
    leader = unreachable[0]
    assert f'tg://user?id={leader}"' in notices[0]
    for uid in players:
        table.fake.start_private(U.user(uid))
    table.post(U.start(U.user(leader), _link(notices[0])))
    assert any("Propose team" in b["text"] for m in table.messages(leader) for row in m["buttons"] for b in row)
    assert not _session(table).unreachable
    driver.play()
    assert driver.over()
    _assert_intact(table)


def test_the_quest_message_that_fails_waits_in_the_outbox_and_arrives(table, waits):
    """5xx twice on the edit that turns the vote into the quest's card buttons (the call and its one
    retry): nothing is lost. The edit stays in the outbox and goes out when retried (the flush timer, or
    the chat's next update); the group gets no notice and exactly one message with the cards."""
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(players[0])
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(3)))
    vote = until_vote(driver, table, table.group)
    approve = next(b["data"] for row in vote["buttons"] for b in row if "Approve" in b["text"])
    for uid in players[:-1]:
        table.press(uid, table.group, vote["message_id"], approve)
    table.fake.inject("editMessageText", status=500, times=2, chat_id=table.group)
    table.press(players[-1], table.group, vote["message_id"], approve)  # the last vote
    table.fake.clear_faults()

    def with_cards() -> list[dict[str, Any]]:
        return [m for m in table.messages(table.group)
                if any((b["data"] or "").startswith("Q:") for row in m["buttons"] for b in row)]

    assert with_cards() == []
    assert _session(table).outbox.effects  # it waits, with the time to try again
    while table.idle():  # time passes: the flush timer's delivery
        pass
    assert len(with_cards()) == 1 and "<b>Votes</b>" in with_cards()[0]["text"]
    assert not [t for t in table.fake.texts(table.group) if "did not get through" in t]
    driver.play()
    assert driver.over()
    _assert_intact(table)


def test_a_hidden_decision_whose_prompt_is_lost_is_not_mentioned_in_the_group(table):
    """Only the Trickster may choose which loyalty card to show (a hidden decision): announcing that their
    prompt failed would tell the group who the Trickster is. /status in private still recovers it."""
    from engine.models import Pending
    from gamebot.storage.store import Item

    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    service = app.service()
    stored = service.repo.get(chat_key(table.group))
    session = Session.from_body(stored.body)
    state = session.game()
    state.pending.append(Pending(kind="loyalty_card", owner="loyalty", actors=[session.seat_of(3)], hidden=True))
    session.state = state.to_json()
    service.repo.put(Item(key=stored.key, body=session.body()), stored.version)
    # (nothing at all for a hidden decision: no notice, no reminder, nothing the session learns)
    assert service.courier.learnt(session, Facts(lost={3: {"loyalty_card"}})) == []
    assert follow_up(service.deps, session, Facts(lost={3: {"loyalty_card"}})) == Notices()
    notices = follow_up(service.deps, session, Facts(lost={3: {"play"}})).lost  # a public decision is announced
    assert [o.tag for o in notices] == ["undelivered"] and 'id=3"' in notices[0].text


def test_flood_control_waits_never_outlast_the_lambda_timeout(table, waits):
    """With 2.5 s left before the Lambda timeout, a 429 asking to wait 5 s is not waited for: the role
    card that could not be sent waits in the outbox (a flush timer sends it when Telegram allows), the
    update answers 200 in time, and nothing is announced: nothing was lost."""

    class Context:
        def get_remaining_time_in_millis(self) -> int:
            return 2500

    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.fake.inject("sendMessage", status=429, retry_after=5, chat_id=2, times=None)
    msg, data = next((m, b["data"]) for m in reversed(table.messages(table.group)) for row in m["buttons"]
                     for b in row if "Start" in b["text"])
    event = U.webhook_event(U.press(U.user(1), table.fake.message(table.group, msg["message_id"]), data), table.secret)
    assert app.lambda_handler(event, Context())["statusCode"] == 200
    assert waits == []
    assert not any("Your secret role" in t for t in table.fake.texts(2))
    waiting = _session(table).outbox.effects
    # the role card, and what follows it in that chat, wait (a chat keeps its order)
    assert {e.chat for e in waiting} == {2} and waiting[0].tag == "role"
    assert waiting[0].not_before >= app.service().clock() + 5
    assert not any("did not get through" in t for t in table.fake.texts(table.group))
    table.fake.clear_faults()
    while table.idle():  # Telegram allows it again: the flush delivers it, once
        pass
    assert len([t for t in table.fake.texts(2) if "Your secret role" in t]) == 1
