"""Minion of Mordred (Avalon) / Spy (Resistance): Evil; knows the Evil team and is seen by Merlin."""
from ..basics import Side, Theme
from ..plugin import Role, register


@register
class Minion(Role):
    id = "minion"
    side = Side.EVIL
    filler = True
    max_count = 10
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
