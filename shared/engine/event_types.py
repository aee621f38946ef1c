"""Declared events: what each event's data holds, by type (a seat, a quest, a card...).

Events stay plain at run time (``Event(type, to, data)``, stored as they are); a plug-in declares each
event it emits next to its code, as a ``TypedDict`` whose field types say what a value is::

    @event(private=True)
    class LoyaltySeen(TypedDict):
        seat: Seat
        side: SideId
        source: SourceId

The Telegram layer formats a field by its declared type (``shown``), the i18n check lists every event
from ``EVENTS`` without playing, and the tests validate emitted events against their declaration
(with pydantic: declaring with ``TypedDict`` keeps the engine's cold start free of model building).
"""
from __future__ import annotations

import functools
import typing
from typing import Annotated, Any, NotRequired, Required, Union

__all__ = [
    "EVENTS", "CardCounts", "CardId", "CardIds", "Ident", "Idents", "Quest", "Quests", "RankId", "RoleId", "Seat",
    "Seats", "Shown", "SideId", "SourceId", "VoteId", "event", "forget", "is_private", "shown",
]


class Shown:
    """How a value is shown to players: a marker in a field's ``Annotated`` type."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Shown({self.name!r})"


Seat = Annotated[int, Shown("seat")]  # a seat number, shown as the player's name
Seats = Annotated[list[int], Shown("seats")]
Quest = Annotated[int, Shown("quest")]  # a quest slot (0-based), shown as its number
Quests = Annotated[list[int], Shown("quests")]
CardId = Annotated[str, Shown("card")]  # a quest, Plot or Allegiance card
CardIds = Annotated[list[str], Shown("cards")]
CardCounts = Annotated[dict[str, int], Shown("card_counts")]  # quest card -> how many were played
RoleId = Annotated[str, Shown("role")]
SideId = Annotated[str, Shown("side")]  # "good" / "evil"
SourceId = Annotated[str, Shown("source")]  # what taught a player something ("lady", "cleric", a Plot card)
RankId = Annotated[str, Shown("rank")]  # a Messenger's rank
VoteId = Annotated[str, Shown("vote")]  # "approve" / "reject"
Ident = Annotated[str, Shown("ident")]  # any other id (a reason, a decision kind), shown by its catalog name
Idents = Annotated[list[str], Shown("idents")]

_UNION = type(int | None)  # ``X | None`` (types.UnionType)
EVENTS: dict[str, type] = {}  # event type -> its declaration
_PRIVATE: set[str] = set()


def event(cls: type | None = None, *, private: bool = False) -> Any:
    """Declare an event: ``@event`` or ``@event(private=True)`` (only some seats are told) on a
    ``TypedDict`` whose name is the event type."""

    def declare(cls: type) -> type:
        cls.__pydantic_config__ = {"extra": "forbid", "strict": True}  # read by the tests' validation
        EVENTS[cls.__name__] = cls
        if private:
            _PRIVATE.add(cls.__name__)
        shown.cache_clear()
        return cls

    return declare(cls) if cls is not None else declare


def forget(kind: str) -> None:
    """Drop a declaration (tests that declare an event of their own)."""
    EVENTS.pop(kind, None)
    _PRIVATE.discard(kind)
    shown.cache_clear()


def is_private(kind: str) -> bool:
    return kind in _PRIVATE


def _name(tp: Any) -> str | None:
    """The ``Shown`` name inside a type (through ``NotRequired``, ``| None``), or None."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        marks = [m.name for m in tp.__metadata__ if isinstance(m, Shown)]
        return marks[0] if marks else None
    if origin in (Required, NotRequired, Union, _UNION):
        return next((n for n in map(_name, typing.get_args(tp)) if n), None)
    return None


@functools.cache
def shown(kind: str) -> dict[str, str] | None:
    """Field -> how it is shown (``seat``, ``quest``, ``card``...; "" for a plain value) for a declared
    event, None for an event nobody declared."""
    cls = EVENTS.get(kind)
    if cls is None:
        return None
    hints = typing.get_type_hints(cls, include_extras=True)
    return {key: _name(tp) or "" for key, tp in hints.items()}

