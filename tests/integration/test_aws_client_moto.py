"""Our AWS client (gamebot.aws.client) against a moto server on 127.0.0.1: every DynamoDB operation the bot uses,
directly and through DynamoRepository, answering what boto3's client answers on the same server
(binary values, failed conditions, cancelled transactions), and EventBridge Scheduler's create and
delete (with a conflict and a schedule not found)."""
from __future__ import annotations

import uuid

import pytest

from gamebot.aws.client import AWSError, DynamoDB
from gamebot.aws.dynamo import COMPRESS_ABOVE, DynamoRepository
from gamebot.aws.signing import Credentials
from gamebot.storage.store import Delete, Item, VersionConflict, Write
from gamebot.timing.scheduler import EventBridgeScheduler, Timer
from tests.moto_server import aws_dynamo_client, dynamo_client, reset_moto
from tests.unit.aws_fakes import ScriptedServer, dynamo_error

BLOB = bytes(range(256)) * 3


@pytest.fixture
def clients(endpoint):
    """(ours, boto3's, table): a fresh table on the server."""
    boto = dynamo_client(endpoint)
    table = f"t-{uuid.uuid4().hex[:10]}"
    boto.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    yield aws_dynamo_client(endpoint), boto, table
    boto.delete_table(TableName=table)


def _plain(response: dict) -> dict:
    return {k: v for k, v in response.items() if k != "ResponseMetadata"}


def _item(key: str, **extra) -> dict:
    return {"pk": {"S": key}, "version": {"N": "1"}, "body": {"B": BLOB}, "set": {"BS": [b"\x00", b"\xff"]},
            "nested": {"M": {"l": {"L": [{"B": b"\x01"}, {"N": "2"}]}}}, **extra}


def test_get_put_update_delete_answer_as_boto3_does(clients):
    ours, boto, table = clients
    assert _plain(ours.put_item(TableName=table, Item=_item("a"))) == {}
    for client in (ours, boto):
        got = client.get_item(TableName=table, Key={"pk": {"S": "a"}}, ConsistentRead=True)
        assert _plain(got) == {"Item": _item("a")}
    assert _plain(ours.get_item(TableName=table, Key={"pk": {"S": "none"}})) == \
        _plain(boto.get_item(TableName=table, Key={"pk": {"S": "none"}})) == {}
    updated = ours.update_item(TableName=table, Key={"pk": {"S": "a"}}, UpdateExpression="SET #b = :b",
                               ExpressionAttributeNames={"#b": "other"},
                               ExpressionAttributeValues={":b": {"B": b"\x07\x08"}}, ReturnValues="ALL_NEW")
    assert updated["Attributes"] == _item("a", other={"B": b"\x07\x08"})
    old = ours.delete_item(TableName=table, Key={"pk": {"S": "a"}}, ReturnValues="ALL_OLD")
    assert old["Attributes"] == _item("a", other={"B": b"\x07\x08"})
    assert "Item" not in ours.get_item(TableName=table, Key={"pk": {"S": "a"}})


def test_a_failed_condition_raises_with_boto3_s_error(clients):
    ours, boto, table = clients
    ours.put_item(TableName=table, Item=_item("a"))
    errors = []
    for client in (ours, boto):
        with pytest.raises(Exception) as caught:
            client.put_item(TableName=table, Item=_item("a"), ConditionExpression="attribute_not_exists(pk)")
        errors.append(caught.value)
    assert isinstance(errors[0], AWSError)
    assert errors[0].response["Error"] == errors[1].response["Error"] == {
        "Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert errors[0].response["ResponseMetadata"]["HTTPStatusCode"] == 400
    with pytest.raises(AWSError) as caught:
        ours.delete_item(TableName=table, Key={"pk": {"S": "a"}}, ConditionExpression="version = :v",
                         ExpressionAttributeValues={":v": {"N": "9"}})
    assert caught.value.code == "ConditionalCheckFailedException"


def test_transactions_and_batch_reads_answer_as_boto3_does(clients):
    ours, boto, table = clients
    ours.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": _item("a")}},
        {"Put": {"TableName": table, "Item": _item("b"), "ConditionExpression": "attribute_not_exists(pk)"}},
    ])
    request = {"TransactItems": [{"Get": {"TableName": table, "Key": {"pk": {"S": k}}}} for k in ("a", "b", "c")]}
    assert _plain(ours.transact_get_items(**request)) == _plain(boto.transact_get_items(**request))
    assert [r.get("Item") for r in ours.transact_get_items(**request)["Responses"]] == [_item("a"), _item("b"), None]
    batch = {"RequestItems": {table: {"Keys": [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}], "ConsistentRead": True}}}
    ours_batch, boto_batch = ours.batch_get_item(**batch), boto.batch_get_item(**batch)
    key = sorted  # (any order)
    assert key(ours_batch["Responses"][table], key=lambda i: i["pk"]["S"]) == [_item("a"), _item("b")]
    assert key(boto_batch["Responses"][table], key=lambda i: i["pk"]["S"]) == [_item("a"), _item("b")]


def test_a_retried_transaction_carries_the_same_client_request_token_and_moto_accepts_it(clients, endpoint):
    """A throttled transaction is sent again with the token of its first attempt (as boto3's would be),
    through a scripted server in front of moto that refuses the first attempt and passes the rest on."""
    _, boto, table = clients
    with ScriptedServer(dynamo_error("ThrottlingException"), forward=endpoint) as front:
        ours = DynamoDB(endpoint=front.url, region_name="us-east-1", creds=lambda: Credentials("testing", "testing"),
                        sleep=lambda seconds: None)
        answer = ours.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": _item("a"), "ConditionExpression": "attribute_not_exists(pk)"}},
            {"Put": {"TableName": table, "Item": _item("b")}},
        ])
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200 and answer["ResponseMetadata"]["RetryAttempts"] == 1
    first, retried = (r.json() for r in front.requests)
    assert first == retried and uuid.UUID(first["ClientRequestToken"])
    got = boto.get_item(TableName=table, Key={"pk": {"S": "b"}}, ConsistentRead=True)
    assert got["Item"] == _item("b")


def test_a_cancelled_transaction_carries_its_reasons_with_the_old_item(clients):
    ours, boto, table = clients
    ours.put_item(TableName=table, Item=_item("a"))
    cancel = {"TransactItems": [
        {"Put": {"TableName": table, "Item": _item("a"), "ConditionExpression": "attribute_not_exists(pk)",
                 "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
        {"Put": {"TableName": table, "Item": _item("z")}},
    ]}
    responses = []
    for client in (ours, boto):
        with pytest.raises(Exception) as caught:
            client.transact_write_items(**cancel)
        responses.append(caught.value.response)
    assert responses[0]["Error"]["Code"] == responses[1]["Error"]["Code"] == "TransactionCanceledException"
    assert responses[0]["CancellationReasons"] == responses[1]["CancellationReasons"]
    assert responses[0]["CancellationReasons"][0]["Code"] == "ConditionalCheckFailed"
    assert responses[0]["CancellationReasons"][0]["Item"] == _item("a")  # bytes, as boto3 gives them
    assert "Item" not in ours.get_item(TableName=table, Key={"pk": {"S": "z"}})


def test_the_repository_on_our_client(clients):
    ours, boto, table = clients
    repo = DynamoRepository(table, client=ours)
    big = {"log": [f"action {i}" for i in range(COMPRESS_ABOVE)]}  # stored compressed (a B attribute)
    first = repo.put(Item("game#1", big), None)
    assert repo.get("game#1") == first
    raw = boto.get_item(TableName=table, Key={"pk": {"S": "game#1"}})["Item"]
    assert "B" in raw["body"]
    with pytest.raises(VersionConflict):
        repo.put(Item("game#1", {"n": 1}), None)
    with pytest.raises(VersionConflict):  # a cancelled transaction becomes a conflict
        repo.transact([Write(Item("game#1", {"n": 2}), 7), Write(Item("other", {}), None)])
    repo.transact([Write(Item("game#1", {"n": 3}), 1)], [Delete("nothing")])
    assert {k: (i.body, i.version) for k, i in repo.get_many(["game#1", "other"]).items()} == {"game#1": ({"n": 3}, 2)}
    repo.note("refused#1#7", "a", 5, 2_000_000_000)
    assert repo.notes("refused#1#7") == {"a": 5}


def test_an_unknown_table_is_an_error_the_caller_sees(clients):
    ours, _, _ = clients
    with pytest.raises(AWSError) as caught:
        ours.get_item(TableName="no-such-table", Key={"pk": {"S": "a"}})
    assert caught.value.code == "ResourceNotFoundException" and not caught.value.retryable


# -- EventBridge Scheduler --------------------------------------------------------------------------


@pytest.fixture
def scheduler(endpoint, monkeypatch):
    import boto3

    reset_moto(endpoint)
    for name, value in (("AWS_ENDPOINT_URL_SCHEDULER", endpoint), ("AWS_ACCESS_KEY_ID", "testing"),
                        ("AWS_SECRET_ACCESS_KEY", "testing"), ("AWS_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    boto = boto3.client("scheduler", endpoint_url=endpoint, region_name="us-east-1")
    boto.create_schedule_group(Name="g")
    return boto


TARGET = {"Arn": "arn:aws:lambda:us-east-1:123456789012:function:timer",
          "RoleArn": "arn:aws:iam::123456789012:role/scheduler", "Input": '{"a":1}'}


def test_schedules_are_created_and_deleted(scheduler):
    from gamebot.aws.scheduler_api import Scheduler

    ours = Scheduler()
    created = ours.create_schedule(Name="n-1.x_y", GroupName="g", ScheduleExpression="at(2030-01-01T00:00:00)",
                                   ScheduleExpressionTimezone="UTC", FlexibleTimeWindow={"Mode": "OFF"},
                                   ActionAfterCompletion="DELETE", Target=TARGET)
    assert created["ScheduleArn"].endswith(":schedule/g/n-1.x_y")
    seen = scheduler.get_schedule(Name="n-1.x_y", GroupName="g")
    assert (seen["ScheduleExpression"], seen["Target"]["Input"], seen["ActionAfterCompletion"]) == (
        "at(2030-01-01T00:00:00)", '{"a":1}', "DELETE")
    with pytest.raises(AWSError) as conflict:
        ours.create_schedule(Name="n-1.x_y", GroupName="g", ScheduleExpression="at(2030-01-01T00:00:00)",
                             FlexibleTimeWindow={"Mode": "OFF"}, Target=TARGET)
    assert conflict.value.code == "ConflictException"
    assert conflict.value.response["Error"]["Code"] == "ConflictException"
    ours.delete_schedule(Name="n-1.x_y", GroupName="g")
    assert scheduler.list_schedules(GroupName="g")["Schedules"] == []
    with pytest.raises(AWSError) as missing:
        ours.delete_schedule(Name="n-1.x_y", GroupName="g")
    assert (missing.value.code, missing.value.status) == ("ResourceNotFoundException", 404)


def test_the_timers_scheduler_uses_our_client_and_ignores_a_name_scheduled_twice(scheduler):
    timers = EventBridgeScheduler(TARGET["Arn"], TARGET["RoleArn"], "g")
    assert type(timers.client).__module__ == "gamebot.aws.scheduler_api"
    timers.schedule(Timer("t1", 1_900_000_000, {"chat": -5}))
    timers.schedule(Timer("t1", 1_900_000_000, {"chat": -5}))  # ConflictException: already done
    assert timers.created == 1
    found = scheduler.get_schedule(Name="t1", GroupName="g")
    assert found["ScheduleExpression"] == "at(2030-03-17T17:46:40)" and found["Target"]["Input"] == '{"chat":-5}'


def test_a_timers_schedule_keeps_its_retry_policy_and_dead_letter_queue(scheduler):
    dlq = "arn:aws:sqs:us-east-1:123456789012:timers-dlq"
    EventBridgeScheduler(TARGET["Arn"], TARGET["RoleArn"], "g", dead_letter_arn=dlq).schedule(
        Timer("t2", 1_900_000_000, {"chat": -6, "kind": "wake"}))
    found = scheduler.get_schedule(Name="t2", GroupName="g")["Target"]
    assert found["DeadLetterConfig"] == {"Arn": dlq}
    assert found["RetryPolicy"] == {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 900}


def test_a_default_client_is_one_per_process_and_follows_reset(endpoint, monkeypatch):
    from gamebot.aws import dynamo

    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
    dynamo.reset_default_client()
    try:
        assert isinstance(dynamo.default_client(), DynamoDB)
        assert dynamo.default_client() is dynamo.default_client()
        assert dynamo.default_client().endpoint_url == endpoint
    finally:
        dynamo.reset_default_client()
