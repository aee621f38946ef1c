"""The story of a game: its rounds told back from its public view only, the same story at its end and
while it runs. The rounds as data (``by_round``), in words (``end_text``: the end's message, and the
history of a game in progress), the votes so far (``votes_so_far``: /votes and the board's button) and
the picture of a game (``picture``, ``picture_draw``, ``picture_layout``; fonts in ``fonts/``).

May import: ``engine`` (public views), ``gamebot.language``, ``gamebot.messages`` (tables, values,
event sentences), ``gamebot.botapi`` (a picture is sent as a Bot API operation), Pillow. Never hidden
state: what is drawn here may be shown to the whole group.
"""
