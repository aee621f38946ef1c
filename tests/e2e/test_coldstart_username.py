"""Cold start and the bot's username: a new container answers without asking Telegram first.

Through ``lambda_handler`` with the fake Bot API server (which records every call in order) and moto.
The e2e fixture leaves ``TELEGRAM_BOT_USERNAME`` unset (a bot run outside the stack); the stack always
sets it (the template's parameter or its BotInfo resource), and then ``getMe`` is never called.
"""
from __future__ import annotations

from localdev import updates as U


def _methods(fake) -> list[str]:
    return [call.method for call in fake.calls]


def _open_bot_buttons(table) -> list[dict]:
    return [b for m in table.messages(table.group) for row in m["buttons"] for b in row if b["url"]]


def test_a_cold_start_without_a_username_answers_before_asking_telegram_for_it(table):
    table.fake.start_private(U.user(1))
    assert table.post(U.start(U.user(1))) == 200  # the container's first update: needs no deep link
    methods = _methods(table.fake)
    assert "sendMessage" in methods and "getMe" not in methods
    assert table.post(U.command(U.group(table.group), U.user(1), "/help")) == 200
    assert "getMe" not in _methods(table.fake)


def test_without_a_username_the_first_deep_link_asks_once_and_the_container_keeps_the_answer(table):
    table.fake.add_group(table.group)
    table.start_private(1)
    assert "getMe" not in _methods(table.fake)
    table.command(1, "/newgame")  # the lobby's "open the bot" button is the first deep link
    assert _methods(table.fake).count("getMe") == 1
    assert _open_bot_buttons(table)[0]["url"].startswith(f"https://t.me/{U.BOT_USERNAME}?start=j")
    table.press_label(2, table.group, "Join")  # no private chat yet: the answer opens the bot
    assert table.fake.calls_to("answerCallbackQuery")[-1]["url"].startswith(f"https://t.me/{U.BOT_USERNAME}?start=j")
    assert _methods(table.fake).count("getMe") == 1


def test_the_stacks_username_means_telegram_is_never_asked(table, monkeypatch):
    monkeypatch.setenv("TELEGRAM_BOT_USERNAME", "StackKnowsBot")
    table.fake.add_group(table.group)
    table.start_private(1)
    table.command(1, "/newgame")
    table.press_label(2, table.group, "Join")
    assert "getMe" not in _methods(table.fake)
    assert _open_bot_buttons(table)[0]["url"].startswith("https://t.me/StackKnowsBot?start=j")
    assert table.fake.calls_to("answerCallbackQuery")[-1]["url"].startswith("https://t.me/StackKnowsBot?start=j")


def test_getme_failing_never_fails_an_update_and_deep_links_are_left_out(table):
    table.fake.inject("getMe", status=500, description="Internal Server Error", times=None)
    table.fake.add_group(table.group)
    table.start_private(1)
    table.command(1, "/newgame")
    table.press_label(2, table.group, "Join")  # would answer with a deep link
    assert table.statuses == [200, 200, 200]
    assert "getMe" in _methods(table.fake)
    lobby = table.messages(table.group)[0]
    assert "New game" in lobby["text"] and _open_bot_buttons(table) == []
    answer = table.fake.calls_to("answerCallbackQuery")[-1]
    assert "private chat" in answer["text"] and "url" not in answer
    table.start_private(2)
    table.press_label(2, table.group, "Join")  # the game goes on
    assert "2. Carol" in table.messages(table.group)[0]["text"]
