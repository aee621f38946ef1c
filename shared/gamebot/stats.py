"""Statistics of finished games, kept in the game table next to the sessions.

* ``stats#chat#<chat_id>``: one group's games, wins by side (per theme), characters played and won,
  assassinations (attempts, hits), turns that timed out, and a small table per player for /stats.
* ``stats#user#<user_id>``: one player's games and wins, by side and by character, their attempts as
  the Assassin, and their timed-out turns.

The service adds a finished game to these items in the SAME version-checked transaction that records
the game's end (the chat item and the archive item), so a game counts once: a redelivered final update
is recognised by the chat item and never reaches here, and each item also remembers the last game ids
it counted (``recent``) and skips a game it has already seen. Cancelled games are not counted.

Everything here is pure: the service reads the items (one batched read) and writes what this returns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .store import Item, Write

RECENT = 20  # game ids remembered per item against double counting
MAX_PLAYERS_PER_CHAT = 300  # the per-player table of a group keeps its most active players


def chat_stats_key(chat_id: int) -> str:
    return f"stats#chat#{chat_id}"


def user_stats_key(user_id: int) -> str:
    return f"stats#user#{user_id}"


@dataclass
class Outcome:
    """What the statistics need to know about one finished game."""

    chat_id: int
    game_id: str
    theme: str
    winner: str | None  # "good" | "evil" | None
    user_ids: list[int]
    names: list[str]
    roles: list[str]
    sides: list[str]  # final allegiance of each seat
    winners: list[int]  # seats
    assassin: int | None = None  # the seat that attempted an assassination
    assassin_hit: bool = False
    idle: dict[int, int] = field(default_factory=dict)  # user id -> turns timed out in this game


def outcome(chat_id: int, game_id: str, user_ids: list[int], names: list[str], state: Any,
            final_view: dict[str, Any], idle: dict[str, int] | None = None) -> Outcome:
    """The outcome of a finished game from its final state and public view (every role revealed).
    ``idle``: the session's timeouts per user id (as strings), if the session keeps them."""
    assassin = None
    for entry in state.log:
        seat, kind = entry.split("|")[:2]
        if kind == "assassinate":
            assassin = int(seat)
    reason = str(final_view.get("win_reason") or "")
    timeouts: dict[int, int] = {}
    for uid, count in (idle or {}).items():
        try:
            if int(count) > 0:
                timeouts[int(uid)] = int(count)
        except (TypeError, ValueError):
            continue
    return Outcome(
        chat_id=chat_id,
        game_id=game_id,
        theme=str(final_view.get("theme") or state.config.theme.value),
        winner=final_view.get("winner"),
        user_ids=list(user_ids),
        names=list(names),
        roles=list(final_view.get("roles") or state.roles),
        sides=list(final_view.get("sides") or [s.value for s in state.sides]),
        winners=list(final_view.get("winners") or []),
        assassin=assassin,
        assassin_hit=assassin is not None and reason.endswith("_assassinated"),
        idle=timeouts,
    )


def keys(o: Outcome) -> list[str]:
    return [chat_stats_key(o.chat_id)] + [user_stats_key(uid) for uid in o.user_ids]


def _bump(counter: dict[str, Any], key: str, by: int = 1) -> None:
    counter[key] = int(counter.get(key, 0)) + by


def _remember(body: dict[str, Any], game_id: str) -> bool:
    """Record ``game_id`` in the item; False if it was already counted there."""
    recent = list(body.get("recent") or [])
    if game_id in recent:
        return False
    body["recent"] = (recent + [game_id])[-RECENT:]
    return True


def add_to_chat(body: dict[str, Any], o: Outcome) -> bool:
    """Count the game in a group's statistics. False if it was already counted."""
    if not _remember(body, o.game_id):
        return False
    _bump(body, "games")
    theme = body.setdefault("themes", {}).setdefault(o.theme, {})
    _bump(theme, "games")
    if o.winner in ("good", "evil"):
        _bump(theme, o.winner)
    roles = body.setdefault("roles", {})
    players = body.setdefault("players", {})
    for seat, uid in enumerate(o.user_ids):
        won = seat in o.winners
        role = roles.setdefault(o.roles[seat], {})
        _bump(role, "games")
        _bump(role, "wins", int(won))
        row = players.setdefault(str(uid), {})
        row["name"] = o.names[seat]
        _bump(row, "games")
        _bump(row, "wins", int(won))
    if len(players) > MAX_PLAYERS_PER_CHAT:
        keep = sorted(players, key=lambda u: (players[u].get("games", 0), players[u].get("wins", 0)), reverse=True)
        body["players"] = {u: players[u] for u in keep[:MAX_PLAYERS_PER_CHAT]}
    if o.assassin is not None:
        shots = body.setdefault("assassinations", {})
        _bump(shots, "attempts")
        _bump(shots, "hits", int(o.assassin_hit))
    _bump(body, "idle", sum(o.idle.values()))
    return True


def add_to_user(body: dict[str, Any], o: Outcome, seat: int) -> bool:
    """Count the game in the statistics of the player at ``seat``. False if already counted."""
    if not _remember(body, o.game_id):
        return False
    won = seat in o.winners
    body["name"] = o.names[seat]
    _bump(body, "games")
    _bump(body, "wins", int(won))
    side = body.setdefault("sides", {}).setdefault(o.sides[seat], {})
    _bump(side, "games")
    _bump(side, "wins", int(won))
    role = body.setdefault("roles", {}).setdefault(o.roles[seat], {})
    _bump(role, "games")
    _bump(role, "wins", int(won))
    if o.assassin == seat:
        shots = body.setdefault("assassinations", {})
        _bump(shots, "attempts")
        _bump(shots, "hits", int(o.assassin_hit))
    _bump(body, "idle", o.idle.get(o.user_ids[seat], 0))
    return True


def writes(o: Outcome, found: dict[str, Item]) -> list[Write]:
    """Version-checked writes adding the game to every statistics item (read beforehand as ``found``).
    Items that already counted this game are left out."""
    out = []
    chat_key = chat_stats_key(o.chat_id)
    current = found.get(chat_key)
    body = dict(current.body) if current else {}
    if add_to_chat(body, o):
        out.append(Write(Item(key=chat_key, body=body), current.version if current else None))
    for seat, uid in enumerate(o.user_ids):
        key = user_stats_key(uid)
        current = found.get(key)
        body = dict(current.body) if current else {}
        if add_to_user(body, o, seat):
            out.append(Write(Item(key=key, body=body), current.version if current else None))
    return out


# ---------------------------------------------------------------------------------------------------
# Reading: what /stats shows
# ---------------------------------------------------------------------------------------------------


def rate(wins: int, games: int) -> int:
    return round(100 * wins / games) if games else 0


def top_players(body: dict[str, Any], n: int = 5) -> list[dict[str, Any]]:
    """The group's best players: most wins, then best win rate, then most games."""
    rows = [dict(v, id=k) for k, v in (body.get("players") or {}).items() if v.get("games")]
    rows.sort(key=lambda r: (-int(r.get("wins", 0)), -rate(r.get("wins", 0), r["games"]), -int(r["games"]),
                             str(r.get("name", ""))))
    return rows[:n]


def top_roles(body: dict[str, Any], n: int = 8) -> list[tuple[str, dict[str, Any]]]:
    rows = [(rid, v) for rid, v in (body.get("roles") or {}).items() if v.get("games")]
    rows.sort(key=lambda r: (-int(r[1]["games"]), -int(r[1].get("wins", 0)), r[0]))
    return rows[:n]


# ---------------------------------------------------------------------------------------------------
# The /stats texts (Telegram HTML; names are escaped here)
# ---------------------------------------------------------------------------------------------------


def escape(text: str) -> str:
    from html import escape as html_escape

    return html_escape(text, quote=False)


def group_text(table: Any, body: dict[str, Any], title: str) -> str:
    """A group's statistics: games and wins per theme, assassinations, timeouts, top players, characters."""
    if not body.get("games"):
        return "\n".join([table.t("stats.group_empty"), table.t("stats.footer")])
    lines = [table.t("stats.group_title", title=title or "—"), ""]
    for theme, row in sorted((body.get("themes") or {}).items()):
        game = texts_t(table, f"theme.{theme}", theme)
        lines.append(texts_t(table, "stats.theme_line", theme, game=game, games=row.get("games", 0),
                             good=row.get("good", 0), evil=row.get("evil", 0)))
    shots = body.get("assassinations") or {}
    if shots.get("attempts"):
        lines.append(table.t("stats.assassinations", hits=shots.get("hits", 0), attempts=shots["attempts"]))
    if body.get("idle"):
        lines.append(table.t("stats.idle", idle=body["idle"]))
    top = top_players(body)
    if top:
        lines += ["", table.t("stats.top_title")]
        for i, row in enumerate(top, 1):
            lines.append(table.t("stats.top_line", rank=i, name=escape(str(row.get("name") or "?")),
                                 wins=row.get("wins", 0), games=row["games"], rate=rate(row.get("wins", 0), row["games"])))
    return "\n".join(lines + _characters_and_footer(table, body, 8))


def _characters_and_footer(table: Any, body: dict[str, Any], n: int) -> list[str]:
    lines = []
    roles = top_roles(body, n=n)
    if roles:
        lines += ["", table.t("stats.roles_title")]
        for rid, row in roles:
            lines.append(table.t("stats.role_line", role=escape(table.role(rid)), wins=row.get("wins", 0),
                                 games=row["games"]))
    return lines + ["", table.t("stats.footer")]


def user_text(table: Any, body: dict[str, Any], name: str) -> str:
    """One player's statistics: games, wins, by side and by character, as the Assassin, timeouts."""
    if not body.get("games"):
        return "\n".join([table.t("stats.user_empty"), table.t("stats.footer")])
    games, wins = int(body["games"]), int(body.get("wins", 0))
    lines = [table.t("stats.user_title", name=name or escape(str(body.get("name") or ""))),
             table.t("stats.user_games", games=games, wins=wins, rate=rate(wins, games))]
    for side in ("good", "evil"):
        row = (body.get("sides") or {}).get(side)
        if row and row.get("games"):
            lines.append(table.t("stats.side_line", side=table.t(f"stats.side.{side}"), wins=row.get("wins", 0),
                                 games=row["games"]))
    shots = body.get("assassinations") or {}
    if shots.get("attempts"):
        lines.append(table.t("stats.assassin", hits=shots.get("hits", 0), attempts=shots["attempts"]))
    if body.get("idle"):
        lines.append(table.t("stats.idle", idle=body["idle"]))
    return "\n".join(lines + _characters_and_footer(table, body, 30))


def texts_t(table: Any, key: str, theme: str, **params: Any) -> str:
    """A catalog text in the table's language but another theme's words (a group plays both)."""
    from . import texts

    return texts.t(key, table.lang, theme, **params)
