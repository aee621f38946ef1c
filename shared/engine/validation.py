"""Checking a game configuration before it is dealt, and the deck it deals."""
from __future__ import annotations

from collections import Counter

from .basics import MAX_PLAYERS, MIN_PLAYERS, SIDES_BY_PLAYERS, Side
from .models import ConfigIssue, GameConfig
from .plugin import ALL, ROLES, Plugin, Role, active_plugins, issue, option_owners

FILLER = {Side.GOOD: "servant", Side.EVIL: "minion"}


def validate_config(config: GameConfig) -> list[ConfigIssue]:
    """Every problem with a configuration: errors forbid it, warnings are advice for the host."""
    found: list[ConfigIssue] = []
    n = config.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        found.append(
            issue("error", "player_count", f"The game needs 5 to 10 players, not {n}.", players=n)
        )
        return found
    good_seats, evil_seats = SIDES_BY_PLAYERS[n]
    unknown = [r for r in config.roles if r not in ROLES]
    for r in unknown:
        found.append(issue("error", "unknown_role", f"There is no character called '{r}'.", role=r))
    roles = [ROLES[r] for r in config.roles if r in ROLES]
    counts = Counter(r.id for r in roles)
    for rid, c in counts.items():
        role = ROLES[rid]
        if role.filler:
            found.append(
                issue("error", "filler_role", f"'{rid}' fills empty seats by itself.", role=rid)
            )
        elif c > role.max_count:
            found.append(
                issue("error", "duplicate_role", f"Only {role.max_count} × '{rid}' may play.", role=rid)
            )
        if config.theme not in role.themes:
            found.append(
                issue(
                    "error",
                    "wrong_theme",
                    f"'{rid}' is not part of {config.theme.value.title()}.",
                    role=rid,
                    theme=config.theme.value,
                )
            )
    good = sum(1 for r in roles if r.side is Side.GOOD)
    evil = sum(1 for r in roles if r.side is Side.EVIL)
    if good > good_seats:
        found.append(
            issue(
                "error",
                "too_many_good",
                f"{good} Good characters chosen but a {n}-player game has only {good_seats} Good seats.",
                chosen=good,
                seats=good_seats,
            )
        )
    if evil > evil_seats:
        found.append(
            issue(
                "error",
                "too_many_evil",
                f"{evil} Evil characters chosen but a {n}-player game has only {evil_seats} Evil seats.",
                chosen=evil,
                seats=evil_seats,
            )
        )
    owners = option_owners()
    for key, value in config.options.items():
        owner = owners.get(key)
        if owner is None:
            found.append(issue("error", "unknown_option", f"There is no option called '{key}'.", option=key))
        elif value and config.theme not in owner.themes:
            found.append(
                issue(
                    "error",
                    "option_wrong_theme",
                    f"'{key}' is not part of {config.theme.value.title()}.",
                    option=key,
                    theme=config.theme.value,
                )
            )
    if found:
        return found
    active = active_plugins(config)
    for plugin in active:
        missing = needs_issues(plugin, config, active)
        found.extend(missing)
        found.extend(plugin.validate(config))
        if not any(i.level == "error" for i in missing):  # (a pair not yet complete: that first)
            found.extend(recommended_issues(plugin, config))
    for plugin in ALL.values():
        for key in plugin.option_keys:
            if config.options.get(key) and plugin not in active:
                found.append(
                    issue(
                        "warning",
                        "option_without_effect",
                        f"The option '{key}' has no effect: '{plugin.id}' is not in this game.",
                        option=key,
                        needs=plugin.id,
                    )
                )
    return found


def checks_loyalty(config: GameConfig, active: list[Plugin]) -> bool:
    """Does anything in this game check a player's loyalty (``Plugin.checks_loyalty_from``)?"""
    return any(p.checks_loyalty_from is not None and config.players >= p.checks_loyalty_from for p in active)


def needs_issues(plugin: Plugin, config: GameConfig, active: list[Plugin]) -> list[ConfigIssue]:
    """The declared needs (``Plugin.needs``) of one plug-in in play that this game leaves unmet."""
    in_play = {p.id for p in active}
    found = []
    for need in plugin.needs:
        if in_play & set(need.any_of) or (need.loyalty_check and checks_loyalty(config, active)):
            continue
        params = {"role": plugin.id} if isinstance(plugin, Role) else {"plugin": plugin.id}
        if len(need.any_of) == 1:
            params["missing"] = need.any_of[0]
        found.append(issue(need.level, need.code, need.message, **params))
    return found


def recommended_issues(plugin: Plugin, config: GameConfig) -> list[ConfigIssue]:
    """A warning when the table is smaller than the plug-in's ``recommended_players``."""
    n = plugin.recommended_players
    if n is None or config.players >= n:
        return []
    return [
        issue(
            "warning",
            "recommended_players",
            f"'{plugin.id}' is recommended for {n} or more players.",
            plugin=plugin.id,
            players=n,
        )
    ]


def dealt_deck(config: GameConfig) -> list[str]:
    """The characters dealt in this game, before the shuffle: the chosen ones, then the fillers."""
    good_seats, evil_seats = SIDES_BY_PLAYERS[config.players]
    deck = list(config.roles)
    good = sum(1 for r in deck if ROLES[r].side is Side.GOOD)
    evil = len(deck) - good
    deck += [FILLER[Side.GOOD]] * (good_seats - good) + [FILLER[Side.EVIL]] * (evil_seats - evil)
    return deck
