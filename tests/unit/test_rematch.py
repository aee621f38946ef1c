"""Rematch: the game-over message's "Play again" opens a lobby with the same settings, the last game's
players listed as invited; each joins with one tap (the same button, or Join)."""
from __future__ import annotations

import random

from localdev.autoplay import FRENCH, Driver, Policy
from tests.reliability.support import set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session

PLAYERS = [1, 2, 3, 4, 5]
ROLES = ["merlin", "assassin", "percival", "morgana"]
OPTIONS = {"lady_of_the_lake": True}


def _played(h: Harness, words=None) -> None:
    kw = {"join": words.join} if words else {}
    h.lobby(PLAYERS, **kw)
    set_settings(h.repo, GROUP, "avalon", ROLES, OPTIONS)
    h.press_label(1, GROUP, words.start if words else "Start")
    driver = Driver(HarnessScreen(h), GROUP, PLAYERS, Policy(rng=random.Random(3)), **({"words": words} if words else {}))
    driver.play()
    while h.idle():
        pass
    assert driver.over()



def test_play_again_opens_a_lobby_with_the_same_settings_and_the_players_invited(h):
    _played(h)
    ended = session(h)
    over, button = h.io.with_button(GROUP, "Play again")
    assert "Game over" in "".join(m.text for m in h.io.chat(GROUP)[-4:])
    h.press(2, over, button.data)
    s = session(h)
    assert s.status == "lobby" and s.game_id != ended.game_id and s.rematch_of == ended.game_id
    assert s.host == 2 and [p.id for p in s.players] == [2]
    assert s.settings == ended.settings and s.last["game_id"] == ended.game_id
    while h.idle():  # (the new lobby goes out as soon as the group's budget allows, after the game's end)
        pass
    lobby = h.io.last(GROUP)
    assert "Invited back from the last game" in lobby.text
    for p in ended.players:
        if p.id != 2:
            assert f'<a href="tg://user?id={p.id}">{p.name}</a>' in lobby.text


def test_each_invited_player_joins_with_one_tap(h):
    _played(h)
    names = {p.id: p.name for p in session(h).players}
    over, button = h.io.with_button(GROUP, "Play again")
    h.press(2, over, button.data)
    h.press(3, over, button.data)  # the same button again: joins the lobby it opened
    assert h.last_answer().text == "You joined the game."
    h.press_label(4, GROUP, "Join")
    s = session(h)
    assert [p.id for p in s.players] == [2, 3, 4]
    while h.idle():  # (the lobby's edits are progress: its latest state goes out within the group's budget)
        pass
    lobby = h.io.last(GROUP).text
    assert names[1] in lobby.split("Invited back")[1] and names[5] in lobby.split("Invited back")[1]
    assert names[3] not in lobby.split("Invited back")[1]
    for uid in (1, 5):
        h.press(uid, over, button.data)
    while h.idle():
        pass
    assert "Invited back" not in h.io.last(GROUP).text  # everyone is back
    h.press_label(2, GROUP, "Start")
    assert session(h).status == "playing" and not session(h).invited
    h.press(1, over, button.data)  # a game of the rematch runs: the old button can do nothing (not /newgame)
    assert "A game is being played here now" in h.last_answer().text and h.last_answer().alert


def test_a_game_cancelled_in_between_makes_the_button_out_of_date(h):
    _played(h)
    over, button = h.io.with_button(GROUP, "Play again")
    h.command(1, "/newgame")
    h.command(1, "/cancel")
    h.press(2, over, button.data)
    assert "Another game has begun" in h.last_answer().text


def test_in_french(h):
    for uid in PLAYERS:
        h.langs[uid] = "fr"
    _played(h, FRENCH)
    h.press_label(2, GROUP, "Rejouer")
    while h.idle():
        pass
    assert "Les joueurs de la dernière partie" in h.io.last(GROUP).text


def test_play_again_joins_a_lobby_that_newgame_opened_instead_of_pointing_at_newgame(h):
    _played(h)
    over, button = h.io.with_button(GROUP, "Play again")
    h.command(1, "/newgame")  # someone opens the next lobby the usual way
    h.press(2, over, button.data)
    assert h.last_answer().text == "You joined the game."
    assert [p.id for p in session(h).players] == [1, 2]


def test_the_play_again_button_goes_once_the_next_game_starts(h):
    _played(h)
    over, button = h.io.with_button(GROUP, "Play again")
    h.command(1, "/newgame")
    for uid in (2, 3, 4, 5):
        h.press(uid, over, button.data)  # the button joins the open lobby: it stays meanwhile
    assert h.io.msgs[(GROUP, over.message_id)].keyboard
    h.press_label(1, GROUP, "Start")
    while h.idle():
        pass
    assert session(h).status == "playing"
    assert not h.io.msgs[(GROUP, over.message_id)].keyboard  # taken away: it could do nothing now
    h.press(1, over, button.data)  # (pressed anyway, before the edit arrived)
    assert "A game is being played here now" in h.last_answer().text


def test_the_play_again_button_goes_when_a_lobby_of_another_game_closes(h):
    _played(h)
    over, button = h.io.with_button(GROUP, "Play again")
    h.command(1, "/newgame")
    h.command(1, "/cancel")
    while h.idle():
        pass
    assert not h.io.msgs[(GROUP, over.message_id)].keyboard
