"""Oracles for the rules-audit property tests (test_rules_audit_properties.py), written from the rulebooks.

* ``random_setup``: a random legal combination of every character, module, option and variant.
* ``expected_cards``: the quest cards a seat may play now (Avalon Big Box card rules, all modules).
* ``expected_reveal``: what each seat learns at the Reveal (Big Box p. 11 full script and the script
  changes of every module), independent of ``engine.reveal``.
* ``hide_secrets``: a copy of a state where every secret one seat may not know is changed.
"""
from __future__ import annotations

import random

from engine import ROLES, GameConfig, GameState, Side, Theme, validate_config
from engine.cards import CARDS
from engine.models import Knowledge
from engine.plugin import MODULES, active_plugins
from tests.helpers import GOOD_EVIL
from tests.unit.bigbox_helpers import oracle_cards

LANCELOTS = ("good_lancelot", "evil_lancelot")
PREDEALT = ("bigbox_predealt", "french_predealt")
# How often a character, an option or a variant is drawn. Everything comes from the plug-in registry
# (``engine.plugin``): the characters of the theme with the sets they are dealt in (``dealt_as_set``) and
# the partners they cannot play without (``needs`` at the error level), the options of the theme's
# modules with their named values, and the extra option keys of the plug-ins in play.
LIKELY = {"merlin": 0.7, "assassin": 0.6}  # the Avalon core, in most games
SOMETIMES = 0.3
RESISTANCE_GAMES, RESISTANCE_OPTION = 0.15, 0.4
VARIANT = 0.7  # a module with named values (Lancelot's variants): tried often, kept when its characters play
OPTION_KEY = 0.5


def _units(theme: Theme, rng: random.Random) -> list[tuple[str, ...]]:
    """The characters a host may choose in this theme, each as the set it is dealt in: the core first, then
    the sets, then single characters, each group in a random order."""
    units = sorted({ROLES[r].dealt_as_set or (r,) for r in ROLES
                    if not ROLES[r].filler and theme in ROLES[r].themes})
    core = [u for u in units if u[0] in LIKELY]
    sets = [u for u in units if len(u) > 1 and u not in core]
    singles = [u for u in units if len(u) == 1 and u not in core]
    return core + rng.sample(sets, len(sets)) + rng.sample(singles, len(singles))


def _with_partners(unit: tuple[str, ...], chosen: list[str]) -> list[str] | None:
    """The unit and the partners it cannot play without (``Needs`` at the error level), or None."""
    group = list(unit)
    for role in group:
        for need in ROLES[role].needs:
            if need.level != "error" or not need.any_of or set(need.any_of) & set(chosen + group):
                continue
            partner = next((r for r in need.any_of if r in ROLES), None)
            if partner is None:
                return None
            group += ROLES[partner].dealt_as_set or (partner,)
    return group


def _fits(roles: list[str], n: int) -> bool:
    good_seats, evil_seats = GOOD_EVIL[n]
    good = sum(1 for r in roles if ROLES[r].side is Side.GOOD)
    return good <= good_seats and len(roles) - good <= evil_seats and all(
        roles.count(r) <= ROLES[r].max_count for r in roles)


def _errors(config: GameConfig) -> bool:
    return any(i.level == "error" for i in validate_config(config))


def random_setup(rng: random.Random) -> GameConfig | None:
    """A random configuration of every registered character, module, option and variant, or None if the
    rules refuse it (the caller draws again)."""
    n = rng.randint(5, 10)
    theme = Theme.RESISTANCE if rng.random() < RESISTANCE_GAMES else Theme.AVALON
    chosen: list[str] = []
    for unit in _units(theme, rng):
        group = _with_partners(unit, chosen) if rng.random() < LIKELY.get(unit[0], SOMETIMES) else None
        if group and _fits(chosen + group, n):
            chosen += group
    config = GameConfig(theme=theme, players=n, roles=tuple(chosen), options={})
    for module in sorted(MODULES.values(), key=lambda m: m.id):
        if not module.option or theme not in module.themes or module.settings_page != "options":
            continue
        chance = VARIANT if module.option_values else RESISTANCE_OPTION if theme is Theme.RESISTANCE else SOMETIMES
        if rng.random() < chance:
            value = rng.choice(module.option_values) if module.option_values else True
            tried = config.model_copy(update={"options": {**config.options, module.option: value}})
            if not _errors(tried):  # (Lancelot's variants without the Lancelots: left out)
                config = tried
    for plugin in active_plugins(config):
        if plugin.settings_page == "options":
            for key in plugin.option_keys:
                if rng.random() < OPTION_KEY:
                    config = config.model_copy(update={"options": {**config.options, key: True}})
    if _errors(config):
        return None
    return config


def expected_cards(state: GameState, seat: int, watched: bool, good_messages_played: int) -> set[str]:
    """Avalon Big Box card rules for the seat's character and current side: the module cards (Rogue,
    Sorcerer, Messengers: ``bigbox_helpers.oracle_cards``) and the character restrictions."""
    role, side, options = state.roles[seat], state.sides[seat], state.config.options
    if role == "lunatic":
        return {"fail"}  # "must Fail every Quest that they are on"
    if role == "brute" and len(state.quests) >= 3:
        return {"success"}  # "may Fail only the first three Quests"
    if role in LANCELOTS and side is Side.EVIL and options.get("lancelot") in PREDEALT:
        return {"fail"}  # Variant 2: "Evil Lancelot may only play a Fail card"
    return oracle_cards(role, side, watched, good_messages_played)


def _minion_of_mordred(role: str, config: GameConfig) -> bool:
    """Opens their eyes with the agents of Evil (Big Box script and its module changes)."""
    if ROLES[role].side is not Side.EVIL or role in ("oberon", "evil_rogue"):
        return False
    if role == "evil_lancelot" and config.options.get("lancelot"):
        return False  # variants: he only extends his thumb
    return not (role == "evil_sorcerer" and config.options.get("sorcerer_hidden"))


def _thumb_for_evil(role: str, config: GameConfig) -> bool:
    return _minion_of_mordred(role, config) or (role == "evil_lancelot" and bool(config.options.get("lancelot")))


def _thumb_for_merlin(role: str, config: GameConfig) -> bool:
    if role == "untrustworthy_servant":
        return True  # "Minions of Mordred and Untrustworthy Servant, extend your thumb"
    if ROLES[role].side is not Side.EVIL or role in ("mordred", "evil_rogue"):
        return False
    return not (role == "evil_sorcerer" and config.options.get("sorcerer_hidden"))


def expected_reveal(roles: list[str], config: GameConfig, assassin: int | None) -> list[set[tuple[int, str]]]:
    """For each seat, the (seat, label) pairs the Reveal script teaches it (source "reveal")."""
    n = len(roles)
    known: list[set[tuple[int, str]]] = [set() for _ in range(n)]
    blind = bool(config.options.get("blind_spies"))
    percival = "merlin_or_morgana" if "morgana" in roles else "merlin"
    for me, mine in enumerate(roles):
        for other, theirs in enumerate(roles):
            if other == me:
                continue
            if not blind and _minion_of_mordred(mine, config) and _thumb_for_evil(theirs, config):
                known[me].add((other, "evil"))
            if mine == "merlin" and _thumb_for_merlin(theirs, config):
                known[me].add((other, "evil"))
            if mine == "percival" and theirs in ("merlin", "morgana"):
                known[me].add((other, percival))
            if not config.options.get("lancelot") and {mine, theirs} == set(LANCELOTS):
                known[me].add((other, ROLES[theirs].side.value))
            if mine == "untrustworthy_servant" and other == assassin:
                known[me].add((other, "assassin"))
    designated = _designated(roles, config)
    if designated is not None:  # told to the agents of Evil who see them open their eyes
        for me, mine in enumerate(roles):
            if (me != designated and not blind and _minion_of_mordred(mine, config)
                    and _thumb_for_evil(roles[designated], config)):
                known[me].add((designated, "assassinates"))
    return known


def _designated(roles: list[str], config: GameConfig) -> int | None:
    """Big Box: with no Assassin card, "designate any other Evil character to serve as the Assassin":
    the host's choice, else a Minion of Mordred, else the first Evil character of the game who may be
    the Assassin (not the Evil Rogue, not a Lancelot who may switch sides). None: the Assassin card plays,
    or there is no Assassination stage (no Merlin, no pair of Good Messengers)."""
    if "assassin" in roles or ("merlin" not in roles and roles.count("good_messenger") < 2):
        return None
    if config.assassin:
        return roles.index(config.assassin)
    if "minion" in roles:
        return roles.index("minion")
    for role in config.roles:
        if ROLES[role].side is Side.EVIL and role != "evil_rogue" and not (
                role in LANCELOTS and config.options.get("lancelot")):
            return roles.index(role)
    return None


def hide_secrets(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """A copy of ``state`` where everything ``seat`` may not know is changed (``None``: the public).

    Changed for the other seats: role and side (dealt among them again, before the end), what they
    learned, their vote (the value only), their quest card unless it was played face up, their count of
    Good Message cards, the Senior/Junior Messenger ranks, and any hidden decision they are making.
    """
    s = GameState.model_validate(state.model_dump())
    n = s.n
    others = [x for x in range(n) if x != seat]
    if not s.over:
        dealt = [(s.roles[x], s.sides[x]) for x in others]
        rng.shuffle(dealt)
        for x, (role, side) in zip(others, dealt, strict=True):
            s.roles[x], s.sides[x] = role, side
    plot = s.mods.get("plot_cards", {})
    face_up = set(plot.get("face_up", []))
    for x in others:
        s.knowledge[x] = [k.model_copy(update={"label": "hidden"}) for k in s.knowledge[x]]
        s.knowledge[x].append(Knowledge(seat=rng.randrange(n), label="evil", source="reveal"))
        if x in s.votes:
            s.votes[x] = not s.votes[x]
        if x in s.cards and x not in face_up:
            s.cards[x] = rng.choice(sorted(CARDS))
    messengers = s.mods.get("messengers")
    if messengers:
        for x in others:
            messengers["used"][x] = rng.randrange(3)
        ranks = (messengers.get("senior"), messengers.get("junior"))
        if None not in ranks and seat not in ranks:
            messengers["senior"], messengers["junior"] = ranks[1], ranks[0]
    for p in s.pending:
        if p.hidden and seat not in p.actors:
            p.actors = [rng.choice(others)]
            p.data = {**p.data, "options": ["good", "evil"][: rng.randint(1, 2)]}
    return s


def setup_for(seed: int) -> GameConfig:
    """The first configuration the rules accept among ``random_setup``'s draws from ``seed``."""
    rng = random.Random(seed)
    while True:
        config = random_setup(rng)
        if config is not None:
            return config
