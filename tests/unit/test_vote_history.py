"""The vote history during the game (the board's button, /votes): drawn from the public view only, sent
in private to whoever asked, once a minute each, with a text fallback and a link for someone the bot
cannot message."""
from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from engine import GameConfig, Theme, apply_action
from gamebot.messages.table import Table
from gamebot.story import votes_so_far
from localdev import updates as U
from tests.helpers import next_action, scrambled
from tests.reliability.support import SETUPS, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness

NAMES = [f"P{i}" for i in range(10)]


def _states(setup: str, seed: int, limit: int = 400):
    """Every state of a game of ``setup`` before its end (random legal moves and the AI seats' policy)."""
    from tests.builder import new_game

    theme, n, roles, options = SETUPS[setup]
    config = GameConfig(theme=Theme(theme), players=n, roles=tuple(roles), options=dict(options))
    rng = random.Random(seed)
    state, _ = new_game(config, seed)
    for _ in range(limit):
        if state.over:
            return
        yield state
        state, _ = apply_action(state, next_action(state, rng, "ai_seats"))


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(setup=st.sampled_from(sorted(SETUPS)), seed=st.integers(0, 10_000))
def test_the_history_is_the_same_whatever_the_secrets(setup, seed):
    """Two games that differ only in what is secret (roles, sides, knowledge, votes and cards not yet
    revealed) give the same history data and the same text, at every step."""
    rng = random.Random(seed)
    for state in _states(setup, seed):
        other = scrambled(state, None, rng)
        assert other.roles != state.roles
        data = votes_so_far.story(state, NAMES, "g1")
        assert data == votes_so_far.story(other, NAMES, "g1")
        table = Table(chat_id=GROUP, game_id="g1", lang="en", theme=data["view"]["theme"], names=NAMES)
        assert votes_so_far.text(table, data) == votes_so_far.text(table, votes_so_far.story(other, NAMES, "g1"))


def test_the_picture_is_the_same_whatever_the_secrets():
    states = list(_states("base", 5))
    state = states[len(states) * 2 // 3]  # mid-game: proposals, votes, quests, the Lady, Plot cards
    assert state.proposals and state.quests
    other = scrambled(state, None, random.Random(1))
    png = votes_so_far.picture(votes_so_far.story(state, NAMES, "g"), "en")
    assert png == votes_so_far.picture(votes_so_far.story(other, NAMES, "g"), "en")
    assert Image.open(io.BytesIO(png)).format == "PNG"


def test_the_text_tells_every_proposal_vote_and_quest_so_far():
    states = list(_states("base", 7))  # (a seed whose game has had the Lady and Excalibur by then)
    state = states[len(states) * 2 // 3]
    table = Table(chat_id=GROUP, game_id="g", lang="en", names=NAMES)
    text = "\n".join(votes_so_far.text(table, votes_so_far.story(state, NAMES, "g")))
    assert "Vote history" in text and f"round {state.round} in progress" in text
    revealed = [p for p in state.proposals if p.votes]
    assert text.count(" → ✅ ") == len(revealed)  # each team voted on: who approved, who rejected
    assert text.count("vote open") == len(state.proposals) - len(revealed)  # the one being voted on, if any
    assert sum(1 for line in text.split("\n") if ": failed" in line or ": success" in line) == len(state.quests)
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


# --- what is still going on is drawn as going on, never as a result -----------------------------------

FIVE = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def _round_two_vote_open():
    """Round 2 of a 5-player game: quest 1 succeeded; Bob's team (Ann, Bob, Cid) is being voted on and
    only Cid and Eve have voted."""
    from tests.builder import make_state
    from tests.helpers import act, propose, run_quest

    state = make_state(["merlin", "servant", "servant", "assassin", "minion"], seed=1)
    state, _ = run_quest(state, [0, 1])
    state, _ = propose(state, [0, 1, 2])
    state, _ = act(state, 2, "vote", choice="approve")
    state, _ = act(state, 4, "vote", choice="reject")
    assert state.stage == "vote"
    return state


def _round_two_quest_under_way():
    from tests.helpers import act

    state = _round_two_vote_open()
    for seat in (0, 1, 3):
        state, _ = act(state, seat, "vote", choice="approve")
    state, _ = act(state, 0, "play", choice="success")
    assert state.stage == "quest"
    return state


def _outcome_row(png: bytes, players: int) -> list[tuple[int, int, int]]:
    """The pixels of the picture's "Vote" row (one mark per Leader's turn: approved, rejected, open)."""
    from gamebot.story import picture_layout

    img = Image.open(io.BytesIO(png)).convert("RGB")
    lay = picture_layout.plan(players, [], 184)  # (the rows' heights depend on the number of players only)
    y = int(lay.outcome_top + picture_layout.CELL / 2)
    return [img.getpixel((x, y)) for x in range(img.width)]


def test_an_open_vote_is_a_turn_without_result_with_who_has_voted_so_far():
    from gamebot.story import by_round

    data = votes_so_far.story(_round_two_vote_open(), FIVE, "g")
    last = by_round.rounds(data["view"])[-1]
    (turn,) = last.turns
    assert turn.open and not turn.approved and turn.voted == [2, 4] and turn.votes == ""
    assert not last.underway and last.quest is None


def test_the_text_tells_an_open_vote_as_open():
    table = Table(chat_id=GROUP, game_id="g", lang="en", names=FIVE)
    text = "\n".join(votes_so_far.text(table, votes_so_far.story(_round_two_vote_open(), FIVE, "g")))
    assert "Team 1 · Bob: Ann, Bob and Cid → 🗳 vote open, 2 voted so far: Cid and Eve" in text
    assert "rejected" not in text and text.count("approved") == 1  # (round 1's team only)


def test_the_picture_draws_an_open_vote_as_open():
    from gamebot.story import picture_draw as pd

    png = votes_so_far.picture(votes_so_far.story(_round_two_vote_open(), FIVE, "g"), "en")
    row = _outcome_row(png, 5)
    assert pd.REJECT not in row  # no rejection drawn...
    assert row.count(pd.APPROVE) > 10  # ...round 1's approved team is (a disc 30 px wide)
    assert row.count(pd.MUTED) > 10  # and the open vote's ring and dots


def test_a_quest_under_way_is_told_and_drawn_without_a_result():
    from gamebot.story import by_round, picture_layout
    from gamebot.story import picture_draw as pd

    data = votes_so_far.story(_round_two_quest_under_way(), FIVE, "g")
    last = by_round.rounds(data["view"])[-1]
    assert last.underway and last.played == 1 and last.quest is None and last.team == [0, 1, 2]
    table = Table(chat_id=GROUP, game_id="g", lang="en", names=FIVE)
    text = "\n".join(votes_so_far.text(table, data))
    assert "⚔️ Ann, Bob and Cid: the quest is under way (cards played: 1 of 3)" in text
    assert ": success (" not in text.split("Round 2")[1] and "failed" not in text
    png = votes_so_far.picture(data, "en")
    img = Image.open(io.BytesIO(png)).convert("RGB")
    lay = picture_layout.plan(5, by_round.rounds(data["view"]), 184)
    circle = (int(lay.slot_centre(1)) - 20, picture_layout.TRACK_TOP + 52)  # quest 2's circle, left of its number
    assert img.getpixel(circle) == pd.NEUTRAL  # neither succeeded nor failed
