"""What the current quest asks for: the slot in play, the slots the Leader may pick, the team size,
the cards on the table and the cards a seat may play. Plug-ins adjust them through their pure hooks."""
from __future__ import annotations

from . import cards as card_registry
from .basics import TEAM_SIZES, Side
from .models import GameState
from .plugin import Ctx, active_plugins


def current_slot(state: GameState) -> int:
    """The quest slot in play: the chosen one, else the first not yet attempted."""
    if state.quest is not None:
        return state.quest
    return state.results.index(None)


def quest_slots(ctx: Ctx) -> list[int]:
    slots = [current_slot(ctx.state)]
    for plugin in ctx.plugins():
        slots = plugin.quest_slots(ctx, slots)
    return slots


def team_size(ctx: Ctx, slot: int) -> int:
    return team_sizes(ctx)[slot]


def team_sizes(ctx: Ctx) -> list[int]:
    """The team size of each quest slot (the chart, plus the plug-ins' bonus: the Trapper's extra member)."""
    bonus = sum(p.team_size_bonus(ctx) for p in ctx.plugins())
    return [size + bonus for size in TEAM_SIZES[ctx.n]]


def allowed_cards(ctx: Ctx, seat: int) -> list[str]:
    cards = [card_registry.SUCCESS] if ctx.side(seat) is Side.GOOD else [
        card_registry.SUCCESS,
        card_registry.FAIL,
    ]
    for plugin in ctx.plugins():
        cards = plugin.adjust_cards(ctx, seat, cards)
    return cards


def table_cards(state: GameState) -> list[str]:
    """The quest cards of this game: Success, Fail, then the cards of the plug-ins in play (their
    ``quest_cards``). The same for every seat and every quest of a game: it depends on the configuration
    only, never on who holds which character or who is on the team (a player's own cards are
    ``allowed_cards``)."""
    found = [card_registry.SUCCESS, card_registry.FAIL]
    for plugin in active_plugins(state.config):
        for card in plugin.quest_cards:
            if card not in found:
                found.append(card)
    return found
