"""What waits for the group's budget (issue 35): a step's group messages take their slots together even
when a private message of the same step stands between them (the next Leader's picker), and an entry
that waits behind another of its chat wakes the chat at that one's moment, not at once."""
from __future__ import annotations

from gamebot.outbox.plan import Plan
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage.effects import GROUP_LIMIT, Budget, Effect
from gamebot.storage.session import Session
from gamebot.timing.alarm import wake_at
from tests.unit.gamebot_fakes import FakeRepository

NOW = 1_800_000_000.0
GROUP = -1001
PLAYER = 7


def _session(free_slots: int) -> Session:
    s = Session(chat_id=GROUP)
    s.outbox.group_ops = [NOW - 1.0] * (GROUP_LIMIT - free_slots)
    return s


def test_a_steps_group_messages_go_together_though_a_private_one_stands_between_them():
    for free in (1, 2):
        s = _session(free)
        box = s.outbox
        step = box.next_seq
        for chat, tag in ((GROUP, "announce"), (PLAYER, "picker"), (GROUP, "board")):
            box.add(Effect(seq=0, op="send", chat=chat, text=tag, tag=tag, step=step))
        uow = UnitOfWork(FakeRepository(), clock=lambda: NOW, budget=Budget())
        stored = uow.sort(s, Plan(session=s), GROUP, owner=1).stored
        group = [e.tag for e in stored if e.chat == GROUP]
        assert [e.tag for e in stored if e.chat == PLAYER] == ["picker"]  # (a private chat has no group budget)
        if free == 1:  # one slot for two messages of one step: neither goes, both wait for two slots
            assert group == [] and all(e.not_before for e in box.effects if e.chat == GROUP)
        else:
            assert group == ["announce", "board"]


def test_an_entry_behind_one_that_waits_wakes_the_chat_at_that_ones_moment():
    s = _session(0)
    box = s.outbox
    box.add(Effect(seq=0, op="send", chat=GROUP, text="result", tag="announce", not_before=NOW + 40))
    box.add(Effect(seq=0, op="edit", chat=GROUP, message_id=5, text="board", tag="board"))
    assert wake_at(s, NOW) == NOW + 40  # (not now: it cannot go before the one ahead of it)
    box.add(Effect(seq=0, op="send", chat=PLAYER, text="prompt", tag="prompt"))
    assert wake_at(s, NOW) == NOW  # a private entry that nothing holds back: now
