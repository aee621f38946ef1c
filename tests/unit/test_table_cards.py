"""The table's quest cards (``engine.table_cards``): what the group's quest message offers every team
member. Declared by the plug-ins (``Plugin.quest_cards``), they depend on the configuration only: never
on who holds which character, who is on the team or what anyone may play."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import ALL, GameConfig, Theme, allowed_cards, new_game, table_cards
from engine import cards as card_registry
from engine.plugin import Ctx
from tests.helpers import play_game
from tests.unit.audit_helpers import setup_for


def test_every_registered_card_is_declared_by_exactly_one_plugin():
    base = {card_registry.SUCCESS, card_registry.FAIL}
    declared: dict[str, list[str]] = {}
    for plugin in ALL.values():
        for card in plugin.quest_cards:
            declared.setdefault(card, []).append(plugin.id)
    assert set(card_registry.CARDS) - base == set(declared), "a card registered but not declared, or the reverse"
    assert {card: owners for card, owners in declared.items() if len(owners) != 1} == {}
    assert not base & set(declared)  # Success and Fail are every game's


def test_the_table_cards_follow_the_plugins_in_play():
    plain = GameConfig(players=7, roles=("merlin", "assassin"))
    assert table_cards(new_game(plain, 1)[0]) == ["success", "fail"]
    resistance = GameConfig(theme=Theme.RESISTANCE, players=5, roles=(), options={"plot_cards": True})
    assert table_cards(new_game(resistance, 1)[0]) == ["success", "fail"]
    bigbox = GameConfig(players=10, roles=("merlin", "assassin", "good_rogue", "evil_rogue", "good_sorcerer",
                                           "evil_sorcerer"))
    assert table_cards(new_game(bigbox, 1)[0]) == ["success", "fail", "rogue_success", "rogue_fail", "magic"]
    messengers = GameConfig(players=8, roles=("merlin", "assassin", "good_messenger", "good_messenger",
                                              "evil_messenger"))
    assert table_cards(new_game(messengers, 1)[0]) == ["success", "fail", "good_message", "evil_message"]




@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 2**32))
def test_the_table_cards_never_depend_on_the_deal_and_hold_every_card_a_seat_may_play(seed):
    config = setup_for(seed)
    game = play_game(config, seed % 2**31)
    cards = table_cards(game.start)
    other = new_game(config, seed % 2**31 + 1)[0]  # another deal, another first Leader
    assert table_cards(other) == cards
    for step in game.steps:
        state = step.before
        assert table_cards(state) == cards
        if state.stage == "quest" and not state.pending:
            for seat in state.team:
                assert set(allowed_cards(Ctx(state), seat)) <= set(cards), (seat, state.roles[seat])


def test_table_cards_is_exported():
    assert engine.table_cards is table_cards
