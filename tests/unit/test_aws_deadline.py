"""Deadlines of our AWS client (gamebot.aws.client, gamebot.aws.transport.deadline): a request started under a deadline
never starts an attempt it cannot finish, gives each attempt what is left as its timeouts, stops
retrying at the deadline and raises its retryable error then. Measured on a fake clock and on the
timeouts the client sets on its sockets, never on wall time; the real sockets wait at most a few tenths
of a second for a server that never answers. Also TransactWriteItems' idempotency token, as botocore
fills it."""
from __future__ import annotations

import asyncio
import http.client
import io
import select
import threading
import uuid

import pytest

from gamebot.aws import client as aws
from gamebot.aws import transport as aws_http
from gamebot.aws.client import AWSError, AWSNetworkError, DynamoDB
from gamebot.aws.transport import (
    READ_TIMEOUT,
    TimedReader,
    Transport,
    current_deadline,
    deadline,
    read_response,
)
from tests.unit.aws_fakes import SILENT, Answer, ScriptedServer, dynamo_error, self_signed

KEYS = aws.Credentials("AKIDTEST", "secret")


class Clock:
    """A clock the test moves; ``sleep`` moves it too."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class SilentTransport:
    """The transport to a server that never answers, on the fake clock: each attempt's read waits out
    its whole timeout (``READ_TIMEOUT``, or the attempt's budget when that is shorter), as a socket does."""

    host_header = "dynamodb.test"
    prefix = ""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.budgets: list[float | None] = []

    def send(self, method, target, headers, body, budget=None):
        self.budgets.append(budget)
        return (budget,)  # (the Sent)

    def receive(self, sent):
        budget = sent[0]
        self.clock.now += READ_TIMEOUT if budget is None else min(READ_TIMEOUT, budget)
        raise TimeoutError("timed out")


def silent_client(clock: Clock, **kwargs) -> tuple[DynamoDB, SilentTransport]:
    db = DynamoDB(endpoint="http://dynamodb.test", region_name="eu-west-3", creds=lambda: KEYS, sleep=clock.sleep,
                  rand=lambda: 1.0, clock=clock, **kwargs)
    db._transport = transport = SilentTransport(clock)
    return db, transport


# -- the client's attempts under a deadline (fake clock) --------------------------------------------


def test_without_a_deadline_a_silent_server_costs_every_attempt_with_full_timeouts():
    clock = Clock()
    db, transport = silent_client(clock)
    with pytest.raises(AWSNetworkError):
        db.get_item(TableName="t", Key={})
    assert transport.budgets == [None] * aws.MAX_ATTEMPTS  # (20 s of reads and the backoffs)
    assert clock.now - 1000.0 == pytest.approx(aws.MAX_ATTEMPTS * READ_TIMEOUT + sum(clock.sleeps))


@pytest.mark.parametrize("seconds,budgets", [
    (12.0, [12.0, 12.0 - 5 - 0.025, 12.0 - 10 - 0.025 - 0.05]),  # the third attempt's timeout shrinks to fit
    (5.06, [5.06]),  # after the first read no backoff leaves MIN_ATTEMPT: no second attempt
    (2.0, [2.0]),
])
def test_a_silent_server_is_given_up_on_at_the_deadline_with_shrinking_timeouts(seconds, budgets):
    clock = Clock()
    db, transport = silent_client(clock)
    with deadline(seconds, clock=clock) as at, pytest.raises(AWSNetworkError) as caught:
        db.get_item(TableName="t", Key={})
    assert transport.budgets == pytest.approx(budgets)
    assert clock.now <= at + 1e-9  # given up within the deadline, never after it
    assert caught.value.retryable and isinstance(caught.value.__cause__, TimeoutError)


def test_no_attempt_starts_without_the_time_to_finish_it():
    clock = Clock()
    db, transport = silent_client(clock)
    sends: list[str] = []
    db.before_send.append(sends.append)
    with deadline(aws.MIN_ATTEMPT / 2, clock=clock):
        with pytest.raises(AWSNetworkError) as caught:
            db.put_item(TableName="t", Item={})
        pending = db.start("GetItem", {"TableName": "t", "Key": {}})
    with pytest.raises(AWSNetworkError):  # a started request's error comes with its result
        pending.result()
    assert transport.budgets == [] and sends == [] and clock.sleeps == []
    assert caught.value.retryable and isinstance(caught.value.__cause__, TimeoutError)


def test_a_request_keeps_the_deadline_it_started_with_and_nothing_outlives_the_block():
    clock = Clock()
    db, transport = silent_client(clock)
    with deadline(3.0, clock=clock):
        pending = db.start("GetItem", {"TableName": "t", "Key": {}})
    assert current_deadline() is None
    with pytest.raises(AWSNetworkError):
        pending.result()  # read after the block: still bound by the deadline it started under
    assert transport.budgets == [3.0] and clock.now == 1003.0
    with pytest.raises(AWSNetworkError):
        db.get_item(TableName="t", Key={})
    assert transport.budgets[1:] == [None] * aws.MAX_ATTEMPTS  # the next request: no deadline left over


def test_a_closer_enclosing_deadline_stays():
    clock = Clock()
    with deadline(2.0, clock=clock) as outer:
        with deadline(10.0, clock=clock) as inner:
            assert inner == outer == 1002.0
        with deadline(None, clock=clock) as inner:
            assert inner == outer
        with deadline(1.0, clock=clock) as inner:
            assert inner == 1001.0
        assert current_deadline() == outer
    assert current_deadline() is None


def test_tasks_and_worker_threads_started_under_a_deadline_obey_it():
    """The courier runs store calls with ``asyncio.to_thread``: they copy the deadline of the invocation
    that started them, and those started after it see none. (A plain ``threading.Thread`` copies no
    context: the code runs its store calls through ``asyncio.to_thread`` only.)"""
    clock = Clock()
    db, transport = silent_client(clock)
    loop = asyncio.new_event_loop()

    async def in_a_worker_thread() -> None:
        with pytest.raises(AWSNetworkError):
            await asyncio.to_thread(db.get_item, TableName="t", Key={})

    try:
        with deadline(4.0, clock=clock):
            loop.run_until_complete(in_a_worker_thread())
        assert transport.budgets == [4.0]
        assert loop.run_until_complete(asyncio.to_thread(current_deadline)) is None
    finally:
        loop.close()
    seen: list[float | None] = []
    with deadline(4.0, clock=clock):
        thread = threading.Thread(target=lambda: seen.append(current_deadline()))
    thread.start()
    thread.join()
    assert seen == [None]


def test_retries_stop_at_the_deadline_and_the_last_retryable_error_is_raised():
    clock = Clock()
    with ScriptedServer(*[dynamo_error("ThrottlingException")] * 4) as server:
        db = DynamoDB(endpoint=server.url, creds=lambda: KEYS, sleep=clock.sleep, rand=lambda: 1.0, clock=clock)
        db.after_receive.append(lambda op: clock.sleep(1.0))  # each answer takes a second on the fake clock
        with deadline(2.06, clock=clock), pytest.raises(AWSError) as caught:
            db.get_item(TableName="t", Key={})
    # after the first answer the backoff leaves time for an attempt; after the second, 0.035 s are left,
    # less than the backoff (0.05) and an attempt: two requests, not four
    assert len(server.requests) == 2 and clock.sleeps == [1.0, aws.BACKOFF_BASE, 1.0]
    assert caught.value.code == "ThrottlingException" and caught.value.retryable


# -- the timeouts on the sockets (real sockets on 127.0.0.1) ---------------------------------------


class RecordingSocket:
    def __init__(self, sock, timeouts: list[float]) -> None:
        self._sock, self.timeouts = sock, timeouts

    def settimeout(self, value: float) -> None:
        self.timeouts.append(value)
        self._sock.settimeout(value)

    def __getattr__(self, name):
        return getattr(self._sock, name)


@pytest.fixture
def socket_timeouts(monkeypatch):
    """Every timeout our transport gives its sockets: the connect timeout, then each ``settimeout``."""
    timeouts: list[float] = []

    class Recording(http.client.HTTPConnection):
        def __init__(self, host, port=None, timeout=None, **kwargs) -> None:
            timeouts.append(timeout)
            super().__init__(host, port, timeout=timeout, **kwargs)

        def connect(self) -> None:
            super().connect()
            self.sock = RecordingSocket(self.sock, timeouts)

    monkeypatch.setattr(aws_http.http.client, "HTTPConnection", Recording)
    return timeouts


@pytest.mark.parametrize("silence", [SILENT, Answer(200, {"Item": {"pk": {"S": "a"}}}, stall=True)])
def test_a_server_that_never_answers_or_stops_halfway_is_given_up_on_within_the_budget(silence, socket_timeouts):
    with ScriptedServer(silence) as server:
        transport = Transport(server.url)
        with pytest.raises(TimeoutError):
            transport.exchange("POST", "/", {"Host": transport.host_header}, b"{}", budget=0.3)
    assert len(server.requests) == 1
    assert socket_timeouts and all(0 < t <= 0.3 for t in socket_timeouts)


def test_the_client_gives_up_on_a_silent_server_at_the_deadline(socket_timeouts):
    with ScriptedServer(SILENT, SILENT) as server:
        db = DynamoDB(endpoint=server.url, creds=lambda: KEYS)
        with deadline(0.3), pytest.raises(AWSNetworkError) as caught:
            db.get_item(TableName="t", Key={})
    assert isinstance(caught.value.__cause__, TimeoutError) and caught.value.retryable
    assert len(server.requests) == 1  # the read took the whole budget: no time for another attempt
    assert socket_timeouts and all(0 < t <= 0.3 for t in socket_timeouts)


def test_without_a_budget_the_socket_timeouts_are_the_usual_ones(socket_timeouts):
    with ScriptedServer(Answer(200, {})) as server:
        transport = Transport(server.url)
        assert transport.exchange("POST", "/", {"Host": transport.host_header}, b"{}").status == 200
    assert socket_timeouts == [aws_http.CONNECT_TIMEOUT, READ_TIMEOUT]


class TricklingSocket:
    """A socket whose answer arrives one byte every 0.9 s (on a fake clock): a read whose timeout is
    shorter times out."""

    def __init__(self, data: bytes, clock: Clock) -> None:
        self.data, self.clock, self.timeouts = data, clock, []

    def settimeout(self, value: float) -> None:
        self.timeouts.append(value)

    def recv_into(self, buffer) -> int:
        if self.timeouts[-1] < 0.9:
            self.clock.now += self.timeouts[-1]
            raise TimeoutError("timed out")
        self.clock.now += 0.9
        buffer[0:1], self.data = self.data[:1], self.data[1:]
        return 1


def test_an_answer_trickled_in_cannot_outlast_the_budget(monkeypatch):
    """Each read gets what is left of the budget, not a fresh read timeout: a server that sends a byte
    just before each read would time out never outlasts it."""
    clock = Clock()
    monkeypatch.setattr(aws_http, "monotonic", clock)
    sock = TricklingSocket(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", clock)
    raw = TimedReader(sock)
    raw.until = clock() + 3.5
    with pytest.raises(TimeoutError):
        read_response(io.BufferedReader(raw), "POST")
    # three bytes, then the fourth read may wait only 0.8 s (with a fresh 5 s per read the 41 bytes
    # would take 37 s)
    assert sock.timeouts == pytest.approx([3.5, 2.6, 1.7, 0.8])
    assert clock.now == pytest.approx(1003.5)


def test_once_the_time_is_up_a_read_still_takes_an_answer_that_has_arrived(monkeypatch):
    """A read ahead left unused at the end of an invocation is read first by the thread's next request
    (a connection carries one at a time): its answer, long there, keeps the connection alive."""
    clock = Clock()
    monkeypatch.setattr(aws_http, "monotonic", clock)
    with ScriptedServer(Answer(200, {"Item": {"pk": {"S": "a"}}})) as server:
        transport = Transport(server.url)
        sent = transport.send("POST", "/", {"Host": transport.host_header}, b"{}", budget=0.5)
        assert select.select([sent.connection.conn.sock], [], [], 10)[0]  # the answer has arrived
        clock.now += 60.0  # the invocation is long over
        assert transport.receive(sent).status == 200
        assert transport.exchange("POST", "/", {"Host": transport.host_header}, b"{}").status == 200
    assert server.connections == 1 and len(server.requests) == 2
    with ScriptedServer(SILENT) as server:  # nothing there: no waiting either
        transport = Transport(server.url)
        sent = transport.send("POST", "/", {"Host": transport.host_header}, b"{}", budget=0.5)
        clock.now += 60.0
        with pytest.raises(BlockingIOError):  # (an OSError: a network failure to the client)
            transport.receive(sent)


# -- TransactWriteItems' idempotency token ----------------------------------------------------------


def test_transact_write_items_carries_one_client_request_token_per_transaction_kept_on_retries():
    script = [Answer(500, {"__type": "InternalServerError"}), dynamo_error("ThrottlingException"), Answer(200, {}),
              Answer(200, {}), Answer(200, {})]
    with ScriptedServer(*script) as server:
        db = DynamoDB(endpoint=server.url, creds=lambda: KEYS, sleep=lambda s: None)
        items = [{"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}]
        assert db.transact_write_items(TransactItems=items)["ResponseMetadata"]["RetryAttempts"] == 2
        db.transact_write_items(TransactItems=items)
        db.transact_write_items(TransactItems=items, ClientRequestToken="mine")
    tokens = [r.json()["ClientRequestToken"] for r in server.requests]
    assert tokens[0] == tokens[1] == tokens[2]  # the same transaction, tried three times
    assert str(uuid.UUID(tokens[0])) == tokens[0] and tokens[3] != tokens[0] and tokens[4] == "mine"
    assert all(r.json()["TransactItems"] == items for r in server.requests)


def test_the_idempotency_tokens_are_those_botocore_fills():
    """botocore fills every member its service model marks ``idempotencyToken``: of the DynamoDB
    operations the bot uses, only TransactWriteItems' ClientRequestToken; its request and ours then
    carry the same fields."""
    import boto3
    import botocore.session

    model = botocore.session.get_session().get_service_model("dynamodb")
    marked = {(op, name) for op in ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems",
                                    "TransactGetItems", "BatchGetItem")
              for name, shape in model.operation_model(op).input_shape.members.items()
              if shape.metadata.get("idempotencyToken")}
    assert marked == {("TransactWriteItems", "ClientRequestToken")}
    items = [{"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}]
    with ScriptedServer() as server:
        theirs = boto3.client("dynamodb", endpoint_url=server.url, region_name="eu-west-3",
                              aws_access_key_id="AKIDTEST", aws_secret_access_key="secret")
        theirs.transact_write_items(TransactItems=items)
        DynamoDB(endpoint=server.url, creds=lambda: KEYS).transact_write_items(TransactItems=items)
    botos, ours = (r.json() for r in server.requests)
    assert set(botos) == set(ours) == {"TransactItems", "ClientRequestToken"}
    assert uuid.UUID(botos["ClientRequestToken"]) and uuid.UUID(ours["ClientRequestToken"])


def test_https_under_a_deadline(tmp_path, monkeypatch):
    bundle, server_side = self_signed(tmp_path)
    monkeypatch.setenv("AWS_CA_BUNDLE", bundle)
    monkeypatch.setattr(aws_http, "_SSL", None)  # (one TLS context per process: made again with the bundle)
    with ScriptedServer(Answer(200, {"Item": {"pk": {"S": "tls"}}}, chunked=True), SILENT, tls=server_side) as server:
        db = DynamoDB(endpoint=server.url, creds=lambda: KEYS)
        with deadline(5.0):
            assert db.get_item(TableName="t", Key={})["Item"] == {"pk": {"S": "tls"}}
        with deadline(0.3), pytest.raises(AWSNetworkError) as caught:
            db.get_item(TableName="t", Key={})
    assert isinstance(caught.value.__cause__, TimeoutError) and len(server.requests) == 2
    monkeypatch.setattr(aws_http, "_SSL", None)
