"""Basic vocabulary of the game: sides, themes and the rulebook tables."""
from __future__ import annotations

from enum import StrEnum


class Side(StrEnum):
    GOOD = "good"
    EVIL = "evil"

    @property
    def other(self) -> Side:
        return Side.EVIL if self is Side.GOOD else Side.GOOD


class Theme(StrEnum):
    AVALON = "avalon"
    RESISTANCE = "resistance"


MIN_PLAYERS = 5
MAX_PLAYERS = 10
QUESTS = 5
WINS_NEEDED = 3
MAX_REJECTIONS = 5

# Rulebook setup chart (000, 002, 003): players -> (good, evil).
SIDES_BY_PLAYERS: dict[int, tuple[int, int]] = {
    5: (3, 2),
    6: (4, 2),
    7: (4, 3),
    8: (5, 3),
    9: (6, 3),
    10: (6, 4),
}

# Rulebook team chart: players -> team size for quests 1..5.
TEAM_SIZES: dict[int, tuple[int, int, int, int, int]] = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}


def fails_required(players: int, quest_slot: int) -> int:
    """The 4th quest (slot index 3) needs two Fails in games of 7 or more players."""
    return 2 if quest_slot == 3 and players >= 7 else 1
