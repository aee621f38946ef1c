"""Former home of the presenter (``gamebot.presenter``): the names the handlers still import from here.

A temporary facade while ``service``, ``extras`` and ``timers`` are being split; import from the
presenter's modules instead.
"""
from __future__ import annotations

from .presenter.board import board
from .presenter.events import announcements, private_events
from .presenter.lobby import lobby, rules_text
from .presenter.prompts import answered, choice_label, private_prompt, prompt_mode
from .presenter.role_card import role_card
from .presenter.settings import issue_text
from .presenter.table import MAX_TEXT, Btn, Table, esc
from .presenter.vote import proposal_line, team_picker, vote_message

__all__ = [
    "MAX_TEXT", "Btn", "Table", "announcements", "answered", "board", "choice_label", "esc", "issue_text",
    "lobby", "private_events", "private_prompt", "prompt_mode", "proposal_line", "role_card", "rules_text",
    "team_picker", "vote_message",
]
