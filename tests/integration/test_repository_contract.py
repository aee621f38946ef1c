"""The Repository contract: the same tests run on FakeRepository, on DynamoRepository with its default
client (ours, ``gamebot.aws.client``) against a moto server on 127.0.0.1, and on DynamoRepository with an
injected boto3 client (moto in process)."""
from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from gamebot import environment
from gamebot.aws.dynamo import DynamoRepository
from gamebot.storage.store import Delete, FakeRepository, Item, Repository, VersionConflict, Write, retrying
from localdev.tables import (
    REPO_ROOT,
    admin_client,
    create_table_from_template,
    load_template,
    table_definition,
)
from tests.moto_server import serialised_moto_server

T0 = 1_800_000_000

TEST_TEMPLATE = textwrap.dedent(
    """\
    AWSTemplateFormatVersion: "2010-09-09"
    Transform: AWS::Serverless-2016-10-31
    Parameters:
      Stage: {Type: String, Default: test}
    Resources:
      GameTable:
        Type: AWS::DynamoDB::Table
        Properties:
          TableName: !Sub "avalon-${Stage}"
          BillingMode: PAY_PER_REQUEST
          AttributeDefinitions:
            - AttributeName: pk
              AttributeType: S
          KeySchema:
            - AttributeName: pk
              KeyType: HASH
          TimeToLiveSpecification:
            AttributeName: expires_at
            Enabled: true
      Queue:
        Type: AWS::SQS::Queue
        Properties:
          QueueName: !Join ["-", [!Ref Stage, q]]
    Outputs:
      Table:
        Value: !GetAtt GameTable.Arn
    """
)


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def template(tmp_path: Path) -> Path:
    path = tmp_path / "template.yaml"
    path.write_text(TEST_TEMPLATE)
    return path


@pytest.fixture(scope="module")
def moto_url():
    with serialised_moto_server() as url:
        yield url


@pytest.fixture(params=["fake", "dynamo", "dynamo-boto3"])
def env(request, template, monkeypatch):
    """(repository, clock) for each implementation."""
    from gamebot.aws import dynamo

    clock = Clock()
    if request.param == "fake":
        yield FakeRepository(clock=clock), clock
        return
    if request.param == "dynamo":  # the default client, as in the Lambda functions
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", request.getfixturevalue("moto_url"))
        for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                            ("AWS_REGION", "us-east-1")):
            monkeypatch.setenv(name, value)
        table = f"games-{uuid.uuid4().hex[:12]}"
        create_table_from_template(admin_client(), table, template, exist_ok=False)
        dynamo.reset_default_client()
        try:
            yield DynamoRepository(table, clock=clock), clock
        finally:
            dynamo.reset_default_client()
            admin_client().delete_table(TableName=table)
        return
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table_from_template(client, "games", template)
        yield DynamoRepository("games", client=client, clock=clock), clock


def test_get_of_missing_key_is_none(env):
    repo, _ = env
    assert repo.get("nothing") is None


def test_create_then_read_round_trips_body(env):
    repo, _ = env
    body = {"name": "Ünïcode ♛", "seats": [1, 2, 3], "nested": {"ok": True, "none": None, "f": 1.5}}
    written = repo.put(Item("game#1", body), None)
    assert written.version == 1
    got = repo.get("game#1")
    assert got == Item("game#1", body, 1, None)


def test_conditional_update_bumps_version(env):
    repo, _ = env
    repo.put(Item("k", {"n": 1}), None)
    second = repo.put(Item("k", {"n": 2}), 1)
    assert second.version == 2
    assert repo.get("k").body == {"n": 2}
    assert repo.put(Item("k", {"n": 3}), 2).version == 3
    assert repo.get("k").version == 3


def test_stale_write_raises_version_conflict(env):
    repo, _ = env
    repo.put(Item("k", {"n": 1}), None)
    repo.put(Item("k", {"n": 2}), 1)
    with pytest.raises(VersionConflict):
        repo.put(Item("k", {"n": "stale"}), 1)
    assert repo.get("k") == Item("k", {"n": 2}, 2)


def test_update_of_missing_item_raises_version_conflict(env):
    repo, _ = env
    with pytest.raises(VersionConflict):
        repo.put(Item("absent", {}), 1)
    assert repo.get("absent") is None


def test_create_if_absent_twice_raises_version_conflict(env):
    repo, _ = env
    repo.put(Item("k", {"first": True}), None)
    with pytest.raises(VersionConflict):
        repo.put(Item("k", {"second": True}), None)
    assert repo.get("k").body == {"first": True}


def test_transaction_writes_and_deletes_together(env):
    repo, _ = env
    repo.put(Item("a", {"v": 1}), None)
    repo.put(Item("gone", {"v": 1}), None)
    out = repo.transact([Write(Item("a", {"v": 2}), 1), Write(Item("b", {"v": 1}), None)], [Delete("gone", 1)])
    assert [(i.key, i.version) for i in out] == [("a", 2), ("b", 1)]
    assert repo.get("a").body == {"v": 2}
    assert repo.get("b") == Item("b", {"v": 1}, 1)
    assert repo.get("gone") is None


def test_transaction_is_all_or_nothing_on_a_stale_write(env):
    repo, _ = env
    repo.put(Item("a", {"v": 1}), None)
    repo.put(Item("b", {"v": 1}), None)
    repo.put(Item("c", {"v": 1}), None)
    with pytest.raises(VersionConflict):
        repo.transact(
            [Write(Item("a", {"v": 2}), 1), Write(Item("new", {}), None), Write(Item("b", {"v": 2}), 7)],
            [Delete("c")],
        )
    assert repo.get("a") == Item("a", {"v": 1}, 1)
    assert repo.get("b") == Item("b", {"v": 1}, 1)
    assert repo.get("new") is None
    assert repo.get("c") is not None


def test_transaction_is_all_or_nothing_on_a_stale_delete(env):
    repo, _ = env
    repo.put(Item("a", {"v": 1}), None)
    repo.put(Item("d", {"v": 1}), None)
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("a", {"v": 2}), 1)], [Delete("d", 5)])
    assert repo.get("a").version == 1
    assert repo.get("d").version == 1


def test_transaction_create_if_absent_conflicts_with_existing_item(env):
    repo, _ = env
    repo.put(Item("taken", {}), None)
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("x", {}), None), Write(Item("taken", {"again": 1}), None)])
    assert repo.get("x") is None
    assert repo.get("taken").body == {}


def test_single_write_and_single_delete_transactions(env):
    repo, _ = env
    assert repo.transact([Write(Item("one", {"v": 1}), None)])[0].version == 1
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("one", {"v": 9}), None)])
    with pytest.raises(VersionConflict):
        repo.transact([], [Delete("one", 2)])
    assert repo.transact([], [Delete("one", 1)]) == []
    assert repo.get("one") is None


def test_delete_without_expected_version_removes_any_item(env):
    repo, _ = env
    repo.put(Item("k", {}), None)
    repo.put(Item("k", {}), 1)
    repo.delete("k")
    assert repo.get("k") is None
    repo.delete("k")  # deleting what is not there is fine
    assert repo.get("k") is None


def test_delete_with_expected_version_checks_it(env):
    repo, _ = env
    repo.put(Item("k", {}), None)
    repo.put(Item("k", {}), 1)
    with pytest.raises(VersionConflict):
        repo.delete("k", 1)
    assert repo.get("k").version == 2
    repo.delete("k", 2)
    assert repo.get("k") is None
    with pytest.raises(VersionConflict):
        repo.delete("k", 2)


def test_item_can_be_recreated_after_delete(env):
    repo, _ = env
    repo.put(Item("k", {"gen": 1}), None)
    repo.delete("k", 1)
    assert repo.put(Item("k", {"gen": 2}), None).version == 1
    assert repo.get("k").body == {"gen": 2}


def test_an_expired_item_counts_as_absent_and_can_be_created_again(env):
    repo, clock = env
    assert repo.put(Item("marker", {}, expires_at=T0 + 60), None).version == 1
    clock.now = T0 + 59
    with pytest.raises(VersionConflict):
        repo.put(Item("marker", {}, expires_at=T0 + 119), None)
    clock.now = T0 + 60  # expired: DynamoDB's TTL deletes it some time later, but it is gone for us now
    assert repo.get("marker") is None
    assert repo.put(Item("marker", {"again": True}, expires_at=T0 + 120), None).version == 1
    assert repo.get("marker").body == {"again": True}


def test_expired_item_reads_as_absent(env):
    repo, clock = env
    repo.put(Item("lobby", {"x": 1}, expires_at=T0 + 10), None)
    repo.put(Item("forever", {"x": 1}), None)
    clock.now = T0 + 9
    assert repo.get("lobby").expires_at == T0 + 10
    clock.now = T0 + 10
    assert repo.get("lobby") is None
    assert repo.get("forever") is not None


def test_expired_item_can_be_created_over_but_not_updated(env):
    repo, clock = env
    repo.put(Item("lobby", {"gen": 1}, expires_at=T0 + 10), None)
    clock.now = T0 + 11
    with pytest.raises(VersionConflict):
        repo.put(Item("lobby", {"gen": "stale"}), 1)
    fresh = repo.put(Item("lobby", {"gen": 2}), None)
    assert fresh.version == 1
    assert repo.get("lobby") == Item("lobby", {"gen": 2}, 1, None)


def test_rewrite_without_expiry_clears_expires_at(env):
    repo, clock = env
    repo.put(Item("k", {}, expires_at=T0 + 10), None)
    repo.put(Item("k", {"kept": True}), 1)
    clock.now = T0 + 1000
    assert repo.get("k") == Item("k", {"kept": True}, 2, None)


def test_returned_items_are_copies(env):
    repo, _ = env
    body = {"list": [1]}
    written = repo.put(Item("k", body), None)
    body["list"].append(2)
    written.body["list"].append(3)
    got = repo.get("k")
    got.body["list"].append(4)
    assert repo.get("k").body == {"list": [1]}


def test_calls_count_reads_and_writes(env):
    repo, _ = env
    base = dict(repo.calls)
    repo.get("a")
    repo.put(Item("a", {}), None)
    repo.get("a")
    repo.transact([Write(Item("a", {}), 1), Write(Item("b", {}), None)])
    repo.delete("b")
    repo.put(Item("c", {}), None)
    assert repo.calls["read"] - base["read"] == 2
    assert repo.calls["write"] - base["write"] == 4


def test_a_read_ahead_answers_the_block_s_first_read_of_its_key_once(env):
    """``prefetching(key)``: the first ``get(key)`` inside the block is the read started when it began
    (one read in all); other keys and later reads are read as usual; nothing outlives the block."""
    repo, _ = env
    repo.put(Item("chat#1", {"n": 1}), None)
    repo.put(Item("chat#2", {"n": 2}), None)
    base = repo.calls["read"]
    with repo.prefetching("chat#1"):
        assert repo.get("chat#2").body == {"n": 2}  # another key first: both answers stay right
        assert repo.get("chat#1").body == {"n": 1}
    assert repo.calls["read"] - base == 2
    with repo.prefetching("chat#1"):
        assert repo.get("chat#1").version == 1
        repo.put(Item("chat#1", {"n": 3}), 1)
        assert repo.get("chat#1").body == {"n": 3}  # the second read is a new one
    with repo.prefetching("chat#2"):
        pass  # never used
    repo.put(Item("chat#2", {"n": 4}), 1)
    assert repo.get("chat#2").body == {"n": 4}  # not the answer read ahead before the write
    with repo.prefetching(None):
        assert repo.get("chat#2").version == 2


def test_retrying_reapplies_after_a_conflict(env):
    repo, _ = env
    repo.put(Item("counter", {"n": 0}), None)
    interfered = []

    def bump() -> Item:
        current = repo.get("counter")
        if not interfered:  # another writer sneaks in between our read and our write, once
            interfered.append(True)
            repo.put(Item("counter", {"n": current.body["n"] + 100}), current.version)
        return repo.put(Item("counter", {"n": current.body["n"] + 1}), current.version)

    result = retrying(bump, backoff=0)
    assert result.body == {"n": 101}
    assert repo.get("counter").version == 3


def test_dynamo_items_have_the_agreed_attribute_layout(template, monkeypatch):
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table_from_template(client, "games", template)
        repo = DynamoRepository("games", client=client)
        repo.put(Item("game#7", {"b": [1, 2], "a": "x"}, expires_at=T0 * 2), None)
        raw = client.get_item(TableName="games", Key={"pk": {"S": "game#7"}})["Item"]
    assert raw == {
        "pk": {"S": "game#7"},
        "version": {"N": "1"},
        "body": {"S": '{"b":[1,2],"a":"x"}'},
        "expires_at": {"N": str(T0 * 2)},
    }


def test_table_from_template_has_key_billing_and_ttl(template, monkeypatch):
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        table = create_table_from_template(client, "games", template)
        again = create_table_from_template(client, "games", template)  # idempotent
        ttl = client.describe_time_to_live(TableName="games")["TimeToLiveDescription"]
    assert table["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert again["TableName"] == "games"
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}


def test_template_loader_reads_cloudformation_tags(template):
    parsed = load_template(template)
    assert parsed["Resources"]["GameTable"]["Properties"]["TableName"] == {"Fn::Sub": "avalon-${Stage}"}
    assert parsed["Outputs"]["Table"]["Value"] == {"Fn::GetAtt": ["GameTable", "Arn"]}
    assert parsed["Resources"]["Queue"]["Properties"]["QueueName"] == {"Fn::Join": ["-", [{"Ref": "Stage"}, "q"]]}
    assert table_definition(parsed)["KeySchema"][0]["AttributeName"] == "pk"


REAL_TEMPLATE = REPO_ROOT / "template.yaml"


@pytest.mark.skipif(not REAL_TEMPLATE.exists(), reason="template.yaml not written yet")
def test_real_template_table_matches_the_agreed_layout(monkeypatch):
    props = table_definition(load_template(REAL_TEMPLATE))
    assert props["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert props["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["TimeToLiveSpecification"]["AttributeName"] == "expires_at"
    assert str(props["TimeToLiveSpecification"]["Enabled"]).lower() == "true"
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table_from_template(client, "games", REAL_TEMPLATE)
        repo: Repository = DynamoRepository("games", client=client)
        repo.put(Item("k", {"x": 1}), None)
        assert repo.get("k") == Item("k", {"x": 1}, 1, None)


def test_transaction_touching_one_key_twice_is_refused(env):
    repo, _ = env
    repo.put(Item("a", {}), None)
    with pytest.raises(ValueError, match="once"):
        repo.transact([Write(Item("a", {"v": 2}), 1)], [Delete("a")])
    with pytest.raises(ValueError, match="once"):
        repo.transact([Write(Item("b", {}), None), Write(Item("b", {}), None)])
    assert repo.get("a") == Item("a", {}, 1)
    assert repo.get("b") is None


def test_empty_transaction_writes_nothing(env):
    repo, _ = env
    before = dict(repo.calls)
    assert repo.transact([]) == []
    assert repo.calls == before


def test_default_client_is_created_once_from_the_environment(monkeypatch):
    from gamebot.aws import dynamo

    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:8000")
    dynamo.reset_default_client()
    try:
        first, second = DynamoRepository("t"), DynamoRepository("t")
        assert first.client is second.client  # one client per container, created lazily
        assert first.client.region == "eu-west-3"
        assert first.client.endpoint_url == "http://127.0.0.1:8000"
        dynamo.reset_default_client()
        monkeypatch.delenv("AWS_REGION")
        monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
        monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB")
        monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
        client = DynamoRepository("t").client
        assert client.region == environment.DEFAULT_REGION
        assert client.endpoint_url == f"https://dynamodb.{environment.DEFAULT_REGION}.amazonaws.com"
    finally:
        dynamo.reset_default_client()


def test_get_many_reads_the_existing_live_items_in_one_request(env):
    repo, clock = env
    repo.put(Item("stats#chat#1", {"games": 3}), None)
    repo.put(Item("stats#user#7", {"games": 1}), None)
    repo.put(Item("old", {"x": 1}, expires_at=T0 + 10), None)
    clock.now = T0 + 20  # "old" has expired: absent, like for get
    base = dict(repo.calls)
    found = repo.get_many(["stats#chat#1", "stats#user#7", "stats#user#8", "old", "stats#chat#1"])
    assert found == {"stats#chat#1": Item("stats#chat#1", {"games": 3}, 1, None),
                     "stats#user#7": Item("stats#user#7", {"games": 1}, 1, None)}
    assert repo.calls["read"] - base["read"] == 1
    assert repo.get_many([]) == {} and repo.get_many(["nothing"]) == {}
    with pytest.raises(ValueError):
        repo.get_many([f"k{i}" for i in range(101)])


def test_get_many_versions_guard_the_writes_that_follow(env):
    repo, _ = env
    repo.put(Item("a", {"n": 1}), None)
    seen = repo.get_many(["a", "b"])
    repo.put(Item("a", {"n": 2}), seen["a"].version)  # someone else writes in between
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("a", {"n": 10}), seen["a"].version), Write(Item("b", {"n": 1}), None)])
    assert repo.get("b") is None


def test_notes_are_kept_side_by_side_without_versions_and_expire(env):
    repo, clock = env
    assert repo.notes("refused#1#7") == {}
    repo.note("refused#1#7", "3", 501, T0 + 60)
    repo.note("refused#1#7", "4", 502, T0 + 60)
    repo.note("refused#1#7", "3", 501, T0 + 60)  # the same note again: no conflict, no change
    repo.note("refused#1#8", "3", 900, T0 + 60)
    assert repo.calls["note"] == 4 and repo.calls["write"] == 0  # (notes: counted apart from writes)
    assert repo.notes("refused#1#7") == {"3": 501, "4": 502}
    assert repo.notes("refused#1#8") == {"3": 900}
    clock.now = T0 + 61
    assert repo.notes("refused#1#7") == {}


def test_a_groups_subscribers_are_read_in_one_request_and_taken_out_one_at_a_time(env, monkeypatch):
    from gamebot.storage import subscribers

    repo, _ = env
    ids = [7_000_000_000 + i for i in range(45)]  # (every shard, three in some)
    assert all(subscribers.subscribe(repo, 1, uid, "fr" if uid % 2 else "") == subscribers.ADDED for uid in ids)
    assert subscribers.subscribe(repo, 1, ids[0], "de") == subscribers.ALREADY
    base = dict(repo.calls)
    shards = subscribers.waiting(repo, 1)
    assert repo.calls["read"] - base["read"] == 1 and len(shards) == subscribers.SHARDS
    assert {int(u): lang for s in shards for u, lang in s.subs.items()} == {
        uid: "fr" if uid % 2 else "" for uid in ids}
    shard = next(s for s in shards if len(s.subs) == 3)
    first, second, third = sorted(shard.subs)
    subscribers.subscribe(repo, 1, int(first) + 20 * 1000, "")  # someone subscribes meanwhile: a conflict, read again
    shard.strike(repo, first)
    shard.strike(repo, second)
    assert sorted(subscribers.members(repo.get(shard.key))) == sorted([third, str(int(first) + 20 * 1000)])
    lone = next(s for s in shards if len(s.subs) == 2 and s.key != shard.key)
    for uid in list(lone.subs):
        lone.strike(repo, uid)
    assert repo.get(lone.key) is None  # the last one out deletes the item
    monkeypatch.setattr(subscribers, "PER_SHARD", 2)  # (the shard holds two now)
    assert subscribers.subscribe(repo, 1, int(third) + 40 * 1000, "") == subscribers.FULL


def test_an_old_chat_item_moves_its_history_out_in_one_transaction(env):
    from gamebot.storage import idle_record, recovery, subscribers
    from gamebot.storage.session import Session, chat_key

    repo, _ = env
    body = Session(chat_id=-5, title="Old", status="ended", game_id="abc123").body()
    body["next_game"] = [{"id": 7_000_000_000 + i, "name": f"S{i}", "lang": "it"} for i in range(300)]
    body["idle_totals"] = {str(8_000_000 + i): 2 for i in range(200)}
    body["idle_names"] = {str(8_000_000 + i): f"I{i}" for i in range(200)}
    repo.put(Item(chat_key(-5), body), None)
    subscribers.subscribe(repo, -5, 7_000_000_000, "")  # (already there the new way: its language stays)
    stored = repo.get(chat_key(-5))
    moved = recovery.move_out(repo, stored)  # 1 + 20 + 16 items in one transaction
    assert moved.version == stored.version + 1 and "next_game" not in repo.get(chat_key(-5)).body
    waiting = {int(u): lang for s in subscribers.waiting(repo, -5) for u, lang in s.subs.items()}
    assert len(waiting) == 300 and waiting[7_000_000_000] == "" and waiting[7_000_000_001] == "it"
    assert idle_record.stored(repo, -5)[0] == body["idle_totals"]
    assert recovery.move_out(repo, repo.get(chat_key(-5))) is None  # nothing left to move
