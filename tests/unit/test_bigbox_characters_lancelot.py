"""Lancelot (Avalon Big Box p. 10 and 12; French Avalon "Lancelot"): base rule and the four named variants."""
from __future__ import annotations

from collections import Counter

import pytest

from engine import GameConfig, Side, new_game, prompts, public_view, reveal_script, validate_config, view
from engine.errors import CardNotAllowed
from tests.builder import make_state
from tests.helpers import play_game, reveal_knowledge
from tests.unit.bigbox_characters_helpers import (
    approve_team,
    do,
    find_game,
    play_cards,
    private_to,
    quest,
    same,
    seat_of,
    team_of,
)

LANCELOT_7 = ("merlin", "assassin", "good_lancelot", "evil_lancelot")
# Seats: 0 Merlin, 1 Good Lancelot, 2-3 Servants, 4 Assassin, 5 Evil Lancelot, 6 Minion.
SEVEN = ["merlin", "good_lancelot", "servant", "servant", "assassin", "evil_lancelot", "minion"]
GOOD_L, EVIL_L = 1, 5


def _codes(config, level):
    return {i.code for i in validate_config(config) if i.level == level}


def _cfg(players=7, roles=LANCELOT_7, **options):
    return GameConfig(players=players, roles=roles, options=options)


# --- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alone", ["good_lancelot", "evil_lancelot"])
def test_lancelot_cards_always_play_as_a_pair(alone):
    config = _cfg(roles=("merlin", "assassin", alone))
    assert "lancelot_pair" in _codes(config, "error")


@pytest.mark.parametrize("players,warned", [(5, True), (6, True), (7, False), (10, False)])
def test_lancelot_recommended_for_seven_or_more_players_is_a_warning(players, warned):
    config = _cfg(players=players)
    assert not _codes(config, "error")
    warnings = [i for i in validate_config(config) if i.level == "warning"]
    assert (("recommended_players", {"plugin": "good_lancelot", "players": 7}) in
            [(i.code, i.params) for i in warnings]) is warned
    assert len(warnings) == warned  # one warning for the pair


def test_lancelot_replaces_one_good_and_one_evil_character():
    # 5 players: 3 Good, 2 Evil. Merlin + Good Lancelot + one Servant; Assassin + Evil Lancelot.
    state, _ = new_game(_cfg(players=5), 1)
    assert Counter(state.roles) == Counter(
        ["merlin", "good_lancelot", "servant", "assassin", "evil_lancelot"]
    )
    assert state.sides[seat_of(state, "good_lancelot")] is Side.GOOD
    assert state.sides[seat_of(state, "evil_lancelot")] is Side.EVIL


@pytest.mark.parametrize("name", ["bigbox_switch", "classic_switch", "bigbox_predealt", "french_predealt"])
def test_lancelot_variants_are_named_options(name):
    assert not _codes(_cfg(lancelot=name), "error")


def test_unknown_lancelot_variant_is_refused():
    assert "unknown_lancelot_variant" in _codes(_cfg(lancelot="variant_3"), "error")


def test_lancelot_variant_without_lancelots_is_refused():
    config = _cfg(roles=("merlin", "assassin"), lancelot="bigbox_switch")
    assert "lancelot_variant_without_lancelot" in _codes(config, "error")


def test_a_switching_lancelot_cannot_be_the_designated_assassin():
    config = GameConfig(
        players=7,
        roles=("merlin", "good_lancelot", "evil_lancelot"),
        assassin="evil_lancelot",
        options={"lancelot": "bigbox_predealt"},
    )
    assert "lancelot_cannot_assassinate" in _codes(config, "error")


# --- reveal ----------------------------------------------------------------------------------------


def test_base_lancelots_know_each_other_and_each_others_allegiance():
    s = make_state(SEVEN)
    known = reveal_knowledge(s)
    assert (EVIL_L, "evil") in known[GOOD_L]
    assert (GOOD_L, "good") in known[EVIL_L]
    # Without a variant Evil Lancelot is a Minion of Mordred: he looks around with Evil and Merlin sees him.
    assert {(4, "evil"), (6, "evil")} <= known[EVIL_L]
    assert (EVIL_L, "evil") in known[4] and (EVIL_L, "evil") in known[6]
    assert (EVIL_L, "evil") in known[0]
    assert (GOOD_L, "evil") not in known[0]


@pytest.mark.parametrize("name", ["bigbox_switch", "bigbox_predealt"])
def test_variant_lancelots_do_not_know_each_other_evil_lancelot_only_shows_to_evil(name):
    s = make_state(SEVEN, options={"lancelot": name})
    known = reveal_knowledge(s)
    assert known[GOOD_L] == set()
    assert known[EVIL_L] == set()  # extends his thumb, does not open his eyes
    assert (EVIL_L, "evil") in known[4] and (EVIL_L, "evil") in known[6]
    assert (EVIL_L, "evil") in known[0]  # still a Minion of Mordred to Merlin
    script = {step["step"]: step for step in reveal_script(s.config, s.roles)}
    assert "lancelot" not in script
    assert "evil_lancelot" in script["evil"]["show"]
    assert "evil_lancelot" not in script["evil"]["look"]


# --- Variant 1: drawn Allegiance cards ---------------------------------------------------------------


@pytest.mark.parametrize("name,first_round,deck", [("bigbox_switch", 1, (4, 2)), ("classic_switch", 3, (3, 2))])
def test_variant1_one_public_allegiance_card_per_quest(name, first_round, deck):
    config = _cfg(lancelot=name)
    for seed in range(6):
        game = play_game(config, seed)
        events = game.events
        rounds = [e.data["round"] for e in events if e.type == "RoundStarted"]
        drawn = [e for e in events if e.type == "AllegianceCardDrawn"]
        assert all(e.public for e in drawn)
        assert [e.data["round"] for e in drawn] == [r for r in rounds if r >= first_round]
        counts = Counter(e.data["card"] for e in drawn)
        assert counts["no_change"] <= deck[0] and counts["switch"] <= deck[1]
        # The public view shows every card drawn so far (a face-up discard pile).
        shown = public_view(game.final)["lancelot"]
        assert [c["card"] for c in shown["cards"]] == [e.data["card"] for e in drawn]
        assert shown["deck_left"] == sum(deck) - len(drawn)


def test_variant1_switch_card_secretly_swaps_the_lancelots():
    config = _cfg(lancelot="bigbox_switch")
    _, s, events = find_game(
        config,
        lambda st, ev: any(e.type == "AllegianceCardDrawn" and e.data["card"] == "switch" for e in ev),
    )
    g, e = seat_of(s, "good_lancelot"), seat_of(s, "evil_lancelot")
    # "The two Lancelot players secretly switch their allegiances" - at the first Quest here.
    assert s.sides[g] is Side.EVIL and s.sides[e] is Side.GOOD
    drawn = private_to(events, "AllegianceCardDrawn")[0]
    assert drawn.public and set(drawn.data) == {"round", "card", "left"}  # no seat is named publicly
    switched = private_to(events, "AllegianceSwitched")
    assert sorted((ev.to, ev.data["side"]) for ev in switched) == sorted([((g,), "evil"), ((e,), "good")])
    assert view(s, g)["you"]["side"] == "evil" and view(s, e)["you"]["side"] == "good"
    # "This switch applies to ... rules regarding playing Quest cards."
    s, _ = approve_team(s, sorted([g, e]))
    assert prompts(s, e)[0].choices == ["success"]
    assert "fail" in prompts(s, g)[0].choices
    before = s
    with pytest.raises(CardNotAllowed) as err:
        do(s, e, "play", choice="fail")
    assert err.value.code == "card_not_allowed" and same(before, s)
    s, _ = do(s, g, "play", choice="fail")
    s, _ = do(s, e, "play", choice="success")
    assert s.results[0] is False


def test_classic_switch_draws_nothing_before_the_third_quest():
    config = _cfg(lancelot="classic_switch")
    s, events = find_game(config, lambda st, ev: True)[1:]
    assert not private_to(events, "AllegianceCardDrawn")
    assert public_view(s)["lancelot"]["cards"] == []


# --- Variant 2: pre-dealt Allegiance cards -------------------------------------------------------------


def test_variant2_bigbox_deals_five_of_seven_cards_face_up():
    config = _cfg(lancelot="bigbox_predealt")
    for seed in range(20):
        s, events = new_game(config, seed)
        dealt = private_to(events, "AllegianceCardsDealt")[0]
        assert dealt.public and len(dealt.data["cards"]) == 5
        counts = Counter(dealt.data["cards"])
        assert counts["switch"] <= 2 and counts["no_change"] >= 3
        assert public_view(s)["lancelot"]["cards"] == dealt.data["cards"]


def test_variant2_french_deals_all_five_cards():
    s, events = new_game(_cfg(lancelot="french_predealt"), 3)
    dealt = private_to(events, "AllegianceCardsDealt")[0]
    assert Counter(dealt.data["cards"]) == Counter({"no_change": 3, "switch": 2})


def test_variant2_worked_example_christina_and_jenny_switch_at_the_third_quest():
    """Big Box p. 12: No Change for quests 1, 2, 4, 5; Switch Allegiance for the third Quest."""
    config = _cfg(lancelot="bigbox_predealt")
    wanted = ["no_change", "no_change", "switch", "no_change", "no_change"]
    _, s, _ = find_game(config, lambda st, ev: st.mods["lancelot_allegiance"]["cards"] == wanted)
    christina, jenny = seat_of(s, "good_lancelot"), seat_of(s, "evil_lancelot")
    assert public_view(s)["lancelot"]["cards"] == wanted

    # "Jenny must play Fail if she is on the first or second Quest, even though she knows she will end
    # the game on the side of Good."
    for size in (2, 3):
        s, _ = approve_team(s, team_of(s, size, include=[jenny], exclude=[christina]))
        assert prompts(s, jenny)[0].choices == ["fail"]
        before = s
        with pytest.raises(CardNotAllowed) as err:
            do(s, jenny, "play", choice="success")
        assert err.value.code == "card_not_allowed" and same(before, s)
        assert s.sides[christina] is Side.GOOD and s.sides[jenny] is Side.EVIL
        s, events = play_cards(s, {jenny: "fail"})
    assert s.results[:2] == [False, False]

    # "At the beginning of the third Quest, Christina immediately becomes Evil and Jenny becomes Good."
    assert s.round == 3
    assert s.sides[christina] is Side.EVIL and s.sides[jenny] is Side.GOOD
    switched = private_to(events, "AllegianceSwitched")
    assert {(ev.to, ev.data["side"]) for ev in switched} == {((christina,), "evil"), ((jenny,), "good")}
    assert not any(e.public and e.type == "AllegianceSwitched" for e in events)
    # They do not swap character cards.
    assert s.roles[christina] == "good_lancelot" and s.roles[jenny] == "evil_lancelot"

    # "For the third, fourth, and fifth Quests, Christina must Fail any Quest that she is on."
    s, _ = approve_team(s, team_of(s, 3, include=[christina, jenny]))
    assert prompts(s, christina)[0].choices == ["fail"]
    assert prompts(s, jenny)[0].choices == ["success"]
    before = s
    with pytest.raises(CardNotAllowed):
        do(s, christina, "play", choice="success")
    with pytest.raises(CardNotAllowed):
        do(s, jenny, "play", choice="fail")
    assert same(before, s)
    s, _ = play_cards(s, {christina: "fail"})
    # Third failed Quest: Evil wins, and victory follows the current allegiances.
    assert s.over and s.winner is Side.EVIL
    assert christina in s.winners and jenny not in s.winners


def test_variant2_each_quests_face_up_card_is_announced_to_the_table_when_it_takes_effect():
    config = _cfg(lancelot="bigbox_predealt")
    s, events = new_game(config, 5)
    cards = public_view(s)["lancelot"]["cards"]
    turned = [e for e in events if e.type == "AllegianceCardTurned"]
    for quest_slot in range(1, 3):
        s, events = approve_team(s, team_of(s, [2, 3][quest_slot - 1]))
        s, events = play_cards(s, {})
        turned += [e for e in events if e.type == "AllegianceCardTurned"]
        if s.over:
            break
    assert [e.data["quest"] for e in turned] == list(range(len(turned))) and len(turned) >= 2
    assert all(e.public and e.data["card"] == cards[e.data["quest"]] for e in turned)
    assert all("side" not in e.data for e in turned)  # who is now on which side stays private


def test_variant2_with_targeting_switches_when_the_quest_with_the_card_begins():
    config = _cfg(lancelot="bigbox_predealt", targeting=True)
    _, s, _ = find_game(
        config,
        lambda st, ev: st.mods["lancelot_allegiance"]["cards"][0] == "switch"
        and st.mods["lancelot_allegiance"]["cards"][2] == "no_change",
    )
    g, e = seat_of(s, "good_lancelot"), seat_of(s, "evil_lancelot")
    # The Switch lies above the first Quest space, but the table attempts the third Quest first.
    assert s.sides[g] is Side.GOOD
    s, _ = quest(s, team_of(s, 3, exclude=[g, e]), quest=2)
    assert s.sides[g] is Side.GOOD and s.sides[e] is Side.EVIL
    s, _ = do(s, s.leader, "propose", team_of(s, 2, exclude=[g, e]), quest=0)
    assert s.sides[g] is Side.GOOD  # proposed, not begun
    events = []
    for seat in range(s.n):
        s, ev = do(s, seat, "vote", choice="approve")
        events += ev
    assert s.stage == "quest"
    assert s.sides[g] is Side.EVIL and s.sides[e] is Side.GOOD
    assert {ev.to for ev in private_to(events, "AllegianceSwitched")} == {(g,), (e,)}
