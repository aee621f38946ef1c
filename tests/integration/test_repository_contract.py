"""The Repository contract: the same tests run on FakeRepository, on DynamoRepository with its default
client (ours, ``gamebot.aws.client``) against a moto server on 127.0.0.1, and on DynamoRepository with an
injected boto3 client against the same server (the layout and template tests use moto in process)."""
from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from gamebot import environment
from gamebot.aws.dynamo import DynamoRepository
from gamebot.storage import lifetimes
from gamebot.storage.store import Delete, FakeRepository, Item, Repository, VersionConflict, Write, retrying
from localdev.tables import (
    REPO_ROOT,
    admin_client,
    create_table_from_template,
    load_template,
    table_definition,
)
from tests.moto_server import dynamo_client

T0 = 1_800_000_000
YEAR = lifetimes.YEAR


def kept(key: str, body: dict, version: int) -> Item:
    """The item a write at T0 stores when it leaves ``expires_at`` unset: its kind's life from T0."""
    return Item(key, body, version, T0 + lifetimes.kind_of(key).life)

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


@pytest.fixture
def moto_url(endpoint):
    return endpoint  # the process's moto server (tests/conftest.py); each test makes its own table


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
    # an injected boto3 client, on the same moto server (one server per process: tests/conftest.py)
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    client = dynamo_client(request.getfixturevalue("moto_url"))
    table = f"games-{uuid.uuid4().hex[:12]}"
    create_table_from_template(client, table, template, exist_ok=False)
    try:
        yield DynamoRepository(table, client=client, clock=clock), clock
    finally:
        client.delete_table(TableName=table)


def test_get_of_missing_key_is_none(env):
    repo, _ = env
    assert repo.get("nothing") is None


def test_create_then_read_round_trips_body(env):
    repo, _ = env
    body = {"name": "Ünïcode ♛", "seats": [1, 2, 3], "nested": {"ok": True, "none": None, "f": 1.5}}
    written = repo.put(Item("game#1", body), None)
    assert written == kept("game#1", body, 1)
    got = repo.get("game#1")
    assert got == kept("game#1", body, 1)


def test_conditional_update_bumps_version(env):
    repo, _ = env
    repo.put(Item("chat#1", {"n": 1}), None)
    second = repo.put(Item("chat#1", {"n": 2}), 1)
    assert second.version == 2
    assert repo.get("chat#1").body == {"n": 2}
    assert repo.put(Item("chat#1", {"n": 3}), 2).version == 3
    assert repo.get("chat#1").version == 3


def test_stale_write_raises_version_conflict(env):
    repo, _ = env
    repo.put(Item("chat#1", {"n": 1}), None)
    repo.put(Item("chat#1", {"n": 2}), 1)
    with pytest.raises(VersionConflict):
        repo.put(Item("chat#1", {"n": "stale"}), 1)
    assert repo.get("chat#1") == kept("chat#1", {"n": 2}, 2)


def test_update_of_missing_item_raises_version_conflict(env):
    repo, _ = env
    with pytest.raises(VersionConflict):
        repo.put(Item("chat#404", {}), 1)
    assert repo.get("chat#404") is None


def test_create_if_absent_twice_raises_version_conflict(env):
    repo, _ = env
    repo.put(Item("chat#1", {"first": True}), None)
    with pytest.raises(VersionConflict):
        repo.put(Item("chat#1", {"second": True}), None)
    assert repo.get("chat#1").body == {"first": True}


def test_transaction_writes_and_deletes_together(env):
    repo, _ = env
    repo.put(Item("chat#1", {"v": 1}), None)
    repo.put(Item("user#9", {"v": 1}), None)
    out = repo.transact([Write(Item("chat#1", {"v": 2}), 1), Write(Item("user#2", {"v": 1}), None)], [Delete("user#9", 1)])
    assert [(i.key, i.version) for i in out] == [("chat#1", 2), ("user#2", 1)]
    assert repo.get("chat#1").body == {"v": 2}
    assert repo.get("user#2") == kept("user#2", {"v": 1}, 1)
    assert repo.get("user#9") is None


def test_transaction_is_all_or_nothing_on_a_stale_write(env):
    repo, _ = env
    repo.put(Item("chat#1", {"v": 1}), None)
    repo.put(Item("user#2", {"v": 1}), None)
    repo.put(Item("user#3", {"v": 1}), None)
    with pytest.raises(VersionConflict):
        repo.transact(
            [Write(Item("chat#1", {"v": 2}), 1), Write(Item("user#5", {}), None), Write(Item("user#2", {"v": 2}), 7)],
            [Delete("user#3")],
        )
    assert repo.get("chat#1") == kept("chat#1", {"v": 1}, 1)
    assert repo.get("user#2") == kept("user#2", {"v": 1}, 1)
    assert repo.get("user#5") is None
    assert repo.get("user#3") is not None


def test_transaction_is_all_or_nothing_on_a_stale_delete(env):
    repo, _ = env
    repo.put(Item("chat#1", {"v": 1}), None)
    repo.put(Item("user#4", {"v": 1}), None)
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("chat#1", {"v": 2}), 1)], [Delete("user#4", 5)])
    assert repo.get("chat#1").version == 1
    assert repo.get("user#4").version == 1


def test_transaction_create_if_absent_conflicts_with_existing_item(env):
    repo, _ = env
    repo.put(Item("user#7", {}), None)
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("user#6", {}), None), Write(Item("user#7", {"again": 1}), None)])
    assert repo.get("user#6") is None
    assert repo.get("user#7").body == {}


def test_single_write_and_single_delete_transactions(env):
    repo, _ = env
    assert repo.transact([Write(Item("user#8", {"v": 1}), None)])[0].version == 1
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("user#8", {"v": 9}), None)])
    with pytest.raises(VersionConflict):
        repo.transact([], [Delete("user#8", 2)])
    assert repo.transact([], [Delete("user#8", 1)]) == []
    assert repo.get("user#8") is None


def test_delete_without_expected_version_removes_any_item(env):
    repo, _ = env
    repo.put(Item("chat#1", {}), None)
    repo.put(Item("chat#1", {}), 1)
    repo.delete("chat#1")
    assert repo.get("chat#1") is None
    repo.delete("chat#1")  # deleting what is not there is fine
    assert repo.get("chat#1") is None


def test_delete_with_expected_version_checks_it(env):
    repo, _ = env
    repo.put(Item("chat#1", {}), None)
    repo.put(Item("chat#1", {}), 1)
    with pytest.raises(VersionConflict):
        repo.delete("chat#1", 1)
    assert repo.get("chat#1").version == 2
    repo.delete("chat#1", 2)
    assert repo.get("chat#1") is None
    with pytest.raises(VersionConflict):
        repo.delete("chat#1", 2)


def test_item_can_be_recreated_after_delete(env):
    repo, _ = env
    repo.put(Item("chat#1", {"gen": 1}), None)
    repo.delete("chat#1", 1)
    assert repo.put(Item("chat#1", {"gen": 2}), None).version == 1
    assert repo.get("chat#1").body == {"gen": 2}


def test_an_expired_item_counts_as_absent_and_can_be_created_again(env):
    repo, clock = env
    assert repo.put(Item("game#1#m", {}, expires_at=T0 + 60), None).version == 1
    clock.now = T0 + 59
    with pytest.raises(VersionConflict):
        repo.put(Item("game#1#m", {}, expires_at=T0 + 119), None)
    clock.now = T0 + 60  # expired: DynamoDB's TTL deletes it some time later, but it is gone for us now
    assert repo.get("game#1#m") is None
    assert repo.put(Item("game#1#m", {"again": True}, expires_at=T0 + 120), None).version == 1
    assert repo.get("game#1#m").body == {"again": True}


def test_expired_item_reads_as_absent(env):
    repo, clock = env
    repo.put(Item("game#1#l", {"x": 1}, expires_at=T0 + 10), None)
    repo.put(Item("chat#2", {"x": 1}), None)
    clock.now = T0 + 9
    assert repo.get("game#1#l").expires_at == T0 + 10
    clock.now = T0 + 10
    assert repo.get("game#1#l") is None
    assert repo.get("chat#2") is not None


def test_expired_item_can_be_created_over_but_not_updated(env):
    repo, clock = env
    repo.put(Item("game#1#l", {"gen": 1}, expires_at=T0 + 10), None)
    clock.now = T0 + 11
    with pytest.raises(VersionConflict):
        repo.put(Item("game#1#l", {"gen": "stale"}), 1)
    fresh = repo.put(Item("game#1#l", {"gen": 2}), None)
    assert fresh.version == 1
    assert repo.get("game#1#l") == Item("game#1#l", {"gen": 2}, 1, T0 + 11 + lifetimes.kind_of("game#").life)


def test_a_write_that_leaves_the_expiry_unset_gets_its_kinds_life_from_the_write(env):
    """Issue 36: a long-lived item (a year) lives a year after its *last* write; one set by its writer (a
    game's archive) keeps what the writer set."""
    repo, clock = env
    assert repo.put(Item("chat#1", {}), None).expires_at == T0 + YEAR
    clock.now = T0 + 200 * 86400
    assert repo.put(Item("chat#1", {"kept": True}), 1).expires_at == clock.now + YEAR
    clock.now = T0 + YEAR + 1  # a year after the first write, not after the last
    assert repo.get("chat#1") == Item("chat#1", {"kept": True}, 2, T0 + 200 * 86400 + YEAR)
    clock.now = T0 + 200 * 86400 + YEAR
    assert repo.get("chat#1") is None
    assert repo.put(Item("game#1#a", {}, expires_at=T0 + 10), None).expires_at == T0 + 10  # (past: absent at once)
    assert repo.get("game#1#a") is None


def test_returned_items_are_copies(env):
    repo, _ = env
    body = {"list": [1]}
    written = repo.put(Item("chat#1", body), None)
    body["list"].append(2)
    written.body["list"].append(3)
    got = repo.get("chat#1")
    got.body["list"].append(4)
    assert repo.get("chat#1").body == {"list": [1]}


def test_calls_count_reads_and_writes(env):
    repo, _ = env
    base = dict(repo.calls)
    repo.get("chat#1")
    repo.put(Item("chat#1", {}), None)
    repo.get("chat#1")
    repo.transact([Write(Item("chat#1", {}), 1), Write(Item("chat#2", {}), None)])
    repo.delete("chat#2")
    repo.put(Item("chat#3", {}), None)
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
    repo.put(Item("chat#9", {"n": 0}), None)
    interfered = []

    def bump() -> Item:
        current = repo.get("chat#9")
        if not interfered:  # another writer sneaks in between our read and our write, once
            interfered.append(True)
            repo.put(Item("chat#9", {"n": current.body["n"] + 100}), current.version)
        return repo.put(Item("chat#9", {"n": current.body["n"] + 1}), current.version)

    result = retrying(bump, backoff=0)
    assert result.body == {"n": 101}
    assert repo.get("chat#9").version == 3


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
        repo.put(Item("chat#1", {"x": 1}), None)
        got = repo.get("chat#1")
        assert got is not None and (got.body, got.version) == ({"x": 1}, 1)


def test_transaction_touching_one_key_twice_is_refused(env):
    repo, _ = env
    repo.put(Item("chat#1", {}), None)
    with pytest.raises(ValueError, match="once"):
        repo.transact([Write(Item("chat#1", {"v": 2}), 1)], [Delete("chat#1")])
    with pytest.raises(ValueError, match="once"):
        repo.transact([Write(Item("chat#2", {}), None), Write(Item("chat#2", {}), None)])
    assert repo.get("chat#1") == kept("chat#1", {}, 1)
    assert repo.get("chat#2") is None


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
    repo.put(Item("game#1#old", {"x": 1}, expires_at=T0 + 10), None)
    clock.now = T0 + 20  # "game#1#old" has expired: absent, like for get
    base = dict(repo.calls)
    found = repo.get_many(["stats#chat#1", "stats#user#7", "stats#user#8", "game#1#old", "stats#chat#1"])
    assert found == {"stats#chat#1": kept("stats#chat#1", {"games": 3}, 1),
                     "stats#user#7": kept("stats#user#7", {"games": 1}, 1)}
    assert repo.calls["read"] - base["read"] == 1
    assert repo.get_many([]) == {} and repo.get_many(["nothing"]) == {}
    with pytest.raises(ValueError):
        repo.get_many([f"k{i}" for i in range(101)])


def test_get_many_versions_guard_the_writes_that_follow(env):
    repo, _ = env
    repo.put(Item("chat#1", {"n": 1}), None)
    seen = repo.get_many(["chat#1", "chat#2"])
    repo.put(Item("chat#1", {"n": 2}), seen["chat#1"].version)  # someone else writes in between
    with pytest.raises(VersionConflict):
        repo.transact([Write(Item("chat#1", {"n": 10}), seen["chat#1"].version), Write(Item("chat#2", {"n": 1}), None)])
    assert repo.get("chat#2") is None


def test_notes_are_kept_side_by_side_without_versions_and_expire(env):
    repo, clock = env
    assert repo.notes("refused#1#7") == {}
    repo.note("refused#1#7", "3", 501)
    repo.note("refused#1#7", "4", 502)
    repo.note("refused#1#7", "3", 503)  # the same note again: no conflict, no change
    repo.note("refused#1#8", "3", 900)
    assert repo.calls["note"] == 4 and repo.calls["write"] == 0  # (notes: counted apart from writes)
    assert repo.notes("refused#1#7") == {"3": 501, "4": 502}
    assert repo.notes("refused#1#8") == {"3": 900}
    clock.now = T0 + 86400  # a day after the first note (its kind's life: lifetimes)
    assert repo.notes("refused#1#7") == {}


def expiry_of(repo: Repository, key: str) -> int | None:
    """The stored expiry of a notes item (read apart: ``notes`` gives the notes only)."""
    if isinstance(repo, FakeRepository):
        return repo.items[key].expires_at
    assert isinstance(repo, DynamoRepository)
    return int(repo.client.get_item(TableName=repo.table_name, Key={"pk": {"S": key}})["Item"]["expires_at"]["N"])


def test_five_refusals_20_hours_apart_keep_the_expiry_of_their_items_first_note(env):
    """Issue 36: a later refusal never pushes a notes item's expiry (a day from its first note) forward;
    one after it expired (TTL has not deleted it yet: moto never does) starts a new item."""
    repo, clock = env
    key, hours = "refused#-5#7", 3600
    seen = []
    for i in range(5):
        clock.now = T0 + i * 20 * hours
        repo.note(key, str(100 + i), 1)
        seen.append((expiry_of(repo, key), sorted(repo.notes(key))))
    assert seen == [
        (T0 + 24 * hours, ["100"]),
        (T0 + 24 * hours, ["100", "101"]),  # 4 h left: the same item, the same expiry
        (T0 + 64 * hours, ["102"]),  # the first had expired: a new one, a day from now
        (T0 + 64 * hours, ["102", "103"]),
        (T0 + 104 * hours, ["104"]),
    ]


def test_a_notes_item_keeps_the_latest_notes_and_its_expiry_when_full(env):
    repo, clock = env
    key, most = "refused#-5#7", lifetimes.MAX_NOTES
    for i in range(most + 12):
        clock.now = T0 + i
        repo.note(key, str(1000 + i), 1)
    assert sorted(repo.notes(key)) == [str(1000 + i) for i in range(12, most + 12)]  # the oldest made room
    assert expiry_of(repo, key) == T0 + 86400
    repo.note(key, str(1000 + most + 11), 1)  # (one already there: no change)
    assert len(repo.notes(key)) == most and repo.calls["note"] == most + 13


def test_a_note_in_its_items_last_hour_starts_the_next_item_with_the_notes_still_there(env):
    """A note is never kept just a few seconds: one made when its item has less than
    ``lifetimes.NOTE_MARGIN`` left goes into the next item (a day from now), with the earlier notes."""
    repo, clock = env
    key = "refused#-5#7"
    repo.note(key, "100", 1)
    clock.now = T0 + 86400 - lifetimes.NOTE_MARGIN + 1
    repo.note(key, "101", 1)
    assert repo.notes(key) == {"100": 1, "101": 1} and expiry_of(repo, key) == clock.now + 86400
    clock.now = T0 + 86400 + 60  # past the first item's day: both notes still there
    assert repo.notes(key) == {"100": 1, "101": 1}


def test_a_key_of_no_known_kind_fails_in_the_fake_and_gets_the_longest_life_in_dynamodb(env):
    """Every kind is listed in ``lifetimes.KINDS``: the tests' repository refuses a key of another (nothing
    written); DynamoDB, in production, stores it with the longest life rather than fail a group's update."""
    repo, _ = env
    writes = [Write(Item("chat#1", {}), None), Write(Item("unlisted#1", {}), None)]
    if isinstance(repo, FakeRepository):
        with pytest.raises(lifetimes.UnknownKind):
            repo.transact(writes)
        with pytest.raises(lifetimes.UnknownKind):
            repo.note("unlisted#1", "1", 1)
        with pytest.raises(ValueError):
            repo.put(Item("refused#1#2", {}), None)  # (a notes item: Repository.note only)
        assert repo.get("chat#1") is None
        return
    repo.transact(writes)
    assert repo.get("unlisted#1") == Item("unlisted#1", {}, 1, T0 + lifetimes.LONGEST)


def test_every_listed_kind_gets_its_life_from_a_write_through_put_or_transact(env):
    repo, _ = env
    versioned = [k for k in lifetimes.KINDS if not k.notes]
    assert len(versioned) == len(lifetimes.KINDS) - 1
    repo.put(Item(versioned[0].prefix + "1", {}), None)
    repo.transact([Write(Item(k.prefix + "1", {}), None) for k in versioned[1:]])
    assert {k.prefix: repo.get(k.prefix + "1").expires_at for k in versioned} == {
        k.prefix: T0 + k.life for k in versioned}


def test_notes_an_earlier_version_wrote_without_a_count_are_bounded_too(env):
    """An item the earlier version wrote (its notes, no count, an expiry it moved on each refusal) takes the
    next note and is cut to the latest ``MAX_NOTES``, its expiry unchanged."""
    repo, _ = env
    key, most = "refused#-5#7", lifetimes.MAX_NOTES
    notes = {str(1000 + i): 1 for i in range(most + 5)}
    if isinstance(repo, FakeRepository):
        repo.items[key] = Item(key, dict(notes), 0, T0 + 20 * 3600)
    else:
        assert isinstance(repo, DynamoRepository)
        repo.client.put_item(TableName=repo.table_name, Item={
            "pk": {"S": key}, "expires_at": {"N": str(T0 + 20 * 3600)}, **{f"n_{k}": {"N": "1"} for k in notes}})
    repo.note(key, "2000", 1)
    assert sorted(repo.notes(key)) == [*(str(1000 + i) for i in range(6, most + 5)), "2000"]
    assert expiry_of(repo, key) == T0 + 20 * 3600


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
