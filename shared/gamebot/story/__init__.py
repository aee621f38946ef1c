"""The story of a game, told from its public view only: the rounds as data (``by_round``), the end in
words (``end_text``), the votes so far (``votes_so_far``: /votes and the board's button), the Reveal in
words (``reveal_words``: /rules) and the picture of a game (``picture``, ``picture_draw``,
``picture_layout``; fonts in ``fonts/``).

May import: ``engine`` (public views), ``gamebot.language``, ``gamebot.presenter`` (tables, values,
event sentences), ``gamebot.botapi`` (a picture is sent as a Bot API operation), Pillow. Never hidden
state: what is drawn here may be shown to the whole group.
"""
