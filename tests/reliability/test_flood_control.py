"""Whole games under a Telegram-like flood control (``localdev.flood``: 20 messages and edits a minute
per group, 429 with a retry_after up to 60 s): every game finishes, and every prompt, result and
game-over message arrives, in order, with nothing dropped.

The unit harness (``tests/unit/flood_fakes.py``) puts the real ``TelegramIO`` over a stand-in Bot with
the flood control; time is a clock the test moves (an inline wait for a short 429 moves it; flush
timers fire when due). Each game is played twice with the same seeds: once without flood control (the
reference), once with it, the same players making the same moves, each as soon as they can see the
message they press (``replay``). The group then shows the same results and announcements in the same
order (the news that waited together may arrive as one message; an edit that waited may be replaced by
a later edit of the same message), every message ends the same, and each private chat shows exactly
the same messages. A last test plays through ``lambda_handler`` against ``FakeTelegram``'s flood control.
"""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine import replay as replay_game
from gamebot.storage.effects import Budget
from gamebot.storage.session import Session, chat_key
from tests.reliability.support import ALL_MODULES, SETUPS, final_state
from tests.unit.flood_fakes import FloodHarness, busiest_minute, game_settings, play
from tests.unit.gamebot_fakes import GROUP, Clock, Msg

FIVE = ("avalon", 5, ["merlin", "assassin", "percival", "morgana"], dict(ALL_MODULES))
FIVE_BASE = ("avalon", 5, ["merlin", "assassin"], {})
TELEGRAM = {"per_minute": 20, "max_retry_after": 60}
# now and then a long retry_after (up to 60 s), and 429s Telegram's other limits give, private chats included
PUSHY = {**TELEGRAM, "long_rate": 0.25, "spurious_rate": 0.03, "seed": 11}
FAST = Budget.per_minute(120)  # the service's budget far above Telegram's limit: Telegram's 429s happen


@pytest.fixture(autouse=True)
def same_game_ids(monkeypatch):
    """Game ids are random (``secrets``); both runs of a game need the same one (it is in the buttons)."""
    monkeypatch.setattr("gamebot.handlers.lobby.new_game_id", lambda: "f100d0")


def _key(h: FloodHarness, chat: int, message_id: int) -> tuple[str, int]:
    """A message as a person tells it apart: its first text (and which of the messages with that text)."""
    msgs = h.io.chat(chat)
    first = h.io.msgs[(chat, message_id)].history[0]
    same = [m.message_id for m in msgs if m.history[0] == first]
    return first, same.index(message_id)


def _find(h: FloodHarness, chat: int, key: tuple[str, int]) -> Msg | None:
    same = [m for m in h.io.chat(chat) if m.history[0] == key[0]]
    return same[key[1]] if len(same) > key[1] else None


def _data(m: Msg) -> set[str]:
    return {b.data for row in m.keyboard or [] for b in row if b.data}


def _play_again(h: Any, m: Msg) -> set[str]:
    """The game-over message's "Play again" (no decision of the game: it stays)."""
    from gamebot.botapi.buttons import PlayAgain, decode

    return {d for d in _data(m) if isinstance(decode(h.codec, d).op, PlayAgain)}


def replay(ref: FloodHarness, seed: int, flood: dict[str, Any], budget: Budget | None, setup: tuple) -> FloodHarness:
    """``ref``'s game again under ``flood``: every update of ``ref`` in turn, a press only once its message
    has arrived (time passes meanwhile: flush timers fire), on that message as this run shows it."""
    theme, _, roles, options = setup
    h = FloodHarness(seed=seed, flood=flood, budget=budget)
    for i, update in enumerate(ref.sent):
        if i == ref.settings_at:
            game_settings(h.repo, theme, roles, options)
        query = update.get("callback_query")
        if query is not None:
            chat, mid = query["message"]["chat"]["id"], query["message"]["message_id"]
            key = _key(ref, chat, mid)
            while (m := _find(h, chat, key)) is None:
                assert h.idle(), f"never arrived in chat {chat}: {key[0][:80]!r}"
            while query["data"] not in _data(m) and h.next_flush() is not None:
                h.idle()  # (its buttons may come with an edit that waits)
            update = copy.deepcopy(update)
            update["callback_query"]["message"].update(message_id=m.message_id, text=m.text)
        h.send(update)
    h.drain()
    return h


# --- what arrived ------------------------------------------------------------------------------------


def group_news(h: FloodHarness) -> list[str]:
    """The lines of every message the game sent the group (not replies to commands), in arrival order."""
    return [line for a in h.io.log if a.out.chat_id == GROUP and a.out.op in ("send", "photo")
            and a.out.essential and a.out.tag != "reply" for line in (a.out.text or "").split("\n")]


def group_story(h: FloodHarness) -> list[str]:
    """The group's essential texts in arrival order: each line sent, and each text an essential edit showed.
    (The board's edits are left out: news waiting for the budget merges past a waiting board edit, which
    then lands after news that did not change the board; how the board ends: ``last_essential``.)"""
    story = []
    for a in h.io.log:
        if (a.out.chat_id != GROUP or not a.out.essential or a.out.tag in ("reply", "board")
                or not a.out.text):
            continue
        story += a.out.text.split("\n") if a.out.op in ("send", "photo") else [f"✎ {a.out.text}"]
    return story


def is_subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def last_essential(h: FloodHarness, chat: int) -> dict[int, str]:
    """Message id -> the last text an essential operation gave it (progress edits left out)."""
    out: dict[int, str] = {}
    for a in h.io.log:
        if a.out.chat_id == chat and a.out.essential and a.out.op in ("send", "photo", "edit"):
            out[a.message_id] = a.out.text or ""
    return out


def labels(m: Msg) -> list[str]:
    return [b.text for row in m.keyboard or [] for b in row]


def assert_same_game(ref: FloodHarness, got: FloodHarness, players: int) -> None:
    a, b = final_state(ref.repo, GROUP), final_state(got.repo, GROUP)
    assert a.over and b.over and a.log == b.log  # the same game, finished
    assert replay_game(b.config, b.seed, b.log).to_json() == b.to_json()
    assert group_news(got) == group_news(ref)  # every result and announcement, in the order decided
    assert is_subsequence(group_story(got), group_story(ref))  # essential edits too (some coalesced)
    assert any("Game over" in line for line in group_news(got)) and got.io.photos(GROUP)
    ref_last, got_last = last_essential(ref, GROUP), last_essential(got, GROUP)
    for m in ref.io.chat(GROUP):  # every group message ends as it did without flood control
        twin = _find(got, GROUP, _key(ref, GROUP, m.message_id))
        if twin is None:  # only news that waited together with other news (its lines: group_news)
            assert not m.keyboard and len(m.history) == 1
            continue
        assert got_last.get(twin.message_id) == ref_last.get(m.message_id)
        assert labels(twin) == labels(m)
    for uid in range(1, players + 1):  # private chats: the same messages, each ending the same
        mine, theirs = ref.io.chat(uid), got.io.chat(uid)
        assert [m.history[0] for m in theirs] == [m.history[0] for m in mine]  # prompts included, in order
        for m, twin in zip(mine, theirs, strict=True):
            assert (twin.text, labels(twin)) == (m.text, labels(m))
            assert is_subsequence(twin.history, m.history)  # (edits that waited together: the latest)


CASES = [
    pytest.param(FIVE, 3, TELEGRAM, FAST, id="5p-all-modules-fast-budget"),
    pytest.param(FIVE_BASE, 4, PUSHY, None, id="5p-base-default-budget-long-waits"),
    pytest.param(SETUPS["base"], 1, TELEGRAM, FAST, id="10p-base-all-modules-fast-budget"),
    pytest.param(SETUPS["messengers_liars"], 2, PUSHY, FAST, id="10p-messengers-long-waits"),
    pytest.param(SETUPS["lancelot_rogue_sorcerer"], 5, PUSHY, None, id="10p-lancelot-default-budget-long-waits"),
    pytest.param(SETUPS["resistance"], 6, TELEGRAM, FAST, id="10p-resistance-plot-cards"),
]


@pytest.mark.parametrize(("setup", "seed", "flood", "budget"), CASES)
def test_under_flood_control_every_message_arrives_in_the_order_decided(setup, seed, flood, budget):
    ref = play(setup, seed, budget=budget)
    got = replay(ref, seed, flood, budget, setup)
    assert_same_game(ref, got, setup[1])
    assert got.flood.refusals  # Telegram's flood control did answer 429
    assert got.flood.busiest(GROUP) <= 20  # (what Telegram let through)
    if budget is FAST:
        assert busiest_minute(ref.io.group_times()) > 20  # without flood control it would have sent more
    assert not got.io.lost_replies


@pytest.mark.parametrize(("setup", "seed", "flood", "budget"), [CASES[0], CASES[3], CASES[4]])
def test_a_game_played_by_reading_the_chats_under_flood_control_finishes_with_nothing_left_behind(setup, seed, flood,
                                                                                                 budget):
    """No replay: the players see what arrives and act on it (a player whose chat must wait sees nothing
    change for a while: they may have to ask /status, as the help says)."""
    h = play(setup, seed, flood=flood, budget=budget)
    state = final_state(h.repo, GROUP)
    assert h.driver.over() and state.over
    assert replay_game(state.config, state.seed, state.log).to_json() == state.to_json()
    assert any("Game over" in line for line in group_news(h)) and h.io.photos(GROUP)
    assert h.flood.refusals and not h.io.lost_replies
    for chat in [GROUP, *range(1, setup[1] + 1)]:  # every decision's buttons were taken away in the end
        assert [m.text for m in h.io.chat(chat) if _data(m) - _play_again(h, m)] == []  # ("Play again" stays)


# --- through lambda_handler, against FakeTelegram's flood control -------------------------------------


@pytest.fixture
def telegram_time(table, monkeypatch):
    """One clock for the service, the fake Bot API's flood control and TelegramIO's waits (a short 429
    waited out inline moves it; so does every update, by a second). Nothing sleeps."""
    import asyncio
    from types import SimpleNamespace

    import app

    app.reset()
    clock = Clock()
    svc = app.service()
    svc.set_clock(clock)

    async def sleep(seconds: float) -> None:
        until = clock.now + seconds
        await asyncio.sleep(0)
        clock.now = max(clock.now, until)

    svc.io.sleep = sleep
    monkeypatch.setattr("gamebot.botapi.telegram_io.time", SimpleNamespace(monotonic=clock))  # its wait budget too
    post = table.post

    def paced(*args: Any, **kwargs: Any) -> int:
        clock.now += 1
        return post(*args, **kwargs)

    table.post = paced
    return clock


@pytest.mark.parametrize("seed", [1, 2])
def test_through_the_webhook_against_telegrams_flood_control_a_game_finishes_with_every_result(table, telegram_time,
                                                                                              seed):
    """The webhook's default here is no group budget at all (GROUP_MESSAGES_PER_MINUTE=0): every group
    message Telegram refuses waits in the outbox and goes out when the flush comes."""
    import re

    import app

    from localdev.autoplay import Policy
    from tests.reliability.support import RobustDriver

    flood = table.fake.flood_control(20, 60, clock=telegram_time, long_rate=0.3, seed=seed)
    players = list(range(1, 8))
    table.open_lobby(players, roles=["Percival", "Morgana"], options=["Lady"])
    table.start_game(1)
    driver = RobustDriver(table, table.group, players, Policy(rng=random.Random(seed)),
                          status=lambda uid, chat: table.command(uid, "/status", chat=chat))
    driver.play()
    while table.idle():
        pass
    state = final_state(app.service().repo, table.group)
    assert driver.over() and state.over and set(table.statuses) == {200}
    assert replay_game(state.config, state.seed, state.log).to_json() == state.to_json()
    group = table.fake.messages(table.group)
    texts = "\n".join(m.get("text", m.get("caption", "")) for m in group)
    announced = [(int(q), r == "succeeded") for q, r in re.findall(r"<b>Quest (\d) (succeeded|failed)</b>", texts)]
    assert announced == [(q.quest + 1, q.success) for q in state.quests]  # every result, in order
    assert "Game over" in texts and any("photo" in m for m in group)
    assert not Session.from_body(app.service().repo.get(chat_key(table.group)).body).outbox.effects
    for chat in [table.group, *players]:  # every decision's buttons were taken away in the end
        assert [m["text"] for m in table.messages(chat)
                if any(b["data"] and "Play again" not in b["text"] for row in m["buttons"] for b in row)] == []
    assert flood.refusals and flood.busiest(table.group) <= 20
