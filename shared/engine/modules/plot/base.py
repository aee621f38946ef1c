"""What every Plot card has in common, the card registry, and small helpers on the Plot state.

A card is one small class: its id, its names in both themes, its kind and how many copies carry each
marking (5+ / 7+). Cards that are used outside the Leader's deal name the ``window`` (the
``plot_cards`` module step) in which holders are asked, one by one in order of proximity to the
Leader. Immediate cards act in ``on_dealt`` as soon as the Leader passes them.

Plot state (``state.mods["plot_cards"]``, see ``engine.modules.plot_cards``): ``hands[seat]`` is the
list of card ids a seat holds, face up; ``discard`` the used cards.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from ...errors import InvalidChoice, InvalidTarget
from ...event_types import CardId, Ident, prompt_info
from ...models import Action, GameState, Pending, Prompt

if TYPE_CHECKING:  # pragma: no cover
    from ...plugin import Ctx

MODULE_ID = "plot_cards"

IMMEDIATE = "immediate"  # Leader icon: used as soon as it is passed, then discarded
HELD = "held"  # fleur-de-lis: kept face up until used once, then discarded
PERMANENT = "permanent"  # flower: stays in play for the whole game

# Windows: the module steps in which holders of a card are asked (see ``plot_cards``).
LEADER_TURN = "leader_turn"  # before the Leader acts (draws Plot cards or proposes)
TEAM_PROPOSED = "team_proposed"  # before anyone votes
VOTE_RESULT = "vote_result"  # after the votes of an approved team are revealed
BEFORE_CARDS = "before_cards"  # before any team member selects a quest card
CARDS_PLAYED = "cards_played"  # after every quest card is played, before they are revealed


class PlotPromptInfo(TypedDict):
    """The info of a Plot card's prompt (``PlotCard.info``); a card that adds fields declares a subclass in
    its ``prompt_fields``."""

    card: CardId
    kind: Ident  # immediate / held / permanent


class PlotCard:
    id: ClassVar[str] = ""
    resistance: ClassVar[str] = ""  # name in The Resistance: The Plot Thickens
    avalon: ClassVar[str] = ""  # name in Avalon Big Box
    kind: ClassVar[str] = HELD
    marked_5: ClassVar[int] = 0  # copies marked 5+ (used with any number of players)
    marked_7: ClassVar[int] = 0  # copies marked 7+ (added with 7 or more players)
    window: ClassVar[str | None] = None
    optional: ClassVar[bool] = True  # a holder asked in a window may pass
    may_decline: ClassVar[bool] = False  # an immediate card its receiver may choose not to use
    closes_window: ClassVar[bool] = False  # once one is played, nobody else plays one this opportunity
    repeat: ClassVar[bool] = False  # a holder with another copy may play it within the same chance
    prompt_fields: ClassVar[type] = PlotPromptInfo  # the declaration of its prompt's info

    @property
    def pending_kind(self) -> str:
        return f"plot_{self.id}"

    @property
    def min_players(self) -> int:
        return 5 if self.marked_5 else 7

    def copies(self, players: int) -> int:
        return self.marked_5 + (self.marked_7 if players >= 7 else 0)

    def name(self, theme: str) -> str:
        return self.avalon if theme == "avalon" else self.resistance

    # --- immediate cards ---------------------------------------------------------------------
    def on_dealt(self, ctx: Ctx, seat: int) -> bool:
        """Resolve on receipt. Return True if a decision was pushed (answered by ``decide``)."""
        return False

    def decide(self, ctx: Ctx, pending: Pending, action: Action) -> dict[str, Any]:  # pragma: no cover
        """Resolve the decision pushed by ``on_dealt``; returns public details for the event."""
        raise InvalidChoice("Nothing to decide here.")

    # --- cards used in a window ----------------------------------------------------------------
    def usable(self, ctx: Ctx, seat: int) -> bool:
        """May ``seat`` play this card now (holds it and it would do something)?"""
        return holds(ctx, seat, self.id)

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:  # pragma: no cover
        """Apply the effect (validating the action first); returns public details for the event."""
        raise InvalidChoice("This card is not played that way.")

    # --- both ------------------------------------------------------------------------------------
    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind=self.pending_kind,
            seat=seat,
            choices=["play"],
            optional=self.optional,
            info=self.info(),
        )

    def info(self, **extra: Any) -> dict[str, Any]:
        return {"card": self.id, "kind": self.kind, **extra}

    def ask(self, ctx: Ctx, seat: int, **data: Any) -> None:
        """Wait for ``seat`` to decide how this immediate card resolves."""
        ctx.push(self.pending_kind, MODULE_ID, [seat], card=self.id, **data)


CARDS: dict[str, PlotCard] = {}


def register_plot_card(cls: type[PlotCard]) -> type[PlotCard]:
    card = cls()
    if not card.id or card.id in CARDS:
        raise ValueError(f"bad or duplicate Plot card id {card.id!r}")
    CARDS[card.id] = card
    prompt_info(card.pending_kind)(cls.prompt_fields)
    return cls


# --- helpers on the Plot state ------------------------------------------------------------------


def plot(ctx: Ctx) -> dict[str, Any]:
    return ctx.mod(MODULE_ID)


def face_up_seats(state: GameState) -> set[int]:
    """The seats that must play their quest card face up on this quest (none without Plot cards)."""
    return set(state.mods.get(MODULE_ID, {}).get("face_up", []))


def hand(ctx: Ctx, seat: int) -> list[str]:
    cards: list[str] = plot(ctx)["hands"][seat]
    return cards


def holds(ctx: Ctx, seat: int, card_id: str) -> bool:
    return card_id in hand(ctx, seat)


def proximity(ctx: Ctx) -> list[int]:
    """Every seat, starting with the Leader and going clockwise."""
    return [ctx.next_seat(ctx.state.leader, i) for i in range(ctx.n)]


def spend(ctx: Ctx, seat: int, card_id: str) -> None:
    """``seat`` uses one copy of a one-use card: it leaves the hand for the discard pile."""
    hand(ctx, seat).remove(card_id)
    plot(ctx)["discard"].append(card_id)


def one_target(action: Action, allowed: list[int], reason: str) -> int:
    if len(action.targets) != 1 or action.targets[0] not in allowed:
        raise InvalidTarget(reason, allowed=allowed)
    return action.targets[0]


def play_choice(action: Action) -> None:
    if action.choice != "play":
        raise InvalidChoice("Answer 'play' to use the card, or 'pass'.", choice=action.choice)
