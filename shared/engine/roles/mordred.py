"""Mordred: Evil; hidden from Merlin."""
from ..basics import Side
from ..plugin import Role, register


@register
class Mordred(Role):
    id = "mordred"
    side = Side.EVIL
    shows_in = frozenset({"evil"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
