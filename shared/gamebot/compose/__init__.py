"""Which messages a step sends, composed as Bot API operations (``Out``) from the session and the game's
state, with the texts of ``gamebot.messages``: what a decision is given (``context.Deps``: the repository,
the unit of work, the Bot API, the clock, the button codec, the bot's name, the scheduler), the messages
of a game's change (``game``: the board, the round message, the prompts, the end), the lobby and the
settings panel drawn again (``redraw``), the settings panel's pages (``settings_panel``;
what its buttons change is the handlers' decision) and whether the settings are playable, and by which table sizes (``settings_check``),
the follow-ups a delivery calls for and the picture of a game (``follow_up``).
Composing changes nothing: a builder returns messages, and the step that decided stores them.

May import: ``engine``, ``gamebot.storage``, ``gamebot.language``, ``gamebot.botapi``,
``gamebot.messages``, ``gamebot.story``, ``gamebot.timing``, ``gamebot.outbox``. Never the handlers.
"""
