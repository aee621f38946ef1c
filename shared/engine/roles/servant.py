"""Loyal Servant of Arthur (Avalon) / Resistance operative: Good, no power. Fills the Good seats."""
from ..basics import Side, Theme
from ..plugin import Role, register


@register
class Servant(Role):
    id = "servant"
    side = Side.GOOD
    filler = True
    max_count = 10
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
