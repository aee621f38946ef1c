"""Every prompt's ``info`` is declared (``engine.event_types.prompt_info``), next to the plug-in that asks:
each prompt met in many seeded games (the AI seats' policy and random legal moves over the presets and random setups of
every registered plug-in) validates against the declaration of its kind, and a kind that declares nothing
carries no info. The messages room shows each field by its declared type (``values.prompt_params``)."""
from __future__ import annotations

import random
import typing

import pytest
from pydantic import TypeAdapter

from engine import actors, apply_action, new_game, prompts
from engine.event_types import PROMPTS, VIEWS, forget, prompt_info, prompt_shown, view_entry
from engine.event_types import Seat as SeatType
from engine.event_types import Seats as SeatsType
from engine.policy import ai_seat_move
from gamebot.messages.prompts import private_prompt
from gamebot.messages.table import Table
from gamebot.messages.values import SHOWN
from gamebot.messages.view_lines import generic_board_lines
from tests.helpers import next_action
from tests.unit.audit_helpers import setup_for
from tests.unit.i18n_inventory import configs


def _prompts(config, seed: int, policy: str):
    rng = random.Random(seed)
    state, _ = new_game(config, seed)
    for _ in range(3000):
        if state.over:
            return
        for seat in range(state.n):
            yield from prompts(state, seat)
        seat = rng.choice(actors(state))
        action = ai_seat_move(state, seat, rng) if policy == "ai_seats" else next_action(state, rng, policy)
        state, _ = apply_action(state, action)


def _valid(adapter: TypeAdapter, info: dict) -> bool:
    try:
        adapter.validate_python(info)
    except ValueError:
        return False
    return True


@pytest.mark.slow
def test_every_prompt_info_validates_against_its_declaration():
    adapters = {kind: [TypeAdapter(cls) for cls in classes] for kind, classes in PROMPTS.items()}
    seen: set[str] = set()
    for i, config in enumerate([*configs(), *(setup_for(seed) for seed in range(40))]):
        for seed in range(2):
            for p in _prompts(config, seed, "random" if (i + seed) % 2 else "ai_seats"):
                if p.kind in adapters:
                    assert any(_valid(a, dict(p.info)) for a in adapters[p.kind]), (p.kind, p.info)
                    seen.add(p.kind)
                else:
                    assert p.info == {}, f"the prompt {p.kind} has info but declares none: {p.info}"
    # the Plot cards declare their info whether or not they ask anything; the others were all met
    assert {k for k in PROMPTS if not k.startswith("plot_")} <= seen, set(PROMPTS) - seen
    assert len(seen) > 12


def test_every_declared_prompt_field_type_has_a_way_to_be_shown():
    kinds = {how for kind in PROMPTS for how in (prompt_shown(kind) or {}).values()}
    assert kinds - {"", "ident", "idents"} <= set(SHOWN), kinds - set(SHOWN)
    assert prompt_shown("loyalty_card") == {"source": "source", "checker": "seat"}
    assert prompt_shown("plot_take_responsibility") == {"card": "card", "kind": "ident", "hands": "hands"}
    assert prompt_shown("lady") is None
    assert prompt_shown("vote") == {"team": "seats", "card": "card", "kind": "ident", "public": ""}  # + Opinion Maker
    for kind, classes in PROMPTS.items():  # several declarations of a kind agree on their common fields
        fields = [typing.get_type_hints(c, include_extras=True) for c in classes]
        assert all(f[k] == g[k] for f in fields for g in fields for k in set(f) & set(g)), kind


def test_a_declaration_refuses_info_of_the_wrong_type_or_shape():
    watch = TypeAdapter(PROMPTS["watch"][0])
    assert _valid(watch, {"quest": 2})
    assert not any(_valid(watch, bad) for bad in ({"quest": "2"}, {}, {"quest": 2, "seat": 1}, {"quest": True}))


@pytest.fixture
def declared():
    """A prompt kind and a view entry of a plug-in that is not there, declared for one test."""
    from typing import TypedDict

    @prompt_info("oath")
    class OathInfo(TypedDict):
        sworn_to: SeatType  # no key name the messages room could guess from

    @view_entry("oaths")
    class OathsView(TypedDict):
        keepers: SeatsType
        count: int

    try:
        yield
    finally:
        forget("oath")
        forget("oaths")
    assert "oath" not in PROMPTS and "oaths" not in VIEWS


def test_the_messages_room_formats_prompt_info_and_view_entries_by_declared_type(declared):
    table = Table(chat_id=1, game_id="g", lang="en", theme="avalon", names=["Ann", "Bob", "Cid", "Dan", "Eve"])
    text, _ = private_prompt(table, {"kind": "oath", "seat": 0, "info": {"sworn_to": 2}}, codec=None, serial=1)
    assert "Cid" in text
    lines = generic_board_lines("oaths")(table, {}, {"keepers": [1, 3], "count": 2})
    assert len(lines) == 1 and "Bob" in lines[0] and "Dan" in lines[0] and "2" in lines[0]
    assert "Bob" not in " ".join(generic_board_lines("undeclared")(table, {}, {"keepers": [1, 3]}))
