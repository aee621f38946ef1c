"""What an operator gets from the functions, end to end (``lambda_handler``, DynamoDB on moto, the fake Bot
API): one JSON log line per record with the update's fields and a summary line per update, never the token,
the webhook secret or a message's text; one EMF blob per invocation that follows the format; and faults
(a 429 streak, a DynamoDB version conflict, a late timer) that move their metrics."""
from __future__ import annotations

import importlib.util
import json
import random
import time
from pathlib import Path
from types import SimpleNamespace

from gamebot.aws.dynamo import DynamoRepository
from gamebot.core import metrics
from gamebot.storage.session import chat_key
from localdev import updates as U
from localdev.autoplay import Driver, Policy
from tests import emf
from tests.e2e.conftest import SECRET, STACK, TABLE, TOKEN

ROOT = Path(__file__).resolve().parents[2]


def texts_sent(table) -> set[str]:
    """Every text the bot sent or wrote in a chat, and every text a player sent."""
    found = {str(c.params.get(k)) for c in table.fake.calls for k in ("text", "caption") if c.params.get(k)}
    return found | {"/newgame", "/status"}


def test_a_whole_game_logs_json_lines_with_the_updates_fields_and_one_valid_blob_per_update(observed, capsys):
    table = observed
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    assert table.start_game(1) == 200
    driver = Driver(table, table.group, players, Policy(rng=random.Random(5)))
    driver.play()
    assert driver.over() and set(table.statuses) == {200}
    table.command(2, "/status")

    raw = table.log_text().splitlines()
    lines = [json.loads(line) for line in raw]  # every line is one JSON object
    summaries = [line for line in lines if line["message"] == "update handled"]
    assert len(summaries) == len(table.statuses)  # one summary line per update
    for s in summaries:
        assert isinstance(s["update_id"], int) and s["update_type"] in metrics.UPDATE_TYPES
        assert s["outcome"] == "ok" and s["status"] == 200 and s["duration_ms"] > 0
        assert isinstance(s["chat_id"], int) and s["level"] == "INFO" and s["logger"] == "gamebot.webhook"
    in_group = [s for s in summaries if s["chat_id"] == table.group]
    # the group's game is named on the line of every update the unit of work ran (not the last /status: a read)
    assert in_group[:-1] and all(s.get("game_id") for s in in_group[:-1]) and in_group[-1]["update_type"] == "command"
    assert {s["update_type"] for s in summaries} == {"command", "button"}
    everything = "\n".join(raw)
    assert TOKEN not in everything and SECRET not in everything
    leaked = [t for t in texts_sent(table) if len(t) >= 6 and t in everything]
    assert leaked == []

    blobs = emf.blobs(capsys.readouterr().out)  # (each checked against the format)
    assert len(blobs) == len(table.statuses)
    assert all(b["Stack"] == STACK and b["Outcome"] == "ok" and b["HandlerDuration"] > 0 for b in blobs)
    assert emf.total(blobs, "Updates") == len(table.statuses)
    assert emf.total(blobs, "GamesStarted") == 1 and emf.total(blobs, "GamesFinished") == 1
    assert emf.total(blobs, "GamesCancelled") == 0 and emf.total(blobs, "BotApiErrors") == 0
    sizes = emf.values(blobs, "ChatItemBytes")
    assert sizes and all(0 < v < 400 * 1024 for v in sizes)


def test_a_429_streak_moves_the_bot_api_metrics_and_a_long_one_leaves_the_message_waiting(observed, capsys):
    table = observed
    table.fake.add_group(table.group, table.title)
    for uid in (1, 2):
        table.start_private(uid)
    capsys.readouterr()
    table.fake.inject("sendMessage", status=429, retry_after=1, times=2, chat_id=table.group)
    assert table.command(1, "/newgame") == 200  # the lobby's message: sent after waiting twice a second
    (blob,) = emf.blobs(capsys.readouterr().out)
    assert (blob["BotApi429"], blob["BotApiErrors"], blob["RetryAfterWaited"]) == (2, 2, 2)
    table.fake.inject("*", status=429, retry_after=30, times=1, chat_id=table.group)
    assert table.command(1, "/cancel") == 200  # what it sends the group waits in the outbox: flood control
    (blob,) = emf.blobs(capsys.readouterr().out)
    assert blob["BotApi429"] == 1 and "RetryAfterWaited" not in blob  # (too long to wait inside an update)
    assert blob["OutboxWaiting"] >= 1 and blob["OutboxOldestAge"] >= 0


def test_a_dynamodb_version_conflict_moves_version_conflicts(observed, capsys):
    import app

    table = observed
    players = [1, 2, 3]
    table.open_lobby(players)
    table.start_private(5)
    svc = app.service()
    put, transact, raced = svc.repo.put, svc.repo.transact, []

    def race(keys: list[str]) -> None:  # another container writes the chat's item between our read and our write
        if not raced and chat_key(table.group) in keys:
            raced.append(True)
            other = DynamoRepository(TABLE)  # (another writer: the item unchanged, its version moved on)
            item = other.get(chat_key(table.group))
            other.put(item, item.version)

    svc.repo.put = lambda item, expect: (race([item.key]), put(item, expect))[1]
    svc.repo.transact = lambda writes, deletes=None: (race([w.item.key for w in writes]), transact(writes, deletes))[1]
    capsys.readouterr()
    lobby = next(m for m in reversed(table.messages(table.group)) for row in m["buttons"] for b in row
                 if "Join" in b["text"])
    join = next(b["data"] for row in lobby["buttons"] for b in row if "Join" in b["text"])
    update = U.press(table.user(5), table.fake.message(table.group, lobby["message_id"]), join)
    response = app.lambda_handler(U.webhook_event(update, SECRET), SimpleNamespace(aws_request_id="ours"))
    assert response["statusCode"] == 200 and raced
    (ours,) = [b for b in emf.blobs(capsys.readouterr().out) if b.get("requestId") == "ours"]
    assert ours["VersionConflicts"] == 1


def test_the_timer_function_reports_how_late_it_fired(lambda_env, monkeypatch, capsys):
    monkeypatch.setenv("STACK_NAME", STACK)
    spec = importlib.util.spec_from_file_location("timer_app_ops", ROOT / "functions" / "timer" / "app.py")
    timer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timer)
    try:
        payload = {"chat": -1009, "game": "g1", "kind": "wake", "due": int(time.time()) - 200, "name": "n"}
        assert timer.lambda_handler(payload, None) == {"status": "stale"}  # (no such chat: nothing to do)
        assert timer.lambda_handler({"chat": "x"}, None) == {"status": "ignored"}
    finally:
        timer.reset()
    late, ignored = emf.blobs(capsys.readouterr().out)
    assert late["UpdateType"] == "timer" and late["TimersLate"] == 1 and 199 <= late["TimerLateness"] <= 230
    assert "Updates" not in late and late["HandlerDuration"] > 0
    assert "TimerLateness" not in ignored and ignored["HandlerDuration"] >= 0
