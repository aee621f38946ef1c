"""The /stats texts (markup: names and titles escaped by the catalog's templates): a group's leaderboard
and statistics, and a player's own, from the statistics items (``gamebot.scores.stats``; read through
``stats.migrate``)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.table import NL, Table, esc
from gamebot.scores import ratings
from gamebot.scores.stats import AI_SEAT_GAMES, AI_SEATS_PLAYED, migrate

EVIL_WINS = (("three_failures", ("three_failures",)), ("five_rejections", ("five_rejections",)),
             ("assassination", ("merlin_assassinated", "messengers_assassinated")), ("rogue", ("evil_rogue_solo",)))


def rate(wins: int, games: int) -> int:
    return round(100 * wins / games) if games else 0


def rating_text(row: dict[str, Any]) -> str:
    """A ranked player's rating as players read it (``ratings.shown``: 1000 + 10 x the ordinal)."""
    return str(ratings.shown(row))


def _theme(table: Table, body: dict[str, Any]) -> Table:
    """The table in the theme the group plays most (its words: Evil or Spies, quests or missions)."""
    themes = body.get("themes") or {}
    most = max(sorted(themes), key=lambda th: int(themes[th].get("games", 0)), default=table.theme)
    return replace(table, theme=most if most in ("avalon", "resistance") else table.theme)


def group_text(table: Table, body: dict[str, Any], title: str) -> Html:
    """A group's statistics: games per theme, the leaderboard, win rates by side, how Evil won, the
    Assassin against Merlin, timeouts, win rates by character."""
    if not body.get("games"):
        return NL.join([table.t("stats.group_empty"), table.t("stats.footer")])
    body = migrate(body)
    table = _theme(table, body)
    lines = [table.t("stats.group_title", title=title or "—"), ""]
    themes = body.get("themes") or {}
    for theme, row in sorted(themes.items()):
        game = texts.t(f"theme.{theme}", table.lang, theme)
        lines.append(texts.t("stats.theme_line", table.lang, theme, game=game, games=row.get("games", 0),
                             good=row.get("good", 0), evil=row.get("evil", 0)))
    lines += [Html(""), *_leaderboard(table, body.get("players") or {})]
    games = sum(int(r.get("games", 0)) for r in themes.values())
    lines += [Html(""), table.t("ratings.sides_title")]
    for side in ("good", "evil"):
        wins = sum(int(r.get(side, 0)) for r in themes.values())
        lines.append(table.t("ratings.side_line", side=table.t(f"stats.side.{side}"), rate=rate(wins, games),
                             wins=wins, games=games))
    reasons = body.get("reasons") or {}
    shot = bool(body.get("targets"))  # (no assassination, no Rogue in a group that never played them)
    parts = [table.t(f"ratings.evil.{name}", count=sum(int(reasons.get(r, 0)) for r in group))
             for name, group in EVIL_WINS
             if name not in ("assassination", "rogue") or any(reasons.get(r) for r in group)
             or (name == "assassination" and shot)]
    if reasons:
        lines.append(table.t("ratings.evil_line", parts=Html(" · ").join(parts)))
    merlin = (body.get("targets") or {}).get("merlin") or {}
    if merlin.get("attempts"):
        hits, attempts = int(merlin.get("hits", 0)), int(merlin["attempts"])
        lines.append(table.t("ratings.merlin_found", hits=hits, attempts=attempts, rate=rate(hits, attempts)))
    if body.get("idle"):
        lines.append(table.t("stats.idle", idle=body["idle"]))
    if body.get(AI_SEAT_GAMES):
        lines.append(table.t("stats.ai_seats", games=int(body[AI_SEAT_GAMES]), seats=int(body.get(AI_SEATS_PLAYED, 0))))
    return NL.join([*lines, *_roles(table, body, 10)])


def _leaderboard(table: Table, rows: dict[str, Any]) -> list[Html]:
    ranked, waiting = ratings.leaderboard(rows)
    lines = [table.t("ratings.board_title")]
    for i, row in enumerate(ranked, 1):
        lines.append(table.t("ratings.board_line", rank=i, name=esc(str(row.get("name") or "?")),
                             rating=rating_text(row), games=int(row.get("games", 0))))
    if waiting or not ranked:
        lines.append(table.t("ratings.unranked", min=ratings.RANKED_AFTER, count=waiting))
    if ranked:
        lines.append(table.t("ratings.method"))
    return lines


def _roles(table: Table, body: dict[str, Any], n: int) -> list[Html]:
    """Win rates by character (the most played first), then the footer."""
    rows = [(rid, v) for rid, v in (body.get("roles") or {}).items() if v.get("games")]
    rows.sort(key=lambda r: (-int(r[1]["games"]), -int(r[1].get("wins", 0)), r[0]))
    lines = []
    if rows:
        lines += [Html(""), table.t("ratings.roles_title")]
        for rid, row in rows[:n]:
            wins, games = int(row.get("wins", 0)), int(row["games"])
            lines.append(table.t("ratings.role_line", role=esc(table.role(rid)), rate=rate(wins, games),
                                 wins=wins, games=games))
    return lines + [Html(""), table.t("stats.footer")]


def user_text(table: Table, body: dict[str, Any], name: str) -> Html:
    """One player's statistics: games and wins, by side and by character, as the Assassin, timeouts, and
    their rating in each group."""
    if not body.get("games"):
        return NL.join([table.t("stats.user_empty"), table.t("stats.footer")])
    body = migrate(body)
    games, wins = int(body["games"]), int(body.get("wins", 0))
    lines = [table.t("stats.user_title", name=name or esc(str(body.get("name") or ""))),
             table.t("stats.user_games", games=games, wins=wins, rate=rate(wins, games))]
    for side in ("good", "evil"):
        row = (body.get("sides") or {}).get(side)
        if row and row.get("games"):
            won, played = int(row.get("wins", 0)), int(row["games"])
            lines.append(table.t("ratings.side_line", side=table.t(f"stats.side.{side}"), rate=rate(won, played),
                                 wins=won, games=played))
    shots = body.get("assassinations") or {}
    if shots.get("attempts"):
        lines.append(table.t("stats.assassin", hits=shots.get("hits", 0), attempts=shots["attempts"]))
    if body.get("idle"):
        lines.append(table.t("stats.idle", idle=body["idle"]))
    if body.get(AI_SEAT_GAMES):
        lines.append(table.t("stats.user_ai_seats", games=int(body[AI_SEAT_GAMES])))
    groups = sorted((body.get("ratings") or {}).values(), key=lambda r: -int(r.get("rated", 0)))
    if groups:
        lines += [Html(""), table.t("ratings.user_title")]
        for row in groups[:5]:
            group = esc(str(row.get("title") or "—"))
            if ratings.ranked(row):
                lines.append(table.t("ratings.user_line", group=group, rating=rating_text(row),
                                     games=int(row.get("rated", 0))))
            else:  # no number yet: how far from being ranked
                lines.append(table.t("ratings.user_line_unranked", group=group, games=int(row.get("rated", 0)),
                                     min=ratings.RANKED_AFTER))
        if any(ratings.ranked(row) for row in groups[:5]):
            lines.append(table.t("ratings.method"))
    return NL.join(lines + _roles(table, body, 30))
