"""Create the bot's DynamoDB table from template.yaml's own definition (playground, tests, benchmarks).

Local only: it needs PyYAML and boto3 (requirements-dev.txt), which the Lambda layer does not ship.

The table is described once, in template.yaml (an ``AWS::DynamoDB::Table`` resource, whatever its
logical id); this module reads that resource's KeySchema, AttributeDefinitions, BillingMode, indexes
and TimeToLiveSpecification and creates the same table through a DynamoDB client (moto, DynamoDB
Local). CloudFormation tags (``!Ref``, ``!Sub``, ``!GetAtt`` ...) are read as plain
``{"Ref": ...}``/``{"Fn::Sub": ...}`` mappings; the template's TableName is ignored in favour of the
``table_name`` argument.

Creating tables, waiting for them, TTL settings and scans are boto3's (``admin_client``): the bot's own
client (``gamebot.aws.client``) has only the item operations the Lambda functions use.
"""
from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

TABLE_TYPE = "AWS::DynamoDB::Table"
REPO_ROOT = Path(__file__).resolve().parents[1]


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that accepts CloudFormation short-form intrinsic functions."""


def _cfn_tag(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    name = tag_suffix if tag_suffix in ("Ref", "Condition") else f"Fn::{tag_suffix}"
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {name: value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def load_template(template_path: str | Path = "template.yaml") -> dict[str, Any]:
    """Parse a CloudFormation/SAM template, tolerating short-form tags."""
    path = Path(template_path)
    if not path.is_absolute() and not path.exists() and (REPO_ROOT / path).exists():
        path = REPO_ROOT / path
    return copy.deepcopy(_parsed(str(path.resolve()), path.stat().st_mtime_ns))


@functools.cache
def _parsed(path: str, version: int) -> dict[str, Any]:
    """A template parsed once per file version (its YAML took ~0.2 s: the e2e tests make a table each)."""
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=_CfnLoader) or {}  # noqa: S506 - SafeLoader subclass


def table_definition(template: dict[str, Any], logical_id: str | None = None) -> dict[str, Any]:
    """The Properties of the template's DynamoDB table (the one keyed on ``pk`` if there are several)."""
    resources = template.get("Resources") or {}
    tables = {rid: r for rid, r in resources.items() if isinstance(r, dict) and r.get("Type") == TABLE_TYPE}
    if logical_id is not None:
        if logical_id not in tables:
            raise LookupError(f"no {TABLE_TYPE} named {logical_id!r} in the template")
        return tables[logical_id].get("Properties") or {}
    if not tables:
        raise LookupError(f"the template defines no {TABLE_TYPE}")
    if len(tables) > 1:
        keyed = [
            r for r in tables.values()
            if any(k.get("AttributeName") == "pk" for k in (r.get("Properties") or {}).get("KeySchema", []))
        ]
        if len(keyed) != 1:
            raise LookupError(f"several {TABLE_TYPE} resources; pass logical_id ({sorted(tables)})")
        return keyed[0].get("Properties") or {}
    return next(iter(tables.values())).get("Properties") or {}


def _plain(value: Any) -> Any:
    """Template values as API parameters (numbers in CloudFormation may be strings)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _throughput(value: dict[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in value.items()}


def create_table_params(props: dict[str, Any], table_name: str) -> dict[str, Any]:
    """CreateTable parameters from the CloudFormation table properties."""
    params: dict[str, Any] = {
        "TableName": table_name,
        "KeySchema": _plain(props["KeySchema"]),
        "AttributeDefinitions": _plain(props["AttributeDefinitions"]),
        "BillingMode": props.get("BillingMode", "PROVISIONED"),
    }
    if params["BillingMode"] == "PROVISIONED":
        params["ProvisionedThroughput"] = _throughput(
            props.get("ProvisionedThroughput") or {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        )
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if props.get(key):
            indexes = []
            for index in _plain(props[key]):
                index = {k: v for k, v in index.items() if k != "ContributorInsightsSpecification"}
                if "ProvisionedThroughput" in index:
                    index["ProvisionedThroughput"] = _throughput(index["ProvisionedThroughput"])
                indexes.append(index)
            params[key] = indexes
    if props.get("StreamSpecification"):
        params["StreamSpecification"] = {"StreamEnabled": True, **_plain(props["StreamSpecification"])}
    return params


def admin_client(endpoint_url: str | None = None) -> Any:
    """A boto3 DynamoDB client for the control plane and scans, on the endpoint and in the region the
    bot's default client uses (``AWS_ENDPOINT_URL_DYNAMODB`` / ``AWS_ENDPOINT_URL``, ``AWS_REGION``)."""
    import boto3

    from gamebot.aws.client import DynamoDB

    bot = DynamoDB(endpoint=endpoint_url)
    return boto3.client("dynamodb", endpoint_url=bot.endpoint_url, region_name=bot.region)


def create_table_from_template(
    client: Any,
    table_name: str,
    template_path: str | Path = "template.yaml",
    *,
    logical_id: str | None = None,
    exist_ok: bool = True,
) -> dict[str, Any]:
    """Create ``table_name`` as template.yaml defines the bot's table; returns DescribeTable's Table.

    With ``exist_ok`` an existing table is left as it is (restarting the local playground).
    """
    props = table_definition(load_template(template_path), logical_id)
    try:
        client.create_table(**create_table_params(props, table_name))
    except Exception as exc:
        code = (getattr(exc, "response", None) or {}).get("Error", {}).get("Code")
        if not (exist_ok and code == "ResourceInUseException"):
            raise
    client.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    ttl = props.get("TimeToLiveSpecification")
    if ttl and str(ttl.get("Enabled", False)).lower() == "true":
        current = client.describe_time_to_live(TableName=table_name)["TimeToLiveDescription"]
        if current.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            client.update_time_to_live(
                TableName=table_name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
            )
    return client.describe_table(TableName=table_name)["Table"]
