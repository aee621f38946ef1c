"""A moto server on 127.0.0.1 (DynamoDB, EventBridge Scheduler) for tests with real concurrency and for
the functions' own AWS client (``gamebot.aws.client``, plain HTTP: moto's in-process ``mock_aws`` only
intercepts botocore), and clients for it: boto3's and ours.

DynamoDB executes each request atomically; moto does not isolate concurrent requests (its
TransactWriteItems snapshots whole tables and, when cancelled, restores the snapshot, undoing writes
that other requests made meanwhile). The server therefore runs one request at a time
(``localdev.serial_moto``, which the playground runs too). Clients stay
fully concurrent: every read-modify-write is at least two requests, and other writers' requests land
between them, so conditional writes really conflict and ``retrying`` really retries.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def serialised_moto_server() -> Iterator[str]:
    """Start the server (``localdev.serial_moto``: the playground's); yields its endpoint URL."""
    from localdev.serial_moto import SerialMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one access-log line per request otherwise
    server = SerialMotoServer().start()
    try:
        yield server.endpoint
    finally:
        server.stop()


def reset_moto(endpoint: str) -> None:
    """Forget every table, item and schedule on the server (moto's own reset API)."""
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=10).close()


def aws_dynamo_client(endpoint: str) -> Any:
    """Our own DynamoDB client (what the Lambda functions use) on the server."""
    from gamebot.aws.client import DynamoDB
    from gamebot.aws.signing import Credentials

    keys = Credentials("testing", "testing")
    return DynamoDB(endpoint=endpoint, region_name="us-east-1", creds=lambda: keys)


@functools.cache
def admin_dynamo(endpoint: str) -> Any:
    """One boto3 DynamoDB client per endpoint and process, for making tables (a new client costs ~50 ms)."""
    return dynamo_client(endpoint)


def dynamo_client(endpoint: str, pool: int = 4) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(max_pool_connections=pool, retries={"mode": "standard", "max_attempts": 3}),
    )
