"""Our AWS client (gamebot.aws.client, gamebot.aws.transport) against a scripted HTTP server on 127.0.0.1: binary
attribute values, error parsing for both protocols, the retry policy (with a sleep that does not wait),
kept-alive connections per thread, requests' shapes, hooks. No timing assumptions."""
from __future__ import annotations

import base64
import io
import json
import socket
import threading
import zlib

import pytest

from gamebot.aws import client as aws
from gamebot.aws import transport as aws_http
from gamebot.aws.client import AWSError, AWSNetworkError, DynamoDB, decode_response, to_json
from gamebot.aws.scheduler_api import Scheduler
from gamebot.aws.signing import Credentials
from gamebot.aws.transport import Transport, read_response
from tests.unit.aws_fakes import DROP, Answer, ScriptedServer, dynamo_error, self_signed

KEYS = Credentials("AKIDTEST", "secret", "session-token")


def client(cls, server: ScriptedServer, **kwargs):
    sleeps: list[float] = []
    made = cls(endpoint=server.url, region_name="eu-west-3", creds=lambda: KEYS, sleep=sleeps.append,
               rand=lambda: 1.0, **kwargs)
    return made, sleeps


# -- binary attribute values ------------------------------------------------------------------------

ITEM = {
    "pk": {"S": "k"}, "n": {"N": "1.5"}, "blob": {"B": b"\x00\xffzlib"}, "blobs": {"BS": [b"a", b"\x01\x02"]},
    "map": {"M": {"inner": {"B": b"\x10"}, "list": {"L": [{"B": b"x"}, {"S": "s"}, {"M": {"b": {"BS": [b"y"]}}}]}}},
    "flag": {"BOOL": True}, "nothing": {"NULL": True}, "strings": {"SS": ["a", "b"]},
}


def test_binary_values_travel_as_base64_and_come_back_as_bytes():
    wire = json.loads(to_json({"TableName": "t", "Item": ITEM}))
    assert wire["Item"]["blob"] == {"B": base64.b64encode(b"\x00\xffzlib").decode()}
    assert wire["Item"]["map"]["M"]["list"]["L"][2]["M"]["b"] == {"BS": ["eQ=="]}
    for key in ("Item", "Attributes"):
        assert decode_response({key: json.loads(to_json(ITEM))}) == {key: ITEM}
    answers = {
        "Responses": [{"Item": json.loads(to_json(ITEM))}, {}],
        "CancellationReasons": [{"Code": "ConditionalCheckFailed", "Item": json.loads(to_json(ITEM))},
                                {"Code": "None"}],
        "UnprocessedKeys": {"t": {"Keys": [json.loads(to_json({"pk": {"B": b"k"}}))]}},
    }
    assert decode_response(answers) == {
        "Responses": [{"Item": ITEM}, {}],
        "CancellationReasons": [{"Code": "ConditionalCheckFailed", "Item": ITEM}, {"Code": "None"}],
        "UnprocessedKeys": {"t": {"Keys": [{"pk": {"B": b"k"}}]}},
    }
    batch = {"Responses": {"t": [json.loads(to_json(ITEM))]}, "Items": [json.loads(to_json(ITEM))]}
    assert decode_response(batch) == {"Responses": {"t": [ITEM]}, "Items": [ITEM]}


def test_sets_may_be_given_as_sets():
    assert json.loads(to_json({"v": {"BS": {b"a"}}, "s": {"SS": frozenset({"x"})}})) == {
        "v": {"BS": ["YQ=="]}, "s": {"SS": ["x"]}}


# -- DynamoDB requests and answers ------------------------------------------------------------------


def test_a_dynamodb_request_is_json_1_0_signed_with_its_target():
    answer = {"Item": json.loads(to_json(ITEM))}
    with ScriptedServer(Answer(200, answer)) as server:
        db, _ = client(DynamoDB, server)
        got = db.get_item(TableName="t", Key={"pk": {"B": b"\x01"}}, ConsistentRead=True)
    request = server.requests[0]
    assert (request.method, request.target) == ("POST", "/")
    assert request.headers["x-amz-target"] == "DynamoDB_20120810.GetItem"
    assert request.headers["content-type"] == "application/x-amz-json-1.0"
    assert request.headers["host"] == f"127.0.0.1:{server.port}"
    assert request.headers["x-amz-security-token"] == "session-token"
    assert request.headers["authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AKIDTEST/") and "/eu-west-3/dynamodb/aws4_request" in request.headers[
        "authorization"]
    assert request.json() == {"TableName": "t", "Key": {"pk": {"B": "AQ=="}}, "ConsistentRead": True}
    assert got["Item"] == ITEM
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200 and got["ResponseMetadata"]["RetryAttempts"] == 0


@pytest.mark.parametrize("method,op", [
    ("get_item", "GetItem"), ("put_item", "PutItem"), ("update_item", "UpdateItem"), ("delete_item", "DeleteItem"),
    ("transact_write_items", "TransactWriteItems"), ("transact_get_items", "TransactGetItems"),
    ("batch_get_item", "BatchGetItem"),
])
def test_each_dynamodb_method_names_its_operation(method, op):
    with ScriptedServer() as server:
        db, _ = client(DynamoDB, server)
        getattr(db, method)(TableName="t")
    assert server.requests[0].headers["x-amz-target"] == f"DynamoDB_20120810.{op}"


def test_dynamodb_errors_take_the_code_after_the_hash_and_keep_the_body_s_fields():
    reasons = [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
                "Item": json.loads(to_json({"pk": {"S": "a"}, "body": {"B": b"zz"}}))}, {"Code": "None"}]
    script = [dynamo_error("ConditionalCheckFailedException", "The conditional request failed"),
              Answer(400, {"__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                           "Message": "Transaction cancelled", "CancellationReasons": reasons})]
    with ScriptedServer(*script) as server:
        db, sleeps = client(DynamoDB, server)
        with pytest.raises(AWSError) as first:
            db.put_item(TableName="t", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
        with pytest.raises(AWSError) as second:
            db.transact_write_items(TransactItems=[])
    e = first.value
    assert (e.code, e.message, e.status, e.retryable) == (
        "ConditionalCheckFailedException", "The conditional request failed", 400, False)
    assert e.response["Error"] == {"Code": "ConditionalCheckFailedException",
                                   "Message": "The conditional request failed"}
    assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert "ConditionalCheckFailedException" in str(e) and "PutItem" in str(e)
    t = second.value
    assert t.response["Error"]["Code"] == "TransactionCanceledException"
    assert t.response["CancellationReasons"] == [
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
         "Item": {"pk": {"S": "a"}, "body": {"B": b"zz"}}}, {"Code": "None"}]
    assert len(server.requests) == 2 and sleeps == []  # neither is retried


def test_scheduler_errors_come_from_the_error_type_header_or_the_body():
    script = [
        Answer(409, {"Message": "Schedule n already exists."},
               {"x-amzn-ErrorType": "ConflictException:http://internal.amazon.com/coral/com.amazonaws.scheduler/"}),
        Answer(404, {"message": "Schedule n does not exist."}, {"x-amzn-ErrorType": "ResourceNotFoundException"}),
        Answer(400, {"__type": "ValidationException", "Message": "bad name"}),
        Answer(403, "<html>forbidden</html>"),
    ]
    with ScriptedServer(*script) as server:
        sched, _ = client(Scheduler, server)
        errors = []
        for _ in script:
            with pytest.raises(AWSError) as caught:
                sched.delete_schedule(Name="n", GroupName="g")
            errors.append(caught.value)
    assert [(e.code, e.status) for e in errors] == [
        ("ConflictException", 409), ("ResourceNotFoundException", 404), ("ValidationException", 400), ("403", 403)]
    assert errors[0].message == "Schedule n already exists."
    assert errors[1].message == "Schedule n does not exist."
    assert errors[3].message == "<html>forbidden</html>"
    assert not any(e.retryable for e in errors)


def test_scheduler_requests_are_rest_json():
    with ScriptedServer(Answer(200, {"ScheduleArn": "arn:x"}), Answer(200, b"")) as server:
        sched, _ = client(Scheduler, server)
        created = sched.create_schedule(Name="a b.c", GroupName="g", ScheduleExpression="at(2030-01-01T00:00:00)",
                                        FlexibleTimeWindow={"Mode": "OFF"}, Target={"Arn": "t", "RoleArn": "r"})
        deleted = sched.delete_schedule(Name="a b.c", GroupName="g", ClientToken="tok")
    post, delete = server.requests
    assert (post.method, post.target) == ("POST", "/schedules/a%20b.c")
    body = post.json()
    assert body.pop("ClientToken")  # generated, as boto3 does
    assert body == {"GroupName": "g", "ScheduleExpression": "at(2030-01-01T00:00:00)",
                    "FlexibleTimeWindow": {"Mode": "OFF"}, "Target": {"Arn": "t", "RoleArn": "r"}}
    assert post.headers["content-type"] == "application/json"
    assert "/eu-west-3/scheduler/aws4_request" in post.headers["authorization"]
    assert (delete.method, delete.target, delete.body) == ("DELETE", "/schedules/a%20b.c?clientToken=tok&groupName=g",
                                                           b"")
    assert created["ScheduleArn"] == "arn:x" and deleted["ResponseMetadata"]["HTTPStatusCode"] == 200


# -- retries ----------------------------------------------------------------------------------------


def test_throttling_and_server_errors_are_retried_with_growing_jittered_backoff():
    script = [Answer(500, {"__type": "InternalServerError"}), dynamo_error("ThrottlingException"),
              dynamo_error("ProvisionedThroughputExceededException"), Answer(200, {"Item": {"pk": {"S": "a"}}})]
    with ScriptedServer(*script) as server:
        db, sleeps = client(DynamoDB, server)
        got = db.get_item(TableName="t", Key={"pk": {"S": "a"}})
    assert len(server.requests) == 4
    assert got["Item"] == {"pk": {"S": "a"}} and got["ResponseMetadata"]["RetryAttempts"] == 3
    assert sleeps == [aws.BACKOFF_BASE, aws.BACKOFF_BASE * 2, aws.BACKOFF_BASE * 4]  # rand() = 1: the ceiling


def test_after_the_last_attempt_the_error_is_raised_and_the_backoff_is_capped():
    with ScriptedServer(*[Answer(503, {"__type": "ServiceUnavailable"})] * 10) as server:
        db, sleeps = client(DynamoDB, server, max_attempts=8)
        with pytest.raises(AWSError) as caught:
            db.get_item(TableName="t", Key={})
    assert len(server.requests) == 8
    assert (caught.value.code, caught.value.status, caught.value.retryable) == ("ServiceUnavailable", 503, True)
    assert max(sleeps) == aws.BACKOFF_CAP and len(sleeps) == 7


@pytest.mark.parametrize("code", ["ConditionalCheckFailedException", "TransactionConflictException",
                                  "LimitExceededException", "ValidationException", "ResourceNotFoundException"])
def test_what_the_caller_must_handle_is_not_retried(code):
    with ScriptedServer(dynamo_error(code)) as server:
        db, sleeps = client(DynamoDB, server)
        with pytest.raises(AWSError) as caught:
            db.put_item(TableName="t", Item={})
    assert caught.value.code == code and not caught.value.retryable
    assert len(server.requests) == 1 and sleeps == []


def test_a_corrupted_answer_is_retried():
    good = json.dumps({"Item": {"pk": {"S": "a"}}}).encode()
    script = [Answer(200, good, {"x-amz-crc32": str(zlib.crc32(good) ^ 1)}),
              Answer(200, good, {"x-amz-crc32": str(zlib.crc32(good))})]
    with ScriptedServer(*script) as server:
        db, sleeps = client(DynamoDB, server)
        assert db.get_item(TableName="t", Key={})["Item"] == {"pk": {"S": "a"}}
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_network_failures_are_retried_then_raised_as_aws_network_error():
    with ScriptedServer(DROP, Answer(200, {})) as server:
        db, sleeps = client(DynamoDB, server)
        assert db.put_item(TableName="t", Item={})["ResponseMetadata"]["RetryAttempts"] == 1
    assert len(sleeps) == 1
    with socket.socket() as closed:  # a port where nobody listens
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    sleeps = []
    db = DynamoDB(endpoint=f"http://127.0.0.1:{port}", creds=lambda: KEYS, sleep=sleeps.append)
    with pytest.raises(AWSNetworkError) as caught:
        db.get_item(TableName="t", Key={})
    assert caught.value.retryable and caught.value.code == "NetworkError"
    assert isinstance(caught.value.__cause__, ConnectionRefusedError) and len(sleeps) == aws.MAX_ATTEMPTS - 1


# -- connections ------------------------------------------------------------------------------------


def test_one_kept_alive_connection_per_thread():
    with ScriptedServer() as server:
        db, _ = client(DynamoDB, server)
        for _ in range(3):
            db.get_item(TableName="t", Key={})

        def other() -> None:
            for _ in range(3):
                db.get_item(TableName="t", Key={})

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert server.connections == 2
    assert [r.connection for r in server.requests] == [1, 1, 1, 2, 2, 2]


def test_a_dropped_kept_alive_connection_is_reopened_once_without_counting_an_attempt():
    with ScriptedServer(Answer(200, {}, vanish=True), Answer(200, {"Item": {"pk": {"S": "b"}}})) as server:
        db, sleeps = client(DynamoDB, server)
        db.get_item(TableName="t", Key={})
        got = db.get_item(TableName="t", Key={})
    assert got["Item"] == {"pk": {"S": "b"}} and got["ResponseMetadata"]["RetryAttempts"] == 0
    assert sleeps == [] and server.connections == 2


def test_https_with_the_ca_bundle_kept_alive_and_reopened(tmp_path, monkeypatch):

    bundle, server_side = self_signed(tmp_path)
    monkeypatch.setenv("AWS_CA_BUNDLE", bundle)
    monkeypatch.setattr(aws_http, "_SSL", None)  # (one TLS context per process: made again with the bundle)
    script = [Answer(200, {}), Answer(200, {}, vanish=True), Answer(200, {"Item": {"pk": {"S": "tls"}}})]
    with ScriptedServer(*script, tls=server_side) as server:
        db, sleeps = client(DynamoDB, server)
        assert db.endpoint_url.startswith("https://")
        for _ in range(2):
            db.get_item(TableName="t", Key={})
        assert db.get_item(TableName="t", Key={})["Item"] == {"pk": {"S": "tls"}}
    assert [r.connection for r in server.requests] == [1, 1, 2] and sleeps == []
    assert server.requests[0].headers["host"] == f"127.0.0.1:{server.port}"
    monkeypatch.setattr(aws_http, "_SSL", None)
    monkeypatch.delenv("AWS_CA_BUNDLE")
    with ScriptedServer(tls=server_side) as server:  # without the bundle the certificate is refused
        db, sleeps = client(DynamoDB, server)
        with pytest.raises(AWSNetworkError) as caught:
            db.get_item(TableName="t", Key={})
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)
    monkeypatch.setattr(aws_http, "_SSL", None)


def test_connection_close_is_honoured_and_chunked_answers_read():
    script = [Answer(200, {"a": 1}, close=True), Answer(200, {"Item": {"pk": {"S": "c"}}}, chunked=True),
              Answer(200, {})]
    with ScriptedServer(*script) as server:
        db, _ = client(DynamoDB, server)
        db.get_item(TableName="t", Key={})
        assert db.get_item(TableName="t", Key={})["Item"] == {"pk": {"S": "c"}}
        db.get_item(TableName="t", Key={})
    assert [r.connection for r in server.requests] == [1, 2, 2]


def test_the_response_reader():
    raw = (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 2\r\n\r\n{}")
    answer = read_response(io.BufferedReader(io.BytesIO(raw)), "POST")
    assert (answer.status, answer.headers, answer.body, answer.close) == (200, {"x-a": "1, 2", "content-length": "2"},
                                                                          b"{}", True)
    until_close = read_response(io.BufferedReader(io.BytesIO(b"HTTP/1.1 200 OK\r\n\r\nabc")), "GET")
    assert until_close.body == b"abc" and until_close.close


def test_endpoints_and_regions_come_from_the_environment(monkeypatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SCHEDULER", "AWS_REGION",
                 "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    assert DynamoDB().endpoint_url == "https://dynamodb.us-east-1.amazonaws.com"
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert Scheduler().endpoint_url == "https://scheduler.eu-west-1.amazonaws.com"
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    assert DynamoDB().region == "eu-west-3"
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    assert DynamoDB().endpoint_url == Scheduler().endpoint_url == "http://127.0.0.1:4566"
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://localhost:8000/")
    assert DynamoDB().endpoint_url == "http://localhost:8000"
    assert Scheduler().endpoint_url == "http://127.0.0.1:4566"
    assert Transport("https://dynamodb.eu-west-3.amazonaws.com:443").host_header == "dynamodb.eu-west-3.amazonaws.com"
    assert Transport("http://[::1]:8000").host_header == "[::1]:8000"
    with pytest.raises(ValueError):
        DynamoDB(endpoint="ftp://example.com")


# -- hooks ------------------------------------------------------------------------------------------


def test_hooks_see_every_attempt_and_each_call():
    script = [dynamo_error("ThrottlingException"), Answer(200, {}), dynamo_error("ConditionalCheckFailedException")]
    with ScriptedServer(*script) as server:
        db, _ = client(DynamoDB, server)
        seen: list = []
        db.before_send.append(lambda op: seen.append(("send", op)))
        db.after_receive.append(lambda op: seen.append(("received", op)))
        db.after_call.append(lambda op, params, parsed, seconds: seen.append(("call", op, params, seconds >= 0)))
        db.after_error.append(lambda op, params, error, seconds: seen.append(("error", op, error.code, seconds >= 0)))
        item = {"pk": {"S": "a"}, "b": {"B": b"\x00"}}
        db.put_item(TableName="t", Item=item)
        with pytest.raises(AWSError):
            db.delete_item(TableName="t", Key={})
    assert seen == [("send", "PutItem"), ("received", "PutItem"), ("send", "PutItem"), ("received", "PutItem"),
                    ("call", "PutItem", {"TableName": "t", "Item": item}, True),
                    ("send", "DeleteItem"), ("received", "DeleteItem"),
                    ("error", "DeleteItem", "ConditionalCheckFailedException", True)]


# -- the service's idea of transient --------------------------------------------------------------


def test_transient_errors_for_the_service():
    from botocore.exceptions import ClientError, EndpointConnectionError

    from gamebot.core.service import transient
    from gamebot.storage.store import VersionConflict

    assert transient(AWSError("ThrottlingException", "", 400))
    assert transient(AWSError("InternalServerError", "", 500))
    assert transient(AWSNetworkError("GetItem", ConnectionResetError()))
    assert not transient(AWSError("ConditionalCheckFailedException", "", 400))
    assert not transient(AWSError("ValidationException", "", 400))
    assert transient(VersionConflict("k")) and transient(TimeoutError()) and transient(ConnectionResetError())
    assert transient(ClientError({"Error": {"Code": "X"}}, "GetItem"))  # an injected boto3 client's, as before
    assert transient(EndpointConnectionError(endpoint_url="http://x"))
    assert not transient(ValueError("bug"))


# -- a request written now, its answer read later (DynamoDB.start) ---------------------------------


def test_a_started_request_answers_like_a_call_and_once():
    with ScriptedServer(Answer(200, {"Item": {"pk": {"S": "a"}, "b": {"B": "eA=="}}})) as server:
        db, _ = client(DynamoDB, server)
        pending = db.start("GetItem", {"TableName": "t", "Key": {"pk": {"S": "a"}}})
        got = pending.result()
        assert pending.result() is got  # read once
    assert got["Item"] == {"pk": {"S": "a"}, "b": {"B": b"x"}}
    assert [r.headers["x-amz-target"] for r in server.requests] == ["DynamoDB_20120810.GetItem"]


def test_another_request_of_the_thread_first_reads_the_answer_still_waiting():
    """A connection carries one request at a time: the waiting answer is read (and kept for its owner)
    before the next request goes out on it, so neither answer is taken for the other."""
    with ScriptedServer(Answer(200, {"Item": {"pk": {"S": "first"}}}), Answer(200, {"Item": {"pk": {"S": "second"}}})) \
            as server:
        db, _ = client(DynamoDB, server)
        pending = db.start("GetItem", {"TableName": "t", "Key": {"pk": {"S": "first"}}})
        second = db.get_item(TableName="t", Key={"pk": {"S": "second"}})
        first = pending.result()
    assert first["Item"] == {"pk": {"S": "first"}} and second["Item"] == {"pk": {"S": "second"}}
    assert server.connections == 1 and len(server.requests) == 2


def test_a_started_request_s_error_is_raised_to_its_owner_not_to_the_next_request():
    with ScriptedServer(dynamo_error("ConditionalCheckFailedException"), Answer(200, {})) as server:
        db, sleeps = client(DynamoDB, server)
        pending = db.start("PutItem", {"TableName": "t", "Item": {}})
        assert db.put_item(TableName="t", Item={})["ResponseMetadata"]["HTTPStatusCode"] == 200
        for _ in range(2):  # the same error each time it is asked
            with pytest.raises(AWSError) as caught:
                pending.result()
            assert caught.value.code == "ConditionalCheckFailedException"
    assert sleeps == []


def test_a_started_request_is_retried_when_its_answer_says_so_or_never_comes():
    script = [dynamo_error("ThrottlingException"), DROP, Answer(200, {"Item": {"pk": {"S": "a"}}})]
    with ScriptedServer(*script) as server:
        db, sleeps = client(DynamoDB, server)
        got = db.start("GetItem", {"TableName": "t", "Key": {}}).result()
    # the throttled answer costs an attempt and a backoff; the kept-alive connection found dropped is
    # reopened and the request sent again at once, as for a call
    assert got["Item"] == {"pk": {"S": "a"}}
    assert got["ResponseMetadata"]["RetryAttempts"] == 1 and len(sleeps) == 1 and server.connections == 2


def test_before_receive_hooks_run_between_the_write_and_the_read():
    seen: list[str] = []
    with ScriptedServer(Answer(200, {})) as server:
        db, _ = client(DynamoDB, server)
        db.before_send.append(lambda op: seen.append("send " + op))
        db.before_receive.append(lambda op: seen.append("receive " + op))
        pending = db.start("GetItem", {"TableName": "t", "Key": {}})
        seen.append("work")
        pending.result()
    assert seen == ["send GetItem", "work", "receive GetItem"]
