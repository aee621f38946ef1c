"""The features: each a module of public functions ``(deps, job, ...)`` that decide a plan in the unit of
work and deliver it (the lobby, settings (``settings_ops``: what a panel press changes), play, private prompts, membership, commands, language,
statistics, /votes, /nextgame, ``timekeeper``: what a timer does when it fires, /extend, /forcestart,
/idles, ``ai_seats``: the seats the bot plays itself, ``practice``: /practice), and the steps they share
(``handling``: run a decision, answer, deliver; ``selection``: what a keyboard of toggles has chosen so
far, and what it still misses). ``gamebot.core.dispatch`` maps an update to one of them.

May import: ``engine``, python-telegram-bot (the parsed update), and every room but ``core``.
"""
