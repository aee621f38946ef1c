"""Helpers for the Avalon Big Box module tests (test_bigbox_*.py): chosen deals and quest drivers."""
from __future__ import annotations

from engine import ROLES, Action, GameState, Side, apply_action


def act(state: GameState, seat: int, kind: str, targets=(), choice: str | None = None, quest=None):
    new, _events = apply_action(
        state, Action(seat=seat, kind=kind, targets=tuple(targets), choice=choice, quest=quest)
    )
    return new


def act_events(state: GameState, seat: int, kind: str, targets=(), choice: str | None = None):
    return apply_action(state, Action(seat=seat, kind=kind, targets=tuple(targets), choice=choice))


def pending_kind(state: GameState) -> str | None:
    return state.pending[0].kind if state.pending else None


def answer(state: GameState, answers: dict) -> GameState:
    """Answer waiting decisions whose kind is in ``answers`` (a seat/tuple of seats, or "pass")."""
    while state.pending and state.pending[0].kind in answers:
        p = state.pending[0]
        value = answers[p.kind]
        if value == "pass":
            state = act(state, p.actors[0], p.kind, choice="pass")
        elif isinstance(value, str):
            state = act(state, p.actors[0], p.kind, choice=value)
        else:
            targets = value if isinstance(value, tuple) else (value,)
            state = act(state, p.actors[0], p.kind, targets=targets)
    return state


def approve_all(state: GameState) -> GameState:
    for seat in range(state.n):
        state = act(state, seat, "vote", choice="approve")
    return state


def to_cards(state: GameState, team, watch=None, excalibur=None) -> GameState:
    """Propose ``team``, give Excalibur / the Watch token if asked, approve: stops at the quest stage."""
    state = act(state, state.leader, "propose", tuple(team))
    state = answer(state, {"give_excalibur": excalibur if excalibur is not None else _other(state)})
    state = approve_all(state)
    state = answer(state, {"watch": watch if watch is not None else state.team[0]})
    assert state.stage == "quest", state.stage
    return state


def _other(state: GameState) -> int:
    return next(t for t in state.team if t != state.leader)


def play_cards(state: GameState, cards: dict[int, str] | None = None) -> GameState:
    """Every Team member plays: ``cards[seat]`` or Success."""
    cards = cards or {}
    for seat in list(state.team):
        state = act(state, seat, "play", choice=cards.get(seat, "success"))
    return state


def quest(
    state: GameState,
    team,
    cards: dict[int, str] | None = None,
    watch=None,
    excalibur=None,
    switch="pass",
    trap=None,
) -> GameState:
    """One full quest: proposal, approval, cards, then Excalibur (``switch``) and the Trapper (``trap``)."""
    state = to_cards(state, team, watch=watch, excalibur=excalibur)
    state = play_cards(state, cards)
    answers: dict = {"excalibur": switch}
    if trap is not None:
        answers["trap"] = trap
    return answer(state, answers)


# The rulebook's conditions on a character's own quest cards (``Role.own_cards``, Big Box card rules).
WATCHED_CARDS = ("rogue_success", "rogue_fail")  # "a Rogue holding the Watch token may not play their Rogue card"
MESSAGE_CARDS = ("good_message", "evil_message")  # "... may only play a ... Message Quest card up to twice"
MESSAGE_LIMIT = 2


def oracle_cards(role: str, side: Side, watched: bool, messages_played: int) -> set[str]:
    """The cards the rulebook lets this character play (Big Box card rules): Success, Fail for Evil, and the
    character's own cards (``Role.own_cards``, pinned to the rulebook by test_plugin_declarations) unless a
    rule forbids them now. ``messages_played``: the Message cards this Messenger has put down so far ("Each
    Good Messenger may only play a Good Message Quest card up to twice"; the box holds 2 Evil Message
    tokens, one per Evil Message played)."""
    allowed = {"success"} if side is Side.GOOD else {"success", "fail"}
    if role == "evil_sorcerer":
        allowed = {"success"}  # "The Evil Sorcerer may play a Success or a Magic card", never a Fail
    for card in ROLES[role].own_cards:
        if card in WATCHED_CARDS and watched:
            continue
        if card in MESSAGE_CARDS and messages_played >= MESSAGE_LIMIT:
            continue
        allowed.add(card)
    return allowed
