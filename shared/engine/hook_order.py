"""The order in which plug-ins' hooks run, by name, in one place.

Every plug-in names its ``place`` (a class attribute); the places below run first to last, and the
plug-ins sharing a place run in the order of their ids. The same order serves every hook (setup, the
stage hooks, the pure adjustments, the views): a game's stored position inside a hook stage
(``GameState.hook_i``) is an index into it, and setup draws randomness in it, so it must not change
for games already stored. ``tests/unit/test_hook_order.py`` spells out the resolved order of every
hook.

Where the order is a rule of the game, the place says why:

* cards played: the Messengers count the Message cards put down (``message_cards``), Excalibur
  switches a card (``switch``), the Trapper sets one aside (``set_aside``), then the Plot cards that
  look at played cards ("Keeping a Close Eye on You", "Ambush") are offered (``plot``);
* tally: the Sorcerer's Magic cards are counted (``rules``) before the Messengers' backup
  (``message_cards``), which reads whether the quest is about to be reversed;
* game end: the Recruitment stage (``recruitment``) comes before the Assassination stage
  (``assassination``); the winners are settled after both (``engine.stages``).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class Placed(Protocol):
    """What the order reads of a plug-in (``engine.plugin.Plugin``, not imported: it imports this)."""

    @property
    def id(self) -> str: ...  # (read only: a plug-in's are class attributes)

    @property
    def place(self) -> str: ...


PLACES: tuple[str, ...] = (
    "engine",  # the engine's own plug-ins (loyalty checks, time limits)
    "quest_choice",  # Targeting: which quests the Leader may attempt, before anyone adjusts them
    "allegiance",  # Lancelot's allegiance cards: sides change before characters and modules read them
    "characters",  # every character card (the default for a Role)
    "rules",  # modules with no ordering constraint (the default for a Module); the Sorcerer's Magic
    "message_cards",  # Messengers: count Message cards as played; backup after the Magic reversals
    "lady",  # Lady of the Lake: passed on after the quest
    "switch",  # Excalibur: switches a played card before it is set aside or looked at
    "set_aside",  # Trapper: sets a played card aside, after Excalibur
    "plot",  # Plot cards: their windows come last in each stage ("Ambush" sees the switched cards)
    "recruitment",  # Untrustworthy Servant: the Recruitment stage, before the Assassination
    "assassination",  # the Assassination stage, last of the game's end
)

_RANK = {name: i for i, name in enumerate(PLACES)}


def check_place(plugin_id: str, place: str) -> None:
    """Refuse a plug-in whose place is not one of ``PLACES``."""
    if place not in _RANK:
        raise ValueError(f"plug-in {plugin_id!r} names an unknown hook place {place!r}")


def resolve[P: Placed](plugins: Iterable[P]) -> list[P]:
    """``plugins`` in hook order: by place, then by id."""
    return sorted(plugins, key=lambda p: (_RANK[p.place], p.id))
