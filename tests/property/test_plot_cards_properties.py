"""Random games with Plot cards over 5..10 players, in both themes: they always end, replay from the
seed, never lose or duplicate a Plot card, and keep the rulebook's distribution rules.
"""
from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    GameConfig,
    GameState,
    Theme,
    apply_action,
    new_game,
    public_view,
    replay,
)
from engine.modules.plot import deck_for
from engine.policy import play_to_end
from tests.helpers import next_action, scrambled

MOD = "plot_cards"
DRAWS = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}  # rulebook: cards drawn per quest


def _config(players: int, theme: Theme) -> GameConfig:
    roles = ("merlin", "assassin", "percival", "morgana") if theme is Theme.AVALON and players >= 7 else ()
    if theme is Theme.AVALON and players < 7:
        roles = ("merlin", "assassin")
    return GameConfig(players=players, theme=theme, roles=roles, options={MOD: True})


def _cards_in_play(state: GameState) -> Counter:
    m = state.mods[MOD]
    cards = m["deck"] + m["discard"] + m["drawn"] + [c for h in m["hands"] for c in h]
    if m["resolving"]:
        cards.append(m["resolving"]["card"])
    return Counter(cards)


def _play(config: GameConfig, seed: int, policy: str):
    rng = random.Random(seed)
    state, events = new_game(config, seed)
    history = [(None, state, events)]
    for _ in range(4000):
        if state.over:
            break
        action = next_action(state, rng, policy)
        leader = state.leader
        state, events = apply_action(state, action)
        history.append((leader, state, events))
    return state, history


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(5, 10),
    seed=st.integers(0, 10_000),
    theme=st.sampled_from([Theme.AVALON, Theme.RESISTANCE]),
    policy=st.sampled_from(["ai_seats", "random"]),
)
def test_random_games_with_plot_cards_always_end_and_keep_the_plot_rules(players, seed, theme, policy):
    config = _config(players, theme)
    final, history = _play(config, seed, policy)
    assert final.over and final.winner is not None
    assert replay(config, seed, final.log) == final
    assert GameState.from_json(final.to_json()) == final
    full_deck = Counter(deck_for(players))
    rounds = draws = 0
    for leader, state, events in history:
        assert _cards_in_play(state) == full_deck  # no Plot card is lost or duplicated
        for e in events:
            if e.type == "PlotCardDealt":
                assert e.data["seat"] != e.data["leader"] == leader  # never to the Leader
            if e.type == "PlotCardsDrawn":
                draws += 1
                assert len(e.data["cards"]) == DRAWS[players]  # the deck never runs out in 5 quests
            if e.type == "RoundStarted":
                rounds += 1
            if e.type in ("LoyaltySeen", "QuestCardSeen"):
                assert not e.public  # Plot card results stay private
    assert draws == rounds  # one draw at the start of each quest, none after rejections
    rng = random.Random(seed)
    for _, state, _ in history[:: max(1, len(history) // 25)]:
        if not state.over:  # the public view shows Plot cards but no secret (roles, votes, cards)
            assert public_view(scrambled(state, None, rng)) == public_view(state)
    if final.win_reason == "five_rejections":
        assert [p.approved for p in final.proposals[-5:]] == [False] * 5


@settings(max_examples=12, deadline=None)
@given(players=st.integers(5, 10), seed=st.integers(0, 10_000))
def test_ai_seats_play_to_the_end_with_plot_cards(players, seed):
    config = _config(players, Theme.AVALON)
    state, _ = new_game(config, seed)
    final = play_to_end(state, random.Random(seed))
    assert final.over and final.winners
    assert replay(config, seed, final.log) == final
