"""The group's idle record across games (``/idles``: who ran out of time, in all games of the group), in
an item of its own, ``idle#<chat_id>``: read by /idles and written once per game that had a timeout,
never with the chat's item (which every vote rewrites).

Body: ``{"totals": {"<user id>": turns timed out}, "names": {"<user id>": name}, "recent": [game ids]}``.
The chat's session keeps only the game's own record (``Session.idle``, at most one entry a seat); when the
game is over, one ``idle`` effect in its outbox (:func:`effect`, made once per game: ``Session.idle_counted``)
adds it here after the commit, like the statistics: the item remembers the last ``RECENT`` games it
counted, so a delivery repeated counts nothing twice. The record keeps the ``PLAYERS`` players with the
most timeouts (with names of at most 40 characters: under 100 KB of JSON at worst, a few KB compressed).
"""
from __future__ import annotations

from typing import Any

from .effects import Effect
from .session import Session
from .store import Item, Repository, retrying

PLAYERS = 1000  # players the group's record keeps: those who ran out of time most
RECENT = 20  # game ids remembered against counting a game twice


def record_key(chat_id: int) -> str:
    return f"idle#{chat_id}"


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


def add(body: dict[str, Any], game_id: str, counts: dict[str, int], names: dict[str, str]) -> bool:
    """Add a game's timeouts to the record ``body`` (in place). False if that game was counted already."""
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


def count(repo: Repository, effect: Effect) -> None:
    """Deliver an ``idle`` effect: one read and one version-checked write of the record (re-run on a
    conflict); a game counted already changes nothing."""
    data = effect.data or {}
    key = record_key(int(data.get("chat", 0)))

    def attempt() -> None:
        item = repo.get(key)
        body = dict(item.body) if item is not None else {}
        if add(body, str(data.get("game") or ""), dict(data.get("idle") or {}), dict(data.get("names") or {})):
            repo.put(Item(key=key, body=body), item.version if item is not None else None)

    retrying(attempt)


def all_time(s: Session, body: dict[str, Any] | None) -> tuple[dict[str, int], dict[str, str]]:
    """The group's record as /idles shows it: the item's counts, what an item of an earlier version still
    keeps in the session (``idle_totals``, moved out at its next write), and this game's own timeouts until
    they are counted in the item. Returns (counts, names) by user id."""
    body = body or {}
    totals = {uid: int(n) for uid, n in (body.get("totals") or {}).items()}
    names = {**s.idle_names, **(body.get("names") or {})}
    for uid, n in s.idle_totals.items():
        totals[uid] = totals.get(uid, 0) + int(n)
    if s.idle and s.game_id not in (body.get("recent") or []) and not s.idle_totals:
        for uid, n in s.idle.items():
            totals[uid] = totals.get(uid, 0) + int(n)
    names.update({str(p.id): p.name for p in s.players})
    return totals, names


def move_out(s: Session, body: dict[str, Any]) -> bool:
    """Move what an item of an earlier version kept in the session (``idle_totals``, ``idle_names``) into the
    record ``body`` (in place), and clear it from the session. Those totals already counted the game's own
    timeouts (``idle``), which are counted again when the game is over: they are left out here, so that
    nothing counts twice and nothing is lost. False if there was nothing to move."""
    if not s.idle_totals and not s.idle_names:
        return False
    counts = {uid: int(n) - int(s.idle.get(uid, 0)) for uid, n in s.idle_totals.items()}
    add(body, "", counts, dict(s.idle_names))
    s.idle_totals, s.idle_names = {}, {}
    return True
