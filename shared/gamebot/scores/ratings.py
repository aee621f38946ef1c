"""Skill ratings per player and group: the Weng-Lin Bayesian rating of the ``openskill`` library
(its Plackett-Luce model), for games between teams.

Each side is a team: the winners (rank 1) against the other players grouped by their final side (tied
behind them), so that a Rogue's solo win is a team of one ahead of both sides. A player's rating in a
group is a belief (``mu``, ``sigma``), ranked by its ordinal ``mu - 3 * sigma`` (0 for a new player,
rising as the bot grows sure they are strong) once they played ``RANKED_AFTER`` rated games.

Players read it on a scale of their own (:func:`shown`): ``1000 + 10 * ordinal``, a whole number, never
below 0. The ordinal of a team game is mostly small and often negative (a win and a loss leave a newcomer
near -1); on this scale the same player reads about 990, a typical ranked player 850 to 1100, and in
simulated groups every ranked player stayed between 700 and 1300; a player who lost every one of 500
games reads about 260 (``tests/unit/test_ratings.py``). Below ``RANKED_AFTER`` games no number is shown:
"unranked, 2 of 3 games". The stored ``mu`` and ``sigma`` are openskill's own, unchanged.

``openskill`` is imported only here, and only when a game's statistics are counted: it costs nothing at
a cold start.
"""
from __future__ import annotations

from typing import Any

MU = 25.0  # openskill's defaults: a new player's belief
SIGMA = MU / 3
RANKED_AFTER = 3  # rated games before a player appears on the group's leaderboard
SHOWN_AT_ZERO, SHOWN_PER_POINT = 1000, 10  # the scale players read: 1000 + 10 x the ordinal


def ordinal(row: dict[str, Any]) -> float:
    """The rating's ordinal, which ranks players: a cautious estimate of skill (``mu - 3 sigma``); 0 for a
    new player (players read it on the scale of :func:`shown`)."""
    return float(row.get("mu", MU)) - 3 * float(row.get("sigma", SIGMA))


def ranked(row: dict[str, Any]) -> bool:
    """Has this player played enough rated games to be ranked (and shown a number)?"""
    return int(row.get("rated", 0)) >= RANKED_AFTER


def shown(row: dict[str, Any]) -> int:
    """The rating a player reads: ``1000 + 10 * ordinal``, rounded, never below 0 (the order is the
    ordinal's: ``leaderboard`` ranks by it)."""
    return max(0, round(SHOWN_AT_ZERO + SHOWN_PER_POINT * ordinal(row)))


def teams(winners: list[int], sides: list[str]) -> list[list[int]]:
    """The game's teams of seats: the winners first, then the other seats by their final side."""
    won = set(winners)
    out = [sorted(won)]
    for side in dict.fromkeys(sides):
        team = [seat for seat, s in enumerate(sides) if s == side and seat not in won]
        if team:
            out.append(team)
    return out


def update(rows: dict[str, dict[str, Any]], o: Any) -> None:
    """Rate the game ``o`` (a ``stats.Outcome``): the rows of its players in the group's table (by user
    id) get their new ``mu``, ``sigma`` and one more rated game. A game without a winner, or where
    everyone won, changes no rating."""
    sides = teams(o.winners, o.sides)
    if not sides[0] or len(sides) < 2:
        return
    from openskill.models import PlackettLuce  # (at a game's end only: not at cold start)

    model = PlackettLuce(mu=MU, sigma=SIGMA)
    players = [[rows[str(o.user_ids[seat])] for seat in team] for team in sides]
    before = [[model.rating(mu=float(r.get("mu", MU)), sigma=float(r.get("sigma", SIGMA))) for r in team]
              for team in players]
    # the winners rank first, every other team ties behind them; sigma never grows (a belief only sharpens)
    ranks: list[float] = [0, *[1] * (len(sides) - 1)]
    after = model.rate(before, ranks=ranks, limit_sigma=True)
    for team, rated in zip(players, after, strict=True):
        for row, rating in zip(team, rated, strict=True):
            row["mu"], row["sigma"] = float(rating.mu), float(rating.sigma)
            row["rated"] = int(row.get("rated", 0)) + 1


def leaderboard(rows: dict[str, dict[str, Any]], n: int = 10) -> tuple[list[dict[str, Any]], int]:
    """The group's ranked players, best rating first (at most ``n``, each with its ``id``), and how many
    players have not played enough rated games to be ranked."""
    board = [dict(r, id=uid) for uid, r in rows.items() if ranked(r)]
    board.sort(key=lambda r: (-ordinal(r), -int(r.get("games", 0)), str(r.get("name", ""))))
    waiting = sum(1 for r in rows.values() if int(r.get("games", 0)) and not ranked(r))
    return board[:n], waiting
