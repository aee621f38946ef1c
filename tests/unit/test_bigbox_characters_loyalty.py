"""Cleric, Trickster and Troublemaker (Avalon Big Box p. 10): loyalty checks and the characters who lie."""
from __future__ import annotations

import pytest

from engine import GameConfig, Side, prompts, public_view, validate_config, view, waiting_for
from engine.errors import InvalidChoice
from tests.builder import make_state
from tests.helpers import act, run_quest
from tests.unit.bigbox_characters_helpers import do, find_game, private_to, same, seat_of

CLERIC_7 = ("merlin", "assassin", "cleric", "trickster", "troublemaker")


def _cleric_game(first_leader_role: str):
    config = GameConfig(players=7, roles=CLERIC_7)
    return find_game(config, lambda st, ev: st.roles[st.first_leader] == first_leader_role)[1:]


def _hand_over(state, target):
    """With a Trickster at the table every checked player hands over a Loyalty card in secret; a player
    who may not choose is offered exactly one card. Returns the state and events after handing it."""
    assert waiting_for(state) == {"kind": "loyalty_card", "seats": [], "hidden": True}
    (p,) = prompts(state, target)
    assert p.kind == "loyalty_card" and len(p.choices) == 1
    return do(state, target, "loyalty_card", choice=p.choices[0])


def _learned(state, seat, source):
    return [(k.seat, k.label) for k in state.knowledge[seat] if k.source == source]


def _codes(config):
    return {i.code for i in validate_config(config)}


# --- warnings ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["trickster", "troublemaker"])
def test_liars_recommended_only_with_a_loyalty_check(role):
    code = f"{role}_needs_loyalty_check"
    roles = ("merlin", "assassin", role)
    assert code in _codes(GameConfig(players=7, roles=roles))
    assert code not in _codes(GameConfig(players=7, roles=roles, options={"lady_of_the_lake": True}))
    assert code not in _codes(GameConfig(players=7, roles=roles + ("cleric",)))
    assert code not in _codes(GameConfig(players=7, roles=roles, options={"plot_cards": True}))
    # With 5-6 players the Plot deck has no card that checks loyalty.
    assert code in _codes(GameConfig(players=6, roles=roles, options={"plot_cards": True}))
    assert not [i for i in validate_config(GameConfig(players=7, roles=roles)) if i.level == "error"]


# --- Cleric ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("leader_role", ["merlin", "assassin", "servant", "minion"])
def test_cleric_learns_the_first_leaders_loyalty_at_the_reveal(leader_role):
    s, events = _cleric_game(leader_role)
    cleric, leader = seat_of(s, "cleric"), s.first_leader
    assert s.stage == "reveal"  # a Trickster plays: the Leader hands over a card like any checked player
    s, more = _hand_over(s, leader)
    events = events + more
    assert s.stage == "team"
    assert _learned(s, cleric, "cleric") == [(leader, s.sides[leader].value)]
    seen = private_to(events, "LoyaltySeen")
    assert [(e.to, e.data["seat"], e.data["side"]) for e in seen] == [
        ((cleric,), leader, s.sides[leader].value)
    ]
    # Only the Cleric learns it; the public knows nothing.
    assert all(not e.public for e in events if e.type.startswith("Loyalty"))
    assert {k["source"] for k in view(s, cleric)["you"]["knowledge"]} == {"cleric"}


def test_cleric_who_is_the_first_leader_checks_nobody():
    config = GameConfig(players=7, roles=("merlin", "assassin", "cleric", "troublemaker"))
    s, events = find_game(config, lambda st, ev: st.roles[st.first_leader] == "cleric")[1:]
    assert s.stage == "team"
    assert _learned(s, s.first_leader, "cleric") == []
    assert not private_to(events, "LoyaltySeen")


def test_cleric_who_is_the_first_leader_hands_their_own_card_when_a_trickster_plays():
    # With a Trickster at the table every check is a hidden decision: the Reveal pauses the same way
    # whoever leads first, and a Cleric who leads first hands their own Loyalty card to themself.
    s, _ = _cleric_game("cleric")
    cleric = s.first_leader
    assert waiting_for(s) == {"kind": "loyalty_card", "seats": [], "hidden": True}
    s, events = _hand_over(s, cleric)
    assert _learned(s, cleric, "cleric") == [(cleric, "good")]
    assert [e.to for e in events if e.type == "LoyaltySeen"] == [(cleric,)]
    assert not [e for e in events if e.type == "LoyaltyGiven"]  # nothing tells the Leader who looked
    assert s.stage == "team"


def test_cleric_sees_a_troublemaker_leader_as_evil():
    s, _ = _cleric_game("troublemaker")
    cleric, leader = seat_of(s, "cleric"), s.first_leader
    assert s.sides[leader] is Side.GOOD
    assert prompts(s, leader)[0].choices == ["evil"]  # the only card the Troublemaker may give
    s, _ = _hand_over(s, leader)
    assert _learned(s, cleric, "cleric") == [(leader, "evil")]


@pytest.mark.parametrize("shown", ["evil", "good"])
def test_cleric_checks_a_trickster_leader_who_decides_in_secret(shown):
    s, _ = _cleric_game("trickster")
    cleric, trickster = seat_of(s, "cleric"), s.first_leader
    # The reveal waits for the Trickster's hidden choice of Loyalty card.
    assert s.stage == "reveal"
    assert waiting_for(s) == {"kind": "loyalty_card", "seats": [], "hidden": True}
    assert public_view(s)["waiting"]["seats"] == []
    (p,) = prompts(s, trickster)
    assert p.kind == "loyalty_card" and set(p.choices) == {"good", "evil"}
    # The Leader learns that someone checks them at the Reveal, never who (Big Box script: the
    # Leader's eyes are closed while the Cleric looks).
    assert "checker" not in p.info and p.info["source"] == "cleric"
    assert all("checker" not in q["info"] for q in view(s, trickster)["you"]["prompts"])
    assert prompts(s, cleric) == []
    before = s
    with pytest.raises(InvalidChoice):
        do(s, trickster, "loyalty_card", choice="maybe")
    assert same(before, s)
    s, events = do(s, trickster, "loyalty_card", choice=shown)
    assert _learned(s, cleric, "cleric") == [(trickster, shown)]
    assert [e.to for e in events if e.type == "LoyaltySeen"] == [(cleric,)]
    assert not [e for e in events if e.type == "LoyaltyGiven"]  # nothing tells the Leader who looked
    assert s.stage == "team"


# --- Lady of the Lake ------------------------------------------------------------------------------------

# Seats: 0 Merlin, 1-2 Servants, 3 Troublemaker, 4 Assassin, 5 Trickster, 6 Minion. Leader 0: the Lady
# starts on the Leader's right, seat 6.
LADY_7 = ["merlin", "servant", "servant", "troublemaker", "assassin", "trickster", "minion"]
TROUBLEMAKER, TRICKSTER, HOLDER = 3, 5, 6


def _lady_time():
    s = make_state(LADY_7, options={"lady_of_the_lake": True})
    s, _ = run_quest(s, (1, 2))
    s, _ = run_quest(s, (1, 2, 4), fails=(4,))
    (p,) = prompts(s, HOLDER)
    assert p.kind == "lady"
    return s


@pytest.mark.parametrize("shown", ["evil", "good"])
def test_lady_of_the_lake_on_the_trickster_who_may_lie(shown):
    s, _ = act(_lady_time(), HOLDER, "lady", targets=(TRICKSTER,))
    assert waiting_for(s)["hidden"] is True and waiting_for(s)["seats"] == []
    (p,) = prompts(s, TRICKSTER)
    assert set(p.choices) == {"good", "evil"}
    s, events = act(s, TRICKSTER, "loyalty_card", choice=shown)
    assert _learned(s, HOLDER, "lady") == [(TRICKSTER, shown)]
    assert [e.to for e in events if e.type == "LoyaltySeen"] == [(HOLDER,)]
    assert public_view(s)["lady"]["holder"] == TRICKSTER


def test_lady_of_the_lake_on_the_troublemaker_always_sees_the_lie():
    s, events = act(_lady_time(), HOLDER, "lady", targets=(TROUBLEMAKER,))
    # No choice: the Troublemaker must lie. (A Trickster plays, so the card is still handed in secret.)
    assert prompts(s, TROUBLEMAKER)[0].choices == ["evil"]
    with pytest.raises(InvalidChoice):
        act(s, TROUBLEMAKER, "loyalty_card", choice="good")
    s, more = _hand_over(s, TROUBLEMAKER)
    events = events + more
    assert s.sides[TROUBLEMAKER] is Side.GOOD
    assert _learned(s, HOLDER, "lady") == [(TROUBLEMAKER, "evil")]
    given = [e for e in events if e.type == "LoyaltyGiven"]
    assert [(e.to, e.data["side"]) for e in given] == [((TROUBLEMAKER,), "evil")]


def test_troublemaker_is_still_good_and_plays_success():
    s = make_state(LADY_7)
    s, _ = act(s, 0, "propose", (1, TROUBLEMAKER))
    for seat in range(7):
        s, _ = act(s, seat, "vote", choice="approve")
    assert prompts(s, TROUBLEMAKER)[0].choices == ["success"]
