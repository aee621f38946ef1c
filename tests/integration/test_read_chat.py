"""``scripts/read_chat.py`` against a moto server: a group's game written by the real service on
``DynamoRepository``, then printed decoded (the session compressed in the table: ``gamebot.storage.packing``),
the table named directly or by a stack's output."""
from __future__ import annotations

import json
import random
import uuid
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gamebot.aws.dynamo import DynamoRepository
from gamebot.core.service import Service
from gamebot.outbox.uow import refusals_key
from localdev import updates as U
from tests.integration.conftest import load_script as load_script_named
from tests.unit.gamebot_fakes import GROUP, Harness

REPO = Path(__file__).resolve().parents[2]


def load_script() -> ModuleType:
    return load_script_named("read_chat")


@pytest.fixture
def aws(operator_table: tuple[Any, str]) -> tuple[Any, str]:
    return operator_table


@pytest.fixture
def game(aws: Any) -> Any:
    """A running game of five in GROUP, written through the service on DynamoDB; a refusal noted for its
    Leader and a /nextgame subscriber waiting."""
    client, table = aws
    h = Harness(seed=3)
    h.repo = DynamoRepository(table, client=client)
    h.service = Service(h.repo, h.io, h.codec, bot_username=U.BOT_USERNAME, seeds=random.Random(3), clock=h.clock)
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.press_label(1, GROUP, "Start")
        h.send(U.start(h.user(8)))
        h.command(8, "/nextgame")
        s = session_of(h)
        leader = s.players[s.game().leader].id
        h.press_label(leader, leader, s.players[0].name)
        h.press_label(leader, leader, "Propose team")  # one player missing: refused for now, noted
        assert h.repo.notes(refusals_key(GROUP, leader))
        yield table, session_of(h), leader
    finally:
        h.close()


def session_of(h: Harness) -> Any:
    from gamebot.storage.session import Session, chat_key

    item = h.repo.get(chat_key(GROUP))
    assert item is not None
    return Session.from_body(item.body)


def test_it_prints_the_chat_its_game_and_players_decoded(game, capsys):
    table, s, leader = game
    assert load_script().main(["--table", table, str(GROUP), "--user", str(leader)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["table"] == table and out["chat"] == GROUP
    chat = out["items"][f"chat#{GROUP}"]
    assert chat["compressed"] and chat["version"] >= 1 and not chat["expired"]
    assert datetime.fromisoformat(chat["expires"]).timestamp() == chat["expires_at"]  # (the same moment)
    summary = chat["summary"]
    assert summary["status"] == "playing" and summary["game_id"] == s.game_id
    assert [(p["id"], p["name"]) for p in summary["players"]] == [(p.id, p.name) for p in s.players]
    assert summary["phase"]["stage"] == "team" and summary["phase"]["leader"] == s.game().leader
    assert "entries" in summary["outbox"] and "state" not in chat  # (no whole body without --full)
    refused = out["items"][f"refused#{GROUP}#{leader}"]
    assert len(refused["notes"]) == 1 and refused["noted"] == 1
    assert any(k.startswith(f"next#{GROUP}#") for k in out["items"])  # the subscriber waiting
    assert f"user#{leader}" in out["items"] and f"stats#chat#{GROUP}" in out["absent"]
    assert f"idle#{GROUP}#{{0..15}}" in out["absent"]  # (no game has ended: no idle record yet)


def test_full_prints_each_body_with_the_engine_state_parsed(game, capsys):
    table, s, _ = game
    assert load_script().main(["--table", table, str(GROUP), "--game", "nosuchgame", "--full"]) == 0
    out = json.loads(capsys.readouterr().out)
    body = out["items"][f"chat#{GROUP}"]["body"]
    assert body["game_id"] == s.game_id and body["state"]["stage"] == "team"
    assert f"game#{GROUP}#nosuchgame" in out["absent"]


def test_the_table_is_found_by_its_stacks_output(game, endpoint, capsys):
    import boto3

    table, s, _ = game
    cfn = boto3.client("cloudformation", endpoint_url=endpoint, region_name="us-east-1")
    stack = f"avalon-{uuid.uuid4().hex[:6]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps({
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"GameTableName": {"Value": table}}}))
    assert load_script().main(["--stack", stack, str(GROUP)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["table"] == table and out["items"][f"chat#{GROUP}"]["summary"]["game_id"] == s.game_id
