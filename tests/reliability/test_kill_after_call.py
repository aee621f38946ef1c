"""The function dies after a Bot API call, before it could finish the step; Telegram redelivers the update
(it got no answer). Every chat must end with the messages of the same game played without faults:
nothing lost (the outbox keeps what was not sent), and nothing sent twice but the sends of the delivery
the death cut short (the courier writes nothing between its calls: the ack records what went out, so a
death before it repeats that delivery's sends that went out, never an earlier delivery's; edits may be
repeated: they change nothing).

The kill: the k-th Bot API call of an update completes (Telegram performed it, its answer arrived and
was handled), then the process dies: its next Bot API call or DynamoDB write raises ``Killed`` and
nothing of that process runs any more; the method it would have returned in the webhook's answer is
never performed. k is drawn for every update of the game (past the update's last call: the ack is lost,
or nothing is killed).
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

    def __init__(self, h: Harness) -> None:
        self.kill_after: int | None = None
        self.kills = 0
        self.killed_sends = 0  # kills right after a send
        self.unnoted: list[tuple[int, str]] = []  # (chat, text) of the sends since the last write of the chat
        self.repeatable: list[tuple[int, str]] = []  # the sends a death left unrecorded (sent again)
        self.revive()
        io, repo = h.io, h.repo
        run, put, transact, note = io.run, repo.put, repo.transact, repo.note

        async def mortal_run(outs: list[Any]) -> list[Any]:
            self._alive()
            results = await run(outs)
            self.unnoted += [(o.chat_id, o.text) for o in outs if o.op in ("send", "photo") and o.seq is not None]
            self.calls += 1
            if self.calls == self.kill_after:
                self.kills += 1
                self.killed_sends += any(o.op in ("send", "photo") for o in outs)
                self.state = "dead"
                self.repeatable += self.unnoted
            return results

        def mortal(fn: Any) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                self._alive()
                value = fn(*args, **kwargs)
                if _writes_the_chat(args[0]):  # (the ack: what went out is recorded)
                    self.unnoted = []
                return value
            return call

        io.run = mortal_run
        repo.put, repo.transact, repo.note = mortal(put), mortal(transact), mortal(note)

    def _alive(self) -> None:
        if self.state != "alive":
            raise Killed()

    def revive(self) -> None:
        """A new container."""
        self.calls, self.kill_after, self.state, self.unnoted = 0, None, "alive", []


def _writes_the_chat(what: Any) -> bool:
    """A put or transaction that writes a chat's item (a commit or an ack, not the statistics)."""
    items = what if isinstance(what, list) else [what]
    return any(str(getattr(getattr(w, "item", w), "key", "")).startswith("chat#") for w in items)


def _play(setup: str, seed: int, kill: bool,
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
        mortal = Mortal(h)
        h.repeats = mortal.repeatable  # type: ignore[attr-defined]
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
    texts = {m.message_id: m.history[0] for m in h.io.chat(chat)}
    for c, said in getattr(h, "repeats", []):  # a message sent twice: the bot knows (and edits) the later copy
        copies = [i for i in here if texts[i] == said]
        if c == chat and len(copies) > 1:
            here.remove(copies[0])
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
    sent = _sent(faulty)
    assert _without(mortal.repeatable, sent, _sent(clean)) == _sent(clean)  # nothing lost; repeats only of the killed deliveries
    assert sum(map(len, sent.values())) - sum(map(len, _sent(clean).values())) <= len(mortal.repeatable)
    repeated = {chat for chat, _ in mortal.repeatable}  # (there a repeated prompt's first copy keeps its buttons)
    assert {c: ms for c, ms in _screens(faulty).items() if c not in repeated} == \
        {c: ms for c, ms in _screens(clean).items() if c not in repeated}
    assert final_state(faulty.repo, GROUP).to_json() == final_state(clean.repo, GROUP).to_json()
    assert _statistics(faulty) == _statistics(clean) and _statistics(clean)  # the game counted once
    clean.close()
    faulty.close()


def _without(repeats: list[tuple[int, str]], chats: dict[int, list[str]], want: dict[int, list[str]]
             ) -> dict[int, list[str]]:
    """``chats`` with one copy of each repeated message taken out where the chat has more copies than
    ``want`` (the clean game's chats): the copy whose removal leaves the longest run in common with it."""
    def common(a: list[str], b: list[str]) -> int:
        return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))

    chats = {c: list(ms) for c, ms in chats.items()}
    for chat, said in repeats:
        ms, clean = chats.get(chat, []), want.get(chat, [])
        if ms.count(said) > clean.count(said):
            copies = [i for i, m in enumerate(ms) if m == said]
            best = max(copies, key=lambda i: common(ms[:i] + ms[i + 1:], clean))
            del ms[best]
    return chats


def _statistics(h: Harness) -> dict[str, Any]:
    """The statistics and ratings items (the game's end counts in them through its outbox)."""
    return {k: v.body for k, v in h.repo.items.items() if k.startswith("stats#")}


def test_a_death_after_the_statistics_are_written_counts_the_game_once():
    """The function dies once the end's statistics are written, before its ack: the redelivered update
    delivers the rest of the end, repeats only the end's sends that went out, and counts nothing twice."""
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
    # what the end sent before the death (its ack never recorded it) is sent again, nothing else is, and
    # nothing is lost: the extra copies are messages of the end (the result first), each at most once more
    got, want = _sent(h), _sent(clean)
    extra = [(c, m) for c in got for m in set(got[c]) for _ in range(got[c].count(m) - want.get(c, []).count(m))]
    ending = want[GROUP][-3:]  # the result, the history, the picture
    assert extra and all(c == GROUP and m in ending for c, m in extra) and len(set(extra)) == len(extra)
    assert (GROUP, ending[0]) in extra
    assert _without(extra, got, want) == want
    clean.close()
    h.close()


def test_a_death_in_the_middle_of_the_starts_delivery_repeats_only_what_went_out():
    """The start: the board, every role card and the Leader's picker. The function dies after its 4th
    call; the redelivered press sends every message once, and those the dead delivery had sent once more
    (its ack never recorded them): each chat gets its role card once or twice, never lost."""
    U.reset()
    h = Harness(seed=3)
    h.service.uow.budget = UNLIMITED
    mortal = Mortal(h)
    players = list(range(1, 8))
    h.lobby(players)
    mortal.revive()
    mortal.kill_after = 4
    with pytest.raises(Killed):
        h.press_label(1, GROUP, "Start")
    cards_sent = [chat for chat, text in mortal.repeatable if "Your secret role" in str(text)]
    assert cards_sent and len(mortal.repeatable) <= 4
    mortal.revive()
    assert h.send(h.sent[-1]) == 200  # Telegram delivers the press again
    cards = {uid: sum("Your secret role" in m.history[0] for m in h.io.chat(uid)) for uid in players}
    assert cards == {uid: 2 if uid in cards_sent else 1 for uid in players}
    pickers = [m for uid in players for m in h.io.chat(uid) if m.keyboard and "Propose" in str(m.keyboard)]
    assert len(pickers) == 1 + sum(1 for _, text in mortal.repeatable if "Propose" in str(text))
    h.close()
