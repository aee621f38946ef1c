"""The Plot Thickens (option ``plot_cards``): deck, drawing and dealing, and each card's rule.

Rule sources: Avalon Big Box (seed 002, PLOT CARDS), The Resistance (seed 003), Avalon "Plot & Loyalty
Cards" (seed 000) and the deck table in rules-notes.md. Expectations are written from those texts, not
read back from the engine; seats are relative to the Leader the seed picked.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine import GameState, Side, Theme, prompts, public_view
from engine.errors import IllegalAction, InvalidChoice, InvalidTarget, NotYourTurn, WrongPhase
from engine.modules.plot import PLOT_CARDS, deck_for
from tests.unit.plot_helpers import (
    act,
    drawing,
    edit,
    give,
    mod,
    pending_of,
    play_all,
    propose,
    public_events,
    ready,
    seat_of,
    start,
    vote_all,
)

# rules-notes.md: Resistance name -> (copies marked 5+, copies marked 7+, kind, Avalon Big Box name)
TABLE = {
    "Strong Leader": (2, 0, "held", "Lead to Victory"),
    "Keeping a Close Eye on You": (2, 0, "held", "Ambush"),
    "No Confidence": (1, 2, "held", "The King Returns"),
    "Take Responsibility": (1, 0, "immediate", "Restore Your Honor"),
    "Opinion Maker": (1, 1, "permanent", "Charge"),
    "Overheard Conversation": (0, 2, "immediate", "Are You the One?"),
    "In the Spotlight": (0, 1, "held", "We Found You!"),
    "Establish Confidence": (0, 1, "immediate", "Show Your Strength"),
    "Open Up": (0, 1, "immediate", "Show Your True Nature"),
}
BY_NAME = {info["resistance"]: cid for cid, info in PLOT_CARDS.items()}


# ---------------------------------------------------------------------------------------------
# Cards, names and the deck
# ---------------------------------------------------------------------------------------------


def test_plot_cards_have_both_theme_names_kind_and_marking():
    assert set(BY_NAME) == set(TABLE)
    for name, (m5, m7, kind, avalon) in TABLE.items():
        info = PLOT_CARDS[BY_NAME[name]]
        assert info["avalon"] == avalon
        assert info["kind"] == kind
        assert info["marked"] == {"5+": m5, "7+": m7}
        assert info["min_players"] == (5 if m5 else 7)


@pytest.mark.parametrize("players", range(5, 11))
def test_deck_uses_cards_marked_5plus_for_5_and_6_players_and_all_15_for_7plus(players):
    expected = Counter()
    for name, (m5, m7, _, _) in TABLE.items():
        copies = m5 + (m7 if players >= 7 else 0)
        if copies:
            expected[BY_NAME[name]] = copies
    assert sum(expected.values()) == (7 if players <= 6 else 15)
    assert Counter(deck_for(players)) == expected
    state = start(players, seed=players)
    m = mod(state)
    assert Counter(m["deck"] + m["drawn"]) == expected


def test_deck_is_shuffled_from_the_game_seed():
    orders = {tuple(mod(start(9, seed))["drawn"] + mod(start(9, seed))["deck"]) for seed in range(6)}
    assert len(orders) > 1  # different seeds, different orders
    again = start(9, 3)
    assert mod(again)["deck"] == mod(start(9, 3))["deck"]  # same seed, same order


@pytest.mark.parametrize("players,count", [(5, 1), (6, 1), (7, 2), (8, 2), (9, 3), (10, 3)])
def test_leader_draws_1_2_or_3_plot_cards_by_player_count(players, count):
    state = start(players, seed=7)
    m = mod(state)
    assert len(m["drawn"]) == count
    assert len(m["deck"]) == len(deck_for(players)) - count
    view = public_view(state)
    assert view["plot"]["drawn"] == m["drawn"]  # drawn face up, for everyone to see


def test_leader_never_deals_a_plot_card_to_themself():
    state = start(7, seed=1)
    leader = state.leader
    prompt = prompts(state, leader)[0]
    assert prompt.kind == "plot_deal" and leader not in prompt.targets
    assert sorted(prompt.targets) == [s for s in range(7) if s != leader]
    with pytest.raises(InvalidTarget):
        act(state, leader, "plot_deal", [leader])
    with pytest.raises(NotYourTurn):
        act(state, (leader + 1) % 7, "plot_deal", [leader])


def test_leader_deals_in_the_order_they_choose():
    state = drawing(7, ["no_confidence", "strong_leader"])
    a, b = seat_of(state, 1), seat_of(state, 2)
    state, events = act(state, state.leader, "plot_deal", [a], choice="strong_leader")
    assert mod(state)["hands"][a] == ["strong_leader"]
    assert mod(state)["drawn"] == ["no_confidence"]
    with pytest.raises(InvalidChoice):
        act(state, state.leader, "plot_deal", [b], choice="strong_leader")  # already dealt
    state, events = act(state, state.leader, "plot_deal", [b])
    assert mod(state)["hands"][b] == ["no_confidence"]
    dealt = [e for e in events if e.type == "PlotCardDealt"]
    assert dealt and dealt[0].public and dealt[0].data["seat"] == b
    assert state.stage == "team"


def test_plot_cards_are_drawn_once_per_quest_not_again_after_a_rejection():
    state = ready(5, seed=4)
    deck_before = list(mod(state)["deck"])
    state, _ = propose(state)
    state, _ = vote_all(state, approve=False)
    assert state.stage == "team" and state.vote_track == 1
    assert mod(state)["deck"] == deck_before and not state.pending
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, _ = play_all(state)
    assert len(state.quests) == 1
    assert len(mod(state)["deck"]) == len(deck_before) - 1  # the next quest's draw
    assert pending_of(state).kind == "plot_deal"


def test_plot_holdings_are_public_information():
    state = ready(7, seed=5, hands={2: ["no_confidence", "opinion_maker"]})
    view = public_view(state)
    assert view["plot"]["hands"][2] == ["no_confidence", "opinion_maker"]
    assert view["plot"]["names"]["no_confidence"] == "The King Returns"


def test_plot_cards_play_in_the_resistance_theme_with_resistance_names():
    state = ready(7, seed=5, theme=Theme.RESISTANCE, hands={1: ["strong_leader"]})
    assert public_view(state)["plot"]["names"]["strong_leader"] == "Strong Leader"
    assert public_view(state)["plot"]["names"]["keeping_close_eye"] == "Keeping a Close Eye on You"


def test_when_the_deck_runs_out_the_leader_draws_what_is_left_without_reshuffle():
    state = ready(9, seed=6)
    state = edit(state, lambda m, s: m.update(deck=["open_up"], discard=["strong_leader"] * 3))
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, events = play_all(state)
    assert mod(state)["drawn"] == ["open_up"] and mod(state)["deck"] == []
    state, _ = act(state, state.leader, "plot_deal", [seat_of(state, 1)])
    state, _ = act(state, seat_of(state, 1), "plot_open_up", [seat_of(state, 2)])
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, events = play_all(state)
    assert any(e.type == "PlotDeckEmpty" for e in events)
    assert mod(state)["drawn"] == [] and state.stage == "team"  # the round goes on without cards
    assert mod(state)["discard"].count("strong_leader") == 3  # discards are not reshuffled


# ---------------------------------------------------------------------------------------------
# Immediate cards
# ---------------------------------------------------------------------------------------------


def test_immediate_card_resolves_as_soon_as_it_is_passed():
    state = drawing(9, ["overheard_conversation", "no_confidence", "open_up"])
    receiver = seat_of(state, 3)
    state, _ = act(state, state.leader, "plot_deal", [receiver], choice="overheard_conversation")
    p = pending_of(state)
    assert p.kind == "plot_overheard_conversation" and p.actors == [receiver]
    with pytest.raises(NotYourTurn):  # the Leader waits for the card to resolve
        act(state, state.leader, "plot_deal", [seat_of(state, 1)])


def test_overheard_conversation_checks_the_loyalty_of_an_adjacent_player():
    state = drawing(7, ["overheard_conversation", "no_confidence"])
    receiver = seat_of(state, 2)
    state, _ = act(state, state.leader, "plot_deal", [receiver], choice="overheard_conversation")
    prompt = prompts(state, receiver)[0]
    left, right = (receiver - 1) % 7, (receiver + 1) % 7
    assert sorted(prompt.targets) == sorted([left, right])
    far = (receiver + 3) % 7
    with pytest.raises(InvalidTarget):
        act(state, receiver, "plot_overheard_conversation", [far])
    state, events = act(state, receiver, "plot_overheard_conversation", [right])
    seen = [k for k in state.knowledge[receiver] if k.source == "overheard_conversation"]
    assert [(k.seat, k.label) for k in seen] == [(right, state.sides[right].value)]
    private = [e for e in events if e.type == "LoyaltySeen"]
    assert private and private[0].to == (receiver,)
    assert all("side" not in e.data for e in public_events(events))
    assert "overheard_conversation" in mod(state)["discard"]
    assert pending_of(state).kind == "plot_deal"  # then the Leader deals the next card


def test_overheard_conversation_check_is_optional():
    """Big Box: "The player who receives this card *may* check the loyalty of one adjacent player"."""
    state = drawing(7, ["overheard_conversation", "no_confidence"])
    receiver = seat_of(state, 2)
    state, _ = act(state, state.leader, "plot_deal", [receiver], choice="overheard_conversation")
    assert prompts(state, receiver)[0].optional
    state, events = act(state, receiver, "plot_overheard_conversation", choice="pass")
    assert [(e.type, e.data) for e in events if e.type.startswith("PlotCard")] == [
        ("PlotCardDiscarded", {"seat": receiver, "card": "overheard_conversation", "reason": "declined"})]
    assert not [k for k in state.knowledge[receiver] if k.source == "overheard_conversation"]
    assert not [e for e in events if e.type in ("LoyaltySeen", "LoyaltyGiven")]
    assert "overheard_conversation" in mod(state)["discard"]
    assert pending_of(state).kind == "plot_deal"  # then the Leader deals the next card


def test_cards_that_must_resolve_refuse_a_pass():
    state = drawing(7, ["establish_confidence", "no_confidence"])
    leader = state.leader
    state, _ = act(state, leader, "plot_deal", [seat_of(state, 2)], choice="establish_confidence")
    assert not prompts(state, leader)[0].optional
    with pytest.raises(InvalidChoice):
        act(state, leader, "plot_establish_confidence", choice="pass")


def test_establish_confidence_leader_shows_loyalty_to_a_player_of_their_choice():
    state = drawing(7, ["establish_confidence", "no_confidence"])
    leader = state.leader
    receiver, viewer = seat_of(state, 1), seat_of(state, 4)
    state, _ = act(state, leader, "plot_deal", [receiver], choice="establish_confidence")
    p = pending_of(state)
    assert p.actors == [leader]  # the Leader decides, whoever received the card
    assert leader not in prompts(state, leader)[0].targets
    with pytest.raises(NotYourTurn):
        act(state, receiver, "plot_establish_confidence", [viewer])
    state, _ = act(state, leader, "plot_establish_confidence", [viewer])
    seen = [(k.seat, k.label) for k in state.knowledge[viewer] if k.source == "establish_confidence"]
    assert seen == [(leader, state.sides[leader].value)]
    assert not [k for k in state.knowledge[receiver] if k.source == "establish_confidence"]


def test_open_up_holder_shows_loyalty_to_a_player_of_their_choice():
    state = drawing(8, ["open_up", "no_confidence"])
    receiver, viewer = seat_of(state, 2), seat_of(state, 5)
    state, _ = act(state, state.leader, "plot_deal", [receiver], choice="open_up")
    with pytest.raises(InvalidTarget):
        act(state, receiver, "plot_open_up", [receiver])
    state, events = act(state, receiver, "plot_open_up", [viewer])
    seen = [(k.seat, k.label) for k in state.knowledge[viewer] if k.source == "open_up"]
    assert seen == [(receiver, state.sides[receiver].value)]
    assert [e.to for e in events if e.type == "LoyaltySeen"] == [(viewer,)]


def test_take_responsibility_must_take_a_plot_card_from_another_player():
    state = start(5, seed=12)
    holder, receiver = seat_of(state, 3), seat_of(state, 1)
    state = edit(state, lambda m, s: m.update(drawn=["take_responsibility"]))
    state = give(state, {holder: ["strong_leader", "opinion_maker"]})
    state, _ = act(state, state.leader, "plot_deal", [receiver])
    prompt = prompts(state, receiver)[0]
    assert prompt.targets == [holder] and not prompt.optional
    with pytest.raises(IllegalAction):
        act(state, receiver, "plot_take_responsibility", choice="pass")
    with pytest.raises(InvalidChoice):
        act(state, receiver, "plot_take_responsibility", [holder], choice="no_confidence")
    state, events = act(state, receiver, "plot_take_responsibility", [holder], choice="opinion_maker")
    assert mod(state)["hands"][receiver] == ["opinion_maker"]
    assert mod(state)["hands"][holder] == ["strong_leader"]
    assert [e.data for e in events if e.type == "PlotCardTaken"] == [
        {"seat": receiver, "source": holder, "card": "opinion_maker"}
    ]
    assert mod(state)["discard"] == ["take_responsibility"]


def test_take_responsibility_is_discarded_when_nobody_else_holds_a_plot_card():
    state = start(5, seed=13)
    receiver = seat_of(state, 1)
    state = edit(state, lambda m, s: m.update(drawn=["take_responsibility"]))
    state = give(state, {receiver: ["strong_leader"]})  # only the receiver holds one
    state, events = act(state, state.leader, "plot_deal", [receiver])
    assert any(e.type == "PlotCardDiscarded" for e in events)
    assert mod(state)["hands"][receiver] == ["strong_leader"] and state.stage == "team"


# ---------------------------------------------------------------------------------------------
# Strong Leader / Lead to Victory
# ---------------------------------------------------------------------------------------------


def _to_next_round(state):
    """Play the current quest (nobody else holds Plot cards) up to the next Leader's turn."""
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, _ = play_all(state)
    return state


def test_lead_to_victory_is_declared_before_the_leader_draws_plot_cards():
    state = ready(5, seed=14)
    holder_offset = 3
    # The next Leader will be seat_of(1); give the card to a seat further round.
    holder = seat_of(state, holder_offset)
    state = give(state, {holder: ["strong_leader"]})
    deck = list(mod(state)["deck"])
    state = _to_next_round(state)
    p = pending_of(state)
    assert p.kind == "plot_strong_leader" and p.actors == [holder]
    assert mod(state)["deck"] == deck and mod(state)["drawn"] == []  # nothing drawn yet
    state, events = act(state, holder, "plot_strong_leader", choice="play")
    assert state.leader == holder
    assert [e.data["leader"] for e in events if e.type == "LeaderChanged"] == [holder]
    assert "strong_leader" in mod(state)["discard"] and mod(state)["hands"][holder] == []
    # the new Leader draws the round's Plot card and deals it
    assert pending_of(state).kind == "plot_deal" and pending_of(state).actors == [holder]
    assert mod(state)["drawn"] == deck[:1]
    assert [e.data["leader"] for e in events if e.type == "PlotCardsDrawn"] == [holder]


def test_lead_to_victory_leadership_then_passes_clockwise_from_the_new_leader():
    state = ready(6, seed=15)
    holder = seat_of(state, 4)
    state = give(state, {holder: ["strong_leader"]})
    state = _to_next_round(state)
    state, _ = act(state, holder, "plot_strong_leader", choice="play")
    state = edit(state, lambda m, s: m.update(drawn=["no_confidence"]))
    state, _ = act(state, holder, "plot_deal", [(holder + 2) % 6])
    assert state.leader == holder and state.stage == "team"
    state, _ = propose(state)
    state, _ = vote_all(state, approve=False)
    assert state.leader == (holder + 1) % 6


def test_lead_to_victory_is_not_offered_to_the_current_leader():
    state = ready(5, seed=16)
    next_leader = seat_of(state, 1)
    state = give(state, {next_leader: ["strong_leader"]})
    state = _to_next_round(state)
    assert state.leader == next_leader
    assert pending_of(state).kind == "plot_deal"  # no Lead to Victory window for the Leader


def test_lead_to_victory_precedence_by_proximity_and_one_chance_each():
    state = ready(7, seed=17)
    next_leader = seat_of(state, 1)
    near, far = (next_leader + 2) % 7, (next_leader + 5) % 7
    state = give(state, {far: ["strong_leader"], near: ["strong_leader"]})
    state = _to_next_round(state)
    assert state.leader == next_leader
    assert pending_of(state).actors == [near]  # nearest clockwise from the Leader first
    with pytest.raises(NotYourTurn):
        act(state, far, "plot_strong_leader", choice="play")
    state, events = act(state, near, "plot_strong_leader", choice="pass")
    assert any(e.type == "PlotCardPassed" for e in events)
    assert pending_of(state).actors == [far]
    with pytest.raises(NotYourTurn):  # a player who passed may not play later in this opportunity
        act(state, near, "plot_strong_leader", choice="play")
    state, _ = act(state, far, "plot_strong_leader", choice="play")
    assert state.leader == far and mod(state)["hands"][near] == ["strong_leader"]


def test_after_lead_to_victory_another_may_not_be_played_until_a_vote():
    state = ready(7, seed=18)
    next_leader = seat_of(state, 1)
    first, second = (next_leader + 2) % 7, (next_leader + 4) % 7
    state = give(state, {first: ["strong_leader"], second: ["strong_leader"]})
    state = _to_next_round(state)
    state, _ = act(state, first, "plot_strong_leader", choice="play")
    assert state.leader == first and mod(state)["lead_locked"]
    assert pending_of(state).kind == "plot_deal"  # the second holder is not asked
    state = edit(state, lambda m, s: m.update(drawn=["no_confidence"]))
    state, _ = act(state, first, "plot_deal", [(first + 1) % 7])
    with pytest.raises(WrongPhase):  # the Leader's turn is under way: too late
        act(state, second, "plot_strong_leader", choice="play")
    state, _ = propose(state)
    state, _ = vote_all(state, approve=False)
    assert not mod(state)["lead_locked"]  # a vote has taken place
    assert state.leader == (first + 1) % 7 != second
    assert pending_of(state).kind == "plot_strong_leader" and pending_of(state).actors == [second]
    state, _ = act(state, second, "plot_strong_leader", choice="play")
    assert state.leader == second


# ---------------------------------------------------------------------------------------------
# No Confidence / The King Returns
# ---------------------------------------------------------------------------------------------


def test_king_returns_turns_an_approved_team_into_a_rejection():
    state = ready(7, seed=19)
    holder = seat_of(state, 3)
    state = give(state, {holder: ["no_confidence"]})
    leader = state.leader
    state, _ = propose(state)
    state, events = vote_all(state)
    assert [e.data["approved"] for e in events if e.type == "VotesRevealed"] == [True]
    assert pending_of(state).kind == "plot_no_confidence" and pending_of(state).actors == [holder]
    state, events = act(state, holder, "plot_no_confidence", choice="play")
    assert state.proposals[-1].approved is False and state.proposals[-1].note == "overruled"
    assert any(e.type == "TeamRejected" for e in events)
    assert state.vote_track == 1 and state.leader == (leader + 1) % 7
    assert state.quests == [] and mod(state)["hands"][holder] == []


def test_king_returns_is_not_offered_when_the_team_was_rejected():
    state = ready(7, seed=20)
    state = give(state, {seat_of(state, 3): ["no_confidence"]})
    state, _ = propose(state)
    state, _ = vote_all(state, approve=False)
    assert not state.pending and state.vote_track == 1


def test_king_returns_fifth_rejection_wins_for_evil():
    state = ready(7, seed=21)
    for _ in range(4):
        state, _ = propose(state)
        state, _ = vote_all(state, approve=False)
    assert state.vote_track == 4
    holder = seat_of(state, 2)
    state = give(state, {holder: ["no_confidence"]})
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, events = act(state, holder, "plot_no_confidence", choice="play")
    assert state.winner is Side.EVIL and state.win_reason == "five_rejections"
    assert state.over


def test_king_returns_precedence_starts_with_the_leader():
    state = ready(7, seed=22)
    leader, other = state.leader, seat_of(state, 1)
    state = give(state, {other: ["no_confidence"], leader: ["no_confidence"]})
    state, _ = propose(state)
    state, _ = vote_all(state)
    assert pending_of(state).actors == [leader]
    state, _ = act(state, leader, "plot_no_confidence", choice="pass")
    assert pending_of(state).actors == [other]
    state, _ = act(state, other, "plot_no_confidence", choice="play")
    assert state.proposals[-1].approved is False
    assert mod(state)["hands"][leader] == ["no_confidence"]


# ---------------------------------------------------------------------------------------------
# Opinion Maker / Charge
# ---------------------------------------------------------------------------------------------


def test_opinion_maker_votes_first_and_in_public():
    state = ready(7, seed=23)
    holder = seat_of(state, 4)
    state = give(state, {holder: ["opinion_maker"]})
    state, _ = propose(state)
    assert [s for s in range(7) if prompts(state, s)] == [holder]
    other = seat_of(state, 1)
    with pytest.raises(NotYourTurn):
        act(state, other, "vote", choice="approve")
    state, events = act(state, holder, "vote", choice="reject")
    shown = [e for e in events if e.type == "VoteShown"]
    assert shown and shown[0].public and shown[0].data == {"seat": holder, "vote": "reject", "card": "opinion_maker"}
    assert public_view(state)["plot"]["open_votes"] == {str(holder): "reject"}
    assert holder not in [s for s in range(7) if prompts(state, s)]
    state, _ = vote_all(state)
    assert state.proposals[-1].votes[holder] == "R"
    assert mod(state)["hands"][holder] == ["opinion_maker"]  # permanent: stays in play


def test_opinion_makers_vote_first_in_order_of_proximity_to_the_leader():
    state = ready(8, seed=24)
    a, b = seat_of(state, 2), seat_of(state, 6)
    state = give(state, {b: ["opinion_maker"], a: ["opinion_maker"]})
    state, _ = propose(state)
    assert pending_of(state).actors == [a]
    state, _ = act(state, a, "vote", choice="approve")
    assert pending_of(state).actors == [b]
    state, _ = act(state, b, "vote", choice="approve")
    assert state.stage == "vote" and sorted(state.votes) == sorted([a, b])


# ---------------------------------------------------------------------------------------------
# In the Spotlight / We Found You!
# ---------------------------------------------------------------------------------------------


def test_we_found_you_is_declared_before_quest_cards_are_chosen_and_its_card_is_public():
    state = ready(7, seed=25)
    holder = seat_of(state, 5)
    state = give(state, {holder: ["in_the_spotlight"]})
    state, _ = propose(state)
    team = list(state.team)
    state, _ = vote_all(state)
    p = pending_of(state)
    assert p.kind == "plot_in_the_spotlight" and p.actors == [holder]
    assert not state.cards
    with pytest.raises(NotYourTurn):  # nobody selects a quest card before the declaration
        act(state, team[0], "play", choice="success")
    assert sorted(prompts(state, holder)[0].targets) == team
    target = team[-1]
    state, events = act(state, holder, "plot_in_the_spotlight", [target])
    assert mod(state)["face_up"] == [target]
    assert [e.data.get("target") for e in events if e.type == "PlotCardPlayed"] == [target]
    card = "fail" if state.sides[target] is Side.EVIL else "success"
    state, events = act(state, target, "play", choice=card)
    shown = [e for e in events if e.type == "QuestCardShown"]
    assert shown and shown[0].public and shown[0].data["seat"] == target and shown[0].data["card"] == card
    assert {"seat": target, "card": card} in [
        {"seat": x["seat"], "card": x["card"]} for x in public_view(state)["plot"]["shown"]
    ]
    others = [s for s in team if s != target]
    for seat in others:
        state, events = act(state, seat, "play", choice="success")
        assert not [e for e in events if e.type == "QuestCardShown"]  # the others stay secret
    assert mod(state)["face_up"] == []  # reset for the next quest


def test_we_found_you_holder_may_pass_and_keep_the_card():
    state = ready(7, seed=26)
    holder = seat_of(state, 5)
    state = give(state, {holder: ["in_the_spotlight"]})
    state, _ = propose(state)
    state, _ = vote_all(state)
    state, _ = act(state, holder, "plot_in_the_spotlight", choice="pass")
    assert state.stage == "quest" and mod(state)["hands"][holder] == ["in_the_spotlight"]


# ---------------------------------------------------------------------------------------------
# Keeping a Close Eye on You / Ambush
# ---------------------------------------------------------------------------------------------


def test_ambush_looks_at_a_played_quest_card_privately_without_changing_it():
    state = ready(7, seed=27)
    holder = seat_of(state, 6)
    state = give(state, {holder: ["keeping_close_eye"]})
    state, _ = propose(state)
    team = list(state.team)
    state, _ = vote_all(state)
    evil_on_team = [s for s in team if state.sides[s] is Side.EVIL]
    fails = evil_on_team[:1]
    for seat in team[:-1]:
        state, _ = act(state, seat, "play", choice="fail" if seat in fails else "success")
        assert not state.pending  # the window opens only once every card is played
    last = team[-1]
    state, _ = act(state, last, "play", choice="fail" if last in fails else "success")
    p = pending_of(state)
    assert p.kind == "plot_keeping_close_eye" and p.actors == [holder]
    target = (fails or team)[0]
    expected = "fail" if target in fails else "success"
    state, events = act(state, holder, "plot_keeping_close_eye", [target])
    seen = [(k.seat, k.label) for k in state.knowledge[holder] if k.source == "keeping_close_eye"]
    assert seen == [(target, expected)]
    look = [e for e in events if e.type == "QuestCardSeen"]
    assert look and look[0].to == (holder,)
    played = [e for e in public_events(events) if e.type == "PlotCardPlayed"]
    assert [e.data for e in played] == [{"card": "keeping_close_eye", "seat": holder, "target": target}]
    assert not [e for e in public_events(events) if e.type == "QuestCardSeen"]
    done = [e for e in events if e.type == "QuestCompleted"][0]
    assert done.data["fails"] == len(fails)  # the card was not affected


def test_ambush_no_two_players_check_the_same_players_card():
    state = ready(8, seed=28)
    a, b = seat_of(state, 5), seat_of(state, 6)
    state = give(state, {a: ["keeping_close_eye"], b: ["keeping_close_eye"]})
    state, _ = propose(state)
    team = list(state.team)
    state, _ = vote_all(state)
    state, _ = play_all(state)
    assert pending_of(state).actors == [a]  # proximity to the Leader
    target = team[0]
    state, _ = act(state, a, "plot_keeping_close_eye", [target])
    assert pending_of(state).actors == [b]
    assert target not in prompts(state, b)[0].targets
    with pytest.raises(InvalidTarget):
        act(state, b, "plot_keeping_close_eye", [target])
    state, _ = act(state, b, "plot_keeping_close_eye", [team[1]])
    assert len(state.quests) == 1


def test_ambush_holder_with_two_copies_may_check_two_cards_in_one_chance():
    state = ready(8, seed=29)
    holder = seat_of(state, 7)
    state = give(state, {holder: ["keeping_close_eye", "keeping_close_eye"]})
    state, _ = propose(state)
    team = [s for s in state.team if s != holder]
    state, _ = vote_all(state)
    state, _ = play_all(state)
    state, _ = act(state, holder, "plot_keeping_close_eye", [team[0]])
    assert pending_of(state).actors == [holder]
    state, _ = act(state, holder, "plot_keeping_close_eye", [team[1]])
    assert mod(state)["checked"] == [] and len(state.quests) == 1  # reset after the quest
    assert len([k for k in state.knowledge[holder] if k.source == "keeping_close_eye"]) == 2


# ---------------------------------------------------------------------------------------------
# State round-trips
# ---------------------------------------------------------------------------------------------


def test_plot_state_survives_json_round_trip():
    state = ready(10, seed=30, hands={1: ["opinion_maker"], 4: ["no_confidence"]})
    assert GameState.from_json(state.to_json()) == state
