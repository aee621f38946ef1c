"""Fixtures the integration tests share."""
from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from localdev.tables import create_table_from_template
from tests.moto_server import dynamo_client

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def endpoint(shared_moto: str) -> str:
    """The process's moto server on 127.0.0.1, one request at a time (tests/conftest.py): shared by every
    module, so each test makes its own table or queue (a fresh name) or resets the server first."""
    return shared_moto


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (its ``main(argv)`` run in-process)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def operator_table(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str]:
    """An operator's script's environment (the moto server as AWS_ENDPOINT_URL, test credentials) and a
    fresh table made from template.yaml: (a DynamoDB client, the table's name)."""
    for name, value in (("AWS_ENDPOINT_URL", endpoint), ("AWS_ACCESS_KEY_ID", "testing"),
                        ("AWS_SECRET_ACCESS_KEY", "testing"), ("AWS_DEFAULT_REGION", "us-east-1"),
                        ("AWS_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    client = dynamo_client(endpoint)
    table = f"operator-{uuid.uuid4().hex[:8]}"
    create_table_from_template(client, table, REPO / "template.yaml", exist_ok=False)
    return client, table
