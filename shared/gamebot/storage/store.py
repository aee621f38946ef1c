"""Repository of versioned items, with conditional (version-checked) writes.

Every item has a string ``key``, an integer ``version`` and a JSON-able ``body``. A write states the
version it expects to replace (``None``: the item must not exist yet); if another writer got there
first the write raises :class:`VersionConflict`, and the caller reloads, reapplies and retries
(:func:`retrying`). ``FakeRepository`` here and ``DynamoRepository`` (``gamebot.aws.dynamo``) share
these semantics and are checked by the same contract tests.

Every item lives a bounded time (``gamebot.storage.lifetimes``): a write whose item leaves ``expires_at``
unset gets its kind's life, counted from the write (``stamped``), and an item past its ``expires_at`` is
absent everywhere.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gamebot import observe
from gamebot.storage import lifetimes

# What JSON holds, on the bot's side (an item's body, an update before it is checked, a timer's payload, a
# Bot API method returned to Telegram); the engine's own is ``engine.event_types.JsonValue``.
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class VersionConflict(Exception):
    """Someone else wrote the item since it was read."""


@dataclass
class Item:
    key: str
    body: dict[str, Any]
    version: int = 0  # 0: never written
    expires_at: int | None = None  # epoch seconds; DynamoDB TTL deletes it some time after (None: its kind's life)


@dataclass
class Write:
    """One write inside a transaction. ``expect``: version to replace, or None for a new item."""

    item: Item
    expect: int | None


@dataclass
class Delete:
    key: str
    expect: int | None = None  # None: delete whatever is there


MAX_TRANSACTION_ITEMS = 100  # DynamoDB TransactWriteItems limit


def stamped(item: Item, now: float, strict: bool = True) -> Item:
    """``item`` as a write stores it: with the expiry it set, else its kind's life from ``now``
    (``lifetimes.versioned_expiry``; strict: a key of no known kind, or a notes item's, raises)."""
    return dataclasses.replace(item, expires_at=lifetimes.versioned_expiry(item.key, now, item.expires_at, strict))


def check_transaction(writes: list[Write], deletes: list[Delete]) -> None:
    """Refuse what DynamoDB refuses (ValidationException): >100 items, or one key touched twice."""
    keys = [w.item.key for w in writes] + [d.key for d in deletes]
    if len(keys) > MAX_TRANSACTION_ITEMS:
        raise ValueError(f"a transaction holds at most {MAX_TRANSACTION_ITEMS} items, not {len(keys)}")
    if len(set(keys)) != len(keys):
        twice = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"a transaction may touch each item once; repeated: {twice}")


class Repository(ABC):
    @abstractmethod
    def get(self, key: str) -> Item | None: ...

    @contextmanager
    def prefetching(self, key: str | None) -> Iterator[None]:
        """Within the block, ``get(key)`` may answer from a read started when the block began (DynamoDB:
        the request goes out at once and the webhook's work overlaps its round trip). Here: nothing."""
        yield

    def get_many(self, keys: list[str]) -> dict[str, Item]:
        """The items of ``keys`` that exist (absent or expired ones are left out), read together: one
        request for up to 100 keys where the store allows it (DynamoDB: TransactGetItems)."""
        found = {}
        for key in dict.fromkeys(keys):
            item = self.get(key)
            if item is not None:
                found[key] = item
        return found

    @abstractmethod
    def put(self, item: Item, expect: int | None) -> Item:
        """Write ``item`` if its stored version is ``expect``. Returns it with the new version."""

    @abstractmethod
    def transact(self, writes: list[Write], deletes: list[Delete] | None = None) -> list[Item]:
        """All writes and deletes, or none (VersionConflict). Returns the written items.

        Like DynamoDB's TransactWriteItems: at most 100 items, each key at most once (ValueError).
        """

    @abstractmethod
    def delete(self, key: str, expect: int | None = None) -> None: ...

    @abstractmethod
    def note(self, key: str, name: str, value: int, expires_at: int | None = None) -> None:
        """Record ``name = value`` in the notes item ``key``, without a version check: concurrent notes of
        other names never undo it (a player's refused presses, ``gamebot.outbox.uow.refusals_key``).
        Bounded (``lifetimes.with_note``): a note already there stays as it is; the item's expiry is set
        when it is created (``expires_at``, else its kind's life) and no later note moves it; it holds at
        most ``lifetimes.MAX_NOTES`` notes, the oldest making room. Notes items are read with ``notes``,
        never with ``get``."""

    @abstractmethod
    def notes(self, key: str) -> dict[str, int]:
        """Every note of the item ``key`` (empty when there is none or it expired)."""



def _copied(item: Item) -> Item:
    """A copy of a stored item that shares nothing with it, as DynamoDB gives a fresh value on every read.
    (Through pickle, in C: ``copy.deepcopy``, in Python, took about a tenth of a whole-game unit test.)"""
    import pickle  # (here: the Lambda functions never load it)

    copied: Item = pickle.loads(pickle.dumps(item, pickle.HIGHEST_PROTOCOL))
    return copied


@dataclass
class FakeRepository(Repository):
    """In-memory repository with the same conditional-write semantics, for unit tests."""

    items: dict[str, Item] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    calls: dict[str, int] = field(default_factory=lambda: {"read": 0, "write": 0, "note": 0})

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def _live(self, key: str) -> Item | None:
        item = self.items.get(key)
        if item is not None and item.expires_at is not None and item.expires_at <= self.clock():
            del self.items[key]
            return None
        return item

    def get(self, key: str) -> Item | None:
        with self._lock:
            self.calls["read"] += 1
            item = self._live(key)
            return _copied(item) if item else None

    def get_many(self, keys: list[str]) -> dict[str, Item]:
        if len(set(keys)) > MAX_TRANSACTION_ITEMS:
            raise ValueError(f"at most {MAX_TRANSACTION_ITEMS} keys at once")
        with self._lock:
            self.calls["read"] += 1
            found = {key: self._live(key) for key in dict.fromkeys(keys)}
            return {key: _copied(item) for key, item in found.items() if item is not None}

    def _check(self, key: str, expect: int | None) -> None:
        current = self._live(key)
        if expect is None and current is not None:
            raise VersionConflict(key)
        if expect is not None and (current is None or current.version != expect):
            raise VersionConflict(key)

    def put(self, item: Item, expect: int | None) -> Item:
        return self.transact([Write(item, expect)])[0]

    def transact(self, writes: list[Write], deletes: list[Delete] | None = None) -> list[Item]:
        deletes = deletes or []
        check_transaction(writes, deletes)
        if not writes and not deletes:
            return []
        with self._lock:
            self.calls["write"] += 1
            now = self.clock()
            items = [stamped(_copied(w.item), now) for w in writes]  # (a key of no known kind: nothing written)
            for w in writes:
                self._check(w.item.key, w.expect)
            for d in deletes:
                if d.expect is not None:
                    self._check(d.key, d.expect)
            out = []
            for w, stored in zip(writes, items, strict=True):
                stored.version = (w.expect or 0) + 1
                self.items[stored.key] = stored
                # (as DynamoDBRepository answers: the item written, its body the writer's, not the stored copy)
                out.append(dataclasses.replace(stored, body=w.item.body))
            for d in deletes:
                self.items.pop(d.key, None)
            return out

    def delete(self, key: str, expect: int | None = None) -> None:
        self.transact([], [Delete(key, expect)])

    def note(self, key: str, name: str, value: int, expires_at: int | None = None) -> None:
        with self._lock:
            self.calls["note"] += 1
            now = self.clock()
            if not lifetimes.kind_of(key).notes:
                raise ValueError(f"{key!r} is not a notes item")
            item = self._live(key)
            after = lifetimes.with_note(item.body if item else {}, item.expires_at if item else None, now,
                                        name, value, lifetimes.expiry(key, now, expires_at))
            if after is not None:
                self.items[key] = Item(key=key, body=after[0], expires_at=after[1])

    def notes(self, key: str) -> dict[str, int]:
        with self._lock:
            self.calls["read"] += 1
            item = self._live(key)
            return dict(item.body) if item is not None else {}



def moved(repo: Repository, pairs: list[tuple[str, str]],
          merge: Callable[[Item, Item | None], dict[str, Any]]) -> tuple[list[Write], list[Delete]]:
    """Items moving to new keys (a group's items when it became a supergroup): for each ``(old, new)``
    pair whose old item exists, the write of ``merge(old item, new item or None)`` at the new key and the
    delete of the old one, for the transaction that moves the group's session."""
    old = repo.get_many([source for source, _ in pairs])
    new = repo.get_many([target for _, target in pairs])
    writes, deletes = [], []
    for source_key, target_key in pairs:
        source, target = old.get(source_key), new.get(target_key)
        if source is None:
            continue
        writes.append(Write(Item(key=target_key, body=merge(source, target)), target.version if target else None))
        deletes.append(Delete(source.key, source.version))
    return writes, deletes


def retrying[T](attempt: Callable[[], T], tries: int = 25, backoff: float = 0.005) -> T:
    """Run ``attempt`` (read, apply, conditional write) again after each VersionConflict."""
    for i in range(tries):
        try:
            return attempt()
        except VersionConflict:
            if i == tries - 1:
                raise
            observe.current().version_conflict()
            time.sleep(backoff * (1 + i % 5))
    raise AssertionError("unreachable")  # pragma: no cover
