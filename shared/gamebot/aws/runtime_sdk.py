"""Clients of the Lambda runtime's own AWS SDK for the services our client does not speak: the wake-up
queue's SQS (``gamebot.timing.wakeup``) and the secrets' SSM (``gamebot.core.secrets``).

The Lambda Python runtime brings botocore; a client is made from its session directly (boto3's layer on top
adds about 25 ms of import and nothing these calls need), on first use, so a container that needs neither
imports nothing of it (``tests/unit/test_lambda_imports.py``). It takes the settings' region and endpoint
(``AWS_ENDPOINT_URL_<SERVICE>`` / ``AWS_ENDPOINT_URL``: a moto server in the tests) and short timeouts: a
player's update or a cold start waits on each call. Its cost: docs/BENCHMARKS.md, section 2.
"""
from __future__ import annotations

from typing import Any

from gamebot.environment import Environment

CONNECT_TIMEOUT, READ_TIMEOUT, ATTEMPTS = 2, 3, 3  # seconds, seconds, attempts (botocore's standard retries)


def client(service: str, env: Environment) -> Any:
    """A botocore client of ``service`` ("sqs", "ssm") in ``env``'s region and endpoint."""
    import botocore.session
    from botocore.config import Config

    config = Config(connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT,
                    retries={"mode": "standard", "max_attempts": ATTEMPTS})
    return botocore.session.get_session().create_client(
        service, region_name=env.aws_region, endpoint_url=env.aws_endpoint(service.upper()), config=config)
