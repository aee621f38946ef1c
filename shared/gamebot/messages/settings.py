"""What the host may choose (characters, options, presets, read from the engine's plug-ins) and the
configuration's problems in words.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.table import Table, esc

if TYPE_CHECKING:  # (the engine's plug-ins are read lazily, where asked)
    from engine import ConfigIssue
    from engine.presets import Preset

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


def option_needs(theme: str, key: str, roles: list[str] | tuple[str, ...], value: object = True) -> list[str]:
    """The characters that option ``key`` (set to ``value``) needs and ``roles`` lacks, as its plug-in
    declares it: an extra key (``Plugin.option_keys``) plays only while its plug-in is in play
    (``Plugin.active``: the Messengers' ranks need the Messengers, the hidden Sorcerer the Sorcerers); a
    switch (``Module.option``) plays when its module's own check (``Plugin.validate``) finds no error (the
    Lancelot variants need both Lancelots). Each character that would make it play (with the set it is
    dealt in, ``Role.dealt_as_set``) is named, as players read them; empty: it plays (or no character
    would make it)."""
    from engine import ROLES, GameConfig, Theme
    from engine.plugin import Module, option_owners

    owner = option_owners().get(key)
    if owner is None:
        return []
    if value is True and isinstance(owner, Module) and owner.option == key and owner.option_values:
        value = owner.option_values[0]

    def plays(with_roles: list[str]) -> bool:
        config = GameConfig(theme=Theme(theme), players=10, roles=tuple(with_roles), options={key: value})
        if isinstance(owner, Module) and owner.option == key:
            return not any(i.level == "error" for i in owner.validate(config))
        return owner.active(config)

    if plays(list(roles)):
        return []
    return [rid for rid in available_roles(theme)
            if rid not in roles and plays([*roles, *(ROLES[rid].dealt_as_set or (rid,))])]


def left_out(theme: str, roles: list[str] | tuple[str, ...], options: Mapping[str, object]) -> dict[str, list[str]]:
    """The options set in ``options`` that cannot play with ``roles``, and the characters each needs
    (``option_needs``): the game is made without them, the panel says why."""
    out = {}
    for key, value in options.items():
        if value and (needs := option_needs(theme, key, roles, value)):
            out[key] = needs
    return out


def in_play(theme: str, roles: list[str] | tuple[str, ...], options: Mapping[str, object]) -> dict[str, object]:
    """``options`` without those :func:`left_out`: the options the game is made with."""
    out = left_out(theme, roles, options)
    return {k: v for k, v in options.items() if k not in out}


def needs_text(table: Table, roles: list[str]) -> Html:
    """The characters an option needs: "Good Sorcerer and Evil Sorcerer"."""
    return texts.join_names([table.role(r) for r in roles], table.lang)


def needs_line(table: Table, key: str, needs: list[str]) -> Html:
    """Why option ``key`` cannot be switched on, and where to add the characters it needs."""
    return table.t("settings.option_needs_answer", option=table.module(key), roles=needs_text(table, needs),
                   page=table.t("settings.button.roles"))


def option_value_name(table: Table, key: str, value: object) -> Html:
    if value is True:
        return table.t("settings.on")
    return texts.name_of("variant", str(value), table.lang, table.theme)


def option_button(table: Table, key: str, values: list[str] | None, value: object, locked: bool) -> Html:
    """An option's button: its name (``optionbutton.<key>``, the same words as its ``module.<key>`` in
    the summary), its value when it has variants; ✅ on, ▫️ off, 🔒 when it needs a character not
    chosen (⚠️ if on all the same: it is left out)."""
    name = texts.name_of("optionbutton", key, table.lang, table.theme)
    mark = ("⚠️ " if value else "🔒 ") if locked else "✅ " if value else "▫️ "
    if values:
        now = texts.name_of("valuebutton", str(value), table.lang, table.theme) if value else table.t("settings.off")
        return mark + table.t("settings.button.option_value", option=name, value=now)
    return mark + name


def available_presets(theme: str) -> list[Preset]:
    """``engine.presets.Preset`` objects for ``theme``."""
    from engine.presets import PRESETS

    return [p for p in PRESETS.values() if p.theme == theme]


def issue_text(table: Table, issue: ConfigIssue) -> Html:
    """An engine ``ConfigIssue`` in the table's language (``config.<code>``; the engine's English
    message for a code the catalog does not know yet), as markup (``markup.plain`` for an alert)."""
    from engine import ROLES

    key = f"config.{issue.code}"
    if not texts.has(key, table.lang):
        return esc(issue.message)
    values: dict[str, object] = {}
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


def preset_name(table: Table, preset: Preset) -> Html:
    key = f"preset.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else esc(preset.name)


def preset_help(table: Table, preset: Preset) -> Html:
    key = f"presethelp.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else esc(preset.description)
