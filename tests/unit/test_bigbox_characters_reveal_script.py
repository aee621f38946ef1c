"""The Big Box full Reveal script (p. 11, "REVEAL STAGE SCRIPT") against engine.reveal_script."""
from __future__ import annotations

from engine import GameConfig, reveal_script

# Cleric, Merlin, Percival, Good Lancelot + 2 Servants; Morgana (the Assassin), Mordred, Oberon,
# Evil Lancelot: a 10-player game (6 Good, 4 Evil).
ROLES = [
    "cleric",
    "merlin",
    "percival",
    "good_lancelot",
    "servant",
    "servant",
    "morgana",
    "mordred",
    "oberon",
    "evil_lancelot",
]
CONFIG = GameConfig(players=10, roles=tuple(r for r in ROLES if r != "servant"), assassin="morgana")


def test_reveal_script_follows_the_big_box_full_script_order():
    script = reveal_script(CONFIG, ROLES)
    # "Leader, extend your thumb ... Cleric, open your eyes" / "Minions of Mordred - not Oberon - open
    # your eyes" / "... Merlin, open your eyes" / "... Percival, open your eyes" / "Lancelot, open your eyes".
    assert [step["step"] for step in script] == ["cleric", "evil", "merlin", "percival", "lancelot"]
    by = {step["step"]: step for step in script}
    assert by["cleric"]["look"] == ["cleric"] and by["cleric"]["shown_by"] == "leader"
    assert by["cleric"]["show"] == []  # no character shows: the Leader does, and only if Evil
    assert by["evil"]["mutual"] and set(by["evil"]["look"]) == {"morgana", "mordred", "evil_lancelot"}
    assert "oberon" not in by["evil"]["look"] + by["evil"]["show"]
    # "Minions of Mordred - not Mordred himself - extend your thumb so that Merlin will know of you".
    assert set(by["merlin"]["show"]) == {"morgana", "oberon", "evil_lancelot"}
    assert by["merlin"]["look"] == ["merlin"]
    assert set(by["percival"]["show"]) == {"merlin", "morgana"} and by["percival"]["look"] == ["percival"]
    assert by["lancelot"]["mutual"]
    assert set(by["lancelot"]["look"]) == set(by["lancelot"]["show"]) == {"good_lancelot", "evil_lancelot"}


def test_reveal_script_without_a_cleric_has_no_cleric_step():
    roles = [r for r in ROLES if r != "cleric"] + ["servant"]
    config = CONFIG.model_copy(update={"roles": tuple(r for r in CONFIG.roles if r != "cleric")})
    assert "cleric" not in [step["step"] for step in reveal_script(config, roles)]
