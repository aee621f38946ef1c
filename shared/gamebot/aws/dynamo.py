"""DynamoDB implementation of :class:`gamebot.storage.store.Repository` (a boto3-style low-level client).

Table layout (see template.yaml): partition key ``pk`` (S) only; ``version`` (N), ``body`` (S: the
compact JSON of the body; or B: that JSON compressed with zlib and a preset dictionary, when it is
longer than ``COMPRESS_ABOVE`` bytes: ``gamebot.storage.packing``), ``expires_at`` (N, epoch seconds, the
table's TTL attribute). A game's session compresses about 8:1 (7 KB of JSON on average, 0.9 KB
stored), and DynamoDB charges a write unit per KB written and a read unit per 4 KB read.

Semantics match ``FakeRepository``: a write states the version it replaces (``None``: the item must
not exist); an item whose ``expires_at`` has passed counts as absent everywhere (DynamoDB's TTL
deletes lazily, up to days later), so it is hidden from ``get`` and can be created over.

Every write stores an expiry: the item's own, else its kind's life from now (``store.stamped``,
``gamebot.storage.lifetimes``; a key of no known kind gets the longest and an error in the log).

A notes item (``note``/``notes``: a player's refused presses) has no body or version: each note is its
own number attribute ``n_<name>``, and ``noted`` (N) counts the writes of the item's notes. Its expiry is
set when it is created (``if_not_exists``) and it holds at most ``lifetimes.MAX_NOTES`` notes: a note is one
UpdateItem while the item has room and time left (or is not there), so that concurrent notes never undo
each other; otherwise (full, about to expire, expired but not yet deleted) the item is read and written
whole under a check that ``noted`` and ``expires_at`` are still what was read (``lifetimes.with_note``).

The default client is our own (``gamebot.aws.client.DynamoDB``: no boto3 on the Lambda's path, a fraction of
botocore's CPU per request), created lazily, once per container (warm Lambda invocations reuse it and
its kept-alive connections). The region comes from ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` (us-east-1
if unset, for local use), the endpoint from ``AWS_ENDPOINT_URL_DYNAMODB`` / ``AWS_ENDPOINT_URL``
(DynamoDB Local, moto server). ``DynamoRepository(table, client=...)`` takes any client with boto3's
low-level methods: a boto3 client works too (tests and scripts pass them).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gamebot import observe
from gamebot.aws.shapes import Client
from gamebot.storage import lifetimes
from gamebot.storage.packing import COMPRESS_ABOVE, AttributeValue, Record, pack, unpack  # noqa: F401 (COMPRESS_ABOVE: read from here)
from gamebot.storage.session import chat_key
from gamebot.storage.store import (
    MAX_TRANSACTION_ITEMS,
    Delete,
    Item,
    Repository,
    VersionConflict,
    Write,
    check_transaction,
    stamped,
)

_client_lock = threading.Lock()
_shared_client: Client | None = None

CHAT_PREFIX = chat_key(0)[:-1]  # "chat#": the chats' items (their size is a metric)
NOTE_PREFIX = "n_"  # a notes item keeps each note in its own attribute: n_<name> (N)
NOTED = "noted"  # ...and counts the writes of its notes (N): the one-request note needs fewer than MAX_NOTES


def default_client() -> Client:
    """The process-wide DynamoDB client, created on first use."""
    global _shared_client
    with _client_lock:
        if _shared_client is None:
            from gamebot.aws.client import (
                DynamoDB,  # (4 attempts, connect timeout 3 s, read timeout 5 s)
            )

            _shared_client = DynamoDB()
        return _shared_client


def reset_default_client() -> None:
    """Forget the cached client (tests that change the environment)."""
    global _shared_client
    with _client_lock:
        _shared_client = None


def _version(record: Record) -> int:
    return int(record["version"]["N"]) if "version" in record else 0


def _expiry(record: Record) -> int | None:
    expires = record.get("expires_at")
    return int(float(expires["N"])) if expires else None


def _n(value: int) -> AttributeValue:
    return {"N": str(int(value))}


def _notes_of(record: Record) -> dict[str, int]:
    return {k[len(NOTE_PREFIX):]: int(v["N"]) for k, v in record.items() if k.startswith(NOTE_PREFIX)}


def _unchanged(record: Record | None) -> dict[str, object]:
    """The condition that a notes item is still as read (``record``; None: still absent)."""
    if record is None:
        return {"ConditionExpression": "attribute_not_exists(pk)"}
    clauses: list[str] = []
    values: Record = {}
    for name, attr in (("expires_at", "expires_at"), ("#c", NOTED)):
        if attr in record:
            clauses.append(f"{name} = :{attr}0")
            values[f":{attr}0"] = record[attr]
        else:
            clauses.append(f"attribute_not_exists({name})")
    return {"ConditionExpression": " AND ".join(clauses), "ExpressionAttributeNames": {"#c": NOTED},
            **({"ExpressionAttributeValues": values} if values else {})}


def stored_size(record: Record) -> int:
    """The bytes DynamoDB counts for an item of ours (its 400 KB limit; write units per KB): each attribute's
    name and value (a string's UTF-8, a binary's bytes, a number about one byte per two digits, plus one)."""
    size = 0
    for name, value in record.items():
        size += len(name.encode())
        if "S" in value:
            size += len(value["S"].encode())
        elif "B" in value:
            size += len(value["B"])
        elif "N" in value:
            size += (len(value["N"].strip("-").replace(".", "")) + 1) // 2 + 1
    return size


def _observe_write(record: Record) -> None:
    """A chat's item written: its size, for the operator (``gamebot.observe``)."""
    if record["pk"]["S"].startswith(CHAT_PREFIX):
        observe.current().chat_item_written(stored_size(record))


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


# Reasons in a cancelled transaction that mean "someone else got there first": reload and retry.
_CONFLICT_REASONS = {"ConditionalCheckFailed", "TransactionConflict"}


class DynamoRepository(Repository):
    """Repository on one DynamoDB table. ``calls`` counts requests like ``FakeRepository.calls``."""

    def __init__(
        self,
        table_name: str,
        client: Client | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.table_name = table_name
        self._client = client
        self.clock = clock
        self.calls = {"read": 0, "write": 0, "note": 0}  # (a note is a write of a refusal: counted apart)
        self._prefetched = threading.local()  # .entry: (key, client.Pending) read ahead by ``prefetching``
        self.read_ahead = {"started": 0, "used": 0}  # reads started by ``prefetching``, and those a get took

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = default_client()
        return self._client

    # -- encoding ----------------------------------------------------------------------------

    def _now(self) -> int:
        return int(self.clock())

    @staticmethod
    def encode_item(item: Item, version: int) -> Record:
        record: Record = {"pk": {"S": item.key}, "version": {"N": str(version)}, "body": pack(item.body)}
        if item.expires_at is not None:
            record["expires_at"] = {"N": str(int(item.expires_at))}
        return record

    @staticmethod
    def decode_item(record: Record) -> Item:
        return Item(key=record["pk"]["S"], body=unpack(record["body"]) if "body" in record else {},
                    version=_version(record), expires_at=_expiry(record))

    def _condition(self, expect: int | None) -> dict[str, object]:
        """Condition that the stored item is at version ``expect`` (None: absent or expired)."""
        now: AttributeValue = {"N": str(self._now())}
        if expect is None:
            return {
                "ConditionExpression": "attribute_not_exists(pk) OR expires_at <= :now",
                "ExpressionAttributeValues": {":now": now},
            }
        return {
            "ConditionExpression": (
                "version = :expected AND (attribute_not_exists(expires_at) OR expires_at > :now)"
            ),
            "ExpressionAttributeValues": {":expected": {"N": str(expect)}, ":now": now},
        }

    # -- Repository --------------------------------------------------------------------------

    @contextmanager
    def prefetching(self, key: str | None) -> Iterator[None]:
        """Read ``key`` now, without waiting: the block's first ``get(key)`` takes its answer (the
        webhook parses the update meanwhile). Unused, it is forgotten when the block ends."""
        start = getattr(self.client, "start", None)
        if key is None or start is None:
            yield
            return
        self.calls["read"] += 1
        self.read_ahead["started"] += 1
        self._prefetched.entry = (key, start("GetItem", self._get_params(key)))
        try:
            yield
        finally:
            self._prefetched.entry = None

    def _get_params(self, key: str) -> dict[str, object]:
        return {"TableName": self.table_name, "Key": {"pk": {"S": key}}, "ConsistentRead": True}

    def get(self, key: str) -> Item | None:
        entry = getattr(self._prefetched, "entry", None)
        if entry is not None and entry[0] == key:
            self._prefetched.entry = None
            self.read_ahead["used"] += 1
            response = entry[1].result()
        else:
            self.calls["read"] += 1
            response = self.client.get_item(**self._get_params(key))
        record = response.get("Item")
        if record is None:
            return None
        item = self.decode_item(record)
        if item.expires_at is not None and item.expires_at <= self.clock():
            return None  # expired: TTL has not deleted it yet
        return item

    def get_many(self, keys: list[str]) -> dict[str, Item]:
        """One TransactGetItems (strongly consistent, up to 100 keys). It needs no IAM action of its
        own: DynamoDB authorizes each item with dynamodb:GetItem, which the function already has."""
        unique = list(dict.fromkeys(keys))
        if not unique:
            return {}
        if len(unique) > MAX_TRANSACTION_ITEMS:
            raise ValueError(f"at most {MAX_TRANSACTION_ITEMS} keys at once")
        if len(unique) == 1:
            item = self.get(unique[0])
            return {unique[0]: item} if item is not None else {}
        self.calls["read"] += 1
        try:
            response = self.client.transact_get_items(
                TransactItems=[{"Get": {"TableName": self.table_name, "Key": {"pk": {"S": key}}}} for key in unique]
            )
        except Exception as exc:
            # a write in flight on one of the items cancels the read: read again (retrying re-runs)
            if _error_code(exc) in ("TransactionCanceledException", "TransactionConflictException"):
                raise VersionConflict(", ".join(unique)) from exc
            raise
        found = {}
        responses = response.get("Responses")
        for entry in responses if isinstance(responses, list) else []:  # (TransactGetItems: a list)
            record = entry.get("Item")
            if not record:
                continue
            item = self.decode_item(record)
            if item.expires_at is not None and item.expires_at <= self.clock():
                continue
            found[item.key] = item
        return found

    def put(self, item: Item, expect: int | None) -> Item:
        item = stamped(item, self.clock(), strict=False)
        version = (expect or 0) + 1
        self.calls["write"] += 1
        record = self.encode_item(item, version)
        try:
            self.client.put_item(TableName=self.table_name, Item=record, **self._condition(expect))
        except Exception as exc:
            if _error_code(exc) == "ConditionalCheckFailedException":
                raise VersionConflict(item.key) from exc
            raise
        _observe_write(record)
        return Item(key=item.key, body=item.body, version=version, expires_at=item.expires_at)

    def note(self, key: str, name: str, value: int, expires_at: int | None = None) -> None:
        self.calls["note"] += 1
        now = self._now()
        fresh = lifetimes.expiry(key, now, expires_at, strict=False)
        # the usual case, one request: no item yet, or a live one with room and time left, without the note
        if self._noted(
            UpdateExpression="SET #n = :v, expires_at = if_not_exists(expires_at, :e) ADD #c :one",
            ConditionExpression=("attribute_not_exists(pk) OR "
                                 "(expires_at >= :soon AND attribute_not_exists(#n) AND #c < :max)"),
            Key={"pk": {"S": key}}, ExpressionAttributeNames={"#n": NOTE_PREFIX + name, "#c": NOTED},
            ExpressionAttributeValues={":v": _n(value), ":e": _n(fresh), ":one": _n(1),
                                       ":soon": _n(now + lifetimes.NOTE_MARGIN), ":max": _n(lifetimes.MAX_NOTES)}):
            return
        for _ in range(3):  # else: read, then write it whole if nobody noted meanwhile (then read again)
            record = self.client.get_item(TableName=self.table_name, Key={"pk": {"S": key}},
                                          ConsistentRead=True).get("Item")
            expires = _expiry(record) if record is not None else None
            live = record is not None and expires is not None and expires > now
            current = _notes_of(record) if live and record is not None else {}
            after = lifetimes.with_note(current, expires if live else None, now, name, value, fresh)
            if after is None:
                return  # noted already
            notes, until = after  # (the same item: one more write of its notes; a new one: its notes)
            same = live and record is not None and until == expires and NOTED in record
            written = int(record[NOTED]["N"]) + 1 if same and record is not None else 0
            item = {"pk": {"S": key}, "expires_at": _n(until), NOTED: _n(max(written, len(notes))),
                    **{NOTE_PREFIX + k: _n(v) for k, v in notes.items()}}
            if self._noted(Item=item, **_unchanged(record)):
                return
        raise VersionConflict(key)

    def _noted(self, **request: object) -> bool:
        """One conditional write of a notes item (UpdateItem with ``UpdateExpression``, else PutItem):
        False if its condition failed."""
        write = self.client.update_item if "UpdateExpression" in request else self.client.put_item
        try:
            write(TableName=self.table_name, **request)
        except Exception as exc:
            if _error_code(exc) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def notes(self, key: str) -> dict[str, int]:
        self.calls["read"] += 1
        record = self.client.get_item(TableName=self.table_name, Key={"pk": {"S": key}}, ConsistentRead=True
                                      ).get("Item")
        if record is None:
            return {}
        expires = record.get("expires_at")
        if expires is not None and float(expires["N"]) <= self.clock():
            return {}
        return _notes_of(record)

    def delete(self, key: str, expect: int | None = None) -> None:
        self.calls["write"] += 1
        kwargs: dict[str, object] = {"TableName": self.table_name, "Key": {"pk": {"S": key}}}
        if expect is not None:
            kwargs.update(self._condition(expect))
        try:
            self.client.delete_item(**kwargs)
        except Exception as exc:
            if _error_code(exc) == "ConditionalCheckFailedException":
                raise VersionConflict(key) from exc
            raise

    def transact(self, writes: list[Write], deletes: list[Delete] | None = None) -> list[Item]:
        deletes = deletes or []
        check_transaction(writes, deletes)
        if not writes and not deletes:
            return []
        if len(writes) == 1 and not deletes:  # a single write needs no (twice as costly) transaction
            return [self.put(writes[0].item, writes[0].expect)]
        if len(deletes) == 1 and not writes:
            self.delete(deletes[0].key, deletes[0].expect)
            return []
        ops: list[dict[str, object]] = []
        records: list[Record] = []  # the items put, in their order
        out: list[Item] = []
        now = self.clock()
        for w in writes:
            item, version = stamped(w.item, now, strict=False), (w.expect or 0) + 1
            records.append(self.encode_item(item, version))
            ops.append({"Put": {"TableName": self.table_name, "Item": records[-1], **self._condition(w.expect)}})
            out.append(dataclasses.replace(item, version=version))
        for d in deletes:
            op: dict[str, object] = {"TableName": self.table_name, "Key": {"pk": {"S": d.key}}}
            if d.expect is not None:
                op.update(self._condition(d.expect))
            ops.append({"Delete": op})
        self.calls["write"] += 1
        try:
            self.client.transact_write_items(TransactItems=ops)
        except Exception as exc:
            code = _error_code(exc)
            if code == "TransactionCanceledException":
                reasons = getattr(exc, "response", {}).get("CancellationReasons") or []
                codes = {r.get("Code") for r in reasons}
                if codes & _CONFLICT_REASONS:
                    keys = [w.item.key for w in writes] + [d.key for d in deletes]
                    raise VersionConflict(", ".join(keys)) from exc
            elif code == "TransactionConflictException":
                raise VersionConflict("transaction conflict") from exc
            raise
        for record in records:
            _observe_write(record)
        return out

