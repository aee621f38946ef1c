"""The bot's slash commands, as shown in Telegram's command menu, in every catalog language.

Standard library only (the small ``setup_webhook`` Lambda reads it from the layer and sends it to
``setMyCommands``; the update handler uses the same names). The descriptions are the catalogs'
``command.<name>`` entries: the default language's menu is registered without a ``language_code``
(every user whose language has no menu of its own sees it), each other language's with its code.
Telegram's limits: a command is 1-32 characters of lowercase letters, digits and underscores; a
description 1-256 characters.
"""
from __future__ import annotations

from gamebot.language import texts
from gamebot.language.markup import plain

COMMAND_NAMES: list[str] = [
    "newgame",
    "nextgame",
    "status",
    "rules",
    "help",
    "stats",
    "history",
    "votes",
    "language",
    "cancel",
    "leave",
    "extend",
    "forcestart",
    "idles",
    "start",
]


def description(name: str, lang: str = texts.DEFAULT_LANG) -> str:
    """The menu's words for a command: plain text (Telegram shows a command's description as it is)."""
    return plain(texts.t(f"command.{name}", lang))[:256]


def commands(lang: str = texts.DEFAULT_LANG) -> list[tuple[str, str]]:
    """``(command, description)`` pairs in ``lang``."""
    return [(name, description(name, lang)) for name in COMMAND_NAMES]


def bot_api_commands(lang: str | None = None) -> list[dict[str, str]]:
    """The menu in the shape of the Bot API's ``BotCommand`` objects (default language if None)."""
    return [{"command": name, "description": text} for name, text in commands(lang or texts.DEFAULT_LANG)]


def menus() -> list[dict[str, object]]:
    """Every ``setMyCommands`` request to make: the default menu first, then one per other language."""
    out: list[dict[str, object]] = [{"commands": bot_api_commands()}]
    for lang in texts.languages():
        if lang != texts.DEFAULT_LANG:
            out.append({"commands": bot_api_commands(lang), "language_code": lang})
    return out
