"""Which game table an operator's script works on, and its DynamoDB client (boto3, the operator's
credentials): ``--table NAME``, or ``--stack NAME`` (the stack's output ``GameTableName``), with
``--region``. ``AWS_ENDPOINT_URL_DYNAMODB`` / ``AWS_ENDPOINT_URL`` point it at another endpoint (moto,
DynamoDB Local, the playground). Shared by ``read_chat.py`` and ``expire_old_items.py``."""
from __future__ import annotations

import argparse
import os
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--table`` or ``--stack`` (one of them, required), and ``--region``."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", help="the DynamoDB table's name")
    where.add_argument("--stack", help="a deployed stack: the table named by its output GameTableName")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")


def endpoint() -> str | None:
    return os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") or os.environ.get("AWS_ENDPOINT_URL") or None


def table_of_stack(stack: str, region: str | None) -> str:
    import boto3

    cfn = boto3.client("cloudformation", region_name=region, endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None)
    outputs = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs") or []
    for output in outputs:
        if output.get("OutputKey") == "GameTableName":
            return str(output["OutputValue"])
    raise SystemExit(f"stack {stack} has no output GameTableName")


def opened(args: argparse.Namespace) -> tuple[Any, str]:
    """The DynamoDB client and the table's name the arguments give."""
    import boto3

    table = args.table or table_of_stack(args.stack, args.region)
    return boto3.client("dynamodb", region_name=args.region, endpoint_url=endpoint()), table
