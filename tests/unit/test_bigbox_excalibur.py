"""Excalibur (Avalon Big Box "OPTIONAL RULES" - EXCALIBUR; French Avalon 004, EXCALIBUR)."""
from __future__ import annotations

import pytest
from bigbox_helpers import act, act_events, answer, approve_all, pending_kind, play_cards, to_cards

from engine import prompts, public_view
from engine.errors import InvalidTarget, NotYourTurn
from engine.modules.excalibur import Excalibur, switched
from tests.builder import make_state

# 8 players (the first quest needs three): Ron leads, Sarah and Pat go with him.
RON, SARAH, PAT, S3, S4, ASSASSIN, MORGANA, MINION = range(8)
EIGHT = ["servant", "merlin", "percival", "servant", "servant", "assassin", "morgana", "minion"]
EXC = {"excalibur": True}


def eight(**kw):
    return make_state(EIGHT, leader=RON, options=EXC, **kw)


def test_rulebook_example_ron_sarah_pat():
    state = eight()
    state, events = act_events(state, RON, "propose", (RON, SARAH, PAT))
    # Excalibur is assigned while the Team is built, before the vote.
    assert pending_kind(state) == "give_excalibur" and state.pending[0].actors == [RON]
    with pytest.raises(NotYourTurn):
        act(state, SARAH, "vote", choice="approve")
    assert prompts(state, RON)[0].targets == [SARAH, PAT]  # never the Leader himself
    state, events = act_events(state, RON, "give_excalibur", (SARAH,))
    assert state.stage == "vote"
    given = next(e for e in events if e.type == "ExcaliburGiven")
    assert given.public and given.data["seat"] == SARAH
    assert public_view(state)["excalibur"]["holder"] == SARAH
    state = approve_all(state)
    state = play_cards(state)  # Ron, Pat and Sarah each play Success
    assert pending_kind(state) == "excalibur" and state.pending[0].actors == [SARAH]
    prompt = prompts(state, SARAH)[0]
    assert prompt.optional and prompt.targets == [RON, PAT]
    state, events = act_events(state, SARAH, "excalibur", (PAT,))
    # Sarah sees the card Pat originally played; the table sees two Success and one Fail.
    assert [(k.seat, k.label) for k in state.knowledge[SARAH] if k.source == "excalibur"] == [(PAT, "success")]
    seen = next(e for e in events if e.type == "CardSeen")
    assert seen.to == (SARAH,) and seen.data["card"] == "success"
    assert state.quests[-1].cards == {"fail": 1, "success": 2}
    assert state.results[0] is False
    used = next(e for e in events if e.type == "ExcaliburUsed")
    assert used.public and used.data == {"seat": SARAH, "target": PAT, "quest": 0}


def test_leader_cannot_assign_excalibur_to_themself_or_outside_the_team():
    state = act(eight(), RON, "propose", (RON, SARAH, PAT))
    before = state.model_dump()
    for bad in ((RON,), (S3,), (SARAH, PAT), ()):
        with pytest.raises(InvalidTarget):
            act(state, RON, "give_excalibur", bad)
    with pytest.raises(NotYourTurn):
        act(state, SARAH, "give_excalibur", (PAT,))
    assert state.model_dump() == before


def test_leader_off_the_team_gives_excalibur_to_any_member():
    state = act(eight(), RON, "propose", (SARAH, PAT, S3))
    assert prompts(state, RON)[0].targets == [SARAH, PAT, S3]


def test_excalibur_holder_may_pass():
    state = play_cards(to_cards(eight(), [RON, SARAH, MINION], excalibur=SARAH), {MINION: "fail"})
    state, events = act_events(state, SARAH, "excalibur", choice="pass")
    assert any(e.type == "ExcaliburNotUsed" for e in events)
    assert state.quests[-1].cards == {"fail": 1, "success": 2} and state.results[0] is False
    assert not [k for k in state.knowledge[SARAH] if k.source == "excalibur"]


def test_excalibur_switches_a_fail_into_a_success():
    state = play_cards(to_cards(eight(), [RON, SARAH, MINION], excalibur=SARAH), {MINION: "fail"})
    state = act(state, SARAH, "excalibur", (MINION,))
    assert state.results[0] is True and state.quests[-1].cards == {"success": 3}
    assert (MINION, "fail") in {(k.seat, k.label) for k in state.knowledge[SARAH]}


def test_excalibur_cannot_switch_the_holders_own_card_nor_an_outsider():
    state = play_cards(to_cards(eight(), [RON, SARAH, PAT], excalibur=SARAH))
    before = state.model_dump()
    for bad in ((SARAH,), (S3,), (RON, PAT)):
        with pytest.raises(InvalidTarget):
            act(state, SARAH, "excalibur", bad)
    with pytest.raises(NotYourTurn):
        act(state, RON, "excalibur", (PAT,))
    assert state.model_dump() == before


def test_excalibur_cannot_switch_a_card_played_face_up():
    state = play_cards(to_cards(eight(), [RON, SARAH, PAT], excalibur=SARAH))
    # As the Plot card "We Found You!" ("In the Spotlight") records a face-up card.
    state = state.model_copy(deep=True)
    state.mods.setdefault("plot_cards", {})["face_up"] = [PAT]
    assert prompts(state, SARAH)[0].targets == [RON]
    before = state.model_dump()
    with pytest.raises(InvalidTarget) as info:
        act(state, SARAH, "excalibur", (PAT,))
    assert "face up" in info.value.reason
    assert state.model_dump() == before
    assert act(state, SARAH, "excalibur", (RON,)).results[0] is False


def test_excalibur_acts_before_ambush_and_the_trapper():
    from engine.hook_order import PLACES
    from engine.modules.plot_cards import PlotCards
    from engine.modules.trapper import Trapper

    assert PLACES.index(Excalibur.place) < PLACES.index(Trapper.place) < PLACES.index(PlotCards.place)
    state = make_state(EIGHT, leader=RON, options={"excalibur": True, "trapper": True})
    state = play_cards(to_cards(state, [RON, SARAH, PAT, MINION], excalibur=SARAH), {MINION: "fail"})
    assert pending_kind(state) == "excalibur"
    state = act(state, SARAH, "excalibur", (PAT,))
    assert pending_kind(state) == "trap"
    state = answer(state, {"trap": MINION})
    assert state.quests[-1].cards == {"fail": 1, "success": 2}  # Pat's switched card counts


def test_switched_special_cards_become_the_plain_opposite_card():
    assert switched("success") == "fail" and switched("fail") == "success"
    assert switched("rogue_success") == "fail" and switched("rogue_fail") == "success"
    assert switched("good_message") == "fail" and switched("evil_message") == "success"
    assert switched("magic") == "success"


def test_switching_a_magic_card_cancels_its_reversal():
    roles = ["good_sorcerer", "merlin", "percival", "servant", "servant", "evil_sorcerer", "morgana", "assassin"]
    state = make_state(roles, leader=3, options=EXC)
    state = play_cards(to_cards(state, [0, 3, 4], excalibur=4), {0: "magic"})
    state = act(state, 4, "excalibur", (0,))
    assert state.quests[-1].cards == {"success": 3} and state.results[0] is True


def test_excalibur_holder_resets_after_a_rejected_team():
    state = act(eight(), RON, "propose", (RON, SARAH, PAT))
    state = act(state, RON, "give_excalibur", (PAT,))
    for seat in range(8):
        state = act(state, seat, "vote", choice="reject")
    assert state.stage == "team" and public_view(state)["excalibur"]["holder"] is None
