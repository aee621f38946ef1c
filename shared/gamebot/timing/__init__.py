"""Time, as policy and alarms: the time limits (``policy``: phases, default limits, which phase a decision
is in, the deadline a session should have, the reminders), the chat's one alarm (``alarm``: when the chat
next wakes up, and how), the one-time timers (``scheduler``: EventBridge Scheduler, or in-process for the
playground and the tests) and the wake-up queue that wakes a chat to the second (``wakeup``: SQS, and
which of them a container uses). What happens when a timer fires is a handler
(``gamebot.handlers.timekeeper``); how a limit reads is ``gamebot.messages.time_limits``.

May import: ``engine``, ``gamebot.storage``, ``gamebot.language``, ``gamebot.botapi`` (a reminder is a
Bot API operation), ``gamebot.messages`` (the table and how a limit reads), ``gamebot.aws`` (the
scheduler's requests, and the wake-up queue's client: ``gamebot.aws.runtime_sdk``).
"""
