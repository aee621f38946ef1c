"""Statistics of finished games, kept in the game table next to the sessions.

* ``stats#chat#<chat_id>``: one group's games, wins by side (per theme), how each game was won,
  characters played and won, assassinations (attempts and hits, per target), turns that timed out, and
  a table per player: games, wins and skill rating (``gamebot.scores.ratings``).
* ``stats#user#<user_id>``: one player's games and wins, by side and by character, their attempts as
  the Assassin, their timed-out turns, and their games, wins and rating in each group they play in.

Both stay far below DynamoDB's 400 KB whatever the history (each is read and written when a game
ends): a group's table keeps its ``MAX_PLAYERS_PER_CHAT`` most active players (under 100 KB of JSON
with the longest names; a few KB compressed), always with the players of the game just counted; a
player it no longer keeps is still rated there: their own item keeps their row in each of their
``MAX_GROUPS_PER_USER`` latest groups, and it comes back into the group's table when they play there
again (:func:`remembered`). Characters, reasons and themes are bounded by the rules, ``recent`` by ``RECENT``.

A game's end does not touch these items: it stores a ``stats`` effect in the chat's outbox (the
:class:`Outcome` as data, ``handlers.statistics``), delivered after the commit like a message. Its
delivery reads the items (one batched read) and writes what :func:`writes` returns (one transaction).
Each item remembers the last game ids it counted (``recent``) and skips a game it has already seen,
so a delivery repeated (redelivered update, a function that died before its ack, the alarm) counts the
game once. Games cancelled or with fewer than ``MIN_HUMANS`` humans are never counted, unless AI seats
filled the other seats (then ``MIN_HUMANS_WITH_AI_SEATS`` people suffice): such a game counts with its
AI seats (``AI_SEAT_GAMES``, ``AI_SEATS_PLAYED``; the AI seats themselves have no row and no item) and moves
no rating. (A Telegram bot account that joined like a person, ``Player.bot``, is neither a human nor an AI
seat: ``handlers.statistics``.)

Items written before ratings existed are read as they are (``migrate``): their players start at the
default rating, and their assassinations (nearly always at Merlin then) count as Merlin's.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from gamebot.scores import ratings
from gamebot.storage.store import Item, Write

RECENT = 20  # game ids remembered per item against double counting
MAX_PLAYERS_PER_CHAT = 300  # the per-player table of a group keeps its most active players
MAX_GROUPS_PER_USER = 20  # a player's ratings: the groups they played in most recently
MIN_HUMANS = 5  # games with fewer human players are not counted
MIN_HUMANS_WITH_AI_SEATS = 2  # ... unless AI seats fill the other seats (one person alone: practice)
# Stored names kept from before the AI seats had their name (items and outbox entries already written use them):
AI_SEAT_GAMES = "bot_games"  # an item's count of games with AI seats
AI_SEATS_PLAYED = "bot_seats"  # a group's count of the seats AI seats played
OUTCOME_AI_SEATS = "bots"  # the key of ``Outcome.ai_seats`` in a stored ``stats`` effect
ROW = ("games", "wins", "mu", "sigma", "rated")  # a player's row in a group, also kept in their own item
VERSION = 2  # items written since ratings (``migrate``)


def chat_stats_key(chat_id: int) -> str:
    return f"stats#chat#{chat_id}"


def user_stats_key(user_id: int) -> str:
    return f"stats#user#{user_id}"


@dataclass
class Outcome:
    """What the statistics need to know about one finished game (stored as data in its effect)."""

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
    reason: str = ""  # the engine's win reason ("three_failures", "merlin_assassinated"...)
    target: str = ""  # what the assassination aimed at ("merlin", "messengers")
    title: str = ""  # the group's title (a player's ratings name their groups)
    ai_seats: list[int] = field(default_factory=list)  # the seats AI seats held (no rating moves)

    def data(self) -> dict[str, Any]:
        body = asdict(self)
        body["idle"] = {str(k): v for k, v in self.idle.items()}
        body[OUTCOME_AI_SEATS] = body.pop("ai_seats")  # (the stored key: ``of`` reads both)
        return body

    @classmethod
    def of(cls, body: dict[str, Any]) -> Outcome:
        known = {k: v for k, v in body.items() if k in cls.__dataclass_fields__}
        known["idle"] = {int(k): int(v) for k, v in (body.get("idle") or {}).items()}
        if OUTCOME_AI_SEATS in body:
            known["ai_seats"] = body[OUTCOME_AI_SEATS]
        return cls(**known)


def outcome(chat_id: int, game_id: str, user_ids: list[int], names: list[str], state: Any,
            final_view: Mapping[str, Any], idle: dict[str, int] | None = None, title: str = "",
            ai_seats: list[int] | None = None) -> Outcome:
    """The outcome of a finished game from its final state and public view (every role revealed).
    ``idle``: the session's timeouts per user id (as strings), if the session keeps them; ``ai_seats``: the
    AI seats."""
    attempt = final_view.get("assassination") or {}
    assassin = attempt.get("assassin")
    if assassin is None:
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
        reason=reason,
        target=str(attempt.get("kind") or ("merlin" if assassin is not None else "")),
        title=title,
        ai_seats=sorted(ai_seats or []),
    )


def counts(status: str, humans: int, ai_seats: int = 0) -> bool:
    """Does a finished game count in the statistics? Ended, not cancelled, with enough humans: ``MIN_HUMANS``,
    or, with AI seats in the empty seats (``ai_seats``), ``MIN_HUMANS_WITH_AI_SEATS`` (a person alone
    with AI seats is practising). A game with AI seats never moves a rating (``add_to_chat``)."""
    if status != "ended":
        return False
    return humans >= MIN_HUMANS or (
        ai_seats > 0 and humans >= MIN_HUMANS_WITH_AI_SEATS and humans + ai_seats >= MIN_HUMANS)


def people(o: Outcome) -> list[tuple[int, int]]:
    """(seat, user id) of the game's people (not its AI seats)."""
    return [(seat, uid) for seat, uid in enumerate(o.user_ids) if seat not in o.ai_seats]


def keys(o: Outcome) -> list[str]:
    return [chat_stats_key(o.chat_id)] + [user_stats_key(uid) for _, uid in people(o)]


def bump(counter: dict[str, Any], key: str, by: int = 1) -> None:
    counter[key] = int(counter.get(key, 0)) + by


def _remember(body: dict[str, Any], game_id: str) -> bool:
    """Record ``game_id`` in the item; False if it was already counted there."""
    recent = list(body.get("recent") or [])
    if game_id in recent:
        return False
    body["recent"] = (recent + [game_id])[-RECENT:]
    return True


def migrate(body: dict[str, Any]) -> dict[str, Any]:
    """An item as this version reads it (items written before ratings: their assassinations count as
    Merlin's, the only target they could have had but for the Messengers)."""
    if body.get("v", 1) >= VERSION:
        return body
    body = dict(body)
    shots = body.get("assassinations")
    if shots and "targets" not in body:
        body["targets"] = {"merlin": dict(shots)}
    body["v"] = VERSION
    return body


def _shot(body: dict[str, Any], o: Outcome) -> None:
    shots = body.setdefault("assassinations", {})
    bump(shots, "attempts")
    bump(shots, "hits", int(o.assassin_hit))
    target = body.setdefault("targets", {}).setdefault(o.target or "merlin", {})
    bump(target, "attempts")
    bump(target, "hits", int(o.assassin_hit))


def add_to_chat(body: dict[str, Any], o: Outcome, known: dict[str, dict[str, Any]] | None = None) -> bool:
    """Count the game in a group's statistics (``body``, migrated in place) and rate its players.
    ``known``: the rows of players the group's table no longer keeps, as their own items remember them
    (:func:`remembered`): they come back with their rating. False if it was already counted."""
    body.update(migrate(body))
    if not _remember(body, o.game_id):
        return False
    players = body.setdefault("players", {})
    for key, remembered in (known or {}).items():
        players.setdefault(key, dict(remembered))
    bump(body, "games")
    theme = body.setdefault("themes", {}).setdefault(o.theme, {})
    bump(theme, "games")
    if o.winner in ("good", "evil"):
        bump(theme, o.winner)
    if o.reason:
        bump(body.setdefault("reasons", {}), o.reason)
    roles = body.setdefault("roles", {})
    players = body.setdefault("players", {})
    for seat, uid in enumerate(o.user_ids):
        won = seat in o.winners
        role = roles.setdefault(o.roles[seat], {})
        bump(role, "games")
        bump(role, "wins", int(won))
        if seat in o.ai_seats:
            continue
        row = players.setdefault(str(uid), {})
        row["name"] = o.names[seat]
        bump(row, "games")
        bump(row, "wins", int(won))
    if o.ai_seats:  # a game with AI seats counts, but moves no rating
        bump(body, AI_SEAT_GAMES)
        bump(body, AI_SEATS_PLAYED, len(o.ai_seats))
    else:
        ratings.update(players, o)
    if len(players) > MAX_PLAYERS_PER_CHAT:  # the most active stay, and always this game's players
        here = {str(uid) for uid in o.user_ids}
        keep = sorted(players, key=lambda u: (u in here, players[u].get("games", 0), players[u].get("wins", 0)),
                      reverse=True)
        body["players"] = {u: players[u] for u in keep[:MAX_PLAYERS_PER_CHAT]}
    if o.assassin is not None:
        _shot(body, o)
    bump(body, "idle", sum(o.idle.values()))
    return True


def add_to_user(body: dict[str, Any], o: Outcome, seat: int, rating: dict[str, Any] | None = None) -> bool:
    """Count the game in the statistics of the player at ``seat`` (``body``, migrated in place), with
    their ``rating`` in the group as it stands after the game. False if already counted."""
    body.update(migrate(body))
    if not _remember(body, o.game_id):
        return False
    won = seat in o.winners
    body["name"] = o.names[seat]
    bump(body, "games")
    bump(body, "wins", int(won))
    side = body.setdefault("sides", {}).setdefault(o.sides[seat], {})
    bump(side, "games")
    bump(side, "wins", int(won))
    role = body.setdefault("roles", {}).setdefault(o.roles[seat], {})
    bump(role, "games")
    bump(role, "wins", int(won))
    if o.assassin == seat:
        _shot(body, o)
    bump(body, "idle", o.idle.get(o.user_ids[seat], 0))
    if o.ai_seats:
        bump(body, AI_SEAT_GAMES)
    if rating is not None:
        groups = body.setdefault("ratings", {})
        groups.pop(str(o.chat_id), None)  # (most recent last)
        groups[str(o.chat_id)] = {"title": o.title, **{k: rating[k] for k in ROW if k in rating}}
        body["ratings"] = dict(list(groups.items())[-MAX_GROUPS_PER_USER:])
    return True


def remembered(o: Outcome, found: dict[str, Item]) -> dict[str, dict[str, Any]]:
    """The players' rows in the group as their own items remember them (games, wins and rating, kept with
    their ratings: ``add_to_user``): the group's table keeps ``MAX_PLAYERS_PER_CHAT`` players, and a player
    it dropped comes back from there with their rating when they play again."""
    rows = {}
    for seat, uid in people(o):
        item = found.get(user_stats_key(uid))
        kept = ((item.body.get("ratings") or {}) if item is not None else {}).get(str(o.chat_id))
        if kept:
            rows[str(uid)] = {"name": o.names[seat], **{k: kept[k] for k in ROW if k in kept}}
    return rows


def writes(o: Outcome, found: dict[str, Item]) -> list[Write]:
    """Version-checked writes adding the game to every statistics item (read beforehand as ``found``).
    Items that already counted this game are left out."""
    out = []
    chat_key = chat_stats_key(o.chat_id)
    current = found.get(chat_key)
    chat = dict(current.body) if current else {}
    if add_to_chat(chat, o, remembered(o, found)):
        out.append(Write(Item(key=chat_key, body=chat), current.version if current else None))
    rows = chat.get("players") or {}
    for seat, uid in people(o):
        key = user_stats_key(uid)
        current = found.get(key)
        body = dict(current.body) if current else {}
        if add_to_user(body, o, seat, rows.get(str(uid))):
            out.append(Write(Item(key=key, body=body), current.version if current else None))
    return out
