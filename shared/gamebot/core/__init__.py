"""An update in, its answer out: the service (``service``: an update parsed, dispatched, committed,
answered and delivered), the Lambda container's shared runtime (``runtime``: one Bot, repository and
event loop, the invocation's deadline), which handler an update goes to (``dispatch``) and what the
operator sees of an invocation (``metrics``: its log fields and CloudWatch metrics, the observer the rooms
report to through ``gamebot.observe``; ``logs``: its log lines as JSON), and the bot token and webhook
secret read from SSM Parameter Store once per container (``secrets``).

May import: every other room, python-telegram-bot (the SSM read's client: ``gamebot.aws.runtime_sdk``).
Only the Lambda functions, the playground, the scripts and the tests import it.
"""
