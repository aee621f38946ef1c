"""Per-seat views (boardgame.io's ``playerView``): exactly what one seat may know.

``public_view`` is what the whole table may see. ``view(state, seat)`` adds that seat's own secrets:
its role, its current side, what it learned (reveal, loyalty checks, looks at cards), its own vote
and card, the quest cards it may play now (``cards``: a subset of the game's ``table_cards``) and what
it may do now. Roles and sides of others appear only once the game has ended.
"""
from __future__ import annotations

from pydantic import TypeAdapter

from .basics import fails_required
from .models import GameState, Knowledge, Prompt, Proposal, QuestRecord
from .plugin import Ctx
from .queries import prompts, waiting_for
from .quest_rules import allowed_cards, quest_slots, table_cards, team_sizes
from .view_types import PublicView, SeatView, You

__all__ = ["PublicView", "SeatView", "public_view", "view"]

_PROPOSALS, _QUESTS = TypeAdapter(list[Proposal]), TypeAdapter(list[QuestRecord])
_KNOWLEDGE, _PROMPTS = TypeAdapter(list[Knowledge]), TypeAdapter(list[Prompt])


def public_view(state: GameState) -> PublicView:
    ctx = Ctx(state)
    n = state.n
    slots = quest_slots(ctx) if state.stage == "team" else []
    sizes = team_sizes(ctx)  # (the chart, plus the Trapper's extra member)
    v: PublicView = {
        "players": n,
        "theme": state.config.theme.value,
        "roles_in_play": sorted(set(state.config.roles)),
        "options": dict(state.config.options),
        "stage": state.stage,
        "round": state.round,
        "leader": state.leader,
        "quest": state.quest,
        "quest_choices": slots,
        "team": list(state.team),
        "team_size": sizes[state.quest if state.quest is not None else slots[0]]
        if (state.quest is not None or slots)
        else None,
        "vote_track": state.vote_track,
        "track": [
            {
                "quest": i,
                "size": sizes[i],
                "fails_needed": fails_required(n, i),
                "result": state.results[i],
            }
            for i in range(5)
        ],
        "voted": sorted(state.votes) if state.stage in ("team_proposed", "vote") else [],
        "played": sorted(state.cards) if state.stage == "quest" else [],
        "table_cards": table_cards(state),  # the game's quest cards (its configuration's, whoever plays)
        "proposals": _PROPOSALS.dump_python(state.proposals),  # (each one's model_dump, in one call)
        "quests": _QUESTS.dump_python(state.quests),
        "waiting": waiting_for(state),
        "winner": state.winner.value if state.winner else None,
        "win_reason": state.win_reason,
        "winners": list(state.winners),
    }
    if state.over:
        v["roles"] = list(state.roles)
        v["sides"] = [s.value for s in state.sides]
    for plugin in ctx.plugins():
        plugin.public_view(ctx, v)
    return v


def view(state: GameState, seat: int) -> SeatView:
    pv = public_view(state)
    ctx = Ctx(state)
    you: You = {
        "seat": seat,
        "role": state.roles[seat],
        "side": state.sides[seat].value,
        "knowledge": _KNOWLEDGE.dump_python(state.knowledge[seat]),
        "vote": None if seat not in state.votes else ("approve" if state.votes[seat] else "reject"),
        "card": state.cards.get(seat) if state.stage in ("quest", "cards_played") else None,
        "cards": allowed_cards(ctx, seat),  # the quest cards this seat may play now
        "prompts": _PROMPTS.dump_python(prompts(state, seat)),
    }
    if state.stage != "vote":
        you["vote"] = None
    v: SeatView = {**pv, "you": you}
    for plugin in ctx.plugins():
        plugin.private_view(ctx, seat, v)
    return v
