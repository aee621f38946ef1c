"""``scripts/expire_old_items.py`` against a moto server: items an earlier version wrote without an expiry
get their kind's life from now; items that have one, and an item the bot writes meanwhile, keep theirs."""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gamebot.storage import lifetimes
from tests.integration.conftest import load_script as load_script_named

REPO = Path(__file__).resolve().parents[2]
NOW = 1_900_000_000


def load_script() -> ModuleType:
    return load_script_named("expire_old_items")


@pytest.fixture
def table(operator_table: tuple[Any, str]) -> tuple[Any, str]:
    return operator_table


def put(client: Any, table: str, key: str, expires_at: int | None = None) -> None:
    item = {"pk": {"S": key}, "version": {"N": "3"}, "body": {"S": "{}"}}
    if expires_at is not None:
        item["expires_at"] = {"N": str(expires_at)}
    client.put_item(TableName=table, Item=item)


def expiry(client: Any, table: str, key: str) -> int | None:
    found = client.get_item(TableName=table, Key={"pk": {"S": key}})["Item"].get("expires_at")
    return int(found["N"]) if found else None


def test_items_without_an_expiry_get_their_kinds_life_and_the_others_keep_theirs(
        table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, name = table
    script = load_script()
    monkeypatch.setattr(script, "SCAN_PAGE", 50)  # (pages of 50: the 120 items below take three)
    old = ["chat#-1001", "user#7", "stats#chat#-1001", "stats#user#7", "next#-1001#3", "idle#-1001#0", "legacy#x"]
    for key in old:
        put(client, name, key)
    put(client, name, "game#-1001#g1", expires_at=NOW + 5)  # already bounded: untouched
    for i in range(120):  # more than a scan page
        put(client, name, f"update#{i}")
    keys = script.without_expiry(client, name)
    assert sorted(keys) == sorted(old + [f"update#{i}" for i in range(120)])

    assert script.expire(client, name, keys[:3], NOW, dry_run=True)  # a dry run writes nothing
    assert expiry(client, name, keys[0]) is None

    done = script.expire(client, name, keys, NOW)
    assert done["set chat#"] == 1 and done["set update#"] == 120 and done["unknown legacy#"] == 1
    assert expiry(client, name, "chat#-1001") == NOW + lifetimes.YEAR
    assert expiry(client, name, "stats#user#7") == NOW + lifetimes.YEAR
    assert expiry(client, name, "update#5") == NOW + lifetimes.DAY
    assert expiry(client, name, "legacy#x") == NOW + lifetimes.LONGEST
    assert expiry(client, name, "game#-1001#g1") == NOW + 5
    assert script.without_expiry(client, name) == []


def test_an_item_the_bot_writes_meanwhile_keeps_what_the_bot_set(table: Any) -> None:
    client, name = table
    script = load_script()
    put(client, name, "chat#-1002")
    keys = script.without_expiry(client, name)
    put(client, name, "chat#-1002", expires_at=NOW + 42)  # the bot's write, between the scan and the update
    client.delete_item(TableName=name, Key={"pk": {"S": "user#9"}})  # (gone: nothing to do, nothing made)
    assert script.expire(client, name, keys + ["user#9"], NOW) == {"written meanwhile": 2}
    assert expiry(client, name, "chat#-1002") == NOW + 42
    assert "Item" not in client.get_item(TableName=name, Key={"pk": {"S": "user#9"}})


def test_main_counts_on_a_dry_run_then_sets_and_reports(table: Any, capsys: pytest.CaptureFixture[str]) -> None:
    client, name = table
    put(client, name, "chat#-1003")
    assert load_script().main(["--table", name, "--dry-run"]) == 0
    assert "1 items without an expiry; would set:" in capsys.readouterr().out
    assert expiry(client, name, "chat#-1003") is None
    assert load_script().main(["--table", name]) == 0
    assert "set chat#: 1" in capsys.readouterr().out and expiry(client, name, "chat#-1003") is not None
