"""Words: every user-facing string in one catalog per language (``texts``, ``locales/<code>.json``), plural
forms (``plurals``), Telegram HTML that is safe by construction (``markup``: user text reaches a message
only escaped) and wording that depends on the game in play (``wording``).

May import: ``engine`` (ids of roles and cards), Babel. No other room: every room may use these words.
"""
