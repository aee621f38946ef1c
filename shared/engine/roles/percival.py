"""Percival: Good; sees Merlin and Morgana at the reveal without knowing which is which."""
from ..basics import Side
from ..models import ConfigIssue, GameConfig
from ..plugin import Ctx, Needs, Role, issue, register
from ..reveal import RevealStep, register_step


def _label(ctx: Ctx, seat: int) -> str:
    # Without Morgana in play, the only thumb Percival can see is Merlin's.
    return "merlin_or_morgana" if "morgana" in ctx.config.roles else "merlin"


# "Merlin & Morgana, extend your thumb so that Percival may know of you" / "Percival, open your eyes".
register_step(RevealStep(id="percival", order=40, label="merlin_or_morgana", label_for=_label))


@register
class Percival(Role):
    id = "percival"
    side = Side.GOOD
    looks_in = frozenset({"percival"})
    needs = (Needs("percival_without_merlin", "Percival has no Merlin to find in this game.", any_of=("merlin",)),)

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        if config.players == 5 and not {"mordred", "morgana"} & set(config.roles):
            return [
                issue(
                    "warning",
                    "percival_five_players",
                    "In a 5-player game, add Mordred or Morgana when playing with Percival.",
                )
            ]
        return []
