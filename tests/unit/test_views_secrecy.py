"""Per-seat views: each seat sees exactly what the rules let it know."""
from __future__ import annotations

import json
import random

from engine import GameConfig, new_game, public_view, view
from tests.builder import make_state
from tests.helpers import act, play, propose, run_quest, scrambled, vote

FIVE = ["merlin", "minion", "servant", "assassin", "servant"]
SEVEN = ["merlin", "minion", "percival", "assassin", "morgana", "servant", "servant"]


def _types(events):
    return [e.type for e in events]


def test_view_shows_only_the_seats_own_role_side_and_knowledge():
    s = make_state(SEVEN, leader=0)
    pub = public_view(s)
    assert "roles" not in pub and "sides" not in pub
    for seat in range(7):
        you = view(s, seat)["you"]
        assert you["seat"] == seat and you["role"] == SEVEN[seat]
        assert you["side"] == s.sides[seat].value
        assert you["knowledge"] == [k.model_dump() for k in s.knowledge[seat]]
        # Changing anything about the other seats changes nothing in this seat's view.
        rng = random.Random(seat)
        for _ in range(3):
            assert view(scrambled(s, seat, rng), seat) == view(s, seat)


def test_role_dealt_events_are_private_to_their_seat():
    state, events = new_game(GameConfig(players=7, roles=("merlin", "assassin")), 5)
    dealt = [e for e in events if e.type == "RoleDealt"]
    assert len(dealt) == 7
    for e in dealt:
        (seat,) = e.to
        assert e.data["role"] == state.roles[seat]
    for e in events:
        if e.to is None:
            assert not {"role", "roles", "side", "sides"} & set(e.data)


def test_votes_are_revealed_together():
    s = make_state(FIVE, leader=0)
    s, _ = propose(s, (0, 2))
    choices = ["approve", "reject", "approve", "reject", "approve"]
    for seat, choice in enumerate(choices):
        s, ev = act(s, seat, "vote", choice=choice)
        cast = [e for e in ev if e.type == "VoteCast"]
        assert cast and cast[0].to is None and "choice" not in cast[0].data and "approve" not in cast[0].data
        if seat < 4:
            assert "VotesRevealed" not in _types(ev)
            assert s.proposals[-1].votes == ""
            for viewer in range(5):
                v = view(s, viewer)
                assert v["proposals"][-1]["votes"] == ""
                assert v["voted"] == list(range(seat + 1))  # who has voted is public, not how
                assert v["you"]["vote"] == (choices[viewer] if viewer <= seat else None)
                # Flipping the other seats' votes changes nothing this seat sees.
                assert view(scrambled(s, viewer, random.Random(viewer)), viewer) == v
        else:
            revealed = [e for e in ev if e.type == "VotesRevealed"]
            assert len(revealed) == 1 and revealed[0].to is None
            assert revealed[0].data == {"approve": [0, 2, 4], "reject": [1, 3], "approved": True}
            assert public_view(s)["proposals"][-1]["votes"] == "ARARA"


def test_quest_result_reveals_counts_only_never_who_played_what():
    s = make_state(SEVEN, leader=0)
    s, _ = run_quest(s, (0, 2))
    s, _ = propose(s, (1, 3, 5))
    s, _ = vote(s)
    s, ev1 = act(s, 1, "play", choice="fail")
    # During the quest a team member sees their own card only; the table sees who has played.
    assert view(s, 1)["you"]["card"] == "fail"
    assert view(s, 3)["you"]["card"] is None
    assert public_view(s)["played"] == [1]
    assert [e.data for e in ev1 if e.type == "CardPlayed"] == [{"seat": 1, "count": 1, "of": 3}]
    s, ev2 = act(s, 3, "play", choice="success")
    s, ev3 = act(s, 5, "play", choice="success")
    done = [e for e in ev3 if e.type == "QuestCompleted"]
    assert len(done) == 1 and done[0].to is None
    assert done[0].data["cards"] == {"fail": 1, "success": 2} and done[0].data["success"] is False
    for e in ev1 + ev2 + ev3:
        assert "choice" not in e.data and "card" not in e.data
    # No view, now or later, tells who played the Fail: swapping the cards changes nothing.
    swapped = s.model_copy(deep=True)
    swapped.cards = {1: "success", 3: "fail", 5: "success"}
    for seat in range(7):
        assert view(swapped, seat) == view(s, seat)
        mine = {k: v for k, v in view(s, seat)["you"].items() if k != "cards"}  # (cards: what it may play)
        assert "fail" not in json.dumps(mine)


def test_who_played_what_stays_hidden_after_the_game_ends():
    s = make_state(FIVE, leader=0)
    s, _ = run_quest(s, (0, 1), fails={1})
    s, _ = run_quest(s, (0, 2, 4))
    s, _ = run_quest(s, (1, 3), fails={3})
    s, _ = propose(s, (1, 2, 3))
    s, _ = vote(s)
    s, _ = play(s, fails={1})
    assert s.over
    for seat in range(5):
        v = view(s, seat)
        assert v["you"]["card"] is None
        assert view(scrambled(s, seat, random.Random(seat)), seat) == v
    assert [q["cards"] for q in public_view(s)["quests"]][-1] == {"fail": 1, "success": 2}


def test_roles_and_sides_are_public_once_the_game_ends():
    s = make_state(FIVE, leader=0)
    for _ in range(5):
        s, _ = propose(s, (0, 2))
        s, _ = vote(s, approve=())
    assert s.over
    pub = public_view(s)
    assert pub["roles"] == FIVE and pub["sides"] == [x.value for x in s.sides]
    assert pub["winner"] == "evil" and pub["win_reason"] == "five_rejections"


def test_lady_of_the_lake_holder_is_public_and_the_result_private():
    roles = ["servant", "minion", "servant", "assassin", "servant", "servant", "minion", "merlin"]
    s = make_state(roles, leader=0, options={"lady_of_the_lake": True})
    s, _ = run_quest(s, (0, 2, 4))
    s, _ = run_quest(s, (0, 2, 4, 5))
    holder = 7
    assert public_view(s)["waiting"] == {"kind": "lady", "seats": [holder], "hidden": False}
    s, ev = act(s, holder, "lady", (1,))
    assert [e.data for e in ev if e.type == "LadyUsed"] == [{"holder": holder, "target": 1, "quest_count": 2}]
    seen = [e for e in ev if e.type == "LoyaltySeen"]
    assert seen[0].to == (holder,)
    for seat in range(8):
        lady = [k for k in view(s, seat)["you"]["knowledge"] if k["source"] == "lady"]
        assert lady == ([{"seat": 1, "label": "evil", "source": "lady", "quest": None}] if seat == holder else [])
    assert public_view(s)["lady"] == {"holder": 1, "held": [holder],
                                      "uses": [{"round": 2, "quest": 1, "holder": holder, "target": 1}]}
    # The public view says who examined whom, never what was seen: another answer changes nothing.
    for seat in range(8):
        if seat != holder:
            assert public_view(scrambled(s, seat, random.Random(seat))) == public_view(s)


def test_views_do_not_change_the_state():
    s = make_state(SEVEN, leader=2, options={"lady_of_the_lake": True, "targeting": True})
    before = s.model_dump()
    for seat in range(7):
        view(s, seat)
    public_view(s)
    assert s.model_dump() == before
