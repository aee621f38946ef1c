"""What the engine can show a player, collected by playing games: the event types met (public and
private) with their data keys, prompt kinds and their choices, knowledge labels and sources, quest
cards, win reasons, notes, extra public-view keys and the config issue codes of many setups. (Every
event type is listed statically by its declaration, ``engine.event_types.EVENTS``.)

The i18n tests check that every catalog has a name or template for each of them, so that a French
table never sees an English fallback. Games are played by the engine's bots and by random legal
moves over the presets and random setups that reach every registered character, module, option and
variant (``covering_setups``).
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field

from engine import (
    ALL,
    ROLES,
    GameConfig,
    actors,
    apply_action,
    legal_actions,
    new_game,
    prompts,
    public_view,
    validate_config,
    view,
)
from engine.cards import CARDS
from engine.plugin import Module
from engine.policy import ai_seat_move
from engine.presets import PRESETS
from gamebot.messages.settings import available_modules
from gamebot.messages.view_lines import BASE_VIEW_KEYS
from tests.unit.audit_helpers import random_setup

SETUPS_AT_LEAST = 16  # random setups played besides the presets, more if the registry needs more to be covered
MAX_DRAWS = 5000


def registered() -> set[str]:
    """What the games must reach, from the plug-in registry: every character a host may choose, every
    value of every option on the options page, every extra option key there, and both themes."""
    wanted = {f"theme={t.value}" for p in ALL.values() for t in p.themes}
    wanted |= {f"role={r.id}" for r in ROLES.values() if not r.filler}
    for plugin in ALL.values():
        if plugin.settings_page != "options":
            continue
        if isinstance(plugin, Module) and plugin.option:
            wanted |= {f"{plugin.option}={v}" for v in plugin.option_values or (True,)}
        wanted |= {f"{key}=True" for key in plugin.option_keys}
    return wanted


def reached(config: GameConfig) -> set[str]:
    return ({f"theme={config.theme.value}"} | {f"role={r}" for r in config.roles}
            | {f"{k}={v}" for k, v in config.options.items()})


def covering_setups(seed: int = 14) -> list[GameConfig]:
    """Random setups (``audit_helpers.random_setup``, seeded) that together reach everything registered: a
    draw is kept when it reaches something new, or while fewer than ``SETUPS_AT_LEAST`` are kept. A new
    plug-in is played without being listed; one no setup can reach fails here, by name."""
    rng = random.Random(seed)
    missing, out = registered(), []
    for _ in range(MAX_DRAWS):
        if not missing and len(out) >= SETUPS_AT_LEAST:
            return out
        config = random_setup(rng)
        if config is not None and (reached(config) & missing or len(out) < SETUPS_AT_LEAST):
            out.append(config)
            missing -= reached(config)
    raise AssertionError(f"no random setup reaches {sorted(missing)}")


@dataclass
class Inventory:
    public: dict[str, set[str]] = field(default_factory=dict)  # event type -> data keys
    private: dict[str, set[str]] = field(default_factory=dict)
    kinds: set[str] = field(default_factory=set)
    choices: set[str] = field(default_factory=set)
    knowledge: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    cards: set[str] = field(default_factory=set)
    reasons: set[str] = field(default_factory=set)
    notes: set[str] = field(default_factory=set)
    board: set[str] = field(default_factory=set)
    issues: dict[str, set[str]] = field(default_factory=dict)  # config issue code -> param names


def configs() -> list[GameConfig]:
    return [p.config(n) for p in PRESETS.values() for n in sorted(p.players)] + covering_setups()


def _broken_setups() -> list[GameConfig]:
    """Setups that raise every kind of config issue we know of (warnings and errors)."""
    out = [GameConfig(players=5, roles=(r,) * ROLES[r].max_count, options={}) for r in ROLES if not ROLES[r].filler]
    for _, opt, values in available_modules("avalon"):
        out.append(GameConfig(players=5, roles=("merlin", "assassin"), options={opt: (values or [True])[0]}))
    out += [
        GameConfig(players=5, roles=("merlin", "assassin", "percival"), options={}),
        GameConfig(players=5, roles=("assassin",), options={}),
        GameConfig(players=5, roles=("merlin",), options={}, assassin="morgana"),
        GameConfig(players=5, roles=("merlin", "percival"), options={}, assassin="merlin"),
        GameConfig(players=5, roles=("merlin", "morgana", "mordred"), options={}, assassin="minion"),
        GameConfig(players=5, roles=("merlin", "percival", "cleric", "troublemaker"), options={}),
        GameConfig(players=5, roles=("mordred", "morgana", "oberon"), options={}),
        GameConfig(players=7, roles=("merlin", "good_lancelot", "evil_lancelot"), options={"lancelot": "x"}),
        GameConfig(players=7, roles=("merlin", "assassin"), options={"lancelot": "bigbox_switch"}),
        GameConfig(players=7, roles=("merlin", "good_lancelot", "evil_lancelot"),
                   options={"lancelot": "bigbox_switch"}, assassin="evil_lancelot"),
        GameConfig(players=5, roles=("servant",), options={"nonsense": True}),
        GameConfig(players=5, roles=("nobody",), options={}),
        GameConfig(theme="resistance", players=5, roles=("merlin",), options={}),
        GameConfig(theme="resistance", players=6, roles=(), options={"trapper": True, "lady_of_the_lake": True}),
        GameConfig(players=5, roles=("merlin", "assassin"), options={"blind_spies": True}),
    ]
    return out


def _play(inv: Inventory, config: GameConfig, seed: int, random_moves: bool) -> None:
    rng = random.Random(seed)
    state, events = new_game(config, seed)
    seen = list(events)
    for _ in range(3000):
        if state.over:
            break
        for seat in range(state.n):
            for p in prompts(state, seat):
                inv.kinds.add(p.kind)
                inv.choices.update(p.choices)
        seat = rng.choice(actors(state))
        action = rng.choice(legal_actions(state, seat)) if random_moves else ai_seat_move(state, seat, rng)
        state, events = apply_action(state, action)
        seen += events
    for ev in seen:
        target = inv.public if ev.to is None else inv.private
        target.setdefault(ev.type, set()).update(ev.data)
        if ev.type == "QuestCompleted":
            inv.notes.update(str(n) for n in ev.data.get("notes") or [])
            inv.cards.update(ev.data.get("cards") or {})
    for seat in range(state.n):
        for k in view(state, seat)["you"]["knowledge"]:
            inv.knowledge.add(k["label"])
            inv.sources.add(k.get("source") or "reveal")
    pv = public_view(state)
    if pv.get("win_reason"):
        inv.reasons.add(pv["win_reason"])
    inv.notes.update(p["note"] for p in pv["proposals"] if p.get("note"))
    inv.board.update(k for k in set(pv) - BASE_VIEW_KEYS if pv[k] not in (None, {}, []))


@functools.cache
def inventory(seeds: int = 2) -> Inventory:
    inv = Inventory()
    inv.cards |= set(CARDS)  # every registered quest card may be played, and seen (a knowledge label: the
    inv.knowledge |= set(CARDS)  # Trapper, Keeping a Close Eye) whatever the games met
    for config in configs():
        for seed in range(seeds):
            _play(inv, config, seed, random_moves=bool(seed % 2))
    for config in configs() + _broken_setups():
        try:
            found = validate_config(config)
        except Exception:  # noqa: BLE001 - some broken setups are refused before validation
            continue
        for issue in found:
            inv.issues.setdefault(issue.code, set()).update(issue.params)
    return inv
