"""Every kind of item the table holds, and how long it lives: nothing in it stays forever.

The table's TTL attribute is ``expires_at`` (epoch seconds): DynamoDB deletes an item some time after it
(up to days later), and both repositories treat it as absent from that second on. ``KINDS`` names each
kind by its key's prefix:

=================  ===========================================================================
kind               life
=================  ===========================================================================
``chat#``          a year after its last write (a group's session)
``user#``          a year after its last write (can the bot reach them, their active game)
``next#``          a year after its last write (a group's /nextgame subscribers, one shard)
``idle#``          a year after its last write (a group's idle record, one shard)
``stats#chat#``    a year after its last write (a group's statistics and rating table)
``stats#user#``    a year after its last write (a player's statistics)
``game#``          ``GAME_ARCHIVE_DAYS`` (30 by default) after the game ended (written once)
``update#``        a day after the command was answered (written once)
``refused#``       a day after its first note, fixed (a notes item: ``with_note``)
=================  ===========================================================================

How it cannot be forgotten: the repositories (``FakeRepository``, ``DynamoRepository``) give every
versioned write whose item leaves ``expires_at`` unset the expiry of its kind, counted from the write
(``store.stamped``): a writer builds ``Item(key, body)`` and never thinks of it, and a long-lived item's year
starts again with each write. A writer sets it only where the life is its own to choose: a finished
game's archive (``GAME_ARCHIVE_DAYS``), a command's claim (a day on the service's clock). A key of a kind
missing here is a mistake: ``FakeRepository`` (every unit test) raises ``UnknownKind``; ``DynamoRepository``
gives it the longest life and logs an error, so that a group plays on.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from gamebot.environment import ARCHIVE_DAYS

log = logging.getLogger("gamebot.storage.lifetimes")

DAY = 86_400
YEAR = 365 * DAY

# A notes item (a player's refused presses, ``Repository.note``) is needed only until Telegram stops
# redelivering the presses it notes (it retries an update whose answer failed, and keeps one 24 hours at
# most; a press another overtook is seconds old). It lives a day from its first note,
# whatever comes later (a note never moves its expiry), and holds at most MAX_NOTES notes: when full, the
# oldest (lowest update id) makes room. 50 notes of about 14 bytes each keep it under 1 KB, so that each
# note costs one write unit; a real player is never refused 50 times in a chat in a day (a script pressing
# as fast as the throttle lets it, 2 a second, still has its last 25 seconds noted).
MAX_NOTES = 50
# A note made when its item has less than this left starts the next item instead (the notes still there
# carried over, its own day from now): every note is kept at least an hour (most far longer), never a few
# seconds; while fewer than MAX_NOTES later ones push it out.
NOTE_MARGIN = 3600


@dataclass(frozen=True)
class Kind:
    prefix: str  # every key of the kind starts with it
    life: int  # seconds, from the write that sets it
    what: str  # (for ``scripts/read_chat.py``, and the README's "Data" list)
    notes: bool = False  # a notes item: written by ``Repository.note`` only, never by a versioned write


KINDS = (
    Kind("chat#", YEAR, "a group's session: refreshed by every write"),
    Kind("user#", YEAR, "a player: can the bot reach them, their active game; refreshed by every write"),
    Kind("next#", YEAR, "a shard of a group's /nextgame subscribers; refreshed by every write"),
    Kind("idle#", YEAR, "a shard of a group's idle record; refreshed by every write"),
    Kind("stats#chat#", YEAR, "a group's statistics; refreshed by every write"),
    Kind("stats#user#", YEAR, "a player's statistics; refreshed by every write"),
    Kind("game#", int(ARCHIVE_DAYS * DAY), "a finished game, whole: GAME_ARCHIVE_DAYS after its end"),
    Kind("update#", DAY, "a command answered: a day"),
    Kind("refused#", DAY, f"a player's refused presses: a day from the first, at most {MAX_NOTES}", notes=True),
)
LONGEST = max(k.life for k in KINDS)


class UnknownKind(KeyError):
    """A key whose kind ``KINDS`` does not list: add the kind there, with its life."""


def kind_of(key: str) -> Kind:
    """The kind of ``key`` (the longest prefix that matches), or UnknownKind."""
    found = [k for k in KINDS if key.startswith(k.prefix)]
    if not found:
        raise UnknownKind(f"{key!r}: no kind in gamebot.storage.lifetimes.KINDS has its prefix")
    return max(found, key=lambda k: len(k.prefix))


def expiry(key: str, now: float, asked: int | None = None, strict: bool = True) -> int:
    """When an item of ``key`` written at ``now`` expires: ``asked`` when the writer set it, else its kind's
    life from now. Not strict (DynamoDB): a key of no known kind gets ``LONGEST`` instead of UnknownKind."""
    if asked is not None:
        if strict:
            kind_of(key)
        return int(asked)
    try:
        return int(now) + kind_of(key).life
    except UnknownKind:
        if strict:
            raise
        log.error("an item of no known kind was written: %s (gamebot.storage.lifetimes)", key.split("#")[0])
        return int(now) + LONGEST


def versioned_expiry(key: str, now: float, asked: int | None = None, strict: bool = True) -> int:
    """``expiry`` for a versioned write (``Repository.put``, ``transact``): strict, a notes kind is refused."""
    if strict and kind_of(key).notes:
        raise ValueError(f"{key!r} is a notes item: written by Repository.note only")
    return expiry(key, now, asked, strict)


def oldest_first(names: list[str]) -> list[str]:
    """Notes' names from the oldest: update ids grow, so numbers in numeric order (then anything else)."""
    return sorted(names, key=lambda n: (len(n), n))


def with_note(current: dict[str, int], expires_at: int | None, now: float, name: str, value: int,
              fresh: int) -> tuple[dict[str, int], int] | None:
    """A notes item after ``name = value`` is noted: (its notes, its expiry), or None when it stays as it is.

    ``current``/``expires_at``: the live item's notes and expiry (``{}``/None: there is none); ``fresh``: the
    expiry of an item created now. A note already there is kept as it is. A live item with ``NOTE_MARGIN``
    or more to live takes the note, its expiry unchanged (the oldest note making room when it holds
    ``MAX_NOTES``); otherwise the note starts a new item expiring at ``fresh``, with the notes still there."""
    if expires_at is not None and expires_at > now and expires_at - now >= NOTE_MARGIN:
        if name in current:
            return None
        return _latest({**current, name: int(value)}), expires_at
    kept = current if expires_at is not None and expires_at > now else {}
    return _latest({**kept, name: int(value)}), int(fresh)


def _latest(notes: dict[str, int]) -> dict[str, int]:
    order = oldest_first(list(notes))
    return {n: notes[n] for n in order[max(0, len(order) - MAX_NOTES):]}
