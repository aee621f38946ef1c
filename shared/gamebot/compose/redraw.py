"""The group's messages kept current (the lobby, the board, the round's message) and the host's
settings panel, as they stand."""
from __future__ import annotations

from engine import ConfigIssue
from gamebot.botapi.telegram_io import Keyboard, Out
from gamebot.compose import settings_panel
from gamebot.compose.context import Deps
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages import lobby as lobby_text
from gamebot.messages import round_message
from gamebot.messages.board import board, board_keyboard
from gamebot.messages.settings import in_play, issue_text
from gamebot.messages.table import NL
from gamebot.storage import state_cache
from gamebot.storage.session import ENDED, LOBBY, PLAYING, Session


def lobby(deps: Deps, s: Session) -> tuple[Html, Keyboard]:
    """The lobby message and its buttons."""
    table = deps.table(s)
    host = next((p.name for p in s.players if p.id == s.host), None)
    assassin = settings_panel.assassin_label(table, s.settings, min(max(len(s.players), 5), 10))
    invited = [(p.id, p.name) for p in s.invited if s.seat_of(p.id) is None]
    # (an option that needs a character not chosen is not in the game: not in its summary either)
    options = in_play(s.settings.theme, s.settings.roles, s.settings.options)
    return lobby_text.lobby(table, host, list(s.settings.roles), options, deps.codec, assassin, invited,
                            practice=s.practice)


def settings_page(deps: Deps, s: Session, page: str, lang: str) -> tuple[Html, Keyboard]:
    """A page of the host's settings panel, in ``lang``."""
    pages = settings_panel.Pages(deps.table(s, lang), deps.codec, s.settings, len(s.players), s.lang,
                                 timers_enforced=deps.scheduler is not None)
    return pages.page(page)


def config_errors(deps: Deps, s: Session, lang: str, issues: list[ConfigIssue]) -> Html:
    """Why a setup cannot be played, for an alert in the host's language."""
    table = deps.table(s, lang)
    lines = NL.join(issue_text(table, i) for i in issues)
    return texts.t("lobby.config_errors", lang, errors=lines)


def refresh(deps: Deps, s: Session, view: str) -> Out | None:
    """The latest state of a group message kept current (``view``), when its last edit was held back
    by the group's budget: sent by a later update or the chat's alarm."""
    state = s.game() if s.status == PLAYING or s.status == ENDED else None
    table = deps.table(s)
    if view == "board" and s.board_msg and state is not None:
        return Out("edit", chat_id=s.chat_id, message_id=s.board_msg, essential=False, tag="board", view="board",
                   text=state_cache.board(board, table, state_cache.public(state), "ended" if state.over else "playing"),
                   keyboard=None if state.over else board_keyboard(table, deps.codec))
    if view == "vote" and state is not None:
        return round_message.refresh(s, table, deps.codec, state, state_cache.public(state))
    if view == "lobby" and s.lobby_msg and s.status == LOBBY:
        text, kb = lobby(deps, s)
        return Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, essential=False,
                   tag="lobby", view="lobby")
    return None
