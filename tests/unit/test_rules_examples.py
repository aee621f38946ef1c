"""The worked examples of the rulebooks (000 Avalon, 002 Avalon Big Box, 003 The Resistance), step by step.

Seats follow the examples' names clockwise: Walter, Thomas, Laura, Evie, Justin (+ Margaret, Don).
"""
from __future__ import annotations

import pytest

from engine import Side, prompts, public_view, view
from engine.errors import InvalidTarget, NotYourTurn
from tests.builder import make_state
from tests.helpers import (
    DON,
    EVIE,
    JUSTIN,
    LAURA,
    MARGARET,
    THOMAS,
    WALTER,
    act,
    play,
    propose,
    reject,
    run_quest,
    vote,
)

# Assassination example: Walter, Justin and Laura are Good; Evie and Thomas are Evil.
# Walter is Merlin, Evie is the Assassin.
FIVE = ["merlin", "minion", "servant", "assassin", "servant"]


def _types(events):
    return [e.type for e in events]


def test_example_first_quest_walter_and_thomas_one_fail_fails_the_quest():
    s = make_state(FIVE, leader=WALTER)
    # "The first Quest in a five player game requires a Team of two players."
    assert prompts(s, WALTER)[0].pick == 2
    # "The Leader passes Team tokens to Walter (himself) and Thomas, then calls for a Vote."
    s, ev = propose(s, (WALTER, THOMAS))
    assert s.stage == "vote" and s.team == [WALTER, THOMAS]
    # "Walter, Thomas, Laura, and Evie approve, and Justin rejects. The Team is approved."
    s, ev = vote(s, approve={WALTER, THOMAS, LAURA, EVIE})
    assert "TeamApproved" in _types(ev) and s.stage == "quest"
    assert s.proposals[-1].votes == "AAAAR"
    # "Walter selects the Success card ... Thomas places the Fail card."
    s, _ = act(s, WALTER, "play", choice="success")
    s, ev = act(s, THOMAS, "play", choice="fail")
    # "... revealing that the Mission failed. Place a Red Score Marker on the first Mission space."
    done = [e for e in ev if e.type == "QuestCompleted"][0]
    assert done.data["quest"] == 0 and done.data["success"] is False
    assert done.data["cards"] == {"fail": 1, "success": 1}
    assert s.results == [False, None, None, None, None]
    # "advance the Round Marker to the second Mission space ... reset the vote track ... Leader clockwise."
    assert s.round == 2 and s.vote_track == 0
    assert s.leader == THOMAS and s.stage == "team"
    assert prompts(s, THOMAS)[0].pick == 3  # the 2nd quest of 5 players needs 3
    assert not s.over


def test_example_first_quest_vote_track_resets_after_the_quest():
    # Justin leads first and is rejected; Walter leads next (clockwise) and plays the example.
    s = make_state(FIVE, leader=JUSTIN)
    s, _ = reject(s, (JUSTIN, LAURA))
    assert s.vote_track == 1 and s.leader == WALTER
    s, _ = run_quest(s, (WALTER, THOMAS), fails={THOMAS})
    assert s.results[0] is False
    assert s.vote_track == 0
    assert s.leader == THOMAS


def _seven(leader=WALTER, options=None):
    # 7 players: 4 Good (Walter, Laura, Justin, Margaret), 3 Evil (Thomas, Evie, Don).
    roles = ["servant", "minion", "servant", "assassin", "servant", "servant", "minion"]
    return make_state(roles, leader=leader, options=options)


def _to_fourth_quest(s):
    """Quests 1-3: Fail, Success, Fail (so the 4th quest decides whether the game goes on)."""
    s, _ = run_quest(s, (THOMAS, LAURA), fails={THOMAS})
    s, _ = run_quest(s, (WALTER, LAURA, JUSTIN))
    s, _ = run_quest(s, (WALTER, EVIE, JUSTIN), fails={EVIE})
    assert s.results[:3] == [False, True, False]
    return s


def test_example_fourth_quest_seven_players_one_fail_still_succeeds():
    s = _to_fourth_quest(_seven())
    assert prompts(s, s.leader)[0].pick == 4
    s, ev = run_quest(s, (THOMAS, EVIE, LAURA, JUSTIN), fails={THOMAS})
    done = [e for e in ev if e.type == "QuestCompleted"][0].data
    assert done["fails"] == 1 and done["fails_needed"] == 2 and done["success"] is True
    assert s.results[3] is True and not s.over


def test_example_fourth_quest_seven_players_two_fails_fail():
    s = _to_fourth_quest(_seven())
    s, ev = run_quest(s, (THOMAS, EVIE, LAURA, JUSTIN), fails={THOMAS, EVIE})
    done = [e for e in ev if e.type == "QuestCompleted"][0].data
    assert done["fails"] == 2 and done["success"] is False
    assert s.over and s.winner is Side.EVIL and s.win_reason == "three_failures"


@pytest.mark.parametrize("players", [5, 6])
def test_fourth_quest_under_seven_players_one_fail_fails(players):
    roles = ["servant", "minion", "servant", "minion", "servant", "servant"][:players]
    good = [WALTER, LAURA, JUSTIN, MARGARET][: players - 2]
    s = make_state(roles, leader=WALTER)
    s, _ = run_quest(s, (THOMAS, LAURA), fails={THOMAS})
    s, _ = run_quest(s, good[:3])
    s, _ = run_quest(s, good[: prompts(s, s.leader)[0].pick])
    assert s.results[:3] == [False, True, True]
    s, ev = run_quest(s, (THOMAS, LAURA, JUSTIN), fails={THOMAS})
    done = [e for e in ev if e.type == "QuestCompleted"][0].data
    assert done["fails_needed"] == 1 and done["success"] is False
    assert s.results[3] is False


def test_example_fourth_quest_with_targeting_played_in_first_round_one_fail_succeeds():
    s = _seven(options={"targeting": True})
    p = prompts(s, s.leader)[0]
    assert p.quests == [0, 1, 2, 3] and p.info["sizes"]["3"] == 4
    s, ev = run_quest(s, (THOMAS, EVIE, LAURA, JUSTIN), fails={THOMAS}, quest=3)
    done = [e for e in ev if e.type == "QuestCompleted"][0].data
    assert done["quest"] == 3 and done["fails_needed"] == 2 and done["success"] is True
    assert s.results == [None, None, None, True, None]


def test_example_fourth_quest_with_targeting_played_in_second_round_two_fails_fail():
    s = _seven(options={"targeting": True})
    s, _ = run_quest(s, (WALTER, LAURA), quest=0)
    s, ev = run_quest(s, (THOMAS, EVIE, LAURA, JUSTIN), fails={THOMAS, EVIE}, quest=3)
    done = [e for e in ev if e.type == "QuestCompleted"][0].data
    assert done["quest"] == 3 and done["fails"] == 2 and done["success"] is False
    assert s.results == [True, None, None, False, None]
    assert s.quests[-1].round == 2


def test_example_five_consecutive_rejections_evil_wins_at_once():
    s = make_state(FIVE, leader=LAURA)
    leaders = []
    for i in range(4):
        leaders.append(s.leader)
        s, _ = reject(s)
        assert s.vote_track == i + 1 and not s.over
    assert leaders == [LAURA, EVIE, JUSTIN, WALTER]
    s, ev = reject(s)
    assert s.over and s.winner is Side.EVIL and s.win_reason == "five_rejections"
    assert s.winners == [THOMAS, EVIE]
    # At once: no assassination stage even though Merlin is in play.
    assert "AssassinationStarted" not in _types(ev) and not s.pending
    assert all(not prompts(s, seat) for seat in range(5))


def test_rejections_count_only_within_a_round():
    s = make_state(FIVE, leader=WALTER)
    for _ in range(4):
        s, _ = reject(s)
    s, _ = run_quest(s, (WALTER, LAURA))
    for _ in range(4):
        s, _ = reject(s)
    assert not s.over and s.vote_track == 4


def _assassination_example():
    """The example's game: the fifth Quest succeeds and the game ends with three successes."""
    s = make_state(FIVE, leader=WALTER)
    s, _ = run_quest(s, (WALTER, LAURA))
    s, _ = run_quest(s, (WALTER, THOMAS, LAURA), fails={THOMAS})
    s, _ = run_quest(s, (LAURA, JUSTIN))
    s, _ = run_quest(s, (WALTER, EVIE, JUSTIN), fails={EVIE})
    s, ev = run_quest(s, (WALTER, LAURA, JUSTIN))
    assert s.results == [True, False, True, False, True]
    assert "AssassinationStarted" in _types(ev)
    return s


def test_example_assassin_names_laura_not_merlin_good_wins():
    s = _assassination_example()
    # Evil's last chance: only Evie, the Assassin, acts; she cannot name herself or Thomas (known Evil).
    assert [seat for seat in range(5) if prompts(s, seat)] == [EVIE]
    assert prompts(s, EVIE)[0].targets == [WALTER, LAURA, JUSTIN]
    assert not s.over
    s, ev = act(s, EVIE, "assassinate", (LAURA,))
    attempt = [e for e in ev if e.type == "AssassinationAttempted"][0].data
    assert attempt == {"assassin": EVIE, "target": LAURA, "hit": False}
    assert s.over and s.winner is Side.GOOD and s.win_reason == "assassination_missed"
    assert s.winners == [WALTER, LAURA, JUSTIN]


def test_example_assassin_names_walter_merlin_evil_wins():
    s = _assassination_example()
    s, ev = act(s, EVIE, "assassinate", (WALTER,))
    assert [e for e in ev if e.type == "AssassinationAttempted"][0].data["hit"] is True
    assert s.over and s.winner is Side.EVIL and s.win_reason == "merlin_assassinated"
    assert s.winners == [THOMAS, EVIE]


def _lady_example():
    # Don (Evil) sits on the right of Walter, the first Leader; Margaret is Good.
    roles = ["merlin", "minion", "servant", "assassin", "servant", "servant", "minion"]
    return make_state(roles, leader=WALTER, options={"lady_of_the_lake": True})


def test_example_lady_of_the_lake_starts_with_don_on_the_leaders_right():
    s = _lady_example()
    assert public_view(s)["lady"] == {"holder": DON, "held": [], "uses": []}
    roles = ["servant", "minion", "servant", "assassin", "servant", "merlin", "minion"]
    s2 = make_state(roles, leader=EVIE, options={"lady_of_the_lake": True})
    assert public_view(s2)["lady"]["holder"] == LAURA


def test_example_lady_of_the_lake_don_examines_margaret_and_token_passes():
    s = _lady_example()
    # "The first Quest ends in success" - no Lady after the first quest.
    s, ev = run_quest(s, (WALTER, LAURA))
    assert "LadyUsed" not in _types(ev) and s.stage == "team" and not prompts(s, DON)
    # "the second Quest is a failure" - now Don, as the Lady of the Lake, chooses whom to examine.
    s, ev = run_quest(s, (THOMAS, LAURA, JUSTIN), fails={THOMAS})
    assert [seat for seat in range(7) if prompts(s, seat)] == [DON]
    assert DON not in prompts(s, DON)[0].targets
    next_leader = (s.leader + 1) % 7
    with pytest.raises(NotYourTurn):  # the next Leader waits for the Lady
        act(s, next_leader, "propose", (WALTER, LAURA, JUSTIN))
    s, ev = act(s, DON, "lady", (MARGARET,))
    # Margaret passes the Good card to Don: only Don sees it.
    seen = [e for e in ev if e.type == "LoyaltySeen"]
    assert len(seen) == 1 and seen[0].to == (DON,)
    assert seen[0].data == {"seat": MARGARET, "side": "good", "source": "lady"}
    assert (MARGARET, "good", "lady") in {(k["seat"], k["label"], k["source"]) for k in view(s, DON)["you"]["knowledge"]}
    for other in range(7):
        if other != DON:
            assert not [k for k in view(s, other)["you"]["knowledge"] if k["source"] == "lady"]
    # Don passes the token to Margaret; the game goes on with the next Leader.
    # Who examined whom is public (the history tells it); what Don saw is not.
    assert public_view(s)["lady"] == {"holder": MARGARET, "held": [DON],
                                      "uses": [{"round": 2, "quest": 1, "holder": DON, "target": MARGARET}]}
    assert s.leader == next_leader and s.stage == "team"


def test_example_lady_of_the_lake_margaret_cannot_examine_don():
    s = _lady_example()
    s, _ = run_quest(s, (WALTER, LAURA))
    s, _ = run_quest(s, (THOMAS, LAURA, JUSTIN), fails={THOMAS})
    s, _ = act(s, DON, "lady", (MARGARET,))
    # "Margaret will be able to examine another player's loyalty after the third quest is resolved."
    s, _ = run_quest(s, (WALTER, LAURA, JUSTIN))
    assert [seat for seat in range(7) if prompts(s, seat)] == [MARGARET]
    targets = prompts(s, MARGARET)[0].targets
    assert DON not in targets and MARGARET not in targets
    before = s.model_dump()
    with pytest.raises(InvalidTarget):
        act(s, MARGARET, "lady", (DON,))
    assert s.model_dump() == before
    s, ev = act(s, MARGARET, "lady", (THOMAS,))
    assert [e for e in ev if e.type == "LoyaltySeen"][0].data["side"] == "evil"


def test_lady_of_the_lake_is_used_only_after_quests_two_three_and_four():
    s = _lady_example()
    used_after = []
    plan = [
        ((WALTER, LAURA), set()),
        ((THOMAS, LAURA, JUSTIN), {THOMAS}),
        ((THOMAS, LAURA, JUSTIN), {THOMAS}),
        ((WALTER, EVIE, LAURA, JUSTIN), {EVIE}),  # one Fail is not enough on the 4th quest
        ((WALTER, LAURA, JUSTIN, MARGARET), set()),
    ]
    holder_chain = [DON]
    for team, fails in plan:
        if s.over:
            break
        s, _ = propose(s, team)
        s, _ = vote(s)
        s, _ = play(s, fails)
        if s.pending and s.pending[0].kind == "lady":
            used_after.append(len(s.quests))
            holder = s.pending[0].actors[0]
            target = prompts(s, holder)[0].targets[0]
            s, _ = act(s, holder, "lady", (target,))
            holder_chain.append(target)
    assert s.results == [True, False, False, True, True]
    assert used_after == [2, 3, 4]
    assert len(set(holder_chain)) == 4
    assert public_view(s)["lady"]["held"] == holder_chain[:3]
