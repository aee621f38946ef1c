"""What a warm container remembers between updates: pure results of immutable inputs.

A chat's engine state is parsed from the JSON text the chat item stores, its public view computed and
its board drawn at nearly every update; the next update of the same chat usually reads back exactly
the state this container wrote (same text), and a timer or a progress refresh draws the same board
again. These small caches keep those results, so that each is computed once per state rather than
several times per update:

* ``game_state(text)``: the ``GameState`` parsed from ``text`` (the engine never mutates a state it is
  given: ``apply_action`` copies it first), found again when the same text comes back;
* ``public(state)``: ``engine.public_view(state)``, once per state object. The dict is shared: callers
  read it and never change it (make a copy to change it: ``dict(public(state))`` or ``public_view``);
* ``board(messages.board.board, table, pv, status)``: the board, once per view and table.

Everything here is a cache: missing it (another container, an evicted entry) only costs the work it
saves, never changes a result. Entries hold their inputs, so that an identity (``id``) is never
mistaken for another object's.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Protocol

from engine import GameState, public_view
from engine.views import PublicView


class DrawnFor(Protocol):
    """What a board is drawn for, as far as this cache tells one from another: ``messages.table.Table``
    (not imported: the messages room imports the session module, which parses states here)."""

    @property
    def chat_id(self) -> int: ...
    @property
    def game_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def lang(self) -> str: ...
    @property
    def theme(self) -> str: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def user_ids(self) -> Sequence[int]: ...
    @property
    def bot_username(self) -> object: ...  # a ``str``, or a ``botapi.bot_name.BotName`` (told apart by identity)
    @property
    def limit(self) -> int: ...
    @property
    def due(self) -> int | None: ...


STATES = 16  # parsed states kept (a few chats per container, the state before and after a move)
VIEWS = 16
BOARDS = 32  # (a board per language and status of a view)


class _Lru[K: Hashable, V]:
    """A small least-recently-used map."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)

    def clear(self) -> None:
        self.items.clear()


_states: _Lru[str, GameState] = _Lru(STATES)
_views: _Lru[int, tuple[GameState, PublicView]] = _Lru(VIEWS)  # id(state) -> (state, its view)
_boards: _Lru[tuple[Hashable, ...], tuple[PublicView, object, str]] = _Lru(BOARDS)  # -> (view, bot name, board)


def game_state(text: str) -> GameState:
    """The state stored as ``text`` (``GameState.from_json``; raises ``ValueError`` as it does)."""
    found = _states.get(text)
    if found is None:
        found = GameState.from_json(text)
        _states.put(text, found)
    return found


def remember_state(text: str, state: GameState) -> None:
    """``state`` is stored as ``text`` (``GameState.to_json``): the next read of that text finds it."""
    _states.put(text, state)


def public(state: GameState) -> PublicView:
    """``public_view(state)``, computed once per state object. Read-only: shared by its callers."""
    found = _views.get(id(state))
    if found is not None and found[0] is state:
        return found[1]
    pv = public_view(state)
    _views.put(id(state), (state, pv))
    return pv


def board[T: DrawnFor](draw: Callable[[T, PublicView, str], str], table: T, pv: PublicView,
          status: str = "playing") -> str:
    """``draw(table, pv, status)`` (``messages.board.board``, which the caller passes: the messages room imports the session,
    which uses this module), drawn once per view (``public``'s dict) and table."""
    bot = table.bot_username
    key = (id(pv), status, table.chat_id, table.game_id, table.title, table.lang, table.theme,
           tuple(table.names), tuple(table.user_ids), bot if isinstance(bot, str) else id(bot), table.limit, table.due)
    found = _boards.get(key)
    if found is not None and found[0] is pv and found[1] is bot:
        return found[2]
    text = draw(table, pv, status)
    _boards.put(key, (pv, bot, text))
    return text


def clear() -> None:
    """Forget everything (tests)."""
    for cache in (_states, _views, _boards):
        cache.clear()
