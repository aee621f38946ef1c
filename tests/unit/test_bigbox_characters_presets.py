"""Presets (engine/presets.py): named configurations, each valid for every player count it claims."""
from __future__ import annotations

import random

import pytest

from engine import ROLES, GameConfig, InvalidConfig, new_game, validate_config
from engine.policy import play_to_end
from engine.presets import PRESETS, get_preset, preset_config, presets_for

CASES = [(p.id, n) for p in PRESETS.values() for n in p.players]


@pytest.mark.parametrize("preset_id,players", CASES)
def test_every_preset_validates_for_every_player_count_it_claims(preset_id, players):
    config = preset_config(preset_id, players)
    assert isinstance(config, GameConfig) and config.players == players
    assert validate_config(config) == []  # no errors and no warnings: presets are recommended setups
    assert all(r in ROLES for r in config.roles)


@pytest.mark.parametrize("players", range(5, 11))
def test_presets_for_lists_exactly_the_presets_valid_for_that_count(players):
    listed = {p.id for p in presets_for(players)}
    assert listed == {p.id for p in PRESETS.values() if players in p.players}
    assert {"classic", "percival_morgana"} <= listed
    for p in PRESETS.values():
        if p.id not in listed:
            with pytest.raises(InvalidConfig):
                p.config(players)


def test_the_expected_presets_exist():
    assert {"classic", "percival_morgana", "mordred_oberon", "lancelot", "bigbox_mix"} <= set(PRESETS)
    assert preset_config("classic", 5).roles == ("merlin", "assassin")
    assert preset_config("lancelot_switch", 8).options == {"lancelot": "bigbox_switch"}


def test_unknown_preset_is_refused():
    with pytest.raises(KeyError):
        get_preset("everything")


@pytest.mark.parametrize("preset_id", sorted(PRESETS))
def test_every_preset_plays_to_the_end(preset_id):
    preset = PRESETS[preset_id]
    for players in (preset.min_players, preset.max_players):
        state, _ = new_game(preset.config(players), players)
        state = play_to_end(state, random.Random(players))
        assert state.over and state.winner is not None
