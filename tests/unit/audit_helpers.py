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
from engine.models import Knowledge
from tests.helpers import GOOD_EVIL
from tests.unit.bigbox_helpers import oracle_cards

LANCELOTS = ("good_lancelot", "evil_lancelot")
PREDEALT = ("bigbox_predealt", "french_predealt")
VARIANTS = ("bigbox_switch", "classic_switch", "bigbox_predealt", "french_predealt")
GOOD_SINGLES = ("percival", "cleric", "troublemaker", "untrustworthy_servant", "good_rogue")
EVIL_SINGLES = ("mordred", "oberon", "lunatic", "brute", "revealer", "trickster", "evil_rogue")
# (Good cards, Evil cards) that always play together.
PAIRS = (
    (("good_lancelot",), ("evil_lancelot",)),
    (("good_sorcerer",), ("evil_sorcerer",)),
    (("good_messenger", "good_messenger"), ("evil_messenger",)),
)
OPTIONS = ("lady_of_the_lake", "targeting", "trapper", "excalibur", "plot_cards", "blind_spies")


def random_setup(rng: random.Random) -> GameConfig | None:
    """A random configuration, or None if the rules refuse it (the caller draws again)."""
    n = rng.randint(5, 10)
    if rng.random() < 0.15:
        options = {k: True for k in ("targeting", "blind_spies", "plot_cards") if rng.random() < 0.4}
        return GameConfig(theme=Theme.RESISTANCE, players=n, roles=(), options=options)
    good_seats, evil_seats = GOOD_EVIL[n]
    good: list[str] = ["merlin"] if rng.random() < 0.7 else []
    evil: list[str] = ["assassin"] if rng.random() < 0.6 else []
    for g, e in PAIRS:
        if rng.random() < 0.3 and len(good) + len(g) <= good_seats and len(evil) + len(e) <= evil_seats:
            good += g
            evil += e
    for pool, chosen, seats in ((GOOD_SINGLES, good, good_seats), (EVIL_SINGLES, evil, evil_seats)):
        for role in rng.sample(pool, len(pool)):
            if rng.random() < 0.3 and len(chosen) < seats:
                chosen.append(role)
    if "percival" in good and len(evil) < evil_seats and rng.random() < 0.5:
        evil.append("morgana")
    options: dict = {k: True for k in OPTIONS if rng.random() < 0.3}
    if "good_lancelot" in good and rng.random() < 0.7:
        options["lancelot"] = rng.choice(VARIANTS)
    if "evil_sorcerer" in evil and rng.random() < 0.5:
        options["sorcerer_hidden"] = True
    if "evil_messenger" in evil and rng.random() < 0.5:
        options["senior_junior_messengers"] = True
    config = GameConfig(players=n, roles=tuple(good + evil), options=options)
    if [i for i in validate_config(config) if i.level == "error"]:
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
            s.cards[x] = rng.choice(["success", "fail", "magic", "rogue_fail", "good_message"])
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
