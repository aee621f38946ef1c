"""Messengers (Avalon Big Box): Message cards, Message tokens and the backup on the fifth quest.

Play with all three Messengers (two ``good_messenger`` and one ``evil_messenger``, see
``engine/roles/messenger.py``); the module is on whenever a Messenger is dealt. Rulings (see
docs/coverage/modules.md):

* Good Messengers may play Success or Good Message (counts as Success), each at most twice per game
  (every Good Message card the Messenger puts down counts, even one the Trapper later sets aside).
  The Evil Messenger may play Success, Fail or Evil Message (counts as Fail); Evil Message at most
  twice per game, as the box holds only 2 Evil Message tokens (counted the same way).
* Message tokens are public: one per Message card revealed on a quest (``mods["messengers"]["tokens"]``).
* Backup, on the fifth quest played: counting every token on the tableau including that quest's,
  3+ Good Messages remove one Fail, 2+ Evil Messages add one Fail, both at once cancel. The rulebook
  says a side *may* use its backup: the engine uses it for that side unless it could only hurt it,
  which happens only when an odd number of Magic cards is about to reverse the quest.
* Assassination: the Assassin announces "merlin" or "messengers" (when both are in play) and must name
  both Good Messengers for the latter (``assassination.register_target``). Without
  Merlin, the Messengers are the only target.
* Optional rule ``senior_junior_messengers``: an assignment at setup, not two more role ids. One Good
  Messenger, drawn with the game's randomness, is the Senior: at the Reveal they learn the Junior
  (knowledge label ``junior_messenger``); the Junior learns only that they are the Junior. The rank is
  private (``view["you"]["messenger_rank"]``).
"""
from __future__ import annotations

from typing import TypedDict

from .. import cards
from ..event_types import RankId, event
from ..models import ConfigIssue, GameConfig
from ..plugin import Ctx, Module, Tally, issue, register
from ..reveal import RevealStep, register_step
from ..view_types import PublicView, SeatView
from .assassination import register_target

# The events this file emits (``engine.event_types``)


@event(private=True)
class MessengerRankDealt(TypedDict):
    rank: RankId


GOOD_MESSAGE = "good_message"
EVIL_MESSAGE = "evil_message"
cards.register_card(GOOD_MESSAGE, cards.SUCCESS)
cards.register_card(EVIL_MESSAGE, cards.FAIL)

GOOD_MESSAGE_LIMIT = 2  # each Good Messenger, per game
EVIL_MESSAGE_LIMIT = 2  # the Evil Messenger, per game: "Place ... 2 Evil Message tokens next to the tableau"
MESSAGE_LIMIT = {GOOD_MESSAGE: GOOD_MESSAGE_LIMIT, EVIL_MESSAGE: EVIL_MESSAGE_LIMIT}
GOOD_BACKUP = 3  # Good Message tokens needed to remove one Fail
EVIL_BACKUP = 2  # Evil Message tokens needed to add one Fail
BACKUP_ROUND = 5  # the fifth quest played

register_target("messengers", ("good_messenger", "good_messenger"))

# "Junior Messenger, extend your thumb so that the Senior Messenger may know you / Senior Messenger, open
# your eyes": the ranks are seats drawn at setup, so this module gives the knowledge itself (``setup``);
# the step tells the Reveal script (``engine.reveal_script``) that it happens.
register_step(
    RevealStep(
        id="junior_messenger",
        order=45,
        label="junior_messenger",
        enabled=lambda config: bool(config.option("senior_junior_messengers")),
        shown_by="junior_messenger",
    )
)


def _ranks(ctx: Ctx) -> dict[int, str]:
    mod = ctx.state.mods.get(Messengers.id, {})
    if mod.get("senior") is None:
        return {}
    return {mod["senior"]: "senior", mod["junior"]: "junior"}


@register
class Messengers(Module):
    id = "messengers"
    place = "message_cards"  # after the Sorcerer's Magic: the backup reads tally.reversals
    option_keys = ("senior_junior_messengers",)
    quest_cards = (GOOD_MESSAGE, EVIL_MESSAGE)
    recommended_players = 7

    def active(self, config: GameConfig) -> bool:
        return "good_messenger" in config.roles or "evil_messenger" in config.roles

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        if config.roles.count("good_messenger") != 2 or config.roles.count("evil_messenger") != 1:
            return [
                issue(
                    "error",
                    "messengers_need_all_three",
                    "Play with all three Messengers: two Good Messengers and the Evil Messenger.",
                )
            ]
        return []

    def setup(self, ctx: Ctx) -> None:
        mod = ctx.mod(self.id)
        mod.update(used=[0] * ctx.n, tokens=[], backup=None, senior=None, junior=None)
        if not ctx.config.option("senior_junior_messengers"):
            return
        seats = ctx.seats_with("good_messenger")
        senior = seats[ctx.rng().randrange(len(seats))]
        junior = next(s for s in seats if s != senior)
        mod.update(senior=senior, junior=junior)
        # "Junior Messenger, extend your thumb so that the Senior Messenger may know you".
        ctx.learn(senior, junior, "junior_messenger", "reveal")
        ctx.emit("MessengerRankDealt", to=[senior], rank="senior")
        ctx.emit("MessengerRankDealt", to=[junior], rank="junior")

    def adjust_cards(self, ctx: Ctx, seat: int, cards_: list[str]) -> list[str]:
        """A Messenger's own Message card (``Role.own_cards``), while they have played fewer than its limit."""
        used = ctx.mod(self.id)["used"][seat]
        own = [c for c in ctx.role(seat).own_cards if c in self.quest_cards and used < MESSAGE_LIMIT[c]]
        return [*cards_, *own] if own else cards_

    def on_cards_played(self, ctx: Ctx) -> None:
        used = ctx.mod(self.id)["used"]
        for seat, card in ctx.state.cards.items():
            if card in (GOOD_MESSAGE, EVIL_MESSAGE):
                used[seat] += 1

    def adjust_tally(self, ctx: Ctx, tally: Tally) -> None:
        s = ctx.state
        if len(s.quests) + 1 != BACKUP_ROUND:
            return
        good = tally.cards.count(GOOD_MESSAGE) + sum(q.cards.get(GOOD_MESSAGE, 0) for q in s.quests)
        evil = tally.cards.count(EVIL_MESSAGE) + sum(q.cards.get(EVIL_MESSAGE, 0) for q in s.quests)
        good_backup, evil_backup = good >= GOOD_BACKUP, evil >= EVIL_BACKUP
        reversed_ = tally.reversals % 2 == 1
        fails = sum(1 for c in tally.cards if cards.counts_as(c) == cards.FAIL) + tally.extra_fails
        if good_backup and evil_backup:
            applied = "cancelled"
        elif good_backup:
            applied = "good" if fails > 0 and not reversed_ else "declined"
            if applied == "good":
                tally.extra_fails -= 1
        elif evil_backup:
            applied = "evil" if not reversed_ else "declined"
            if applied == "evil":
                tally.extra_fails += 1
        else:
            applied = None
        ctx.mod(self.id)["backup"] = {"good": good, "evil": evil, "applied": applied}
        if applied in ("good", "evil", "cancelled"):
            tally.notes.append(f"messenger_backup_{applied}")

    def on_quest_resolved(self, ctx: Ctx) -> None:
        record = ctx.state.quests[-1]
        ctx.mod(self.id)["tokens"].append(
            {
                "round": record.round,
                "quest": record.quest,
                GOOD_MESSAGE: record.cards.get(GOOD_MESSAGE, 0),
                EVIL_MESSAGE: record.cards.get(EVIL_MESSAGE, 0),
            }
        )

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.state.mods.get(self.id, {})
        tokens = [dict(t) for t in mod.get("tokens", [])]
        view["messengers"] = {
            "tokens": tokens,
            "good_messages": sum(t[GOOD_MESSAGE] for t in tokens),
            "evil_messages": sum(t[EVIL_MESSAGE] for t in tokens),
            "backup": mod.get("backup"),
        }

    def private_view(self, ctx: Ctx, seat: int, view: SeatView) -> None:
        role = ctx.state.roles[seat]
        if role not in ("good_messenger", "evil_messenger"):
            return
        mod = ctx.state.mods.get(self.id, {})
        used = mod.get("used", [0] * ctx.n)[seat]
        if role == "good_messenger":
            view["you"]["good_messages_left"] = max(0, GOOD_MESSAGE_LIMIT - used)
        else:
            view["you"]["evil_messages_left"] = max(0, EVIL_MESSAGE_LIMIT - used)
        rank = _ranks(ctx).get(seat)
        if rank:
            view["you"]["messenger_rank"] = rank
