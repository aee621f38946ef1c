"""The messages a change causes: a game's state change (``game``), the lobby and the settings panel
(``views``), what a delivery calls for and the picture of a game (``notices``)."""
