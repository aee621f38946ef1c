"""A player never needs a toast to know where a decision stands (``gamebot.handlers.selection``).

Every tap on a keyboard of toggles draws it again at once: the Leader's team picker marks each chosen
player ✅, names them ("Selected: ...") and counts them on Propose; a select-mode private prompt (the
Plot card deal) marks the chosen card 🔘 and the chosen player ✅ and counts on Confirm. A confirm pressed
too early says exactly what is missing, before the engine is asked. A second vote or quest card is told
what the presser already did.
"""
from __future__ import annotations

import pytest

from engine.models import Prompt
from gamebot.handlers import selection
from gamebot.language import texts
from gamebot.storage.session import Selection
from localdev import updates as U
from tests.reliability.support import set_settings
from tests.unit.flood_fakes import FloodHarness
from tests.unit.gamebot_fakes import GROUP, Harness, Msg, session

PLAYERS = [1, 2, 3, 4, 5]


def name(uid: int) -> str:
    return U.user(uid)["first_name"]


def labels(msg: Msg) -> list[str]:
    return [b.text for row in msg.keyboard or [] for b in row]


def _picker(h: Harness) -> tuple[int, Msg]:
    h.lobby(PLAYERS)
    h.press_label(PLAYERS[0], GROUP, "Start")
    leader = PLAYERS[session(h).game().leader]
    return leader, h.io.with_button(leader, "Propose team")[0]


def test_every_tap_on_the_team_picker_shows_the_team_so_far(h):
    leader, picker = _picker(h)
    first, second = name(PLAYERS[1]), name(PLAYERS[2])
    drawn = len(picker.history)
    h.press_label(leader, leader, first)
    assert len(picker.history) == drawn + 1  # drawn again at once
    assert f"✅ {first}" in labels(picker) and f"▫️ {second}" in labels(picker)
    assert f"Selected: {first}" in picker.text and "✔️ Propose team (1/2)" in labels(picker)
    assert h.last_answer().text == f"Selected: {first}"  # the toast says it too
    h.press_label(leader, leader, second)
    assert f"✅ {first}" in labels(picker) and f"✅ {second}" in labels(picker)
    assert f"Selected: {first} and {second}" in picker.text and "✔️ Propose team (2/2)" in labels(picker)
    h.press_label(leader, leader, first)  # what looks chosen is chosen: a tap takes it out
    assert f"▫️ {first}" in labels(picker) and f"✅ {second}" in labels(picker)
    assert f"Selected: {second}" in picker.text and "✔️ Propose team (1/2)" in labels(picker)
    assert len(picker.history) == drawn + 3
    assert session(h).sel["g"].targets == [2]  # the seat of the second name: the screen is the selection


def test_proposing_too_few_players_says_how_many_are_missing_before_the_engine_is_asked(h):
    leader, picker = _picker(h)
    h.press_label(leader, leader, "Propose team")
    answer = h.last_answer()
    assert (answer.text, answer.alert) == ("Choose 2 players: none chosen yet.", True)
    h.press_label(leader, leader, name(PLAYERS[3]))
    h.press_label(leader, leader, "Propose team")
    assert h.last_answer().text == "Choose 2 players: 1 chosen so far."
    assert session(h).game().proposals == []  # nothing was proposed
    assert f"✅ {name(PLAYERS[3])}" in labels(picker)  # and the picker still shows the pick


# --- a select-mode private prompt: the Plot card deal ----------------------------------------------------


def _deal(h: Harness) -> tuple[int, Msg, list[str]]:
    """Seven players with Plot cards: the Leader's deal of the two cards drawn (a card and a player)."""
    players = list(range(1, 8))
    h.lobby(players)
    set_settings(h.repo, GROUP, "resistance", [], {"plot_cards": True})
    h.press_label(1, GROUP, "Start")
    state = session(h).game()
    assert state.pending and state.pending[0].kind == "plot_deal"
    leader = players[state.leader]
    found = h.io.with_button(leader, "Confirm")
    assert found is not None
    msg = found[0]
    cards = [b for b in labels(msg) if not b.startswith(("▫️", "✅", "✔️"))]
    assert len(cards) == 2
    return leader, msg, cards


def test_every_toggle_on_the_plot_card_deal_shows_the_card_and_the_player(h):
    leader, msg, cards = _deal(h)
    drawn = len(msg.history)
    h.press_label(leader, leader, cards[1])
    assert len(msg.history) == drawn + 1  # before, a card chosen changed nothing on screen
    assert f"🔘 {cards[1]}" in labels(msg) and cards[0] in labels(msg) and f"🔘 {cards[0]}" not in labels(msg)
    assert f"Selected: {cards[1]}" in msg.text and "✔️ Confirm (0/1)" in labels(msg)
    target = next(b for b in labels(msg) if b.startswith("▫️")).removeprefix("▫️ ")
    h.press_label(leader, leader, target)
    assert f"✅ {target}" in labels(msg) and f"🔘 {cards[1]}" in labels(msg)
    assert f"Selected: {target} · {cards[1]}" in msg.text and "✔️ Confirm (1/1)" in labels(msg)
    h.press_label(leader, leader, cards[0])  # another card: the mark moves
    assert f"🔘 {cards[0]}" in labels(msg) and f"🔘 {cards[1]}" not in labels(msg)
    assert len(msg.history) == drawn + 3


def test_confirming_the_plot_card_deal_too_early_says_what_is_missing(h):
    leader, msg, cards = _deal(h)
    h.press_label(leader, leader, "Confirm")
    answer = h.last_answer()
    assert (answer.text, answer.alert) == ("Choose a card first.\nChoose a player first.", True)
    h.press_label(leader, leader, cards[0])
    h.press_label(leader, leader, "Confirm")
    assert h.last_answer().text == "Choose a player first."
    h.press_label(leader, leader, cards[0])  # the card taken back, a player chosen
    h.press_label(leader, leader, next(b for b in labels(msg) if b.startswith("▫️")).removeprefix("▫️ "))
    h.press_label(leader, leader, "Confirm")
    assert h.last_answer().text == "Choose a card first."
    assert session(h).game().pending[0].kind == "plot_deal"  # nothing was dealt


@pytest.mark.parametrize("lang", sorted(texts.languages()))
def test_what_is_missing_is_said_in_every_language(lang):
    messengers = Prompt(kind="assassinate", seat=0, pick=2, targets=[1, 2, 3], info={"target": "messengers"})
    deal = Prompt(kind="plot_deal", seat=0, pick=1, targets=[1, 2], choices=["no_confidence", "opinion_maker"])
    one = Selection(serial=1, kind="assassinate", targets=[2])
    said = {
        "players": selection.prompt_missing(messengers, one, lang, "avalon"),
        "card and player": selection.prompt_missing(deal, None, lang, "resistance"),
        "team": selection.team_missing(Prompt(kind="propose", seat=0, pick=3), Selection(serial=1, kind="propose",
                                                                                        targets=[0]), lang, "avalon"),
    }
    assert selection.prompt_missing(messengers, Selection(serial=1, kind="assassinate", targets=[1, 2]),
                                    lang, "avalon") is None
    for what, text in said.items():
        assert text and "{" not in text and "#" not in text, (what, text)
    assert "2" in said["players"] and "1" in said["players"] and "3" in said["team"]
    assert len(said["card and player"].split("\n")) == 2
    if lang == "en":
        assert said["team"] == "Choose 3 players: 1 chosen so far."
    else:  # written in the language, not English
        assert said["team"] != texts.t("select.need_players", "en", size=3, count=1)


# --- a second press on the round message --------------------------------------------------------------


def _vote(h: Harness) -> Msg:
    leader, _ = _picker(h)
    for uid in PLAYERS[:2]:
        h.press_label(leader, leader, name(uid))
    h.press_label(leader, leader, "Propose team")
    return h.io.with_button(GROUP, "Approve")[0]


def test_a_second_vote_press_is_told_the_vote_already_cast(h):
    vote = _vote(h)
    h.press_label(PLAYERS[2], GROUP, "Approve")
    h.press_label(PLAYERS[2], GROUP, "Reject")
    answer = h.last_answer()
    assert (answer.text, answer.alert) == ("You already voted ✅ Approve.", False)  # to the presser alone
    h.command(PLAYERS[3], "/language fr", chat_id=PLAYERS[3])  # their own language, chosen in private
    h.press_label(PLAYERS[3], GROUP, "Reject")
    h.press_label(PLAYERS[3], GROUP, "Reject")
    assert h.last_answer().text == "Vous avez déjà voté : ❌ Rejeter."
    assert session(h).game().votes == {2: True, 3: False}
    assert "Approve" not in vote.text.partition("Voted")[2]  # the group still sees who voted, never how


def test_a_second_quest_card_press_is_told_the_card_already_played(h):
    _vote(h)
    for uid in PLAYERS:
        h.press_label(uid, GROUP, "Approve")
    state = session(h).game()
    player = PLAYERS[state.team[0]]
    h.press_label(player, GROUP, "Success")
    h.press_label(player, GROUP, "Fail")
    assert h.last_answer().text == "You already played ✅ Success."
    assert session(h).game().cards == {state.team[0]: "success"}


# --- fast taps under Telegram's flood control ---------------------------------------------------------


def _shown(text: str) -> set[str]:
    """The names a picker's text says are selected."""
    line = next(ln for ln in text.split("\n") if ln.startswith("Selected: "))
    said = line.removeprefix("Selected: ")
    return set() if said == "nobody yet" else set(said.replace(" and ", ", ").split(", "))


@pytest.mark.parametrize("seed", range(8))
def test_fast_taps_end_with_the_latest_selection_and_never_show_an_older_one_after_a_newer(seed):
    """Taps four a second while Telegram refuses edits in that private chat now and then (1 to 8 s): the
    short waits are waited out, the longer ones held back in the outbox, where the next tap's edit replaces
    the older one. What the Leader sees goes only forward through their taps and ends with the last."""
    h = FloodHarness(seed=3, flood={"per_minute": 20, "max_retry_after": 8, "seed": seed})
    try:
        leader, picker = _picker(h)
        h.drain()
        h.flood.spurious_rate = 0.5  # (from now on: the setup's messages are all in)
        h.pace = 0.25
        others = [name(uid) for uid in PLAYERS if uid != leader][:3]
        taps = [others[0], others[1], others[0], others[2], others[2], others[0], others[1], others[2], others[2], others[0]]
        chosen: set[str] = set()
        after: list[set[str]] = []  # the selection after each tap
        shown_before = len(picker.history)
        for who in taps:
            h.press_label(leader, leader, who)
            if who in chosen or len(chosen) < 2:  # (a third player is refused: the team has 2)
                chosen ^= {who}
            after.append(set(chosen))
        h.flood.spurious_rate = 0.0
        h.drain()  # time passes: what was held back goes out
        assert _shown(picker.text) == after[-1] == set()  # the latest selection is on screen (the last tap
        assert labels(picker)[-1] == "✔️ Propose team (0/2)"  # took the only name out: nobody, 0 of 2)
        seen = [_shown(text) for text in picker.history[shown_before:]]
        step = 0  # each state shown is one the taps went through, in their order
        for state in seen:
            while step < len(after) and after[step] != state:
                step += 1
            assert step < len(after), (seen, after)
        assert any(r.chat_id == leader for r in h.flood.refusals)  # (Telegram did refuse some)
    finally:
        h.close()
