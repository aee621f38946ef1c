"""Untrustworthy Servant and the Recruitment stage (Avalon Big Box p. 13)."""
from __future__ import annotations

import pytest

from engine import GameConfig, Side, prompts, public_view, reveal_script, validate_config
from engine.errors import CardNotAllowed, InvalidTarget, NotYourTurn
from engine.hook_order import PLACES
from engine.modules.assassination import Assassination
from engine.roles.untrustworthy_servant import UntrustworthyServant
from tests.builder import make_state
from tests.helpers import act, propose, reveal_knowledge, run_quest, vote
from tests.unit.bigbox_characters_helpers import same

# Seats: 0 Merlin, 1 Untrustworthy Servant, 2-3 Servants, 4 Assassin, 5 Minion, 6 Minion.
SEVEN = ["merlin", "untrustworthy_servant", "servant", "servant", "assassin", "minion", "minion"]
MERLIN, US, ASSASSIN = 0, 1, 4


def _three_successes(state):
    for team in ((2, 3), (1, 2, 3), (0, 2, 3)):
        state, events = run_quest(state, team)
    return state, events


def test_untrustworthy_servant_knows_the_assassin():
    s = make_state(SEVEN)
    assert reveal_knowledge(s)[US] == {(ASSASSIN, "assassin")}
    # "Assassin, extend your thumb so that the Untrustworthy Servant may know you": after Merlin's step.
    steps = [step["step"] for step in reveal_script(s.config, s.roles)]
    assert steps.index("merlin") < steps.index("untrustworthy_servant")
    script = {step["step"]: step for step in reveal_script(s.config, s.roles)}
    assert script["untrustworthy_servant"]["look"] == ["untrustworthy_servant"]
    assert script["untrustworthy_servant"]["shown_by"] == "assassin"


def test_untrustworthy_servant_knows_the_designated_assassin_without_an_assassin_card():
    roles = ["merlin", "untrustworthy_servant", "percival", "servant", "morgana", "minion", "minion"]
    s = make_state(roles, assassin="morgana")
    assert reveal_knowledge(s)[1] == {(4, "assassin")}


def test_merlin_sees_the_untrustworthy_servant_as_evil():
    s = make_state(SEVEN)
    assert (US, "evil") in reveal_knowledge(s)[MERLIN]
    # ... but Evil does not know them.
    assert all((US, "evil") not in reveal_knowledge(s)[seat] for seat in (4, 5, 6))


def test_untrustworthy_servant_may_not_play_fail():
    s = make_state(SEVEN)
    s, _ = propose(s, (US, 2))
    s, _ = vote(s)
    assert prompts(s, US)[0].choices == ["success"]
    before = s
    with pytest.raises(CardNotAllowed) as err:
        act(s, US, "play", choice="fail")
    assert err.value.code == "card_not_allowed" and same(before, s)


def test_untrustworthy_servant_without_merlin_is_a_warning():
    issues = validate_config(GameConfig(players=7, roles=("assassin", "untrustworthy_servant")))
    assert [(i.level, i.code) for i in issues if "untrustworthy" in i.code] == [
        ("warning", "untrustworthy_servant_without_merlin")
    ]


def test_recruitment_stage_comes_before_the_assassination_stage():
    assert PLACES.index(UntrustworthyServant.place) < PLACES.index(Assassination.place)
    s, events = _three_successes(make_state(SEVEN))
    types = [e.type for e in events]
    assert "RecruitmentStarted" in types and "AssassinationStarted" not in types
    assert s.stage == "game_end" and s.winner is Side.GOOD
    (p,) = prompts(s, ASSASSIN)
    assert p.kind == "recruit" and p.pick == 1
    # The Assassin does not guess among the agents of Evil they know.
    assert set(p.targets) == {0, 1, 2, 3}
    with pytest.raises(NotYourTurn):
        act(s, US, "recruit", targets=(US,))
    before = s
    with pytest.raises(InvalidTarget):
        act(s, ASSASSIN, "recruit", targets=(5,))
    assert same(before, s)


@pytest.mark.parametrize("names_merlin", [True, False])
def test_recruitment_right_guess_the_servant_turns_evil_and_assassinates(names_merlin):
    s, _ = _three_successes(make_state(SEVEN))
    s, events = act(s, ASSASSIN, "recruit", targets=(US,))
    # "The Untrustworthy Servant confirms the Assassin's guess and is now an Evil player."
    attempt = [e for e in events if e.type == "RecruitmentAttempted"]
    assert len(attempt) == 1 and attempt[0].public
    assert attempt[0].data == {"assassin": ASSASSIN, "target": US, "recruited": True}
    assert s.sides[US] is Side.EVIL
    assert {"seat": US, "role": "untrustworthy_servant", "side": "evil"} in public_view(s)["revealed"]
    # "The now Evil Untrustworthy Servant performs the Assassination stage instead of the Assassin."
    assert prompts(s, ASSASSIN) == []
    (p,) = prompts(s, US)
    assert p.kind == "assassinate"
    target = MERLIN if names_merlin else 2
    s, _ = act(s, US, "assassinate", targets=(target,))
    assert s.over
    if names_merlin:
        # "They win alongside Evil if they correctly identify Merlin."
        assert s.winner is Side.EVIL and s.win_reason == "merlin_assassinated"
        assert s.winners == [US, 4, 5, 6]
    else:
        # "... and lose if they do not."
        assert s.winner is Side.GOOD and US not in s.winners
        assert s.winners == [0, 2, 3]


def test_recruitment_wrong_guess_reveals_nothing_and_the_assassin_assassinates():
    s, _ = _three_successes(make_state(SEVEN))
    s, events = act(s, ASSASSIN, "recruit", targets=(2,))
    attempt = [e for e in events if e.type == "RecruitmentAttempted"]
    assert attempt[0].data == {"assassin": ASSASSIN, "target": 2, "recruited": False}
    # "The Untrustworthy Servant remains Good and does not reveal themself."
    assert s.sides[US] is Side.GOOD
    assert "revealed" not in public_view(s)
    assert not any(e.data.get("seat") == US or e.data.get("target") == US for e in events)
    (p,) = prompts(s, ASSASSIN)
    assert p.kind == "assassinate"
    s, _ = act(s, ASSASSIN, "assassinate", targets=(US,))
    assert s.winner is Side.GOOD and s.win_reason == "assassination_missed"
    assert US in s.winners


def test_no_recruitment_when_evil_wins_the_quests():
    s = make_state(SEVEN)
    for team in ((2, 4), (2, 3, 4), (0, 3, 4)):
        s, events = run_quest(s, team, fails=(4,))
    assert s.over and s.winner is Side.EVIL
    assert "RecruitmentStarted" not in [e.type for e in events]
    assert s.sides[US] is Side.GOOD and US not in s.winners
