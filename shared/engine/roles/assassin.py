"""Assassin: Evil; a Minion who names Merlin if three quests succeed (see modules/assassination.py)."""
from ..basics import Side
from ..plugin import Role, issue, register


@register
class Assassin(Role):
    id = "assassin"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True

    def validate(self, config):
        if "merlin" not in config.roles:
            return [
                issue(
                    "warning",
                    "assassin_without_merlin",
                    "Without Merlin the Assassin has no one to assassinate: they play as a Minion.",
                )
            ]
        return []

