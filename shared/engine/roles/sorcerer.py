"""Sorcerers (Avalon Big Box, Sorcerer module): one Good and one Evil; both may play Magic cards.

The Evil Sorcerer is an ordinary agent of Evil at the Reveal, unless the optional rule
``sorcerer_hidden`` is on: then they do not reveal themself (they neither open their eyes with the
other agents of Evil nor extend their thumb for Merlin). The card rules live in
``engine/modules/sorcerer.py``.
"""
from ..basics import Side
from ..models import GameConfig
from ..plugin import Role, register


@register
class GoodSorcerer(Role):
    id = "good_sorcerer"
    side = Side.GOOD
    own_cards = ("magic",)
    dealt_as_set = ("good_sorcerer", "evil_sorcerer")


@register
class EvilSorcerer(Role):
    id = "evil_sorcerer"
    side = Side.EVIL
    own_cards = ("magic",)  # instead of Fail (``engine/modules/sorcerer.py``)
    dealt_as_set = ("good_sorcerer", "evil_sorcerer")
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True

    def reveal_traits(self, config: GameConfig) -> tuple[frozenset[str], frozenset[str]]:
        if config.option("sorcerer_hidden"):
            return frozenset(), frozenset()
        return self.shows_in, self.looks_in
