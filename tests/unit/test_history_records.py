"""What the engine keeps for the end's history (pure data in the public view), and that it never tells
a secret early: timed-out turns (hidden ones only once the game is over), the Lady of the Lake's
examinations (who examined whom, never what they saw), the assassination once it is announced."""
from __future__ import annotations

import random

from engine import Action, GameConfig, apply_action, prompts, public_view
from engine.policy import ai_seat_move
from tests.builder import make_state
from tests.helpers import act, propose, run_quest, scrambled
from tests.unit.bigbox_characters_helpers import find_game

BASE5 = ["merlin", "servant", "servant", "assassin", "minion"]


def timeout(state, seat):
    return apply_action(state, Action(seat=seat, kind="timeout"))


def finish(state, seed=0):
    rng = random.Random(seed)
    while not state.over:
        seat = next(x for x in range(state.n) if prompts(state, x))
        state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    return state


def test_open_timeouts_are_recorded_where_they_happened_and_shown_at_once():
    s = make_state(BASE5, leader=0)
    assert "timeouts" not in public_view(s)
    s, _ = timeout(s, 0)  # no team proposed: Bob leads next
    s, _ = propose(s, (1, 2))
    s, _ = timeout(s, 3)  # Dave does not vote
    for seat in (0, 1, 2, 4):
        s, _ = act(s, seat, "vote", choice="approve")
    s, _ = timeout(s, 2)  # Carol does not play her card
    expected = [
        {"round": 1, "when": "turn", "proposals": 0, "seat": 0, "kind": "propose", "hidden": False},
        {"round": 1, "when": "proposal", "proposals": 1, "seat": 3, "kind": "vote", "hidden": False},
        {"round": 1, "when": "quest", "proposals": 1, "seat": 2, "kind": "play", "hidden": False},
    ]
    assert public_view(s)["timeouts"] == expected


LADY_7 = ["merlin", "servant", "servant", "troublemaker", "assassin", "trickster", "minion"]
HOLDER, TRICKSTER = 6, 5


def test_a_hidden_timeout_stays_out_of_the_public_view_until_the_game_is_over():
    s = make_state(LADY_7, options={"lady_of_the_lake": True})
    s, _ = run_quest(s, (1, 2))
    s, _ = run_quest(s, (1, 2, 4), fails=(4,))
    s, _ = timeout(s, HOLDER)  # the Lady's holder: an open decision, after the second quest
    (checked,) = public_view(s)["lady"]["uses"]
    assert checked["holder"] == HOLDER and checked["round"] == 2
    assert s.pending and s.pending[0].hidden  # the Trickster may lie: every check is a hidden decision
    target = s.pending[0].actors[0]
    s, _ = timeout(s, target)
    pv = public_view(s)
    assert pv["timeouts"] == [
        {"round": 2, "when": "after_quest", "proposals": 2, "seat": HOLDER, "kind": "lady", "hidden": False}]
    assert str(pv).count("loyalty_card") == 0
    for seat in range(7):  # nobody's view, and no other secret, tells whose hidden decision it was
        assert public_view(scrambled(s, seat, random.Random(seat)))["timeouts"] == pv["timeouts"]
    over = finish(s)
    hidden = [e for e in public_view(over)["timeouts"] if e["hidden"]]
    assert hidden == [{"round": 2, "when": "after_quest", "proposals": 2, "seat": target, "kind": "loyalty_card",
                       "hidden": True}]


def _three_successes(roles, options=None, leader=0):
    s = make_state(roles, leader=leader, options=options)
    good = [x for x in range(s.n) if s.sides[x].value == "good"]
    for _ in range(3):
        s, _ = run_quest(s, good[: prompts(s, s.leader)[0].pick])
    return s


def test_the_assassination_is_public_once_it_starts_and_names_who_assassinates():
    s = make_state(BASE5, leader=0)
    assert "assassination" not in public_view(s)
    s = _three_successes(BASE5)
    assert public_view(s)["assassination"] == {"assassin": 3, "kind": "merlin", "named": [], "hit": None}
    s, _ = timeout(s, 3)  # out of time: a random player is named, and that is public too
    pv = public_view(s)
    assert s.over and pv["assassination"]["assassin"] == 3 and len(pv["assassination"]["named"]) == 1
    assert pv["assassination"]["hit"] == (pv["win_reason"] == "merlin_assassinated")
    assert pv["timeouts"] == [{"round": 4, "when": "end", "proposals": 3, "seat": 3, "kind": "assassinate",
                               "hidden": False}]


def test_a_recruited_servant_is_the_one_the_view_says_assassinated():
    roles = ["merlin", "untrustworthy_servant", "servant", "assassin", "minion", "servant", "minion"]
    s = _three_successes(roles)
    s, _ = act(s, 3, "recruit", (1,))
    s, _ = act(s, 1, "assassinate", (0,))
    assert public_view(s)["assassination"] == {"assassin": 1, "kind": "merlin", "named": [0], "hit": True}


def test_with_two_targets_the_view_keeps_the_announced_one():
    config = GameConfig(players=8, roles=("merlin", "assassin", "good_messenger", "good_messenger", "evil_messenger"))
    _, s, _ = find_game(config, lambda st, ev: True)
    good = [x for x in range(s.n) if s.sides[x].value == "good"]
    for _ in range(3):
        s, _ = run_quest(s, good[: prompts(s, s.leader)[0].pick])
    assassin = s.pending[0].actors[0]
    assert public_view(s)["assassination"] == {"assassin": assassin, "kind": None, "named": [], "hit": None}
    s, _ = act(s, assassin, "assassin_target", choice="messengers")
    assert public_view(s)["assassination"]["kind"] == "messengers"
    messengers = [x for x in range(8) if s.roles[x] == "good_messenger"]
    s, _ = act(s, assassin, "assassinate", tuple(messengers))
    pv = public_view(s)
    assert pv["assassination"] == {"assassin": assassin, "kind": "messengers", "announced": True,
                                   "named": messengers, "hit": True}
    assert pv["win_reason"] == "messengers_assassinated"
