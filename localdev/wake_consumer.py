"""The wake-up queue's event source mapping, locally: what AWS Lambda does for the timer function's SQS
trigger (template.yaml's ``WakeQueue`` and the timer function's event source on it).

On AWS, Lambda long-polls the wake-up queue and invokes the timer function (``functions/timer/app.py``)
with each batch as Lambda's SQS event, ``{"Records": [{"messageId", "receiptHandle", "body", "attributes",
"messageAttributes", "md5OfBody", "eventSource": "aws:sqs", "eventSourceARN", "awsRegion"}]}``; the
function answers ``{"batchItemFailures": [{"itemIdentifier": <messageId>}]}``, and Lambda deletes every
message of the batch but those, which the queue hands out again after its visibility timeout.

:class:`WakeConsumer` does the same on the playground's moto server: a daemon thread long-polls the queue
(``ReceiveMessage``, ``WaitTimeSeconds=1``, up to 10 messages; moto holds a message sent with
``DelaySeconds`` back for that many seconds of real time, as SQS does), builds that event from the
messages, calls the handler through the playground's worker (``WebhookWorker.call``: a wake-up never
runs beside an update), and deletes the messages not named in the answer's ``batchItemFailures``. A
handler that raises fails the whole batch (nothing is deleted), as an invocation error does on AWS.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("localdev.wake_consumer")

QUEUE_NAME = "avalon-playground-wake"
WAIT_SECONDS = 1  # the long poll: a wake-up is received within about a second of becoming visible
BATCH = 10  # messages a batch at most (SQS's most a receive; the event source mapping's default batch size)
# A message the handler reported failed comes back after this (template.yaml: 180 s, six times the timer
# function's timeout; here the handler runs in this process and a batch takes well under a second).
VISIBILITY_TIMEOUT = 30
REGION = "us-east-1"

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def sqs_client(endpoint: str) -> Any:
    """boto3's SQS client for the moto server at ``endpoint`` (dummy credentials: nothing leaves the machine)."""
    import boto3
    from botocore.config import Config

    return boto3.client("sqs", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="playground",
                        aws_secret_access_key="playground", aws_session_token="playground",
                        config=Config(connect_timeout=2, read_timeout=WAIT_SECONDS + 10,
                                      retries={"mode": "standard", "max_attempts": 3}))


def create_queue(client: Any, name: str = QUEUE_NAME) -> str:
    """Create the wake-up queue (a standard queue, as the stack's); its URL."""
    return str(client.create_queue(QueueName=name,
                                   Attributes={"VisibilityTimeout": str(VISIBILITY_TIMEOUT)})["QueueUrl"])


def record(message: dict[str, Any], queue_arn: str, region: str = REGION) -> dict[str, Any]:
    """One record of Lambda's SQS event for a received ``message`` (``ReceiveMessage``'s shape)."""
    return {"messageId": message["MessageId"], "receiptHandle": message["ReceiptHandle"], "body": message["Body"],
            "attributes": dict(message.get("Attributes") or {}),
            "messageAttributes": dict(message.get("MessageAttributes") or {}),
            "md5OfBody": message.get("MD5OfBody", ""), "eventSource": "aws:sqs", "eventSourceARN": queue_arn,
            "awsRegion": region}


class WakeConsumer:
    """Lambda's poller of the wake-up queue ``url`` for the timer function's ``handler``, run through
    ``worker`` (anything with ``call(fn, *args)``: the playground's ``WebhookWorker``).

    Counters (this consumer's): ``received`` messages, ``handled`` records the handler was given and did
    not report failed, ``failed`` records it reported failed (or whose batch raised), ``batches``."""

    def __init__(self, client: Any, url: str, handler: Handler, worker: Any) -> None:
        self.client = client
        self.url = url
        self.handler = handler
        self.worker = worker
        self.arn = str(client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
                       ["Attributes"]["QueueArn"])
        self.received = self.handled = self.failed = self.batches = 0
        self._stop = threading.Event()
        self._handling = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> WakeConsumer:
        if self._thread is not None and self._thread.is_alive():
            if not self._stop.is_set():
                return self  # (polling already)
            self._thread.join()  # (stopped, its last long poll not over yet: one consumer at a time)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="wake-consumer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop polling. A batch being handled is finished (and deleted) first; a long poll under way is
        not waited for: what it brings is left in the queue, received again once its visibility timeout
        ends (as when Lambda's poller scales in)."""
        self._stop.set()
        with self._handling:  # (held while a batch is handled: this waits for it)
            pass

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception:  # (the server going away at the end, a handler bug): carry on, a little later
                if self._stop.is_set():
                    return
                log.exception("the wake-up queue's consumer failed; polling again in a second")
                self._stop.wait(1.0)

    def poll(self) -> int:
        """One long poll and the batch it brought, if any; how many messages it brought."""
        messages = self.client.receive_message(
            QueueUrl=self.url, WaitTimeSeconds=WAIT_SECONDS, MaxNumberOfMessages=BATCH,
            MessageSystemAttributeNames=["All"], MessageAttributeNames=["All"]).get("Messages") or []
        with self._handling:
            if messages and not self._stop.is_set():
                self.received += len(messages)
                self.handle([record(m, self.arn) for m in messages])
        return len(messages)

    def handle(self, records: list[dict[str, Any]]) -> None:
        """Invoke the handler with ``records`` as one SQS event; delete the messages it did not report failed."""
        self.batches += 1
        try:
            answer = self.worker.call(self.handler, {"Records": records}, None)
            failures = {str(f.get("itemIdentifier")) for f in (answer or {}).get("batchItemFailures") or []}
        except Exception:
            log.exception("the timer function failed on a batch of %d wake-up(s): they come back in %d s",
                          len(records), VISIBILITY_TIMEOUT)
            self.failed += len(records)
            return
        done = [r for r in records if r["messageId"] not in failures]
        self.handled += len(done)
        self.failed += len(records) - len(done)
        if done:
            self.client.delete_message_batch(QueueUrl=self.url, Entries=[
                {"Id": str(i), "ReceiptHandle": r["receiptHandle"]} for i, r in enumerate(done)])
        log.info("woke %d chat(s) from the wake-up queue%s", len(done),
                 f"; {len(records) - len(done)} to be received again" if failures else "")
