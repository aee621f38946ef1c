"""The Reveal of a game told in words: who opens their eyes and whom they see (``/rules``).

Built from ``engine.reveal_script`` (the steps the characters and options of this game make), one line
per step: ``reveal.<step>`` in the catalog, else a generic "X see Y". Names only characters, never
seats: it is the rulebook script for this set-up, the same for everyone.
"""
from __future__ import annotations

from engine import ROLES, GameConfig, Side, reveal_script
from engine.basics import SIDES_BY_PLAYERS

from . import texts
from .presenter.table import Table, esc


def dealt_roles(config: GameConfig) -> list[str]:
    """The characters of this game, with the plain Servants / Minions that fill the other seats."""
    roles = list(config.roles)
    good_seats, evil_seats = SIDES_BY_PLAYERS.get(config.players, (0, 0))
    good = sum(1 for r in roles if r in ROLES and ROLES[r].side is Side.GOOD)
    evil = sum(1 for r in roles if r in ROLES and ROLES[r].side is Side.EVIL)
    if good < good_seats:
        roles.append("servant")
    if evil < evil_seats:
        roles.append("minion")
    return roles


def fillers(config: GameConfig) -> dict[str, int]:
    """How many plain Servants and Minions fill the seats the characters leave."""
    good_seats, evil_seats = SIDES_BY_PLAYERS.get(config.players, (0, 0))
    sides = [ROLES[r].side for r in config.roles if r in ROLES]
    return {"servant": max(good_seats - sides.count(Side.GOOD), 0),
            "minion": max(evil_seats - sides.count(Side.EVIL), 0)}


def _names(table: Table, role_ids: list[str], plain: dict[str, int]) -> str:
    """The characters' names; plain Servants or Minions in the plural when there are several
    (the language's theme word: "Minions of Mordred", "Spies"), never a name with an "s" glued on."""
    words = texts.vocab(table.lang, table.theme)
    plural = {"servant": words.get("servants"), "minion": words.get("minions")}
    return esc(texts.join_names([plural[r] if plain.get(r, 0) > 1 and plural.get(r) else table.role(r)
                                 for r in role_ids], table.lang))


def reveal_lines(table: Table, config: GameConfig) -> list[str]:
    lines = []
    plain = fillers(config)
    for step in reveal_script(config, dealt_roles(config)):
        look, show = list(step["look"]), list(step.get("show") or [])
        names = _names(table, look, plain)
        values = {"look": names, "Look": names[:1].upper() + names[1:], "show": _names(table, show, plain)}
        only_show = [r for r in show if r not in look]
        key = f"reveal.{step['step']}"
        if step.get("mutual") and only_show:
            values["thumbs"] = _names(table, only_show, plain)
            key += ".thumbs"
        if show == ["merlin"] and texts.has(key + ".merlin", table.lang):
            key += ".merlin"  # Percival without Morgana
        if len(look) == 1 and plain.get(look[0], 1) <= 1 and texts.has(key + ".one", table.lang):
            key += ".one"  # one character looks: the verb in the singular
        if not texts.has(key, table.lang):
            key = "reveal.generic.one" if len(look) == 1 and plain.get(look[0], 1) <= 1 else "reveal.generic"
        lines.append(table.t(key, **values))
    return lines


def reveal_text(table: Table, config: GameConfig) -> str:
    lines = reveal_lines(table, config)
    return "\n".join([table.t("reveal.title"), *lines]) if lines else table.t("reveal.none")
