"""Ten players press at the same instant, each press handled by a different Lambda container.

Each container is built like a cold start (``app._build``: its own event loop, Bot and HTTP client)
with its own DynamoDB client, against a moto server and the fake Bot API on 127.0.0.1. The threads
wait on a barrier and then call ``Service.handle`` together, so the conditional writes really collide
and ``store.retrying`` really re-reads and re-applies. ``RELIABILITY_TRIALS`` raises the number of
rounds (default 6: two or three games' worth of concurrent votes and quest cards).
"""
from __future__ import annotations

import json
import os
import random
import re
from typing import Any

import pytest

from engine import Action
from gamebot.storage.store import VersionConflict
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import (
    Container,
    ContainerTable,
    RobustDriver,
    all_at_once,
    create_table,
    final_state,
    session_of,
    until_vote,
)

TRIALS = int(os.environ.get("RELIABILITY_TRIALS", "6"))
PLAYERS = list(range(1, 11))


def _shown_with(fake: Any, chat: int, marker: str) -> int:
    """How many of the chat's messages came to show ``marker`` (a regular expression): each message once, however often it was
    edited to the same result (a closing edit repeated by a delivery another container took over is the
    same text again, not a second result; a send is a message of its own)."""
    messages: set[Any] = set()
    for i, c in enumerate(fake.calls):
        if c.method in ("sendMessage", "editMessageText") and c.params.get("chat_id") == chat \
                and re.search(marker, c.params.get("text", "")):
            messages.add(c.params.get("message_id") if c.method == "editMessageText" else ("send", i))
    return len(messages)


def _texts(fake: Any, chat: int) -> list[str]:
    """Every text the chat was shown: sends and edits, in order (from the recorded Bot API calls)."""
    return [c.params.get("text", "") for c in fake.calls
            if c.method in ("sendMessage", "editMessageText") and c.params.get("chat_id") == chat]


CONFLICTS = {"n": 0}


def _count_conflicts(container: Container) -> None:
    repo = container.service.repo
    put = repo.put

    def counted(item, expect):
        try:
            return put(item, expect)
        except VersionConflict:
            CONFLICTS["n"] += 1
            raise

    repo.put = counted


@pytest.fixture
def containers(moto_endpoint, fake_server):
    fake_server.reset()
    table_name = f"concurrency-{random.getrandbits(32):x}"
    create_table(moto_endpoint, table_name)
    built = [Container(moto_endpoint, fake_server, table_name, seeds=random.Random(i)) for i in range(len(PLAYERS))]
    for c in built:
        _count_conflicts(c)
    yield built
    for c in built:
        c.close()
    fake_server.reset()


@pytest.mark.slow
def test_simultaneous_votes_and_cards_from_separate_containers_count_once_and_resolve_once(containers, fake_server):
    rng = random.Random(2024)
    CONFLICTS["n"] = 0
    trials = game = 0
    while trials < TRIALS:
        game += 1
        group = -1003000000000 - game
        table = ContainerTable(fake_server, containers[0], group)
        table.open_lobby(PLAYERS)
        table.press_label(PLAYERS[0], group, "Start")
        driver = RobustDriver(table, group, PLAYERS, Policy(rng=random.Random(game)), status=table.status)
        while trials < TRIALS:
            vote_msg = _open_vote(driver, table, containers[0], group)
            if vote_msg is None:
                break
            trials += 1
            _vote_round(containers, table, vote_msg, rng)
        driver.play()  # finish the game (assassination, or the last rounds after the trials)
        assert driver.over()
        assert set(table.statuses) == {200}
    assert CONFLICTS["n"] > 0  # the writes really collided and were retried from a fresh read


def _open_vote(driver: Any, table: ContainerTable, container: Container, group: int) -> dict[str, Any] | None:
    """The message of the vote now open, as the session records it (a message's keyboard alone may be an
    older state: see the note at the end of ``_vote_round``); the Leader acts until one is open."""
    for _ in range(200):
        s = session_of(container, group)
        state = s.game() if s.state else None
        if state is None or state.over:
            return None
        if state.stage == "vote" and s.vote_msg:
            shown = next((m for m in table.messages(group) if m["message_id"] == s.vote_msg), None)
            if shown is not None and any("Approve" in b["text"] for row in shown["buttons"] for b in row):
                return shown
        if until_vote(driver, table, group) is None:
            return None
    return None


def _vote_round(containers: list[Container], table: ContainerTable, vote_msg: dict[str, Any], rng: random.Random) -> None:
    group, fake = table.group, table.fake
    before = session_of(containers[0], group)
    state = before.game()
    votes_shown = _shown_with(fake, group, "<b>Votes</b>")
    quests_done = len(state.quests)
    # 7 to 10 approvals (a majority: the quest follows), the others reject
    rejecters = set(rng.sample(range(10), rng.randint(0, 3)))
    approve = next(b["data"] for row in vote_msg["buttons"] for b in row if "Approve" in b["text"])
    reject = next(b["data"] for row in vote_msg["buttons"] for b in row if "Reject" in b["text"])
    updates = [U.press(U.user(uid), fake.message(group, vote_msg["message_id"]), reject if seat in rejecters else approve)
               for seat, uid in enumerate(PLAYERS)]
    statuses = all_at_once(containers, updates)
    assert statuses == [200] * 10

    after = session_of(containers[0], group)
    new = after.game()
    assert {u["update_id"] for u in updates} <= set(after.seen)  # no update lost
    proposal = new.proposals[len(state.proposals) - 1]
    expected = "".join("R" if seat in rejecters else "A" for seat in range(10))
    assert proposal.votes == expected and proposal.approved is True  # every vote counted once
    new_votes = [Action.decode(e) for e in new.log[len(state.log):] if Action.decode(e).kind == "vote"]
    assert sorted(a.seat for a in new_votes) == list(range(10))
    assert _shown_with(fake, group, "<b>Votes</b>") == votes_shown + 1  # resolved once: one message shows it
    team = list(proposal.team) if proposal.team else list(new.team)

    # the quest's card buttons on the round message in the group; every team member presses one at the
    # same instant (Good a Success, Evil either card: the engine refuses a Good player's Fail)
    quest_msgs = [m for m in table.messages(group) if any((b["data"] or "").startswith("Q:") for row in m["buttons"] for b in row)]
    if not quest_msgs:
        return  # a plug-in decision comes first (not in these plain tables)
    assert len(quest_msgs) == 1, [m["text"] for m in quest_msgs]  # the round message, edited once
    quest_msg = quest_msgs[0]
    buttons = {b["text"]: b["data"] for row in quest_msg["buttons"] for b in row}
    played: dict[int, str] = {}
    card_updates = []
    for seat in team:
        card = "fail" if new.sides[seat].value == "evil" and rng.random() < 0.5 else "success"
        played[seat] = card
        data = next(d for label, d in buttons.items() if ("Fail" if card == "fail" else "Success") in label)
        card_updates.append(U.press(U.user(PLAYERS[seat]), fake.message(group, quest_msg["message_id"]), data))
    statuses = all_at_once(containers[: len(card_updates)], card_updates)
    assert statuses == [200] * len(card_updates)
    final = session_of(containers[0], group)
    result = final_state(containers[0].service.repo, group)  # (archived if that quest ended the game)
    assert {u["update_id"] for u in card_updates} <= set(final.seen)
    assert len(result.quests) == quests_done + 1  # the quest resolved once
    record = result.quests[-1]
    fails = sum(1 for c in played.values() if c == "fail")
    assert record.cards.get("fail", 0) == fails and record.cards.get("success", 0) == len(played) - fails
    assert _shown_with(fake, group, r"Quest \d (succeeded|failed)") == quests_done + 1
    # every card in: the bot closed the round message, the buttons gone. (What it decided and sent; another
    # container's progress edit let out a moment before may still land after it, which is why a closing edit
    # is sent once more: tests/reliability/test_closed_messages.py checks what the chat ends showing.)
    closing = [c.params for c in fake.calls if c.method == "editMessageText" and c.params.get("chat_id") == group
               and c.params.get("message_id") == quest_msg["message_id"]
               and f"Cards played: {len(team)}/{len(team)}" in c.params.get("text", "")]
    def buttons(params: dict[str, Any]) -> Any:
        markup = params.get("reply_markup") or {}
        return (json.loads(markup) if isinstance(markup, str) else markup).get("inline_keyboard")

    assert closing and not any(buttons(p) for p in closing), closing
