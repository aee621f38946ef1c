"""A quest's result says plainly why it reads as it does when its Fails alone would not say it: a success
with a Fail (two were needed: the 4th quest at 7 or more), a success despite enough Fails and a failure
without enough (a Sorcerer's Magic reversed it). In the announcement, the end's history and the
picture's notes, in every language."""
from __future__ import annotations

import pytest
from bigbox_helpers import act_events, quest, to_cards

from engine import public_view
from gamebot.language import texts
from gamebot.messages.events import announcements, event_line
from gamebot.messages.table import Table
from gamebot.story import by_round, end_text, picture
from tests.builder import make_state
from tests.helpers import act, propose, run_quest, vote

LANGS = texts.languages()
SEVEN = ["merlin", "servant", "servant", "servant", "assassin", "minion", "minion"]
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"]
ASSASSIN = 4


def _quest_four_with_one_fail():
    """7 players (teams of 2, 3, 3, 4, 4): quests 1-3 go success, fail, fail; quest 4 (two Fails needed)
    gets one. (state, the events of its last card)"""
    state = make_state(SEVEN, seed=3)
    state, _ = run_quest(state, [0, 1])
    state, _ = run_quest(state, [0, 1, ASSASSIN], fails=[ASSASSIN])
    state, _ = run_quest(state, [0, 1, ASSASSIN], fails=[ASSASSIN])
    state, _ = propose(state, [0, 1, 2, ASSASSIN])
    state, _ = vote(state)
    events = []
    for seat in list(state.team):
        state, events = act(state, seat, "play", choice="fail" if seat == ASSASSIN else "success")
    assert state.results[3] is True and state.quests[-1].fails == 1 and state.quests[-1].fails_needed == 2
    return state, events


def test_the_announcement_says_one_fail_was_not_enough():
    _, events = _quest_four_with_one_fail()
    table = Table(chat_id=-1, game_id="g", lang="en", names=NAMES)
    (line,) = [x for x in announcements(table, events) if "Quest 4" in x]
    assert line.startswith("✅ <b>Quest 4 succeeded</b>: 1 Fail, 2 were needed (")


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_says_it_its_own_way(lang):
    data = {"quest": 3, "success": True, "cards": {"fail": 1, "success": 3}, "fails": 1, "fails_needed": 2,
            "notes": []}
    table = Table(chat_id=-1, game_id="g", lang=lang, names=NAMES)
    line = event_line(table, "QuestCompleted", data)
    plain = event_line(table, "QuestCompleted", dict(data, fails=0))
    assert line != plain and "2" in line.split("(")[0]  # (the Fails needed, before the cards' counts)
    if lang != "en":
        assert line != event_line(Table(chat_id=-1, game_id="g", lang="en", names=NAMES), "QuestCompleted", data)
    resistance = event_line(Table(chat_id=-1, game_id="g", lang=lang, theme="resistance", names=NAMES),
                            "QuestCompleted", data)
    assert "{" not in line + resistance


def test_french_says_il_en_fallait_deux():
    data = {"quest": 3, "success": True, "cards": {"fail": 1, "success": 3}, "fails": 1, "fails_needed": 2}
    line = event_line(Table(chat_id=-1, game_id="g", lang="fr", names=NAMES), "QuestCompleted", data)
    assert line.startswith("✅ <b>Quête 4 réussie</b> : 1 Échec, il en fallait 2 (")


def test_the_end_history_and_the_picture_notes_say_it_too():
    state, _ = _quest_four_with_one_fail()
    pv = public_view(state)
    table = Table(chat_id=-1, game_id="g", lang="en", names=NAMES)
    history = "\n".join(end_text.history(table, pv))
    assert ": success with 1 Fail, 2 were needed (" in history
    notes = [n.text for block in picture.notes(table, pv, by_round.rounds(pv)) for n in block]
    assert any("success with 1 Fail, 2 were needed" in n for n in notes)
    assert not any(": failed (" in n for n in notes)  # a plain result is drawn on the track, not noted


# 6 players with both Sorcerers (the rulebook's Sorcerer example): Magic reverses a result.
GOOD_SORC, EVIL_SORC, MERLIN, SERVANT_A, SERVANT_B, SORC_ASSASSIN = range(6)
SIX = ["good_sorcerer", "evil_sorcerer", "merlin", "servant", "servant", "assassin"]


def test_magic_reversing_a_result_is_said_plainly_both_ways():
    state = make_state(SIX, leader=MERLIN)
    state = quest(state, [MERLIN, SERVANT_A])
    state = quest(state, [SORC_ASSASSIN, SERVANT_A, SERVANT_B], {SORC_ASSASSIN: "fail"})
    table = Table(chat_id=-1, game_id="g", lang="en", names=NAMES[:6])
    # "Success, Success, Fail, Magic. The Quest succeeds."
    state = to_cards(state, [GOOD_SORC, SORC_ASSASSIN, SERVANT_A, SERVANT_B])
    events = []
    for seat, card in ((GOOD_SORC, "magic"), (SORC_ASSASSIN, "fail"), (SERVANT_A, "success"), (SERVANT_B, "success")):
        state, events = act_events(state, seat, "play", choice=card)
    (line,) = [x for x in announcements(table, events) if "Quest 3" in x]
    assert line.startswith("✅ <b>Quest 3 succeeded</b> despite 1 Fail (")
    assert line.endswith("Magic reversed the result.")
    # "Success, Success, Magic. The Quest fails."
    state = to_cards(state, [EVIL_SORC, MERLIN, SERVANT_A])
    for seat, card in ((EVIL_SORC, "magic"), (MERLIN, "success"), (SERVANT_A, "success")):
        state, events = act_events(state, seat, "play", choice=card)
    (line,) = [x for x in announcements(table, events) if "Quest 4" in x]
    assert line.startswith("❌ <b>Quest 4 failed</b> with no Fail (")
    history = "\n".join(end_text.history(table, public_view(state)))
    assert ": success despite 1 Fail (" in history and ": failed with no Fail (" in history
