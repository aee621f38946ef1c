"""The picture tells the whole game: it draws for every set-up (every character and module, turns
that ran out of time, in English and French), its grid spans the width with each round's columns
under the circle of the quest it went for, turns are numbered as the players saw them, and the notes
under the grid carry what the grid cannot show. Checked on the layout computation, not on pixels."""
from __future__ import annotations

import io
import random

import pytest
from PIL import Image

import engine
from engine import Action, apply_action, public_view
from engine.policy import ai_seat_move
from gamebot.messages.table import Table
from gamebot.story import by_round, picture, picture_layout
from tests.builder import make_state
from tests.helpers import act, propose
from tests.reliability.support import SETUPS

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
CASES = {**SETUPS, "five": ("avalon", 5, ["merlin", "assassin"], {}),
         "five_resistance": ("resistance", 5, [], {"targeting": True})}


def played(setup, seed, absent=None):
    """A whole game played by bots, where ``absent`` always runs out of time (and others sometimes)."""
    theme, n, roles, options = CASES[setup]
    config = engine.GameConfig(theme=theme, players=n, roles=tuple(roles), options=options)
    state, _ = engine.new_game(config, seed)
    rng = random.Random(seed)
    while not state.over:
        seat = rng.choice(engine.actors(state))
        if seat == absent or rng.random() < 0.08:
            state, _ = apply_action(state, Action(seat=seat, kind="timeout"))
        else:
            state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    return state


def summary(state):
    return {"game_id": "g", "status": "ended", "names": NAMES[: state.n], "user_ids": list(range(state.n)),
            "view": public_view(state)}


def check_layout(pv):
    rounds = by_round.rounds(pv)
    lay = picture_layout.plan(pv["players"], rounds, 200, [c["result"] for c in pv["track"]])
    # the grid spans the picture: five equal slots from the names to the right margin
    assert lay.slot_left(0) == lay.grid_x and lay.grid_right == pytest.approx(lay.width - picture_layout.M)
    assert lay.width >= picture_layout.MIN_WIDTH
    quests = {q["round"]: q["quest"] for q in pv["quests"]}
    assert len({c.slot for c in lay.columns}) == len({r.number for r in rounds})  # a slot per round
    for r in rounds:
        mine = [c for c in lay.columns if c.round == r.number]
        assert [c.turn.number for c in mine] == list(range(1, len(r.turns) + 1))
        (slot,) = {c.slot for c in mine}
        if r.number in quests:
            assert slot == quests[r.number]  # under the circle of the quest it went for
        left, right = lay.slot_left(slot), lay.slot_left(slot) + lay.slot_w
        assert all(left <= c.x and c.x + picture_layout.CELL <= right for c in mine)
        assert [c.x for c in mine] == sorted(c.x for c in mine)
        middle = (mine[0].x + mine[-1].x + picture_layout.CELL) / 2
        assert middle == pytest.approx(lay.slot_centre(slot))  # centred under the circle
    return lay


@pytest.mark.parametrize("setup", sorted(CASES))
def test_the_picture_draws_every_setup_with_its_columns_under_the_quest_circles(setup):
    theme, n, _, _ = CASES[setup]
    for seed, absent in ((1, None), (2, n - 1)):
        state = played(setup, seed, absent)
        pv = public_view(state)
        lay = check_layout(pv)
        assert sum(len(r.turns) for r in by_round.rounds(pv)) == len(lay.columns) >= len(pv["proposals"])
        for lang in ("en", "fr"):
            image = Image.open(io.BytesIO(picture.render_png(summary(state), lang)))
            assert image.format == "PNG" and image.width >= picture_layout.MIN_WIDTH and image.height > n * picture.CELL


def test_with_targeting_a_round_sits_under_the_quest_it_went_for():
    pv = {"players": 5, "track": [{"quest": i, "size": 2, "fails_needed": 1, "result": None} for i in range(5)],
          "proposals": [{"round": 1, "quest": 3, "leader": 0, "team": [0, 1], "votes": "AAAAA", "approved": True},
                        {"round": 2, "quest": 0, "leader": 1, "team": [1, 2], "votes": "RRRRR", "approved": False},
                        {"round": 2, "quest": 1, "leader": 2, "team": [1, 2], "votes": "AAAAA", "approved": True}],
          "quests": [{"round": 1, "quest": 3, "team": [0, 1], "cards": {"success": 2}, "success": True},
                     {"round": 2, "quest": 1, "team": [1, 2], "cards": {"success": 2}, "success": True}],
          "timeouts": [{"round": 3, "when": "turn", "proposals": 3, "seat": 3, "kind": "propose", "hidden": False}]}
    lay = check_layout(pv)
    assert [(c.round, c.slot, c.turn.number) for c in lay.columns] == [(1, 3, 1), (2, 1, 1), (2, 1, 2), (3, 0, 1)]
    assert lay.columns[-1].turn.skipped  # round 3: no team proposed in time, under the first quest left


def test_a_long_round_widens_the_picture_rather_than_squeezing_its_columns():
    proposals = [{"round": 1, "quest": 0, "leader": i, "team": [0, 1], "votes": "R" * 10, "approved": False}
                 for i in range(5)]
    pv = {"players": 10, "track": [{"quest": i, "size": 3, "fails_needed": 1, "result": None} for i in range(5)],
          "proposals": proposals, "quests": []}
    lay = check_layout(pv)
    assert lay.slot_w >= 5 * picture_layout.CELL and lay.width > picture_layout.MIN_WIDTH


def test_the_picture_numbers_a_third_team_3_and_shows_the_turns_not_played_in_time():
    s = make_state(["merlin", "servant", "servant", "assassin", "minion"], leader=0)
    s, _ = apply_action(s, Action(seat=0, kind="timeout"))
    s, _ = apply_action(s, Action(seat=1, kind="timeout"))
    s, _ = propose(s, (2, 3))
    s, _ = apply_action(s, Action(seat=4, kind="timeout"))
    for seat in range(4):
        s, _ = act(s, seat, "vote", choice="reject")
    lay = check_layout(public_view(s))
    assert [(c.turn.number, c.turn.leader, c.turn.skipped) for c in lay.columns] == [
        (1, 0, True), (2, 1, True), (3, 2, False)]
    assert [t["seat"] for t in lay.columns[2].turn.timeouts] == [4]  # Erin's vote: a clock in her cell
    assert picture.render_png({"game_id": "g", "status": "ended", "names": NAMES[:5], "user_ids": [],
                               "view": public_view(s)}, "en").startswith(b"\x89PNG")


def test_the_notes_tell_what_the_grid_cannot_and_nothing_it_shows():
    pv = {"players": 5, "theme": "avalon", "winner": "good", "win_reason": "assassination_missed", "winners": [0, 2, 4],
          "roles": ["merlin", "assassin", "servant", "minion", "good_sorcerer"], "sides": ["good", "evil", "good", "evil", "good"],
          "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [0, 1], "votes": "AAARR", "approved": True},
                        {"round": 2, "quest": 1, "leader": 1, "team": [0, 2, 4], "votes": "AAAAA", "approved": True}],
          "quests": [{"round": 1, "quest": 0, "team": [0, 1], "cards": {"success": 2}, "success": True},
                     {"round": 2, "quest": 1, "team": [0, 2, 4], "cards": {"success": 2, "magic": 1}, "success": True}],
          "lady": {"holder": 2, "held": [4], "uses": [{"round": 1, "quest": 0, "holder": 4, "target": 2}]},
          "timeouts": [{"round": 1, "when": "proposal", "proposals": 1, "seat": 3, "kind": "vote", "hidden": False},
                       {"round": 2, "when": "quest", "proposals": 2, "seat": 2, "kind": "play", "hidden": False},
                       {"round": 3, "when": "end", "proposals": 2, "seat": 1, "kind": "assassinate", "hidden": False}],
          "assassination": {"assassin": 1, "kind": "merlin", "named": [3], "hit": False}}
    table = Table(chat_id=0, game_id="g", names=NAMES[:5])
    blocks = picture.notes(table, pv, by_round.rounds(pv))
    assert [[n.text for n in block] for block in blocks] == [
        ["Round 1 · Quest 1", "🌊 Erin used the Lady of the Lake on Carol"],
        ["Round 2 · Quest 2", "⏰ Out of time (Quest cards): Carol",
         "⚔️ Alice, Carol and Erin: success (1 × ✨ Magic, 2 × ✅ Success)"],
        ["After the quests", "🗡 Bob names Dave... who is not Merlin!", "⏰ Out of time (Assassination): Bob"],
    ]
    assert [n.bold for n in blocks[0]] == [True, False]
    png = picture.render_png({"game_id": "g", "status": "ended", "names": NAMES[:5], "user_ids": [], "view": pv}, "fr")
    assert png.startswith(b"\x89PNG")
