"""The Reveal of a game told in words: who opens their eyes and whom they see (``/rules``).

Built from ``engine.reveal_script`` (the steps the characters and options of this game make), one line
per step: ``reveal.<step>`` in the catalog, else a generic "X see Y". Names only characters, never
seats: it is the rulebook script for this set-up, the same for everyone.
"""
from __future__ import annotations

from engine import GameConfig, reveal_script
from engine.validation import dealt_deck
from gamebot.language import texts, wording
from gamebot.language.markup import Html, cap
from gamebot.messages.table import NL, Table


def fillers(config: GameConfig) -> dict[str, int]:
    """How many plain Servants and Minions are dealt (the engine's deck: the fillers of the seats the
    characters leave)."""
    deck = dealt_deck(config)
    return {"servant": deck.count("servant"), "minion": deck.count("minion")}


def dealt_roles(config: GameConfig) -> list[str]:
    """The characters of this game, with the plain Servants / Minions that fill the other seats."""
    return list(config.roles) + [plain for plain, count in fillers(config).items() if count > config.roles.count(plain)]


def _names(table: Table, role_ids: list[str], plain: dict[str, int]) -> Html:
    """The characters' names as a sentence says them ("the Assassin", "a Minion of Mordred":
    ``wording.role_a``); plain Servants or Minions in the plural when there are several (the language's
    theme word: "Minions of Mordred", "Spies"), never a name with an "s" glued on."""
    words = texts.vocab(table.lang, table.theme)
    plural = {"servant": words.get("servants"), "minion": words.get("minions")}
    names: list[str] = []
    for r in role_ids:
        several = plural.get(r) if plain.get(r, 0) > 1 else None
        names.append(several or wording.role_a(table, r))
    return texts.join_names(names, table.lang)


def _roles(value: object) -> list[str]:
    """The characters of a step of the script (the engine lists their ids; none: an empty list)."""
    return [r for r in value if isinstance(r, str)] if isinstance(value, list) else []


def reveal_lines(table: Table, config: GameConfig) -> list[Html]:
    lines = []
    plain = fillers(config)
    for step in reveal_script(config, dealt_roles(config)):
        look, show = _roles(step["look"]), _roles(step.get("show"))
        names = _names(table, look, plain)
        values = {"look": names, "Look": cap(names), "show": _names(table, show, plain)}
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


def reveal_text(table: Table, config: GameConfig) -> Html:
    lines = reveal_lines(table, config)
    return NL.join([table.t("reveal.title"), *lines]) if lines else table.t("reveal.none")
