#!/usr/bin/env python3
"""Give every item written before item lifetimes existed its expiry: a one-off after upgrading a stack.

Since issue 36 every write sets ``expires_at`` from its item's kind (``gamebot.storage.lifetimes``: a
group's, a player's and their statistics' items a year after their last write). An item written by an
earlier version has none until its next write, and a group that never plays again would keep it forever.
This script scans the table once for items without ``expires_at`` and sets it to its kind's life from
now, as if it had just been written (a key of no listed kind: the longest life, and it is named).

Each update is conditional (``attribute_not_exists(expires_at)``): an item the bot writes meanwhile keeps
what the bot set, and the bot's version-checked writes are not disturbed (the version is untouched).
``--dry-run`` counts without writing. Run it on an operator's machine with boto3 and credentials from
the AWS profile (dynamodb:Scan and dynamodb:UpdateItem on the table; cloudformation:DescribeStacks for
``--stack``); a scan reads the whole table once (on demand: half a read unit per 4 KB)::

    scripts/expire_old_items.py --stack avalon-bot --dry-run
    scripts/expire_old_items.py --stack avalon-bot

``AWS_ENDPOINT_URL`` (or ``AWS_ENDPOINT_URL_DYNAMODB``) points it at another endpoint (moto, the playground).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from gamebot.storage import lifetimes  # noqa: E402

SCAN_PAGE = 500  # items a Scan page asks for


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Set expires_at on the items written before item lifetimes.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", help="the DynamoDB table's name")
    where.add_argument("--stack", help="a deployed stack: the table named by its output GameTableName")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")
    parser.add_argument("--dry-run", action="store_true", help="count what would be set, write nothing")
    return parser.parse_args(argv)


def endpoint() -> str | None:
    return os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") or os.environ.get("AWS_ENDPOINT_URL") or None


def table_of_stack(stack: str, region: str | None) -> str:
    import boto3

    cfn = boto3.client("cloudformation", region_name=region, endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None)
    outputs = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    return str(next(o["OutputValue"] for o in outputs if o["OutputKey"] == "GameTableName"))


def without_expiry(client: Any, table: str) -> list[str]:
    """The keys of every item that has no ``expires_at`` (one scan, page by page)."""
    keys: list[str] = []
    params: dict[str, Any] = {"TableName": table, "ProjectionExpression": "pk", "Limit": SCAN_PAGE,
                              "FilterExpression": "attribute_not_exists(expires_at)"}
    while True:
        page = client.scan(**params)
        keys += [item["pk"]["S"] for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return keys
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def expire(client: Any, table: str, keys: list[str], now: float, dry_run: bool = False) -> Counter[str]:
    """Set each key's expiry from ``now`` (its kind's life); what was done, by kind ("set <prefix>",
    "unknown <prefix>", "written meanwhile")."""
    done: Counter[str] = Counter()
    for key in keys:
        try:
            kind = lifetimes.kind_of(key)
            at, label = int(now) + kind.life, f"set {kind.prefix}"
        except lifetimes.UnknownKind:
            at, label = int(now) + lifetimes.LONGEST, f"unknown {key.split('#')[0]}#"
        if dry_run:
            done[label] += 1
            continue
        try:
            client.update_item(TableName=table, Key={"pk": {"S": key}}, UpdateExpression="SET expires_at = :e",
                               ConditionExpression="attribute_exists(pk) AND attribute_not_exists(expires_at)",
                               ExpressionAttributeValues={":e": {"N": str(at)}})
            done[label] += 1
        except client.exceptions.ConditionalCheckFailedException:  # the bot wrote it (or deleted it) since
            done["written meanwhile"] += 1
    return done


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import boto3

    client = boto3.client("dynamodb", region_name=args.region, endpoint_url=endpoint())
    table = args.table or table_of_stack(args.stack, args.region)
    keys = without_expiry(client, table)
    done = expire(client, table, keys, time.time(), dry_run=args.dry_run)
    verb = "would set" if args.dry_run else "set"
    print(f"{table}: {len(keys)} items without an expiry; {verb}:")
    for label, count in sorted(done.items()):
        print(f"  {label}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
