"""AWS Signature Version 4, credentials, region and endpoints for our own AWS client (``gamebot.aws.client``).

Credentials come from the environment, as Lambda provides them (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``), read again for every request by
``gamebot.environment.aws_credentials`` (dict lookups: tests and scripts that change the environment are
followed). Only when they are absent does botocore's credential chain (a profile, SSO, the instance
metadata...) take over, imported then and only then: the Lambda functions never load botocore. The region
and the endpoints are the environment's too, as ``gamebot.environment.Environment`` reads them.

Signing (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html): the canonical
request (method, the path normalised and URI-encoded once more, the sorted encoded query, the signed
headers lowercased and trimmed, the payload's SHA-256), the string to sign, and the HMAC chain
``AWS4<secret> -> date -> region -> service -> aws4_request``, whose result is cached per day. The tests
check every signature against ``botocore.auth.SigV4Auth`` for the same request.
"""
from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Iterable
from typing import Any, NamedTuple
from urllib.parse import quote

from gamebot.environment import Environment, aws_credentials

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
UNRESERVED = "-_.~"  # RFC 3986 unreserved characters besides letters and digits: never encoded


class Credentials(NamedTuple):
    access_key: str
    secret_key: str
    token: str | None = None


class NoCredentialsError(Exception):
    """Neither the environment nor botocore's credential chain has credentials."""


_chain_lock = threading.Lock()
_chain: Any = None  # botocore's credentials object, once found


def region() -> str:
    """``AWS_REGION``, else ``AWS_DEFAULT_REGION``, else us-east-1 (``gamebot.environment``)."""
    return Environment.read().aws_region


def endpoint_url(service_id: str, host_prefix: str, region_name: str) -> str:
    """``AWS_ENDPOINT_URL_<SERVICE_ID>``, else ``AWS_ENDPOINT_URL``, else ``https://<prefix>.<region>.amazonaws.com``."""
    return Environment.read().aws_endpoint(service_id) or f"https://{host_prefix}.{region_name}.amazonaws.com"


def credentials() -> Credentials:
    """The environment's credentials, else botocore's chain (loaded on first need, then kept)."""
    found = aws_credentials()
    return Credentials(*found) if found is not None else _chain_credentials()


def _chain_credentials() -> Credentials:
    global _chain
    with _chain_lock:
        if _chain is None:
            import botocore.session  # a developer's profile: only when the environment has no keys

            _chain = botocore.session.Session().get_credentials()
        found = _chain
    if found is None:
        raise NoCredentialsError("no AWS credentials in the environment or botocore's credential chain")
    frozen = found.get_frozen_credentials()  # refreshed by botocore when temporary credentials expire
    return Credentials(frozen.access_key, frozen.secret_key, frozen.token or None)


def reset_credential_chain() -> None:
    """Forget botocore's credentials object (tests)."""
    global _chain
    with _chain_lock:
        _chain = None


# -- encoding ---------------------------------------------------------------------------------------


def quote_segment(value: str) -> str:
    """One path segment or query key/value as sent: UTF-8, everything but unreserved characters encoded."""
    return quote(value, safe=UNRESERVED)


def build_path(segments: Iterable[str], prefix: str = "") -> str:
    """The request path from raw segments: ``["schedules", "a b"]`` -> ``/schedules/a%20b``."""
    return prefix + "/" + "/".join(quote_segment(s) for s in segments)


def build_query(params: Iterable[tuple[str, str]]) -> str:
    """The canonical query string (also fine to send): encoded pairs sorted by key, then value."""
    pairs = sorted((quote_segment(k), quote_segment(str(v))) for k, v in params)
    return "&".join(f"{k}={v}" for k, v in pairs)


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4, and empty segments dropped (AWS wants consecutive slashes collapsed)."""
    if not path:
        return "/"
    out: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if out:
                out.pop()
        elif segment and segment != ".":
            out.append(segment)
    head = "/" if path[0] == "/" else ""
    tail = "/" if path[-1] == "/" and out else ""
    return head + "/".join(out) + tail


def canonical_uri(path: str) -> str:
    """The path as sent (already encoded once), normalised and encoded again: every service but S3."""
    return quote(remove_dot_segments(path), safe="/~")


def amz_date(now: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))


# -- signing ----------------------------------------------------------------------------------------


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


class Signer:
    """Signs requests for one service in one region. The signing key is cached per secret and day."""

    def __init__(self, service: str, region: str) -> None:
        self.service = service
        self.region = region
        self._key: tuple[str, str, bytes] | None = None  # (secret, yyyymmdd, key): one day at a time

    def signing_key(self, secret: str, day: str) -> bytes:
        cached = self._key
        if cached is not None and cached[0] == secret and cached[1] == day:
            return cached[2]
        key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret}".encode(), day), self.region), self.service), "aws4_request")
        self._key = (secret, day, key)  # (one tuple assignment: safe between threads)
        return key

    def sign(self, method: str, path: str, query: str, headers: dict[str, str], payload_hash: str,
             creds: Credentials, now: float | None = None) -> dict[str, str]:
        """Add ``X-Amz-Date``, ``X-Amz-Security-Token`` (with a session token) and ``Authorization`` to
        ``headers`` (which must hold ``Host``) and return it. ``path`` and ``query`` are as sent: encoded
        once (``build_path``, ``build_query``); ``payload_hash`` is the body's SHA-256 in hex."""
        stamp = amz_date(time.time() if now is None else now)
        headers["X-Amz-Date"] = stamp
        if creds.token:
            headers["X-Amz-Security-Token"] = creds.token
        signed = sorted((name.lower(), " ".join(value.split())) for name, value in headers.items())
        names = ";".join(name for name, _ in signed)
        canonical = "\n".join((
            method, canonical_uri(path), query, "".join(f"{n}:{v}\n" for n, v in signed), names, payload_hash,
        ))
        day = stamp[:8]
        scope = f"{day}/{self.region}/{self.service}/aws4_request"
        to_sign = f"{ALGORITHM}\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = hmac.new(self.signing_key(creds.secret_key, day), to_sign.encode(), hashlib.sha256).hexdigest()
        headers["Authorization"] = (
            f"{ALGORITHM} Credential={creds.access_key}/{scope}, SignedHeaders={names}, Signature={signature}"
        )
        return headers
