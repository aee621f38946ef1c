"""An update in, its answer out: the service (``service``: an update parsed, dispatched, committed,
answered and delivered), the Lambda container's shared runtime (``runtime``: one Bot, repository and
event loop, the invocation's deadline) and which handler an update goes to (``dispatch``).

May import: every other room, python-telegram-bot. Only the Lambda functions, the playground, the
scripts and the tests import it.
"""
