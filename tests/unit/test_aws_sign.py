"""Our SigV4 (gamebot.aws.signing) against botocore's ``SigV4Auth``: the same request, the same instant, the
same signature, over many generated requests for both services we call."""
from __future__ import annotations

import datetime as dtm
import hashlib
import random
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials
from botocore.utils import percent_encode

from gamebot.aws import signing
from gamebot.aws.signing import Credentials, Signer, build_path, build_query, canonical_uri

ROOT = Path(__file__).resolve().parents[2]
ALPHABET = "abcXYZ019-_.~ /%+=&?#:@!$'()*,;é♛日\u00a0"
SERVICES = {"dynamodb": "application/x-amz-json-1.0", "scheduler": "application/json"}


def _text(rng: random.Random, most: int = 12) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, most)))


def _request(rng: random.Random) -> dict:
    service = rng.choice(list(SERVICES))
    segments = [rng.choice([_text(rng), "schedules", ".", "..", "a.b"]) for _ in range(rng.randint(0, 4))]
    query = [(_text(rng, 6), rng.choice([_text(rng), "", "1"])) for _ in range(rng.randint(0, 4))]
    port = rng.choice([None, 443, 80, 4566, 8000])
    scheme = rng.choice(["https", "http"])
    host = rng.choice([f"{service}.eu-west-3.amazonaws.com", "127.0.0.1", "localhost"])
    netloc = host if port is None or (scheme, port) in (("https", 443), ("http", 80)) else f"{host}:{port}"
    headers = {"Host": netloc, "Content-Type": SERVICES[service]}
    if service == "dynamodb":
        headers["X-Amz-Target"] = rng.choice(["DynamoDB_20120810.GetItem", "DynamoDB_20120810.PutItem"])
    if rng.random() < 0.3:
        headers["X-Amz-Meta-Note"] = "  two  spaces   inside "  # trimmed and collapsed in the canonical form
    return {
        "service": service, "region": rng.choice(["us-east-1", "eu-west-3", "ap-southeast-2"]),
        "method": rng.choice(["GET", "POST", "PUT", "DELETE"]), "scheme": scheme, "netloc": netloc,
        "segments": segments, "query": query, "headers": headers,
        "body": rng.choice([b"", b"{}", rng.randbytes(rng.randint(1, 300)), '{"k":"é"}'.encode()]),
        "creds": Credentials(f"AKIA{rng.getrandbits(40):X}", f"secret/{rng.getrandbits(64):x}+",
                             rng.choice([None, f"token{rng.getrandbits(64):x}=="])),
        "now": rng.randint(1_500_000_000, 2_000_000_000),
    }


def _ours(r: dict) -> dict[str, str]:
    payload = hashlib.sha256(r["body"]).hexdigest()
    return Signer(r["service"], r["region"]).sign(r["method"], build_path(r["segments"]), build_query(r["query"]),
                                                  dict(r["headers"]), payload, r["creds"], now=r["now"])


def _botocore(r: dict) -> dict[str, str]:
    path = "/" + "/".join(percent_encode(s) for s in r["segments"])  # botocore's rest-json URI encoding
    request = AWSRequest(method=r["method"], url=f"{r['scheme']}://{r['netloc']}{path}", data=r["body"],
                         headers=dict(r["headers"]), params=list(r["query"]))
    creds = r["creds"]
    when = dtm.datetime.fromtimestamp(r["now"], dtm.UTC).replace(tzinfo=None)
    with mock.patch("botocore.auth.get_current_datetime", return_value=when):
        SigV4Auth(BotoCredentials(creds.access_key, creds.secret_key, creds.token), r["service"],
                  r["region"]).add_auth(request)
    return dict(request.headers.items())


@pytest.mark.parametrize("seed", range(8))
def test_signatures_equal_botocore_s_for_generated_requests(seed):
    rng = random.Random(seed)
    for _ in range(60):
        r = _request(rng)
        ours, theirs = _ours(r), _botocore(r)
        assert build_path(r["segments"]) == "/" + "/".join(percent_encode(s) for s in r["segments"])
        for name in ("Authorization", "X-Amz-Date"):
            assert ours[name] == theirs[name], r
        assert ours.get("X-Amz-Security-Token") == theirs.get("X-Amz-Security-Token") == r["creds"].token


def test_a_signing_key_is_cached_for_the_day_and_follows_the_date_and_the_secret():
    signer = Signer("dynamodb", "us-east-1")
    first = signer.signing_key("s", "20250101")
    assert signer.signing_key("s", "20250101") is first
    assert signer.signing_key("s", "20250102") != first
    assert signer.signing_key("t", "20250102") != signer.signing_key("s", "20250102")
    # across midnight the signatures still match botocore's, each with its own day's key
    base = _request(random.Random(99))
    for now in (1_735_689_599, 1_735_689_600, 1_735_689_599):  # 2024-12-31T23:59:59Z, then 2025-01-01
        r = {**base, "now": now}
        assert _ours(r)["Authorization"] == _botocore(r)["Authorization"]


def test_canonical_uri_normalises_and_encodes_again():
    assert canonical_uri("") == "/"
    assert canonical_uri("/") == "/"
    assert canonical_uri("/a/./b/../c//d/") == "/a/c/d/"
    assert canonical_uri("/schedules/a%20b") == "/schedules/a%2520b"
    assert build_query([("b", "2"), ("a", "x y"), ("a", "1")]) == "a=1&a=x%20y&b=2"
    assert build_path(["schedules", "a/b é"]) == "/schedules/a%2Fb%20%C3%A9"


def test_credentials_come_from_the_environment_first(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    assert signing.credentials() == Credentials("AKIAENV", "envsecret", None)
    monkeypatch.setenv("AWS_SESSION_TOKEN", "tok")
    assert signing.credentials() == Credentials("AKIAENV", "envsecret", "tok")


def test_without_them_botocore_s_chain_is_asked(monkeypatch, tmp_path):
    profile = tmp_path / "credentials"
    profile.write_text("[dev]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profilesecret\n")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(profile))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_PROFILE", "dev")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    signing.reset_credential_chain()
    try:
        assert signing.credentials() == Credentials("AKIAPROFILE", "profilesecret", None)
    finally:
        signing.reset_credential_chain()


def test_botocore_is_imported_only_when_the_environment_has_no_credentials():
    code = (
        "import os, sys\n"
        "os.environ.update(AWS_ACCESS_KEY_ID='a', AWS_SECRET_ACCESS_KEY='b')\n"
        "from gamebot.aws import client as aws\n"
        "c = aws.DynamoDB(endpoint='http://127.0.0.1:9')\n"
        "from gamebot.aws.signing import credentials\n"
        "credentials()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "shared"), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"
