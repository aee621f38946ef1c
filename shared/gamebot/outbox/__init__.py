"""The outbox: what a step stores to send, and when it goes out. A step's messages are stored with its
state in one version-checked write and delivered after it (a transactional outbox): the unit of work
(``uow``: one read, the decision, one write that stores the update id and the effects), what an attempt
decides (``plan``), a message as a stored effect and back, and what its delivery learns (``delivery``),
the delivery after the commit and its acknowledgement (``courier``).

May import: ``gamebot.storage``, ``gamebot.language``, ``gamebot.botapi`` (the Bot API operations),
``gamebot.timing`` (the chat's alarm). Never what a message says or the handlers: the service hands the
unit of work what it needs of them (``settle``, ``refresh``, ``follow_up``).
"""
