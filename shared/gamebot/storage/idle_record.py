"""The group's idle record across games (``/idles``: who ran out of time, in all games of the group), in
items of their own: read by /idles and written once per game that had a timeout, never with the chat's
item (which every vote rewrites).

The record is spread over ``SHARDS`` items, ``idle#<chat_id>#<k>``, a player in shard ``user id % SHARDS``;
each body is ``{"totals": {"<user id>": turns timed out}, "names": {"<user id>": name}, "recent": [game
ids]}``. The chat's session keeps only the game's own record (``Session.idle``, at most one entry a seat);
when the game is over, one ``idle`` effect in its outbox (:func:`effect`, made once per game:
``Session.idle_counted``) adds it to the shards of its players after the commit, like the statistics:
each item remembers the last ``RECENT`` games it counted, so a delivery repeated counts nothing twice.
Each item keeps the ``PLAYERS`` players with the most timeouts (with names of at most 40 characters: under
200 KB of JSON at worst, a few KB compressed), so a group's record keeps ``SHARDS * PLAYERS`` players.
"""
from __future__ import annotations

from typing import Any

from gamebot.storage.effects import Effect
from gamebot.storage.session import Session
from gamebot.storage.store import Delete, Item, Repository, Write, moved, retrying

SHARDS = 16  # (read with the chat's item in one TransactGetItems: moto, which the tests run on, takes 25)
PLAYERS = 1000  # players an item keeps (those who ran out of time most): SHARDS * PLAYERS (16,000) a group
RECENT = 20  # game ids remembered against counting a game twice


def shard_key(chat_id: int, k: int) -> str:
    return f"idle#{chat_id}#{k}"


def key_of(chat_id: int, user_id: int | str) -> str:
    return shard_key(chat_id, int(user_id) % SHARDS)


def keys(chat_id: int) -> list[str]:
    return [shard_key(chat_id, k) for k in range(SHARDS)]


def effect(s: Session) -> Effect | None:
    """The outbox entry that adds the game's timeouts (``s.idle``) to the group's record, once per game
    (None: no timeout, or already on its way)."""
    counts = {uid: int(n) for uid, n in s.idle.items() if int(n) > 0}
    if not counts or s.idle_counted == (s.game_id or ""):
        return None
    s.idle_counted = s.game_id or ""
    names = {str(p.id): p.name for p in s.players if str(p.id) in counts}
    return Effect(seq=0, op="idle", chat=0, tag="idle",
                  data={"chat": s.chat_id, "game": s.game_id or "", "idle": counts, "names": names})


def add(body: dict[str, Any], game_id: str, counts: dict[str, int], names: dict[str, str],
        trimmed: bool = True) -> bool:
    """Add a game's timeouts to the record's item ``body`` (in place). False if that game was counted
    there already."""
    recent = list(body.get("recent") or [])
    if game_id and game_id in recent:
        return False
    if game_id:
        body["recent"] = (recent + [game_id])[-RECENT:]
    totals = body.setdefault("totals", {})
    known = body.setdefault("names", {})
    for uid, n in counts.items():
        if int(n) > 0:
            totals[str(uid)] = int(totals.get(str(uid), 0)) + int(n)
            if names.get(str(uid)):
                known[str(uid)] = names[str(uid)]
    if trimmed:
        trim(body)
    return True


def trim(body: dict[str, Any]) -> None:
    """Keep the ``PLAYERS`` players with the most timeouts (and their names)."""
    totals = body.get("totals") or {}
    if len(totals) <= PLAYERS:
        return
    kept = sorted(totals, key=lambda uid: -int(totals[uid]))[:PLAYERS]
    body["totals"] = {uid: totals[uid] for uid in kept}
    body["names"] = {uid: name for uid, name in (body.get("names") or {}).items() if uid in body["totals"]}


def by_shard(chat_id: int, counts: dict[str, int]) -> dict[str, dict[str, int]]:
    """``counts`` (by user id) split by the item that keeps each player."""
    out: dict[str, dict[str, int]] = {}
    for uid, n in counts.items():
        if str(uid).isdigit():
            out.setdefault(key_of(chat_id, uid), {})[str(uid)] = int(n)
    return out


def count(repo: Repository, effect: Effect) -> None:
    """Deliver an ``idle`` effect: one read of the items of the game's players and one version-checked
    transaction (re-run on a conflict); an item that counted the game already is left as it is."""
    data = effect.data or {}
    chat_id = int(data.get("chat", 0))
    game = str(data.get("game") or "")
    names = dict(data.get("names") or {})
    parts = by_shard(chat_id, dict(data.get("idle") or {}))

    def attempt() -> None:
        found = repo.get_many(list(parts))
        writes = []
        for key, counts in parts.items():
            item = found.get(key)
            body = dict(item.body) if item is not None else {}
            if add(body, game, counts, names):
                writes.append(Write(Item(key=key, body=body), item.version if item is not None else None))
        if writes:
            repo.transact(writes)

    retrying(attempt)


def all_time(s: Session, bodies: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, str]]:
    """The group's record as /idles shows it: the items' counts (``bodies``), what an item of an earlier
    version still keeps in the session (``idle_totals``, moved out at its next write), and this game's own
    timeouts until they are counted in the items. Returns (counts, names) by user id."""
    totals: dict[str, int] = {}
    names = dict(s.idle_names)
    counted: set[str] = set()
    for body in bodies:
        totals.update({uid: int(n) for uid, n in (body.get("totals") or {}).items()})
        names.update(body.get("names") or {})
        counted.update(body.get("recent") or [])
    for uid, n in s.idle_totals.items():
        totals[uid] = totals.get(uid, 0) + int(n)
    if s.idle and (s.game_id or "") not in counted and not s.idle_totals:
        for uid, n in s.idle.items():
            totals[uid] = totals.get(uid, 0) + int(n)
    names.update({str(p.id): p.name for p in s.players})
    return totals, names


def stored(repo: Repository, chat_id: int) -> tuple[dict[str, int], dict[str, str]]:
    """The group's record as its items hold it: (counts, names) by user id (one read)."""
    totals: dict[str, int] = {}
    names: dict[str, str] = {}
    for item in repo.get_many(keys(chat_id)).values():
        totals.update({uid: int(n) for uid, n in (item.body.get("totals") or {}).items()})
        names.update(item.body.get("names") or {})
    return totals, names


def move_out(s: Session, found: dict[str, Item]) -> dict[str, tuple[Item, int | None]]:
    """Move what an item of an earlier version kept in the session (``idle_totals``, ``idle_names``) into
    the record's items (``found``: those that exist), and clear it from the session: key -> (the new item,
    the version it replaces). Those totals already counted the game's own timeouts (``idle``), which are
    counted again when the game is over: they are left out here, so that nothing counts twice and nothing
    is lost (no item is trimmed by the move)."""
    counts = {uid: int(n) - int(s.idle.get(uid, 0)) for uid, n in s.idle_totals.items()}
    out = {}
    for key, part in by_shard(s.chat_id, counts).items():
        item = found.get(key)
        body = dict(item.body) if item is not None else {}
        add(body, "", part, dict(s.idle_names), trimmed=False)
        out[key] = (Item(key=key, body=body), item.version if item is not None else None)
    s.idle_totals, s.idle_names = {}, {}
    return out


def renamed(repo: Repository, old_id: int, new_id: int) -> tuple[list[Write], list[Delete]]:
    """The writes that move a group's record to its new chat id (a group that became a supergroup), added
    to any the new id has already: for the transaction that moves its session."""

    def merge(source: Item, target: Item | None) -> dict[str, Any]:
        body = dict(target.body) if target is not None else {}
        add(body, "", dict(source.body.get("totals") or {}), dict(source.body.get("names") or {}), trimmed=False)
        body["recent"] = list(dict.fromkeys([*(source.body.get("recent") or []), *(body.get("recent") or [])]))[-RECENT:]
        return body

    return moved(repo, [(shard_key(old_id, k), shard_key(new_id, k)) for k in range(SHARDS)], merge)


def settle_idle(s: Session) -> None:
    """The game is over: hidden decisions that ran out of time join the game's idle record, and the game's
    record goes to the group's record of all games (an ``idle`` effect in the outbox, once per game)."""
    for uid, n in s.idle_hidden.items():
        s.idle[uid] = s.idle.get(uid, 0) + n
    s.idle_hidden = {}
    fold = effect(s)
    if fold is not None:
        s.outbox.add(fold)
