"""The vote history during the game (the board's button, /votes): drawn from the public view only, sent
in private to whoever asked, once a minute each, with a text fallback and a link for someone the bot
cannot message."""
from __future__ import annotations

import io
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from engine import GameConfig, Theme, apply_action
from gamebot import vote_history
from gamebot.presenter.table import Table
from localdev import updates as U
from tests.helpers import next_action, scrambled
from tests.reliability.support import SETUPS, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness

NAMES = [f"P{i}" for i in range(10)]


def _states(setup: str, seed: int, limit: int = 400):
    """Every state of a game of ``setup`` before its end (random legal moves and bots' moves)."""
    from tests.builder import new_game

    theme, n, roles, options = SETUPS[setup]
    config = GameConfig(theme=Theme(theme), players=n, roles=tuple(roles), options=dict(options))
    rng = random.Random(seed)
    state, _ = new_game(config, seed)
    for _ in range(limit):
        if state.over:
            return
        yield state
        state, _ = apply_action(state, next_action(state, rng, "bots"))


@settings(max_examples=12, deadline=None)
@given(setup=st.sampled_from(sorted(SETUPS)), seed=st.integers(0, 10_000))
def test_the_history_is_the_same_whatever_the_secrets(setup, seed):
    """Two games that differ only in what is secret (roles, sides, knowledge, votes and cards not yet
    revealed) give the same history data and the same text, at every step."""
    rng = random.Random(seed)
    for state in _states(setup, seed):
        other = scrambled(state, None, rng)
        assert other.roles != state.roles
        data = vote_history.story(state, NAMES, "g1")
        assert data == vote_history.story(other, NAMES, "g1")
        table = Table(chat_id=GROUP, game_id="g1", lang="en", theme=data["view"]["theme"], names=NAMES)
        assert vote_history.text(table, data) == vote_history.text(table, vote_history.story(other, NAMES, "g1"))


def test_the_picture_is_the_same_whatever_the_secrets():
    states = list(_states("base", 5))
    state = states[len(states) * 2 // 3]  # mid-game: proposals, votes, quests, the Lady, Plot cards
    assert state.proposals and state.quests
    other = scrambled(state, None, random.Random(1))
    png = vote_history.picture(vote_history.story(state, NAMES, "g"), "en")
    assert png == vote_history.picture(vote_history.story(other, NAMES, "g"), "en")
    assert Image.open(io.BytesIO(png)).format == "PNG"


def test_the_text_tells_every_proposal_vote_and_quest_so_far():
    states = list(_states("base", 5))
    state = states[len(states) * 2 // 3]
    table = Table(chat_id=GROUP, game_id="g", lang="en", names=NAMES)
    text = "\n".join(vote_history.text(table, vote_history.story(state, NAMES, "g")))
    assert "Vote history" in text and f"round {state.round} in progress" in text
    assert text.count(" → ✅ ") == len(state.proposals)  # each team: who approved, who rejected
    assert sum(1 for line in text.split("\n") if ": failed (" in line or ": success (" in line) == len(state.quests)
    assert "Lady of the Lake" in text and "Excalibur" in text and "🃏" in text


def _game(h: Harness, players=(1, 2, 3, 4, 5), setup: str | None = None) -> None:
    h.lobby(list(players))
    if setup:
        theme, _, roles, options = SETUPS[setup]
        set_settings(h.repo, GROUP, theme, roles, options)
    h.press_label(players[0], GROUP, "Start")



def test_the_board_carries_the_button_on_every_edit_while_the_game_runs(h):
    _game(h)
    board = [o for o in h.io.outs if o.tag == "board" and o.chat_id == GROUP]
    assert board and all(o.keyboard and "Vote history" in o.keyboard[0][0].text for o in board)


def test_the_button_sends_the_picture_in_private_and_nothing_to_the_group(h):
    _game(h)
    group_before = len(h.io.texts(GROUP))
    h.press_label(3, GROUP, "Vote history")
    assert h.last_answer().text == "I sent you the vote history in private."
    (photo,) = h.io.photos(3)
    assert "vote history so far" in photo.text
    assert Image.open(io.BytesIO(photo.photo)).format == "PNG"
    assert len(h.io.texts(GROUP)) == group_before


def test_at_most_once_a_minute_each(h):
    _game(h)
    h.press_label(3, GROUP, "Vote history")
    h.clock.now += 30
    h.press_label(3, GROUP, "Vote history")
    assert "again in 29 s" in h.last_answer().text  # (each update is a second later)
    h.press_label(4, GROUP, "Vote history")  # someone else's minute is their own
    assert len(h.io.photos(3)) == 1 and len(h.io.photos(4)) == 1
    h.clock.now += 31
    h.press_label(3, GROUP, "Vote history")
    assert len(h.io.photos(3)) == 2


def test_the_votes_command_answers_in_private_only(h):
    _game(h)
    group_before = len(h.io.texts(GROUP))
    h.command(2, "/votes")
    assert len(h.io.photos(2)) == 1
    h.command(2, "/votes")  # too soon: said in private, not in the group
    assert "again in" in h.io.texts(2)[-1]
    h.command(2, "/votes", chat_id=2)  # in private: the game of their group
    assert len(h.io.texts(GROUP)) == group_before


def test_someone_the_bot_cannot_message_gets_the_link(h):
    _game(h)
    h.press_label(77, GROUP, "Vote history")  # a member of the group who never opened the private chat
    answer = h.last_answer()
    assert answer.url.startswith(f"https://t.me/{U.BOT_USERNAME}?start=r")
    assert not h.io.chat(77)
    h.command(78, "/votes")
    assert f"t.me/{U.BOT_USERNAME}?start=r" in h.io.texts(GROUP)[-1]


def test_a_picture_that_cannot_be_sent_is_told_in_text(h):
    _game(h, setup="base", players=tuple(range(1, 11)))
    h.io.photo_error = "bad_request"
    h.command(5, "/votes")
    assert not h.io.photos(5)
    assert "Vote history" in h.io.texts(5)[-1] and "round 1 in progress" in h.io.texts(5)[-1]


def test_no_game_no_history(h):
    h.command(1, "/votes")
    assert "No game is in progress" in h.io.texts(GROUP)[-1]
    h.send(U.start(h.user(1)))
    h.command(1, "/votes", chat_id=1)
    assert "not in a game in progress" in h.io.texts(1)[-1]


def test_in_french(h):
    for uid in range(1, 6):
        h.langs[uid] = "fr"
    h.lobby([1, 2, 3, 4, 5], join="Rejoindre")
    h.press_label(1, GROUP, "Commencer")
    h.press_label(2, GROUP, "Historique des votes")
    assert h.last_answer().text == "Je vous ai envoyé l'historique des votes en privé."
    assert "l'historique des votes jusqu'ici" in h.io.photos(2)[0].text
