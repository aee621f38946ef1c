"""The wake-up queue (``gamebot.timing.wakeup.SqsQueue``) against a moto server on 127.0.0.1 (SQS: the
playground's queue): a message is held back for its ``DelaySeconds`` in real time, then received with its
exact body, and the timer function (``functions/timer/app.py``) takes it as Lambda's SQS event; the
playground's consumer (``localdev.wake_consumer``) deletes what the function did not report failed; the
server answers other requests during a long poll (``localdev.serial_moto``)."""
from __future__ import annotations

import importlib.util
import json
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from localdev.fake_telegram import FakeTelegram
from localdev.wake_consumer import WakeConsumer, create_queue, record, sqs_client
from tests.aws_model import record as model_record
from tests.moto_server import reset_moto

REPO = Path(__file__).resolve().parents[2]
TOKEN = "123456:WAKE-QUEUE-test"
TABLE = "avalon-wake-queue"
CHAT = -100_123


@pytest.fixture
def sqs(endpoint):
    """boto3's SQS client on the server, and a fresh queue's URL."""
    client = sqs_client(endpoint)
    return client, create_queue(client, f"wake-{uuid.uuid4().hex[:8]}")


def _receive(client: Any, url: str, wait: int = 0) -> list[dict[str, Any]]:
    return client.receive_message(QueueUrl=url, WaitTimeSeconds=wait, MaxNumberOfMessages=10).get("Messages") or []


def _counts(client: Any, url: str) -> tuple[int, int]:
    """(visible, in flight) messages of the queue."""
    got = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(got["ApproximateNumberOfMessages"]), int(got["ApproximateNumberOfMessagesNotVisible"])


@pytest.fixture
def timer_env(endpoint, monkeypatch):
    """The timer function's environment on the server (the table from template.yaml, the queue) and a fake
    Bot API; the function's module, loaded from its file."""
    from gamebot.aws import dynamo
    from gamebot.timing import wakeup
    from localdev.tables import admin_client, create_table_from_template

    reset_moto(endpoint)
    client = sqs_client(endpoint)
    url = create_queue(client, f"wake-{uuid.uuid4().hex[:8]}")
    with FakeTelegram(token=TOKEN) as fake:
        env = {"TABLE_NAME": TABLE, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": fake.base_url,
               "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint,
               "WAKE_QUEUE_URL": url}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for key in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_PROFILE", "TIMER_FUNCTION_ARN",
                    "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP"):
            monkeypatch.delenv(key, raising=False)
        monkeypatch.setattr(wakeup, "_INSTALLED", [])  # (as the stack configures it: WAKE_QUEUE_URL)
        dynamo.reset_default_client()
        create_table_from_template(admin_client(), TABLE, REPO / "template.yaml")
        spec = importlib.util.spec_from_file_location("timer_app_wake_queue", REPO / "functions" / "timer" / "app.py")
        assert spec is not None and spec.loader is not None
        timer = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(timer)
        try:
            yield SimpleNamespace(client=client, url=url, timer=timer)
        finally:
            timer.reset()
            dynamo.reset_default_client()


def test_a_delayed_wake_up_arrives_after_its_delay_with_its_body_and_the_timer_function_takes_it(timer_env):
    from gamebot.environment import Environment
    from gamebot.storage.session import chat_key
    from gamebot.timing.wakeup import SqsQueue

    client, url = timer_env.client, timer_env.url
    queue = SqsQueue(url, Environment.read())  # (its own boto3 client, on AWS_ENDPOINT_URL: the moto server)
    body = json.dumps({"chat": CHAT, "game": "g1", "kind": "wake", "due": round(time.time() + 1, 2),
                       "name": "gb1-2-3"}, separators=(",", ":"))
    sent = time.monotonic()
    queue.send(body, 1)
    assert _receive(client, url) == []  # held back for its delay
    time.sleep(max(0.0, sent + 1.2 - time.monotonic()))
    # a long poll, not one look: on a busy machine the send may reach moto a little after ``sent``
    (message,) = _receive(client, url, wait=10)
    assert message["Body"] == body
    event = {"Records": [record(message, "arn:aws:sqs:us-east-1:123456789012:wake")]}
    assert set(event["Records"][0]) == set(model_record("m-1", body))  # Lambda's record, field for field
    # a chat with nothing due: the wake-up finds nothing, writes nothing, and is not to be received again
    assert timer_env.timer.lambda_handler(event, None) == {"batchItemFailures": []}
    assert timer_env.timer.service().repo.get(chat_key(CHAT)) is None


def test_the_consumer_deletes_what_the_function_did_not_report_failed(sqs):
    client, url = sqs
    for n in (1, 2):
        client.send_message(QueueUrl=url, MessageBody=json.dumps({"n": n}))
    seen: list[dict[str, Any]] = []

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        seen.extend(event["Records"])
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in event["Records"]
                                      if json.loads(r["body"])["n"] == 2]}

    consumer = WakeConsumer(client, url, handler, SimpleNamespace(call=lambda fn, *args: fn(*args)))
    deadline = time.monotonic() + 30  # (a bound against hanging: both are visible at once)
    while consumer.received < 2 and time.monotonic() < deadline:
        consumer.poll()
    assert sorted(json.loads(r["body"])["n"] for r in seen) == [1, 2]
    assert {r["eventSource"] for r in seen} == {"aws:sqs"} and all(r["eventSourceARN"].endswith(url.rsplit("/")[-1])
                                                                   for r in seen)
    assert (consumer.handled, consumer.failed) == (1, 1)
    assert _counts(client, url) == (0, 1)  # the one reported failed waits for its visibility timeout


def test_a_stopped_consumer_hands_nothing_more_to_the_function_and_leaves_it_in_the_queue(sqs):
    """Stopping waits for a batch being handled, never for a long poll: what a poll under way brings after
    the stop is not handed to the function (it is received again after its visibility timeout)."""
    client, url = sqs
    seen: list[dict[str, Any]] = []
    consumer = WakeConsumer(client, url, lambda event, context: seen.extend(event["Records"]),
                            SimpleNamespace(call=lambda fn, *args: fn(*args)))
    consumer.stop()  # (as if the poll below had been under way when the playground stopped)
    client.send_message(QueueUrl=url, MessageBody="late")
    brought = 0
    deadline = time.monotonic() + 30  # (a bound against hanging: the message is visible at once)
    while not brought and time.monotonic() < deadline:
        brought = consumer.poll()
    assert brought == 1 and seen == []
    assert (consumer.received, consumer.handled) == (0, 0)
    assert _counts(client, url) == (0, 1)  # not deleted: in flight until its visibility timeout ends


def test_a_long_poll_does_not_hold_up_the_other_requests_of_the_serialised_server(sqs):
    """Behind the server's lock, a long poll would keep the message it waits for out until it gave up."""
    client, url = sqs
    got: list[list[dict[str, Any]]] = []
    poll = threading.Thread(target=lambda: got.append(_receive(client, url, wait=5)))
    poll.start()
    time.sleep(0.3)  # (the poll is waiting in the server)
    client.send_message(QueueUrl=url, MessageBody="wake")
    poll.join()
    assert [m["Body"] for m in got[0]] == ["wake"]
