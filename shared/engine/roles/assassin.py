"""Assassin: Evil; a Minion who names Merlin if three quests succeed (see modules/assassination.py)."""
from ..basics import Side
from ..plugin import Needs, Role, register


@register
class Assassin(Role):
    id = "assassin"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    needs = (
        Needs(
            "assassin_without_merlin",
            "Without Merlin the Assassin has no one to assassinate: they play as a Minion.",
            any_of=("merlin",),
        ),
    )

