"""The Reveal stage, composed from role traits.

Each :class:`RevealStep` is one block of the rulebook script: the roles that *show* (extend a thumb,
or open their eyes together) and the roles that *look*. A role declares the steps it shows in and
looks in (``Role.shows_in`` / ``Role.looks_in``); a step declares what lookers learn about showers.
Adding a role with new reveal behaviour means declaring a step in that role's own file.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .models import GameConfig
from .plugin import ROLES, Ctx


@dataclass(frozen=True)
class RevealStep:
    id: str
    order: int
    label: str  # what a looker learns about each shower
    mutual: bool = False  # lookers open their eyes together and see each other ("look around")
    enabled: Callable[[GameConfig], bool] = lambda config: True
    # Optional: a shower-specific label (e.g. each Lancelot sees the other's allegiance).
    label_for: Callable[[Ctx, int], str] | None = None
    # Optional: who shows when it is not a character but a seat chosen in play (e.g. "leader" for the
    # Cleric, "assassin" for the Untrustworthy Servant). The step's plug-in gives that knowledge itself.
    shown_by: str | None = None


STEPS: dict[str, RevealStep] = {}


def register_step(step: RevealStep) -> RevealStep:
    STEPS[step.id] = step
    return step


# The Evil team's step ("Minions of Mordred, open your eyes"); Blind Spies skips it.
register_step(
    RevealStep(
        id="evil",
        order=20,
        label="evil",
        mutual=True,
        enabled=lambda config: not config.option("blind_spies"),
    )
)


def _ordered_steps(config: GameConfig) -> list[RevealStep]:
    return sorted((s for s in STEPS.values() if s.enabled(config)), key=lambda s: (s.order, s.id))


def knows_at_reveal(config: GameConfig, roles: list[str], looker: int, shower: int, step_id: str) -> bool:
    """Does ``looker`` see ``shower`` in the Reveal step ``step_id`` of this game?"""
    step = STEPS.get(step_id)
    if step is None or not step.enabled(config) or looker == shower:
        return False
    return (step_id in ROLES[roles[shower]].reveal_traits(config)[0]
            and step_id in ROLES[roles[looker]].reveal_traits(config)[1])


def compute_reveal(ctx: Ctx) -> None:
    """Give every seat the knowledge the reveal script gives them."""
    roles = [ROLES[r] for r in ctx.state.roles]
    for step in _ordered_steps(ctx.config):
        showers = [s for s, r in enumerate(roles) if step.id in r.reveal_traits(ctx.config)[0]]
        lookers = [s for s, r in enumerate(roles) if step.id in r.reveal_traits(ctx.config)[1]]
        for looker in lookers:
            for shower in showers:
                if shower == looker:
                    continue
                label = step.label_for(ctx, shower) if step.label_for else step.label
                ctx.learn(looker, shower, label, "reveal")


def reveal_script(config: GameConfig, role_ids: list[str]) -> list[dict[str, object]]:
    """The reveal stage as data: for each step in play, which roles show and which look."""
    present = [ROLES[r] for r in dict.fromkeys(role_ids)]
    script = []
    for step in _ordered_steps(config):
        show = sorted(r.id for r in present if step.id in r.reveal_traits(config)[0])
        look = sorted(r.id for r in present if step.id in r.reveal_traits(config)[1])
        if look and step.shown_by:
            script.append(
                {"step": step.id, "show": [], "look": look, "mutual": False, "shown_by": step.shown_by}
            )
        elif look and (show or step.mutual):
            script.append({"step": step.id, "show": show, "look": look, "mutual": step.mutual})
    return script
