"""Telegram redelivers an update whenever it did not get a 2xx in time, possibly much later. A whole game
where every update arrives twice (half at once, half after later updates, also after updates to other
chats) must end exactly as the same game delivered once: same group transcript, same private chats,
same stored items. The de-duplication is ``Session.seen`` (last update ids of the group), written in
the same conditional write as the change; presses in private chats carry the group in their
callback data, so they are recorded in (and de-duplicated by) the group's session too."""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest

import gamebot.handlers.lobby
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen


class Redelivery:
    """Wraps a ``send(update) -> status`` so that every update is delivered a second time: at once, or
    after 1-40 later updates (Telegram retries with a delay while other updates keep coming)."""

    def __init__(self, send: Any, rng: random.Random) -> None:
        self.send_once = send
        self.rng = rng
        self.queue: list[tuple[int, dict[str, Any]]] = []
        self.delivered = 0
        self.late: list[dict[str, Any]] = []
        self.statuses: list[int] = []

    def _deliver(self, update: dict[str, Any]) -> int:
        status = self.send_once(copy.deepcopy(update))
        self.statuses.append(status)
        self.delivered += 1
        due = [u for when, u in self.queue if when <= self.delivered]
        self.queue = [(when, u) for when, u in self.queue if when > self.delivered]
        for u in due:
            self.late.append(u)
            self.statuses.append(self.send_once(copy.deepcopy(u)))
        return status

    def send(self, update: dict[str, Any]) -> int:
        status = self._deliver(update)
        if self.rng.random() < 0.5:
            self.statuses.append(self.send_once(copy.deepcopy(update)))
        else:
            self.queue.append((self.delivered + self.rng.randint(1, 40), update))
        return status

    def flush(self) -> None:
        for _, u in self.queue:
            self.late.append(u)
            self.statuses.append(self.send_once(copy.deepcopy(u)))
        self.queue = []


def _play(setup: str, seed: int, twice: bool) -> tuple[Harness, Redelivery | None]:
    theme, n, roles, options = SETUPS[setup]
    U.reset()
    h = Harness(seed=seed)
    h.service.clock = lambda: 1_800_000_000.0  # the end time is stored: the same in both runs
    send = h.send

    def send_and_wake(update: dict[str, Any]) -> int:
        status = send(update)
        wake_if_due(h)
        return status

    h.send = send_and_wake
    redelivery = None
    if twice:
        redelivery = Redelivery(h.send, random.Random(seed))
        h.send = redelivery.send
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    h.press_label(1, GROUP, "Start")
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed)))
    driver.play()
    assert driver.over()
    if redelivery is not None:
        redelivery.flush()
    return h, redelivery


def wake_if_due(h: Harness) -> None:
    """The chat's wake-up at its second, as the wake-up queue delivers it: what waits in the outbox and is
    due by now goes out (so that when it goes out is the clock's doing, not which update came next)."""
    from gamebot.storage.session import Session, chat_key

    item = h.repo.items.get(chat_key(GROUP))
    due = Session.from_body(item.body).outbox.next_due() if item is not None else None
    if due is not None and due <= h.clock.now:
        h.loop.run_until_complete(h.service.courier.deliver(h.service.uow.resume(GROUP)))


def _chats(h: Harness) -> dict[int, list[str]]:
    return {chat: h.io.texts(chat) for chat in sorted({c for c, _ in h.io.order})}


@pytest.fixture(autouse=True)
def fixed_game_id(monkeypatch):
    """The same game id in both runs, so that button data and deep links match too."""
    monkeypatch.setattr(gamebot.handlers.lobby, "new_game_id", lambda: "g00d1d")


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_a_game_with_every_update_delivered_twice_ends_exactly_as_delivered_once(setup):
    once, _ = _play(setup, seed=11, twice=False)
    twice, redelivery = _play(setup, seed=11, twice=True)
    assert redelivery.late, "some updates were redelivered after later ones"
    assert any(u.get("callback_query", {}).get("message", {}).get("chat", {}).get("type") == "private"
               for u in redelivery.late), "private-chat presses were redelivered late"
    assert set(redelivery.statuses) == {200}
    assert _chats(twice) == _chats(once)  # the group and every private chat saw exactly the same
    assert {k: v.body for k, v in twice.repo.items.items()} == {k: v.body for k, v in once.repo.items.items()}
    assert {k: v.version for k, v in twice.repo.items.items()} == {k: v.version for k, v in once.repo.items.items()}
    # every redelivered press was answered (Telegram's spinner stops), and nothing else was done for it
    assert len(twice.io.answers) > len(once.io.answers)


def _transcript(fake, chat: int) -> list[str]:
    """The texts a chat was shown, from the Bot API calls: sends, and edits that changed the text (an edit
    repeating the message's last text is refused by Telegram as "not modified")."""
    shown, last = [], {}
    for c in fake.calls:
        if c.params.get("chat_id") != chat or c.method not in ("sendMessage", "editMessageText"):
            continue
        text = c.params.get("text")
        if c.method == "editMessageText":
            if last.get(c.params.get("message_id")) == text:
                continue
            last[c.params.get("message_id")] = text
        shown.append(text)
    return shown

@pytest.mark.slow
def test_redelivered_updates_through_the_webhook_and_dynamodb_change_nothing(table, monkeypatch):
    """The same check through ``lambda_handler`` with moto: one game delivered once in one group, the same
    game (same seed) delivered twice in another group; the group transcripts are equal."""
    import app

    players = list(range(1, 8))
    transcripts = []
    for group, twice in ((-1004000000001, False), (-1004000000002, True)):
        table.group = group
        table.fake.add_group(group, table.title)
        U.reset()
        app.service().seeds = random.Random(5)
        send = table.post
        redelivery = Redelivery(send, random.Random(5))
        if twice:
            table.post = redelivery.send
        table.open_lobby(players, roles=["Percival", "Morgana"], options=["Lady"])
        table.start_game(1)
        driver = RobustDriver(table, group, players, Policy(rng=random.Random(5)))
        driver.play()
        assert driver.over()
        redelivery.flush()
        table.post = send
        transcripts.append(_transcript(table.fake, group))
        if twice:
            assert redelivery.late and set(redelivery.statuses) == {200}
    assert transcripts[0] == transcripts[1]
