"""The bot around the engine: the Telegram layer, in rooms by concern, each a package whose docstring says
what lives there and what it may import (``tests/unit/test_code_layout.py`` holds each room to it).

From the bottom up (a room imports only rooms listed before it):

``language``  words: catalogs, plurals, safe HTML, wording
``storage``   what is stored: the repository interface, the chat's session, effects, packing
``scores``    statistics and ratings of finished games
``aws``       our own AWS client and the DynamoDB repository
``botapi``    Telegram I/O: the Bot API, inbound checks, callback data, buttons, commands, throttle
``messages``  what a message says: texts and keyboards from views, events and settings (pure)
``story``     a game's rounds told back: the end in words, the votes so far, the picture
``timing``    time limits, the chat's alarm, the one-time timers
``outbox``    what a step stores to send and when it goes out: the unit of work, the delivery after it
``compose``   which messages a step sends, as Bot API operations; what a decision is given
``handlers``  the features, and the steps they share
``core``      an update in, its answer out: the service, the runtime of a container, the dispatch

Beside the rooms, ``environment`` holds the deployment's settings (every environment variable, typed,
read there alone) and ``observe`` takes what the rooms report for the operator (a Bot API call failed, a
write lost its version check...: ``gamebot.core.metrics`` turns it into log fields and metrics); both import
the standard library only, and any room may import them.
"""
