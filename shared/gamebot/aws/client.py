"""Our own minimal AWS client for the two services the bot calls: DynamoDB and EventBridge Scheduler.

Why not boto3 (README, design notes): botocore's CPU per request and boto3's import at a cold start.
Here a request is a JSON body, a SigV4 signature (``gamebot.aws.signing``, checked against botocore's in
the tests) and one exchange on a kept-alive connection (``gamebot.aws.transport``).

* ``DynamoDB`` (JSON 1.0 protocol) and ``Scheduler`` (REST-JSON) take boto3's keyword arguments and
  return boto3's dicts (``bytes`` for binary attribute values, which travel as base64).
* Endpoints: ``AWS_ENDPOINT_URL_<SERVICE>``, else ``AWS_ENDPOINT_URL``, else AWS's regional endpoint;
  the region from ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` (us-east-1 if neither is set).
* One connection per thread per client (its endpoint), reopened once if a kept-alive connection was
  dropped; connect timeout 3 s, read timeout 5 s, less when a deadline is closer (below).
* Retries as botocore's standard mode, with shorter backoff: throttling, 5xx, CRC32 mismatch, network
  failures and timeouts; at most ``MAX_ATTEMPTS`` attempts with full-jitter backoff. A condition that
  failed, a cancelled transaction and every other 4xx are raised at once (the caller handles them).
* A request keeps the deadline in force when it started (``transport.deadline``, set by the Lambda entry
  points) for all its attempts: one starts only with ``MIN_ATTEMPT`` left, its socket timeouts shrink to
  fit, no backoff is slept past ``deadline - MIN_ATTEMPT``; then the last failure is raised (retryable).
* ``TransactWriteItems`` gets a ``ClientRequestToken`` if it has none (as boto3 fills this idempotency
  token): every attempt sends the same body, so a retry of a commit whose answer was lost does not fail.
* Errors raise :class:`AWSError` with boto3's ``.response`` (``exc.response["Error"]["Code"]``, and a
  body's other fields, e.g. ``CancellationReasons``); network failures that outlast the retries raise
  :class:`AWSNetworkError`.
* ``DynamoDB.start`` writes a request and returns at once; its ``result()`` reads the answer: work done
  in between overlaps the round trip (the webhook reads a chat while it parses the update).
* Instrumentation for benchmarks, free when unused: each client's ``before_send`` (``f(op)``, just before
  the bytes go on the wire, every attempt), ``before_receive`` (``f(op)``, before its answer is read),
  ``after_receive`` (``f(op)``, once the answer is read), ``after_call`` (``f(op, params, parsed,
  seconds)`` after a successful call; ``params`` as given) and ``after_error`` (``f(op, params, error,
  seconds)`` when a call raises its ``AWSError``).
"""
from __future__ import annotations

import base64
import json
import random
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Mapping
from hashlib import sha256
from typing import Any

from gamebot.aws.shapes import Answer, Params
from gamebot.aws.signing import EMPTY_SHA256, Credentials, Signer, credentials, endpoint_url, region
from gamebot.aws.transport import NETWORK_ERRORS, Sent, Transport, current_deadline

MAX_ATTEMPTS = 4
BACKOFF_BASE = 0.025  # seconds: attempt n waits random() * min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (n - 1))
BACKOFF_CAP = 1.0
MIN_ATTEMPT = 0.05  # seconds: no attempt starts closer to the deadline (a round trip on a new TLS connection)

THROTTLING = frozenset({
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "RequestThrottled",
    "ProvisionedThroughputExceededException", "RequestLimitExceeded", "TooManyRequestsException",
    "BandwidthLimitExceeded", "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
})  # (LimitExceededException is not: in DynamoDB it is a limit on the account's control-plane operations)
TRANSIENT = frozenset({
    "InternalServerError", "InternalServerException", "InternalFailure", "ServiceUnavailable",
    "ServiceUnavailableException", "RequestTimeout", "RequestTimeoutException", "CRC32CheckFailed",
})


class AWSError(Exception):
    """An error answer (or, as :class:`AWSNetworkError`, no answer). ``response`` is shaped like boto3's
    ``ClientError.response``: ``{"Error": {"Code", "Message"}, "ResponseMetadata": {...}, **other fields}``."""

    def __init__(self, code: str, message: str, status: int, op: str = "",
                 extra: Mapping[str, object] | None = None, metadata: Mapping[str, object] | None = None) -> None:
        super().__init__(f"An error occurred ({code}) when calling the {op} operation: {message}")
        self.code, self.message, self.status, self.operation = code, message, status, op
        self.response: dict[str, object] = {**(extra or {}), "Error": {"Code": code, "Message": message},
                                         "ResponseMetadata": {"HTTPStatusCode": status, **(metadata or {})}}

    @property
    def retryable(self) -> bool:
        """Throttling or a failure on AWS's side: the same request may succeed later."""
        return self.code in THROTTLING or self.code in TRANSIENT or self.status >= 500 or self.status == 429


class AWSNetworkError(AWSError):
    """No answer: the connection failed or timed out on every attempt (the last error is ``__cause__``)."""

    def __init__(self, op: str, exc: BaseException) -> None:
        super().__init__("NetworkError", f"{type(exc).__name__}: {exc}", 0, op)

    @property
    def retryable(self) -> bool:
        return True


def _json_default(value: object) -> object:
    """What ``json`` cannot write: ``bytes`` (base64: DynamoDB's B/BS, the only blobs of its API), sets
    (SS, NS, BS may be given as sets, as boto3 allows) and datetimes (epoch seconds, JSON protocols' format)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if hasattr(value, "timestamp"):
        return value.timestamp()
    raise TypeError(f"cannot send {type(value).__name__} to AWS")


_encode = json.JSONEncoder(separators=(",", ":"), default=_json_default).encode  # (made once, not at each call)


def to_json(params: Params) -> bytes:
    """The request body, ASCII like botocore's (a lone surrogate in a string is escaped, never an error)."""
    return _encode(params).encode()


class _Attempt:
    """One request through its attempts: what signing it again needs, and the last attempt's state."""

    __slots__ = ("op", "method", "path", "query", "headers", "body", "payload_hash", "target", "number", "sent",
                 "failure", "deadline")

    def __init__(self, op: str, method: str, path: str, query: str, headers: dict[str, str], body: bytes | None,
                 payload_hash: str, target: str) -> None:
        self.op, self.method, self.path, self.query, self.headers = op, method, path, query, headers
        self.body, self.payload_hash, self.target = body, payload_hash, target
        self.number = 0
        self.sent: Sent | None = None  # written, its answer not read yet
        self.failure: BaseException | None = None
        self.deadline = current_deadline()  # (on the clients' clock) the one in force when the request started


class Client:
    """What both services share: endpoint, signing, connections, retries, errors and hooks."""

    SERVICE = ""  # signing name
    SERVICE_ID = ""  # AWS_ENDPOINT_URL_<SERVICE_ID>
    PREFIX = ""  # host prefix of the AWS endpoint

    def __init__(self, endpoint: str | None = None, region_name: str | None = None,
                 creds: Callable[[], Credentials] = credentials, sleep: Callable[[float], None] = time.sleep,
                 rand: Callable[[], float] = random.random, max_attempts: int = MAX_ATTEMPTS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.region = region_name or region()
        self.endpoint_url = (endpoint or endpoint_url(self.SERVICE_ID, self.PREFIX, self.region)).rstrip("/")
        self._transport = Transport(self.endpoint_url)
        self._prefix = self._transport.prefix
        self._signer = Signer(self.SERVICE, self.region)
        self._creds = creds
        self._sleep, self._rand, self.max_attempts, self._clock = sleep, rand, max_attempts, clock
        self.before_send: list[Callable[[str], object]] = []
        self.before_receive: list[Callable[[str], object]] = []
        self.after_receive: list[Callable[[str], object]] = []
        self.after_call: list[Callable[[str, Params, Mapping[str, object], float], object]] = []
        self.after_error: list[Callable[[str, Params, AWSError, float], object]] = []
        self._open = threading.local()  # .pending: this thread's request whose answer is not read yet

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.endpoint_url} {self.region}>"

    def close(self) -> None:
        """Close this thread's connection."""
        self._transport.close()

    def _send(self, op: str, method: str, path: str, query: str, headers: dict[str, str],
              body: bytes | None) -> tuple[bytes, dict[str, object]]:
        """Sign, send, retry. The answer's body and its ``ResponseMetadata``; an error answer raises."""
        return self._complete(self._begin(op, method, path, query, headers, body))

    def _begin(self, op: str, method: str, path: str, query: str, headers: dict[str, str],
               body: bytes | None) -> _Attempt:
        """The request's first attempt written on the wire (its answer read by ``_complete``). A request
        of this thread still waiting for its answer is read first (a connection carries one at a time)."""
        waiting = getattr(self._open, "pending", None)
        if waiting is not None:
            self._open.pending = None
            try:
                waiting.result()  # (kept for its owner: an error is raised to it, not here)
            except Exception:  # noqa: S110 - its owner sees it when it asks
                pass
        payload_hash = sha256(body).hexdigest() if body else EMPTY_SHA256
        target = f"{path}?{query}" if query else path
        attempt = _Attempt(op, method, path, query, headers, body, payload_hash, target)
        self._write(attempt)
        return attempt

    def _write(self, attempt: _Attempt) -> None:
        attempt.number += 1
        budget = None if attempt.deadline is None else attempt.deadline - self._clock()
        if budget is not None and budget < MIN_ATTEMPT:  # it could not finish: not started
            attempt.sent, attempt.failure = None, TimeoutError("no time left for an attempt before the deadline")
            return
        signed = self._signer.sign(attempt.method, attempt.path, attempt.query,
                                   {"Host": self._transport.host_header, **attempt.headers},
                                   attempt.payload_hash, self._creds())
        for hook in self.before_send:
            hook(attempt.op)
        try:
            attempt.sent, attempt.failure = self._transport.send(attempt.method, attempt.target, signed,
                                                                 attempt.body, budget), None
        except NETWORK_ERRORS as exc:
            attempt.sent, attempt.failure = None, exc

    def _complete(self, attempt: _Attempt) -> tuple[bytes, dict[str, object]]:
        """Read the answer of ``attempt``; retry (sign and send again) while that may help."""
        op = attempt.op
        while True:
            response = None
            if attempt.sent is not None:
                for hook in self.before_receive:
                    hook(op)
                try:
                    response = self._transport.receive(attempt.sent)
                except NETWORK_ERRORS as exc:
                    attempt.failure = exc
            if response is None:
                if not self._again(attempt):
                    raise AWSNetworkError(op, attempt.failure or OSError("no answer")) from attempt.failure
                continue
            for hook in self.after_receive:
                hook(op)
            status, data = response.status, response.body
            metadata: dict[str, object] = {"RequestId": response.headers.get("x-amzn-requestid", ""), "HTTPStatusCode": status,
                        "HTTPHeaders": response.headers, "RetryAttempts": attempt.number - 1}
            crc = response.headers.get("x-amz-crc32")
            if status < 300 and crc is not None and crc.isdigit() and int(crc) != zlib.crc32(data):
                error: AWSError = AWSError("CRC32CheckFailed", "the answer's CRC32 does not match", status, op)
            elif status < 300:
                return data, metadata
            else:
                error = self._error(op, status, response.headers.get("x-amzn-errortype"), data, metadata)
            if not error.retryable or not self._again(attempt):
                raise error

    def _again(self, attempt: _Attempt) -> bool:
        """Sleep the backoff and write the next attempt; False (nothing done) if no attempt is left for it."""
        if attempt.number >= self.max_attempts:
            return False
        delay = self._rand() * min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt.number - 1))
        if attempt.deadline is not None and attempt.deadline - self._clock() < delay + MIN_ATTEMPT:
            return False
        self._sleep(delay)
        self._write(attempt)
        return True

    def _error(self, op: str, status: int, error_type: str | None, data: bytes,
               metadata: Mapping[str, object]) -> AWSError:
        """An error answer: the code from ``x-amzn-ErrorType`` or the body's ``__type``/``code`` (the part
        after ``#``, before ``:``), else the status; the message from ``message``/``Message``."""
        try:
            body = json.loads(data) if data else {}
            if not isinstance(body, dict):
                body = {}
            text = ""
        except ValueError:
            body, text = {}, data[:500].decode(errors="replace")
        code = error_type or str(body.get("__type") or body.get("code") or body.get("Code") or "")
        code = code.split(":", 1)[0].rsplit("#", 1)[-1] or str(status)
        message = str(body.get("message") or body.get("Message") or text)
        extra = {k: v for k, v in body.items() if k != "__type"}  # e.g. CancellationReasons, as boto3 has them
        return AWSError(code, message, status, op, self._decode_extra(extra), metadata)

    def _decode_extra(self, extra: dict[str, Any]) -> dict[str, Any]:  # (open JSON: an error body's fields)
        return extra

    def _failed(self, op: str, params: Params, error: AWSError, started: float) -> None:
        for hook in self.after_error:
            hook(op, params, error, time.perf_counter() - started)

    def _done[A: Mapping[str, object]](self, op: str, params: Params, parsed: A, started: float) -> A:
        for hook in self.after_call:
            hook(op, params, parsed, time.perf_counter() - started)
        return parsed


# -- DynamoDB ---------------------------------------------------------------------------------------


def decode_value(value: dict[str, Any]) -> dict[str, Any]:  # (open JSON: the wire's items, until decoded)
    """An AttributeValue from the wire: base64 B/BS as ``bytes``, inside M and L too."""
    if "B" in value:
        return {"B": base64.b64decode(value["B"])}
    if "BS" in value:
        return {"BS": [base64.b64decode(v) for v in value["BS"]]}
    if "M" in value:
        return {"M": decode_item(value["M"])}
    if "L" in value:
        return {"L": [decode_value(v) for v in value["L"]]}
    return value


def decode_item(item: dict[str, Any]) -> dict[str, Any]:
    return {name: decode_value(value) for name, value in item.items()}


def decode_response(parsed: dict[str, Any]) -> dict[str, Any]:
    """Every item of a DynamoDB answer (or error body) decoded: single items, lists, per-table maps."""
    for key in ("Item", "Attributes", "LastEvaluatedKey"):
        if key in parsed:
            parsed[key] = decode_item(parsed[key])
    if "Items" in parsed:
        parsed["Items"] = [decode_item(i) for i in parsed["Items"]]
    responses = parsed.get("Responses")
    if isinstance(responses, list):  # TransactGetItems
        parsed["Responses"] = [{**r, "Item": decode_item(r["Item"])} if "Item" in r else r for r in responses]
    elif isinstance(responses, dict):  # BatchGetItem
        parsed["Responses"] = {t: [decode_item(i) for i in items] for t, items in responses.items()}
    for entry in (parsed.get("UnprocessedKeys") or {}).values():
        entry["Keys"] = [decode_item(k) for k in entry.get("Keys", [])]
    for requests in (parsed.get("UnprocessedItems") or {}).values():
        for request in requests:
            for kind, field in (("PutRequest", "Item"), ("DeleteRequest", "Key")):
                if kind in request:
                    request[kind][field] = decode_item(request[kind][field])
    if "CancellationReasons" in parsed:
        parsed["CancellationReasons"] = [{**r, "Item": decode_item(r["Item"])} if "Item" in r else r
                                         for r in parsed["CancellationReasons"] or []]
    return parsed


class Pending:
    """A DynamoDB request on the wire (``DynamoDB.start``); ``result()`` reads its answer, once."""

    __slots__ = ("client", "op", "params", "attempt", "started", "_parsed", "_error")

    def __init__(self, client: DynamoDB, op: str, params: Params, attempt: _Attempt, started: float) -> None:
        self.client, self.op, self.params, self.attempt, self.started = client, op, params, attempt, started
        self._parsed: Answer | None = None
        self._error: BaseException | None = None

    def result(self) -> Answer:
        """The parsed answer, as ``DynamoDB.call`` returns it, or its error raised (read once)."""
        if self._parsed is None and self._error is None:
            try:
                self._parsed = self.client.finish(self)
            except BaseException as exc:
                self._error = exc
        if self._error is not None:
            raise self._error
        assert self._parsed is not None
        return self._parsed


class DynamoDB(Client):
    """DynamoDB's low-level API as boto3's client has it, for the operations the bot uses (and ``call``
    for any other: ``client.call("Scan", {"TableName": ...})``)."""

    SERVICE, SERVICE_ID, PREFIX = "dynamodb", "DYNAMODB", "dynamodb"
    TARGET = "DynamoDB_20120810."

    def call(self, op: str, params: Params) -> Answer:
        return self.start(op, params).result()

    def start(self, op: str, params: Params) -> Pending:
        """Write the request now, read its answer later (``.result()``, before this thread makes another
        request to DynamoDB): the caller's work in between overlaps the round trip."""
        started = time.perf_counter()
        if op == "TransactWriteItems" and "ClientRequestToken" not in params:  # its idempotency token
            params = {**params, "ClientRequestToken": str(uuid.uuid4())}
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": self.TARGET + op}
        pending = Pending(self, op, params,
                          self._begin(op, "POST", self._prefix + "/", "", headers, to_json(params)), started)
        self._open.pending = pending
        return pending

    def finish(self, pending: Pending) -> Answer:
        op, params, started = pending.op, pending.params, pending.started
        if getattr(self._open, "pending", None) is pending:
            self._open.pending = None
        try:
            data, metadata = self._complete(pending.attempt)
        except AWSError as error:
            self._failed(op, params, error, started)
            raise
        raw = json.loads(data or b"{}")  # DynamoDB's answer, its binary values still base64 text
        if b'"B' in data:  # a binary value somewhere (B or BS): decode (a cheap test for the common case)
            decode_response(raw)
        parsed: Answer = raw
        parsed["ResponseMetadata"] = metadata
        return self._done(op, params, parsed, started)

    def _decode_extra(self, extra: dict[str, Any]) -> dict[str, Any]:
        return decode_response(extra)

    def get_item(self, **params: object) -> Answer:
        return self.call("GetItem", params)

    def put_item(self, **params: object) -> Answer:
        return self.call("PutItem", params)

    def update_item(self, **params: object) -> Answer:
        return self.call("UpdateItem", params)

    def delete_item(self, **params: object) -> Answer:
        return self.call("DeleteItem", params)

    def transact_write_items(self, **params: object) -> Answer:
        return self.call("TransactWriteItems", params)

    def transact_get_items(self, **params: object) -> Answer:
        return self.call("TransactGetItems", params)

    def batch_get_item(self, **params: object) -> Answer:
        return self.call("BatchGetItem", params)
