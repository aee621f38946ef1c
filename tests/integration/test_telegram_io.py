"""``gamebot.botapi.telegram_io`` against the fake Bot API server with a real python-telegram-bot ``Bot``:
flood control, blocked users, unchanged edits, vanished messages and timeouts."""
from __future__ import annotations

import asyncio

import pytest
import telegram
from telegram.request import HTTPXRequest

from gamebot.botapi.telegram_io import Btn, Out, TelegramIO, get_me_username
from gamebot.language.markup import Html
from localdev import updates as U
from localdev.fake_telegram import FakeTelegram

TOKEN = "123456:IO-test"
GROUP = -1001234500001


@pytest.fixture(scope="module")
def server():
    with FakeTelegram(token=TOKEN) as fake:
        yield fake


@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def bot(server, loop):
    b = telegram.Bot(TOKEN, base_url=f"{server.base_url}/bot", request=HTTPXRequest(read_timeout=0.5))
    loop.run_until_complete(b.initialize())
    yield b
    loop.run_until_complete(b.shutdown())


@pytest.fixture
def io(server, bot):
    server.reset()
    server.add_group(GROUP)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    tio = TelegramIO(bot, sleep=sleep)
    tio.waits = waits
    yield tio
    server.reset()


def test_essential_message_waits_for_retry_after_and_is_delivered(io, server, loop):
    fault = server.inject("sendMessage", status=429, retry_after=3, times=1)
    [r] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("<b>Votes</b>"))]))
    assert r.ok and fault.hits == 1
    assert io.waits == [3.0]
    assert server.texts(GROUP) == ["<b>Votes</b>"]


def test_progress_edit_is_dropped_under_flood_control(io, server, loop):
    [sent] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("Voted (1/5)"))]))
    server.inject("editMessageText", status=429, retry_after=5, times=1)
    [r] = loop.run_until_complete(io.run([Out("edit", chat_id=GROUP, message_id=sent.message_id,
                                               text=Html("Voted (2/5)"), essential=False)]))
    assert not r.ok and r.error == "retry_after" and io.waits == []
    assert server.texts(GROUP) == ["Voted (1/5)"]


def test_flood_waits_beyond_the_budget_are_not_waited(io, server, loop):
    server.inject("sendMessage", status=429, retry_after=60, times=1)
    [r] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("x"))]))
    assert r.error == "retry_after" and io.waits == []


def test_blocked_user_is_reported_as_forbidden(io, server, loop):
    server.block(U.user(5))
    [r] = loop.run_until_complete(io.run([Out("send", chat_id=5, user_id=5, text=Html("your role"))]))
    assert r.error == "forbidden"
    [r] = loop.run_until_complete(io.run([Out("send", chat_id=6, user_id=6, text=Html("never started"))]))
    assert r.error == "forbidden"


def test_unchanged_edit_counts_as_done(io, server, loop):
    kb = [[Btn("Approve", "V:1:a:0:xa:abcdef")]]
    [sent] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("board"), keyboard=kb)]))
    [r] = loop.run_until_complete(io.run([Out("edit", chat_id=GROUP, message_id=sent.message_id, text=Html("board"), keyboard=kb)]))
    assert r.ok and r.error == "not_modified"


def test_edit_of_a_vanished_board_sends_it_again(io, server, loop):
    [r] = loop.run_until_complete(io.run([Out("edit", chat_id=GROUP, message_id=999, text=Html("board"),
                                               fallback_send=True, remember="board_msg")]))
    assert r.ok and r.message_id != 999 and r.out.op == "send"
    assert server.texts(GROUP) == ["board"]


def test_timeouts_retry_an_essential_send_once(io, server, loop):
    server.inject("sendMessage", delay=1.0, times=1)  # longer than the 0.5 s read timeout
    [r] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("results"))]))
    assert r.ok
    assert "results" in server.texts(GROUP)


def test_callback_answers_carry_text_alert_and_deep_link(io, server, loop):
    url = f"https://t.me/{U.BOT_USERNAME}?start=jabc_def"
    loop.run_until_complete(io.run([Out("answer", callback_id="cbq1", text="Open a chat", url=url, alert=True)]))
    params = server.calls_to("answerCallbackQuery")[-1]
    assert params["url"] == url and params["text"] == "Open a chat"


def test_an_answer_without_a_deep_link_sends_no_url(io, server, loop):
    loop.run_until_complete(io.run([Out("answer", callback_id="cbq2", text="Open a chat", url="", alert=True)]))
    params = server.calls_to("answerCallbackQuery")[-1]
    assert params["text"] == "Open a chat" and "url" not in params


def test_get_me_username_asks_getme_and_never_shows_the_token(server):
    server.reset()
    assert get_me_username(TOKEN, server.base_url + "/") == U.BOT_USERNAME
    assert [c.method for c in server.calls] == ["getMe"]
    for token, base in ((TOKEN + "x", server.base_url), (TOKEN, "http://127.0.0.1:9")):  # 401; refused
        with pytest.raises(telegram.error.TelegramError) as caught:
            get_me_username(token, base, timeout=2.0)
        assert TOKEN not in str(caught.value) and "getMe failed" in str(caught.value)
    server.inject("getMe", status=500, times=1)
    with pytest.raises(telegram.error.TelegramError):
        get_me_username(TOKEN, server.base_url)
    server.reset()


def test_admin_check_reads_the_member_status(io, server, loop):
    server.set_admins(GROUP, U.user(2), creator=U.user(1))
    assert loop.run_until_complete(io.is_admin(GROUP, 1))
    assert loop.run_until_complete(io.is_admin(GROUP, 2))
    assert not loop.run_until_complete(io.is_admin(GROUP, 3))


def _png() -> bytes:
    import io as _io

    from PIL import Image

    out = _io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_a_photo_is_uploaded_with_its_caption(io, server, loop):
    png = _png()
    [r] = loop.run_until_complete(io.run([Out("photo", chat_id=GROUP, photo=png, text=Html("🖼 <b>Avalon</b> · 5 players"),
                                              essential=False, tag="picture")]))
    assert r.ok and r.message_id
    msg = server.messages(GROUP)[-1]
    assert msg["caption"] == "🖼 <b>Avalon</b> · 5 players"
    assert server.files[msg["photo"][0]["file_id"]] == png  # the very bytes, uploaded as a file


def test_a_photo_that_telegram_refuses_is_reported_not_raised(io, server, loop):
    server.inject("sendPhoto", status=400, description="Bad Request: IMAGE_PROCESS_FAILED", times=1)
    [r, after] = loop.run_until_complete(io.run([
        Out("photo", chat_id=GROUP, photo=_png(), text=Html("x"), essential=False, tag="picture"),
        Out("send", chat_id=GROUP, text=Html("still delivered")),
    ]))
    assert not r.ok and r.error == "bad_request"
    assert after.ok and server.messages(GROUP)[-1]["text"] == "still delivered"


@pytest.mark.parametrize("out, missing", [
    (Out("send", text=Html("to no chat")), "chat_id is empty"),
    (Out("send", chat_id=GROUP), "message text is empty"),
    (Out("edit", chat_id=GROUP, message_id=1), "message text is empty"),
    (Out("photo", photo=b"png"), "chat_id is empty"),
    (Out("pin", chat_id=GROUP), "message identifier is not specified"),
    (Out("delete", chat_id=GROUP), "message identifier is not specified"),
    (Out("unpin"), "chat_id is empty"),
    (Out("answer", text="no query"), "query is too old and response timeout expired or query ID is invalid"),
])
def test_an_operation_without_what_its_method_requires_is_a_bad_request(io, server, loop, out, missing):
    """What Telegram answers a call without its chat, its message or its text (``TelegramIO`` refuses it the
    same way, before the call): reported, not raised, and the next operation still goes out."""
    server.add_group(GROUP)
    [sent] = loop.run_until_complete(io.run([Out("send", chat_id=GROUP, text=Html("first"))]))
    [r, after] = loop.run_until_complete(io.run([out, Out("send", chat_id=GROUP, text=Html("after"))]))
    assert not r.ok and r.error == "bad_request" and r.detail == missing.capitalize()  # (as PTB words it)
    assert after.ok and server.texts(GROUP) == ["first", "after"] and sent.message_id == 1
