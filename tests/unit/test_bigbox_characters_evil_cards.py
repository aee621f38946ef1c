"""Lunatic, Brute and Revealer (Avalon Big Box p. 10): Evil characters with quest-card rules."""
from __future__ import annotations

import pytest

from engine import GameConfig, prompts, public_view, validate_config
from engine.errors import CardNotAllowed
from tests.builder import make_state
from tests.helpers import act, play, propose, run_quest, vote
from tests.unit.bigbox_characters_helpers import same

# Seats: 0 Merlin, 1-3 Servants, 4 Assassin, 5 Lunatic, 6 Brute.
SEVEN = ["merlin", "servant", "servant", "servant", "assassin", "lunatic", "brute"]
LUNATIC, BRUTE = 5, 6


def _on_quest(state, team, quest=None):
    state, _ = propose(state, team, quest)
    state, _ = vote(state)
    return state


@pytest.mark.parametrize("role", ["lunatic", "brute", "revealer", "cleric"])
def test_recommended_for_seven_or_more_players_is_only_a_warning(role):
    small = validate_config(GameConfig(players=6, roles=("merlin", "assassin", role)))
    assert [(i.code, i.params) for i in small if i.level == "warning"] == [
        ("recommended_players", {"plugin": role, "players": 7})
    ]
    assert not [i for i in small if i.level == "error"]
    assert not validate_config(GameConfig(players=7, roles=("merlin", "assassin", role)))


def test_lunatic_must_play_fail():
    s = _on_quest(make_state(SEVEN), (1, LUNATIC))
    assert prompts(s, LUNATIC)[0].choices == ["fail"]
    before = s
    with pytest.raises(CardNotAllowed) as err:
        act(s, LUNATIC, "play", choice="success")
    assert err.value.code == "card_not_allowed" and "fail" in err.value.reason
    assert same(before, s)
    s, _ = play(s, fails=(LUNATIC,))
    assert s.results[0] is False


def test_lunatic_must_fail_every_quest_they_are_on():
    s = make_state(SEVEN)
    s, _ = run_quest(s, (1, 2, 3)[:2])  # quest 1 without the Lunatic
    s, _ = run_quest(s, (1, 2, 3))  # quest 2 without the Lunatic
    s = _on_quest(s, (1, 2, LUNATIC))  # quest 3
    assert prompts(s, LUNATIC)[0].choices == ["fail"]
    with pytest.raises(CardNotAllowed):
        act(s, LUNATIC, "play", choice="success")
    s, _ = play(s, fails=(LUNATIC,))
    s = _on_quest(s, (1, 2, 3, LUNATIC))  # quest 4
    assert prompts(s, LUNATIC)[0].choices == ["fail"]


def test_brute_may_fail_only_the_first_three_quests():
    s = make_state(SEVEN)
    plan = [((1, BRUTE), (BRUTE,)), ((1, 2, BRUTE), ()), ((1, 2, BRUTE), ())]
    for team, fails in plan:
        s = _on_quest(s, team)
        assert set(prompts(s, BRUTE)[0].choices) == {"success", "fail"}
        s, _ = play(s, fails=fails)
    assert s.results[:3] == [False, True, True] and not s.over
    # The 4th Quest: "They may Fail only the first three Quests, but they may play Success on any Quest."
    s = _on_quest(s, (1, 2, 3, BRUTE))
    assert prompts(s, BRUTE)[0].choices == ["success"]
    before = s
    with pytest.raises(CardNotAllowed) as err:
        act(s, BRUTE, "play", choice="fail")
    assert err.value.code == "card_not_allowed"
    assert same(before, s)


def test_brute_with_targeting_counts_the_first_three_quests_attempted():
    s = make_state(SEVEN, options={"targeting": True})
    # Round 1 attempts the 4th quest slot: it is the first Quest attempted, so the Brute may Fail.
    s = _on_quest(s, (1, 2, 3, BRUTE), quest=3)
    assert set(prompts(s, BRUTE)[0].choices) == {"success", "fail"}
    s, _ = play(s, fails=(BRUTE,))  # one Fail of the two needed: the 4th quest succeeds
    s, _ = run_quest(s, (1, BRUTE), fails=(BRUTE,), quest=0)
    s, _ = run_quest(s, (1, 2, 3), quest=1)
    assert s.results == [False, True, None, True, None] and len(s.quests) == 3
    # The fourth Quest attempted is the 3rd slot: the Brute may no longer Fail.
    s = _on_quest(s, (1, 2, BRUTE), quest=2)
    assert prompts(s, BRUTE)[0].choices == ["success"]
    with pytest.raises(CardNotAllowed):
        act(s, BRUTE, "play", choice="fail")


def test_revealer_is_revealed_to_everyone_after_the_second_failed_quest():
    roles = ["merlin", "servant", "servant", "servant", "assassin", "revealer", "minion"]
    revealer = 5
    s = make_state(roles)
    s, ev = run_quest(s, (1, 4), fails=(4,))
    assert not [e for e in ev if e.type == "RevealerRevealed"]
    assert "revealed" not in public_view(s)
    s, ev = run_quest(s, (1, 2, 3))
    assert not [e for e in ev if e.type == "RevealerRevealed"]
    s, ev = run_quest(s, (1, 2, 4), fails=(4,))
    assert s.failures() == 2
    shown = [e for e in ev if e.type == "RevealerRevealed"]
    assert len(shown) == 1 and shown[0].public
    assert shown[0].data == {"seat": revealer, "role": "revealer", "side": "evil"}
    assert public_view(s)["revealed"] == [{"seat": revealer, "role": "revealer", "side": "evil"}]
    # Revealed once only.
    s, ev = run_quest(s, (0, 1, 2, 3))
    assert not [e for e in ev if e.type == "RevealerRevealed"]
    assert public_view(s)["revealed"] == [{"seat": revealer, "role": "revealer", "side": "evil"}]
