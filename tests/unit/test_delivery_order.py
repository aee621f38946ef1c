"""Delivery keeps each chat's order while different chats are sent to at the same time
(``gamebot.outbox.courier.Courier.deliver``: each chat's calls in order, the chats in parallel).

The Bot API here is a fake whose calls take a varied (seeded) number of turns of the event loop, so that
calls to different chats interleave. Each chat must get its messages in the order they were decided,
never two calls at once to the same chat, and calls to different chats must actually overlap.
"""
from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from gamebot.botapi.telegram_io import Out, Result
from gamebot.outbox.courier import IN_FLIGHT, Courier
from gamebot.outbox.plan import Plan
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage.session import Session
from gamebot.storage.store import FakeRepository
from tests.reliability.support import SETUPS
from tests.unit.flood_fakes import play
from tests.unit.gamebot_fakes import GROUP, T0, Clock, RecordingIO


class SlowIO(RecordingIO):
    """``RecordingIO`` whose calls each take 0 to 6 turns of the event loop (seeded)."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.busy: Counter = Counter()  # chat -> calls in flight
        self.most_per_chat = 0
        self.most_at_once = 0
        self.overlaps = 0  # calls that started while a call to another chat was in flight

    async def run(self, outs: list[Out]) -> list[Result]:
        results = []
        for out in outs:
            chat = out.chat_id
            if any(n for c, n in self.busy.items() if c != chat):
                self.overlaps += 1
            self.busy[chat] += 1
            self.most_per_chat = max(self.most_per_chat, self.busy[chat])
            self.most_at_once = max(self.most_at_once, sum(self.busy.values()))
            for _ in range(self.rng.randint(0, 6)):
                await asyncio.sleep(0)
            results.append(self.apply(out))
            self.busy[chat] -= 1
        return results


def _uow(io: RecordingIO) -> tuple[UnitOfWork, Courier]:
    uow = UnitOfWork(FakeRepository(), Clock(T0))
    return uow, Courier(uow, io)


@pytest.mark.parametrize("seed", range(5))
def test_each_chat_gets_its_messages_in_the_order_decided_while_chats_go_in_parallel(seed):
    rng = random.Random(seed)
    chats = [GROUP, *range(1, 11)]
    decided = [(rng.choice(chats), i) for i in range(80)]  # (chat, n): the n-th operation decided
    io = SlowIO(seed)
    uow, courier = _uow(io)
    loop = asyncio.new_event_loop()
    try:
        for part in (decided[:40], decided[40:]):  # two updates' decisions
            def decide(s: Session | None, part=part) -> Plan:
                s = s or Session(chat_id=GROUP)
                return Plan(session=s, outs=[Out("send", chat_id=c, text=f"{c}#{n}", user_id=c if c > 0 else None,
                                                 tag="test") for c, n in part])

            plan = uow.commit(len(io.outs) + 1, GROUP, decide)
            loop.run_until_complete(courier.deliver(plan))
            uow.clock.now += 60  # (the group's budget: the second update's messages go at once too)
    finally:
        loop.close()
    for chat in chats:
        assert io.texts(chat) == [f"{c}#{n}" for c, n in decided if c == chat]
    assert io.most_per_chat == 1  # never two calls at once to one chat
    assert io.overlaps > 0 and io.most_at_once > 1  # different chats were sent to at the same time
    assert io.most_at_once <= IN_FLIGHT


def test_edits_and_sends_of_one_chat_keep_their_order():
    """Edits of earlier messages and new sends, mixed in one chat while other chats get theirs: in order."""
    io = SlowIO(3)
    uow, courier = _uow(io)
    loop = asyncio.new_event_loop()
    try:
        old = [r.message_id for r in loop.run_until_complete(io.run([Out("send", chat_id=7, text=f"m{i}")
                                                                        for i in range(4)]))]
        outs = []
        for i, mid in enumerate(old):
            outs += [Out("edit", chat_id=7, message_id=mid, text=f"m{i}*"), Out("send", chat_id=7, text=f"s{i}"),
                     Out("send", chat_id=8 + i, text=f"t{i}"), Out("send", chat_id=GROUP, text=f"g{i}")]
        plan = uow.commit(1, GROUP, lambda s: Plan(session=Session(chat_id=GROUP), outs=outs))
        loop.run_until_complete(courier.deliver(plan))
    finally:
        loop.close()
    assert [(o.op, o.text) for o in io.outs if o.chat_id == 7][4:] == [
        (op, f"{x}{i}{star}") for i in range(4) for op, x, star in (("edit", "m", "*"), ("send", "s", ""))]
    assert io.texts(GROUP) == ["g0", "g1", "g2", "g3"]
    assert io.overlaps > 0 and io.most_per_chat == 1


@pytest.mark.parametrize(("setup", "seed"), [(("avalon", 5, ["merlin", "assassin"], {}), 1),
                                             (SETUPS["base"], 2), (SETUPS["messengers_liars"], 3)])
@pytest.mark.slow
def test_whole_games_through_a_slow_parallel_bot_api_show_every_chat_the_same(setup, seed, monkeypatch):
    """The same game through an instant Bot API and through the slow one: every chat is shown the same
    operations in the same order (only the interleaving across chats differs)."""
    from tests.unit import flood_fakes

    def per_chat(io: RecordingIO) -> dict[int, list[tuple[str, str, str]]]:
        out: dict[int, list[tuple[str, str, str]]] = {}
        for o in io.outs:
            if o.op != "answer":
                out.setdefault(o.chat_id, []).append((o.op, o.tag or "", o.text or ""))
        return out

    ref = play(setup, seed)
    slow: list[SlowIO] = []

    class SlowHarness(flood_fakes.FloodHarness):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            io = SlowIO(seed)
            io.apply = self.io.apply  # (what FloodIO records, message ids per chat)
            self.io.run = io.run
            slow.append(io)

    monkeypatch.setattr(flood_fakes, "FloodHarness", SlowHarness)
    got = play(setup, seed)
    assert per_chat(got.io) == per_chat(ref.io)
    assert slow[0].most_per_chat == 1 and slow[0].overlaps > 0
