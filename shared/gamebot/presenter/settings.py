"""What the host may choose (characters, options, presets, read from the engine's plug-ins) and the
configuration's problems in words.
"""
from __future__ import annotations

from typing import Any

from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.presenter.table import Table, esc

# The characters as a player thinks of them: Good, then Evil, then those who may change sides (the two
# Lancelots, the Untrustworthy Servant whom the Assassin may recruit), each group in the rulebooks' order:
# the base characters (000: Merlin, the Assassin, Percival, Mordred, Oberon, Morgana), then the Big Box's
# pages (002: Lancelot, Lunatic, Brute, Revealer, Cleric, Trickster, Troublemaker) and modules (Rogues,
# Sorcerers, Messengers, Untrustworthy Servant). A character not listed goes last in its side's group.
GOOD, EVIL, CHANGE_SIDES = "good", "evil", "change_sides"
ROLE_ORDER: dict[str, tuple[str, ...]] = {
    GOOD: ("merlin", "percival", "cleric", "troublemaker", "good_rogue", "good_sorcerer", "good_messenger"),
    EVIL: ("assassin", "mordred", "oberon", "morgana", "lunatic", "brute", "revealer", "trickster", "evil_rogue",
           "evil_sorcerer", "evil_messenger"),
    CHANGE_SIDES: ("good_lancelot", "evil_lancelot", "untrustworthy_servant"),
}
GROUPS = (GOOD, EVIL, CHANGE_SIDES)


def role_group(rid: str) -> str:
    from engine import ROLES

    for group, ids in ROLE_ORDER.items():
        if rid in ids:
            return group
    return EVIL if rid in ROLES and ROLES[rid].side.value == "evil" else GOOD


def role_key(rid: str) -> tuple[int, int, str]:
    """Where a character comes in a list players read (``ROLE_ORDER``)."""
    group = role_group(rid)
    ids = ROLE_ORDER[group]
    return GROUPS.index(group), ids.index(rid) if rid in ids else len(ids), rid


def in_reading_order(roles: list[str]) -> list[str]:
    """``roles`` (repeats kept) ordered as players read them: Good, Evil, those who may change sides."""
    return sorted(roles, key=role_key)


def available_roles(theme: str) -> list[str]:
    """Every character the host may add for ``theme``: the non-filler engine roles, as players read them."""
    from engine import ROLES, Theme

    th = Theme(theme)
    return in_reading_order([r.id for r in ROLES.values() if not r.filler and th in r.themes])


def available_modules(theme: str) -> list[tuple[str, str, list[str] | None]]:
    """(name id, option key, named values or None for a switch) for every option the host may set on
    the options page in ``theme``: each option whose plug-in declares that theme and that page
    (``Plugin.themes``, ``Plugin.settings_page``): module switches first, then extra option keys."""
    from engine import Theme
    from engine.plugin import Module, option_owners

    th = Theme(theme)
    out = []
    for key, owner in option_owners().items():
        if th not in owner.themes or owner.settings_page != "options":
            continue
        if isinstance(owner, Module) and owner.option == key:
            out.append((owner.id, key, list(owner.option_values) or None))
        else:
            out.append((key, key, None))
    switches = {o.option for o in option_owners().values() if isinstance(o, Module)}
    return sorted(out, key=lambda m: (m[1] not in switches, m[0]))


def available_presets(theme: str) -> list[Any]:
    """``engine.presets.Preset`` objects for ``theme``."""
    from engine.presets import PRESETS

    return [p for p in PRESETS.values() if p.theme == theme]


def issue_text(table: Table, issue: Any) -> Html:
    """An engine ``ConfigIssue`` in the table's language (``config.<code>``; the engine's English
    message for a code the catalog does not know yet), as markup (``markup.plain`` for an alert)."""
    from engine import ROLES

    key = f"config.{issue.code}"
    if not texts.has(key, table.lang):
        return esc(issue.message)
    values: dict[str, Any] = {}
    for name, value in (issue.params or {}).items():
        if name in ("role", "missing") and isinstance(value, str):
            values[name] = table.role(value)
        elif name == "roles" and isinstance(value, list | tuple):
            values[name] = Html(", ").join(table.role(str(r)) for r in value)
        elif name == "theme" and isinstance(value, str) and texts.has(f"theme.{value}", table.lang):
            values[name] = table.t(f"theme.{value}")
        elif name == "option" and isinstance(value, str):
            values[name] = table.module(value)
        elif name == "plugin" and isinstance(value, str):  # a character or a module, by its id
            values[name] = table.role(value) if value in ROLES else table.module(value)
        elif name == "preset" and isinstance(value, str):
            values[name] = texts.name_of("preset", value, table.lang, table.theme)
        elif isinstance(value, list | tuple):
            values[name] = Html(", ").join(str(v) for v in value)
        else:
            values[name] = value
    return table.t(key, **values)


def preset_name(table: Table, preset: Any) -> Html:
    key = f"preset.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else esc(preset.name)


def preset_help(table: Table, preset: Any) -> Html:
    key = f"presethelp.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else esc(preset.description)
