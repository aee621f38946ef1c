"""Telegram I/O: the one module that calls the Bot API (``telegram_io``: operations, buttons, 429
``retry_after``, "not modified"), the shape of an incoming update checked at the edge (``inbound``), the
signed ``callback_data`` codec (``callbacks``) and the typed buttons built on it (``buttons``), every
slash command declared once, with its handler's name and its words in Telegram's menu (``commands``), the
bot's username for deep links (``bot_name``) and the per-player throttle (``throttle``).

May import: python-telegram-bot, ``gamebot.language``, ``gamebot.storage`` (the keys of the items a
button names). Nothing here decides a game.
"""
