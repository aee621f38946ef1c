"""The policy at the table: a seat's move from a game state, and whole games played by the policy.

Every move goes through ``view(state, seat)``: the policy never reads the game state itself.
"""
from __future__ import annotations

import random
from collections.abc import Iterator

from ..models import Action, Event, GameState


def ai_seat_move(state: GameState, seat: int, rng: random.Random) -> Action | None:
    """The policy's move for ``seat`` of the game ``state`` (an AI seat's move): ``decide`` on
    ``view(state, seat)``, so the decision rests on what that seat may know only; None when the seat has
    nothing to do."""
    from ..views import view
    from . import decide

    return decide(view(state, seat), rng)


def play_random_game(state: GameState, rng: random.Random,
                     max_actions: int = 5000) -> Iterator[tuple[Action, GameState, list[Event]]]:
    """Drive a game to its end with the policy at every seat (a random seat among those who may act
    moves next); yields (action, new_state, events) after each move."""
    from ..game import actors, apply_action

    for _ in range(max_actions):
        if state.over:
            return
        seat = rng.choice(actors(state))
        action = ai_seat_move(state, seat, rng)
        assert action is not None
        state, events = apply_action(state, action)
        yield action, state, events
    raise RuntimeError("game did not end")


def play_to_end(state: GameState, rng: random.Random, max_actions: int = 5000) -> GameState:
    """Let the policy play every seat until the game ends; returns the final state."""
    for _action, state, _events in play_random_game(state, rng, max_actions):  # noqa: B007, B020
        pass
    return state
