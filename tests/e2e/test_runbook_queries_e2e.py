"""The runbook's Logs Insights queries (docs/OPERATIONS.md), run on log lines the functions printed here.

One session plays what an operator looks for: a group's game with its wake-ups refused (ScheduleFailed),
a 429 waited out and one left in the outbox, a body that is not an update, an update whose table is
mistyped (an error), the timer function's wake-ups (one done, one that cannot read its chat), and every
line the webhook and the timer function print (their JSON log lines and their EMF metric lines, which
share their log groups in Lambda) is kept. Each query is taken from the page as written (its code blocks,
and the inline ones of the form `filter … | …`), with the page's example chat and game ids replaced by
this session's; ``tests/logs_insights.py`` evaluates it as Logs Insights would. Every field a query reads
must be in these lines, and each numbered query must find what its text says it finds."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from localdev import updates as U
from tests import logs_insights as li
from tests.e2e.conftest import SECRET, STACK, unreachable
from tests.e2e.scheduler_helpers import timer_app

RUNBOOK = Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md"
EXAMPLE_CHAT, EXAMPLE_GAME = "-1001234567890", '"g3f9a1c2"'  # the page's placeholders
COMMANDS = ("fields", "filter", "stats", "sort", "display")


def runbook_queries() -> list[str]:
    """Every query of the page: the code blocks (no language) that start with a command, and the inline
    code spans that do and hold a ``|`` (whitespace of a wrapped line collapsed)."""
    text = RUNBOOK.read_text()
    found, block, language, prose = [], None, "", []
    for line in text.splitlines():
        fence = line.strip().startswith("```")
        if fence and block is None:
            block, language = [], line.strip()[3:].strip()
        elif fence and block is not None:
            if not language and block and block[0].split(" ", 1)[0] in COMMANDS:
                found.append(" ".join(block))
            block = None
        elif block is not None:
            block += [line.strip()] if line.strip() else []
        else:
            prose.append(line)
    text = "\n".join(prose)
    for span in re.findall(r"`([^`]+)`", text):
        query = " ".join(span.split())
        if query.split(" ", 1)[0] in COMMANDS and "|" in query:
            found.append(query)
    return found


def play_the_session(table: Any, monkeypatch: Any, aws_endpoint: str) -> str:
    """What the module's docstring says, through the real handlers; the game's id."""
    import app

    from gamebot.aws import dynamo
    from gamebot.storage.session import Session, chat_key

    monkeypatch.setenv("TIMER_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:avalon-timer")
    monkeypatch.setenv("SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/avalon-scheduler")
    monkeypatch.setenv("SCHEDULE_GROUP", "no-such-group")  # every CreateSchedule refused
    app.reset()
    table.open_lobby([1, 2, 3, 4, 5])
    assert table.start_game(1) == 200
    table.fake.inject("sendMessage", status=429, retry_after=1, times=1, chat_id=table.group)
    table.command(2, "/status")  # one 429 waited out
    table.fake.inject("*", status=429, retry_after=30, times=1, chat_id=table.group)
    table.command(2, "/status")  # one left in the outbox
    game_id = str(Session.from_body(app.service().repo.get(chat_key(table.group)).body).game_id)
    junk = {**U.webhook_event(U.command(U.group(table.group), U.user(1), "/help"), SECRET), "body": "{not json"}
    assert app.lambda_handler(junk, None)["statusCode"] == 200
    timer = timer_app()
    try:  # a wake-up of the chat, done; then one that cannot read it (DynamoDB unreachable)
        payload = {"chat": table.group, "game": game_id, "kind": "wake", "due": 1, "name": "n1"}
        timer.lambda_handler(payload, None)
        monkeypatch.setenv("AWS_ENDPOINT_URL", unreachable())
        dynamo.reset_default_client()
        timer.reset()
        record = {"messageId": "m-1", "body": json.dumps({**payload, "name": "n2"})}
        assert timer.lambda_handler({"Records": [record]}, None)["batchItemFailures"]
    finally:
        timer.reset()
        monkeypatch.setenv("AWS_ENDPOINT_URL", aws_endpoint)
        dynamo.reset_default_client()
    monkeypatch.setenv("TABLE_NAME", "avalon-e2e-mistyped")
    app.reset()
    assert table.command(3, "/status") == 200  # an error (a redelivery would fail the same way)
    return game_id


def test_every_runbook_query_reads_fields_the_functions_print_and_finds_what_it_says(observed, aws_endpoint,
                                                                                     monkeypatch, capsys):
    table = observed
    game_id = play_the_session(table, monkeypatch, aws_endpoint)
    lines = table.log_text().splitlines() + [line for line in capsys.readouterr().out.splitlines()
                                             if line.startswith("{")]
    assert any('"_aws"' in line for line in lines) and any('"level": "ERROR"' in line for line in lines)
    assert all(json.loads(line).get("Stack", STACK) == STACK for line in lines)
    present = {name for event in li.events(lines) for name in event}
    # every line of an update or a wake-up names its chat (a body refused unread has none to name)
    parsed = [json.loads(line) for line in lines]
    of_chats = [p for p in parsed if "update_id" in p or p.get("update_type") == "timer" or "UpdateType" in p
                and p.get("Outcome") not in ("ignored", "rejected")]
    assert of_chats and [p for p in of_chats if p.get("chat_id") is None] == []

    queries = runbook_queries()
    assert len(queries) >= 9, queries  # the 7 numbered ones, the wake-up queue's, the inline ones
    results = {}
    for query in queries:
        assert li.referenced_fields(query) <= present, (query, li.referenced_fields(query) - present)
        ours = query.replace(EXAMPLE_CHAT, str(table.group)).replace(EXAMPLE_GAME, json.dumps(game_id))
        results[query] = li.run(ours, lines)

    def rows(start: str) -> list[dict[str, str]]:
        (found,) = [r for q, r in results.items() if q.startswith(start)]
        return found

    group, game = str(table.group), game_id
    errors = rows("fields @timestamp, chat_id, game_id, update_id, logger, message, errorType")  # 1
    assert errors and {r.get("chat_id") for r in errors} == {group}
    assert any("ResourceNotFoundException" in r.get("errorType", "") + r.get("errorMessage", "") for r in errors)
    chat = rows("fields @timestamp, level, update_type, outcome, game_id, message | filter chat_id =")  # 3
    assert len(chat) >= 20 and any(r.get("game_id") == game for r in chat)
    one_game = rows("fields @timestamp, chat_id, update_type, outcome, message | filter game_id =")  # 4
    assert one_game and {r["chat_id"] for r in one_game} == {group}
    flood = rows("fields @timestamp, chat_id, game_id, message | filter message like /Bot API 429/")  # 5
    assert flood == [{"chat_id": group, "game_id": game, "refusals": "2"}]
    failing = rows("filter ispresent(UpdateErrors) or ispresent(TimerErrors)")  # 6
    outcomes = {(r.get("chat_id"), r.get("Outcome")) for r in failing}
    assert (group, "error") in outcomes and (group, "retry") in outcomes
    wake_ups = rows("fields @timestamp, chat_id, game_id, outcome, duration_ms | filter update_type = \"timer\" and "
                    "message")  # 7
    assert {r["outcome"] for r in wake_ups} == {"stale", "retry"} and {r["chat_id"] for r in wake_ups} == {group}
    stuck = rows("fields @timestamp, chat_id, game_id, outcome, duration_ms | filter update_type = \"timer\" and "
                 "outcome in")  # the wake-up queue's
    assert [(r["chat_id"], r["failures"]) for r in stuck] == [(group, "1")]
    refused = rows("filter message = \"update handled\" and outcome = \"ignored\"")
    assert refused == [{"update_type": "unknown", "refused": "1"}]  # (unread: neither its type nor its chat)
