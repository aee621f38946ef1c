"""The playground's local DynamoDB under concurrent writes: every request answered (no 500, no moto
traceback), every write applied, a cancelled transaction undoing nothing of the others'."""
from __future__ import annotations

import threading

from gamebot.aws.client import AWSError
from localdev.playground import Playground
from tests.moto_server import aws_dynamo_client

THREADS = 8
ROUNDS = 24


def test_concurrent_transactions_and_puts_are_all_answered_and_all_applied(capfd):
    with Playground(sim_delay=0, seed=2, group_budget=0) as pg:
        host, port = pg.moto.get_host_and_port()
        assert host == "127.0.0.1"
        endpoint, table = f"http://{host}:{port}", pg.table_name
        aws_dynamo_client(endpoint).put_item(TableName=table, Item={"pk": {"S": "taken"}})
        capfd.readouterr()  # (what starting the playground printed)
        failures: list[str] = []
        cancelled: list[str] = []
        start = threading.Barrier(THREADS)

        def writer(t: int) -> None:
            client = aws_dynamo_client(endpoint)
            client.max_attempts = 1  # a 500 must show, not be retried away
            start.wait()
            for i in range(ROUNDS):
                try:
                    if i % 3 == 0:
                        client.put_item(TableName=table, Item={"pk": {"S": f"put#{t}#{i}"}, "n": {"N": str(i)}})
                    elif i % 3 == 1:
                        client.call("TransactWriteItems", {"TransactItems": [
                            {"Put": {"TableName": table, "Item": {"pk": {"S": f"tx#{t}#{i}#{k}"}}}} for k in range(3)]})
                    else:  # refused as a whole: it must write nothing and undo nothing of the others'
                        client.call("TransactWriteItems", {"TransactItems": [
                            {"Put": {"TableName": table, "Item": {"pk": {"S": f"never#{t}#{i}"}}}},
                            {"Put": {"TableName": table, "Item": {"pk": {"S": "taken"}},
                                     "ConditionExpression": "attribute_not_exists(pk)"}},
                        ]})
                except AWSError as exc:
                    (cancelled if exc.code == "TransactionCanceledException" else failures).append(
                        f"{exc.status} {exc.code} {exc}")

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        out, err = capfd.readouterr()
        assert failures == []
        assert len(cancelled) == THREADS * len(range(2, ROUNDS, 3))
        assert "Traceback" not in out + err and "RuntimeError" not in out + err
        keys = {item["pk"]["S"] for item in pg.admin.scan(TableName=table)["Items"]}
        wanted = {f"put#{t}#{i}" for t in range(THREADS) for i in range(0, ROUNDS, 3)}
        wanted |= {f"tx#{t}#{i}#{k}" for t in range(THREADS) for i in range(1, ROUNDS, 3) for k in range(3)}
        assert wanted - keys == set()
        assert not any(k.startswith("never#") for k in keys)


def test_the_local_server_listens_on_127_0_0_1_only():
    from localdev.serial_moto import SerialMotoServer

    server = SerialMotoServer().start()
    try:
        assert server.get_host_and_port()[0] == "127.0.0.1"
        assert server.endpoint.startswith("http://127.0.0.1:")
    finally:
        server.stop()
