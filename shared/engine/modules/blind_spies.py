"""Blind Spies (The Resistance variant): skip the spies' reveal, so Evil does not know Evil.

The Evil reveal step (``engine.reveal``) reads this option; this module owns the switch.
"""
from __future__ import annotations

from ..basics import Theme
from ..models import ConfigIssue, GameConfig
from ..plugin import Module, issue, register


@register
class BlindSpies(Module):
    id = "blind_spies"
    option = "blind_spies"
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        if "merlin" in config.roles:
            return [
                issue(
                    "warning",
                    "blind_spies_with_merlin",
                    "With Blind Spies, Evil players do not know each other; Merlin still sees them.",
                )
            ]
        return []
