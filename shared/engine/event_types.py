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

A prompt's ``info`` is declared the same way, by the plug-in that asks (``@prompt_info("watch")``; a
prompt without info declares nothing), and so may a plug-in's public-view entry (``@view_entry("key")``)
that the bot has no board lines of its own for.
"""
from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Annotated, Any, NotRequired, Required, Union, overload

from pydantic import ConfigDict, with_config

__all__ = [
    "EVENTS", "PROMPTS", "VIEWS", "CardCounts", "CardId", "CardIds", "Hands", "Ident", "Idents", "JsonValue", "Quest",
    "Quests", "RankId", "RoleId", "Seat", "Seats", "Shown", "SideId", "SourceId", "VoteId", "event", "forget",
    "is_private", "prompt_info", "prompt_shown", "shown", "view_entry", "view_shown",
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
Hands = Annotated[dict[str, list[str]], Shown("hands")]  # seat (as text) -> the Plot cards it holds

# Open JSON: what an event's or a prompt's data, a plug-in's record or an option may hold (the engine
# keeps its state as JSON; a declaration above says what a given field is).
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]

_UNION = type(int | None)  # ``X | None`` (types.UnionType)
EVENTS: dict[str, type] = {}  # event type -> its declaration
_PRIVATE: set[str] = set()
PROMPTS: dict[str, tuple[type, ...]] = {}  # prompt kind -> the declarations of its ``info`` (one per asker)
VIEWS: dict[str, type] = {}  # public-view key -> the declaration of a plug-in's entry
STRICT: ConfigDict = {"extra": "forbid", "strict": True}  # read by the tests' validation


@overload
def event[D: type](cls: D, *, private: bool = False) -> D: ...
@overload
def event[D: type](cls: None = None, *, private: bool = False) -> Callable[[D], D]: ...
def event[D: type](cls: D | None = None, *, private: bool = False) -> D | Callable[[D], D]:
    """Declare an event: ``@event`` or ``@event(private=True)`` (only some seats are told) on a
    ``TypedDict`` whose name is the event type."""

    def declare[T: type](cls: T) -> T:
        cls = with_config(STRICT)(cls)  # (sets ``cls.__pydantic_config__``: read by the tests' validation)
        EVENTS[cls.__name__] = cls
        if private:
            _PRIVATE.add(cls.__name__)
        shown.cache_clear()
        return cls

    return declare(cls) if cls is not None else declare


def prompt_info[D: type](*kinds: str) -> Callable[[D], D]:
    """Declare the ``info`` of the prompts of these kinds, on a ``TypedDict``. Another plug-in asking a
    prompt of the same kind (the Opinion Maker's open vote) declares its own: the info matches one of them."""

    def declare[T: type](cls: T) -> T:
        cls = with_config(STRICT)(cls)  # (sets ``cls.__pydantic_config__``: read by the tests' validation)
        for kind in kinds:
            if cls not in PROMPTS.get(kind, ()):
                PROMPTS[kind] = (*PROMPTS.get(kind, ()), cls)
        prompt_shown.cache_clear()
        return cls

    return declare


def view_entry[D: type](key: str) -> Callable[[D], D]:
    """Declare a plug-in's public-view entry ``view[key]`` (a dict), on a ``TypedDict``."""

    def declare[T: type](cls: T) -> T:
        cls = with_config(STRICT)(cls)  # (sets ``cls.__pydantic_config__``: read by the tests' validation)
        VIEWS[key] = cls
        view_shown.cache_clear()
        return cls

    return declare


def forget(kind: str) -> None:
    """Drop a declaration of an event, a prompt's info or a view entry (tests that declare their own)."""
    EVENTS.pop(kind, None)
    PROMPTS.pop(kind, None)
    VIEWS.pop(kind, None)
    _PRIVATE.discard(kind)
    shown.cache_clear()
    prompt_shown.cache_clear()
    view_shown.cache_clear()


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


def _fields(cls: type | None) -> dict[str, str] | None:
    if cls is None:
        return None
    hints = typing.get_type_hints(cls, include_extras=True)
    return {key: _name(tp) or "" for key, tp in hints.items()}


@functools.cache
def shown(kind: str) -> dict[str, str] | None:
    """Field -> how it is shown (``seat``, ``quest``, ``card``...; "" for a plain value) for a declared
    event, None for an event nobody declared."""
    return _fields(EVENTS.get(kind))


@functools.cache
def prompt_shown(kind: str) -> dict[str, str] | None:
    """Field -> how it is shown, for the declared info of a prompt kind, all its declarations together
    (None: it declares none)."""
    if kind not in PROMPTS:
        return None
    out: dict[str, str] = {}
    for cls in PROMPTS[kind]:
        out.update(_fields(cls) or {})
    return out


@functools.cache
def view_shown(key: str) -> dict[str, str] | None:
    """Field -> how it is shown, for a declared public-view entry (None: not declared)."""
    return _fields(VIEWS.get(key))

