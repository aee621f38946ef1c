"""Helpers for the Big Box character tests (test_bigbox_characters_*.py).

``find_game`` searches seeds for a real ``new_game`` deal with a wanted property (a role as first
Leader, a Switch card above a quest, ...): the state is exactly what the engine deals, nothing edited.
``expected_cards`` is the card-restriction oracle, written from the rulebook, not from the engine.
"""
from __future__ import annotations

from collections.abc import Callable

from engine import Action, GameConfig, GameState, Side, apply_action, new_game
from engine.models import Event

LANCELOTS = ("good_lancelot", "evil_lancelot")
PREDEALT = ("bigbox_predealt", "french_predealt")


def find_game(
    config: GameConfig, wanted: Callable[[GameState, list[Event]], bool], seeds=range(2000)
) -> tuple[int, GameState, list[Event]]:
    for seed in seeds:
        state, events = new_game(config, seed)
        if wanted(state, events):
            return seed, state, events
    raise AssertionError("no seed gives the wanted deal")


def seat_of(state: GameState, role: str) -> int:
    return state.roles.index(role)


def same(a: GameState, b: GameState) -> bool:
    return a.model_dump() == b.model_dump()


def do(state: GameState, seat: int, kind: str, targets=(), choice=None, quest=None):
    return apply_action(state, Action(seat=seat, kind=kind, targets=tuple(targets), choice=choice, quest=quest))


def team_of(state: GameState, size: int, include=(), exclude=()) -> list[int]:
    """``include`` first, then other seats in order, skipping ``exclude``."""
    team = list(dict.fromkeys(include))
    for seat in range(state.n):
        if len(team) >= size:
            break
        if seat not in team and seat not in exclude:
            team.append(seat)
    assert len(team) == size
    return sorted(team)


def approve_team(state: GameState, team, quest=None) -> tuple[GameState, list[Event]]:
    state, events = do(state, state.leader, "propose", team, quest=quest)
    for seat in range(state.n):
        state, ev = do(state, seat, "vote", choice="approve")
        events += ev
    return state, events


def play_cards(state: GameState, cards: dict[int, str] | None = None) -> tuple[GameState, list[Event]]:
    """Every team member plays: ``cards[seat]`` if given, else Success."""
    cards = cards or {}
    events: list[Event] = []
    for seat in list(state.team):
        state, ev = do(state, seat, "play", choice=cards.get(seat, "success"))
        events += ev
    return state, events


def quest(state: GameState, team, cards=None, quest=None) -> tuple[GameState, list[Event]]:
    state, e1 = approve_team(state, team, quest)
    state, e2 = play_cards(state, cards)
    return state, e1 + e2


def expected_cards(state: GameState, seat: int) -> set[str]:
    """The quest cards ``seat`` may play now, from the rulebook (Big Box p. 10 and 12-13)."""
    role, side = state.roles[seat], state.sides[seat]
    if side is Side.GOOD:
        return {"success"}  # Good (incl. Troublemaker, Cleric, Untrustworthy Servant) must succeed
    if role == "lunatic":
        return {"fail"}  # must Fail every Quest
    if role == "brute" and len(state.quests) >= 3:
        return {"success"}  # may Fail only the first three Quests
    if role in LANCELOTS and state.config.options.get("lancelot") in PREDEALT:
        return {"fail"}  # Variant 2: Evil Lancelot may only play Fail
    return {"success", "fail"}


def private_to(events: list[Event], type_: str) -> list[Event]:
    return [e for e in events if e.type == type_]
