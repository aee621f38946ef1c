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
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # (run from anywhere, or loaded by a test)

import game_table  # noqa: E402

from gamebot.storage import lifetimes  # noqa: E402

SCAN_PAGE = 500  # items a Scan page asks for


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Set expires_at on the items written before item lifetimes.")
    game_table.add_arguments(parser)
    parser.add_argument("--dry-run", action="store_true", help="count what would be set, write nothing")
    return parser.parse_args(argv)


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
    client, table = game_table.opened(args)
    keys = without_expiry(client, table)
    done = expire(client, table, keys, time.time(), dry_run=args.dry_run)
    verb = "would set" if args.dry_run else "set"
    print(f"{table}: {len(keys)} items without an expiry; {verb}:")
    for label, count in sorted(done.items()):
        print(f"  {label}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
