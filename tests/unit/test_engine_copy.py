"""``engine.models.copy_state`` (the copy ``apply_action`` works on) is a true deep copy: equal to the
original, and no list, dict or changeable model of the copy is one of the original's, so changing the copy
in any way never changes the original. (A frozen model of immutable values, what a seat learned, cannot be
changed at all: the copy shares it.) Checked on every state of games that fill every kind of field (plug-in
data, pending decisions, proposals, quests, a chosen deal and first Leader)."""
from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from engine import GameConfig, actors, apply_action, new_game
from engine.models import GameState, Knowledge, copy_state
from engine.policy import ai_seat_move
from engine.validation import dealt_deck

CONFIGS = [
    GameConfig(players=10, roles=("merlin", "percival", "good_lancelot", "assassin", "morgana", "evil_lancelot"),
               options={"lancelot": "french_predealt", "lady_of_the_lake": True, "excalibur": True,
                        "plot_cards": True, "targeting": True}),
    GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), options={"lady_of_the_lake": True}),
]


def _states() -> list[GameState]:
    """Every state of a few seeded games of ``CONFIGS`` (one with a chosen deal and first Leader)."""
    found = []
    for config in CONFIGS:
        for seed in (1, 2, 3):
            rng = random.Random(seed)
            deal = list(reversed(dealt_deck(config))) if seed == 3 else None
            state, _ = new_game(config, seed, deal=deal, first_leader=1 if seed == 3 else None)
            found.append(state)
            while not state.over:
                seat = rng.choice(actors(state))
                action = ai_seat_move(state, seat, rng)
                assert action is not None
                state, _ = apply_action(state, action)
                found.append(state)
    return found


STATES = _states()


def _mutables(value: Any, path: str = "state") -> list[tuple[str, Any]]:
    """Every list, dict and model reachable from ``value``, with where it is."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, BaseModel):
        found.append((path, value))
        for name, inner in value.__dict__.items():
            found += _mutables(inner, f"{path}.{name}")
    elif isinstance(value, dict):
        found.append((path, value))
        for key, inner in value.items():
            found += _mutables(inner, f"{path}[{key!r}]")
    elif isinstance(value, list | tuple):
        if isinstance(value, list):
            found.append((path, value))
        for i, inner in enumerate(value):
            found += _mutables(inner, f"{path}[{i}]")
    return found


def test_the_games_fill_every_kind_of_field_the_copy_handles():
    def some(check: Any) -> bool:
        return any(check(s) for s in STATES)

    assert some(lambda s: s.config.options) and some(lambda s: s.deal is not None)
    assert some(lambda s: any(s.knowledge)) and some(lambda s: s.votes) and some(lambda s: s.cards)
    assert some(lambda s: s.team) and some(lambda s: s.winners) and some(lambda s: s.log)
    assert some(lambda s: any(p.data for p in s.pending)) and some(lambda s: s.proposals)
    assert some(lambda s: any(q.cards for q in s.quests))
    assert some(lambda s: any(isinstance(v, list) and v for m in s.mods.values() for v in m.values()))


def test_a_copy_is_equal_and_stores_the_same():
    for state in STATES:
        copied = copy_state(state)
        assert copied == state and copied.to_json() == state.to_json()
        assert copied.model_dump() == state.model_dump() and type(copied) is GameState
        assert copied.model_fields_set == state.model_fields_set


def _unchangeable(obj: Any) -> bool:
    """A frozen model holding only numbers, strings and None: nothing in it can be changed."""
    return (isinstance(obj, BaseModel) and bool(obj.model_config.get("frozen"))
            and all(v is None or isinstance(v, int | float | str) for v in obj.__dict__.values()))


def test_no_list_dict_or_changeable_model_of_a_copy_is_the_originals():
    shared_knowledge = 0
    for state in STATES:
        originals = {id(obj): path for path, obj in _mutables(state)}
        shared = [(path, obj) for path, obj in _mutables(copy_state(state)) if id(obj) in originals]
        assert not [path for path, obj in shared if not _unchangeable(obj)], shared
        shared_knowledge += sum(isinstance(obj, Knowledge) for _, obj in shared)
    assert shared_knowledge  # (what seats learned is shared, not copied)


def test_what_a_seat_learned_cannot_be_changed():
    learned = next(k for state in STATES for seat in state.knowledge for k in seat)
    with pytest.raises(ValidationError):
        learned.label = "changed"  # type: ignore[misc]
    assert _unchangeable(learned)


def _mutate(value: Any) -> bool:
    """Change every list, dict and model field reachable from ``value`` (True: something changed)."""
    changed = False
    for _, obj in _mutables(value):
        if isinstance(obj, list):
            obj.append("changed")
        elif isinstance(obj, dict):
            obj["changed"] = "changed"
        elif isinstance(obj, BaseModel) and not obj.model_config.get("frozen"):
            for name, inner in obj.__dict__.items():
                if isinstance(inner, int | str) and not isinstance(inner, bool):
                    setattr(obj, name, inner + 1 if isinstance(inner, int) else inner + "!")
        changed = True
    return changed


@pytest.mark.parametrize("index", range(0, len(STATES), 7))
def test_changing_every_part_of_a_copy_leaves_the_original_as_it_was(index):
    state = STATES[index]
    before = state.model_dump()
    copied = copy_state(state)
    assert _mutate(copied)
    assert copied != state
    assert state.model_dump() == before
