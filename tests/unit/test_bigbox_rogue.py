"""Rogue module (Avalon Big Box, "MODULES AND VARIANTS" - ROGUE MODULE)."""
from __future__ import annotations

import pytest
from bigbox_helpers import act, answer, pending_kind, play_cards, quest, to_cards

from engine import GameConfig, Side, new_game, prompts, public_view, reveal_script, validate_config
from engine.cards import counts_as
from engine.errors import CardNotAllowed, InvalidTarget, NotYourTurn
from engine.plugin import active_plugins
from tests.builder import make_state

# 7 players: 4 Good, 3 Evil.
MERLIN, GOOD_ROGUE, SERVANT_A, SERVANT_B, ASSASSIN, EVIL_ROGUE, MINION = range(7)
SEVEN = ["merlin", "good_rogue", "servant", "servant", "assassin", "evil_rogue", "minion"]


def seven(**kw):
    return make_state(SEVEN, leader=MERLIN, **kw)


def refused(state, seat, card, error=CardNotAllowed):
    before = state.model_dump()
    with pytest.raises(error) as info:
        act(state, seat, "play", choice=card)
    assert state.model_dump() == before
    return info.value


def test_rogue_cards_count_as_success_and_fail():
    assert counts_as("rogue_success") == "success"
    assert counts_as("rogue_fail") == "fail"


@pytest.mark.parametrize("rogues", [("good_rogue",), ("evil_rogue",), ("good_rogue", "evil_rogue")])
def test_a_game_may_include_one_rogue_or_both(rogues):
    config = GameConfig(players=7, roles=("merlin", "assassin", *rogues))
    assert validate_config(config) == []
    state, _ = new_game(config, 3)
    assert sorted(r for r in state.roles if r.endswith("_rogue")) == sorted(rogues)
    assert "rogue" in {p.id for p in active_plugins(config)}


def test_only_the_good_rogue_may_play_rogue_success():
    state = to_cards(seven(), [GOOD_ROGUE, SERVANT_A], watch=SERVANT_A)
    assert "rogue_success" in prompts(state, GOOD_ROGUE)[0].choices
    assert "rogue_success" not in prompts(state, SERVANT_A)[0].choices
    err = refused(state, SERVANT_A, "rogue_success")
    assert err.code == "card_not_allowed" and "rogue_success" not in err.params["allowed"]
    state = to_cards(seven(), [MINION, ASSASSIN], watch=MINION)
    refused(state, MINION, "rogue_success")
    refused(state, ASSASSIN, "rogue_success")


def test_only_the_evil_rogue_may_play_rogue_fail():
    state = to_cards(seven(), [EVIL_ROGUE, GOOD_ROGUE], watch=GOOD_ROGUE)
    assert set(prompts(state, EVIL_ROGUE)[0].choices) == {"success", "fail", "rogue_fail"}
    refused(state, GOOD_ROGUE, "rogue_fail")
    refused(state, GOOD_ROGUE, "fail")  # the Good Rogue is Good: never Fail
    state = to_cards(seven(), [MINION, SERVANT_A], watch=SERVANT_A)
    refused(state, MINION, "rogue_fail")
    refused(state, SERVANT_A, "rogue_fail")


def test_leader_must_give_the_watch_token_to_a_team_member_after_approval():
    state = seven()
    state = act(state, MERLIN, "propose", (GOOD_ROGUE, SERVANT_A))
    for seat in range(7):
        state = act(state, seat, "vote", choice="approve")
    assert pending_kind(state) == "watch" and state.pending[0].actors == [MERLIN]
    assert prompts(state, MERLIN)[0].targets == [GOOD_ROGUE, SERVANT_A]
    before = state.model_dump()
    with pytest.raises(InvalidTarget):
        act(state, MERLIN, "watch", (SERVANT_B,))
    with pytest.raises(NotYourTurn):
        act(state, GOOD_ROGUE, "watch", (SERVANT_A,))
    assert state.model_dump() == before
    state = act(state, MERLIN, "watch", (SERVANT_A,))
    assert state.stage == "quest"
    assert public_view(state)["rogue"]["watch"] == SERVANT_A


def test_watched_rogue_may_not_play_their_rogue_card():
    state = to_cards(seven(), [GOOD_ROGUE, EVIL_ROGUE], watch=GOOD_ROGUE)
    assert prompts(state, GOOD_ROGUE)[0].choices == ["success"]
    refused(state, GOOD_ROGUE, "rogue_success")
    assert "rogue_fail" in prompts(state, EVIL_ROGUE)[0].choices  # the other Rogue is not watched
    state = to_cards(seven(), [GOOD_ROGUE, EVIL_ROGUE], watch=EVIL_ROGUE)
    assert set(prompts(state, EVIL_ROGUE)[0].choices) == {"success", "fail"}
    refused(state, EVIL_ROGUE, "rogue_fail")


def test_watch_token_not_used_on_first_two_quests_with_five_or_six_players():
    roles = ["merlin", "good_rogue", "servant", "servant", "assassin", "evil_rogue"]
    state = make_state(roles, leader=0)
    for _ in range(2):
        state = act(state, state.leader, "propose", (0, 1) if state.round == 1 else (0, 1, 2))
        for seat in range(6):
            state = act(state, seat, "vote", choice="approve")
        assert state.stage == "quest" and pending_kind(state) is None
        assert "rogue_success" in prompts(state, 1)[0].choices
        state = play_cards(state)
    state = act(state, state.leader, "propose", (0, 1, 2, 3))
    for seat in range(6):
        state = act(state, seat, "vote", choice="approve")
    assert pending_kind(state) == "watch"


def test_watch_token_used_from_the_first_quest_with_seven_players():
    state = seven()
    state = act(state, MERLIN, "propose", (GOOD_ROGUE, SERVANT_A))
    for seat in range(7):
        state = act(state, seat, "vote", choice="approve")
    assert pending_kind(state) == "watch"


def test_rogue_tokens_are_public_per_quest():
    state = quest(seven(), [GOOD_ROGUE, SERVANT_A], {GOOD_ROGUE: "rogue_success"}, watch=SERVANT_A)
    state = quest(state, [EVIL_ROGUE, SERVANT_A, SERVANT_B], {EVIL_ROGUE: "rogue_fail"}, watch=SERVANT_B)
    tokens = public_view(state)["rogue"]["tokens"]
    assert [(t["quest"], t["rogue_success"], t["rogue_fail"]) for t in tokens] == [(0, 1, 0), (1, 0, 1)]
    assert state.quests[0].cards == {"rogue_success": 1, "success": 1}
    assert state.results[:2] == [True, False]


def test_good_rogue_wins_alone_after_third_success_with_rogue_success_on_it_and_before():
    state = seven()
    state = quest(state, [GOOD_ROGUE, SERVANT_A], {GOOD_ROGUE: "rogue_success"}, watch=SERVANT_A)
    state = quest(state, [GOOD_ROGUE, SERVANT_A, SERVANT_B], watch=SERVANT_B)  # plain Success
    assert state.results[:2] == [True, True] and not state.over
    state = quest(state, [GOOD_ROGUE, SERVANT_A, MERLIN], {GOOD_ROGUE: "rogue_success"}, watch=MERLIN)
    assert state.over and pending_kind(state) is None  # no Assassination
    assert state.winner is Side.GOOD and state.win_reason == "good_rogue_solo"
    assert state.winners == [GOOD_ROGUE]
    assert state.mods["assassination"]["skip"] is True
    assert public_view(state)["rogue"]["solo"] == GOOD_ROGUE


def test_good_rogue_needs_rogue_success_on_the_third_successful_quest():
    state = seven()
    state = quest(state, [GOOD_ROGUE, SERVANT_A], {GOOD_ROGUE: "rogue_success"}, watch=SERVANT_A)
    state = quest(state, [GOOD_ROGUE, SERVANT_A, SERVANT_B], {GOOD_ROGUE: "rogue_success"}, watch=SERVANT_B)
    state = quest(state, [GOOD_ROGUE, SERVANT_A, MERLIN], watch=GOOD_ROGUE)  # watched: plain Success
    assert not state.over and pending_kind(state) == "assassinate"
    state = act(state, ASSASSIN, "assassinate", (SERVANT_B,))
    assert state.winner is Side.GOOD and state.win_reason == "assassination_missed"
    assert GOOD_ROGUE in state.winners and len(state.winners) == 4
    assert public_view(state)["rogue"]["partial"] == [GOOD_ROGUE]  # partial victory


def test_good_rogue_needs_a_rogue_success_on_a_prior_quest():
    state = seven()
    state = quest(state, [GOOD_ROGUE, SERVANT_A], watch=SERVANT_A)
    state = quest(state, [SERVANT_B, SERVANT_A, MERLIN], watch=SERVANT_B)
    state = quest(state, [GOOD_ROGUE, SERVANT_A, MERLIN], {GOOD_ROGUE: "rogue_success"}, watch=MERLIN)
    assert state.win_reason == "three_successes" and pending_kind(state) == "assassinate"


def test_evil_rogue_wins_alone_after_third_failure_with_rogue_fail_on_it_and_before():
    state = seven()
    state = quest(state, [EVIL_ROGUE, SERVANT_A], {EVIL_ROGUE: "rogue_fail"}, watch=SERVANT_A)
    state = quest(state, [MINION, SERVANT_A, SERVANT_B], {MINION: "fail"}, watch=SERVANT_A)
    state = quest(state, [EVIL_ROGUE, SERVANT_A, MERLIN], {EVIL_ROGUE: "rogue_fail"}, watch=MERLIN)
    assert state.over and state.winner is Side.EVIL and state.win_reason == "evil_rogue_solo"
    assert state.winners == [EVIL_ROGUE]


def test_evil_rogue_partial_victory_when_evil_wins_otherwise():
    state = seven()
    state = quest(state, [EVIL_ROGUE, SERVANT_A], {EVIL_ROGUE: "rogue_fail"}, watch=SERVANT_A)
    state = quest(state, [MINION, SERVANT_A, SERVANT_B], {MINION: "fail"}, watch=SERVANT_A)
    # Watched, the Evil Rogue cannot play Rogue Fail: the third failure comes from a plain Fail.
    state = quest(state, [EVIL_ROGUE, SERVANT_A, MERLIN], {EVIL_ROGUE: "fail"}, watch=EVIL_ROGUE)
    assert state.over and state.winner is Side.EVIL and state.win_reason == "three_failures"
    assert sorted(state.winners) == [ASSASSIN, EVIL_ROGUE, MINION]
    assert public_view(state)["rogue"]["partial"] == [EVIL_ROGUE]
    assert public_view(state)["rogue"]["solo"] is None


def test_evil_rogue_is_hidden_from_evil_and_from_merlin():
    state = seven()
    known = {seat: {(k.seat, k.label) for k in state.knowledge[seat]} for seat in range(7)}
    assert known[MERLIN] == {(ASSASSIN, "evil"), (MINION, "evil")}
    assert known[ASSASSIN] == {(MINION, "evil")}
    assert known[MINION] == {(ASSASSIN, "evil")}
    assert known[EVIL_ROGUE] == set()
    assert known[GOOD_ROGUE] == set()
    script = reveal_script(state.config, SEVEN)
    assert all("evil_rogue" not in step["show"] + step["look"] for step in script)


def test_rogue_watch_refuses_an_empty_choice_with_unchanged_state():
    state = seven()
    state = act(state, MERLIN, "propose", (GOOD_ROGUE, SERVANT_A))
    for seat in range(7):
        state = act(state, seat, "vote", choice="approve")
    before = state.model_dump()
    with pytest.raises(InvalidTarget):
        act(state, MERLIN, "watch", ())
    assert state.model_dump() == before
    assert answer(state, {"watch": GOOD_ROGUE}).stage == "quest"
