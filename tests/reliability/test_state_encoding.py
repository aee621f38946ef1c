"""The stored game item stays small: DynamoRepository compresses bodies over 1 KB (a long 10-player game
with every module is about 19 KB of JSON, about 3 KB stored) and still reads items written uncompressed."""
from __future__ import annotations

import json
import random

import boto3
from moto import mock_aws

from engine import replay
from gamebot.aws.dynamo import COMPRESS_ABOVE, DynamoRepository
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from localdev.autoplay import Policy
from localdev.tables import create_table_from_template
from tests.reliability.support import SETUPS, RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen


def _long_game_body() -> dict:
    """The group's session at its largest during a 10-player game with every module (at the end, the
    engine state moves to the game's archive item)."""
    theme, n, roles, options = SETUPS["messengers_liars"]
    h = Harness(seed=1)
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    h.press_label(1, GROUP, "Start")
    largest: list[dict] = [{}]
    put = h.repo.put

    def measured(item, expect):
        if item.key == chat_key(GROUP) and len(json.dumps(item.body)) > len(json.dumps(largest[0])):
            largest[0] = item.body
        return put(item, expect)

    h.repo.put = measured
    RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1))).play()
    h.close()
    return largest[0]


def test_large_bodies_are_stored_compressed_and_read_back_unchanged(monkeypatch):
    import os

    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    body = _long_game_body()
    text = json.dumps(body, separators=(",", ":"))
    assert len(text) > 8 * 1024
    template = os.path.join(os.path.dirname(__file__), "..", "..", "template.yaml")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table_from_template(client, "games", template)
        repo = DynamoRepository("games", client=client)
        repo.put(Item("chat#1", body), None)
        repo.put(Item("user#1", {"id": 1, "started": True}), None)
        raw = client.get_item(TableName="games", Key={"pk": {"S": "chat#1"}})["Item"]
        small = client.get_item(TableName="games", Key={"pk": {"S": "user#1"}})["Item"]
        client.put_item(TableName="games", Item={"pk": {"S": "chat#2"}, "version": {"N": "1"}, "body": {"S": text}})
        back, legacy = repo.get("chat#1"), repo.get("chat#2")
    assert "B" in raw["body"] and len(raw["body"]["B"]) < len(text) / 4  # compressed
    assert small["body"] == {"S": '{"id":1,"started":true}'} and len('{"id":1,"started":true}') <= COMPRESS_ABOVE
    assert back.body == body and legacy.body == body  # and an item written before compression still reads
    state = Session.from_body(back.body).game()
    assert replay(state.config, state.seed, state.log).to_json() == state.to_json()
