"""What is stored: the repository interface (versioned items, version-checked writes: ``store``), the
chat's session and the user's record (``session``), the AI seats (``seats``: their ids, their next
move), the effects a committed step stores until they are
delivered and the group's message budget (``effects``), how a body is packed (``packing``: zlib with a
preset dictionary, ``zdict/``), the items kept apart from the chat's item (``subscribers``,
``idle_record``), what a damaged item still gives (``recovery``) and the engine state parsed once per
stored text (``state_cache``).

May import: ``engine``, pydantic. No other room: everything else builds on this one. Nothing here does
I/O itself (the repository's DynamoDB implementation is ``gamebot.aws.dynamo``).
"""
