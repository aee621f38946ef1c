"""The messages a change causes: a game's state change (``game``), the lobby and the settings panel
(``views``, ``settings_panel``), whether the settings are playable and by which table
(``settings_check``), what a delivery calls for and the picture of a game (``notices``).

May import: ``engine``, ``gamebot.storage``, ``gamebot.language``, ``gamebot.botapi``,
``gamebot.presenter``, ``gamebot.story``, ``gamebot.timing``, ``gamebot.outbox``. Never the handlers.
"""
