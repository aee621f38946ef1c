"""Each failure the functions handle themselves reaches the operator's alarm: the real handler is driven into
it (a mistyped table name, DynamoDB unreachable, a wrong webhook secret, a schedule refused, a wake-up that
cannot read its chat), and the EMF line it prints carries the metric the template's alarm reads, in the
namespace and with the dimensions that alarm names (read from template.yaml, not copied here). The log
lines of each failure name the chat, as the runbook's queries expect (tests/unit/test_runbook_queries.py
runs those queries on lines like these)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from localdev import updates as U
from tests import emf
from tests.e2e.conftest import SECRET, STACK, unreachable
from tests.unit.cfn_template import resources


def alarm_reads(alarm: str) -> tuple[str, str, dict[str, str]]:
    """The metric the template's ``alarm`` watches: its namespace, name and dimensions (name -> value, the
    stack's name for ``!Ref AWS::StackName``)."""
    props = resources[alarm]["Properties"]
    dims = {}
    for d in props["Dimensions"]:
        assert d["Value"] == {"Ref": "AWS::StackName"}, d  # (the bot's metrics: one dimension, the stack)
        dims[d["Name"]] = STACK
    return props["Namespace"], props["MetricName"], dims


def read_by(alarm: str, blobs: list[dict[str, Any]]) -> float:
    """What ``alarm`` would count in ``blobs``: the sum of its metric over the blobs that declare it in its
    namespace, under a dimension set that is exactly the alarm's, with the alarm's dimension values."""
    namespace, metric, dims = alarm_reads(alarm)
    total = 0.0
    for blob in blobs:
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            named = {m["Name"] for m in directive["Metrics"]}
            if directive["Namespace"] != namespace or metric not in named:
                continue
            assert sorted(dims) in [sorted(s) for s in directive["Dimensions"]], (alarm, directive)
            if all(blob.get(k) == v for k, v in dims.items()):
                total += sum(emf.values([blob], metric))
    return total


def log_lines(table: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in table.log_text().splitlines()]


def test_a_mistyped_table_name_counts_in_update_errors_with_the_chat_in_its_lines(observed, monkeypatch, capsys):
    import app

    table = observed
    table.fake.add_group(table.group, table.title)
    monkeypatch.setenv("TABLE_NAME", "avalon-e2e-mistyped")
    app.reset()
    capsys.readouterr()
    status = table.command(1, "/newgame")
    blobs = emf.blobs(capsys.readouterr().out)
    assert status == 200  # (a bug of configuration: a redelivery would fail the same way)
    assert read_by("UpdateErrorsAlarm", blobs) == 1
    (blob,) = blobs
    assert blob["Outcome"] == "error" and blob["chat_id"] == table.group
    errors = [line for line in log_lines(table) if line["level"] == "ERROR"]
    assert errors and all(line["chat_id"] == table.group for line in errors)
    assert any("ResourceNotFoundException" in line.get("errorType", "") + line.get("errorMessage", "")
               + str(line.get("stackTrace", "")) for line in errors)


def test_dynamodb_unreachable_answers_500_and_counts_in_update_errors(observed, monkeypatch, capsys):
    import app

    from gamebot.aws import dynamo

    table = observed
    table.fake.add_group(table.group, table.title)
    monkeypatch.setenv("AWS_ENDPOINT_URL", unreachable())
    dynamo.reset_default_client()
    app.reset()
    capsys.readouterr()
    assert table.command(1, "/newgame") == 500  # nothing stored: Telegram redelivers
    blobs = emf.blobs(capsys.readouterr().out)
    assert read_by("UpdateErrorsAlarm", blobs) == 1
    assert blobs[0]["chat_id"] == table.group
    assert any(line["level"] == "ERROR" and line["chat_id"] == table.group for line in log_lines(table))


@pytest.mark.parametrize("secret", ["wrong-secret-of-32-characters-xx", None])
def test_a_wrong_or_missing_secret_counts_in_secret_rejected(observed, capsys, secret):
    import app

    table = observed
    capsys.readouterr()
    event = U.webhook_event(U.command(U.group(table.group), U.user(1), "/newgame"), secret or SECRET)
    if secret is None:
        event["headers"] = {}
    assert app.lambda_handler(event, None)["statusCode"] == 401
    blobs = emf.blobs(capsys.readouterr().out)
    assert read_by("SecretRejectedAlarm", blobs) == 1 and read_by("UpdateErrorsAlarm", blobs) == 0
    assert [b["Outcome"] for b in blobs] == ["rejected"]


def test_a_body_that_is_not_an_update_counts_in_refused(observed, capsys):
    import app

    capsys.readouterr()
    event = {**U.webhook_event(U.command(U.group(-5), U.user(1), "/help"), SECRET), "body": "{not json"}
    assert app.lambda_handler(event, None)["statusCode"] == 200
    assert read_by("RefusedAlarm", emf.blobs(capsys.readouterr().out)) == 1


def test_a_schedule_eventbridge_refuses_counts_in_schedule_failed(observed, monkeypatch, capsys):
    import app

    table = observed
    # the stack's timers, in a schedule group that does not exist: every CreateSchedule is refused
    monkeypatch.setenv("TIMER_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:avalon-timer")
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/avalon-scheduler")
    monkeypatch.setenv("SCHEDULE_GROUP", "no-such-group")
    app.reset()
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    capsys.readouterr()
    assert table.start_game(1) == 200  # the game goes on: the chat's next update finds what is due
    blobs = emf.blobs(capsys.readouterr().out)
    assert read_by("ScheduleFailedAlarm", blobs) >= 1
    assert read_by("UpdateErrorsAlarm", blobs) == 0
    failed = [line for line in log_lines(table) if "ScheduleFailed" in line["message"]]
    assert failed and all(line["chat_id"] == table.group and line.get("game_id") for line in failed)


def test_a_wake_up_that_cannot_read_its_chat_counts_in_timer_errors(lambda_env, monkeypatch, capsys):
    from gamebot.aws import dynamo
    from tests.e2e.scheduler_helpers import timer_app

    monkeypatch.setenv("STACK_NAME", STACK)
    monkeypatch.setenv("AWS_ENDPOINT_URL", unreachable())
    dynamo.reset_default_client()
    timer = timer_app()
    try:
        body = json.dumps({"chat": -1007, "game": "g1", "kind": "wake", "due": 1, "name": "n"})
        answer = timer.lambda_handler({"Records": [{"messageId": "m-1", "body": body}]}, None)
    finally:
        timer.reset()
        dynamo.reset_default_client()
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m-1"}]}  # received again, then dead-lettered
    blobs = emf.blobs(capsys.readouterr().out)
    assert read_by("TimerErrorsAlarm", blobs) == 1
    assert blobs[0]["Outcome"] == "retry" and blobs[0]["chat_id"] == -1007 and blobs[0]["game_id"] == "g1"

