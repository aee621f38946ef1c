"""Trapper module (Avalon Big Box, "OPTIONAL RULES" - TRAPPER MODULE)."""
from __future__ import annotations

import pytest
from bigbox_helpers import act, act_events, pending_kind, play_cards, quest, to_cards

from engine import GameConfig, prompts, public_view, validate_config
from engine.errors import InvalidTarget, NotYourTurn, WrongTeamSize
from tests.builder import make_state

# 8 players: 5 Good, 3 Evil. Team sizes 3, 4, 4, 5, 5 - plus one with the Trapper.
MERLIN, PERCIVAL, S1, S2, S3, ASSASSIN, MORGANA, MINION = range(8)
EIGHT = ["merlin", "percival", "servant", "servant", "servant", "assassin", "morgana", "minion"]
TRAP = {"trapper": True}


def eight(**kw):
    return make_state(EIGHT, leader=MERLIN, options=TRAP, **kw)


def test_trapper_recommended_for_eight_or_more_players():
    roles = ("merlin", "assassin")
    assert [(i.code, i.params) for i in validate_config(GameConfig(players=7, roles=roles, options=TRAP))] == [
        ("recommended_players", {"plugin": "trapper", "players": 8})
    ]
    assert validate_config(GameConfig(players=8, roles=roles, options=TRAP)) == []


def test_leader_assigns_one_extra_team_member():
    state = eight()
    assert prompts(state, MERLIN)[0].pick == 4
    before = state.model_dump()
    with pytest.raises(WrongTeamSize):
        act(state, MERLIN, "propose", (MERLIN, S1, S2))
    assert state.model_dump() == before
    assert public_view(state)["team_size"] == 4


def test_leader_looks_at_one_played_card_and_sets_it_aside():
    state = to_cards(eight(), [MERLIN, S1, S2, MINION])
    state = play_cards(state, {MINION: "fail"})
    assert pending_kind(state) == "trap" and state.pending[0].actors == [MERLIN]
    assert prompts(state, MERLIN)[0].targets == [MERLIN, S1, S2, MINION]
    state, events = act_events(state, MERLIN, "trap", (MINION,))
    assert state.quests[-1].cards == {"success": 3}  # the Fail does not count
    assert state.results[0] is True
    seen = [(k.seat, k.label, k.source) for k in state.knowledge[MERLIN] if k.source == "trapper"]
    assert seen == [(MINION, "fail", "trapper")]
    trapped = next(e for e in events if e.type == "CardTrapped")
    assert trapped.public and trapped.data["seat"] == MINION and "card" not in trapped.data
    private = next(e for e in events if e.type == "CardSeen")
    assert private.to == (MERLIN,) and private.data["card"] == "fail"
    assert public_view(state)["trapper"]["discarded"] == [{"round": 1, "quest": 0, "seat": MINION}]


def test_trapped_success_leaves_the_fails_to_decide():
    state = quest(eight(), [MERLIN, S1, S2, MINION], {MINION: "fail"}, trap=S1)
    assert state.quests[-1].cards == {"fail": 1, "success": 2}
    assert state.results[0] is False


def test_only_the_leader_traps_and_only_a_played_card():
    state = play_cards(to_cards(eight(), [PERCIVAL, S1, S2, MINION]))
    before = state.model_dump()
    with pytest.raises(NotYourTurn):
        act(state, PERCIVAL, "trap", (S1,))
    with pytest.raises(InvalidTarget):
        act(state, MERLIN, "trap", (S3,))  # not on the Team
    with pytest.raises(InvalidTarget):
        act(state, MERLIN, "trap", (S1, S2))
    assert state.model_dump() == before
    state = act(state, MERLIN, "trap", (PERCIVAL,))  # the Leader need not be on the Team
    assert state.results[0] is True


def test_trapped_message_card_places_no_token():
    roles = ["good_messenger", "good_messenger", "merlin", "servant", "servant",
             "evil_messenger", "assassin", "minion"]
    state = make_state(roles, leader=2, options=TRAP)
    state = quest(state, [0, 1, 2, 3], {0: "good_message", 1: "good_message"}, trap=0)
    assert public_view(state)["messengers"]["good_messages"] == 1
    assert state.quests[-1].cards == {"good_message": 1, "success": 2}
