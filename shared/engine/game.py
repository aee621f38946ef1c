"""The game's entry points: deal a new game, apply one move (or a timeout), replay a log.

The round itself lives in small modules: ``engine.validation`` (is a configuration playable),
``engine.turns`` (the input stages: propose, vote, play), ``engine.stages`` (the hook stages and the
machine that runs them), ``engine.quest_rules`` (slots, team sizes, allowed cards) and
``engine.queries`` (prompts, who the table waits for, legal actions). ``apply_action`` never mutates
its argument: it works on a copy and returns the new state and the events it produced, so an illegal
action leaves the state exactly as it was.
"""
from __future__ import annotations

from typing import TypedDict

from . import timeouts
from .basics import QUESTS
from .errors import (
    GameOver,
    IllegalAction,
    InvalidChoice,
    InvalidConfig,
    InvalidTarget,
    NotYourTurn,
    WrongPhase,
)
from .event_types import Ident, RoleId, Seat, SideId, event
from .models import Action, Event, GameConfig, GameState, copy_state
from .plugin import ALL, ROLES, TIMEOUT, Ctx, issue
from .queries import actors, legal_actions, prompts, waiting_for
from .quest_rules import allowed_cards, current_slot, quest_slots, table_cards, team_size
from .reveal import compute_reveal
from .stages import advance, next_team
from .turns import HANDLERS, INPUT_STAGES
from .validation import dealt_deck, validate_config

# The events this file emits (``engine.event_types``)


@event
class GameStarted(TypedDict):
    players: int
    theme: Ident
    leader: Seat


@event(private=True)
class RoleDealt(TypedDict):
    role: RoleId
    side: SideId


@event
class TeamNotProposed(TypedDict):
    leader: Seat
    rejections: int


def new_game(
    config: GameConfig,
    seed: int,
    deal: list[str] | tuple[str, ...] | None = None,
    first_leader: int | None = None,
) -> tuple[GameState, list[Event]]:
    """Deal the roles, pick the first Leader, run the reveal and stop at the first decision.

    ``deal``: the character of each seat, chosen instead of shuffled (tests, what-if checks). It must
    be the deck this configuration deals; the game draws the same randomness as the seeded shuffle, so
    everything after the deal (first Leader, Plot deck...) is what the seed alone would give.
    ``first_leader``: the seat that leads first, chosen instead of drawn (the draw still happens, for
    the same reason). Both are recorded in the state (``GameState.deal``, ``GameState.chosen_leader``)
    so that the game replays."""
    problems = [i for i in validate_config(config) if i.level == "error"]
    if problems:
        raise InvalidConfig(problems)
    n = config.players
    state = GameState(
        config=config,
        seed=seed,
        roles=[],
        sides=[],
        knowledge=[[] for _ in range(n)],
        first_leader=0,
        leader=0,
    )
    ctx = Ctx(state)
    deck = dealt_deck(config)
    ctx.rng().shuffle(deck)
    if deal is not None:
        if sorted(deal) != sorted(deck):
            raise InvalidConfig(
                [issue("error", "bad_deal", "The deal must hold exactly the characters of this game.")]
            )
        deck = list(deal)
        state.deal = list(deal)
    state.roles = deck
    state.sides = [ROLES[r].side for r in deck]
    state.first_leader = state.leader = ctx.rng().randrange(n)
    if first_leader is not None:
        if not 0 <= first_leader < n:
            raise InvalidConfig([issue("error", "bad_leader", "The first Leader must be a seat of this game.")])
        state.first_leader = state.leader = state.chosen_leader = first_leader
    for plugin in ctx.plugins():
        plugin.setup(ctx)
    compute_reveal(ctx)
    ctx.emit("GameStarted", players=n, theme=config.theme.value, leader=state.leader)
    for seat in range(n):
        ctx.emit("RoleDealt", to=[seat], role=state.roles[seat], side=state.sides[seat].value)
    state.stage = "reveal"
    advance(ctx)
    return state, ctx.events


def apply_action(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """Apply one move. Returns the new state and the events; raises IllegalAction if refused."""
    if state.over:
        raise GameOver("The game is over.")
    if not 0 <= action.seat < state.n:
        raise InvalidTarget("That seat is not at this table.", seat=action.seat)
    if action.kind == TIMEOUT:
        new, ctx = _timeout(state, action)
    else:
        new = _copy(state)
        ctx = Ctx(new)
        _route(ctx, action)
    new.log.append(action.encode())
    advance(ctx)
    return new, ctx.events


def _copy(state: GameState) -> GameState:
    return copy_state(state)  # (a deep copy: engine.models)


def _route(ctx: Ctx, action: Action) -> None:
    """Hand ``action`` to the decision waiting first, or to the input stage's handler."""
    new = ctx.state
    if new.pending:
        pending = new.pending[0]
        if action.seat not in pending.actors:
            raise NotYourTurn("Someone else has to decide first.", waiting=pending.kind)
        if action.kind != pending.kind:
            raise WrongPhase(f"Now is the time for '{pending.kind}', not '{action.kind}'.")
        new.pending.pop(0)
        ALL[pending.owner].handle(ctx, pending, action)
    else:
        handler = HANDLERS.get(new.stage)
        expected = INPUT_STAGES.get(new.stage)
        if handler is None or action.kind != expected:
            raise WrongPhase(f"You cannot '{action.kind}' now.", stage=new.stage)
        handler(ctx, action)


def _timeout(state: GameState, action: Action) -> tuple[GameState, Ctx]:
    """``action.seat`` ran out of time: apply the default move the rules give it (engine.timeouts)."""
    if action.targets or action.choice is not None or action.quest is not None:
        raise InvalidChoice("A timeout carries no choice: the rules decide what it does.")
    now = prompts(state, action.seat)
    if not now:
        raise NotYourTurn("Nobody is waiting for that seat.", seat=action.seat)
    prompt = now[0]
    new = _copy(state)
    ctx = Ctx(new)
    pending = new.pending[0] if new.pending else None
    timeouts.announce(ctx, action.seat, prompt.kind, pending)
    if pending is None and new.stage == "team":
        new.vote_track += 1
        ctx.emit("TeamNotProposed", leader=action.seat, rejections=new.vote_track)
        next_team(ctx)
        return new, ctx
    for move in timeouts.candidates(ctx, prompt, pending):
        trial = _copy(new)
        trial_ctx = Ctx(trial)
        trial_ctx.events = list(ctx.events)
        try:
            _route(trial_ctx, move)
        except IllegalAction:
            continue
        timeouts.applied(trial_ctx, move)
        return trial, trial_ctx
    raise IllegalAction(f"No default move is accepted for '{prompt.kind}'.", code="no_default", kind=prompt.kind)


def replay(
    config: GameConfig,
    seed: int,
    log: list[str],
    deal: list[str] | None = None,
    first_leader: int | None = None,
) -> GameState:
    """Rebuild a game from its seed and action log (and its chosen deal and first Leader, if any:
    ``replay(s.config, s.seed, s.log, s.deal, s.chosen_leader)``)."""
    state, _ = new_game(config, seed, deal, first_leader)
    for entry in log:
        state, _ = apply_action(state, Action.decode(entry))
    return state


__all__ = [
    "IllegalAction",
    "QUESTS",
    "actors",
    "allowed_cards",
    "apply_action",
    "current_slot",
    "legal_actions",
    "new_game",
    "prompts",
    "quest_slots",
    "replay",
    "table_cards",
    "team_size",
    "validate_config",
    "waiting_for",
]
