"""The stage machine: the hook stages of a round, what follows each, and the loop that runs them.

Hook stages call every active plug-in's hook in turn; a hook that needs a decision pushes a
:class:`~engine.models.Pending`, and the machine resumes at the next plug-in once it is answered
(``state.hook_i``). The input stages (``team``, ``vote``, ``quest``) are handled in ``engine.turns``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TypedDict

from . import cards as card_registry
from .basics import MAX_REJECTIONS, WINS_NEEDED, Side, fails_required
from .event_types import CardCounts, Ident, Idents, Quest, Quests, Seat, Seats, event
from .models import GameState, QuestRecord
from .plugin import Ctx, Tally
from .quest_rules import current_slot, quest_slots, team_size

# The events this file emits (``engine.event_types``)


@event
class RoundStarted(TypedDict):
    round: int
    leader: Seat


@event
class TeamRequested(TypedDict):
    leader: Seat
    attempt: int
    quests: Quests
    sizes: dict[str, int]  # quest slot (as text) -> team size


@event
class TeamApproved(TypedDict):
    team: Seats
    quest: Quest


@event
class TeamRejected(TypedDict):
    team: Seats
    rejections: int


@event
class QuestStarted(TypedDict):
    quest: Quest
    team: Seats


@event
class QuestCompleted(TypedDict):
    quest: Quest
    success: bool
    cards: CardCounts
    fails: int
    fails_needed: int
    notes: Idents


@event
class GameEnded(TypedDict):
    winner: Ident | None
    reason: Ident | None
    winners: Seats
    roles: Idents
    sides: Idents


def goto(state: GameState, stage: str) -> None:
    """Enter ``stage``: its hooks run from the first plug-in."""
    state.stage = stage
    state.hook_i = 0


def _after_reveal(ctx: Ctx) -> None:
    goto(ctx.state, "round_start")


def _after_round_start(ctx: Ctx) -> None:
    ctx.emit("RoundStarted", round=ctx.state.round, leader=ctx.state.leader)
    goto(ctx.state, "before_team")


def _after_before_team(ctx: Ctx) -> None:
    s = ctx.state
    slots = quest_slots(ctx)
    ctx.emit(
        "TeamRequested",
        leader=s.leader,
        attempt=s.vote_track + 1,
        quests=slots,
        sizes={str(q): team_size(ctx, q) for q in slots},
    )
    goto(s, "team")


def _after_team_proposed(ctx: Ctx) -> None:
    goto(ctx.state, "vote")


def _after_vote_result(ctx: Ctx) -> None:
    s = ctx.state
    proposal = s.proposals[-1]
    if proposal.approved:
        ctx.emit("TeamApproved", team=s.team, quest=s.quest)
        goto(s, "team_approved")
        return
    s.vote_track += 1
    ctx.emit("TeamRejected", team=s.team, rejections=s.vote_track)
    next_team(ctx)


def next_team(ctx: Ctx) -> None:
    """After a rejected team (voted down, or none proposed in time): five in a row win for Evil."""
    s = ctx.state
    s.team = []
    s.quest = None
    if s.vote_track >= MAX_REJECTIONS:
        ctx.win(Side.EVIL, "five_rejections")
        goto(s, "game_end")
        return
    s.leader = ctx.next_seat(s.leader)
    goto(s, "before_team")


def _after_team_approved(ctx: Ctx) -> None:
    goto(ctx.state, "before_cards")


def _after_before_cards(ctx: Ctx) -> None:
    s = ctx.state
    s.cards = {}
    ctx.emit("QuestStarted", quest=s.quest, team=s.team)
    goto(s, "quest")


def _after_cards_played(ctx: Ctx) -> None:
    s = ctx.state
    slot = s.quest if s.quest is not None else current_slot(s)
    played = [s.cards[seat] for seat in s.team if seat in s.cards]
    tally = Tally(played, fails_required(s.n, slot))
    for plugin in ctx.plugins():
        plugin.adjust_tally(ctx, tally)
    fails = sum(1 for c in tally.cards if card_registry.counts_as(c) == card_registry.FAIL)
    fails = max(0, fails + tally.extra_fails)
    success = fails < tally.fails_needed
    if tally.reversals % 2:
        success = not success
    record = QuestRecord(
        round=s.round,
        quest=slot,
        leader=s.leader,
        team=list(s.team),
        cards=dict(sorted(Counter(tally.cards).items())),
        fails=fails,
        fails_needed=tally.fails_needed,
        success=success,
    )
    s.quests.append(record)
    s.results[slot] = success
    s.vote_track = 0
    ctx.emit(
        "QuestCompleted",
        quest=slot,
        success=success,
        cards=record.cards,
        fails=fails,
        fails_needed=tally.fails_needed,
        notes=tally.notes,
    )
    goto(s, "quest_resolved")


def _after_quest_resolved(ctx: Ctx) -> None:
    s = ctx.state
    if s.winner is None:
        if s.successes() >= WINS_NEEDED:
            ctx.win(Side.GOOD, "three_successes")
        elif s.failures() >= WINS_NEEDED:
            ctx.win(Side.EVIL, "three_failures")
    goto(s, "game_end" if s.winner is not None else "after_quest")


def _after_after_quest(ctx: Ctx) -> None:
    s = ctx.state
    s.leader = ctx.next_seat(s.leader)
    s.team = []
    s.quest = None
    s.cards = {}
    s.votes = {}
    goto(s, "round_start")


def _after_game_end(ctx: Ctx) -> None:
    s = ctx.state
    winners = [seat for seat in range(s.n) if s.sides[seat] is s.winner]
    for plugin in ctx.plugins():
        winners = plugin.adjust_winners(ctx, winners)
    s.winners = sorted(winners)
    goto(s, "ended")
    ctx.emit(
        "GameEnded",
        winner=s.winner.value if s.winner else None,
        reason=s.win_reason,
        winners=s.winners,
        roles=list(s.roles),
        sides=[x.value for x in s.sides],
    )


# stage -> (plug-in hook run in that stage, what follows once every hook has run)
HOOK_STAGES: dict[str, tuple[str, Callable[[Ctx], None]]] = {
    "reveal": ("on_reveal", _after_reveal),
    "round_start": ("on_round_start", _after_round_start),
    "before_team": ("before_team", _after_before_team),
    "team_proposed": ("on_team_proposed", _after_team_proposed),
    "vote_result": ("on_votes_revealed", _after_vote_result),
    "team_approved": ("on_team_approved", _after_team_approved),
    "before_cards": ("before_cards", _after_before_cards),
    "cards_played": ("on_cards_played", _after_cards_played),
    "quest_resolved": ("on_quest_resolved", _after_quest_resolved),
    "after_quest": ("after_quest", _after_after_quest),
    "game_end": ("on_game_end", _after_game_end),
}


def advance(ctx: Ctx) -> None:
    """Run hook stages until a player must act or the game has ended."""
    s = ctx.state
    plugins = ctx.plugins()
    while not s.pending and s.stage in HOOK_STAGES:
        hook_name, finish = HOOK_STAGES[s.stage]
        stage = s.stage
        while s.hook_i < len(plugins):
            plugin = plugins[s.hook_i]
            s.hook_i += 1
            getattr(plugin, hook_name)(ctx)
            if s.pending or s.stage != stage:
                break
        if s.pending or s.stage != stage:
            continue
        finish(ctx)
