"""Illegal actions are refused with a typed error and a readable reason, and change nothing."""
from __future__ import annotations

import pytest

from engine import Action, apply_action
from engine.errors import (
    AlreadyActed,
    CardNotAllowed,
    DuplicatePlayer,
    GameOver,
    IllegalAction,
    InvalidChoice,
    InvalidTarget,
    NotOnTeam,
    NotYourTurn,
    WrongPhase,
    WrongTeamSize,
)
from tests.builder import make_state
from tests.helpers import act, propose, reject, run_quest, vote

FIVE = ["merlin", "minion", "servant", "assassin", "servant"]  # Walter, Thomas, Laura, Evie, Justin
LADY7 = ["merlin", "minion", "servant", "assassin", "servant", "servant", "minion"]


def assert_refused(state, error: type[IllegalAction], code: str, **action):
    before = state.model_dump()
    before_json = state.to_json()
    with pytest.raises(IllegalAction) as err:
        apply_action(state, Action(**action))
    assert type(err.value) is error
    assert err.value.code == code
    assert isinstance(err.value.reason, str) and len(err.value.reason) > 10
    assert state.model_dump() == before and state.to_json() == before_json
    return err.value


def _voting():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 2))
    return s


def _questing(team=(0, 1)):
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, team)
    s, _ = vote(s)
    return s


def test_acting_out_of_turn_is_refused():
    s = make_state(FIVE, leader=0)
    err = assert_refused(s, NotYourTurn, "not_your_turn", seat=1, kind="propose", targets=(0, 1))
    assert "Leader" in err.reason


def test_wrong_team_size_is_refused():
    s = make_state(FIVE, leader=0)
    err = assert_refused(s, WrongTeamSize, "wrong_team_size", seat=0, kind="propose", targets=(0, 1, 2))
    assert err.params == {"size": 2, "given": 3}
    assert_refused(s, WrongTeamSize, "wrong_team_size", seat=0, kind="propose", targets=())


def test_duplicate_player_on_the_team_is_refused():
    s = make_state(FIVE, leader=0)
    assert_refused(s, DuplicatePlayer, "duplicate_player", seat=0, kind="propose", targets=(1, 1))


def test_team_member_outside_the_table_is_refused():
    s = make_state(FIVE, leader=0)
    assert_refused(s, InvalidTarget, "invalid_target", seat=0, kind="propose", targets=(1, 5))
    assert_refused(s, InvalidTarget, "invalid_target", seat=0, kind="propose", targets=(-1, 2))


def test_a_seat_outside_the_table_is_refused():
    s = make_state(FIVE, leader=0)
    assert_refused(s, InvalidTarget, "invalid_target", seat=7, kind="propose", targets=(0, 1))


def test_quest_card_from_a_non_member_is_refused():
    s = _questing((0, 1))
    assert_refused(s, NotOnTeam, "not_on_team", seat=3, kind="play", choice="fail")


def test_good_playing_fail_is_refused():
    s = _questing((0, 1))
    err = assert_refused(s, CardNotAllowed, "card_not_allowed", seat=0, kind="play", choice="fail")
    assert "Success" in err.reason


def test_unknown_quest_card_is_refused():
    s = _questing((0, 1))
    assert_refused(s, CardNotAllowed, "card_not_allowed", seat=1, kind="play", choice="magic")


def test_playing_twice_is_refused():
    s = _questing((0, 1))
    s, _ = act(s, 1, "play", choice="fail")
    assert_refused(s, AlreadyActed, "already_acted", seat=1, kind="play", choice="success")


def test_voting_twice_is_refused():
    s = _voting()
    s, _ = act(s, 4, "vote", choice="approve")
    assert_refused(s, AlreadyActed, "already_acted", seat=4, kind="vote", choice="reject")
    assert_refused(s, AlreadyActed, "already_acted", seat=4, kind="vote", choice="approve")


def test_vote_other_than_approve_or_reject_is_refused():
    s = _voting()
    assert_refused(s, InvalidChoice, "invalid_choice", seat=2, kind="vote", choice=None)
    assert_refused(s, InvalidChoice, "invalid_choice", seat=2, kind="vote", choice="maybe")


def test_actions_of_another_phase_are_refused():
    s = make_state(FIVE, leader=0)
    assert_refused(s, WrongPhase, "wrong_phase", seat=0, kind="vote", choice="approve")
    assert_refused(s, WrongPhase, "wrong_phase", seat=0, kind="play", choice="success")
    assert_refused(s, WrongPhase, "wrong_phase", seat=0, kind="lady", targets=(1,))
    assert_refused(s, WrongPhase, "wrong_phase", seat=3, kind="assassinate", targets=(0,))
    v = _voting()
    assert_refused(v, WrongPhase, "wrong_phase", seat=0, kind="propose", targets=(0, 1))
    q = _questing()
    assert_refused(q, WrongPhase, "wrong_phase", seat=0, kind="vote", choice="approve")


def test_quest_choice_is_refused_without_targeting_or_when_closed():
    s = make_state(FIVE, leader=0)
    assert_refused(s, InvalidChoice, "invalid_choice", seat=0, kind="propose", targets=(0, 1), quest=1)
    t = make_state(LADY7, leader=0, options={"targeting": True})
    assert_refused(t, InvalidChoice, "invalid_choice", seat=0, kind="propose", targets=(0, 1))
    assert_refused(t, InvalidChoice, "invalid_choice", seat=0, kind="propose", targets=(0, 1, 2, 4), quest=4)


def _lady_after_quest_three():
    s = make_state(LADY7, leader=0, options={"lady_of_the_lake": True})
    s, _ = run_quest(s, (0, 2))
    s, _ = run_quest(s, (1, 2, 4), fails={1})
    s, _ = act(s, 6, "lady", (5,))  # Don examines Margaret
    s, _ = run_quest(s, (0, 2, 4))
    return s


def test_lady_on_a_previous_holder_is_refused():
    s = _lady_after_quest_three()
    err = assert_refused(s, InvalidTarget, "invalid_target", seat=5, kind="lady", targets=(6,))
    assert "Lady" in err.reason


def test_lady_on_oneself_or_on_nobody_is_refused():
    s = _lady_after_quest_three()
    assert_refused(s, InvalidTarget, "invalid_target", seat=5, kind="lady", targets=(5,))
    assert_refused(s, InvalidTarget, "invalid_target", seat=5, kind="lady", targets=())
    assert_refused(s, InvalidTarget, "invalid_target", seat=5, kind="lady", targets=(0, 1))


def test_lady_by_someone_else_than_the_holder_is_refused():
    s = _lady_after_quest_three()
    assert_refused(s, NotYourTurn, "not_your_turn", seat=6, kind="lady", targets=(0,))
    assert_refused(s, NotYourTurn, "not_your_turn", seat=1, kind="propose", targets=(0, 1, 2))


def _assassination():
    s = make_state(FIVE, leader=0)
    s, _ = run_quest(s, (0, 2))
    s, _ = run_quest(s, (0, 2, 4))
    s, _ = run_quest(s, (2, 4))
    assert s.pending[0].kind == "assassinate"
    return s


def test_assassinating_oneself_is_refused():
    s = _assassination()
    assert_refused(s, InvalidTarget, "invalid_target", seat=3, kind="assassinate", targets=(3,))


def test_assassinating_a_known_evil_player_or_two_players_is_refused():
    s = _assassination()
    assert_refused(s, InvalidTarget, "invalid_target", seat=3, kind="assassinate", targets=(1,))
    assert_refused(s, InvalidTarget, "invalid_target", seat=3, kind="assassinate", targets=(0, 2))


def test_assassination_by_someone_else_than_the_assassin_is_refused():
    s = _assassination()
    assert_refused(s, NotYourTurn, "not_your_turn", seat=1, kind="assassinate", targets=(0,))
    assert_refused(s, NotYourTurn, "not_your_turn", seat=0, kind="propose", targets=(0, 2, 4))


def test_acting_after_the_end_is_refused():
    s = make_state(FIVE, leader=0)
    for _ in range(5):
        s, _ = reject(s)
    assert s.over
    assert_refused(s, GameOver, "game_over", seat=s.leader, kind="propose", targets=(0, 1))
    assert_refused(s, GameOver, "game_over", seat=2, kind="vote", choice="approve")
    done = _assassination()
    done, _ = act(done, 3, "assassinate", (0,))
    assert done.over
    assert_refused(done, GameOver, "game_over", seat=3, kind="assassinate", targets=(2,))
