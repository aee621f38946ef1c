"""The input stages: the Leader proposes a team, everyone votes, the team plays quest cards.

Each handler checks one action, records it and moves the stage machine (``engine.stages``) on once
the stage is complete."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from . import cards as card_registry
from .basics import Side
from .errors import (
    AlreadyActed,
    CardNotAllowed,
    DuplicatePlayer,
    InvalidChoice,
    InvalidTarget,
    NotOnTeam,
    NotYourTurn,
    WrongTeamSize,
)
from .event_types import Quest, Seat, Seats, event
from .models import Action, Proposal
from .plugin import Ctx
from .quest_rules import allowed_cards, quest_slots, team_size
from .stages import goto

# The events this file emits (``engine.event_types``)


@event
class TeamProposed(TypedDict):
    leader: Seat
    team: Seats
    quest: Quest
    attempt: int


@event
class VoteCast(TypedDict):
    seat: Seat
    count: int
    of: int


@event
class VotesRevealed(TypedDict):
    approve: Seats
    reject: Seats
    approved: bool


@event
class CardPlayed(TypedDict):
    seat: Seat
    count: int
    of: int


# input stage -> the action kind it waits for
INPUT_STAGES = {"team": "propose", "vote": "vote", "quest": "play"}

def _propose(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat != s.leader:
        raise NotYourTurn("Only the Leader can propose a team.", leader=s.leader)
    slots = quest_slots(ctx)
    if action.quest is None:
        if len(slots) > 1:
            raise InvalidChoice("Choose which quest this team will attempt.", quests=slots)
        slot = slots[0]
    elif action.quest in slots:
        slot = action.quest
    else:
        raise InvalidChoice(
            f"Quest {action.quest + 1} cannot be attempted now.", quest=action.quest, quests=slots
        )
    size = team_size(ctx, slot)
    for t in action.targets:
        if not 0 <= t < s.n:
            raise InvalidTarget("That player is not at this table.", seat=t)
    if len(set(action.targets)) != len(action.targets):
        raise DuplicatePlayer("A player can be on the team only once.")
    if len(action.targets) != size:
        raise WrongTeamSize(
            f"This quest needs a team of exactly {size}.", size=size, given=len(action.targets)
        )
    for plugin in ctx.plugins():
        plugin.check_proposal(ctx, action)
    s.quest = slot
    s.team = sorted(action.targets)
    s.votes = {}
    s.proposals.append(Proposal(round=s.round, quest=slot, leader=s.leader, team=s.team))
    ctx.emit("TeamProposed", leader=s.leader, team=s.team, quest=slot, attempt=s.vote_track + 1)
    goto(s, "team_proposed")


def _vote(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat in s.votes:
        raise AlreadyActed("You have already voted on this team.")
    if action.choice not in ("approve", "reject"):
        raise InvalidChoice("Vote approve or reject.", choice=action.choice)
    s.votes[action.seat] = action.choice == "approve"
    ctx.emit("VoteCast", seat=action.seat, count=len(s.votes), of=s.n)
    if len(s.votes) < s.n:
        return
    approvals = [seat for seat in range(s.n) if s.votes[seat]]
    proposal = s.proposals[-1]
    proposal.votes = "".join("A" if s.votes[seat] else "R" for seat in range(s.n))
    proposal.approved = len(approvals) * 2 > s.n
    ctx.emit(
        "VotesRevealed",
        approve=approvals,
        reject=[seat for seat in range(s.n) if not s.votes[seat]],
        approved=proposal.approved,
    )
    goto(s, "vote_result")


def _play(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat not in s.team:
        raise NotOnTeam("Only team members play quest cards.")
    if action.seat in s.cards:
        raise AlreadyActed("You have already played your card.")
    allowed = allowed_cards(ctx, action.seat)
    if action.choice not in allowed:
        if action.choice == card_registry.FAIL and ctx.side(action.seat) is Side.GOOD:
            raise CardNotAllowed("Good players must play Success.", allowed=allowed, card=action.choice, side="good")
        raise CardNotAllowed(
            f"You may play only: {', '.join(allowed)}.", allowed=allowed, card=action.choice
        )
    s.cards[action.seat] = action.choice
    ctx.emit("CardPlayed", seat=action.seat, count=len(s.cards), of=len(s.team))
    for plugin in ctx.plugins():
        plugin.on_card_played(ctx, action.seat)
    if len(s.cards) == len(s.team):
        goto(s, "cards_played")


HANDLERS: dict[str, Callable[[Ctx, Action], None]] = {
    "team": _propose,
    "vote": _vote,
    "quest": _play,
}
