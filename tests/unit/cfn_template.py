"""template.yaml as the tests read it: CloudFormation's short forms (!Ref, !GetAtt, !Sub ...) as their long
forms, and the environment each function gets (the Globals' variables and its own)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


class CfnLoader(yaml.SafeLoader):
    """Reads CloudFormation short forms (!Ref, !GetAtt, !Sub ...) as their long forms."""


def _intrinsic(loader: CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


CfnLoader.add_multi_constructor("!", _intrinsic)
template: dict[str, Any] = yaml.load(TEMPLATE.read_text(), Loader=CfnLoader)  # a SafeLoader subclass
resources: dict[str, Any] = template["Resources"]


def functions() -> list[str]:
    """The logical ids of the template's Lambda functions."""
    return [name for name, body in resources.items() if body["Type"] == "AWS::Serverless::Function"]


def environment(function: str) -> dict[str, Any]:
    """The variables ``function`` gets: the Globals' and its own (SAM merges them, its own winning)."""
    shared = template["Globals"]["Function"].get("Environment", {}).get("Variables", {})
    own = resources[function]["Properties"].get("Environment", {}).get("Variables", {})
    return {**shared, **own}
