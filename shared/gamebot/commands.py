"""The bot's slash commands, as shown in Telegram's command menu.

A plain list of ``(command, English description)`` pairs with no imports, so that the small
``setup_webhook`` Lambda (standard library only) can read it from the layer and send it to
``setMyCommands``, and the update handler can use the same names. Telegram's limits: a command is
1-32 characters of lowercase letters, digits and underscores; a description 1-256 characters.
"""

COMMANDS: list[tuple[str, str]] = [
    ("newgame", "Open a new game of The Resistance or Avalon in this group"),
    ("status", "Show the game in this chat: players, missions, who acts next"),
    ("rules", "Explain the rules and the roles in play"),
    ("help", "List the commands and how to play"),
    ("cancel", "Cancel the game in this chat"),
    ("leave", "Leave the game before it starts"),
    ("extend", "Give the lobby more time to join (anyone in the lobby)"),
    ("forcestart", "Host: start now with the players who joined (5 to 10)"),
    ("idles", "Show who ran out of time, in this game and in all games here"),
    ("start", "Open a private chat with the bot so it can send you your secret role"),
]


def bot_api_commands() -> list[dict[str, str]]:
    """The list in the shape of the Bot API's ``BotCommand`` objects."""
    return [{"command": name, "description": text} for name, text in COMMANDS]
