"""Concurrent read-modify-write through a real HTTP DynamoDB endpoint (moto server on 127.0.0.1).

DynamoDB executes each request atomically; moto does not isolate concurrent requests (its
TransactWriteItems snapshots whole tables and, when cancelled, restores the snapshot, undoing writes
that other requests made meanwhile). The server (``endpoint``, tests/integration/conftest.py) therefore
runs one request at a time. The clients stay fully concurrent: every read-modify-write is two requests, and other threads' writes
land between them, so conditional writes really conflict and ``retrying`` really retries.
"""
from __future__ import annotations

import threading

import pytest

from gamebot.aws.dynamo import DynamoRepository
from gamebot.storage.store import Item, Write, retrying
from tests.moto_server import aws_dynamo_client, dynamo_client

TEMPLATE = """\
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      TimeToLiveSpecification: {AttributeName: expires_at, Enabled: true}
"""

THREADS = 10
TRIALS = 4


def _client(endpoint: str):
    return dynamo_client(endpoint, pool=THREADS + 2)


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("mode", ["put", "transaction"])
@pytest.mark.parametrize("kind", ["ours", "boto3"])
def test_concurrent_appends_with_retrying_all_land_exactly_once(endpoint, tmp_path, trial, mode, kind):
    """10 threads append their id to one item (read, modify, conditional write; retry on conflict).
    ``transaction``: each also creates its own item in the same TransactWriteItems. One client for all
    the threads: ours (a connection per thread) or boto3's (a pool)."""
    from localdev.tables import create_table_from_template

    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE)
    admin = _client(endpoint)
    client = aws_dynamo_client(endpoint) if kind == "ours" else admin
    table = f"concurrency-{kind}-{mode}-{trial}"
    create_table_from_template(admin, table, template)
    DynamoRepository(table, client=client).put(Item("game", {"joined": []}), None)

    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        repo = DynamoRepository(table, client=client)  # both clients are thread-safe

        def attempt() -> Item:
            current = repo.get("game")
            assert current is not None
            body = {"joined": [*current.body["joined"], n]}
            if mode == "put":
                return repo.put(Item("game", body), current.version)
            mine = repo.get(f"player#{n}")
            return repo.transact([
                Write(Item("game", body), current.version),
                Write(Item(f"player#{n}", {"seat": len(body["joined"])}), mine.version if mine else None),
            ])[0]

        try:
            start.wait()
            retrying(attempt, tries=200, backoff=0.002)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    final = DynamoRepository(table, client=client).get("game")
    assert sorted(final.body["joined"]) == list(range(THREADS))
    assert final.version == THREADS + 1
    if mode == "transaction":  # every player item was written once, with the seat its game write gave it
        seats = {n: DynamoRepository(table, client=client).get(f"player#{n}") for n in range(THREADS)}
        assert all(item is not None and item.version == 1 for item in seats.values())
        assert {n: item.body["seat"] for n, item in seats.items()} == {
            n: final.body["joined"].index(n) + 1 for n in range(THREADS)
        }
