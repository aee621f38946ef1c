"""Pure rules engine for The Resistance and Avalon. No I/O, no Telegram, no AWS.

Typical use::

    state, events = new_game(GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana")), seed=42)
    state, events = apply_action(state, Action(seat=state.leader, kind="propose", targets=(0, 3)))
"""
from .basics import Side, Theme, fails_required
from .errors import IllegalAction, InvalidConfig
from .models import Action, ConfigIssue, Event, GameConfig, GameState, Prompt
from .plugin import ALL, MODULES, ROLES, load_plugins

load_plugins()

from .game import (  # noqa: E402
    actors,
    allowed_cards,
    apply_action,
    legal_actions,
    new_game,
    prompts,
    replay,
    table_cards,
    validate_config,
    waiting_for,
)
from .reveal import reveal_script  # noqa: E402
from .views import public_view, view  # noqa: E402

__all__ = [
    "ALL",
    "MODULES",
    "ROLES",
    "Action",
    "ConfigIssue",
    "Event",
    "GameConfig",
    "GameState",
    "IllegalAction",
    "InvalidConfig",
    "Prompt",
    "Side",
    "Theme",
    "actors",
    "allowed_cards",
    "apply_action",
    "fails_required",
    "legal_actions",
    "new_game",
    "prompts",
    "public_view",
    "replay",
    "reveal_script",
    "table_cards",
    "validate_config",
    "view",
    "waiting_for",
]
