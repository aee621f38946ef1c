"""template.yaml's operations side: every alarm watches a metric the bot emits (namespace AvalonBot, the
stack's dimension) or one of Lambda's or SQS's, and notifies the alarms' topic; an address is subscribed
only when AlarmEmail is given; the timers' dead-letter queue is the one the schedules' targets name and the
one its alarm watches; the wake-up queue's alarm fires only for wake-ups nothing consumes; every function
knows its stack's name; the dashboard shows every metric.
docs/OPERATIONS.md explains each alarm."""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gamebot.aws import dynamo
from gamebot.core import metrics
from gamebot.environment import Environment
from gamebot.timing.scheduler import EventBridgeScheduler, Timer
from gamebot.timing.wakeup import QUEUE_WINDOW, QueueScheduler, scheduler_from_env
from tests.unit.cfn_template import environment, functions, resources, template

NAMESPACE = metrics.NAMESPACE  # "AvalonBot"
STACK = [{"Name": "Stack", "Value": {"Ref": "AWS::StackName"}}]

# The names of the metrics the bot emits, from the contract of ISSUE28 (its table). TO CONNECT: once
# shared/gamebot/core/metrics.py is merged, read them from there (its constants or table) instead, so that
# this test compares the template's alarms and dashboard with what the code emits.
# the metrics the code emits (its one table): every alarm on the bot's namespace must watch one of them
BOT_METRICS = frozenset(metrics.METRICS)
AWS_METRICS = {"AWS/Lambda": {"Errors", "Throttles", "Duration"},
               "AWS/SQS": {"ApproximateNumberOfMessagesVisible", "ApproximateAgeOfOldestMessage",
                           "NumberOfMessagesSent"},
               "AWS/ApiGateway": {"4xx", "5xx"},
               "AWS/DynamoDB": {"ReadThrottleEvents", "WriteThrottleEvents", "SystemErrors"}}
TABLE_IN_USE = {"Fn::If": ["UseOwnTable", {"Ref": "GameTable"}, {"Ref": "TableName"}]}

alarms = {name: body["Properties"] for name, body in resources.items() if body["Type"] == "AWS::CloudWatch::Alarm"}


def watched(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """Every metric ``alarm`` reads: its own (Namespace, MetricName, Dimensions, Statistic), or each of its
    metric math's (``Metrics``: MetricStat entries), in the same shape."""
    if "Metrics" not in alarm:
        return [{"Namespace": alarm["Namespace"], "MetricName": alarm["MetricName"],
                 "Dimensions": alarm.get("Dimensions", []), "Statistic": alarm.get("Statistic")}]
    found = []
    for query in alarm["Metrics"]:
        if "MetricStat" in query:
            stat = query["MetricStat"]
            found.append({**stat["Metric"], "Statistic": stat["Stat"], "Period": stat["Period"]})
    return found


def _watching(namespace: str, metric: str) -> dict[str, dict[str, Any]]:
    """The alarms that read ``metric`` of ``namespace`` alone (not in metric math)."""
    return {n: a for n, a in alarms.items() if "Metrics" not in a and (a["Namespace"], a["MetricName"]) == (namespace, metric)}


def test_every_alarm_watches_a_metric_the_bot_emits_in_this_stack_or_one_of_aws():
    assert alarms
    for name, alarm in alarms.items():
        for metric in watched(alarm):
            if metric["Namespace"] == NAMESPACE:
                assert metric["MetricName"] in BOT_METRICS, name
                assert metric["Dimensions"] == STACK, name  # the dimension every EMF blob carries
                assert "Unit" not in alarm, name  # a unit other than the one emitted would match no data
            else:
                assert metric["MetricName"] in AWS_METRICS[metric["Namespace"]], name
        if "Metrics" in alarm:  # metric math: one expression returns the data, its inputs do not
            assert [q.get("ReturnData", True) for q in alarm["Metrics"]].count(True) == 1, name
            assert not {"Namespace", "MetricName", "Statistic"} & set(alarm), name


def test_every_alarm_notifies_the_alarm_topic_when_it_fires_and_when_it_clears():
    assert resources["AlarmTopic"]["Type"] == "AWS::SNS::Topic"
    for name, alarm in alarms.items():
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}], name
        assert alarm["OKActions"] == [{"Ref": "AlarmTopic"}], name
        assert alarm["TreatMissingData"] == "notBreaching", name  # no traffic is no trouble
        assert "docs/OPERATIONS.md" in alarm["AlarmDescription"], name


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_has_an_errors_and_a_throttles_alarm(metric):
    watched = [a["Dimensions"] for a in _watching("AWS/Lambda", metric).values()]
    assert sorted(watched, key=str) == sorted(
        ([{"Name": "FunctionName", "Value": {"Ref": f}}] for f in functions()), key=str)
    for alarm in _watching("AWS/Lambda", metric).values():
        assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
            "Sum", 1, "GreaterThanOrEqualToThreshold")


@pytest.mark.parametrize("function", ["WebhookFunction", "TimerFunction"])
def test_duration_alarms_at_80_percent_of_the_functions_timeout(function):
    (alarm,) = [a for a in _watching("AWS/Lambda", "Duration").values()
                if a["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function}}]]
    timeout_s = resources[function]["Properties"].get("Timeout", template["Globals"]["Function"]["Timeout"])
    assert alarm["Threshold"] == 0.8 * timeout_s * 1000  # Duration is in milliseconds
    assert alarm["ExtendedStatistic"] in ("p99", "p99.9") or alarm.get("Statistic") == "Maximum"
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


@pytest.mark.parametrize("metric, statistic, threshold", [
    ("BotApi429", "Sum", 10),  # a rise of 429s (the bot keeps to the group budget: they should be rare)
    ("OutboxOldestAge", "Maximum", 300),  # seconds: a message older than 5 minutes
    ("TimersMissed", "Sum", 1),
    ("ChatItemBytes", "Maximum", 300_000),  # of DynamoDB's 400 KB item limit
])
def test_the_bot_metric_alarms_of_the_issue(metric, statistic, threshold):
    (alarm,) = _watching(NAMESPACE, metric).values()
    assert (alarm["Statistic"], alarm["Threshold"]) == (statistic, threshold)
    assert alarm["ComparisonOperator"].startswith("GreaterThan")


def test_the_alarm_email_is_subscribed_only_when_given():
    param = template["Parameters"]["AlarmEmail"]
    assert param["Default"] == ""
    pattern = re.compile(param["AllowedPattern"])
    assert pattern.match("") and pattern.match("ops@example.com") and pattern.match("a.b+c@mail.example.org")
    assert not pattern.match("not an address") and not pattern.match("a@b") and not pattern.match("a@@b.c")
    assert template["Conditions"]["HasAlarmEmail"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmEmail"}, ""]}]}
    subscriptions = {n: r for n, r in resources.items() if r["Type"] == "AWS::SNS::Subscription"}
    assert list(subscriptions) == ["AlarmEmailSubscription"]
    subscription = subscriptions["AlarmEmailSubscription"]
    assert subscription["Condition"] == "HasAlarmEmail"
    assert subscription["Properties"] == {"TopicArn": {"Ref": "AlarmTopic"}, "Protocol": "email",
                                          "Endpoint": {"Ref": "AlarmEmail"}}
    assert "Subscription" not in resources["AlarmTopic"]["Properties"]  # no unconditional inline one


# ---- the timers' dead-letter queue ------------------------------------------------------------------------

DLQ_ARN = {"Fn::GetAtt": ["TimerDeadLetterQueue", "Arn"]}


def test_the_dead_letter_alarm_fires_for_every_timer_put_there_sent_or_moved():
    queue = resources["TimerDeadLetterQueue"]
    assert queue["Type"] == "AWS::SQS::Queue" and "FifoQueue" not in queue["Properties"]  # Scheduler: standard only
    alarm = alarms["TimerDeadLetterAlarm"]
    queue_name = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["TimerDeadLetterQueue", "QueueName"]}}]
    inputs = {q["Id"]: q["MetricStat"] for q in alarm["Metrics"] if "MetricStat" in q}
    # the schedules' and Lambda's failures are sent to it (NumberOfMessagesSent); the wake-up queue's are
    # moved to it by SQS, which that metric does not count: a rise of the messages waiting shows them
    assert {i: (m["Metric"]["MetricName"], m["Metric"]["Dimensions"], m["Stat"]) for i, m in inputs.items()} == {
        "sent": ("NumberOfMessagesSent", queue_name, "Sum"),
        "waiting": ("ApproximateNumberOfMessagesVisible", queue_name, "Maximum")}
    (expression,) = [q["Expression"] for q in alarm["Metrics"] if "Expression" in q]
    assert "FILL(sent, 0)" in expression and "DIFF(waiting) > 0" in expression
    assert "ApproximateNumberOfMessagesVisible" not in str(alarm.get("MetricName"))  # never "in ALARM until drained"
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")
    assert resources["WakeQueue"]["Properties"]["RedrivePolicy"]["deadLetterTargetArn"] == DLQ_ARN
    # The functions that create schedules name it (TIMER_DLQ_ARN -> each target's DeadLetterConfig) ...
    for function in ("WebhookFunction", "TimerFunction"):
        assert environment(function)["TIMER_DLQ_ARN"] == DLQ_ARN
    # ... Scheduler's role may send to it, and Lambda keeps the timer invocations that failed there too.
    policy = resources["SchedulerDeadLetterPolicy"]["Properties"]
    assert policy["RoleName"] == {"Ref": "SchedulerRole"}
    assert policy["PolicyDocument"]["Statement"] == [
        {"Sid": "DeadLetterTimers", "Effect": "Allow", "Action": "sqs:SendMessage", "Resource": DLQ_ARN}]
    assert resources["TimerFunction"]["Properties"]["DeadLetterQueue"] == {"Type": "SQS", "TargetArn": DLQ_ARN}


def test_the_timer_functions_asynchronous_retries_match_the_schedules_and_the_runbook():
    config = resources["TimerFunction"]["Properties"]["EventInvokeConfig"]
    # a wake-up older than the schedules' own limit is useless: Lambda keeps to the same one
    assert config["MaximumEventAgeInSeconds"] == EventBridgeScheduler.MAX_EVENT_AGE == 900
    assert config["MaximumRetryAttempts"] == 2


@pytest.mark.parametrize("name, metric, threshold", [
    ("UpdateErrorsAlarm", "UpdateErrors", 1), ("TimerErrorsAlarm", "TimerErrors", 1),
    ("SecretRejectedAlarm", "SecretRejected", 3), ("RefusedAlarm", "Refused", 1),
    ("ScheduleFailedAlarm", "ScheduleFailed", 1)])
def test_every_handled_failure_has_its_alarm(name, metric, threshold):
    alarm = alarms[name]
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Dimensions"]) == (NAMESPACE, metric, STACK)
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
        "Sum", threshold, "GreaterThanOrEqualToThreshold")


def test_the_http_api_and_the_table_in_use_have_their_alarms():
    api = [{"Name": "ApiId", "Value": {"Ref": "WebhookApi"}}]
    assert (alarms["WebhookApi5xxAlarm"]["MetricName"], alarms["WebhookApi5xxAlarm"]["Dimensions"]) == ("5xx", api)
    assert (alarms["WebhookApi4xxAlarm"]["MetricName"], alarms["WebhookApi4xxAlarm"]["Dimensions"]) == ("4xx", api)
    throttles = watched(alarms["TableThrottlesAlarm"])
    assert {m["MetricName"] for m in throttles} == {"ReadThrottleEvents", "WriteThrottleEvents"}
    assert all(m["Dimensions"] == [{"Name": "TableName", "Value": TABLE_IN_USE}] for m in throttles)
    errors = watched(alarms["TableErrorsAlarm"])
    # every operation the bot's repository sends (SystemErrors is per operation)
    source = inspect.getsource(dynamo)
    used = {op for op in ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "TransactGetItems",
                          "BatchGetItem", "Query", "Scan")
            if re.search(rf"\b{re.sub(r'(?<!^)(?=[A-Z])', '_', op).lower()}\(|\"{op}\"", source)}
    assert {"GetItem", "TransactWriteItems"} <= used  # (the search finds what it looks for)
    assert {d["Value"] for m in errors for d in m["Dimensions"] if d["Name"] == "Operation"} >= used
    assert all({"Name": "TableName", "Value": TABLE_IN_USE} in m["Dimensions"] for m in errors)


# ---- the wake-up queue -------------------------------------------------------------------------------------

# seconds: the stack sends a wake-up at most this long before it is due. The queue takes the alarms due
# within its window (2 minutes) because EventBridge Scheduler is behind it (a later alarm, and a wake-up the
# queue would not take, is a schedule): the queue alone would take every alarm, at up to SQS's 900 s.
STACK_LONGEST_DELAY = QUEUE_WINDOW


def test_the_stack_gives_the_queue_eventbridge_behind_it_so_its_longest_delay_is_the_window():
    values = {json.dumps(ref, sort_keys=True): value for ref, value in [
        (DLQ_ARN, "arn:aws:sqs:eu-west-1:123456789012:avalon-TimerDeadLetterQueue-X"),
        ({"Fn::GetAtt": ["TimerFunction", "Arn"]}, "arn:aws:lambda:eu-west-1:123456789012:function:timer"),
        ({"Fn::GetAtt": ["SchedulerRole", "Arn"]}, "arn:aws:iam::123456789012:role/scheduler"),
        ({"Ref": "TimerScheduleGroup"}, "avalon-timers"),
        ({"Ref": "WakeQueue"}, "https://sqs.eu-west-1.amazonaws.com/123456789012/avalon-WakeQueue-X"),
    ]}
    wanted = ("TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP", "TIMER_DLQ_ARN", "WAKE_QUEUE_URL")
    env = environment("WebhookFunction")
    scheduler = scheduler_from_env(env=Environment.read(_resolved({k: env[k] for k in wanted}, values)))
    assert isinstance(scheduler, QueueScheduler) and isinstance(scheduler.later, EventBridgeScheduler)
    assert scheduler.window == STACK_LONGEST_DELAY == 120


def test_the_wake_queue_alarm_fires_when_a_due_wake_up_is_not_consumed_and_never_for_a_delayed_one():
    (alarm,) = _watching("AWS/SQS", "ApproximateAgeOfOldestMessage").values()
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["WakeQueue", "QueueName"]}}]
    assert (alarm["Statistic"], alarm["ComparisonOperator"]) == ("Maximum", "GreaterThanThreshold")
    # The age counts from the send: a wake-up delayed by the stack's longest delay is that old when it is
    # due. Past that, 2 minutes of waiting, visible and unconsumed, and well before it expires.
    assert alarm["Threshold"] == STACK_LONGEST_DELAY + 120 == 240
    assert alarm["Threshold"] + alarm["Period"] * alarm["EvaluationPeriods"] < (
        resources["WakeQueue"]["Properties"]["MessageRetentionPeriod"])
    assert alarm["Period"] == 60 and alarm["EvaluationPeriods"] == 2  # SQS reports every minute: twice in a row


def _resolved(variables: dict[str, Any], values: dict[str, str]) -> dict[str, str]:
    """The variables as Lambda would see them, each intrinsic replaced by its value in ``values``."""
    return {name: value if isinstance(value, str) else values[json.dumps(value, sort_keys=True)]
            for name, value in variables.items()}


def test_the_schedules_the_code_creates_from_the_templates_environment_dead_letter_to_that_queue():
    queue_arn = "arn:aws:sqs:eu-west-1:123456789012:avalon-TimerDeadLetterQueue-X"
    values = {json.dumps(ref, sort_keys=True): value for ref, value in [
        (DLQ_ARN, queue_arn),
        ({"Fn::GetAtt": ["TimerFunction", "Arn"]}, "arn:aws:lambda:eu-west-1:123456789012:function:timer"),
        ({"Fn::GetAtt": ["SchedulerRole", "Arn"]}, "arn:aws:iam::123456789012:role/scheduler"),
        ({"Ref": "TimerScheduleGroup"}, "avalon-timers"),
    ]}
    wanted = ("TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP", "TIMER_DLQ_ARN")
    env = environment("WebhookFunction")
    scheduler = scheduler_from_env(env=Environment.read(_resolved({k: env[k] for k in wanted}, values)))
    assert isinstance(scheduler, EventBridgeScheduler)
    target = scheduler.target(Timer("wake", 1_900_000_000, {"chat": -5, "kind": "wake"}))
    assert target["DeadLetterConfig"] == {"Arn": queue_arn}
    assert target["RetryPolicy"]["MaximumRetryAttempts"] >= 3


# ---- every function knows its stack; the dashboard --------------------------------------------------------

@pytest.mark.parametrize("function", functions())
def test_every_function_gets_the_stack_name_the_metrics_are_dimensioned_by(function):
    assert environment(function)["STACK_NAME"] == {"Ref": "AWS::StackName"}


def _dashboard() -> tuple[dict[str, Any], set[str]]:
    """The dashboard's body as JSON (each ${...} of its !Sub replaced by a placeholder) and the names it substitutes."""
    body, variables = resources["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert isinstance(body, str) and variables == {"TableInUse": TABLE_IN_USE}
    names = set(re.findall(r"\$\{([^}!]+)\}", body))
    return json.loads(re.sub(r"\$\{([^}!]+)\}", r"<\1>", body)), names


def test_the_dashboard_shows_every_bot_metric_of_this_stack_and_every_alarm():
    body, names = _dashboard()
    shown: set[str] = set()
    for widget in body["widgets"]:
        for metric in widget["properties"].get("metrics", []):
            if isinstance(metric[0], dict):  # an expression: a SEARCH of this stack's metrics by update type
                assert 'Stack="<AWS::StackName>"' in metric[0]["expression"]
                continue
            namespace, name, *dimensions = [m for m in metric if not isinstance(m, dict)]
            if namespace == NAMESPACE:
                assert name in BOT_METRICS and dimensions == ["Stack", "<AWS::StackName>"], metric
                shown.add(name)
    assert shown == BOT_METRICS
    (alarm_widget,) = [w for w in body["widgets"] if w["type"] == "alarm"]
    assert sorted(alarm_widget["properties"]["alarms"]) == sorted(f"<{name}.Arn>" for name in alarms)
    for name in names:  # every substitution names a resource (or its attribute), a pseudo parameter or a variable
        assert name.startswith("AWS::") or name.split(".")[0] in resources or name == "TableInUse", name


# ---- the runbook --------------------------------------------------------------------------------------------

RUNBOOK = Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md"


def test_every_alarm_names_a_section_of_the_runbook_that_exists_and_is_in_its_table():
    text = RUNBOOK.read_text()
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("### ")}
    titles = {h.split(" (")[0] for h in headings}
    for name, alarm in alarms.items():
        section = re.search(r"docs/OPERATIONS\.md, ([^)]+)\)", " ".join(str(alarm["AlarmDescription"]).split()))
        assert section is not None and section.group(1) in titles, (name, section and section.group(1))
        assert f"`{name}`" in text, name  # in the table of the alarms (and its section)


def test_the_game_table_survives_a_routine_mistake():
    table = resources["GameTable"]
    assert (table["DeletionPolicy"], table["UpdateReplacePolicy"]) == ("Retain", "Retain")
    assert table["Properties"]["DeletionProtectionEnabled"] is True
    assert table["Properties"]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
