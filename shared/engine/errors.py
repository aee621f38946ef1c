"""Typed errors. Each carries a stable ``code`` (for translations) and an English ``reason``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import ConfigIssue


class IllegalAction(Exception):
    """An action the rules do not allow. The state it was applied to is left unchanged."""

    code = "illegal"

    def __init__(self, reason: str, code: str | None = None, **params: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        if code:
            self.code = code
        self.params = params

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.reason


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class WrongTeamSize(IllegalAction):
    code = "wrong_team_size"


class DuplicatePlayer(IllegalAction):
    code = "duplicate_player"


class InvalidTarget(IllegalAction):
    code = "invalid_target"


class NotOnTeam(IllegalAction):
    code = "not_on_team"


class CardNotAllowed(IllegalAction):
    code = "card_not_allowed"


class AlreadyActed(IllegalAction):
    code = "already_acted"


class InvalidChoice(IllegalAction):
    code = "invalid_choice"


class GameOver(IllegalAction):
    code = "game_over"


class InvalidConfig(ValueError):
    """A game configuration the rules forbid. ``problems`` lists every reason."""

    def __init__(self, problems: list[ConfigIssue]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))
