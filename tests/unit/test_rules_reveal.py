"""Knowledge at the Reveal, checked against an oracle written from the rulebook scripts (tests/helpers.py).

Script (000, 002): "Minions of Mordred, not Oberon - open your eyes and look around"; "Minions of Mordred,
not Mordred himself - extend your thumb so that Merlin will know of you"; "Merlin & Morgana - extend your
thumb so that Percival may know of you". The Resistance (003): "Spies open your eyes"; Blind Spies skips it.
"""
from __future__ import annotations

import pytest

from engine import GameConfig, Side, Theme, new_game, reveal_script, view
from tests.builder import make_state
from tests.helpers import legal_setups, oracle_knowledge, reveal_knowledge

FULL = ["merlin", "percival", "servant", "assassin", "morgana", "mordred", "oberon", "servant", "servant", "servant"]


def _seen(state, seat):
    return {(k.seat, k.label) for k in state.knowledge[seat]}


def test_evil_see_evil_except_oberon():
    s = make_state(FULL, leader=0)
    team = {3, 4, 5}  # Assassin, Morgana, Mordred
    for seat in team:
        assert _seen(s, seat) == {(x, "evil") for x in team - {seat}}


def test_evil_see_minions_of_mordred():
    roles = ["servant", "minion", "servant", "minion", "assassin", "servant", "merlin"]
    s = make_state(roles, leader=0)
    assert _seen(s, 1) == {(3, "evil"), (4, "evil")}
    assert _seen(s, 4) == {(1, "evil"), (3, "evil")}


def test_oberon_sees_no_one_and_is_unseen_by_evil():
    s = make_state(FULL, leader=0)
    assert s.knowledge[6] == []
    for seat in (3, 4, 5):
        assert 6 not in {k.seat for k in s.knowledge[seat]}


def test_merlin_sees_evil_except_mordred_and_sees_oberon():
    s = make_state(FULL, leader=0)
    assert _seen(s, 0) == {(3, "evil"), (4, "evil"), (6, "evil")}


def test_percival_sees_merlin_and_morgana_without_knowing_which():
    s = make_state(FULL, leader=0)
    assert _seen(s, 1) == {(0, "merlin_or_morgana"), (4, "merlin_or_morgana")}
    # Percival's view gives both the same label: nothing tells which one is Merlin.
    labels = {k["seat"]: k["label"] for k in view(s, 1)["you"]["knowledge"]}
    assert labels[0] == labels[4]


def test_percival_without_morgana_sees_only_merlin():
    roles = ["merlin", "percival", "servant", "assassin", "servant", "minion", "minion"]
    s = make_state(roles, leader=0)
    assert _seen(s, 1) == {(0, "merlin")}


def test_servants_know_nothing():
    s = make_state(FULL, leader=0)
    for seat in (2, 7, 8, 9):
        assert s.knowledge[seat] == []
        assert view(s, seat)["you"]["knowledge"] == []


def test_nobody_is_told_about_themself():
    s = make_state(FULL, leader=0)
    for seat in range(10):
        assert seat not in {k.seat for k in s.knowledge[seat]}


@pytest.mark.parametrize("players", range(5, 11))
def test_reveal_matches_the_rulebook_script_for_every_legal_setup(players):
    checked = 0
    for roles in legal_setups(players):
        for blind in (False, True):
            config = GameConfig(players=players, roles=roles, options={"blind_spies": True} if blind else {})
            for seed in (players, players + 17):
                state, _ = new_game(config, seed)
                assert reveal_knowledge(state) == oracle_knowledge(state.roles, config), (roles, blind)
                checked += 1
    assert checked >= 2 * 2 * len(legal_setups(players))


def test_reveal_resistance_spies_know_each_other():
    config = GameConfig(theme=Theme.RESISTANCE, players=10, roles=())
    state, _ = new_game(config, 9)
    spies = [s for s in range(10) if state.sides[s] is Side.EVIL]
    assert len(spies) == 4
    assert reveal_knowledge(state) == oracle_knowledge(state.roles, config)
    for spy in spies:
        assert {k.seat for k in state.knowledge[spy]} == set(spies) - {spy}


def test_reveal_script_lists_the_rulebook_steps_in_order():
    config = GameConfig(players=10, roles=tuple(r for r in FULL if r != "servant"))
    script = reveal_script(config, FULL)
    assert [step["step"] for step in script] == ["evil", "merlin", "percival"]
    evil, merlin, percival = script
    assert "oberon" not in evil["show"] and "oberon" not in evil["look"] and evil["mutual"]
    assert "mordred" not in merlin["show"] and "oberon" in merlin["show"] and merlin["look"] == ["merlin"]
    assert percival["show"] == ["merlin", "morgana"] and percival["look"] == ["percival"]
    blind = GameConfig(players=10, roles=config.roles, options={"blind_spies": True})
    assert [step["step"] for step in reveal_script(blind, FULL)] == ["merlin", "percival"]
