"""Built-in players: legal, plausible moves from what a seat knows.

Bots read only their own seat (role, side, knowledge) and public facts. Any prompt a plug-in adds is
answered by the generic fallback, so new roles and modules are playable by bots without changes here.
"""
from __future__ import annotations

import random
from collections.abc import Iterator

from .basics import Side
from .models import Action, Event, GameState, Prompt
from .queries import prompts


def _known_evil(state: GameState, seat: int) -> set[int]:
    known = {k.seat for k in state.knowledge[seat] if k.label == "evil" and k.seat is not None}
    if state.sides[seat] is Side.EVIL:
        known.add(seat)
    return known


def _generic(p: Prompt, rng: random.Random) -> Action:
    if p.optional and rng.random() < 0.5:
        return Action(seat=p.seat, kind=p.kind, choice="pass")
    if p.pick:
        quest = rng.choice(p.quests) if p.quests else None
        size = p.pick
        if quest is not None and "sizes" in p.info:
            size = int(p.info["sizes"][str(quest)])
        return Action(seat=p.seat, kind=p.kind, targets=tuple(rng.sample(p.targets, size)), quest=quest)
    return Action(seat=p.seat, kind=p.kind, choice=rng.choice(p.choices))


def choose_action(state: GameState, seat: int, rng: random.Random) -> Action | None:
    """A plausible legal action for ``seat``, or None if it has nothing to do."""
    options = prompts(state, seat)
    if not options:
        return None
    p = options[0]
    evil = state.sides[seat] is Side.EVIL
    known_evil = _known_evil(state, seat)
    if p.kind == "propose":
        quest = rng.choice(p.quests) if p.quests else None
        size = int(p.info["sizes"][str(quest)]) if quest is not None else p.pick
        others = [s for s in p.targets if s != seat]
        rng.shuffle(others)
        if evil:
            mates = [s for s in others if s in known_evil]
            rest = [s for s in others if s not in known_evil]
            others = mates[:1] + rest + mates[1:]
        else:
            others.sort(key=lambda s: s in known_evil)
        team = ([seat] + others)[:size]
        return Action(seat=seat, kind="propose", targets=tuple(sorted(team)), quest=quest)
    if p.kind == "vote":
        on_team = set(p.info.get("team", []))
        if state.vote_track >= 4:  # a fifth rejection loses the game for Good
            approve = not evil or bool(on_team & known_evil)
        elif evil:
            approve = bool(on_team & known_evil) or rng.random() < 0.3
        else:
            approve = not (on_team & known_evil) and (seat in on_team or rng.random() < 0.6)
        return Action(seat=seat, kind="vote", choice="approve" if approve else "reject")
    if p.kind == "play":
        choices = p.choices
        if len(choices) == 1:
            return Action(seat=seat, kind="play", choice=choices[0])
        if evil and "fail" in choices and rng.random() < 0.75:
            return Action(seat=seat, kind="play", choice="fail")
        return Action(seat=seat, kind="play", choice=rng.choice(choices))
    return _generic(p, rng)


def play_random_game(state: GameState, rng: random.Random,
                     max_actions: int = 5000) -> Iterator[tuple[Action, GameState, list[Event]]]:
    """Drive a game to its end with bots; yields (action, new_state, events) after each move."""
    from .game import actors, apply_action

    for _ in range(max_actions):
        if state.over:
            return
        seats = actors(state)
        seat = rng.choice(seats)
        action = choose_action(state, seat, rng)
        assert action is not None
        state, events = apply_action(state, action)
        yield action, state, events
    raise RuntimeError("game did not end")


def play_to_end(state: GameState, rng: random.Random, max_actions: int = 5000) -> GameState:
    """Let bots play every seat until the game ends; returns the final state."""
    for _action, state, _events in play_random_game(state, rng, max_actions):  # noqa: B007, B020
        pass
    return state
