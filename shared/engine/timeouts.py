"""What happens when a seat runs out of time: the rules of the ``timeout`` move.

``apply_action(state, Action(seat, kind="timeout"))`` is refused unless ``seat`` is awaited right now
(``prompts(state, seat)`` is not empty). Otherwise the engine decides the seat's move, applies it like
any other and logs the ``timeout`` itself, so ``replay`` decides the same move again from the same
state (randomness comes only from ``ctx.rng()``). The defaults, also in docs/TIMERS.md:

* Team proposal (``propose``): no team is proposed. It counts as a rejected team: the vote track
  advances, the next player becomes Leader, and a fifth rejection in a row wins for Evil, as a
  fifth voted-down team does.
* Vote (``vote``, also an Opinion Maker's open vote): the option ``timeout_vote`` -- ``approve``
  (default) or ``reject``.
* Quest card (``play``): Success (the only card Good may play, so it reveals nothing), else a card
  that counts as Success, else (a seat that may only play Fail-type cards) a random allowed card.
* A plug-in decision: the owner's ``Plugin.timeout_action`` if it returns an action (the Trickster's
  Loyalty card: their true loyalty); else pass if the prompt is optional; else a random legal
  action (uniform over the choices the plug-in accepts), drawn with ``ctx.rng()``.

Events: ``PlayerTimedOut(seat, kind)`` for the table; for a hidden decision only
``SecretDecisionTimedOut(kind)`` (nobody learns who held it); ``DefaultApplied(kind, choice,
targets, quest)`` privately to the seat; ``TeamNotProposed(leader, rejections)`` for a skipped team.

Record: every timeout is kept in ``mods["timeouts"]["record"]`` (the round it belongs to, when in that
round, how many teams had been proposed in the game so far, the seat, the decision kind, and whether
the decision was hidden). The public view (``timeouts``) lists the open ones at once and the hidden
ones only once the game is over, when who held them is no longer a secret.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TypedDict

from . import cards
from .basics import Theme
from .event_types import Ident, Quest, Seat, Seats, event
from .models import Action, ConfigIssue, GameConfig, Pending, Prompt
from .plugin import ALL, TIMEOUT, Ctx, Plugin, issue, register
from .view_types import PublicView

# The events this file emits (``engine.event_types``)


@event
class SecretDecisionTimedOut(TypedDict):
    kind: Ident


@event
class PlayerTimedOut(TypedDict):
    seat: Seat
    kind: Ident


@event(private=True)
class DefaultApplied(TypedDict):
    kind: Ident
    choice: Ident | None
    targets: Seats
    quest: Quest | None


VOTE_OPTION = "timeout_vote"
VOTE_CHOICES = ("approve", "reject")
DEFAULT_VOTE = "approve"


def vote_default(config: GameConfig) -> str:
    return config.option(VOTE_OPTION) or DEFAULT_VOTE


def quest_card(choices: list[str]) -> str | None:
    """The card a timed-out team member plays: Success, else a card counting as Success."""
    if cards.SUCCESS in choices:
        return cards.SUCCESS
    return next((c for c in choices if cards.counts_as(c) == cards.SUCCESS), None)


def every_answer(prompt: Prompt) -> list[Action]:
    """Every answer a prompt's fields allow (the owner may still refuse some), in a fixed order."""
    seat, kind = prompt.seat, prompt.kind
    choices: list[str | None] = list(prompt.choices) or [None]
    out: list[Action] = []
    if prompt.pick:
        sizes = prompt.info.get("sizes") or {}
        quests: Sequence[int | None] = prompt.quests or [None]
        for quest in quests:
            size = int(sizes.get(str(quest), prompt.pick)) if quest is not None else prompt.pick
            for team in combinations(prompt.targets, size):
                out += [Action(seat=seat, kind=kind, targets=team, quest=quest, choice=c) for c in choices]
    elif prompt.choices:
        out = [Action(seat=seat, kind=kind, choice=c) for c in prompt.choices]
    elif prompt.quests:
        out = [Action(seat=seat, kind=kind, quest=q) for q in prompt.quests]
    return out


def candidates(ctx: Ctx, prompt: Prompt, pending: Pending | None) -> list[Action]:
    """The moves to try, best first; the engine applies the first one the rules accept."""
    seat = prompt.seat
    if pending is not None:
        own = ALL[pending.owner].timeout_action(ctx, pending, prompt)
        if own is not None:
            return [own]
    if prompt.kind == "vote":
        return [Action(seat=seat, kind="vote", choice=vote_default(ctx.config))]
    if pending is None and prompt.kind == "play":
        card = quest_card(prompt.choices)
        if card is not None:
            return [Action(seat=seat, kind="play", choice=card)]
    if prompt.optional:
        return [Action(seat=seat, kind=prompt.kind, choice="pass")]
    options = every_answer(prompt)
    ctx.rng().shuffle(options)  # the first one accepted is uniform over the accepted ones
    return options


# Stage -> when in its round a decision taken then comes: a Leader's turn before a team is proposed,
# about the team just proposed, while the team goes on its quest, after the quest, or after the rounds.
WHEN = {
    "team_proposed": "proposal", "vote": "proposal", "vote_result": "proposal",
    "team_approved": "quest", "before_cards": "quest", "quest": "quest", "cards_played": "quest",
    "quest_resolved": "quest", "after_quest": "after_quest", "game_end": "end",
}


def record(ctx: Ctx, seat: int, kind: str, hidden: bool) -> None:
    """Keep the timeout for the history: where it happened in the game, whose it was, on what."""
    s = ctx.state
    when = WHEN.get(s.stage, "turn")  # reveal, round start, before the team, the team: the Leader's turn
    rnd = s.quests[-1].round if when == "after_quest" and s.quests else s.round
    ctx.mod(Timeouts.id).setdefault("record", []).append(
        {"round": rnd, "when": when, "proposals": len(s.proposals), "seat": seat, "kind": kind, "hidden": hidden}
    )


def announce(ctx: Ctx, seat: int, kind: str, pending: Pending | None) -> None:
    """Tell the table who ran out of time, unless the decision is hidden: then only that one did."""
    record(ctx, seat, kind, pending is not None and pending.hidden)
    if pending is not None and pending.hidden:
        ctx.emit("SecretDecisionTimedOut", kind=kind)
    else:
        ctx.emit("PlayerTimedOut", seat=seat, kind=kind)


def applied(ctx: Ctx, action: Action) -> None:
    ctx.emit(
        "DefaultApplied",
        to=[action.seat],
        kind=action.kind,
        choice=action.choice,
        targets=list(action.targets),
        quest=action.quest,
    )


@register
class Timeouts(Plugin):
    """Always on: owns the ``timeout_vote`` option (what a vote not cast in time counts as)."""

    id = "timeouts"
    place = "engine"
    option_keys = (VOTE_OPTION,)
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
    settings_page = "timers"  # set on the time limits' page, with the limits

    def active(self, config: GameConfig) -> bool:
        return True

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        value = config.options.get(VOTE_OPTION)
        if value is not None and value not in VOTE_CHOICES:
            return [
                issue(
                    "error",
                    "bad_timeout_vote",
                    f"A vote not cast in time counts as 'approve' or 'reject', not {value!r}.",
                    value=value,
                )
            ]
        return []

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        over = ctx.state.over
        shown = [e.copy() for e in ctx.state.mods.get(self.id, {}).get("record", []) if over or not e["hidden"]]
        if shown:
            view["timeouts"] = shown


__all__ = ["DEFAULT_VOTE", "TIMEOUT", "VOTE_OPTION", "candidates", "every_answer", "quest_card", "vote_default"]
