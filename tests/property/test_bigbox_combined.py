"""Property: random games over random legal combinations of the Big Box modules (Rogue, Sorcerer,
Messengers, Trapper, Excalibur) always end, replay from their log, and every quest card played obeys
the card restrictions of the rulebook (checked against an oracle written from the rules, and by
trying every forbidden card, which must be refused)."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    GameConfig,
    GameState,
    apply_action,
    new_game,
    prompts,
    replay,
)
from engine import validate_config as validate
from engine.cards import CARDS
from engine.errors import CardNotAllowed
from tests.helpers import GOOD_EVIL, next_action
from tests.unit.bigbox_helpers import oracle_cards

BIGBOX_CARDS = ("success", "fail", "rogue_success", "rogue_fail", "magic", "good_message", "evil_message")


@st.composite
def setups(draw):
    players = draw(st.integers(5, 10))
    roles: list[str] = list(
        draw(st.sampled_from([(), ("good_rogue",), ("evil_rogue",), ("good_rogue", "evil_rogue")]))
    )
    sorcerers = draw(st.booleans())
    messengers = draw(st.booleans())
    if sorcerers:
        roles += ["good_sorcerer", "evil_sorcerer"]
    if messengers:
        roles += ["good_messenger", "good_messenger", "evil_messenger"]
    if draw(st.booleans()):
        roles += ["merlin", "assassin"]
    options = {}
    for key, allowed in (
        ("trapper", True),
        ("excalibur", True),
        ("sorcerer_hidden", sorcerers),
        ("senior_junior_messengers", messengers),
    ):
        if allowed and draw(st.booleans()):
            options[key] = True
    config = GameConfig(players=players, roles=tuple(roles), options=options)
    assume(not [i for i in validate(config) if i.level == "error"])
    return config


def check_game(config: GameConfig, seed: int, policy: str) -> None:
    rng = random.Random(seed)
    state, _ = new_game(config, seed)
    watched: int | None = None
    good_messages = [0] * config.players
    for _ in range(3000):
        if state.over:
            break
        action = next_action(state, rng, policy)
        seat = action.seat
        if action.kind == "propose":
            watched = None
        if action.kind == "play":
            role, side = state.roles[seat], state.sides[seat]
            expected = oracle_cards(role, side, watched == seat, good_messages[seat])
            assert set(prompts(state, seat)[0].choices) == expected, (role, watched == seat)
            assert action.choice in expected
            for card in BIGBOX_CARDS:
                if card not in expected:
                    with pytest.raises(CardNotAllowed):
                        apply_action(state, Action(seat=seat, kind="play", choice=card))
            if action.choice in ("good_message", "evil_message"):
                good_messages[seat] += 1
        if action.kind == "watch":
            watched = action.targets[0]
            assert watched in state.team
        state, _ = apply_action(state, action)
    assert state.over and state.winner is not None
    assert all(c <= 2 for c in good_messages)  # Message cards per Messenger
    for record in state.quests:
        assert set(record.cards) <= set(CARDS)
        played = sum(record.cards.values())
        assert played == len(record.team) - (1 if config.options.get("trapper") else 0)
    if state.win_reason in ("good_rogue_solo", "evil_rogue_solo"):
        assert state.winners == [state.roles.index(state.win_reason.removesuffix("_solo"))]
        assert not any(entry.split("|")[1] == "assassinate" for entry in state.log)
    assert replay(config, seed, state.log) == state
    assert GameState.from_json(state.to_json()) == state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(config=setups(), seed=st.integers(0, 2**16), policy=st.sampled_from(["ai_seats", "random"]))
def test_random_bigbox_games_terminate_and_keep_card_restrictions(config, seed, policy):
    check_game(config, seed, policy)


def test_all_bigbox_modules_together_at_ten_players():
    roles = ("good_rogue", "evil_rogue", "good_sorcerer", "evil_sorcerer", "good_messenger",
             "good_messenger", "evil_messenger", "merlin", "assassin")
    options = {"trapper": True, "excalibur": True, "sorcerer_hidden": True, "senior_junior_messengers": True}
    config = GameConfig(players=10, roles=roles, options=options)
    assert validate(config) == []
    assert sum(GOOD_EVIL[10]) == 10
    for seed in range(4):
        check_game(config, seed, "ai_seats" if seed % 2 else "random")
