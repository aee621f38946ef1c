"""Round rules: team building, the vote, the quest, the end of the game, assassination, Targeting."""
from __future__ import annotations

import pytest

from engine import GameConfig, Side, allowed_cards, new_game, prompts
from engine.errors import (
    AlreadyActed,
    CardNotAllowed,
    DuplicatePlayer,
    InvalidChoice,
    NotOnTeam,
    WrongTeamSize,
)
from engine.plugin import Ctx
from tests.builder import make_state
from tests.helpers import TEAM_CHART, act, play, propose, reject, run_quest, vote

FIVE = ["merlin", "minion", "servant", "assassin", "servant"]  # Walter, Thomas, Laura, Evie, Justin
SIX = ["servant", "minion", "servant", "assassin", "servant", "merlin"]


def _types(events):
    return [e.type for e in events]


# ---------------------------------------------------------------------------------------------
# Team building
# ---------------------------------------------------------------------------------------------


def test_leader_may_include_themself_or_not():
    s = make_state(FIVE, leader=2)
    with_leader, _ = propose(s, (2, 4))
    without_leader, _ = propose(s, (0, 4))
    assert with_leader.team == [2, 4] and without_leader.team == [0, 4]
    assert with_leader.stage == without_leader.stage == "vote"


def test_team_is_exactly_the_required_number_of_distinct_players():
    s = make_state(FIVE, leader=0)
    with pytest.raises(WrongTeamSize):
        propose(s, (0,))
    with pytest.raises(WrongTeamSize):
        propose(s, (0, 1, 2))
    with pytest.raises(DuplicatePlayer):
        propose(s, (3, 3))
    ok, ev = propose(s, (1, 3))
    assert ok.team == [1, 3]
    assert [e.data for e in ev if e.type == "TeamProposed"] == [
        {"leader": 0, "team": [1, 3], "quest": 0, "attempt": 1}
    ]


# ---------------------------------------------------------------------------------------------
# The vote
# ---------------------------------------------------------------------------------------------


def test_every_player_votes_once():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 2))
    assert sorted(seat for seat in range(5) if prompts(s, seat)) == [0, 1, 2, 3, 4]
    s, _ = act(s, 3, "vote", choice="approve")
    assert not prompts(s, 3)
    with pytest.raises(AlreadyActed):
        act(s, 3, "vote", choice="reject")
    for seat in (0, 1, 2):
        s, _ = act(s, seat, "vote", choice="approve")
    assert s.stage == "vote"  # still waiting for seat 4
    s, ev = act(s, 4, "vote", choice="reject")
    assert "VotesRevealed" in _types(ev) and s.stage == "quest"


def test_vote_choice_must_be_approve_or_reject():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 2))
    with pytest.raises(InvalidChoice):
        act(s, 1, "vote", choice="abstain")


@pytest.mark.parametrize("players", range(5, 11))
def test_majority_approves_and_a_tie_rejects(players):
    roles = (["servant"] * 6)[: players - (2 if players < 7 else 3 if players < 10 else 4)]
    roles += ["minion"] * (players - len(roles))
    s = make_state(roles, leader=0)
    team = range(TEAM_CHART[players][0])
    s, _ = propose(s, team)
    majority = players // 2 + 1
    approved, ev = vote(s, approve=range(majority))
    assert approved.proposals[-1].approved is True and approved.stage == "quest"
    below, ev = vote(s, approve=range(majority - 1))
    assert below.proposals[-1].approved is False and below.stage == "team"
    if players % 2 == 0:  # a tie is a rejection
        assert majority - 1 == players // 2
        assert "TeamRejected" in _types(ev)


def test_leadership_passes_to_the_next_seat_after_a_rejection():
    s = make_state(FIVE, leader=3)
    s, ev = reject(s)
    assert s.leader == 4 and s.vote_track == 1
    s, ev = reject(s)
    assert s.leader == 0  # clockwise wraps around the table
    assert [e.data["leader"] for e in ev if e.type == "TeamRequested"] == [0]


def test_leadership_passes_to_the_next_seat_after_a_quest():
    s = make_state(FIVE, leader=4)
    s, ev = run_quest(s, (0, 2))
    assert s.leader == 0 and s.round == 2
    s, ev = run_quest(s, (0, 2, 4))
    assert s.leader == 1 and s.round == 3
    assert [p.leader for p in s.proposals] == [4, 0]


# ---------------------------------------------------------------------------------------------
# The quest
# ---------------------------------------------------------------------------------------------


def test_only_team_members_play_quest_cards():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 1))
    s, _ = vote(s)
    assert sorted(seat for seat in range(5) if prompts(s, seat)) == [0, 1]
    for outsider in (2, 3, 4):
        with pytest.raises(NotOnTeam):
            act(s, outsider, "play", choice="success")


def test_good_must_play_success():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 2))
    s, _ = vote(s)
    for good in (0, 2):
        assert prompts(s, good)[0].choices == ["success"]
        with pytest.raises(CardNotAllowed) as err:
            act(s, good, "play", choice="fail")
        assert "Success" in err.value.reason


def test_evil_may_choose_success_or_fail():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (1, 3))
    s, _ = vote(s)
    for evil in (1, 3):
        assert sorted(prompts(s, evil)[0].choices) == ["fail", "success"]
        assert sorted(allowed_cards(Ctx(s), evil)) == ["fail", "success"]
    succeeded, _ = play(s, fails=())
    assert succeeded.results[0] is True
    failed, _ = play(s, fails={3})
    assert failed.results[0] is False


def test_every_team_member_plays_one_card():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (1, 3))
    s, _ = vote(s)
    s, _ = act(s, 1, "play", choice="fail")
    with pytest.raises(AlreadyActed):
        act(s, 1, "play", choice="success")


# ---------------------------------------------------------------------------------------------
# The end of the game
# ---------------------------------------------------------------------------------------------


def test_three_successes_end_the_game_without_merlin_good_wins():
    s = make_state(["servant", "minion", "servant", "minion", "servant"], leader=0)
    s, _ = run_quest(s, (0, 2))
    s, _ = run_quest(s, (0, 1, 2), fails={1})
    s, _ = run_quest(s, (2, 4))
    assert not s.over
    s, ev = run_quest(s, (0, 2, 4))
    assert s.over and s.winner is Side.GOOD and s.win_reason == "three_successes"
    assert s.winners == [0, 2, 4]
    assert "AssassinationStarted" not in _types(ev)
    ended = [e for e in ev if e.type == "GameEnded"][0]
    assert ended.to is None and ended.data["roles"] == s.roles


def test_three_failures_end_the_game_evil_wins_without_assassination():
    s = make_state(FIVE, leader=0)
    s, _ = run_quest(s, (0, 1), fails={1})
    s, _ = run_quest(s, (0, 2, 4))
    s, _ = run_quest(s, (1, 3), fails={3})
    assert not s.over
    s, ev = run_quest(s, (1, 2, 3), fails={1, 3})
    assert s.over and s.winner is Side.EVIL and s.win_reason == "three_failures"
    assert s.winners == [1, 3]
    assert "AssassinationStarted" not in _types(ev) and not s.pending


def _three_successes(roles, assassin=None, options=None):
    s = make_state(roles, leader=0, assassin=assassin, options=options)
    good = [x for x in range(s.n) if s.sides[x] is Side.GOOD]
    for _ in range(3):
        size = prompts(s, s.leader)[0].pick
        s, ev = run_quest(s, good[:size])
    return s, ev


def test_assassination_only_when_merlin_is_in_play_and_good_won_by_quests():
    s, ev = _three_successes(FIVE)
    assert not s.over and s.winner is Side.GOOD  # provisional: the Assassin may still win
    assert [e.data for e in ev if e.type == "AssassinationStarted"] == [{"assassin": 3, "choices": ["merlin"]}]
    assert [seat for seat in range(5) if prompts(s, seat)] == [3]
    assert prompts(s, 3)[0].kind == "assassinate"


def test_assassin_cannot_name_themself_or_known_evil():
    s, _ = _three_successes(FIVE)
    targets = prompts(s, 3)[0].targets
    assert 3 not in targets and 1 not in targets
    assert set(targets) == {0, 2, 4}


def test_with_merlin_and_no_assassin_card_the_designated_evil_character_assassinates():
    roles = ["merlin", "morgana", "servant", "percival", "minion", "servant", "minion"]
    s, _ = _three_successes(roles, assassin="morgana")
    assert [seat for seat in range(7) if prompts(s, seat)] == [1]
    s, _ = act(s, 1, "assassinate", (0,))
    assert s.winner is Side.EVIL and s.win_reason == "merlin_assassinated"


def test_with_merlin_and_no_assassin_card_a_minion_assassinates_by_default():
    roles = ["merlin", "morgana", "servant", "percival", "minion", "servant", "minion"]
    s, _ = _three_successes(roles)
    actor = [seat for seat in range(7) if prompts(s, seat)]
    assert actor == [4] and s.roles[4] == "minion"
    s, _ = act(s, 4, "assassinate", (2,))
    assert s.winner is Side.GOOD and s.win_reason == "assassination_missed"


def test_assassination_with_a_designated_oberon_may_name_anyone_else():
    # Oberon does not know the Evil team, so every other seat is a possible target.
    roles = ["merlin", "oberon", "servant", "percival", "morgana", "servant", "mordred"]
    s, _ = _three_successes(roles, assassin="oberon")
    assert prompts(s, 1)[0].targets == [0, 2, 3, 4, 5, 6]


# ---------------------------------------------------------------------------------------------
# Targeting
# ---------------------------------------------------------------------------------------------


def _targeting(players=8):
    good = {5: 3, 6: 4, 7: 4, 8: 5, 9: 6, 10: 6}[players]
    roles = ["servant"] * good + ["minion"] * (players - good)
    return make_state(roles, leader=0, options={"targeting": True})


def test_targeting_leader_picks_the_quest_with_the_team():
    s = _targeting(8)
    p = prompts(s, 0)[0]
    assert p.quests == [0, 1, 2, 3]  # the 5th is closed until two successes
    assert p.info["sizes"] == {str(q): TEAM_CHART[8][q] for q in range(4)}
    with pytest.raises(InvalidChoice):  # the Leader must say which quest
        propose(s, (0, 1, 2))
    # Rulebook: "in a game of 8 Players, the leader chooses to start the game by completing the 3rd Quest
    # which requires 4 Team members."
    s, ev = propose(s, (0, 1, 2, 3), quest=2)
    assert s.quest == 2 and [e.data["quest"] for e in ev if e.type == "TeamProposed"] == [2]
    s, _ = vote(s)
    s, _ = play(s)
    assert s.results == [None, None, True, None, None]


def test_targeting_team_size_comes_from_the_chosen_quest():
    s = _targeting(8)
    with pytest.raises(WrongTeamSize) as err:
        propose(s, (0, 1, 2), quest=2)
    assert err.value.params["size"] == 4
    s2, _ = propose(s, (0, 1, 2), quest=0)
    assert s2.team == [0, 1, 2]


def test_targeting_rejection_lets_the_next_leader_choose_again():
    s = _targeting(8)
    s, _ = propose(s, (0, 1, 2, 3), quest=2)
    s, _ = vote(s, approve=())
    assert s.quest is None and prompts(s, 1)[0].quests == [0, 1, 2, 3]


def test_targeting_each_quest_is_attempted_once():
    s = _targeting(8)
    s, _ = run_quest(s, (0, 1, 2), quest=0)
    p = prompts(s, s.leader)[0]
    assert 0 not in p.quests
    before = s.model_dump()
    with pytest.raises(InvalidChoice):
        propose(s, (0, 1, 2), quest=0)
    assert s.model_dump() == before


def test_targeting_fifth_quest_only_after_two_successes():
    s = _targeting(8)
    s, _ = run_quest(s, (0, 1, 2), quest=0)
    s, _ = run_quest(s, (0, 1, 5, 6), quest=1, fails={5})
    assert 4 not in prompts(s, s.leader)[0].quests
    with pytest.raises(InvalidChoice):
        propose(s, (0, 1, 2, 3, 4), quest=4)
    s, _ = run_quest(s, (0, 1, 2, 3), quest=2)
    assert s.results == [True, False, True, None, None]
    p = prompts(s, s.leader)[0]
    assert p.quests == [3, 4] and p.info["sizes"]["4"] == 5
    s, _ = run_quest(s, (0, 1, 2, 3, 4), quest=4)
    assert s.over and s.winner is Side.GOOD


def test_targeting_without_the_option_quests_go_in_order():
    s = make_state(FIVE, leader=0)
    assert prompts(s, 0)[0].quests == []
    with pytest.raises(InvalidChoice):
        propose(s, (0, 2), quest=2)
    s, _ = run_quest(s, (0, 2))
    assert prompts(s, s.leader)[0].pick == TEAM_CHART[5][1]


def test_first_team_request_names_the_leader_and_the_size():
    config = GameConfig(players=6, roles=("merlin", "assassin"))
    state, events = new_game(config, 4)
    requested = [e.data for e in events if e.type == "TeamRequested"]
    assert requested == [{"leader": state.leader, "attempt": 1, "quests": [0], "sizes": {"0": 2}}]
