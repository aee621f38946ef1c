"""What a message says: engine views, events and settings -> Telegram texts (HTML) and inline keyboards.
Pure: nothing here sends, stores or changes anything (which messages a step sends is ``gamebot.compose``).

Group messages are built ONLY from ``engine.public_view(state)`` and public events (``to is None``), so
nothing secret can reach the group before the end: the functions for the group draw from the public view
(``round_message`` asks the state only which decision it waits for, ``engine.waiting_for``, and its serial).
Private messages are built from ``engine.view(state, seat)`` and that seat's private events.

Everything is generic over the engine's plug-ins: names come from the text catalog (with a fallback
built from the id), prompts are drawn from the engine ``Prompt`` fields (pick / targets / choices /
optional / quests) and unknown events are rendered from their data, so new roles and modules appear
without changes here. Players never see raw data: a plug-in's public view entry gets its own short board
line (``view_lines.BOARD_LINES``) and history lines (``view_lines.HISTORY_LINES``); an event's data, a
prompt's info or an entry nobody wrote words for is shown field by field by its declared types
(``engine.event_types``: seats as names, quests as numbers, ids as names; ``values``), a plain value
through ``values.readable`` (nested data, None and empty things left out). An event's sentence may depend on its card or reason
(``ev.PlotCardPlayed.no_confidence``), and a sentence is only used when the event fills all its blanks.

Modules: ``table`` (the Table a message is drawn for, escaping), ``values`` (data as words), ``events``
(event sentences), ``view_lines`` (plug-ins' board and history lines), ``board``, ``vote`` (team picker,
vote message), ``round_message`` (the round's group message: votes, then the quest's cards),
``role_card``, ``prompts`` (private decisions), ``lobby`` (lobby, rules), ``settings`` (what the host
may choose, configuration problems), ``stats`` (/stats), ``reveal_words`` (the Reveal in words: /rules), ``time_limits`` (how a time limit reads).
This package's ``__init__`` imports nothing: import the module you need.

May import: ``engine`` (views and events), ``gamebot.language``, ``gamebot.storage``,
``gamebot.botapi`` (buttons and callback data), ``gamebot.scores`` (what /stats shows).
"""
