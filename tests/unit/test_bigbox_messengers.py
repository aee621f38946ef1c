"""Messengers (Avalon Big Box, "MODULES AND VARIANTS" - MESSENGERS and its optional rule)."""
from __future__ import annotations

import pytest
from bigbox_helpers import act, pending_kind, quest, to_cards

from engine import GameConfig, Side, new_game, prompts, public_view, validate_config, view
from engine.cards import counts_as
from engine.errors import CardNotAllowed, InvalidChoice, InvalidTarget
from tests.builder import make_state

# 7 players: 4 Good, 3 Evil. Team sizes 2, 3, 3, 4 (two Fails needed), 4.
GM_A, GM_B, MERLIN, SERVANT, EM, ASSASSIN, MINION = range(7)
SEVEN = ["good_messenger", "good_messenger", "merlin", "servant", "evil_messenger", "assassin", "minion"]
GM, EVM = "good_message", "evil_message"


def seven(**kw):
    return make_state(SEVEN, leader=MERLIN, **kw)


def refused(state, seat, card):
    before = state.model_dump()
    with pytest.raises(CardNotAllowed):
        act(state, seat, "play", choice=card)
    assert state.model_dump() == before


def test_message_cards_count_as_success_and_fail():
    assert counts_as(GM) == "success" and counts_as(EVM) == "fail"


@pytest.mark.parametrize(
    "roles",
    [
        ("good_messenger", "good_messenger"),
        ("good_messenger", "evil_messenger"),
        ("evil_messenger",),
        ("good_messenger",),
    ],
)
def test_play_with_all_three_messengers(roles):
    issues = validate_config(GameConfig(players=7, roles=roles))
    assert "messengers_need_all_three" in [i.code for i in issues if i.level == "error"]


def test_messengers_recommended_for_seven_or_more_players():
    roles = ("good_messenger", "good_messenger", "evil_messenger")
    assert [(i.level, i.code, i.params) for i in validate_config(GameConfig(players=6, roles=roles))] == [
        ("warning", "recommended_players", {"plugin": "messengers", "players": 7})
    ]
    assert validate_config(GameConfig(players=7, roles=roles)) == []
    state, _ = new_game(GameConfig(players=5, roles=roles), 1)  # a warning does not forbid
    assert sorted(state.roles).count("good_messenger") == 2


def test_a_third_good_messenger_is_refused():
    roles = ("good_messenger",) * 3 + ("evil_messenger",)
    codes = [i.code for i in validate_config(GameConfig(players=8, roles=roles)) if i.level == "error"]
    assert "duplicate_role" in codes


def test_card_choices_of_messengers():
    state = to_cards(seven(), [GM_A, EM])
    assert set(prompts(state, GM_A)[0].choices) == {"success", GM}
    assert set(prompts(state, EM)[0].choices) == {"success", "fail", EVM}
    refused(state, GM_A, "fail")
    refused(state, GM_A, EVM)
    refused(state, EM, GM)
    state = to_cards(seven(), [SERVANT, ASSASSIN])
    refused(state, SERVANT, GM)
    refused(state, SERVANT, EVM)
    refused(state, ASSASSIN, EVM)
    refused(state, ASSASSIN, GM)


def test_each_good_messenger_plays_good_message_at_most_twice():
    state = seven()
    state = quest(state, [GM_A, GM_B], {GM_A: GM, GM_B: GM})
    state = quest(state, [GM_A, SERVANT, MERLIN], {GM_A: GM})
    assert view(state, GM_A)["you"]["good_messages_left"] == 0
    assert view(state, GM_B)["you"]["good_messages_left"] == 1
    state = to_cards(state, [GM_A, GM_B, SERVANT])
    assert prompts(state, GM_A)[0].choices == ["success"]
    refused(state, GM_A, GM)
    assert GM in prompts(state, GM_B)[0].choices


def test_message_tokens_are_public_per_quest():
    state = quest(seven(), [GM_A, EM], {GM_A: GM, EM: EVM})
    mess = public_view(state)["messengers"]
    assert mess["tokens"] == [{"round": 1, "quest": 0, GM: 1, EVM: 1}]
    assert (mess["good_messages"], mess["evil_messages"]) == (1, 1)
    assert state.results[0] is False  # the Evil Message acts as a Fail


def _to_fifth(state, good_messages: int, evil_messages: int):
    """Four quests, two successes and two failures, with the given Message tokens on the tableau."""
    gm = good_messages
    em = evil_messages
    cards1 = {}
    for seat in (GM_A, GM_B):
        if gm:
            cards1[seat], gm = GM, gm - 1
    state = quest(state, [GM_A, GM_B], cards1)  # success
    cards2 = {ASSASSIN: "fail"}
    if em:
        cards2[EM], em = EVM, em - 1
    state = quest(state, [EM, ASSASSIN, SERVANT], cards2)  # fail
    cards3 = {}
    for seat in (GM_A, GM_B):
        if gm:
            cards3[seat], gm = GM, gm - 1
    state = quest(state, [GM_A, GM_B, MERLIN], cards3)  # success
    cards4 = {ASSASSIN: "fail", MINION: "fail"}
    if em:
        cards4[EM], em = EVM, em - 1
    state = quest(state, [EM, ASSASSIN, MINION, SERVANT], cards4)  # fail (two Fails needed)
    assert state.results[:4] == [True, False, True, False] and not state.over
    tokens = public_view(state)["messengers"]
    assert (tokens["good_messages"], tokens["evil_messages"]) == (good_messages, evil_messages)
    return state


def test_backup_three_good_messages_remove_one_fail_on_the_fifth_quest():
    state = _to_fifth(seven(), 3, 0)
    state = quest(state, [GM_A, ASSASSIN, MERLIN, SERVANT], {ASSASSIN: "fail"})
    assert state.quests[-1].cards == {"fail": 1, "success": 3}
    assert state.quests[-1].fails == 0 and state.results[4] is True
    assert public_view(state)["messengers"]["backup"] == {"good": 3, "evil": 0, "applied": "good"}
    assert pending_kind(state) == "assassin_target"  # Good won the quests


def test_backup_two_evil_messages_add_one_fail_on_the_fifth_quest():
    state = _to_fifth(seven(), 0, 2)
    state = quest(state, [GM_A, GM_B, MERLIN, SERVANT])  # four Success cards
    assert state.quests[-1].fails == 1 and state.results[4] is False
    assert state.over and state.winner is Side.EVIL and state.win_reason == "three_failures"


@pytest.mark.parametrize("fail_played", [False, True])
def test_backup_of_both_sides_cancels_out(fail_played):
    state = _to_fifth(seven(), 3, 2)
    state = quest(state, [GM_A, ASSASSIN, MERLIN, SERVANT], {ASSASSIN: "fail"} if fail_played else {})
    assert state.quests[-1].fails == int(fail_played)
    assert state.results[4] is (not fail_played)
    assert public_view(state)["messengers"]["backup"]["applied"] == "cancelled"


def test_no_backup_before_the_fifth_quest():
    state = seven()
    state = quest(state, [GM_A, GM_B], {GM_A: GM, GM_B: GM})
    state = quest(state, [GM_A, ASSASSIN, SERVANT], {GM_A: GM, ASSASSIN: "fail"})
    assert public_view(state)["messengers"]["good_messages"] == 3
    assert state.quests[-1].fails == 1 and state.results[1] is False


def test_backup_needs_enough_tokens():
    state = _to_fifth(seven(), 2, 1)
    state = quest(state, [GM_A, ASSASSIN, MERLIN, SERVANT], {ASSASSIN: "fail"})
    assert state.results[4] is False and state.quests[-1].fails == 1
    assert public_view(state)["messengers"]["backup"]["applied"] is None


def test_backup_is_declined_when_magic_would_turn_it_against_its_side():
    roles = ["good_messenger", "good_messenger", "good_sorcerer", "merlin",
             "evil_messenger", "assassin", "evil_sorcerer"]
    state = make_state(roles, leader=3)
    gm_a, gm_b, gsorc, merlin, em, assassin, _esorc = range(7)
    state = quest(state, [gm_a, gm_b], {gm_a: GM, gm_b: GM})
    state = quest(state, [em, assassin, merlin], {assassin: "fail"})
    state = quest(state, [gm_a, gm_b, merlin], {gm_a: GM})
    state = quest(state, [em, assassin, gm_b, merlin], {em: "fail", assassin: "fail"})
    assert state.results[:4] == [True, False, True, False]
    # Fail + one Magic: the Magic turns the failure into a success. Removing the Fail would let
    # the Magic turn a success into a failure, so Good does not use its backup.
    state = quest(state, [gm_b, gsorc, assassin, merlin], {gsorc: "magic", assassin: "fail"})
    assert state.results[4] is True and state.quests[-1].fails == 1
    assert public_view(state)["messengers"]["backup"]["applied"] == "declined"


def _win_quests(state):
    state = quest(state, [GM_A, GM_B])
    state = quest(state, [GM_A, GM_B, MERLIN])
    return quest(state, [GM_A, GM_B, SERVANT])


def test_assassin_announces_merlin_or_the_messengers():
    state = _win_quests(seven())
    assert pending_kind(state) == "assassin_target" and state.pending[0].actors == [ASSASSIN]
    assert prompts(state, ASSASSIN)[0].choices == ["merlin", "messengers"]
    with pytest.raises(InvalidChoice):
        act(state, ASSASSIN, "assassin_target", choice="percival")
    state = act(state, ASSASSIN, "assassin_target", choice="messengers")
    prompt = prompts(state, ASSASSIN)[0]
    assert prompt.kind == "assassinate" and prompt.pick == 2 and prompt.info["target"] == "messengers"
    before = state.model_dump()
    with pytest.raises(InvalidTarget):
        act(state, ASSASSIN, "assassinate", (GM_A,))
    with pytest.raises(InvalidTarget):
        act(state, ASSASSIN, "assassinate", (GM_A, GM_A))
    assert state.model_dump() == before
    hit = act(state, ASSASSIN, "assassinate", (GM_B, GM_A))
    assert hit.winner is Side.EVIL and hit.win_reason == "messengers_assassinated"
    miss = act(state, ASSASSIN, "assassinate", (GM_A, MERLIN))
    assert miss.winner is Side.GOOD and miss.win_reason == "assassination_missed"


def test_assassin_who_announces_merlin_names_one_player():
    state = act(_win_quests(seven()), ASSASSIN, "assassin_target", choice="merlin")
    assert prompts(state, ASSASSIN)[0].pick == 1
    assert act(state, ASSASSIN, "assassinate", (MERLIN,)).win_reason == "merlin_assassinated"
    assert act(state, ASSASSIN, "assassinate", (GM_A,)).win_reason == "assassination_missed"


def test_without_merlin_the_assassin_targets_the_messengers():
    roles = ["good_messenger", "good_messenger", "servant", "servant", "evil_messenger", "assassin", "minion"]
    state = make_state(roles, leader=2)
    state = _win_quests(state)
    assert pending_kind(state) == "assassinate" and prompts(state, ASSASSIN)[0].pick == 2
    assert act(state, ASSASSIN, "assassinate", (GM_A, GM_B)).win_reason == "messengers_assassinated"


def test_senior_messenger_knows_the_junior_messenger():
    for seed in range(6):
        state = make_state(SEVEN, leader=MERLIN, options={"senior_junior_messengers": True}, seed=seed)
        ranks = {seat: view(state, seat)["you"].get("messenger_rank") for seat in (GM_A, GM_B)}
        assert sorted(ranks.values()) == ["junior", "senior"]
        senior = next(s for s, r in ranks.items() if r == "senior")
        junior = next(s for s, r in ranks.items() if r == "junior")
        assert {(k.seat, k.label) for k in state.knowledge[senior]} == {(junior, "junior_messenger")}
        assert state.knowledge[junior] == []
        assert "messenger_rank" not in view(state, SERVANT)["you"]


def test_without_the_optional_rule_messengers_do_not_know_each_other():
    state = seven()
    assert state.knowledge[GM_A] == [] and state.knowledge[GM_B] == []
    assert "messenger_rank" not in view(state, GM_A)["you"]


def test_evil_messenger_is_an_agent_of_evil_at_the_reveal():
    state = seven()
    assert {(k.seat, k.label) for k in state.knowledge[ASSASSIN]} == {(EM, "evil"), (MINION, "evil")}
    assert (EM, "evil") in {(k.seat, k.label) for k in state.knowledge[MERLIN]}


def test_the_evil_messenger_plays_evil_message_at_most_twice():
    """Big Box: "Place 4 Good Message Tokens and 2 Evil Message tokens next to the tableau": a token is
    placed for each Message card played, so only two Evil Messages can ever be played."""
    state = seven()
    state = quest(state, [EM, SERVANT], {EM: EVM})
    assert view(state, EM)["you"]["evil_messages_left"] == 1
    state = quest(state, [EM, SERVANT, MERLIN], {EM: EVM})
    assert view(state, EM)["you"]["evil_messages_left"] == 0
    state = to_cards(state, [EM, SERVANT, MERLIN])
    assert set(prompts(state, EM)[0].choices) == {"success", "fail"}
    refused(state, EM, EVM)
