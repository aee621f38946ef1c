"""tests/logs_insights.py, the Logs Insights evaluator the runbook's queries are checked with: each feature on
lines the bot's own formatter and metrics print, and the semantics AWS documents (the sort order's example,
``(?i)`` in a regex, discovered JSON fields)."""
from __future__ import annotations

import json
import logging
import random

import pytest

from gamebot import observe
from gamebot.core import logs, metrics
from tests import logs_insights as li

# queries of the kind the runbook uses (docs/OPERATIONS.md runs its own, verbatim, in tests/e2e/test_runbook_queries_e2e.py)
ERRORS = "fields @timestamp, @message | filter @message like /ERROR|Task timed out/ | sort @timestamp desc | limit 50"
ONE_CHAT = ("fields @timestamp, @message | filter @message like /-1001234567890/ | sort @timestamp desc "
            "| limit 200   # one chat")
WAKE_UPS = ("fields @timestamp, chat_id, game_id, outcome, duration_ms | filter update_type = \"timer\" "
            "| sort @timestamp desc | limit 100   # the wake-ups")
FAILURES = """\
   fields @timestamp, chat_id, game_id, outcome, duration_ms
   | filter update_type = "timer" and outcome in ["retry", "error"]
   | stats count(*) as failures, latest(@timestamp) as last by chat_id, game_id
   | sort failures desc
   | limit 50
"""
CHAT = -1001234567890


def bot_line(message: str, *, level: int = logging.INFO, exc: bool = False, **fields: object) -> str:
    """One line as ``JsonFormatter`` prints it, inside an invocation noting ``fields``."""
    update_type = str(fields.pop("update_type", "timer"))
    inv = metrics.Invocation(update_type, request_id="req-1")
    inv.note(**fields)
    record = logging.LogRecord("gamebot.test", level, __file__, 1, message, None, None)
    if exc:
        try:
            raise RuntimeError("storage said no")
        except RuntimeError as error:
            record.exc_info = (RuntimeError, error, error.__traceback__)
    token = observe.start(inv)
    try:
        return logs.JsonFormatter().format(record)
    finally:
        observe.stop(token)


def stamped(line: str, when: str) -> str:
    """``line`` with its ``timestamp`` set to ``when`` (the formatter writes the time of the call)."""
    return json.dumps(json.loads(line) | {"timestamp": when})


@pytest.fixture
def lines() -> list[str]:
    return [
        stamped(bot_line("timer handled", chat_id=CHAT, game_id="g1", timer="alarm", outcome="retry",
                         duration_ms=12), "2025-03-01T10:00:00.000Z"),
        stamped(bot_line("timer failed", level=logging.ERROR, exc=True, chat_id=CHAT, game_id="g1",
                         outcome="error", duration_ms=30), "2025-03-01T10:01:00.000Z"),
        stamped(bot_line("timer handled", chat_id=-1009, game_id="g2", outcome="ai_seats", duration_ms=7),
                "2025-03-01T10:02:00.000Z"),
        stamped(bot_line("update handled", update_type="button", chat_id=-1009, outcome="ok", duration_ms=40),
                "2025-03-01T10:03:00.000Z"),
        stamped(bot_line("Task timed out after 10.00 seconds", update_type="message"), "2025-03-01T10:04:00.000Z"),
    ]


def emf_line(timestamp_ms: int = 1740823500000) -> str:
    inv = metrics.Invocation("timer", stack="avalon-bot")
    inv.note(chat_id=CHAT, game_id="g1", outcome="retry", duration_ms=12)
    (blob,) = inv.blobs(timestamp_ms, update=False)
    return json.dumps(blob)


def fields_of(lines: list[str]) -> set[str]:
    return {name for event in li.events(lines) for name in event}


# --- the events --------------------------------------------------------------------------------------------
def test_a_formatter_line_becomes_an_event_with_its_json_members_and_the_system_fields(lines):
    event = li.events(lines)[1]
    assert event["@message"] == lines[1]
    assert event["@timestamp"] == event["@ingestionTime"] == "2025-03-01 10:01:00.000"
    assert event["@logStream"] == li.LOG_STREAM and event["@log"] == li.LOG_GROUP
    assert {k: event[k] for k in ("level", "message", "update_type", "chat_id", "outcome", "duration_ms")} == {
        "level": "ERROR", "message": "timer failed", "update_type": "timer", "chat_id": str(CHAT),
        "outcome": "error", "duration_ms": "30"}
    assert event["errorType"] == "RuntimeError" and event["stackTrace.0"]  # an array: one field per index
    assert "stackTrace" not in event


def test_an_emf_blob_is_flattened_with_dots_and_its_arrays_by_index():
    event = li.events([emf_line()])[0]
    assert event["_aws.Timestamp"] == "1740823500000"
    assert event["@timestamp"] == "2025-03-01 10:05:00.000"  # no ISO timestamp member: EMF's
    assert event["_aws.CloudWatchMetrics.0.Namespace"] == metrics.NAMESPACE
    assert event["_aws.CloudWatchMetrics.0.Dimensions.0.0"] == "Stack"
    assert event["Stack"] == "avalon-bot" and event["chat_id"] == str(CHAT) and event["HandlerDuration"] == "12.0"
    assert "_aws" not in event and "_aws.CloudWatchMetrics" not in event


def test_members_named_with_at_get_another_at_nulls_are_absent_and_values_are_strings():
    (event,) = li.events(['{"@x": 1, "gone": null, "yes": true, "n": 12.50, "deep": {"a": {"b": "c"}}}'])
    assert event["@@x"] == "1" and event["yes"] == "true" and event["n"] == "12.50" and event["deep.a.b"] == "c"
    assert "gone" not in event and "@x" not in event
    (plain,) = li.events(["START RequestId: 1 Version: $LATEST"])  # not JSON: the system fields only
    assert set(plain) == {"@message", "@logStream", "@log"}


def test_given_timestamps_win_and_must_match_the_lines(lines):
    assert li.events(lines[:1], timestamps=[0])[0]["@timestamp"] == "1970-01-01 00:00:00.000"
    with pytest.raises(ValueError):
        li.events(lines, timestamps=[0])


# --- the runbook's queries ---------------------------------------------------------------------------------
def test_runbook_style_queries_find_what_they_claim(lines):
    errors = li.run(ERRORS, lines)
    assert [r["@timestamp"] for r in errors] == ["2025-03-01 10:04:00.000", "2025-03-01 10:01:00.000"]
    assert set(errors[0]) == {"@timestamp", "@message"}
    assert [r["@message"] for r in li.run(ONE_CHAT, lines)] == [lines[1], lines[0]]
    assert li.run(WAKE_UPS, lines) == [
        {"@timestamp": "2025-03-01 10:02:00.000", "chat_id": "-1009", "game_id": "g2", "outcome": "ai_seats",
         "duration_ms": "7"},
        {"@timestamp": "2025-03-01 10:01:00.000", "chat_id": str(CHAT), "game_id": "g1", "outcome": "error",
         "duration_ms": "30"},
        {"@timestamp": "2025-03-01 10:00:00.000", "chat_id": str(CHAT), "game_id": "g1", "outcome": "retry",
         "duration_ms": "12"},
    ]
    assert li.run(FAILURES, lines) == [
        {"chat_id": str(CHAT), "game_id": "g1", "failures": "2", "last": "2025-03-01 10:01:00.000"}]


def test_referenced_fields_are_those_read_from_events_not_the_names_a_query_defines(lines):
    assert li.referenced_fields(ERRORS) == {"@timestamp", "@message"}
    assert li.referenced_fields(WAKE_UPS) == {"@timestamp", "chat_id", "game_id", "outcome", "duration_ms",
                                              "update_type"}
    assert li.referenced_fields(FAILURES) == {"@timestamp", "chat_id", "game_id", "outcome", "duration_ms",
                                              "update_type"}  # not failures, not last
    assert li.referenced_fields(FAILURES) <= fields_of(lines)
    assert li.referenced_fields("fields a as b | display b, `c-d` | sort b asc") == {"a", "c-d"}


def test_a_misspelt_field_matches_nothing_and_is_referenced(lines):
    query = WAKE_UPS.replace('update_type = "timer"', 'updatetype = "timer"')
    assert li.run(query, lines) == []
    assert "updatetype" in li.referenced_fields(query) and "updatetype" not in fields_of(lines)
    assert li.referenced_fields(query) - fields_of(lines) == {"updatetype"}


# --- filter ------------------------------------------------------------------------------------------------
def messages(query: str, lines: list[str]) -> list[str]:
    return [r["message"] for r in li.run(f"fields message | {query}", lines)]


def test_like_with_a_regex_searches_and_with_a_string_finds_the_substring(lines):
    assert messages("filter @message like /ERROR|Task timed out/", lines) == [
        "timer failed", "Task timed out after 10.00 seconds"]
    assert messages('filter @message like "ERROR|Task timed out"', lines) == []  # no alternation in a string
    assert messages("filter message like /^timer .a/", lines) == ["timer handled", "timer failed", "timer handled"]
    assert messages('filter message like "timer .a"', lines) == []  # the dot is a dot
    assert messages('filter message like "10.00"', lines) == ["Task timed out after 10.00 seconds"]
    assert messages("filter message =~ /failed$/", lines) == messages('filter message =~ "failed"', lines) == [
        "timer failed"]


def test_like_is_case_sensitive_unless_the_regex_says_i_anywhere(lines):
    assert messages("filter message like /TIMER/", lines) == []
    assert messages("filter message like /(?i)TIMER F/", lines) == ["timer failed"]
    assert messages("filter message =~ /^(?i)TIMER FAILED$/", lines) == ["timer failed"]  # AWS's example form
    assert messages("filter message not like /timer/", lines) == ["update handled",
                                                                  "Task timed out after 10.00 seconds"]


def test_a_test_of_an_absent_field_is_false(lines):
    # the last two lines have no game_id
    for query in ('game_id = "x"', 'game_id != "x"', "game_id < 5", 'game_id like /g/', 'game_id not like /x/',
                  'game_id in ["g1"]', 'game_id not in ["x"]'):
        assert all(r.get("game_id") for r in li.run(f"fields game_id | filter {query}", lines)), query
    assert messages('filter game_id != "g1"', lines) == ["timer handled"]
    assert messages("filter not ispresent(game_id)", lines) == ["update handled",
                                                               "Task timed out after 10.00 seconds"]
    assert messages("filter isempty(game_id) and isblank(outcome)", lines) == [
        "Task timed out after 10.00 seconds"]
    assert messages('filter not (game_id = "g1")', lines) == ["timer handled", "update handled",
                                                             "Task timed out after 10.00 seconds"]


def test_comparisons_are_numeric_between_numbers_else_between_strings(lines):
    assert messages("filter duration_ms > 12", lines) == ["timer failed", "update handled"]
    assert messages("filter duration_ms >= 12 and duration_ms <= 30", lines) == ["timer handled", "timer failed"]
    assert messages('filter duration_ms = "7.0"', lines) == ["timer handled"]  # both numbers: 7 = 7.0
    assert messages(f"filter chat_id = {CHAT}", lines) == messages(f'filter chat_id = "{CHAT}"', lines) == [
        "timer handled", "timer failed"]
    assert messages("filter level > 5", lines) == []  # a number literal against a word
    assert messages('filter level > "INFO"', lines) == []  # as strings: ERROR < INFO
    assert messages('filter level < "INFO"', lines) == ["timer failed"]
    assert messages("filter duration_ms > game_id", lines) == []  # two fields, as strings: "12" < "g1"


def test_in_not_in_and_or_not_and_parentheses(lines):
    assert messages('filter outcome in ["retry", "error"]', lines) == ["timer handled", "timer failed"]
    assert messages('filter outcome not in ["retry", "error"]', lines) == ["timer handled", "update handled"]
    assert messages("filter duration_ms in [7, 40]", lines) == ["timer handled", "update handled"]
    # and binds tighter than or: a or (b and c)
    assert messages('filter outcome = "ok" or outcome = "ai_seats" and game_id = "g1"', lines) == ["update handled"]
    assert messages('filter (outcome = "ok" or outcome = "ai_seats") and game_id = "g2"', lines) == ["timer handled"]
    assert messages('filter not outcome = "ok" and ispresent(outcome)', lines) == [
        "timer handled", "timer failed", "timer handled"]


def test_a_backquoted_name_and_a_filter_after_fields_sees_every_field():
    line = '{"foo-bar": "x", "a": 1}'
    assert li.run("fields `foo-bar` | filter a = 1", [line]) == [{"foo-bar": "x"}]
    assert li.referenced_fields("fields `foo-bar` | filter a = 1") == {"foo-bar", "a"}


def test_comments_and_a_query_over_lines(lines):
    query = "# the errors\nfields message # what was said\n| filter level = \"ERROR\" # only those\n"
    assert li.run(query, lines) == [{"message": "timer failed"}]


# --- fields, display, sort, limit ----------------------------------------------------------------------------
def test_columns_default_to_timestamp_and_message_fields_add_display_replaces(lines):
    (only,) = li.run('filter level = "ERROR"', lines)
    assert only == {"@timestamp": "2025-03-01 10:01:00.000", "@message": lines[1]}
    rows = li.run('fields chat_id as chat, game_id | filter ispresent(chat) | fields outcome | limit 1', lines)
    assert rows == [{"chat": str(CHAT), "game_id": "g1", "outcome": "retry"}]
    assert li.run("fields chat_id, game_id | display game_id | limit 1", lines) == [{"game_id": "g1"}]
    assert li.run("fields game_id | limit 5", lines)[-1] == {}  # an absent field is left out of its row


def test_sort_follows_the_natural_order_of_aws_docs():
    documented = ["!:", "#", "*%04", "0#", "5A", "111A", "2345_", "@", "@_", "A", "A9876fghj", "a12345hfh",
                  "0", "01", "1", "2", "3"]  # CWL_QuerySyntax-Sort's ascending example
    shuffled = documented[:]
    random.Random(7).shuffle(shuffled)
    lines = [json.dumps({"v": v}) for v in shuffled]
    assert [r["v"] for r in li.run("fields v | sort v asc", lines)] == documented
    assert [r["v"] for r in li.run("fields v | sort v desc", lines)] == documented[::-1]
    numbers = [json.dumps({"v": v}) for v in (10, 9, -2, 100.5)]
    assert [r["v"] for r in li.run("fields v | sort v asc", numbers)] == ["-2", "9", "10", "100.5"]


def test_sort_then_limit_keeps_the_first_rows_and_absent_values_sort_lowest(lines):
    assert [r["@timestamp"][11:16] for r in li.run("sort @timestamp desc | limit 2", lines)] == ["10:04", "10:03"]
    assert [r["@timestamp"][11:16] for r in li.run("sort @timestamp asc | limit 2", lines)] == ["10:00", "10:01"]
    assert [r.get("duration_ms") for r in li.run("fields duration_ms | sort duration_ms asc", lines)] == [
        None, "7", "12", "30", "40"]
    assert len(li.run("fields a", ['{"a": 1}'] * (li.DEFAULT_LIMIT + 1))) == li.DEFAULT_LIMIT


# --- stats ---------------------------------------------------------------------------------------------------
def test_stats_by_fields_makes_one_row_per_group_in_order_of_appearance(lines):
    rows = li.run("stats count(*), count(game_id) as games, sum(duration_ms), avg(duration_ms) as mean, "
                  "min(duration_ms), max(duration_ms), count_distinct(chat_id) by update_type", lines)
    assert rows == [
        {"update_type": "timer", "count(*)": "3", "games": "3", "sum(duration_ms)": "49", "mean": repr(49 / 3),
         "min(duration_ms)": "7", "max(duration_ms)": "30", "count_distinct(chat_id)": "2"},
        {"update_type": "button", "count(*)": "1", "games": "0", "sum(duration_ms)": "40", "mean": "40",
         "min(duration_ms)": "40", "max(duration_ms)": "40", "count_distinct(chat_id)": "1"},
        {"update_type": "message", "count(*)": "1", "games": "0", "count_distinct(chat_id)": "0"},
    ]


def test_stats_by_two_fields_earliest_latest_and_an_absent_group_value(lines):
    rows = li.run("stats count() as n, earliest(outcome) as first, latest(outcome) as last by chat_id, game_id "
                  "| sort n desc", lines)
    assert rows == [
        {"chat_id": str(CHAT), "game_id": "g1", "n": "2", "first": "retry", "last": "error"},
        {"chat_id": "-1009", "game_id": "g2", "n": "1", "first": "ai_seats", "last": "ai_seats"},
        {"chat_id": "-1009", "n": "1", "first": "ok", "last": "ok"},
        {"n": "1"},  # the line with neither: one group of absent values, no outcome
    ]
    assert li.run("stats count(*)", lines) == [{"count(*)": "5"}]
    assert li.run('filter level = "x" | stats count(*)', lines) == []


# --- errors --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    "fields a | grep b",  # an unknown command
    "fields a |",  # an empty command
    "",
    "fields a b",  # two names without a comma
    "filter",
    "filter a",  # no comparison
    "filter a = ",
    "filter (a = 1",
    "filter a like b",  # like needs a string or a regex
    "filter a like /x/i",  # flags are not Logs Insights'
    "filter a like /(/",  # a bad regex
    "filter a in []",
    "filter a + 1 = 2",  # arithmetic
    "filter strlen(a) > 1",  # other functions
    "fields abs(a)",
    "fields and",  # a keyword is not a field
    "sort a",  # no direction
    "sort a desc, b asc",
    "limit 0",
    "limit x",
    "stats pct(a, 95)",
    "stats count(*) by bin(5m)",
    "stats a",
    "dedup a",
    "parse @message 'x=*' as x",
    "filter a = 'unclosed",
])
def test_what_it_does_not_read_raises_value_error_saying_where(query):
    with pytest.raises(ValueError, match="offset"):
        li.run(query, ['{"a": 1}'])
    with pytest.raises(ValueError):
        li.referenced_fields(query)
