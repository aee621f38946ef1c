"""Every engine event is declared (``engine.event_types``): each event emitted in many seeded games
(the AI seats' policy and random legal moves, some players running out of time) has a declaration, reaches the
audience it declares (the whole table or some seats) and its data validates against its field types."""
from __future__ import annotations

import random

import pytest
from pydantic import TypeAdapter

from engine import Action, actors, apply_action, new_game
from engine.event_types import EVENTS, is_private, shown
from engine.policy import ai_seat_move
from gamebot.messages.values import SHOWN
from tests.helpers import next_action
from tests.unit.audit_helpers import setup_for
from tests.unit.i18n_inventory import configs

# Events that need a rare turn of play (the Plot deck running out before the game ends): declared like
# the others, but not required to come up in these games.
RARE = {"PlotDeckEmpty"}


def _games():
    """(config, seed, policy, absent seat or None) for the preset and bundle setups and random ones."""
    for i, config in enumerate([*configs(), *(setup_for(seed) for seed in range(60))]):
        for seed in range(2):
            policy = "random" if (i + seed) % 2 else "ai_seats"
            yield config, seed, policy, (i + seed) % config.players if seed == 1 else None


def _events(config, seed, policy, absent):
    rng = random.Random(seed)
    state, events = new_game(config, seed)
    yield from events
    for _ in range(3000):
        if state.over:
            return
        seat = rng.choice(actors(state))
        if seat == absent:
            action = Action(seat=seat, kind="timeout")
        elif policy == "ai_seats":
            action = ai_seat_move(state, seat, rng)
        else:
            action = next_action(state, rng, policy)
        state, events = apply_action(state, action)
        yield from events


@pytest.mark.slow
def test_every_event_emitted_is_declared_and_validates_against_its_declaration():
    adapters = {kind: TypeAdapter(cls) for kind, cls in EVENTS.items()}
    seen: set[str] = set()
    for config, seed, policy, absent in _games():
        for ev in _events(config, seed, policy, absent):
            assert ev.type in EVENTS, f"{ev.type} is emitted but not declared"
            assert (ev.to is not None) == is_private(ev.type), ev.type
            adapters[ev.type].validate_python(dict(ev.data))
            seen.add(ev.type)
    assert set(EVENTS) - seen <= RARE, set(EVENTS) - seen - RARE


def test_a_declaration_refuses_data_of_the_wrong_type_or_shape():
    quest = TypeAdapter(EVENTS["ExcaliburUsed"])
    quest.validate_python({"seat": 1, "target": 2, "quest": 0})
    for bad in ({"seat": "Bob", "target": 2, "quest": 0}, {"seat": 1, "target": 2},
                {"seat": 1, "target": 2, "quest": 0, "extra": 1}, {"seat": True, "target": 2, "quest": 0}):
        try:
            quest.validate_python(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")


def test_every_declared_field_type_has_a_way_to_be_shown():
    kinds = {how for kind in EVENTS for how in (shown(kind) or {}).values()}
    assert kinds - {"", "ident", "idents"} <= set(SHOWN), kinds - set(SHOWN)
    assert shown("PlotCardTaken") == {"seat": "seat", "source": "seat", "card": "card"}  # a seat, not a source
    assert shown("QuestCardShown")["source"] == "source"
    assert shown("NoSuchEvent") is None
