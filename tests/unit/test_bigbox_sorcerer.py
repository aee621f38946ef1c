"""Sorcerer module (Avalon Big Box, "MODULES AND VARIANTS" - SORCERER MODULE)."""
from __future__ import annotations

import pytest
from bigbox_helpers import act, act_events, quest, to_cards

from engine import GameConfig, prompts, reveal_script, validate_config
from engine.cards import counts_as
from engine.errors import CardNotAllowed
from tests.builder import make_state

# 6 players: 4 Good, 2 Evil. Team sizes 2, 3, 4, 3, 4 - the rulebook example's 4, 3 and 4 members.
GOOD_SORC, EVIL_SORC, MERLIN, SERVANT_A, SERVANT_B, ASSASSIN = range(6)
SIX = ["good_sorcerer", "evil_sorcerer", "merlin", "servant", "servant", "assassin"]


def six(**kw):
    return make_state(SIX, leader=MERLIN, **kw)


def refused(state, seat, card):
    before = state.model_dump()
    with pytest.raises(CardNotAllowed) as info:
        act(state, seat, "play", choice=card)
    assert state.model_dump() == before
    return info.value


def test_magic_card_counts_as_magic():
    assert counts_as("magic") == "magic"


@pytest.mark.parametrize("only", ["good_sorcerer", "evil_sorcerer"])
def test_play_with_both_sorcerers(only):
    issues = validate_config(GameConfig(players=6, roles=("merlin", "assassin", only)))
    assert [i.code for i in issues if i.level == "error"] == ["sorcerers_need_both"]
    both = GameConfig(players=6, roles=("merlin", "assassin", "good_sorcerer", "evil_sorcerer"))
    assert validate_config(both) == []


def test_rulebook_examples_magic_reverses_the_quest():
    state = six()
    state = quest(state, [MERLIN, SERVANT_A])  # quest 1 succeeds
    state = quest(state, [ASSASSIN, SERVANT_A, SERVANT_B], {ASSASSIN: "fail"})  # quest 2 fails
    # "A four member Quest reveals Success, Success, Fail, Magic. The Quest succeeds."
    state = quest(state, [GOOD_SORC, ASSASSIN, SERVANT_A, SERVANT_B], {GOOD_SORC: "magic", ASSASSIN: "fail"})
    assert state.quests[-1].cards == {"fail": 1, "magic": 1, "success": 2}
    assert state.results[2] is True
    # "The next Quest has three members. The cards revealed are Success, Success, Magic. The Quest fails."
    state = quest(state, [EVIL_SORC, MERLIN, SERVANT_A], {EVIL_SORC: "magic"})
    assert state.quests[-1].cards == {"magic": 1, "success": 2}
    assert state.results[3] is False
    # "The fifth Quest has four members... Success, Success, Magic, Magic... The Quest succeeds."
    state = quest(state, [GOOD_SORC, EVIL_SORC, MERLIN, SERVANT_A], {GOOD_SORC: "magic", EVIL_SORC: "magic"})
    assert state.quests[-1].cards == {"magic": 2, "success": 2}
    assert state.results[4] is True
    assert state.win_reason == "three_successes"


def test_fail_and_two_magic_cards_still_fail():
    state = six()
    # "If a Quest has a Fail card and two Magic cards, the Quest is reversed twice, and thus still fails."
    state = quest(state, [GOOD_SORC, EVIL_SORC], {GOOD_SORC: "magic", EVIL_SORC: "magic"})
    assert state.results[0] is True  # two Magic cards and no Fail: reversed twice, succeeds
    state = to_cards(state, [GOOD_SORC, EVIL_SORC, ASSASSIN])
    state = act(state, GOOD_SORC, "play", choice="magic")
    state = act(state, EVIL_SORC, "play", choice="magic")
    state, events = act_events(state, ASSASSIN, "play", choice="fail")
    assert state.results[1] is False and state.quests[-1].fails == 1
    done = next(e for e in events if e.type == "QuestCompleted")
    assert done.data["notes"] == ["magic_cancelled"]


def test_fail_and_one_magic_card_succeeds():
    state = six()
    state = quest(state, [GOOD_SORC, ASSASSIN], {GOOD_SORC: "magic", ASSASSIN: "fail"})
    assert state.results[0] is True and state.quests[-1].fails == 1


def test_only_sorcerers_may_play_magic():
    state = to_cards(six(), [GOOD_SORC, EVIL_SORC])
    assert set(prompts(state, GOOD_SORC)[0].choices) == {"success", "magic"}
    state = to_cards(six(), [MERLIN, ASSASSIN])
    assert "magic" not in prompts(state, MERLIN)[0].choices
    refused(state, MERLIN, "magic")
    refused(state, ASSASSIN, "magic")


def test_evil_sorcerer_may_play_success_or_magic_never_fail():
    state = to_cards(six(), [EVIL_SORC, SERVANT_A])
    assert set(prompts(state, EVIL_SORC)[0].choices) == {"success", "magic"}
    err = refused(state, EVIL_SORC, "fail")
    assert err.code == "card_not_allowed" and "fail" not in err.params["allowed"]


def test_good_sorcerer_may_not_play_fail():
    state = to_cards(six(), [GOOD_SORC, SERVANT_A])
    refused(state, GOOD_SORC, "fail")


def _known(state, seat):
    return {(k.seat, k.label) for k in state.knowledge[seat] if k.source == "reveal"}


def test_evil_sorcerer_is_an_ordinary_agent_of_evil_at_the_reveal():
    state = six()
    assert _known(state, ASSASSIN) == {(EVIL_SORC, "evil")}
    assert _known(state, EVIL_SORC) == {(ASSASSIN, "evil")}
    assert _known(state, MERLIN) == {(EVIL_SORC, "evil"), (ASSASSIN, "evil")}
    assert _known(state, GOOD_SORC) == set()


def test_optional_rule_hidden_evil_sorcerer_does_not_reveal_themself():
    state = six(options={"sorcerer_hidden": True})
    assert _known(state, ASSASSIN) == set()
    assert _known(state, EVIL_SORC) == set()
    assert _known(state, MERLIN) == {(ASSASSIN, "evil")}
    script = reveal_script(state.config, SIX)
    assert all("evil_sorcerer" not in step["show"] + step["look"] for step in script)
    plain = reveal_script(six().config, SIX)
    assert any("evil_sorcerer" in step["show"] for step in plain)
