"""The /nextgame subscribers of a group, kept in items of their own: never in the chat's item, which every
vote rewrites (``handlers.nextgame`` says what they are told, and when).

A group's subscribers are spread over ``SHARDS`` items, ``next#<chat_id>#<k>``, a subscriber in shard
``user id % SHARDS``; each body is ``{"subs": {"<user id>": "<language>"}}`` (the language they are told in;
"": the group's). An item holds at most ``PER_SHARD`` subscribers (a subscription beyond that is refused),
so a group keeps at most ``SHARDS * PER_SHARD`` of them and each item stays small (about 20 bytes of
JSON a subscriber before compression, 40 KB when full): far below DynamoDB's 400 KB, and cheap to rewrite.

* Subscribing reads the subscriber's shard and writes it back under a version check (:func:`subscribe`):
  one write, and the chat's item is neither read for it nor written.
* When a lobby opens, its deliveries read every shard in one request (:func:`waiting`) and take each
  subscriber out of their shard as soon as they were told (:meth:`Shard.strike`): a subscriber is never
  dropped before the notice went out, and once out, the next delivery does not find them any more.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gamebot.storage.store import Delete, Item, Repository, Write, moved, retrying

SHARDS = 20  # (all read in one TransactGetItems: moto, which the playground and the tests run on, takes 25)
PER_SHARD = 2000  # subscribers an item holds: a group keeps at most SHARDS * PER_SHARD (40,000)
ADDED, ALREADY, FULL = "added", "already", "full"


def shard_key(chat_id: int, k: int) -> str:
    return f"next#{chat_id}#{k}"


def key_of(chat_id: int, user_id: int) -> str:
    """The item that holds ``user_id``'s subscription in the group ``chat_id``."""
    return shard_key(chat_id, user_id % SHARDS)


def keys(chat_id: int) -> list[str]:
    return [shard_key(chat_id, k) for k in range(SHARDS)]


def members(item: Item | None) -> dict[str, str]:
    """The subscribers an item holds (user id as text -> language)."""
    subs = item.body.get("subs") if item is not None else None
    if not isinstance(subs, dict):
        return {}
    return {str(k): str(v or "") for k, v in subs.items() if str(k).isdigit()}


def subscribe(repo: Repository, chat_id: int, user_id: int, lang: str) -> str:
    """Add ``user_id`` (told in ``lang``) to the group's subscribers: ADDED, ALREADY (subscribed before) or
    FULL (their item holds ``PER_SHARD``). One read and one version-checked write (re-run on a conflict)."""
    key = key_of(chat_id, user_id)

    def attempt() -> str:
        item = repo.get(key)
        subs = members(item)
        if str(user_id) in subs:
            return ALREADY
        if len(subs) >= PER_SHARD:
            return FULL
        subs[str(user_id)] = lang
        repo.put(Item(key=key, body={"subs": subs}), item.version if item is not None else None)
        return ADDED

    return retrying(attempt)


@dataclass
class Shard:
    """One subscribers' item as read, kept current by the writes that take subscribers out of it."""

    key: str
    version: int | None
    subs: dict[str, str] = field(default_factory=dict)

    def strike(self, repo: Repository, user_id: str) -> None:
        """Take ``user_id`` out (they were told, or need not be): one version-checked write; on a conflict (a
        subscription meanwhile) read again and take them out of what is stored. The last one out deletes
        the item."""
        first = [True]

        def attempt() -> None:
            if not first[0]:
                item = repo.get(self.key)
                self.version, self.subs = (item.version if item is not None else None), members(item)
            first[0] = False
            if user_id not in self.subs or self.version is None:
                self.subs.pop(user_id, None)
                return
            rest = {k: v for k, v in self.subs.items() if k != user_id}
            if rest:
                self.version = repo.put(Item(key=self.key, body={"subs": rest}), self.version).version
            else:
                repo.delete(self.key, self.version)
                self.version = None
            self.subs = rest

        retrying(attempt)


def waiting(repo: Repository, chat_id: int) -> list[Shard]:
    """The group's subscribers now, shard by shard (one read of every shard: strongly consistent, so that
    nobody taken out by an earlier delivery is found again)."""
    found = repo.get_many(keys(chat_id))
    return [Shard(key, item.version, subs) for key in keys(chat_id)
            if (item := found.get(key)) is not None and (subs := members(item))]


def merge(found: dict[str, Item], chat_id: int, legacy: list[Any]) -> dict[str, tuple[Item, int | None]]:
    """The shards with the subscribers an item of an earlier version kept in the chat's session
    (``Session.next_game``: players with ``id`` and ``lang``) added (those subscribed twice keep their
    item's language): key -> (the new item, the version it replaces). Used by ``recovery.move_out``; the
    cap is not applied to them (nobody subscribed is dropped)."""
    touched: dict[str, dict[str, str]] = {}
    for p in legacy:
        key = key_of(chat_id, int(p.id))
        subs = touched.setdefault(key, members(found.get(key)))
        subs.setdefault(str(p.id), str(p.lang or ""))
    return {key: (Item(key=key, body={"subs": subs}), found[key].version if key in found else None)
            for key, subs in touched.items()}



def renamed(repo: Repository, old_id: int, new_id: int) -> tuple[list[Write], list[Delete]]:
    """The writes that move a group's subscribers to its new chat id (a group that became a supergroup),
    merged with any the new id has already: for the transaction that moves its session."""
    return moved(repo, [(shard_key(old_id, k), shard_key(new_id, k)) for k in range(SHARDS)],
                 lambda source, target: {"subs": {**members(source), **members(target)}})
