"""Messengers (Avalon Big Box): two Good Messengers and one Evil Messenger, always all three.

The Good Messengers have no Reveal step of their own; with the optional rule
``senior_junior_messengers`` one of them is made the Senior Messenger at setup (see
``engine/modules/messengers.py``). The Evil Messenger is an ordinary agent of Evil at the Reveal.
"""
from ..basics import Side
from ..plugin import Role, register

MESSENGERS = ("good_messenger", "good_messenger", "evil_messenger")


@register
class GoodMessenger(Role):
    id = "good_messenger"
    side = Side.GOOD
    max_count = 2
    own_cards = ("good_message",)
    dealt_as_set = MESSENGERS
    looks_in = frozenset({"junior_messenger"})  # the Senior Messenger (a seat drawn among the two)


@register
class EvilMessenger(Role):
    id = "evil_messenger"
    side = Side.EVIL
    own_cards = ("evil_message",)
    dealt_as_set = MESSENGERS
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
