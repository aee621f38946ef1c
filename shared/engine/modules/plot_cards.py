"""The Plot Thickens (option ``plot_cards``): Plot cards for The Resistance and Avalon.

Setup: the deck (``engine.modules.plot.deck_for``: 7 cards for 5-6 players, 15 for 7+) is shuffled
with ``ctx.rng()``. At the start of each quest, before the Leader acts, holders of Strong Leader may
take the lead; then the Leader draws 1 (5-6 players), 2 (7-8) or 3 (9-10) cards face up and deals
them one at a time, in the order they choose, to other players (``plot_deal`` decisions). Immediate
cards resolve as soon as they are passed and are discarded; held cards stay face up until used once;
Opinion Maker stays for the whole game. Everything about Plot cards is public except what loyalty
checks and looks at quest cards reveal, which only the checker learns.

When the deck runs out the Leader draws what is left (possibly nothing); used cards are never
reshuffled. With one quest per round and at most five quests this cannot happen in a normal game
(5 x 1 <= 7, 5 x 2 <= 15, 5 x 3 = 15), so it only matters for unusual tables or future variants.

Opportunities to play cards ("windows") follow the rulebook's precedence: the seats are asked one by
one, starting with the Leader and going clockwise; each seat gets one chance (play or pass) per
opportunity, and a seat that passed is not asked again for that opportunity.

Windows, in the order of the round:

* start of each Leader's turn (``before_team``): Strong Leader / Lead to Victory, then the draw;
* team proposed: Opinion Maker / Charge holders vote first, in public;
* votes revealed, team approved: No Confidence / The King Returns;
* before quest cards are chosen: In the Spotlight / We Found You!;
* all quest cards played (after Excalibur and the Trapper, ``engine.hook_order``): Keeping a Close
  Eye on You / Ambush.

State (``state.mods["plot_cards"]``): ``deck``, ``discard``, ``hands`` (per seat, face up), ``drawn``
(the Leader's cards not yet dealt), ``face_up`` (seats that must play face up on this quest; Excalibur asks
``plot.base.face_up_seats``), ``checked`` (seats whose card was looked at this quest), ``shown`` (face-up cards so
far), ``open_votes`` (seat -> Opinion Maker vote on the current team), ``lead_locked``, ``played`` (history),
and the step machine (``steps``, ``queue``, ``resolving``).
"""
from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from ..basics import Theme
from ..errors import InvalidChoice, InvalidTarget
from ..event_types import CardId, CardIds, Ident, Quest, Seat, Seats, SourceId, VoteId, event, prompt_info
from ..models import Action, Pending, Prompt
from ..plugin import Ctx, Module, register
from ..view_types import PlotWindow, PublicView
from .plot import CARDS, IMMEDIATE, MODULE_ID, PERMANENT, PLOT_CARDS, deck_for, draw_count
from .plot.base import (
    BEFORE_CARDS,
    CARDS_PLAYED,
    LEADER_TURN,
    TEAM_PROPOSED,
    VOTE_RESULT,
    hand,
    proximity,
    spend,
)

# The events this file emits (``engine.event_types``)


@event
class PlotDeckReady(TypedDict):
    size: int


@event
class QuestCardShown(TypedDict):
    seat: Seat
    card: CardId
    quest: Quest
    source: SourceId


@event
class PlotCardsDrawn(TypedDict):
    leader: Seat
    cards: CardIds
    left: int


@event
class PlotDeckEmpty(TypedDict):
    leader: Seat


@event
class PlotCardDealt(TypedDict):
    leader: Seat
    seat: Seat
    card: CardId


@event
class PlotCardDiscarded(TypedDict):
    seat: Seat
    card: CardId
    reason: Ident


@event
class PlotCardPassed(TypedDict):
    seat: Seat
    card: CardId


@event
class PlotCardPlayed(TypedDict):
    card: CardId
    seat: Seat
    # what the card did (``PlotCard.use`` / ``decide``)
    target: NotRequired[Seat]
    leader: NotRequired[Seat]
    team: NotRequired[Seats]
    previous: NotRequired[Seat]
    taken: NotRequired[CardId]
    vote: NotRequired[VoteId]


DRAW = "draw"
DEAL = "deal"
DEAL_KIND = "plot_deal"


@prompt_info(DEAL_KIND)
class PlotDealInfo(TypedDict):
    drawn: CardIds  # the Plot cards the Leader drew
    default: CardId  # the one dealt for a Leader out of time


def _window_steps(window: str) -> list[str]:
    return [cid for cid in PLOT_CARDS if CARDS[cid].window == window]


@register
class PlotCards(Module):
    id = MODULE_ID
    option = "plot_cards"
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
    place = "plot"  # after Excalibur: it switches cards before Ambush looks at them
    # The Plot cards that check loyalty (Overheard Conversation, Establish Confidence, Open Up) are in the
    # 7+ part of the deck only (see /work/shared/rules-notes.md).
    checks_loyalty_from = 7
    timer_phase = "plot_cards"

    # --- setup -------------------------------------------------------------------------------
    def setup(self, ctx: Ctx) -> None:
        deck = deck_for(ctx.n)
        ctx.rng().shuffle(deck)
        ctx.mod(self.id).update(
            deck=deck,
            discard=[],
            hands=[[] for _ in range(ctx.n)],
            drawn=[],
            drawn_round=0,
            face_up=[],
            checked=[],
            shown=[],
            open_votes={},
            lead_locked=False,
            played=[],
            steps=[],
            queue=None,
            resolving=None,
        )
        ctx.emit("PlotDeckReady", size=len(deck))

    # --- stage hooks -------------------------------------------------------------------------
    def before_team(self, ctx: Ctx) -> None:
        mod = ctx.mod(self.id)
        steps = _window_steps(LEADER_TURN)
        if mod["drawn_round"] != ctx.state.round:
            steps += [DRAW, DEAL]
        self._start(ctx, steps)

    def on_team_proposed(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["open_votes"] = {}
        self._start(ctx, _window_steps(TEAM_PROPOSED))

    def on_votes_revealed(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["lead_locked"] = False  # a vote has taken place
        self._start(ctx, _window_steps(VOTE_RESULT))

    def before_cards(self, ctx: Ctx) -> None:
        self._start(ctx, _window_steps(BEFORE_CARDS))

    def on_card_played(self, ctx: Ctx, seat: int) -> None:
        mod = ctx.mod(self.id)
        if seat in mod["face_up"]:
            s = ctx.state
            card = s.cards[seat]
            mod["shown"].append({"round": s.round, "quest": s.quest, "seat": seat, "card": card})
            ctx.emit("QuestCardShown", seat=seat, card=card, quest=s.quest, source="in_the_spotlight")

    def on_cards_played(self, ctx: Ctx) -> None:
        self._start(ctx, _window_steps(CARDS_PLAYED))

    def after_quest(self, ctx: Ctx) -> None:
        mod = ctx.mod(self.id)
        mod["face_up"] = []
        mod["checked"] = []

    # --- the step machine --------------------------------------------------------------------
    def _start(self, ctx: Ctx, steps: list[str]) -> None:
        mod = ctx.mod(self.id)
        mod["steps"] = steps
        mod["queue"] = None
        self._run(ctx)

    def _run(self, ctx: Ctx) -> None:
        """Push the next decision of the current hook's steps, or finish them."""
        mod = ctx.mod(self.id)
        if mod["resolving"]:
            return  # an immediate card is waiting for its decision; its answer resumes the steps
        while mod["steps"]:
            step = mod["steps"][0]
            if step == DRAW:
                self._draw(ctx)
            elif step == DEAL:
                if mod["drawn"]:
                    ctx.push(DEAL_KIND, self.id, [ctx.state.leader])
                    return
            else:
                card = CARDS[step]
                if mod["queue"] is None:
                    mod["queue"] = proximity(ctx)
                queue = mod["queue"]
                while queue and not card.usable(ctx, queue[0]):
                    queue.pop(0)
                if queue:
                    ctx.push(card.pending_kind, self.id, [queue[0]], card=card.id, window=True)
                    return
                mod["queue"] = None
            mod["steps"].pop(0)

    def _draw(self, ctx: Ctx) -> None:
        mod = ctx.mod(self.id)
        k = draw_count(ctx.n)
        drawn, mod["deck"] = mod["deck"][:k], mod["deck"][k:]
        mod["drawn"] = drawn
        mod["drawn_round"] = ctx.state.round
        if drawn:
            ctx.emit("PlotCardsDrawn", leader=ctx.state.leader, cards=list(drawn), left=len(mod["deck"]))
        else:
            ctx.emit("PlotDeckEmpty", leader=ctx.state.leader)

    # --- decisions ---------------------------------------------------------------------------
    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt | None:
        if pending.kind == DEAL_KIND:
            drawn = ctx.mod(self.id)["drawn"]
            return Prompt(
                kind=DEAL_KIND,
                seat=seat,
                pick=1,
                targets=[s for s in range(ctx.n) if s != seat],
                choices=list(dict.fromkeys(drawn)),
                info={"drawn": list(drawn), "default": drawn[0]},
            )
        return CARDS[pending.data["card"]].prompt(ctx, pending, seat)

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if pending.kind == DEAL_KIND:
            self._deal(ctx, action)
        elif pending.data.get("window"):
            self._window_answer(ctx, pending, action)
        else:
            self._resolve_immediate(ctx, pending, action)
        self._run(ctx)

    def _deal(self, ctx: Ctx, action: Action) -> None:
        mod = ctx.mod(self.id)
        leader = ctx.state.leader
        drawn = mod["drawn"]
        if len(action.targets) != 1 or not 0 <= action.targets[0] < ctx.n or action.targets[0] == leader:
            raise InvalidTarget("Give the Plot card to one other player; the Leader may not keep it.")
        card_id = action.choice or drawn[0]
        if card_id not in drawn:
            raise InvalidChoice("Deal one of the Plot cards you drew.", card=card_id, drawn=list(drawn))
        seat = action.targets[0]
        drawn.remove(card_id)
        ctx.emit("PlotCardDealt", leader=leader, seat=seat, card=card_id)
        card = CARDS[card_id]
        if card.kind != IMMEDIATE:
            hand(ctx, seat).append(card_id)
            return
        mod["resolving"] = {"card": card_id, "seat": seat}
        if not card.on_dealt(ctx, seat):
            mod["resolving"] = None
            mod["discard"].append(card_id)
            ctx.emit("PlotCardDiscarded", seat=seat, card=card_id, reason="no_effect")

    def _resolve_immediate(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        mod = ctx.mod(self.id)
        card = CARDS[pending.data["card"]]
        holder = mod["resolving"]["seat"]
        if action.choice == "pass" and not action.targets:
            if not card.may_decline:
                raise InvalidChoice("You cannot pass on this.", card=card.id)
            mod["resolving"] = None
            mod["discard"].append(card.id)
            ctx.emit("PlotCardDiscarded", seat=holder, card=card.id, reason="declined")
            return
        details = card.decide(ctx, pending, action)
        mod["resolving"] = None
        mod["discard"].append(card.id)
        self._played(ctx, card.id, holder, details)

    def _window_answer(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        mod = ctx.mod(self.id)
        card = CARDS[pending.data["card"]]
        seat = action.seat
        queue = mod["queue"]
        if action.choice == "pass" and not action.targets:
            if not card.optional:
                raise InvalidChoice("You cannot pass on this.", card=card.id)
            queue.pop(0)
            ctx.emit("PlotCardPassed", seat=seat, card=card.id)
            return
        details = card.use(ctx, seat, action)
        if card.kind != PERMANENT:
            spend(ctx, seat, card.id)
            self._played(ctx, card.id, seat, details)
        if card.closes_window:
            queue.clear()
        elif not (card.repeat and card.usable(ctx, seat)):
            queue.pop(0)

    def _played(self, ctx: Ctx, card_id: str, seat: int, details: dict[str, Any]) -> None:
        s = ctx.state
        ctx.mod(self.id)["played"].append({"round": s.round, "card": card_id, "seat": seat, **details})
        ctx.emit("PlotCardPlayed", card=card_id, seat=seat, **details)

    # --- views -------------------------------------------------------------------------------
    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.mod(self.id)
        s = ctx.state
        window: PlotWindow | None = None
        if s.pending and s.pending[0].owner == self.id:
            p = s.pending[0]
            window = {"kind": p.kind, "seat": p.actors[0], "card": p.data.get("card")}
        view["plot"] = {
            "deck": len(mod["deck"]),
            "discard": list(mod["discard"]),
            "hands": [list(h) for h in mod["hands"]],
            "drawn": list(mod["drawn"]),
            "resolving": mod["resolving"],
            "face_up": list(mod["face_up"]),
            "shown": [dict(x) for x in mod["shown"]],
            "checked": list(mod["checked"]),
            "open_votes": dict(mod["open_votes"]),
            "lead_locked": mod["lead_locked"],
            "played": [dict(x) for x in mod["played"]],
            "asking": window,
            "names": {cid: CARDS[cid].name(s.config.theme.value) for cid in PLOT_CARDS},
        }
