"""The bot's slash commands, as shown in Telegram's command menu, in every catalog language.

Each command is declared once, in :data:`COMMANDS`: its handler, whether it is for groups only, and
its place in the menu. Standard library and the catalogs only (the small ``setup_webhook`` Lambda reads
it from the layer and sends the menu to ``setMyCommands``; the dispatcher resolves the handlers). The descriptions are the catalogs'
``command.<name>`` entries: the default language's menu is registered without a ``language_code``
(every user whose language has no menu of its own sees it), each other language's with its code.
Telegram's limits: a command is 1-32 characters of lowercase letters, digits and underscores; a
description 1-256 characters.
"""
from __future__ import annotations

from dataclasses import dataclass

from gamebot.language import texts
from gamebot.language.markup import plain


@dataclass(frozen=True)
class Command:
    """A slash command: its name, the handler that runs it (``<module>.<function>`` of
    ``gamebot.handlers``, resolved by ``gamebot.core.dispatch`` at import) and whether it works in a
    group only (in private it is answered "only in a group")."""

    name: str
    handler: str
    group_only: bool = False


# Every command, declared here once, in the order of Telegram's menu and /help: the dispatcher's table,
# the menu ``setup_webhook`` registers and /help's list all come from it.
COMMANDS: tuple[Command, ...] = (
    Command("newgame", "lobby.cmd_newgame", group_only=True),
    Command("nextgame", "nextgame.cmd_nextgame", group_only=True),
    Command("practice", "practice.cmd_practice"),  # (private only: in a group its handler says why not)
    Command("status", "commands.cmd_status"),
    Command("rules", "commands.cmd_rules"),
    Command("help", "commands.cmd_help"),
    Command("stats", "statistics.cmd_stats"),
    Command("history", "statistics.cmd_history"),
    Command("votes", "votes.cmd_votes"),
    Command("language", "language.cmd_language"),
    Command("cancel", "commands.cmd_cancel"),  # (in private: a /practice game only)
    Command("leave", "lobby.cmd_leave", group_only=True),
    Command("extend", "timekeeper.cmd_extend", group_only=True),
    Command("forcestart", "timekeeper.cmd_forcestart", group_only=True),
    Command("idles", "timekeeper.cmd_idles", group_only=True),
    Command("start", "commands.cmd_start"),
)


def description(name: str, lang: str = texts.DEFAULT_LANG) -> str:
    """The menu's words for a command: plain text (Telegram shows a command's description as it is)."""
    return plain(texts.t(f"command.{name}", lang))[:256]


def commands(lang: str = texts.DEFAULT_LANG) -> list[tuple[str, str]]:
    """``(command, description)`` pairs in ``lang``."""
    return [(name, description(name, lang)) for name in (c.name for c in COMMANDS)]


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
