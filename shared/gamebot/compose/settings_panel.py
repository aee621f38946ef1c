"""The host's private settings panel: its pages and their buttons (what each press changes is decided by
the step that handles it: ``handlers.settings_ops``).

Pages: ``main`` (game, language, characters, options, presets, who assassinates, time limits, Done),
``roles``, ``options`` (one line of explanation per option), a page of values for an option that is
not a plain switch, ``presets``, ``assassin``, ``language``, ``timers`` and one page per phase's time
limit. Every button that shows a setting says what is set *now* ("🎭 Game: Avalon"); where a setting
has more than two values, its button opens a page offering every value at once.

The settings are checked for the table that will play: the players who joined (with fewer than five,
every table size from 5 to 10 is tried and the panel says which would work).

A button's operation (the ``op`` of its callback data, ``S`` scope):
``p<page>`` shows a page (``pm`` main, ``pr`` roles, ``pb`` options, ``pp`` presets, ``pa`` assassin,
``pl`` language, ``pt`` timers); ``th`` switches the game; ``l<code>`` sets the group's language;
``r<i>`` toggles character i; ``m<i>`` toggles option i, or opens its values' page; ``v<i>.<j>`` sets
option i to value j (0: off) — an option that needs a character not chosen is not switched on, the press
says which (``NeedsCharacters``), and one on already is left out of the game and of the summary;
``p<i>`` applies preset i; ``a<j>`` chooses who assassinates (0: the rule's default); ``k<i>`` opens
phase i's time limit; ``k<i>.<j>`` sets it to choice j; ``kv`` flips what a missing vote counts as;
``ko`` all limits off; ``kd`` the defaults; ``d`` Done.
"""
from __future__ import annotations

from engine.modules.assassination import assassin_choices, designated_role
from gamebot.botapi.buttons import Panel
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Keyboard
from gamebot.compose.settings_check import check, check_lines, config_for, phases_in_play
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.lobby import settings_summary
from gamebot.messages.settings import (
    available_modules,
    available_presets,
    available_roles,
    left_out,
    needs_line,
    needs_text,
    option_button,
    option_needs,
    option_value_name,
    preset_help,
    preset_name,
    role_group,
)
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.time_limits import duration
from gamebot.storage.session import Settings
from gamebot.timing import policy

HALF_ROW = 20  # characters a button may have to share its row with another on a phone screen


class StaleOp(ValueError):
    """A button operation this panel does not know (a forged or outdated button)."""


# ---------------------------------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------------------------------


def _rows(buttons: list[Btn]) -> Keyboard:
    """Two buttons to a row where both are short enough to share a phone's width, else one."""
    rows: Keyboard = []
    for b in buttons:
        if rows and len(rows[-1]) == 1 and len(rows[-1][0].text) <= HALF_ROW and len(b.text) <= HALF_ROW:
            rows[-1].append(b)
        else:
            rows.append([b])
    return rows


def assassin_label(table: Table, settings: Settings, players: int) -> Html | None:
    """Who assassinates, when no Assassin card plays and there is an Assassination stage."""
    config = config_for(settings, players)
    if not assassin_choices(config):
        return None
    role = designated_role(config)
    name = table.role(role) if role else table.t("nothing")
    return name if settings.assassin else table.t("settings.assassin_auto", role=name)


class NeedsCharacters(ValueError):
    """An option pressed on that cannot play without characters not chosen: ``args`` are its key and
    those characters (``option_needs``), which ``messages.settings.needs_line`` says."""


class Pages:
    """Draws the panel's pages for one table (host's language) and its codec."""

    def __init__(self, table: Table, codec: Codec, settings: Settings, joined: int, group_lang: str,
                 timers_enforced: bool) -> None:
        self.table = table
        self.codec = codec
        self.settings = settings
        self.joined = joined
        self.group_lang = group_lang
        self.timers_enforced = timers_enforced

    def data(self, op: str) -> str:
        return Panel(op).encode(self.codec, self.table.chat_id, self.table.game_id)

    def btn(self, text: str, op: str) -> Btn:
        return Btn(text, self.data(op))

    def back(self, page: str = "pm") -> list[Btn]:
        return [self.btn(self.table.t("settings.button.back"), page)]

    def head(self) -> list[Html]:
        t, st = self.table, self.settings
        out = left_out(st.theme, st.roles, st.options)  # (the game is made without them: ``config_for``)
        role_names, option_names = settings_summary(t, list(st.roles), {k: v for k, v in st.options.items()
                                                                          if k not in out})
        lines = [
            t.t("settings.title", title=esc(t.title)),
            t.t("settings.theme", game=esc(t.t(f"theme.{st.theme}"))),
            t.t("settings.roles", roles=role_names),
            t.t("settings.options", options=option_names),
        ]
        lines += [t.t("settings.option_left_out", option=esc(t.module(k)), roles=needs_text(t, needs))
                  for k, needs in sorted(out.items())]
        who = assassin_label(t, st, min(max(self.joined, 5), 10))
        if who:
            lines.append(t.t("settings.assassin", role=esc(who)))
        lines.append(t.t("settings.language", language=esc(texts.language_name(self.group_lang))))
        return lines + check_lines(t, check(st, self.joined))

    def page(self, name: str) -> tuple[Html, Keyboard]:
        if name.startswith("k") and name[1:].isdigit():
            return self.phase(int(name[1:]))
        if name.startswith("m") and name[1:].isdigit():
            return self.values(int(name[1:]))
        draw = {"main": self.main, "roles": self.roles, "options": self.options, "presets": self.presets,
                "assassin": self.assassin, "language": self.language, "timers": self.timers}.get(name, self.main)
        return draw()

    def main(self) -> tuple[Html, Keyboard]:
        t, st = self.table, self.settings
        rows: Keyboard = [[self.btn(t.t("settings.button.theme", game=t.t(f"theme.{st.theme}")), "th")]]
        if len(texts.languages()) > 1:
            rows.append([self.btn(t.t("settings.button.language", language=texts.language_name(self.group_lang)),
                                  "pl")])
        rows.append([self.btn(t.t("settings.button.roles"), "pr"), self.btn(t.t("settings.button.modules"), "pb")])
        if available_presets(st.theme):
            rows.append([self.btn(t.t("settings.button.presets"), "pp")])
        who = assassin_label(t, st, min(max(self.joined, 5), 10))
        if who:
            rows.append([self.btn(t.t("settings.button.assassin", role=who), "pa")])
        rows.append([self.btn(t.t("timers.button.page"), "pt")])
        rows.append([self.btn(t.t("settings.button.done"), "d")])
        return NL.join(self.head()), rows

    def roles(self) -> tuple[Html, Keyboard]:
        """Good, then Evil, then those who may change sides: each group on rows of its own."""
        t, st = self.table, self.settings
        groups: dict[str, list[Btn]] = {}
        for i, rid in enumerate(available_roles(st.theme)):
            count = st.roles.count(rid)
            label = texts.name_of("rolebutton", rid, t.lang, t.theme)
            groups.setdefault(role_group(rid), []).append(
                self.btn(("✅ " if count else "▫️ ") + label + (f" ×{count}" if count > 1 else ""), f"r{i}"))
        lines = [*self.head(), Html(""), t.t("settings.page.roles")]
        if groups:
            lines.append(t.t("settings.page.roles_order"))
        rows = [row for buttons in groups.values() for row in _rows(buttons)]
        return NL.join(lines), [*rows, self.back()]

    def options(self) -> tuple[Html, Keyboard]:
        t, st = self.table, self.settings
        lines = [*self.head(), Html(""), t.t("settings.page.modules")]
        buttons = []
        for i, (_, key, values) in enumerate(available_modules(st.theme)):
            value = st.options.get(key)
            helptext = t.t(f"modulehelp.{key}") if texts.has(f"modulehelp.{key}", t.lang) else ""
            needs = option_needs(st.theme, key, st.roles, value or True)
            lines.append(t.t("settings.option_line_needs", name=esc(t.module(key)), help=helptext,
                             roles=needs_text(t, needs)) if needs else
                         t.t("settings.option_line", name=esc(t.module(key)), help=helptext))
            buttons.append(self.btn(option_button(t, key, values, value, bool(needs)), f"m{i}"))
        return NL.join(lines), [*_rows(buttons), self.back()]

    def values(self, index: int) -> tuple[Html, Keyboard]:
        t, st = self.table, self.settings
        _, key, values = option_at(st.theme, index)
        if not values:
            raise StaleOp(f"m{index}")
        current = st.options.get(key)
        lines = [t.t("settings.values.title", option=esc(t.module(key)))]
        if texts.has(f"modulehelp.{key}", t.lang):
            lines.append(t.t(f"modulehelp.{key}"))
        if needs := option_needs(st.theme, key, st.roles, current or True):
            lines.append(needs_line(t, key, needs))
        lines.append(Html(""))
        rows: Keyboard = [[self.btn(("🔘 " if not current else "▫️ ") + t.t("settings.off"), f"v{index}.0")]]
        for j, value in enumerate(values, start=1):
            label = texts.name_of("valuebutton", value, t.lang, t.theme)
            explained = t.t(f"varianthelp.{value}") if texts.has(f"varianthelp.{value}", t.lang) else ""
            lines.append(t.t("settings.value_line", name=esc(label),
                             help=explained or esc(option_value_name(t, key, value))))
            rows.append([self.btn(("🔘 " if current == value else "▫️ ") + label, f"v{index}.{j}")])
        return NL.join(lines), [*rows, self.back("pb")]

    def presets(self) -> tuple[Html, Keyboard]:
        t, st = self.table, self.settings
        lines = [*self.head(), Html(""), t.t("settings.page.presets")]
        rows: Keyboard = []
        for i, p in enumerate(available_presets(st.theme)):
            name = preset_name(t, p)
            span = {"low": p.min_players, "high": p.max_players}
            mark = "✅ " if st.preset == p.id else ""
            rows.append([self.btn(mark + t.t("settings.preset_button", name=name, **span), f"p{i}")])
            lines.append(t.t("settings.preset_line", name=esc(name),
                             description=esc(preset_help(t, p)), **span))
        return NL.join(lines), [*rows, self.back()]

    def assassin(self) -> tuple[Html, Keyboard]:
        t, st = self.table, self.settings
        config = config_for(st, min(max(self.joined, 5), 10))
        lines = [t.t("settings.assassin.title"), t.t("settings.assassin.help")]
        auto = designated_role(config.model_copy(update={"assassin": None}))
        rows: Keyboard = [[self.btn(("🔘 " if st.assassin is None else "▫️ ")
                                    + t.t("settings.assassin_auto", role=t.role(auto) if auto else "—"), "a0")]]
        for j, role in enumerate(assassin_choices(config), start=1):
            rows.append([self.btn(("🔘 " if st.assassin == role else "▫️ ") + t.role(role), f"a{j}")])
        return NL.join(lines), [*rows, self.back()]

    def language(self) -> tuple[Html, Keyboard]:
        t = self.table
        lines = [t.t("settings.language.title"), t.t("settings.language", language=esc(
            texts.language_name(self.group_lang)))]
        buttons = [self.btn(("🔘 " if code == self.group_lang else "▫️ ") + texts.language_name(code), f"l{code}")
                   for code in texts.languages()]
        return NL.join(lines), [*_rows(buttons), self.back()]

    def timers(self) -> tuple[Html, Keyboard]:
        t, limits = self.table, self.settings.timers
        lines = [t.t("timers.page.title", title=esc(t.title)), t.t("timers.page.help"), t.t("timers.page.in_play"), Html("")]
        buttons = []
        in_play = phases_in_play(self.settings)
        for i, (phase, _) in enumerate(policy.PHASES):  # (each phase keeps its index: ``k<i>``)
            if phase not in in_play:
                continue
            limit = policy.limit_for(limits, phase)
            name = policy.phase_name(t, phase)
            lines.append(t.t("timers.page.line", phase=esc(name), limit=duration(t, limit),
                             default=policy.default_text(t, phase, limits)))
            buttons.append(self.btn(t.t("timers.button.phase", phase=name, limit=duration(t, limit)), f"k{i}"))
        if not self.timers_enforced:
            lines += [Html(""), t.t("timers.page.unavailable")]
        rows = _rows(buttons)
        rows.append([self.btn(t.t("timers.button.vote", vote=t.t(f"vote.{limits.vote}")), "kv")])
        rows.append([self.btn(t.t("timers.button.all_off"), "ko"), self.btn(t.t("timers.button.defaults"), "kd")])
        return NL.join(lines), [*rows, self.back()]

    def phase(self, index: int) -> tuple[Html, Keyboard]:
        t, limits = self.table, self.settings.timers
        if not 0 <= index < len(policy.PHASES):
            raise StaleOp(f"k{index}")
        phase = policy.PHASES[index][0]
        limit = policy.limit_for(limits, phase)
        lines = [t.t("timers.limit.title", phase=esc(policy.phase_name(t, phase)),
                     limit=duration(t, limit)),
                 t.t("timers.limit.expiry", default=policy.default_text(t, phase, limits))]
        buttons = [self.btn(("🔘 " if choice == limit else "") + duration(t, choice), f"k{index}.{j}")
                   for j, choice in enumerate(policy.CHOICES)]
        rows = [buttons[i: i + 3] for i in range(0, len(buttons), 3)]
        return NL.join(lines), [*rows, self.back("pt")]


def option_at(theme: str, index: int) -> tuple[str, str, list[str] | None]:
    options = available_modules(theme)
    if not 0 <= index < len(options):
        raise StaleOp(f"m{index}")
    return options[index]
