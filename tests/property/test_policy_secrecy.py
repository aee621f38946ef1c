"""The simulated players' policy decides on what its seat may know, nothing else (issue 30).

Property: for random set-ups and games, at every step and for every seat that may act, scrambling
what that seat cannot know never changes its move. The scrambled game differs in the characters and
sides of the seats it cannot tell apart (its knowledge says the same about them), in everything the
other seats learned, in the other seats' secret votes and quest cards, and in the randomness left in
the game; the seat's view and the policy's decision (same seed) must stay the same.

And ``decide`` only gets its view: a plain dict, which it does not change, and whose JSON copy gives
the same decision.
"""
from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Action, GameState, Side, actors, apply_action, new_game, policy, public_view, view
from engine.cards import CARDS
from engine.models import Knowledge
from tests.unit.audit_helpers import setup_for

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def _facts(state: GameState, seat: int, about: int) -> tuple:
    return tuple(sorted((k.label, k.source, k.quest) for k in state.knowledge[seat] if k.seat == about))


def _public_names(state: GameState) -> set[int]:
    """Seats whose character the table has been told (the Assassin stepping forward, a Revealer...)."""
    shown = json.dumps(public_view(state), default=str)
    pinned = set()
    for s in range(state.n):
        if f'"{state.roles[s]}"' in shown and state.roles[s] not in ("servant", "minion"):
            pinned.add(s)  # conservative: any special character named in the public record stays put
    return pinned


def scrambled(state: GameState, seat: int, rng: random.Random) -> GameState:
    """``state`` with what ``seat`` cannot know changed at random."""
    n = state.n
    roles, sides = list(state.roles), list(state.sides)
    pinned = _public_names(state) | {seat}
    groups: dict[tuple, list[int]] = {}
    for s in range(n):
        if s not in pinned:
            groups.setdefault(_facts(state, seat, s), []).append(s)
    for group in groups.values():
        moved = list(group)
        rng.shuffle(moved)
        for s, t in zip(group, moved, strict=True):
            roles[s], sides[s] = state.roles[t], state.sides[t]
    knowledge = [list(k) for k in state.knowledge]
    for s in range(n):
        if s != seat:
            knowledge[s] = [Knowledge(seat=rng.randrange(n), label=rng.choice(["evil", "good"]), source="scrambled")]
    votes = {s: (v if s == seat else rng.random() < 0.5) for s, v in state.votes.items()}
    cards = dict(state.cards)
    if state.stage == "quest":
        for s in cards:
            if s != seat:
                cards[s] = rng.choice(sorted(CARDS))
    return state.model_copy(update={"roles": roles, "sides": sides, "knowledge": knowledge, "votes": votes,
                                    "cards": cards, "rng_calls": state.rng_calls + rng.randrange(1, 99),
                                    "seed": rng.randrange(2**31)})


def changed_moves(player: Callable[[GameState, int, random.Random], Action | None], seed: int) -> tuple[int, int]:
    """(decisions compared, decisions that changed) when ``player`` decides in a scrambled copy of every
    step of a seeded game of the policy, for every seat that may act."""
    state, _ = new_game(setup_for(seed), seed)
    rng = random.Random(seed)
    compared = changed = 0
    for _ in range(3000):
        if state.over:
            break
        movers = actors(state)
        for seat in movers:
            other = scrambled(state, seat, random.Random(rng.random()))
            assert view(other, seat) == view(state, seat)  # the scramble only touched what the seat cannot know
            decision_seed = rng.random()
            compared += 1
            changed += player(other, seat, random.Random(decision_seed)) != player(
                state, seat, random.Random(decision_seed))
        seat = rng.choice(movers)
        state, _ = apply_action(state, policy.ai_seat_move(state, seat, rng))
    assert state.over
    return compared, changed


@pytest.mark.slow
@PROPERTY
@given(seed=st.integers(0, 2**31 - 1))
def test_scrambling_what_a_seat_cannot_know_never_changes_its_move(seed: int) -> None:
    compared, changed = changed_moves(policy.ai_seat_move, seed)
    assert compared >= 10 and changed == 0


def _cheat(state: GameState, seat: int, rng: random.Random) -> Action | None:
    """The policy, except that a leader picks its team by the true sides (what the old bot risked)."""
    action = policy.ai_seat_move(state, seat, rng)
    if action is not None and action.kind == "propose" and action.targets:
        good = [s for s in range(state.n) if state.sides[s] is Side.GOOD and s != seat]
        action = action.model_copy(update={"targets": tuple(sorted([seat, *good][:len(action.targets)]))})
    return action


def test_the_check_catches_a_player_that_reads_the_hidden_sides() -> None:
    changed = sum(changed_moves(_cheat, seed)[1] for seed in range(6))
    assert changed > 0


def test_scrambles_do_change_hidden_facts_and_keep_the_view() -> None:
    """The scramble is not a no-op: over a few games it moves characters and secrets, keeping the view."""
    moved = kept = 0
    for seed in range(8):
        state, _ = new_game(setup_for(seed), seed)
        for seat in range(state.n):
            other = scrambled(state, seat, random.Random(seed * 31 + seat))
            moved += other.roles != state.roles
            kept += view(other, seat) == view(state, seat)
    assert moved >= 8 and kept >= 8 * 5


def _views(seed: int) -> list[dict[str, Any]]:
    config = setup_for(seed)
    state, _ = new_game(config, seed)
    rng = random.Random(seed)
    out = []
    while not state.over:
        seat = rng.choice(actors(state))
        out.append(view(state, seat))
        state, _ = apply_action(state, policy.ai_seat_move(state, seat, rng))
    return out


def test_decide_gets_a_plain_dict_and_leaves_it_as_it_was() -> None:
    for seed in range(4):
        for v in _views(seed):
            before = copy.deepcopy(v)
            again = json.loads(json.dumps(v))
            assert policy.decide(v, random.Random(7)) == policy.decide(again, random.Random(7))
            assert v == before
