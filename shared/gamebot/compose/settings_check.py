"""Are these settings playable, and by which table? The check the settings panel, the lobby and the
start share: the game the settings make for a number of players (a preset's own characters for that
count), its issues, and the table sizes from 5 to 10 that can play it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import ConfigIssue, GameConfig, InvalidConfig, validate_config
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.settings import in_play, issue_text
from gamebot.messages.table import Table
from gamebot.storage.session import Settings

if TYPE_CHECKING:
    from engine.presets import Preset

SIZES = range(5, 11)

# ---------------------------------------------------------------------------------------------------


def config_for(settings: Settings, players: int) -> GameConfig:
    """The game these settings make for ``players``: a preset's own characters for that count, without
    the options that cannot play for want of a character (``messages.settings.in_play``: the panel's
    summary leaves them out and says which character each needs, and so do the check and the game)."""
    config = settings.config(players)
    if settings.preset and settings.preset in _presets():
        preset = _presets()[settings.preset]
        if players in preset.players:
            config = preset.config(players)
    return config.model_copy(update={"options": in_play(config.theme.value, config.roles, config.options)})


def _presets() -> dict[str, Preset]:
    from engine.presets import PRESETS

    return PRESETS


def issues_for(settings: Settings, players: int) -> list[ConfigIssue]:
    try:
        return validate_config(config_for(settings, players))
    except InvalidConfig as exc:
        return list(exc.problems)


@dataclass
class Check:
    joined: int
    playable_sizes: list[int]  # table sizes from 5 to 10 that can play these settings
    shown_for: int | None  # the size the issues below are for (None: none shown)
    issues: list[ConfigIssue]

    @property
    def errors(self) -> list[ConfigIssue]:
        return [i for i in self.issues if i.level == "error"]

    @property
    def playable(self) -> bool:
        """Can the table that will play use these settings (as far as we know yet)?"""
        if self.joined in SIZES:
            return self.joined in self.playable_sizes
        return bool(self.playable_sizes)


def check(settings: Settings, joined: int) -> Check:
    per = {n: issues_for(settings, n) for n in SIZES}
    sizes = [n for n, found in per.items() if not any(i.level == "error" for i in found)]
    if joined in SIZES:
        shown: int | None = joined
    elif sizes:
        shown = None
    else:  # nothing can play: show what is wrong for the size closest to working
        shown = min(SIZES, key=lambda n: (sum(i.level == "error" for i in per[n]), n))
    return Check(joined, sizes, shown, per[shown] if shown is not None else [])


def phases_in_play(settings: Settings) -> list[str]:
    """The time-limit phases (``policy.PHASES``, in their order) a game with these settings can have
    a decision in, at any table size from 5 to 10: joining, team proposals, votes and quest cards always;
    a plug-in's phase (``Plugin.timer_phase``) when it is in play and makes decisions (the Lady of the
    Lake, the Assassination or the Recruitment, Excalibur, Plot cards, the Trapper, the Rogues' Watch...);
    Loyalty cards only when something checks loyalty and someone may choose which card to hand over (a
    Trickster). Settings no table can play list every phase."""
    from engine import new_game
    from engine.loyalty import someone_may_choose
    from engine.plugin import Ctx, Plugin, active_plugins
    from engine.validation import checks_loyalty
    from gamebot.timing.policy import PHASES, owner_phase

    used = {"join", "propose", "vote", "quest"}
    playable = False
    for n in SIZES:
        try:
            config = config_for(settings, n)
            if any(i.level == "error" for i in validate_config(config)):
                continue
            state, _ = new_game(config, 0)
        except Exception:  # noqa: BLE001 - settings this size cannot play
            continue
        playable = True
        active = active_plugins(config)
        for plugin in active:
            if type(plugin).handle is Plugin.handle:
                continue  # (makes no decision of its own)
            if plugin.id == "loyalty" and not (checks_loyalty(config, active) and someone_may_choose(Ctx(state))):
                continue
            used.add(owner_phase(plugin.id))
    return [phase for phase, _ in PHASES if phase in used or not playable]


def sizes_text(table: Table, sizes: list[int]) -> Html:
    """``7–10`` for a run of sizes, else ``5, 7 or 9``."""
    if len(sizes) > 2 and sizes == list(range(sizes[0], sizes[-1] + 1)):
        return Html("{}–{}").format(sizes[0], sizes[-1])
    return texts.join_names([str(n) for n in sizes], table.lang, or_=True)


def check_lines(table: Table, c: Check) -> list[Html]:
    lines = []
    if c.joined in SIZES:
        lines.append(table.t("settings.check.joined", count=c.joined))
    elif c.playable_sizes:
        lines.append(table.t("settings.check.sizes", count=c.joined, sizes=sizes_text(table, c.playable_sizes)))
    else:
        lines.append(table.t("settings.check.none", count=c.joined, players=c.shown_for))
    lines += [table.t("settings.errors", message=issue_text(table, i)) for i in c.errors]
    lines += [table.t("settings.warnings", message=issue_text(table, i)) for i in c.issues
              if i.level != "error"]
    if c.joined in SIZES:
        if not c.errors:
            lines.append(table.t("settings.ok"))
        elif c.playable_sizes:
            lines.append(table.t("settings.check.other_sizes", sizes=sizes_text(table, c.playable_sizes)))
    return lines


def done_answer(table: Table, c: Check) -> tuple[Html, bool]:
    """What Done answers (text, as an alert?): saved, or saved but not playable yet and why."""
    if c.playable:
        return table.t("settings.done"), False
    reason = issue_text(table, c.errors[0]) if c.errors else ""
    return table.t("settings.done_unplayable", reason=reason), True
