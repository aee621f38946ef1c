"""Merlin: Good; sees the agents of Evil (not Mordred) at the reveal. Evil wins if the Assassin names him.

Who assassinates without an Assassin card (and its checks) is in ``engine/modules/assassination.py``.
"""
from ..basics import Side
from ..plugin import Role, register
from ..reveal import RevealStep, register_step

# "Minions of Mordred, extend your thumb so that Merlin will know of you" / "Merlin, open your eyes".
register_step(RevealStep(id="merlin", order=30, label="evil"))


@register
class Merlin(Role):
    id = "merlin"
    side = Side.GOOD
    shows_in = frozenset({"percival"})
    looks_in = frozenset({"merlin"})
