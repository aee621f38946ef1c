"""The fake Bot API server, driven by a real python-telegram-bot v22 ``telegram.Bot``."""
from __future__ import annotations

import asyncio
import datetime as dtm
import json
import urllib.error
import urllib.request

import pytest
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from gamebot.botapi import telegram_io  # noqa: F401  (loading it opts the process in to timedeltas)
from localdev import updates as U
from localdev.fake_telegram import FakeTelegram

GROUP = -1001234567890
OTHER_GROUP = -1009876543210
TOKEN = "123456:TEST-token_abc"


def kb(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in row] for row in rows])


@pytest.fixture(scope="module")
def server():
    with FakeTelegram() as fake:
        yield fake


@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def bot(server, loop):
    """One Bot, initialised once on one event loop (as the Lambda handler keeps it per container)."""
    b = telegram.Bot(TOKEN, base_url=f"{server.base_url}/bot")
    loop.run_until_complete(b.initialize())
    yield b
    loop.run_until_complete(b.shutdown())


@pytest.fixture
def fake(server, bot):
    server.reset()
    yield server
    server.reset()


@pytest.fixture
def run(loop):
    return loop.run_until_complete


def _post(url: str, body: bytes, content_type: str) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_base_url_binds_to_loopback_and_get_me_answers_the_bot(server, bot):
    assert server.base_url.startswith("http://127.0.0.1:")
    assert bot.username == U.BOT_USERNAME
    assert bot.id == U.BOT_ID


def test_send_message_assigns_message_ids_per_chat(fake, bot, run):
    a1 = run(bot.send_message(GROUP, "one"))
    a2 = run(bot.send_message(GROUP, "two"))
    b1 = run(bot.send_message(OTHER_GROUP, "elsewhere"))
    assert (a1.message_id, a2.message_id, b1.message_id) == (1, 2, 1)
    assert fake.texts(GROUP) == ["one", "two"]
    assert fake.last(OTHER_GROUP)["text"] == "elsewhere"
    assert a1.chat.type == "supergroup"
    assert a1.from_user.id == U.BOT_ID


def test_form_encoded_values_are_decoded(fake, bot, run):
    run(bot.send_message(GROUP, "123", reply_markup=kb([("Join", "join:1")]), disable_notification=True,
                         parse_mode="HTML"))
    method, params = fake.calls[-1]
    assert method == "sendMessage"
    assert params["chat_id"] == GROUP
    assert params["text"] == "123"  # a numeric text stays a string
    assert params["disable_notification"] is True
    assert params["reply_markup"] == {"inline_keyboard": [[{"text": "Join", "callback_data": "join:1"}]]}


def test_json_and_multipart_bodies_are_parsed(fake):
    url = f"{fake.base_url}/bot{TOKEN}/sendMessage"
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    status, payload = _post(url, json.dumps({"chat_id": GROUP, "text": "json", "reply_markup": markup}).encode(),
                            "application/json")
    assert status == 200 and payload["ok"] is True
    assert fake.last(GROUP)["reply_markup"] == markup

    boundary = "XyZ"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"chat_id\"\r\n\r\n{GROUP}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n42\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"b.png\"\r\n"
        f"Content-Type: image/png\r\n\r\n"
    ).encode() + b"\x89PNG\r\n\x00\xff" + f"\r\n--{boundary}--\r\n".encode()
    status, payload = _post(f"{fake.base_url}/bot{TOKEN}/sendPhoto", body, f"multipart/form-data; boundary={boundary}")
    assert status == 200
    assert payload["result"]["caption"] == "42"
    assert payload["result"]["photo"][0]["file_size"] == 8
    assert fake.files[payload["result"]["photo"][0]["file_id"]] == b"\x89PNG\r\n\x00\xff"


def test_send_photo_upload_records_size_and_bytes(fake, bot, run):
    image = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    msg = run(bot.send_photo(GROUP, photo=image, caption="<b>Board</b>", parse_mode="HTML",
                             reply_markup=kb([("Refresh", "r")])))
    stored = fake.last(GROUP)
    assert stored["photo"][0]["file_size"] == len(image)
    assert fake.files[stored["photo"][0]["file_id"]] == image
    assert stored["caption"] == "<b>Board</b>"
    assert msg.photo[0].file_size == len(image)
    assert fake.calls_to("sendPhoto")[0]["photo"]["size"] == len(image)
    assert fake.buttons(GROUP) == [
        {"text": "Refresh", "callback_data": "r", "message_id": msg.message_id, "chat_id": GROUP, "row": 0, "col": 0}
    ]


def test_edit_message_text_applies_in_place_and_keeps_markup(fake, bot, run):
    sent = run(bot.send_message(GROUP, "Votes: 0", reply_markup=kb([("Approve", "v:y"), ("Reject", "v:n")])))
    run(bot.send_message(GROUP, "later"))
    edited = run(bot.edit_message_text("Votes: 1", GROUP, sent.message_id,
                                       reply_markup=kb([("Approve", "v:y"), ("Reject", "v:n")])))
    assert isinstance(edited, telegram.Message)
    assert fake.texts(GROUP) == ["Votes: 1", "later"]
    assert [b["callback_data"] for b in fake.buttons(GROUP)] == ["v:y", "v:n"]
    assert fake.message(GROUP, sent.message_id)["edit_date"] >= sent.date.timestamp()


def test_edit_without_markup_removes_the_keyboard(fake, bot, run):
    sent = run(bot.send_message(GROUP, "Join?", reply_markup=kb([("Join", "join")])))
    run(bot.edit_message_text("Lobby closed", GROUP, sent.message_id))
    assert "reply_markup" not in fake.last(GROUP)
    assert fake.buttons(GROUP) == []


def test_identical_edit_is_message_not_modified(fake, bot, run):
    sent = run(bot.send_message(GROUP, "same", reply_markup=kb([("A", "a")])))
    with pytest.raises(BadRequest, match="(?i)message is not modified"):
        run(bot.edit_message_text("same", GROUP, sent.message_id, reply_markup=kb([("A", "a")])))
    with pytest.raises(BadRequest, match="(?i)message is not modified"):
        run(bot.edit_message_reply_markup(GROUP, sent.message_id, reply_markup=kb([("A", "a")])))
    run(bot.edit_message_reply_markup(GROUP, sent.message_id, reply_markup=kb([("B", "b")])))
    assert fake.buttons(GROUP, sent.message_id)[0]["callback_data"] == "b"
    run(bot.edit_message_reply_markup(GROUP, sent.message_id))
    assert fake.buttons(GROUP, sent.message_id) == []


def test_edit_of_a_missing_message_is_bad_request(fake, bot, run):
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):
        run(bot.edit_message_text("x", GROUP, 999))


def test_delete_message_removes_it_once(fake, bot, run):
    a = run(bot.send_message(GROUP, "a"))
    run(bot.send_message(GROUP, "b"))
    assert run(bot.delete_message(GROUP, a.message_id)) is True
    assert fake.texts(GROUP) == ["b"]
    assert fake.deleted == [(GROUP, a.message_id)]
    with pytest.raises(BadRequest, match="(?i)message to delete not found"):
        run(bot.delete_message(GROUP, a.message_id))
    c = run(bot.send_message(GROUP, "c"))
    assert c.message_id == 3  # ids are never reused


def test_private_chat_needs_start_and_block_is_forbidden(fake, bot, run):
    alice = U.user(11, "Alice")
    with pytest.raises(Forbidden, match="(?i)bot can't initiate conversation with a user"):
        run(bot.send_message(11, "your role"))
    fake.start_private(alice)
    msg = run(bot.send_message(11, "your role"))
    assert msg.chat.type == "private" and msg.chat.first_name == "Alice"
    fake.block(11)
    with pytest.raises(Forbidden, match="(?i)bot was blocked by the user"):
        run(bot.send_message(11, "again"))
    with pytest.raises(Forbidden, match="(?i)blocked"):
        run(bot.edit_message_text("edit", 11, msg.message_id))
    fake.start_private(11)
    assert run(bot.send_message(11, "back")).message_id == 2


def test_injected_429_surfaces_as_retry_after_once(fake, bot, run):
    fault = fake.inject("sendMessage", status=429, retry_after=7)
    with pytest.raises(RetryAfter) as err:
        run(bot.send_message(GROUP, "flood"))
    assert err.value.retry_after == dtm.timedelta(seconds=7)  # (the bot opts in: environment.adopt_timedeltas)
    assert run(bot.send_message(GROUP, "after")).text == "after"
    assert fault.hits == 1
    assert fake.texts(GROUP) == ["after"]
    assert [m for m, _ in fake.calls] == ["sendMessage", "sendMessage"]


def test_injected_errors_map_to_ptb_exceptions(fake, bot, run):
    fake.inject("sendMessage", status=403, description="Forbidden: bot was kicked from the supergroup chat")
    with pytest.raises(Forbidden, match="(?i)kicked"):
        run(bot.send_message(GROUP, "x"))
    fake.inject("editMessageText", status=400, description="Bad Request: message can't be edited")
    with pytest.raises(BadRequest, match="(?i)can't be edited"):
        run(bot.edit_message_text("x", GROUP, 1))
    for status in (500, 502):
        fake.inject("*", status=status)
        with pytest.raises(NetworkError):
            run(bot.get_chat(GROUP))
    assert fake.texts(GROUP) == []


def test_injected_fault_can_target_one_chat_and_repeat(fake, bot, run):
    fake.inject("sendMessage", status=403, chat_id=GROUP, times=2)
    assert run(bot.send_message(OTHER_GROUP, "fine")).message_id == 1
    for _ in range(2):
        with pytest.raises(Forbidden):
            run(bot.send_message(GROUP, "no"))
    assert run(bot.send_message(GROUP, "yes")).message_id == 1


def test_injected_delay_makes_the_client_time_out(fake, bot, run):
    fake.inject("answerCallbackQuery", delay=3)
    with pytest.raises(TimedOut):
        run(bot.answer_callback_query("cbq1", read_timeout=0.2))
    assert run(bot.answer_callback_query("cbq2", text="ok")) is True
    assert [p["callback_query_id"] for p in fake.calls_to("answerCallbackQuery")] == ["cbq1", "cbq2"]


def test_migrate_to_chat_id_is_reported(fake, bot, run):
    fake.inject("sendMessage", status=400, description="Bad Request: group chat was upgraded to a supergroup chat",
                migrate_to_chat_id=-1005555)
    with pytest.raises(telegram.error.ChatMigrated) as err:
        run(bot.send_message(-5555, "x"))
    assert err.value.new_chat_id == -1005555


def test_html_that_telegram_refuses_is_bad_request(fake, bot, run):
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        run(bot.send_message(GROUP, "<b>unclosed", parse_mode="HTML"))
    with pytest.raises(BadRequest, match='(?i)Unsupported start tag "br"'):
        run(bot.send_message(GROUP, "a<br>b", parse_mode="HTML"))
    with pytest.raises(BadRequest, match="(?i)Unmatched end tag"):
        run(bot.send_message(GROUP, "<b><i>x</b></i>", parse_mode="HTML"))
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        run(bot.send_message(GROUP, "3 < 5", parse_mode="HTML"))
    ok = '<b>Quest</b> <i>2</i> &lt;3 &amp; <a href="https://t.me/x">link</a> <tg-spoiler>s</tg-spoiler>'
    assert run(bot.send_message(GROUP, ok, parse_mode="HTML")).text == ok


def test_markdown_v2_reserved_characters_must_be_escaped(fake, bot, run):
    with pytest.raises(BadRequest, match="(?i)reserved"):
        run(bot.send_message(GROUP, "Game over.", parse_mode="MarkdownV2"))
    assert run(bot.send_message(GROUP, r"*Game* over\.", parse_mode="MarkdownV2")).message_id == 1


def test_text_length_limit_counts_visible_characters(fake, bot, run):
    run(bot.send_message(GROUP, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML"))
    with pytest.raises(BadRequest, match="(?i)message is too long"):
        run(bot.send_message(GROUP, "x" * 4097))
    with pytest.raises(BadRequest, match="(?i)message text is empty"):
        run(bot.send_message(GROUP, "<b></b>", parse_mode="HTML"))


def test_inline_buttons_are_validated(fake, bot, run):
    with pytest.raises(BadRequest, match="(?i)BUTTON_DATA_INVALID"):
        run(bot.send_message(GROUP, "x", reply_markup=kb([("Too long", "x" * 65)])))
    # 64 bytes, counted in UTF-8: 32 two-byte letters fit
    run(bot.send_message(GROUP, "x", reply_markup=kb([("Fits", "é" * 32)])))
    with pytest.raises(BadRequest, match="(?i)BUTTON_DATA_INVALID"):
        run(bot.send_message(GROUP, "x", reply_markup=kb([("Too long", "é" * 33)])))
    assert len(fake.messages(GROUP)) == 1


def test_buttons_flatten_rows_and_default_to_newest_keyboard(fake, bot, run):
    first = run(bot.send_message(GROUP, "team?", reply_markup=kb([("Ann", "p:0"), ("Ben", "p:1")], [("Done", "p:ok")])))
    run(bot.send_message(GROUP, "no keyboard"))
    flat = fake.buttons(GROUP)
    assert [(b["text"], b["callback_data"], b["row"], b["col"]) for b in flat] == [
        ("Ann", "p:0", 0, 0), ("Ben", "p:1", 0, 1), ("Done", "p:ok", 1, 0)
    ]
    assert {b["message_id"] for b in flat} == {first.message_id}
    assert fake.buttons(GROUP, first.message_id + 1) == []


def test_press_on_a_fake_message_parses_as_an_update(fake, bot, run):
    run(bot.send_message(GROUP, "Join?", reply_markup=kb([("Join", "join")])))
    button = fake.buttons(GROUP)[0]
    update = Update.de_json(U.press(U.user(5), fake.message(GROUP, button["message_id"]), button["callback_data"]), bot)
    assert update.callback_query.data == "join"
    assert update.callback_query.message.message_id == button["message_id"]
    assert update.effective_chat.id == GROUP


def test_webhook_and_commands_round_trip(fake, bot, run):
    url = "https://example.execute-api.us-east-1.amazonaws.com/webhook"
    assert run(bot.set_webhook(url, secret_token="s3cr3t_-", allowed_updates=["message", "callback_query"],
                               max_connections=10))
    info = run(bot.get_webhook_info())
    assert info.url == url and info.allowed_updates == ("message", "callback_query") and info.max_connections == 10
    assert fake.webhook["secret_token"] == "s3cr3t_-"
    with pytest.raises(BadRequest, match="(?i)secret token"):
        run(bot.set_webhook(url, secret_token="bad secret!"))
    assert run(bot.delete_webhook())
    assert run(bot.get_webhook_info()).url == ""

    commands = [telegram.BotCommand("newgame", "Start a game"), telegram.BotCommand("cancel", "Cancel it")]
    assert run(bot.set_my_commands(commands))
    assert [c.command for c in run(bot.get_my_commands())] == ["newgame", "cancel"]
    assert run(bot.get_my_commands(language_code="fr")) == ()
    with pytest.raises(BadRequest, match="(?i)BOT_COMMAND_INVALID"):
        run(bot.set_my_commands([telegram.BotCommand("NewGame", "caps are not allowed")]))


def test_chat_members_and_admins_for_cancel(fake, bot, run):
    fake.add_group(GROUP, "Knights")
    fake.set_admins(GROUP, U.user(2, "Bob"), creator=U.user(1, "Alice"))
    chat = run(bot.get_chat(GROUP))
    assert (chat.title, chat.type) == ("Knights", "supergroup")
    assert run(bot.get_chat_member(GROUP, 1)).status == "creator"
    assert run(bot.get_chat_member(GROUP, 2)).status == "administrator"
    assert run(bot.get_chat_member(GROUP, 3)).status == "member"
    admins = run(bot.get_chat_administrators(GROUP))
    assert [(a.user.id, a.status, a.user.first_name) for a in admins] == [(1, "creator", "Alice"), (2, "administrator", "Bob")]
    fake.set_member(GROUP, 3, "left")
    assert run(bot.get_chat_member(GROUP, 3)).status == "left"


def test_leave_chat_and_kick_stop_sending(fake, bot, run):
    run(bot.send_message(GROUP, "bye"))
    assert run(bot.leave_chat(GROUP)) is True
    with pytest.raises(Forbidden, match="(?i)not a member of the supergroup chat"):
        run(bot.send_message(GROUP, "still here?"))
    fake.kick(-4242)
    with pytest.raises(Forbidden, match="(?i)kicked from the group chat"):
        run(bot.send_message(-4242, "x"))


def test_answer_callback_query_is_logged(fake, bot, run):
    assert run(bot.answer_callback_query("cbq77", text="Voted", show_alert=True)) is True
    assert fake.calls_to("answerCallbackQuery") == [{"callback_query_id": "cbq77", "text": "Voted", "show_alert": True}]


def test_unknown_method_and_wrong_token():
    with FakeTelegram(token=TOKEN) as fake:
        status, payload = _post(f"{fake.base_url}/bot{TOKEN}/frobnicate", b"{}", "application/json")
        assert (status, payload["ok"], payload["error_code"]) == (404, False, 404)
        status, payload = _post(f"{fake.base_url}/botWRONG:1/getMe", b"{}", "application/json")
        assert (status, payload["description"]) == (401, "Unauthorized")
        status, payload = _post(f"{fake.base_url}/bot{TOKEN}/getMe", b"", "application/json")
        assert status == 200 and payload["result"]["username"] == U.BOT_USERNAME


def test_reset_forgets_everything(fake, bot, run):
    fake.start_private(9)
    run(bot.send_message(9, "hi"))
    fake.inject("getMe", status=500, times=None)
    fake.reset()
    assert fake.calls == [] and fake.messages(9) == [] and fake.faults == []
    with pytest.raises(Forbidden):
        run(bot.send_message(9, "hi"))
    assert run(bot.get_me()).id == U.BOT_ID


def test_a_call_delayed_across_a_reset_leaves_the_new_state_alone(fake):
    """A test's last call, held by an injected delay, must not land in the next test's chats."""
    import threading

    fake.start_private(9)
    fake.inject("sendMessage", delay=0.3)
    body = json.dumps({"chat_id": 9, "text": "from the test before"}).encode()
    answers: list[tuple[int, dict]] = []
    call = threading.Thread(target=lambda: answers.append(_post(f"{fake.base_url}/bot{TOKEN}/sendMessage", body,
                                                                "application/json")))
    call.start()
    while not fake.calls:  # the call is in, waiting out its delay
        threading.Event().wait(0.01)
    fake.reset()
    call.join()
    assert answers[0][0] == 500 and fake.messages(9) == [] and fake.calls == []


def test_user_messages_share_the_chat_history_and_cannot_be_edited_by_the_bot(fake, bot, run):
    run(bot.send_message(GROUP, "from the bot"))
    mine = fake.user_message(GROUP, U.user(5), "/newgame", [{"type": "bot_command", "offset": 0, "length": 8}])
    assert mine["message_id"] == 2 and mine["from"]["id"] == 5
    reply = run(bot.send_message(GROUP, "answer"))
    assert reply.message_id == 3
    assert fake.texts(GROUP) == ["from the bot", "/newgame", "answer"]
    with pytest.raises(BadRequest, match="can't be edited"):
        run(bot.edit_message_text("changed", chat_id=GROUP, message_id=2))


def test_version_counts_changes_and_wakes_waiters(fake, bot, run):
    before = fake.version
    run(bot.get_me())  # reads change nothing
    assert fake.version == before
    assert fake.wait_changed(before, 0) == before  # nothing new: answers after the (zero) timeout
    run(bot.send_message(GROUP, "hi"))
    assert fake.version > before
    after = fake.version
    assert fake.touch() == after + 1
    assert fake.wait_changed(after, 30) == after + 1  # already changed: no wait


def test_answers_are_kept_by_query_id(fake, bot, run):
    run(bot.answer_callback_query("q42", text="You joined the game.", url="https://t.me/AvalonTestBot?start=x"))
    assert fake.answers["q42"]["text"] == "You joined the game."
    assert fake.answers["q42"]["url"].endswith("start=x")
