"""AWS's timing, modelled on a clock the test moves (the guide: a mechanism must work with AWS's clocks,
not this machine's): the wake-up queue (SQS: a message's delay is whole seconds, and Lambda's poller
hands it to the function a moment after it becomes visible) and EventBridge Scheduler (a one-time
schedule fires within a minute after its time)."""
from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Callable
from typing import Any

SQS_LATENCY = 1.0  # seconds from a message's visibility to the function's invocation (assumed worst case)
EVENTBRIDGE_LATE = 59.0  # seconds a schedule fires after its time, at worst ("within a minute")
VISIBILITY = 60.0  # seconds before a message the function reported failed is received again
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:avalon-wake"


class ModelQueue:
    """The wake-up queue (``gamebot.timing.wakeup.Queue``) on ``clock``: a message sent with ``delay`` is
    received ``delay`` + ``latency`` seconds later, at least once."""

    def __init__(self, clock: Callable[[], float], latency: float = SQS_LATENCY) -> None:
        self.clock = clock
        self.latency = latency
        self._heap: list[tuple[float, int, str]] = []
        self._ids = itertools.count(1)
        self.sent: list[tuple[float, int, str]] = []  # (when sent, delay, body), every message

    def send(self, body: str, delay: int) -> None:
        assert isinstance(delay, int) and 0 <= delay <= 900, delay  # (SQS refuses anything else)
        now = self.clock()
        self.sent.append((now, delay, body))
        heapq.heappush(self._heap, (now + delay + self.latency, next(self._ids), body))

    def next_at(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def receive(self, now: float, most: int = 10) -> list[dict[str, Any]]:
        """The messages visible at ``now`` (at most ``most``: one batch), as SQS event records."""
        records = []
        while self._heap and self._heap[0][0] <= now and len(records) < most:
            at, n, body = heapq.heappop(self._heap)
            records.append(record(f"m-{n}", body))
        return records

    def retry(self, failures: list[dict[str, str]], records: list[dict[str, Any]], now: float) -> None:
        """The records the function reported failed come back after the visibility timeout."""
        failed = {f["itemIdentifier"] for f in failures}
        for r in records:
            if r["messageId"] in failed:
                heapq.heappush(self._heap, (now + VISIBILITY, next(self._ids), r["body"]))

    def pending(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, _, body in sorted(self._heap)]


def record(message_id: str, body: str) -> dict[str, Any]:
    """One record of Lambda's SQS event, as the event source mapping sends it (the playground's consumer
    builds the same from a received message: ``localdev.wake_consumer.record``)."""
    from localdev.wake_consumer import record as from_message

    return from_message({"MessageId": message_id, "ReceiptHandle": f"rh-{message_id}", "Body": body,
                         "Attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "0"}}, QUEUE_ARN)


def sqs_event(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Records": records}
