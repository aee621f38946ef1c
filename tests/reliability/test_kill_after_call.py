"""The function dies after a Bot API call, before it could finish the step; Telegram redelivers the update
(it got no answer). Every chat must end with exactly the messages of the same game played without
faults: nothing lost (the outbox keeps what was not sent), nothing sent twice (the receipts note each
message the moment Telegram answers it, before the chat's next call; edits may be repeated: they change
nothing).

The kill: the k-th Bot API call of an update completes (Telegram performed it, its answer arrived and
was handled), then the process dies: its next Bot API call, DynamoDB write or receipt raises
``Killed`` and nothing of that process runs any more; the method it would have returned in the
webhook's answer is never performed. k is drawn for every update of the game (past the update's last
call: the ack is lost, or nothing is killed).

The one window no design closes: Telegram performed a send but its answer never arrived (or the
function died in the milliseconds between the answer and its receipt). That message may arrive twice:
``test_a_death_before_the_receipt_sends_that_one_message_again`` shows the window is that one message.
"""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest

import gamebot.handlers.lobby
from gamebot.storage.effects import UNLIMITED
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver, final_state, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen


class Killed(BaseException):
    """The Lambda function's process ends (not an exception our code could catch and go on from)."""


class Mortal:
    """Makes a Harness's process die after the k-th Bot API call of an update (``kill_after``)."""

    def __init__(self, h: Harness, before_receipt: bool = False) -> None:
        self.before_receipt = before_receipt  # die right after the call, before its receipt is noted
        self.kill_after: int | None = None
        self.kills = 0
        self.killed_sends = 0  # kills right after a send
        self.revive()
        io, repo = h.io, h.repo
        run, put, transact, note = io.run, repo.put, repo.transact, repo.note

        async def mortal_run(outs: list[Any]) -> list[Any]:
            self._alive()
            results = await run(outs)
            self.calls += 1
            if self.calls == self.kill_after:
                self.kills += 1
                self.killed_sends += any(o.op in ("send", "photo") for o in outs)
                self.state = "dead" if before_receipt else "last words"
            return results

        def mortal(fn: Any, receipt: bool = False) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                if receipt and self.state == "last words":  # the receipt of that call is noted, then death
                    self.state = "dead"
                    return fn(*args, **kwargs)
                self._alive()
                return fn(*args, **kwargs)
            return call

        io.run = mortal_run
        repo.put, repo.transact, repo.note = mortal(put), mortal(transact), mortal(note, receipt=True)

    def _alive(self) -> None:
        if self.state != "alive":
            self.state = "dead"
            raise Killed()

    def revive(self) -> None:
        """A new container."""
        self.calls, self.kill_after, self.state = 0, None, "alive"


def _play(setup: str, seed: int, kill: bool, before_receipt: bool = False,
          script: tuple[Harness, list[dict[str, Any]]] | None = None
          ) -> tuple[Harness, Mortal | None, list[dict[str, Any]]]:
    """A whole game. Without ``script`` the driver plays it (like people reading their chats); with it
    (a played game's harness and updates), the same updates are delivered again, so both runs make the
    very same decisions. Returns the harness, the killer and the updates after the lobby."""
    theme, n, roles, options = SETUPS[setup]
    U.reset()
    h = Harness(seed=seed)
    h.service.uow.budget = UNLIMITED  # (the group's budget would group news by timing: tested elsewhere)
    mortal = None
    if kill:
        mortal = Mortal(h, before_receipt)
        rng = random.Random(seed)
        send_once = h.send

        def send(update: dict[str, Any]) -> int:
            mortal.revive()
            mortal.kill_after = rng.randint(1, 6)
            try:
                status = send_once(update)
            except Killed:
                mortal.revive()  # a new container; Telegram delivers the update again
                status = send_once(update)
            mortal.revive()  # (what runs between updates, the flush timers, is not killed here)
            return status

        h.send = send
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    start = len(h.sent)
    if script is None:
        h.press_label(1, GROUP, "Start")
        driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed)))
        driver.play()
        assert driver.over()
    else:
        played, updates = script
        for update in updates:
            assert h.send(_same_message(update, played, h)) == 200
    assert not h.idle()  # (without a group budget nothing waits)
    return h, mortal, h.sent[start:]


def _same_message(update: dict[str, Any], played: Harness, h: Harness) -> dict[str, Any]:
    """The press of ``update`` on the same message of ``h`` (the n-th message of that chat): message ids
    count across chats in the fake, so parallel sends to different chats may number them differently."""
    query = update.get("callback_query")
    if not query:
        return update
    msg = query["message"]
    chat = msg["chat"]["id"]
    ids = [m.message_id for m in played.io.chat(chat)]
    here = [m.message_id for m in h.io.chat(chat)]
    update = copy.deepcopy(update)
    update["callback_query"]["message"]["message_id"] = here[ids.index(msg["message_id"])]
    return update


def _screens(h: Harness) -> dict[int, list[tuple[str, list[list[str]]]]]:
    """Every chat as it ends: its messages in order, each with its final text and buttons."""
    return {chat: [(m.text, [[b.text for b in row] for row in m.keyboard or []]) for m in h.io.chat(chat)]
            for chat in sorted({c for c, _ in h.io.order})}


def _sent(h: Harness) -> dict[int, list[str]]:
    """Every message each chat received, in order (sends only)."""
    return {chat: [m.history[0] for m in h.io.chat(chat)] for chat in sorted({c for c, _ in h.io.order})}


@pytest.fixture(autouse=True)
def fixed_game_id(monkeypatch):
    monkeypatch.setattr(gamebot.handlers.lobby, "new_game_id", lambda: "g00d1d")


@pytest.mark.parametrize("setup,seed", [("base", 1), ("messengers_liars", 2), ("resistance", 3),
                                        ("lancelot_rogue_sorcerer", 4)])
def test_killed_after_any_bot_api_call_every_chat_ends_exactly_as_without_faults(setup, seed):
    clean, _, script = _play(setup, seed, kill=False)
    faulty, mortal, _ = _play(setup, seed, kill=True, script=(clean, script))
    assert mortal.kills > 30 and mortal.killed_sends > 5  # the kills hit sends, edits and acks alike
    assert _sent(faulty) == _sent(clean)
    assert _screens(faulty) == _screens(clean)
    assert final_state(faulty.repo, GROUP).to_json() == final_state(clean.repo, GROUP).to_json()
    assert _statistics(faulty) == _statistics(clean) and _statistics(clean)  # the game counted once
    clean.close()
    faulty.close()


def _statistics(h: Harness) -> dict[str, Any]:
    """The statistics and ratings items (the game's end counts in them through its outbox)."""
    return {k: v.body for k, v in h.repo.items.items() if k.startswith("stats#")}


def test_a_death_after_the_statistics_are_written_counts_the_game_once():
    """The function dies once the end's statistics are written, before its ack: the redelivered update
    delivers the rest of the end, and counts nothing twice."""
    clean, _, script = _play("base", 6, kill=False)
    U.reset()
    h = Harness(seed=6)
    h.service.uow.budget = UNLIMITED
    counted = h.service.courier.tally
    deaths = []

    def tally(effect: Any) -> None:
        counted(effect)
        if not deaths:
            deaths.append(effect.stats["game_id"])
            raise Killed()

    h.service.courier.tally = tally
    theme, n, roles, options = SETUPS["base"]
    h.lobby(list(range(1, n + 1)))
    set_settings(h.repo, GROUP, theme, roles, options)
    for update in script:
        try:
            status = h.send(_same_message(update, clean, h))
        except Killed:  # a new container; Telegram delivers the update again
            status = h.send(_same_message(update, clean, h))
        assert status == 200
    assert deaths == ["g00d1d"] and not h.idle()
    assert _statistics(h) == _statistics(clean)
    assert _sent(h) == _sent(clean) and _screens(h) == _screens(clean)
    clean.close()
    h.close()


def test_a_death_before_the_receipt_sends_that_one_message_again():
    """The window left open: the send happened, its answer (so its receipt) was lost. Only the message of
    that very call may be doubled; everything else arrives exactly once."""
    clean, _, script = _play("base", 5, kill=False)
    faulty, mortal, _ = _play("base", 5, kill=True, before_receipt=True, script=(clean, script))
    want, got = _sent(clean), _sent(faulty)
    extra = sum(len(got[c]) for c in got) - sum(len(want[c]) for c in want)
    assert 0 < extra <= mortal.killed_sends
    for chat in want:  # with each doubled message removed once, the chat is the one of the clean game
        rest = list(got[chat])
        for i in range(len(rest) - 1, 0, -1):
            if rest[i] == rest[i - 1] and rest.count(rest[i]) > want[chat].count(rest[i]):
                del rest[i]
        assert rest == want[chat], chat
    clean.close()
    faulty.close()
