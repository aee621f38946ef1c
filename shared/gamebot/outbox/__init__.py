"""The unit of work and what it hands on: what a decision is given (``context.Deps``: the repository,
the unit of work, the Bot API, the clock, the button codec, the bot's name, the scheduler); the unit of
work itself (``uow``: one read, the decision, one version-checked write that stores the update id and
the effects); what an attempt decides (``plan``); what a delivery sends and learns (``delivery``); the
delivery after the commit and its acknowledgement (``courier``).

May import: ``gamebot.storage``, ``gamebot.language``, ``gamebot.botapi`` (the Bot API operations),
``gamebot.presenter`` (the table a message is drawn for), ``gamebot.timing`` (the chat's alarm). Never
the messages of a game or the handlers.
"""
