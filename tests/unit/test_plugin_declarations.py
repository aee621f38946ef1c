"""What plug-ins declare about themselves (``engine.plugin.Plugin``): recommended player counts, the
partners they need, the timer phase of their decisions, their games. The registry is walked so a new
plug-in is checked without being listed here; the generic rules that read the declarations must give
the same advice as the per-plug-in code they replaced (the expectations below were recorded from that
code, with its old issue codes, before the change).
"""
from __future__ import annotations

import pytest

from engine import ALL, ROLES, GameConfig, Theme, validate_config
from engine.basics import MAX_PLAYERS, MIN_PLAYERS
from engine.plugin import Needs, active_plugins
from gamebot.timing import policy

PHASES = {phase for phase, _ in policy.PHASES}


@pytest.mark.parametrize("plugin", sorted(ALL.values(), key=lambda p: p.id), ids=lambda p: p.id)
def test_every_plugin_declares_consistent_values(plugin):
    assert plugin.timer_phase in PHASES
    assert plugin.timer_phase not in ("join", "propose", "vote", "quest")  # the core stages' own phases
    assert plugin.themes and all(isinstance(t, Theme) for t in plugin.themes)
    if plugin.recommended_players is not None:
        assert MIN_PLAYERS < plugin.recommended_players <= MAX_PLAYERS
    if plugin.checks_loyalty_from is not None:
        assert MIN_PLAYERS <= plugin.checks_loyalty_from <= MAX_PLAYERS
    for need in plugin.needs:
        assert isinstance(need, Needs)
        assert need.level in ("error", "warning")
        assert need.code and need.message
        assert need.any_of or need.loyalty_check
        assert all(other in ALL and other != plugin.id for other in need.any_of)


def test_loyalty_checks_are_declared():
    assert {p.id for p in ALL.values() if p.checks_loyalty_from is not None} == {
        "lady_of_the_lake", "cleric", "plot_cards"}


def test_owner_phases_are_the_ones_the_timers_had():
    declared = {p.id: p.timer_phase for p in ALL.values() if p.timer_phase != "other"}
    assert declared == {
        "lady_of_the_lake": "lady",
        "assassination": "assassination",
        "untrustworthy_servant": "assassination",
        "excalibur": "excalibur",
        "plot_cards": "plot_cards",
        "trapper": "trapper",
        "rogue": "rogue",
        "loyalty": "loyalty",
    }


# The advice before the declarations, with the old codes: "<id>_recommended_<n>" became one code.
OLD_RECOMMENDED = {
    "lady_recommended_7": "lady_of_the_lake",
    "lancelot_recommended_7": "good_lancelot",
    "messengers_recommended_7": "messengers",
    "trapper_recommended_8": "trapper",
    "lunatic_recommended_7": "lunatic",
    "brute_recommended_7": "brute",
    "cleric_recommended_7": "cleric",
    "revealer_recommended_7": "revealer",
}

CASES = [
    (GameConfig(players=6, roles=("merlin", "assassin", "morgana"), options={"lady_of_the_lake": True}),
     [("error", "morgana_needs_percival", {}), ("warning", "lady_recommended_7", {})]),
    (GameConfig(players=6, roles=("good_lancelot", "assassin")),
     [("warning", "assassin_without_merlin", {}), ("error", "lancelot_pair", {"missing": "evil_lancelot"})]),
    (GameConfig(players=6, roles=("merlin", "assassin", "good_lancelot", "evil_lancelot")),
     [("warning", "lancelot_recommended_7", {})]),
    (GameConfig(players=6, roles=("merlin", "good_lancelot", "evil_lancelot", "lunatic"), options={"trapper": True}),
     [("warning", "lancelot_recommended_7", {}), ("warning", "lunatic_recommended_7", {}),
      ("warning", "trapper_recommended_8", {})]),
    (GameConfig(players=5, roles=("percival", "assassin", "trickster")),
     [("warning", "assassin_without_merlin", {}), ("warning", "percival_without_merlin", {}),
      ("warning", "percival_five_players", {}), ("warning", "trickster_needs_loyalty_check", {"role": "trickster"})]),
    (GameConfig(players=6, roles=("merlin", "troublemaker", "cleric", "brute", "revealer")),
     [("warning", "brute_recommended_7", {}), ("warning", "cleric_recommended_7", {}),
      ("warning", "revealer_recommended_7", {})]),
    (GameConfig(players=6, roles=("good_messenger", "good_messenger", "evil_messenger")),
     [("warning", "messengers_recommended_7", {})]),
    (GameConfig(players=7, roles=("merlin", "assassin", "trickster", "troublemaker"),
                options={"plot_cards": True, "trapper": True}),
     [("warning", "trapper_recommended_8", {})]),
    (GameConfig(players=6, roles=("merlin", "assassin", "trickster"), options={"plot_cards": True}),
     [("warning", "trickster_needs_loyalty_check", {"role": "trickster"})]),
    (GameConfig(players=10, roles=("merlin", "assassin", "percival", "morgana", "good_lancelot", "evil_lancelot",
                                   "lunatic"), options={"lady_of_the_lake": True, "trapper": True}),
     []),
    (GameConfig(theme=Theme.RESISTANCE, players=5, roles=(), options={"plot_cards": True}), []),
]


def _now(level: str, code: str, params: dict) -> tuple:
    """An old expectation in today's terms."""
    if code in OLD_RECOMMENDED:
        plugin = OLD_RECOMMENDED[code]
        return (level, "recommended_players", {"plugin": plugin, "players": int(code.rsplit("_", 1)[1])})
    return (level, code, params)


@pytest.mark.parametrize("config,before", CASES)
def test_generic_rules_give_the_same_advice_as_before(config, before):
    found = [(i.level, i.code, i.params) for i in validate_config(config)]
    expected = [_now(*old) for old in before]
    # The declared rules may add the plug-in's id to an issue's params: compare what was there before.
    assert [(lv, code, {k: p[k] for k in exp if k in p}) for (lv, code, p), (_, _, exp) in zip(found, expected,
                                                                                               strict=False)] \
        == expected
    assert len(found) == len(expected)


@pytest.mark.parametrize("role", sorted(r for r in ROLES if ROLES[r].recommended_players))
def test_recommended_only_below_the_count(role):
    n = ROLES[role].recommended_players
    codes = lambda players: [i.params.get("plugin") for i in validate_config(  # noqa: E731
        GameConfig(players=players, roles=(role,))) if i.code == "recommended_players"]
    if role in ("good_lancelot", "evil_lancelot"):
        return  # played as a pair: covered above
    assert role in codes(n - 1)
    assert role not in codes(n)


# Big Box card rules: the characters who may play a quest card of their own ("Only the Good Rogue may play
# Rogue Success", "Both Sorcerers may play Magic", "Each Good Messenger may only play a Good Message ...").
RULEBOOK_OWN_CARDS = {
    "good_rogue": ("rogue_success",), "evil_rogue": ("rogue_fail",), "good_sorcerer": ("magic",),
    "evil_sorcerer": ("magic",), "good_messenger": ("good_message",), "evil_messenger": ("evil_message",),
}
# Characters dealt only as a set (the Lancelots "always play together"; "Play with all three Messengers").
RULEBOOK_SETS = {
    "good_lancelot": ("good_lancelot", "evil_lancelot"), "evil_lancelot": ("good_lancelot", "evil_lancelot"),
    "good_sorcerer": ("good_sorcerer", "evil_sorcerer"), "evil_sorcerer": ("good_sorcerer", "evil_sorcerer"),
    "good_messenger": ("good_messenger", "good_messenger", "evil_messenger"),
    "evil_messenger": ("good_messenger", "good_messenger", "evil_messenger"),
}


def test_own_cards_and_sets_follow_the_rulebook():
    assert {r.id: r.own_cards for r in ROLES.values() if r.own_cards} == RULEBOOK_OWN_CARDS
    assert {r.id: r.dealt_as_set for r in ROLES.values() if r.dealt_as_set} == RULEBOOK_SETS


def _errors(config: GameConfig) -> list[str]:
    return [i.code for i in validate_config(config) if i.level == "error"]


@pytest.mark.parametrize("role", sorted(r for r in ROLES if ROLES[r].own_cards or ROLES[r].dealt_as_set))
def test_own_cards_are_on_the_table_and_sets_are_whole(role):
    """A character's own cards are added by a plug-in in play with it; its set is accepted whole and refused
    with any member missing."""
    plugin = ROLES[role]
    roles = plugin.dealt_as_set or (role,)
    assert role in roles and all(ROLES[r].dealt_as_set == plugin.dealt_as_set for r in roles)
    config = GameConfig(players=10, roles=("merlin", "assassin", *roles))
    assert _errors(config) == []
    in_play = {c for p in active_plugins(config) for c in p.quest_cards}
    assert set(plugin.own_cards) <= in_play
    for i in range(len(plugin.dealt_as_set)):
        partial = roles[:i] + roles[i + 1:]
        assert _errors(GameConfig(players=10, roles=("merlin", "assassin", *partial))), partial
