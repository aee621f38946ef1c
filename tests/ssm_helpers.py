"""SSM Parameter Store in the tests of the bot's secrets (``gamebot.core.secrets``): moto in process, and a
record of the ``GetParameters`` calls the functions make."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def moto_ssm(monkeypatch: Any, region: str = "eu-west-1") -> Iterator[Any]:
    """A boto3 SSM client on moto's in-process mock (no endpoint override, test credentials)."""
    import boto3
    from moto import mock_aws

    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SSM", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        yield boto3.client("ssm", region_name=region)


def count_reads(monkeypatch: Any) -> list[list[str]]:
    """The names of each GetParameters call the bot makes (each asked with decryption), as they go."""
    from gamebot.core import secrets

    calls: list[list[str]] = []
    make = secrets.ssm_client

    def recording(env: Any) -> Any:
        client = make(env)
        get = client.get_parameters

        def get_parameters(**kwargs: Any) -> Any:
            assert kwargs["WithDecryption"] is True
            calls.append(list(kwargs["Names"]))
            return get(**kwargs)

        client.get_parameters = get_parameters
        return client

    monkeypatch.setattr(secrets, "ssm_client", recording)
    return calls
