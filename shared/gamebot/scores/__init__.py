"""Results across games: statistics of finished games per group and player (``stats``) and skill ratings
(``ratings``: openskill's Weng-Lin model, shown as 1000 + 10 x ordinal).

May import: ``gamebot.storage``, openskill.
"""
