"""What a press on the host's settings panel changes (the panel's pages are ``compose.settings_panel``; the
operations, ``op`` of a ``Panel`` button, are listed there): the press is a decision, made on the lobby's
``Settings`` by the step that handles it (``handlers.settings.panel_press``)."""
from __future__ import annotations

import engine
from engine.modules.assassination import assassin_choices
from engine.timeouts import DEFAULT_VOTE
from gamebot.compose.settings_check import config_for
from gamebot.compose.settings_panel import NeedsCharacters, StaleOp, option_at
from gamebot.language import texts
from gamebot.messages.settings import available_presets, available_roles, option_needs
from gamebot.storage.session import Settings
from gamebot.timing import policy

PAGE_OPS = {"pm": "main", "pr": "roles", "pb": "options", "pp": "presets", "pa": "assassin",
            "pl": "language", "pt": "timers"}

Pressed = tuple[str, bool, str | None]  # (the page to show, whether settings changed, the group's new language)


def _index(text: str) -> int:
    if not text.isdigit():
        raise StaleOp(text)
    return int(text)


def apply(settings: Settings, op: str, joined: int) -> Pressed:
    """Apply one press to ``settings``. Returns (the page to show, whether settings changed, the
    group's new language if the press chose one). Raises StaleOp for an unknown operation."""
    if op in PAGE_OPS:
        return PAGE_OPS[op], False, None
    if op == "th":
        settings.switch_theme("resistance" if settings.theme == "avalon" else "avalon")
        return "main", True, None
    if op.startswith("l") and texts.supported(op[1:]):
        return "main", False, op[1:]
    kind, rest = op[:1], op[1:]
    if kind == "r":
        _toggle_role(settings, _index(rest))
        return "roles", True, None
    if kind == "m":
        return _option_op(settings, _index(rest))
    if kind == "v":
        return _value_op(settings, op, rest)
    if kind == "p":
        _apply_preset(settings, _index(rest), joined)
        return "presets", True, None
    if kind == "a":
        choices = [None, *assassin_choices(config_for(settings, min(max(joined, 5), 10)))]
        j = _index(rest)
        if j >= len(choices):
            raise StaleOp(op)
        settings.assassin = choices[j]
        return "main", True, None
    if kind == "k":
        return _timers_op(settings, rest)
    raise StaleOp(op)


def _option_op(settings: Settings, index: int) -> Pressed:
    """Option ``index`` pressed: a plain switch toggles, another opens its values' page."""
    _, key, values = option_at(settings.theme, index)
    if not settings.options.get(key) and (needs := option_needs(settings.theme, key, settings.roles)):
        raise NeedsCharacters(key, needs)  # (on, it could not play: it says why instead)
    if values:
        return f"m{index}", False, None
    if settings.options.pop(key, None) is None:
        settings.options[key] = True
    settings.preset = None
    return "options", True, None


def _value_op(settings: Settings, op: str, rest: str) -> Pressed:
    """``v<i>.<j>``: option i set to value j (0: off)."""
    option, _, value = rest.partition(".")
    _, key, values = option_at(settings.theme, _index(option))
    j_ = _index(value)
    if not values or j_ > len(values):
        raise StaleOp(op)
    if j_ == 0:
        settings.options.pop(key, None)
    elif needs := option_needs(settings.theme, key, settings.roles, values[j_ - 1]):
        raise NeedsCharacters(key, needs)
    else:
        settings.options[key] = values[j_ - 1]
    settings.preset = None
    return "options", True, None


def _toggle_role(settings: Settings, index: int) -> None:
    roles = available_roles(settings.theme)
    if index >= len(roles):
        raise StaleOp(f"r{index}")
    rid = roles[index]
    max_count = engine.ROLES[rid].max_count
    count = settings.roles.count(rid)
    settings.roles = [r for r in settings.roles if r != rid] + [rid] * ((count + 1) % (max_count + 1))
    if settings.assassin and settings.assassin not in settings.roles and settings.assassin != "minion":
        settings.assassin = None
    settings.preset = None


def _apply_preset(settings: Settings, index: int, joined: int) -> None:
    presets = available_presets(settings.theme)
    if index >= len(presets):
        raise StaleOp(f"p{index}")
    p = presets[index]
    n = min(max(joined, p.min_players), p.max_players)
    settings.preset = p.id
    settings.roles = list(p.roles_for(n))
    settings.options = dict(p.options)
    settings.assassin = p.assassin


def _timers_op(settings: Settings, rest: str) -> Pressed:
    limits = settings.timers
    if rest == "v":
        limits.vote = "reject" if limits.vote == "approve" else "approve"
    elif rest == "o":
        limits.limits = {phase: 0 for phase, _ in policy.PHASES}
    elif rest == "d":
        limits.limits, limits.vote = {}, DEFAULT_VOTE
    else:
        index, dot, j = rest.partition(".")
        i = _index(index)
        if i >= len(policy.PHASES):
            raise StaleOp(f"k{rest}")
        if not dot:
            return f"k{i}", False, None
        j_ = _index(j)
        if j_ >= len(policy.CHOICES):
            raise StaleOp(f"k{rest}")
        phase = policy.PHASES[i][0]
        limits.limits[phase] = policy.CHOICES[j_]
        if limits.limits[phase] == policy.DEFAULT_LIMITS[phase]:
            del limits.limits[phase]
    return "timers", True, None
