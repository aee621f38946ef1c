import random

from engine import GameConfig, new_game, replay
from engine.policy import play_to_end


def test_ai_seats_finish_a_game_and_it_replays_from_seed():
    config = GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"))
    state, _ = new_game(config, 11)
    state = play_to_end(state, random.Random(5))
    assert state.over and state.winner is not None
    assert replay(config, 11, state.log) == state
