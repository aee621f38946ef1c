"""Real bot mode: getUpdates in the fake Bot API, the long-polling loop, and the whole bot polling
the fake server as it would poll Telegram (``TELEGRAM_API_BASE_URL``)."""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from localdev import updates as U
from localdev.fake_telegram import FakeTelegram
from localdev.poller import Poller, PollError

TOKEN = "4242:POLL-test-token"
GROUP = -1001222333444


@pytest.fixture
def fake():
    with FakeTelegram(token=TOKEN) as server:
        yield server


def call(fake: FakeTelegram, method: str, **params):
    return httpx.post(f"{fake.api_url(TOKEN)}/{method}", json=params, timeout=10).json()


def test_get_updates_confirms_by_offset_and_honours_limit(fake):
    ups = [U.command(U.group(GROUP), U.user(1), f"/help n{i}") for i in range(3)]
    for u in ups:
        fake.push_update(u)
    first = call(fake, "getUpdates", limit=2)["result"]
    assert [u["update_id"] for u in first] == [ups[0]["update_id"], ups[1]["update_id"]]
    again = call(fake, "getUpdates")["result"]  # nothing confirmed yet: the same updates come back
    assert len(again) == 3
    rest = call(fake, "getUpdates", offset=ups[1]["update_id"] + 1)["result"]
    assert [u["update_id"] for u in rest] == [ups[2]["update_id"]]
    assert [u["update_id"] for u in fake.pending_updates()] == [ups[2]["update_id"]]
    assert call(fake, "getUpdates", offset=ups[2]["update_id"] + 1)["result"] == []
    assert fake.pending_updates() == []


def test_get_updates_negative_offset_and_allowed_updates(fake):
    ups = [U.command(U.group(GROUP), U.user(1), "/help"), U.bot_added(U.group(GROUP), U.user(1)),
           U.command(U.group(GROUP), U.user(2), "/rules")]
    for u in ups:
        fake.push_update(u)
    only = call(fake, "getUpdates", allowed_updates=["my_chat_member"])["result"]
    assert [u["update_id"] for u in only] == [ups[1]["update_id"]]  # the skipped messages are dropped
    fake.push_update(ups[2])
    assert [u["update_id"] for u in call(fake, "getUpdates", offset=-1)["result"]] == [ups[2]["update_id"]]


def test_get_updates_long_poll_wakes_on_a_new_update(fake):
    update = U.command(U.group(GROUP), U.user(1), "/help")
    result = {}

    def poll():
        result["r"] = call(fake, "getUpdates", timeout=20)["result"]

    thread = threading.Thread(target=poll)
    thread.start()
    fake.push_update(update)
    thread.join(timeout=30)
    assert [u["update_id"] for u in result["r"]] == [update["update_id"]]


def test_get_updates_conflicts_with_a_webhook_until_it_is_deleted(fake):
    assert call(fake, "setWebhook", url="https://example.org/hook")["ok"]
    fake.push_update(U.command(U.group(GROUP), U.user(1), "/help"))
    answer = call(fake, "getUpdates")
    assert answer["error_code"] == 409 and "webhook is active" in answer["description"]
    assert call(fake, "getWebhookInfo")["result"]["pending_update_count"] == 1
    assert call(fake, "deleteWebhook", drop_pending_updates=True)["ok"]
    assert call(fake, "getUpdates")["result"] == []


def test_poller_removes_the_webhook_and_delivers_each_update_once_in_order(fake):
    call(fake, "setWebhook", url="https://example.org/hook")
    ups = [U.command(U.group(GROUP), U.user(1), f"/help {i}") for i in range(3)]
    for u in ups:
        fake.push_update(u)
    seen = []
    poller = Poller(fake.base_url, TOKEN, lambda u: seen.append(u["update_id"]) or 200, timeout=0)
    me = poller.prepare()
    assert me["username"] == U.BOT_USERNAME and fake.webhook == {}
    assert poller.removed_webhook == "https://example.org/hook"
    assert poller.poll_once() == 3
    assert seen == [u["update_id"] for u in ups]
    assert poller.poll_once() == 0  # confirmed: not delivered again
    assert seen == [u["update_id"] for u in ups] and fake.pending_updates() == []
    assert fake.calls_to("getUpdates")[-1]["offset"] == ups[-1]["update_id"] + 1
    poller.close()


def test_poller_retries_an_update_answered_5xx_then_moves_on(fake):
    fake.push_update(U.command(U.group(GROUP), U.user(1), "/help"))
    statuses = iter([500, 500, 200])
    tries = []
    poller = Poller(fake.base_url, TOKEN, lambda u: tries.append(u["update_id"]) or next(statuses), timeout=0,
                    retry_pause=0)
    assert poller.poll_once() == 1
    assert len(tries) == 3
    poller.close()


def test_poller_reports_a_refused_token_without_the_token(fake):
    poller = Poller(fake.base_url, "999:wrong-token", lambda u: 200, timeout=0)
    with pytest.raises(PollError) as err:
        poller.prepare()
    assert "401" in str(err.value) and "wrong-token" not in str(err.value)
    poller.close()


def test_real_bot_mode_runs_the_bot_by_polling_with_the_embedded_database(fake):
    """The whole real-bot path: Playground(mode="telegram") + Poller against a Bot API server."""
    from localdev.playground import Playground

    call(fake, "setWebhook", url="https://example.org/hook")  # as a deployed bot would have
    fake.add_group(GROUP, "Poll group")
    with Playground(mode="telegram", token=TOKEN, api_base=fake.base_url) as pg:
        poller = Poller(fake.base_url, TOKEN, pg.deliver, timeout=1)
        pg.worker.perform = poller.perform  # (as run_telegram does: a polling bot performs its replies itself)
        poller.prepare()
        stop = threading.Event()
        thread = threading.Thread(target=poller.run, args=(stop,), daemon=True)
        thread.start()
        alice = U.user(1)
        fake.start_private(alice)
        fake.push_update(U.start(alice))
        fake.push_update(U.command(U.group(GROUP, "Poll group"), alice, "/newgame"))
        deadline = time.monotonic() + 60  # a bound against hanging, not a timing assertion
        since = fake.version
        while time.monotonic() < deadline and not any("New game of" in t for t in fake.texts(GROUP)):
            fake.wait_changed(since, 0.5)
            since = fake.version
        stop.set()
        thread.join(timeout=30)
        poller.close()
        assert any("Hello Bob" in t for t in fake.texts(1))
        lobby = next(t for t in fake.texts(GROUP) if "New game of" in t)
        assert "1. Bob" in lobby  # the host's record (stored in the local DynamoDB) says they can be reached
        assert set(pg.worker.statuses) == {200} and len(pg.worker.statuses) == 2
