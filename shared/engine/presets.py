"""Named game configurations ("presets") a host can pick instead of choosing every character.

Each preset names the special characters and options; some grow with the table (``roles`` maps a
minimum player count to the characters used from that count up). ``presets_for(n)`` lists the presets
valid for ``n`` players; ``preset_config(id, n)`` builds the :class:`GameConfig`. Every preset is a
configuration ``validate_config`` accepts without errors or warnings for each count it claims.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .basics import MAX_PLAYERS, MIN_PLAYERS, Theme
from .errors import InvalidConfig
from .models import ConfigIssue, GameConfig


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    description: str
    min_players: int
    max_players: int
    # minimum player count -> special characters from that count up (the largest key <= n applies)
    roles: dict[int, tuple[str, ...]]
    options: dict[str, Any] = field(default_factory=dict)
    theme: Theme = Theme.AVALON
    assassin: str | None = None

    @property
    def players(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def roles_for(self, players: int) -> tuple[str, ...]:
        return self.roles[max(k for k in self.roles if k <= players)]

    def config(self, players: int) -> GameConfig:
        if players not in self.players:
            raise InvalidConfig(
                [
                    ConfigIssue(
                        level="error",
                        code="preset_players",
                        message=f"The preset '{self.name}' is for {self.min_players} to {self.max_players} players.",
                        params={"preset": self.id, "players": players},
                    )
                ]
            )
        return GameConfig(
            theme=self.theme,
            players=players,
            roles=self.roles_for(players),
            options=dict(self.options),
            assassin=self.assassin,
        )


_BASE = ("merlin", "assassin")

PRESETS: dict[str, Preset] = {
    p.id: p
    for p in (
        Preset(
            "resistance",
            "The Resistance",
            "Resistance operatives and Spies, no special characters.",
            MIN_PLAYERS,
            MAX_PLAYERS,
            {MIN_PLAYERS: ()},
            theme=Theme.RESISTANCE,
        ),
        Preset(
            "classic",
            "Classic Avalon",
            "Merlin and the Assassin with Loyal Servants and Minions.",
            MIN_PLAYERS,
            MAX_PLAYERS,
            {MIN_PLAYERS: _BASE},
        ),
        Preset(
            "percival_morgana",
            "Percival and Morgana",
            "Percival looks for Merlin; Morgana poses as Merlin.",
            MIN_PLAYERS,
            MAX_PLAYERS,
            {MIN_PLAYERS: _BASE + ("percival", "morgana")},
        ),
        Preset(
            "mordred_oberon",
            "Mordred and Oberon",
            "Mordred hides from Merlin; Oberon is an Evil loner.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("mordred", "oberon")},
        ),
        Preset(
            "full_avalon",
            "All base characters",
            "Merlin, Percival, the Assassin, Morgana and Mordred; Oberon joins at 10 players.",
            7,
            MAX_PLAYERS,
            {
                7: _BASE + ("percival", "morgana", "mordred"),
                10: _BASE + ("percival", "morgana", "mordred", "oberon"),
            },
        ),
        Preset(
            "lady_of_the_lake",
            "Lady of the Lake",
            "Percival and Morgana, and the Lady of the Lake checks loyalties.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("percival", "morgana")},
            options={"lady_of_the_lake": True},
        ),
        Preset(
            "lancelot",
            "Lancelot",
            "The two Lancelots know each other and each other's allegiance.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("good_lancelot", "evil_lancelot")},
        ),
        Preset(
            "lancelot_switch",
            "Lancelot switches sides",
            "Big Box Variant 1: an Allegiance card is drawn at every quest; Switch swaps the Lancelots.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("good_lancelot", "evil_lancelot")},
            options={"lancelot": "bigbox_switch"},
        ),
        Preset(
            "lancelot_predealt",
            "Lancelot knows his fate",
            "Big Box Variant 2: the Allegiance cards lie face up above the quests; Evil Lancelot must Fail.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("good_lancelot", "evil_lancelot")},
            options={"lancelot": "bigbox_predealt"},
        ),
        Preset(
            "bigbox_mix",
            "Big Box mix",
            "Percival, Morgana, the Cleric and the Brute; the Lunatic joins at 10 players.",
            7,
            MAX_PLAYERS,
            {
                7: _BASE + ("percival", "morgana", "cleric", "brute"),
                10: _BASE + ("percival", "morgana", "cleric", "brute", "lunatic"),
            },
        ),
        Preset(
            "liars",
            "Liars",
            "The Cleric checks the first Leader; the Trickster may lie, the Troublemaker must; Lady of the Lake.",
            7,
            MAX_PLAYERS,
            {7: _BASE + ("cleric", "trickster", "troublemaker")},
            options={"lady_of_the_lake": True},
        ),
        Preset(
            "untrustworthy",
            "Untrustworthy Servant",
            "The Untrustworthy Servant knows the Assassin, who may recruit them after three successes.",
            MIN_PLAYERS,
            MAX_PLAYERS,
            {MIN_PLAYERS: _BASE + ("percival", "morgana", "untrustworthy_servant")},
        ),
        Preset(
            "revealer",
            "Revealer",
            "Percival and Morgana; the Revealer shows themself after the second failed quest; Mordred joins at 10.",
            7,
            MAX_PLAYERS,
            {
                7: _BASE + ("percival", "morgana", "revealer"),
                10: _BASE + ("percival", "morgana", "mordred", "revealer"),
            },
        ),
    )
}


def presets_for(players: int) -> list[Preset]:
    """The presets that may be played with ``players`` players, in menu order."""
    return [p for p in PRESETS.values() if players in p.players]


def get_preset(preset_id: str) -> Preset:
    try:
        return PRESETS[preset_id]
    except KeyError:
        raise KeyError(f"There is no preset called '{preset_id}'.") from None


def preset_config(preset_id: str, players: int) -> GameConfig:
    """The configuration of preset ``preset_id`` for ``players`` players."""
    return get_preset(preset_id).config(players)
