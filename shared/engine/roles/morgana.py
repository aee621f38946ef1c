"""Morgana: Evil; appears to Percival as Merlin. Must be played with Percival."""
from ..basics import Side
from ..plugin import Needs, Role, register


@register
class Morgana(Role):
    id = "morgana"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin", "percival"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    needs = (
        Needs(
            "morgana_needs_percival",
            "Morgana must be played with Percival: she disguises herself as Merlin to him.",
            any_of=("percival",),
            level="error",
        ),
    )
