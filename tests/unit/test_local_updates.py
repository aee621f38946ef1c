"""localdev.updates builds Update dicts that python-telegram-bot parses as Telegram's own."""
from __future__ import annotations

import json

from telegram import Chat, ChatMember, MessageEntity, Update

from localdev import updates as U

GROUP = -1001234567890


def parse(data: dict) -> Update:
    # round-trip through JSON first: what the webhook receives is text
    return Update.de_json(json.loads(json.dumps(data)), None)


def test_update_ids_strictly_increase_across_builders():
    ids = [
        U.command(GROUP, 1, "/newgame")["update_id"],
        U.text(GROUP, 1, "hi")["update_id"],
        U.start(2, "join_x")["update_id"],
        U.press(3, U.message(GROUP, 1), "d")["update_id"],
        U.bot_removed(GROUP)["update_id"],
        U.bot_blocked(4)["update_id"],
    ]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_user_has_id_name_username_and_language():
    u = U.user(42, "Merlin", username="merlin", language_code="fr")
    assert u == {"id": 42, "is_bot": False, "first_name": "Merlin", "username": "merlin", "language_code": "fr"}
    default = U.user(1)
    assert default["first_name"] and default["username"] and default["language_code"] == "en"


def test_group_command_parses_with_bot_command_entity():
    alice = U.user(1, "Alice")
    update = parse(U.command(U.group(GROUP, "Knights"), alice, "/newgame avalon 7"))
    msg = update.message
    assert msg.text == "/newgame avalon 7"
    assert update.effective_chat.type == Chat.SUPERGROUP and update.effective_chat.title == "Knights"
    assert update.effective_user.id == 1 and update.effective_user.first_name == "Alice"
    assert msg.parse_entities([MessageEntity.BOT_COMMAND]) == {msg.entities[0]: "/newgame"}


def test_command_addressed_to_the_bot_includes_its_username():
    msg = parse(U.command(U.group(-5), 1, "cancel", bot_username=U.BOT_USERNAME)).message
    assert msg.text == f"/cancel@{U.BOT_USERNAME}"
    assert msg.entities[0].length == len(msg.text)
    assert msg.chat.type == Chat.GROUP


def test_text_message_in_a_group():
    update = parse(U.text(GROUP, U.user(3, "Carol"), "I am loyal"))
    assert update.message.text == "I am loyal" and not update.message.entities
    assert update.effective_chat.id == GROUP


def test_start_with_payload_is_a_private_command():
    update = parse(U.start(U.user(7, "Gwen"), "g123"))
    assert update.message.text == "/start g123"
    assert update.effective_chat.type == Chat.PRIVATE and update.effective_chat.id == 7
    assert update.message.entities[0].type == MessageEntity.BOT_COMMAND
    assert parse(U.start(7)).message.text == "/start"


def test_press_is_a_callback_query_on_the_bots_message():
    board = U.message(GROUP, 12, "Vote!", reply_markup={"inline_keyboard": [[{"text": "Yes", "callback_data": "v:y"}]]})
    first = parse(U.press(U.user(2), board, "v:y"))
    second = parse(U.press(2, board, "v:y"))
    q = first.callback_query
    assert q.data == "v:y" and q.from_user.id == 2
    assert q.message.message_id == 12 and q.message.chat.id == GROUP
    assert q.message.from_user.id == U.BOT_ID
    assert q.id != second.callback_query.id
    assert q.message.reply_markup.inline_keyboard[0][0].callback_data == "v:y"


def test_bot_removed_from_group_is_my_chat_member_left():
    update = parse(U.bot_removed(U.group(GROUP), U.user(1)))
    change = update.my_chat_member
    assert change.chat.id == GROUP
    assert change.old_chat_member.status == ChatMember.MEMBER
    assert change.new_chat_member.status == ChatMember.LEFT
    assert change.new_chat_member.user.id == U.BOT_ID
    assert parse(U.bot_removed(GROUP, kicked=True)).my_chat_member.new_chat_member.status == ChatMember.BANNED


def test_bot_blocked_by_user_is_my_chat_member_kicked_in_private():
    change = parse(U.bot_blocked(U.user(9))).my_chat_member
    assert change.chat.type == Chat.PRIVATE and change.chat.id == 9 and change.from_user.id == 9
    assert change.new_chat_member.status == ChatMember.BANNED
    assert parse(U.bot_unblocked(9)).my_chat_member.new_chat_member.status == ChatMember.MEMBER


def test_bot_added_as_admin():
    change = parse(U.bot_added(GROUP, 1, admin=True)).my_chat_member
    assert change.old_chat_member.status == ChatMember.LEFT
    assert change.new_chat_member.status == ChatMember.ADMINISTRATOR


def test_chat_member_builder_parses_for_every_status():
    for status in ("creator", "administrator", "member", "left", "kicked"):
        member = ChatMember.de_json(U.chat_member(status, 5), None)
        assert member.user.id == 5
        assert member.status == {"kicked": ChatMember.BANNED, "creator": ChatMember.OWNER}.get(status, status)


def test_webhook_event_is_an_http_api_v2_event():
    update = U.command(GROUP, 1, "/newgame")
    event = U.webhook_event(update, "s3cret")
    assert event["version"] == "2.0"
    assert event["routeKey"] == "POST /webhook" and event["rawPath"] == "/webhook"
    assert event["requestContext"]["http"]["method"] == "POST"
    assert event["headers"]["x-telegram-bot-api-secret-token"] == "s3cret"
    assert all(k == k.lower() for k in event["headers"])
    assert event["isBase64Encoded"] is False
    assert json.loads(event["body"]) == update
    assert parse(json.loads(event["body"])).update_id == update["update_id"]
    assert "x-telegram-bot-api-secret-token" not in U.webhook_event(update)["headers"]
