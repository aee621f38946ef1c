"""Morgana: Evil; appears to Percival as Merlin. Must be played with Percival."""
from ..basics import Side
from ..plugin import Role, issue, register


@register
class Morgana(Role):
    id = "morgana"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin", "percival"})
    looks_in = frozenset({"evil"})
    can_assassinate = True

    def validate(self, config):
        if "percival" not in config.roles:
            return [
                issue(
                    "error",
                    "morgana_needs_percival",
                    "Morgana must be played with Percival: she disguises herself as Merlin to him.",
                )
            ]
        return []
