"""Property test: within one decision point nothing but the acting seat's decision changes.

A decision point is the engine state's ``serial``: the number of actions before it, the votes of a vote
and the cards of a quest not counted, so that it stays the same while a vote or a quest collects the
answers of several seats. A move that keeps the serial, in the vote or the quest stage, is
``session.collecting``:
``compose.game.game_outs`` relies on it to skip work on the commonest moves (a vote, a quest card that
is not the last): it draws no board (the board names no voter, so its text cannot change) and looks for
no new decision (the seat that acted has one fewer, nobody has a new one). (The same serial alone is not
enough: an Opinion Maker votes openly, before the others, and keeps it while the next one, or everyone
else, is asked.) Random legal games of every character, module, option and variant at once, by the AI seats'
policy and by purely random legal moves, check both, move by move.
"""
from __future__ import annotations

import random

import pytest

from engine import prompts, public_view
from gamebot.messages.board import board
from gamebot.messages.table import Table
from gamebot.storage.session import collecting
from tests.helpers import play_game
from tests.unit.audit_helpers import random_setup

GAMES = 60


def _setup(seed: int):
    rng = random.Random(seed)
    while True:
        config = random_setup(rng)
        if config is not None:
            return config, rng.randrange(2**31), ("ai_seats", "random")[seed % 2]


def _table(state) -> Table:
    return Table(chat_id=-100, game_id="g", title="Table", lang="en", theme=state.config.theme.value,
                 names=[f"P{i + 1}" for i in range(state.n)], user_ids=list(range(1, state.n + 1)),
                 bot_username="bot", limit=300, due=1_800_000_000)


@pytest.mark.parametrize("seed", range(GAMES))
def test_within_a_decision_point_only_the_actor_changes(seed):
    config, game_seed, policy = _setup(seed)
    game = play_game(config, game_seed, policy=policy)
    assert game.final.over
    table = _table(game.start)
    same = 0
    for step in game.steps:
        before, after, action = step.before, step.after, step.action
        if not collecting(before, after):
            continue
        same += 1
        assert not after.over
        assert board(table, public_view(after)) == board(table, public_view(before)), (action, before.stage)
        for seat in range(after.n):
            now = [p.kind for p in prompts(after, seat)]
            if seat == action.seat:
                assert len(now) < len(prompts(before, seat)), (action, now)
            else:
                assert now == [p.kind for p in prompts(before, seat)], (seat, action, now)
    assert same > 0  # (every game has votes)
