"""What a seat may do now, and whom the table waits for: read-only questions about a state."""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TypedDict

from .event_types import Quest, Seats, prompt_info
from .models import Action, GameState, Prompt
from .plugin import ALL, Ctx
from .quest_rules import allowed_cards, quest_slots, team_size
from .view_types import Waiting

# The info of the core prompts (``engine.event_types``).


@prompt_info("propose")
class ProposeInfo(TypedDict):
    sizes: dict[str, int]  # quest slot (as text) -> its team size
    attempt: int  # the proposal's number this round


@prompt_info("vote")
class VoteInfo(TypedDict):
    team: Seats


@prompt_info("play")
class PlayInfo(TypedDict):
    quest: Quest


def prompts(state: GameState, seat: int) -> list[Prompt]:
    """What ``seat`` may do right now (empty when it is someone else's turn)."""
    if state.over:
        return []
    ctx = Ctx(state)
    if state.pending:
        pending = state.pending[0]
        if seat not in pending.actors:
            return []
        prompt = ALL[pending.owner].prompt(ctx, pending, seat)
        return [prompt] if prompt else []
    if state.stage == "team" and seat == state.leader:
        slots = quest_slots(ctx)
        sizes = {q: team_size(ctx, q) for q in slots}
        return [
            Prompt(
                kind="propose",
                seat=seat,
                pick=sizes[slots[0]],
                targets=list(range(state.n)),
                quests=slots if len(slots) > 1 else [],
                info={"sizes": {str(q): v for q, v in sizes.items()}, "attempt": state.vote_track + 1},
            )
        ]
    if state.stage == "vote" and seat not in state.votes:
        return [Prompt(kind="vote", seat=seat, choices=["approve", "reject"], info={"team": state.team})]
    if state.stage == "quest" and seat in state.team and seat not in state.cards:
        return [Prompt(kind="play", seat=seat, choices=allowed_cards(ctx, seat), info={"quest": state.quest})]
    return []


def waiting_for(state: GameState) -> Waiting:
    """Who the table is waiting for, as the public may know it."""
    if state.over:
        return {"kind": None, "seats": []}
    if state.pending:
        p = state.pending[0]
        return {"kind": p.kind, "seats": [] if p.hidden else list(p.actors), "hidden": p.hidden}
    if state.stage == "team":
        return {"kind": "propose", "seats": [state.leader]}
    if state.stage == "vote":
        return {"kind": "vote", "seats": [s for s in range(state.n) if s not in state.votes]}
    if state.stage == "quest":
        return {"kind": "play", "seats": [s for s in state.team if s not in state.cards]}
    return {"kind": None, "seats": []}  # pragma: no cover - the machine never rests elsewhere


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, enumerated (OpenSpiel style)."""
    out: list[Action] = []
    for p in prompts(state, seat):
        if p.optional:
            out.append(Action(seat=seat, kind=p.kind, choice="pass"))
        if p.pick:
            quests: Sequence[int | None] = p.quests or [None]
            for q in quests:
                size = int(p.info.get("sizes", {}).get(str(q), p.pick)) if q is not None else p.pick
                for team in combinations(p.targets, size):
                    out.append(Action(seat=seat, kind=p.kind, targets=team, quest=q))
        else:
            for c in p.choices:
                out.append(Action(seat=seat, kind=p.kind, choice=c))
    return out


def actors(state: GameState) -> list[int]:
    """Seats that have something to do right now."""
    return [seat for seat in range(state.n) if prompts(state, seat)]
