"""Assassination stage: if three quests succeed and Merlin is in play, the Assassin names Merlin.

Without an Assassin card a designated Evil character assassinates (Big Box: "designate any other
Evil character to serve as the Assassin. For example, Morgana can play both herself and the
Assassin"): ``config.assassin`` (the host's choice), else a Minion of Mordred, else the first Evil
character of the game (in the host's order) whose role may assassinate (``Role.may_assassinate``:
not the Evil Rogue, not a Lancelot who may switch sides): ``designated_role``. The choice is a
character, fixed by the configuration, never by seats or current sides, so the seat the Untrustworthy
Servant learns at the Reveal is the seat that assassinates. The designated player knows it from the
start (``view["you"]["assassinates"]``), and so do the fellow agents of Evil who see them at the
Reveal (knowledge label ``assassinates``), as at a real table where the host says it aloud.

Another plug-in may hand the task to someone else with ``hand_over`` (e.g. a recruited Untrustworthy
Servant) or skip the stage with ``skip`` (e.g. a Rogue's solo win); ``skipped`` tells whether it was.

Other targets: a module may register another group of characters with ``register_target`` (the
Messengers add ``"messengers"``: both Good Messengers). When more than one target is in play, the Assassin first
announces which one (``assassin_target``), then names as many players as the target has characters;
Evil wins only if every named player is one of them.

Everything about the stage is announced, so the public view keeps it once it starts
(``assassination``: who assassinates, the target announced, whom they named and whether they hit).
"""
from __future__ import annotations

from typing import NotRequired, TypedDict

from ..basics import SIDES_BY_PLAYERS, Side
from ..errors import InvalidChoice, InvalidTarget
from ..event_types import Ident, Idents, Seat, Seats, event, prompt_info
from ..models import Action, ConfigIssue, GameConfig, GameState, Pending, Prompt
from ..plugin import ROLES, Ctx, Module, issue, register
from ..reveal import knows_at_reveal
from ..view_types import PublicView, SeatView

# The events this file emits, and the info of its prompt (``engine.event_types``)


@prompt_info("assassinate")
class AssassinateInfo(TypedDict):
    target: Ident  # whom to find: "merlin", or "messengers" (both Good Messengers)


@event
class AssassinationStarted(TypedDict):
    assassin: Seat
    choices: Idents  # what may be assassinated: more than one is announced first


@event
class AssassinTargetAnnounced(TypedDict):
    assassin: Seat
    target: Ident  # what is assassinated (merlin, messengers...)


@event
class AssassinationAttempted(TypedDict):
    assassin: Seat
    target: NotRequired[Seat]  # one seat named
    targets: NotRequired[Seats]  # several seats named, for
    kind: NotRequired[Ident]  # this target
    hit: bool


# What the Assassin may announce: target id -> the characters they must all name correctly.
_TARGETS: dict[str, tuple[str, ...]] = {"merlin": ("merlin",)}


def register_target(kind: str, characters: tuple[str, ...]) -> None:
    """Add an assassination target: the Assassin may announce ``kind`` and must then name every one of
    ``characters`` (in play when the game deals them all). Targets are offered in registration order."""
    if kind in _TARGETS:
        raise ValueError(f"duplicate assassination target {kind!r}")
    _TARGETS[kind] = tuple(characters)


def target_characters(kind: str) -> tuple[str, ...]:
    """The characters the Assassin must name for the target ``kind``."""
    return _TARGETS[kind]


def skip(ctx: Ctx) -> None:
    """No Assassination stage in this game after all (e.g. a Rogue already won alone)."""
    ctx.mod(Assassination.id)["skip"] = True


def skipped(state: GameState) -> bool:
    """Was the Assassination stage called off (``skip``)?"""
    return bool(state.mods.get(Assassination.id, {}).get("skip"))


def hand_over(ctx: Ctx, seat: int) -> None:
    """``seat`` assassinates instead of the dealt Assassin (e.g. a recruited Untrustworthy Servant)."""
    ctx.mod(Assassination.id)["assassin"] = seat


def target_kinds(config: GameConfig) -> list[str]:
    """The assassination targets in play in this game, in the order they were registered."""
    return [
        kind
        for kind, needed in _TARGETS.items()
        if all(config.roles.count(r) >= needed.count(r) for r in needed)
    ]


def assassin_seat(ctx: Ctx) -> int:
    """Who assassinates: the seat handed the task (``hand_over``), else the dealt Assassin."""
    override: int | None = ctx.state.mods.get(Assassination.id, {}).get("assassin")
    if override is not None:
        return override
    return dealt_assassin(ctx.config, ctx.state.roles)


def designated_role(config: GameConfig) -> str | None:
    """The character who assassinates: the Assassin card, else the host's choice, else a Minion of
    Mordred if a seat is left for one, else the first Evil character of the game who may assassinate."""
    if "assassin" in config.roles:
        return "assassin"
    if config.assassin:
        return config.assassin
    if _minion_seat(config):
        return "minion"
    chosen = [r for r in dict.fromkeys(config.roles) if r in ROLES and ROLES[r].side is Side.EVIL]
    return next((r for r in chosen if ROLES[r].may_assassinate(config)), None)


def dealt_assassin(config: GameConfig, roles: list[str]) -> int:
    """The seat of the character who assassinates (``designated_role``; the first of them if several
    Minions play). Reads the cards only: a Lancelot switch or a Recruitment never moves the task."""
    role_id = designated_role(config)
    if role_id in roles:
        return roles.index(role_id)
    return next(s for s, r in enumerate(roles) if ROLES[r].side is Side.EVIL)  # pragma: no cover


def _minion_seat(config: GameConfig) -> bool:
    """Is an Evil seat left over for a plain Minion of Mordred after the chosen Evil characters?"""
    evil_seats = SIDES_BY_PLAYERS.get(config.players, (0, 0))[1]
    evil_chosen = sum(1 for r in config.roles if r in ROLES and ROLES[r].side is Side.EVIL)
    return evil_chosen < evil_seats


def assassin_choices(config: GameConfig) -> list[str]:
    """Whom the host may designate to assassinate (``config.assassin``): empty when nobody is to be
    designated (no Assassination stage, or the Assassin card plays); else the Evil characters of the game
    who may assassinate, then a Minion of Mordred if a seat is left for one."""
    if "assassin" in config.roles or not target_kinds(config):
        return []
    chosen = [r for r in dict.fromkeys(config.roles) if r in ROLES and ROLES[r].side is Side.EVIL]
    choices = [r for r in chosen if ROLES[r].may_assassinate(config)]
    return choices + (["minion"] if _minion_seat(config) else [])


def assassin_issues(config: GameConfig) -> list[ConfigIssue]:
    """Is there an Evil character to perform the Assassination stage, and is the designated one legal?"""
    designated = config.assassin
    if "assassin" in config.roles:
        if designated is None or designated == "assassin":
            return []
        return [
            issue(
                "warning",
                "assassin_designation_unused",
                f"The Assassin is in the game, so '{designated}' does not assassinate.",
                role=designated,
            )
        ]
    minion_seat = _minion_seat(config)
    if designated is None:
        if minion_seat or any(
            ROLES[r].side is Side.EVIL and ROLES[r].may_assassinate(config) for r in config.roles if r in ROLES
        ):
            return []
        return [
            issue(
                "error",
                "no_assassin",
                "No Evil character in this game can assassinate: add the Assassin or a Minion of Mordred.",
            )
        ]
    role = ROLES.get(designated)
    if role is None or role.side is not Side.EVIL:
        return [
            issue(
                "error",
                "assassin_not_evil",
                "The character who assassinates must be an Evil character.",
                role=designated,
            )
        ]
    if not role.filler and designated not in config.roles:
        return [
            issue(
                "error",
                "assassin_not_in_play",
                f"'{designated}' is not in this game, so cannot assassinate.",
                role=designated,
            )
        ]
    if role.filler and not minion_seat:
        return [
            issue(
                "error",
                "assassin_not_in_play",
                f"Every Evil seat holds a special character, so no '{designated}' can assassinate.",
                role=designated,
            )
        ]
    if not role.can_assassinate:
        return [
            issue(
                "error",
                "assassin_cannot_assassinate",
                f"'{designated}' plays alone and cannot be the Assassin.",
                role=designated,
            )
        ]
    return []


def _targets(ctx: Ctx, assassin: int) -> list[int]:
    known_evil = {k.seat for k in ctx.state.knowledge[assassin] if k.label == "evil"}
    return [s for s in range(ctx.n) if s != assassin and s not in known_evil]


@register
class Assassination(Module):
    id = "assassination"
    place = "assassination"
    timer_phase = "assassination"

    def active(self, config: GameConfig) -> bool:
        return bool(target_kinds(config))

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        return assassin_issues(config)

    def setup(self, ctx: Ctx) -> None:
        """Without an Assassin card, the designated player and the agents of Evil who will see them at
        the Reveal are told who assassinates."""
        if "assassin" in ctx.config.roles:
            return
        seat = dealt_assassin(ctx.config, ctx.state.roles)
        ctx.mod(self.id)["designated"] = seat
        for other in range(ctx.n):
            if other != seat and knows_at_reveal(ctx.config, ctx.state.roles, other, seat, "evil"):
                ctx.learn(other, seat, "assassinates", "reveal")

    def private_view(self, ctx: Ctx, seat: int, view: SeatView) -> None:
        if ctx.state.mods.get(self.id, {}).get("designated") == seat:
            view["you"]["assassinates"] = list(target_kinds(ctx.config))
    def on_game_end(self, ctx: Ctx) -> None:
        s = ctx.state
        if s.winner is not Side.GOOD or s.win_reason != "three_successes" or ctx.mod(self.id).get("skip"):
            return
        assassin = assassin_seat(ctx)
        kinds = target_kinds(ctx.config)
        ctx.mod(self.id)["attempt"] = {"assassin": assassin, "kind": kinds[0] if len(kinds) == 1 else None,
                                       "named": [], "hit": None}
        ctx.emit("AssassinationStarted", assassin=assassin, choices=kinds)  # more than one: announced first
        if len(kinds) > 1:
            ctx.push("assassin_target", self.id, [assassin], choices=kinds)
        else:
            ctx.push("assassinate", self.id, [assassin], target=kinds[0])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        if pending.kind == "assassin_target":
            return Prompt(kind="assassin_target", seat=seat, choices=list(pending.data["choices"]))
        kind = pending.data.get("target", "merlin")
        return Prompt(
            kind="assassinate",
            seat=seat,
            pick=len(_TARGETS[kind]),
            targets=_targets(ctx, seat),
            info={"target": kind},
        )

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if pending.kind == "assassin_target":
            if action.choice not in pending.data["choices"]:
                raise InvalidChoice(
                    "Announce whom you will assassinate.", choices=list(pending.data["choices"])
                )
            ctx.mod(self.id).setdefault("attempt", {}).update(assassin=action.seat, kind=action.choice, announced=True)
            ctx.emit("AssassinTargetAnnounced", assassin=action.seat, target=action.choice)
            ctx.push("assassinate", self.id, [action.seat], front=True, target=action.choice)
            return
        kind = pending.data.get("target", "merlin")
        needed = _TARGETS[kind]
        named = action.targets
        allowed = _targets(ctx, action.seat)
        if len(named) != len(needed) or len(set(named)) != len(named) or any(t not in allowed for t in named):
            if len(needed) == 1:
                raise InvalidTarget("Name one player you do not know to be Evil.")
            raise InvalidTarget(
                f"Name {len(needed)} different players you do not know to be Evil.", pick=len(needed)
            )
        hit = sorted(ctx.state.roles[t] for t in named) == sorted(needed)
        ctx.mod(self.id).setdefault("attempt", {}).update(assassin=action.seat, kind=kind, named=list(named), hit=hit)
        if len(named) == 1:
            ctx.emit("AssassinationAttempted", assassin=action.seat, target=named[0], hit=hit)
        else:
            ctx.emit("AssassinationAttempted", assassin=action.seat, targets=list(named), kind=kind, hit=hit)
        if hit:
            ctx.win(Side.EVIL, f"{kind}_assassinated")
        else:
            ctx.win(Side.GOOD, "assassination_missed")

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        attempt = ctx.state.mods.get(self.id, {}).get("attempt")
        if attempt:
            entry = attempt.copy()
            entry["named"] = list(attempt.get("named") or [])
            view["assassination"] = entry
