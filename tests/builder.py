"""The one way tests build a game: through the engine's ``new_game``, never by editing a state.

``new_game(config, seed, deal=..., first_leader=...)`` chooses the characters per seat and the first
Leader; the engine records both in the state (``deal``, ``chosen_leader``), so every built game replays
with ``replay_of``. ``make_state`` is the short form most rule tests use: characters listed per seat.
"""
from __future__ import annotations

from engine import Event, GameConfig, GameState, Theme, replay
from engine import new_game as engine_new_game

FILLERS = ("servant", "minion")


def new_game(
    config: GameConfig, seed: int = 0, deal=None, first_leader: int | None = None
) -> tuple[GameState, list[Event]]:
    """``engine.new_game`` with the test defaults: the state at its first decision and its events."""
    return engine_new_game(config, seed, deal=deal, first_leader=first_leader)


def replay_of(state: GameState) -> GameState:
    """The game rebuilt from what ``state`` records: seed, chosen deal and Leader, action log."""
    return replay(state.config, state.seed, state.log, state.deal, state.chosen_leader)


def config_for(
    roles: list[str],
    options: dict | None = None,
    theme: Theme = Theme.AVALON,
    assassin: str | None = None,
) -> GameConfig:
    """The configuration that deals ``roles`` (the fillers, Servants and Minions, are implied)."""
    specials = tuple(r for r in roles if r not in FILLERS)
    return GameConfig(
        theme=theme, players=len(roles), roles=specials, options=dict(options or {}), assassin=assassin
    )


def make_state(
    roles: list[str],
    leader: int = 0,
    options: dict | None = None,
    theme: Theme = Theme.AVALON,
    assassin: str | None = None,
    seed: int = 0,
) -> GameState:
    """A new game with ``roles[seat]`` dealt and ``leader`` leading first, at its first decision."""
    state, _ = new_game(config_for(roles, options, theme, assassin), seed, deal=roles, first_leader=leader)
    return state


def played_out(config: GameConfig, seed: int = 0) -> GameState:
    """A whole game of ``config`` played to its end by the engine's bots (moves drawn from ``seed``)."""
    import random

    from engine import actors, apply_action
    from engine.policy import ai_seat_move

    state, _ = engine_new_game(config, seed)
    rng = random.Random(seed)
    while not state.over:
        seat = rng.choice(actors(state))
        state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    return state
