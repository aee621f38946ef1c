"""Property test: random legal games with the Big Box characters and Lancelot variants.

Bots (and purely random legal moves) play random legal combinations of Lancelot (every variant),
Lunatic, Brute, Revealer, Cleric, Trickster, Troublemaker and the Untrustworthy Servant, with or
without Merlin, the Lady of the Lake and Targeting. Every game must end; every quest card offered and
played must obey the card rules (oracle: ``expected_cards``, from the rulebook); sides change only by a
Lancelot switch or a Recruitment; the winners are exactly the seats whose current side won.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import GameConfig, Side, prompts, validate_config
from tests.helpers import GOOD_EVIL, play_game
from tests.unit.bigbox_characters_helpers import LANCELOTS, expected_cards

VARIANTS = (None, "bigbox_switch", "classic_switch", "bigbox_predealt", "french_predealt")
GOOD_POOL = ("cleric", "troublemaker", "untrustworthy_servant")
EVIL_POOL = ("lunatic", "brute", "revealer", "trickster")


@st.composite
def setups(draw):
    n = draw(st.integers(5, 10))
    good_seats, evil_seats = GOOD_EVIL[n]
    merlin = draw(st.booleans())
    lancelot = draw(st.booleans())
    good = (["merlin"] if merlin else []) + (["good_lancelot"] if lancelot else [])
    evil = (["assassin"] if merlin else []) + (["evil_lancelot"] if lancelot else [])
    good += draw(st.lists(st.sampled_from(GOOD_POOL), unique=True, max_size=good_seats - len(good)))
    evil += draw(st.lists(st.sampled_from(EVIL_POOL), unique=True, max_size=evil_seats - len(evil)))
    options = {}
    if lancelot:
        variant = draw(st.sampled_from(VARIANTS))
        if variant:
            options["lancelot"] = variant
    if draw(st.booleans()):
        options["lady_of_the_lake"] = True
    if draw(st.booleans()):
        options["targeting"] = True
    config = GameConfig(players=n, roles=tuple(good + evil), options=options)
    return config, draw(st.integers(0, 10_000)), draw(st.sampled_from(["ai_seats", "ai_seats", "random"]))


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_random_bigbox_character_games_end_keep_card_rules_and_winners_follow_current_sides(setup):
    config, seed, policy = setup
    assert not [i for i in validate_config(config) if i.level == "error"]
    game = play_game(config, seed, policy=policy)
    final = game.final
    assert final.over and final.winner is not None

    lancelot_seats = {s for s, r in enumerate(final.roles) if r in LANCELOTS}
    servant_seats = {s for s, r in enumerate(final.roles) if r == "untrustworthy_servant"}
    for step in game.steps:
        before, after, action = step.before, step.after, step.action
        if action.kind == "play":
            allowed = expected_cards(before, action.seat)
            assert set(prompts(before, action.seat)[0].choices) == allowed
            assert action.choice in allowed
        changed = {s for s in range(before.n) if before.sides[s] is not after.sides[s]}
        if changed:
            # A Lancelot switch swaps the two Lancelots; a Recruitment turns the Servant Evil.
            assert changed == lancelot_seats or (
                changed <= servant_seats and all(after.sides[s] is Side.EVIL for s in changed)
            )
        if "lancelot" not in config.options:
            assert all(after.sides[s] is before.sides[s] for s in lancelot_seats)

    assert final.winners == [s for s in range(final.n) if final.sides[s] is final.winner]
