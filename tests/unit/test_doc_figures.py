"""The figures the README and docs/*.md quote that are constants of the code (a default, a limit, a
size, a count the code fixes) agree with the code.

Each check reads a doc's sentence (whitespace and line breaks folded) and the code's constant. Figures a
benchmark measures are checked by ``scripts/check_doc_figures.py`` (minutes, not part of the tests);
timings are dated in the docs, never checked here (they depend on the machine).
"""
from __future__ import annotations

import importlib
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@cache
def doc(name: str) -> str:
    """A doc's text with every run of whitespace folded to one space (a sentence may wrap anywhere)."""
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())


def quoted(name: str, pattern: str) -> list[str]:
    """Every figure ``pattern``'s group 1 finds in ``name`` (at least one, or the sentence is gone)."""
    found = [m.group(1) for m in re.finditer(pattern, doc(name))]
    assert found, f"{name}: no sentence matches {pattern!r} (reworded? update this test with it)"
    return found


def script(name: str) -> ModuleType:
    """A module of ``scripts/`` (a benchmark's constants and pure parts)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "scripts"))


def number(text: str) -> float:
    return float(text.replace(",", ""))


# ---------------------------------------------------------------------------------------------------
# The README's configuration table against gamebot.environment
# ---------------------------------------------------------------------------------------------------


def config_rows() -> list[tuple[list[str], str, str]]:
    """(the variables a row names, its meaning, its default) for each row of the README's table."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| variable | meaning | default |")
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert len(cells) == 3, line
        rows.append((re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[0]), cells[1], cells[2]))
    return rows


def read_variables() -> set[str]:
    """Every variable ``gamebot.environment`` reads (the endpoint overrides by their documented names)."""
    from gamebot import environment

    names = set(environment._READ)
    names |= {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}  # ``aws_credentials``
    names |= {f"AWS_ENDPOINT_URL_{s}" for s in ("DYNAMODB", "SCHEDULER", "SQS", "SSM")}  # the services we call
    return names


def test_the_configuration_table_names_each_variable_once():
    named = [name for names, _, _ in config_rows() for name in names]
    twice = sorted({n for n in named if named.count(n) > 1})
    assert not twice, f"named in more than one row (or twice in one): {twice}"


def test_the_configuration_table_names_every_variable_the_bot_reads_and_no_other():
    named = {name for names, _, _ in config_rows() for name in names}
    assert named == read_variables(), (
        f"missing from the README: {sorted(read_variables() - named)}; not read: {sorted(named - read_variables())}")


def test_the_configuration_tables_defaults_are_the_codes():
    from gamebot import environment
    from gamebot.storage.effects import Budget

    unset = environment.Environment.read({})
    default = {name: cell for names, _, cell in config_rows() for name in names}
    assert default["GAME_ARCHIVE_DAYS"] == f"{unset.archive_days:g}"
    assert default["LOG_LEVEL"] == f"`{unset.log_level}`"
    assert default["TELEGRAM_API_BASE_URL"] == f"`{unset.api_base_url}`"
    assert unset.group_messages_per_minute is None  # unset: the Budget's own default
    assert default["GROUP_MESSAGES_PER_MINUTE"] == str(Budget().limit)
    assert default["AWS_REGION"].startswith(f"`{unset.aws_region}`")
    assert unset.player_throttle and default["PLAYER_THROTTLE"] == "on"
    assert default["AWS_LAMBDA_FUNCTION_NAME"] == "set by Lambda"


def test_what_the_configuration_table_says_the_stack_sets_the_stack_sets():
    from tests.unit.cfn_template import environment

    stack = set(environment("WebhookFunction")) | set(environment("TimerFunction"))
    said = {name for names, _, cell in config_rows() for name in names if cell == "set by the stack"}
    assert said and said <= stack, sorted(said - stack)
    # (and what the stack sets is in the table: the test above holds the table to what the bot reads)
    assert stack <= {name for names, _, _ in config_rows() for name in names}, sorted(stack)


def test_the_configuration_tables_wake_up_figures_are_the_codes():
    from gamebot.timing import wakeup

    meaning = {name: text for names, text, _ in config_rows() for name in names}
    far = re.search(r"further off than (\d+) minutes \(set (\d+) s ahead", meaning["SCHEDULE_GROUP"])
    assert far is not None and (int(far[1]) * 60, int(far[2])) == (wakeup.QUEUE_WINDOW, wakeup.EARLY)
    queue = re.search(r"due within (\d+) minutes .* hops of (\d+) minutes", meaning["WAKE_QUEUE_URL"])
    assert queue is not None and (int(queue[1]) * 60, int(queue[2]) * 60) == (wakeup.QUEUE_WINDOW, wakeup.QUEUE_MAX)


# ---------------------------------------------------------------------------------------------------
# Constants quoted in sentences: (doc, pattern whose group 1 is the figure, the code's value)
# ---------------------------------------------------------------------------------------------------


def constants() -> dict[str, float]:
    from gamebot.aws import client, transport
    from gamebot.botapi import callbacks, telegram_io, throttle
    from gamebot.compose import context
    from gamebot.core import runtime
    from gamebot.handlers import practice, timekeeper
    from gamebot.outbox import courier
    from gamebot.scores import ratings, stats
    from gamebot.storage import effects, idle_record, lifetimes, packing, seats, subscribers
    from gamebot.timing import policy, wakeup

    return {
        "DAY": lifetimes.DAY / 3600, "YEAR": lifetimes.YEAR / 86_400, "MAX_NOTES": lifetimes.MAX_NOTES,
        "NOTE_MARGIN": lifetimes.NOTE_MARGIN / 3600,
        "update#": lifetimes.kind_of("update#1").life / 3600, "refused#": lifetimes.kind_of("refused#1#2").life / 3600,
        "next SHARDS": subscribers.SHARDS, "next LAST": subscribers.SHARDS - 1, "PER_SHARD": subscribers.PER_SHARD,
        "idle SHARDS": idle_record.SHARDS, "idle LAST": idle_record.SHARDS - 1, "PLAYERS": idle_record.PLAYERS,
        "MAX_PLAYERS_PER_CHAT": stats.MAX_PLAYERS_PER_CHAT, "MAX_GROUPS_PER_USER": stats.MAX_GROUPS_PER_USER,
        "MIN_HUMANS": stats.MIN_HUMANS, "MIN_HUMANS_WITH_AI_SEATS": stats.MIN_HUMANS_WITH_AI_SEATS,
        "RANKED_AFTER": ratings.RANKED_AFTER, "COMPRESS_ABOVE": packing.COMPRESS_ABOVE / 1024,
        "BURST": throttle.BURST, "PER_SECOND": throttle.PER_SECOND, "MAX_PLAYERS": throttle.MAX_PLAYERS,
        "GROUP_LIMIT": effects.GROUP_LIMIT, "PROGRESS_GAP": effects.PROGRESS_GAP, "GIVE_UP": courier.GIVE_UP,
        "IN_FLIGHT": courier.IN_FLIGHT, "QUEUE_WINDOW": wakeup.QUEUE_WINDOW / 60,
        "QUEUE_WINDOW s": wakeup.QUEUE_WINDOW, "EARLY": wakeup.EARLY,
        "QUEUE_MAX": wakeup.QUEUE_MAX / 60, "FLOOD_WAIT": runtime.FLOOD_WAIT, "FLOOD_MARGIN": runtime.FLOOD_MARGIN,
        "INLINE_WAIT": telegram_io.INLINE_WAIT, "ANSWER_RESERVE": runtime.ANSWER_RESERVE,
        "MAX_ATTEMPTS": client.MAX_ATTEMPTS, "CONNECT_TIMEOUT": transport.CONNECT_TIMEOUT,
        "READ_TIMEOUT": transport.READ_TIMEOUT, "MAX_BYTES": callbacks.MAX_BYTES,
        "EXTEND": policy.EXTEND_SECONDS / 60, "MAX_EXTENSIONS": policy.MAX_EXTENSIONS,
        "REMIND_MIN_LIMIT": policy.REMIND_MIN_LIMIT / 60, "IDLES_SHOWN": timekeeper.IDLES_SHOWN,
        "MAX_AI_SEATS": seats.MAX_AI_SEATS, "MAX_PLAYERS_AT_TABLE": context.MAX_PLAYERS,
        "MIN_DELAY": seats.MIN_DELAY, "MAX_DELAY": seats.MAX_DELAY, "MIN_AI_SEATS": practice.MIN_AI_SEATS,
        "DEFAULT_AI_SEATS": practice.DEFAULT_AI_SEATS,
    }


QUOTED = [
    # the Data list: each kind's life and bounds (gamebot.storage.lifetimes, subscribers, idle_record, stats)
    ("README.md", r"`update#<id>` \(a command answered; a (day)\)", "DAY", {"day": 24}),
    ("README.md", r"`update#<id>`, expiring after a (day)\)", "update#", {"day": 24}),
    ("README.md", r"`refused#<chat>#<user>` \(a player's presses refused .*? a (day) from its first note", "refused#",
     {"day": 24}),
    ("README.md", r"`refused#<chat>#<user>` \(a player's .*? at most (\d+) notes", "MAX_NOTES", {}),
    ("README.md", r"`refused#<chat>#<user>`, one attribute per update id.*? at most (\d+) notes", "MAX_NOTES", {}),
    ("README.md", r"a note made in its item's last (hour) starts the next item", "NOTE_MARGIN", {"hour": 1}),
    ("README.md", r"`chat#<id>`: the group's session.*? Lives a (year) after its last write", "YEAR", {"year": 365}),
    ("README.md", r"`next#<chat>#<k>` \(k = 0–(\d+)\)", "next LAST", {}),
    ("README.md", r"the `/nextgame` subscribers \(user id % (\d+);", "next SHARDS", {}),
    ("README.md", r"subscribers \(user id % \d+; at most ([\d,]+) an item\)", "PER_SHARD", {}),
    ("README.md", r"`idle#<chat>#<k>` \(k = 0–(\d+)\)", "idle LAST", {}),
    ("README.md", r"the idle record of all games \(user id % (\d+);", "idle SHARDS", {}),
    ("README.md", r"the ([\d,]+) most idle an item", "PLAYERS", {}),
    ("README.md", r"the rating table of its (\d+) most active players", "MAX_PLAYERS_PER_CHAT", {}),
    ("README.md", r"in each of their (\d+) latest groups", "MAX_GROUPS_PER_USER", {}),
    ("README.md", r"every item compressed by `gamebot.storage.packing` when over (\d+) KB", "COMPRESS_ABOVE", {}),
    # statistics and ratings
    ("README.md", r"with fewer than (\d+) humans", "MIN_HUMANS", {}),
    ("README.md", r"then (\d+) people suffice", "MIN_HUMANS_WITH_AI_SEATS", {}),
    ("README.md", r"ranked after (\d+) games", "RANKED_AFTER", {}),
    ("README.md", r"once a player has (\d+) rated games", "RANKED_AFTER", {}),
    # the throttle, the group's budget, the courier
    ("README.md", r"(\d+) presses or commands at once, then \d+ a second", "BURST", {}),
    ("README.md", r"\d+ presses or commands at once, then (\d+) a second", "PER_SECOND", {}),
    ("README.md", r"between updates \(the ([\d,]+) players seen last", "MAX_PLAYERS", {}),
    ("README.md", r"tried again later, up to (\d+) times", "GIVE_UP", {}),
    ("README.md", r"at most (\d+) calls in flight", "IN_FLIGHT", {}),
    ("README.md", r"at most every (\d+) s per message \(`PROGRESS_GAP`", "PROGRESS_GAP", {}),
    ("README.md", r"Progress edits at most every (\d+) s per message", "PROGRESS_GAP", {}),
    ("docs/OPERATIONS.md", r"About (\d+) messages and edits a minute in one group\.\*\* The bot keeps to this",
     "GROUP_LIMIT", {}),
    # wake-ups and Telegram's flood control
    ("README.md", r"an alarm due within (\d+) minutes \(`QUEUE_WINDOW`\)", "QUEUE_WINDOW", {}),
    ("README.md", r"set `EARLY` \((\d+) s\) ahead", "EARLY", {}),
    ("README.md", r"with (\d+) minutes \(`QUEUE_MAX`", "QUEUE_MAX", {}),
    ("README.md", r"wake-ups due within (\d+) minutes, each delayed to its second", "QUEUE_WINDOW", {}),
    ("README.md", r"the wake-ups further off, set (\d+) s ahead", "EARLY", {}),
    ("docs/OPERATIONS.md", r"at most (\d+) s before it is due: the queue takes only the alarms due within",
     "QUEUE_WINDOW s", {}),
    ("docs/OPERATIONS.md", r"waits? out (?:Telegram's )?429s,? for at most (\d+) s an invocation", "FLOOD_WAIT", {}),
    ("docs/OPERATIONS.md", r"never within (\d+) s of (?:its|the function's) timeout", "FLOOD_MARGIN", {}),
    ("docs/OPERATIONS.md", r"a `retry_after` of (\d+) s or less is waited out", "INLINE_WAIT", {}),
    # our AWS client
    ("README.md", r"short backoff \((\d+) attempts;", "MAX_ATTEMPTS", {}),
    ("README.md", r"connect timeout (\d+) s, read timeout \d+ s", "CONNECT_TIMEOUT", {}),
    ("README.md", r"connect timeout \d+ s, read timeout (\d+) s", "READ_TIMEOUT", {}),
    ("README.md", r"AWS requests a deadline (\d+) s before its timeout", "ANSWER_RESERVE", {}),
    ("README.md", r"signs `callback_data` \(≤ (\d+) bytes", "MAX_BYTES", {}),
    # time limits, /extend, /idles
    ("README.md", r"`/extend` \| group \| anyone in the lobby: (\d+) more minutes", "EXTEND", {}),
    ("README.md", r"more minutes to join \(at most (\d+) times\)", "MAX_EXTENSIONS", {}),
    ("README.md", r"none under (\d+) minutes\)", "REMIND_MIN_LIMIT", {}),
    ("README.md", r"in all games of the group \(the (\d+) who did most\)", "IDLES_SHOWN", {}),
    ("docs/TIMERS.md", r"\(the (\d+) who did most\)", "IDLES_SHOWN", {}),
    # AI seats and /practice
    ("README.md", r"seat the bot's own players, until the table has (\d+) players", "MAX_PLAYERS_AT_TABLE", {}),
    ("README.md", r"until the table has \d+ players \(up to (\d+) of them\)", "MAX_AI_SEATS", {}),
    ("README.md", r"sets their move (\d+) or \d+ s ahead", "MIN_DELAY", {}),
    ("README.md", r"sets their move \d+ or (\d+) s ahead", "MAX_DELAY", {}),
    ("docs/OPERATIONS.md", r"sets their move (\d+) or \d+ s ahead", "MIN_DELAY", {}),
    ("docs/OPERATIONS.md", r"sets their move \d+ or (\d+) s ahead", "MAX_DELAY", {}),
    ("README.md", r"`/practice \[(\d+)-\d+\]", "MIN_AI_SEATS", {}),
    ("README.md", r"`/practice \[\d+-(\d+)\]", "MAX_AI_SEATS", {}),
    ("README.md", r"opens a lobby of you and (\d+) bots there", "DEFAULT_AI_SEATS", {}),
]


@pytest.mark.parametrize(("name", "pattern", "constant", "words"), QUOTED,
                         ids=[f"{q[0]}:{q[2]}:{i}" for i, q in enumerate(QUOTED)])
def test_a_quoted_constant_is_the_codes(name, pattern, constant, words):
    want = constants()[constant]
    for figure in quoted(name, pattern):
        value = words[figure] if figure in words else number(figure)
        assert value == want, f"{name} says {figure!r} ({pattern!r}); the code's {constant} is {want:g}"


def test_the_readmes_time_limits_are_the_policys():
    from gamebot.timing import policy

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    choices = re.search(r"\(each: off, ([\d, ]+) or (\d+) minutes;", " ".join(text.split()))
    assert choices is not None
    offered = [int(n) for n in choices[1].split(", ")] + [int(choices[2])]
    assert [0] + [m * 60 for m in offered] == list(policy.CHOICES)
    phases = {"joining": ["join"], "team proposal": ["propose"], "vote": ["vote"], "quest cards": ["quest"],
              "Lady of the Lake": ["lady"], "assassination": ["assassination"], "Excalibur": ["excalibur"],
              "Plot cards": ["plot_cards"], "Trapper, Rogue Watch": ["trapper", "rogue"],
              "loyalty cards": ["loyalty"], "other decisions": ["other"]}
    rows = dict(re.findall(r"^\| ([^|]+?) \| (\d+) min \|", text, re.M))
    assert set(rows) == set(phases), sorted(set(rows) ^ set(phases))
    for row, names in phases.items():
        assert all(policy.DEFAULT_LIMITS[p] == int(rows[row]) * 60 for p in names), row
    assert set(policy.DEFAULT_LIMITS) == {p for names in phases.values() for p in names}


def test_docs_timers_limits_reminders_and_schedules_are_the_codes():
    from gamebot.timing import alarm, policy
    from gamebot.timing.scheduler import EventBridgeScheduler

    rows = re.findall(r"^\| [^|]+ \(`(\w+)`\) \| (\d+) min \| (\d+) min before \|",
                      (ROOT / "docs" / "TIMERS.md").read_text(encoding="utf-8"), re.M)
    assert {phase for phase, _, _ in rows} == set(policy.DEFAULT_LIMITS)
    for phase, limit, lead in rows:
        assert (int(limit) * 60, int(lead) * 60) == (policy.DEFAULT_LIMITS[phase],
                                                     policy.remind_lead(policy.DEFAULT_LIMITS[phase])), phase
    choices = quoted("docs/TIMERS.md", r"Each limit can be \*\*off\*\* or ([\d, ]+ or \d+) minutes")
    assert choices == [", ".join(str(c // 60) for c in policy.CHOICES[1:-1]) + f" or {policy.CHOICES[-1] // 60}"]
    assert quoted("docs/TIMERS.md", r"A limit under (\d+) minutes has no reminder") == [
        str(policy.REMIND_MIN_LIMIT // 60)]
    assert quoted("docs/TIMERS.md", r"`/extend` — anyone in the lobby: (\d+ more minutes to join, at most \d+) times") == [
        f"{policy.EXTEND_SECONDS // 60} more minutes to join, at most {policy.MAX_EXTENSIONS}"]
    assert quoted("docs/TIMERS.md", r"is due by then \(within (\d+) s;") == [str(alarm.SOON)]
    retries = quoted("docs/TIMERS.md", r"a short retry policy \((\d+ retries within \d+) minutes\)")
    assert retries == [f"{EventBridgeScheduler.MAX_RETRIES} retries within {EventBridgeScheduler.MAX_EVENT_AGE // 60}"]


def test_docs_timers_wake_up_queue_is_the_templates():
    queue = template()["Resources"]["WakeQueue"]["Properties"]
    kept = quoted("docs/TIMERS.md", r"`WakeQueue` \(the wake-up queue: messages kept (1 hour, visibility timeout \d+ s, "
                  r"after \d+) receives")
    assert kept == [f"{queue['MessageRetentionPeriod'] // 3600} hour, visibility timeout {queue['VisibilityTimeout']} s, "
                    f"after {queue['RedrivePolicy']['maxReceiveCount']}"]
    assert queue["MessageRetentionPeriod"] == 3600


# ---------------------------------------------------------------------------------------------------
# The stack's figures (template.yaml) as the docs quote them
# ---------------------------------------------------------------------------------------------------


@cache
def template() -> dict:
    from tests.unit.cfn_template import template as parsed

    return parsed


def function(name: str, key: str) -> int:
    props = template()["Resources"][name]["Properties"]
    return int(props.get(key, template()["Globals"]["Function"][key]))


def test_the_functions_timeouts_and_memory_as_the_docs_say():
    webhook, timer = function("WebhookFunction", "Timeout"), function("TimerFunction", "Timeout")
    memory = {function(f, "MemorySize") for f in ("WebhookFunction", "TimerFunction")}
    assert quoted("docs/DEPLOY.md", r"`functions/webhook/app.lambda_handler`, (\d+) MB, \d+ s") == [str(*memory)]
    assert quoted("docs/DEPLOY.md", r"`functions/webhook/app.lambda_handler`, \d+ MB, (\d+) s") == [str(webhook)]
    assert quoted("docs/DEPLOY.md", r"`functions/timer/app.lambda_handler`, (\d+) s") == [str(timer)]
    assert quoted("README.md", r"\*\*(\d+) MB for the webhook and the timer function\*\*") == [str(*memory)]
    alarms = quoted("docs/OPERATIONS.md", r"webhook ([\d,]+ ms of \d+ s); timer ([\d,]+ ms of \d+ s)")
    assert alarms == [f"{webhook * 800:,} ms of {webhook} s"]
    assert re.search(rf"timer {timer * 800:,} ms of {timer} s\)", doc("docs/OPERATIONS.md"))
    assert quoted("docs/OPERATIONS.md", r"The webhook's (\d+) s leaves room") == [str(webhook)]


def test_the_stacks_limits_as_docs_deploy_says():
    resources, parameters = template()["Resources"], template()["Parameters"]
    api = resources["WebhookApi"]["Properties"]["DefaultRouteSettings"]
    assert quoted("docs/DEPLOY.md", r"throttled to (\d+ req/s \(burst \d+\))") == [
        f"{api['ThrottlingRateLimit']} req/s (burst {api['ThrottlingBurstLimit']})"]
    wake_ups = resources["TimerWakeUps"]["Properties"]
    assert quoted("docs/DEPLOY.md", r"`TimerWakeUps`: batches of up to (\d+)") == [str(wake_ups["BatchSize"])]
    retries = resources["TimerFunction"]["Properties"]["EventInvokeConfig"]
    assert quoted("docs/DEPLOY.md", r"retries an asynchronous invocation \(EventBridge Scheduler's\) (twice within \d+ "
                  r"minutes)") == [f"{'twice' if retries['MaximumRetryAttempts'] == 2 else '?'} within "
                                   f"{retries['MaximumEventAgeInSeconds'] // 60} minutes"]
    for name in ("GameArchiveDays", "LogRetentionDays"):
        assert quoted("docs/DEPLOY.md", rf"Parameter `{name}` \| [^|]*?\(default (\d+)\)") == [
            str(parameters[name]["Default"])]


def test_the_alarms_and_metrics_docs_operations_prices():
    from gamebot.core import metrics

    alarms = [n for n, body in template()["Resources"].items() if body["Type"] == "AWS::CloudWatch::Alarm"]
    assert quoted("docs/OPERATIONS.md", r"\| (\d+ alarms: \$[\d.]+) a month") == [f"{len(alarms)} alarms: ${len(alarms) * 0.1:.2f}"]
    typed = [n for n in metrics.METRICS if n in metrics.BY_UPDATE_TYPE]
    assert typed == ["Updates", "HandlerDuration"]
    most = len(metrics.METRICS) + len(typed) * len(metrics.UPDATE_TYPES)
    assert quoted("docs/OPERATIONS.md", r"\| (\d+ names on `\[Stack\]`.*?\((\d+) types\): at most \d+) metrics") == [
        f"{len(metrics.METRICS)} names on `[Stack]` (`gamebot.core.metrics.METRICS`), plus `Updates` and "
        f"`HandlerDuration` per update type ({len(metrics.UPDATE_TYPES)} types): at most {most}"]
    assert quoted("docs/OPERATIONS.md", r"each emitted only in the hours it has a value; about \$([\d.]+) a month") == [
        f"{most * 0.30:.2f}"]


def test_the_webhooks_max_connections_as_the_docs_say():
    source = (ROOT / "functions" / "setup_webhook" / "app.py").read_text(encoding="utf-8")
    found = re.search(r"^MAX_CONNECTIONS = (\d+)", source, re.M)
    assert found is not None
    assert quoted("README.md", r"`max_connections` (\d+)\)") == [found[1]]
    assert set(quoted("docs/OPERATIONS.md", r"`setWebhook` sets to (\d+)")) == {found[1]}


def source_constant(path: str, name: str) -> str:
    """``NAME = value`` at the top of a module outside the layer (read, not imported)."""
    found = re.search(rf"^{name} = ([\d_.]+)", (ROOT / path).read_text(encoding="utf-8"), re.M)
    assert found is not None, (path, name)
    return found[1].replace("_", "")


def test_the_playgrounds_wake_up_consumer_as_docs_playground_says():
    consumer = "localdev/wake_consumer.py"
    polled = quoted("docs/PLAYGROUND.md", r"\(`ReceiveMessage`, `WaitTimeSeconds=(\d+)`, up to \d+ messages\)")
    assert polled == [source_constant(consumer, "WAIT_SECONDS")]
    batch = quoted("docs/PLAYGROUND.md", r"\(`ReceiveMessage`, `WaitTimeSeconds=\d+`, up to (\d+) messages\)")
    assert batch == [source_constant(consumer, "BATCH")]
    hidden = quoted("docs/PLAYGROUND.md", r"the queue's visibility timeout, (\d+) s here")
    assert hidden == [source_constant(consumer, "VISIBILITY_TIMEOUT")]


def test_the_readmes_requests_per_move_are_the_benchmarks_targets():
    """The counts the README quotes are the targets ``tests/unit/test_requests_per_move.py`` holds every
    update to (the benchmark's ``TARGETS``)."""
    TARGETS = script("bench_requests").TARGETS
    assert quoted("README.md", r"\(measured: (\d+ reads \+ \d+ writes) per end") == [
        "{} reads + {} writes".format(*TARGETS["end of game"])]


def test_the_throttles_figures_are_what_it_lets_through():
    """``scripts/bench_spam.py``'s flood on the throttle alone (a virtual clock: a count, no timing)."""
    f = script("bench_spam").flood(30)
    one, ten = f["1s"]["reach_the_service"], f["10s"]["reach_the_service"]
    assert quoted("README.md", r"Against 30 presses in a second (\d+ reach the service, against 300 in ten "
                  r"seconds \d+)") == [f"{one} reach the service, against 300 in ten seconds {ten}"]
    assert quoted("docs/BENCHMARKS.md", r"the throttle lets (\d+ of 30 presses in a second reach the service, "
                  r"\d+ of 300) in ten seconds") == [f"{one} of 30 presses in a second reach the service, {ten} of 300"]
