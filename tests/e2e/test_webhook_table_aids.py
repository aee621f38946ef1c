"""End to end, through ``lambda_handler``: the vote history during the game (the board's button and
/votes, sent in private), the rematch, /nextgame and the time limits players can see."""
from __future__ import annotations

from localdev import updates as U

PLAYERS = [1, 2, 3, 4, 5]


def _photos(table, chat: int) -> list[dict]:
    return [m for m in table.fake.messages(chat) if "photo" in m]


def test_the_boards_button_sends_the_vote_history_in_private(table):
    table.open_lobby(PLAYERS)
    table.start_game(1)
    group_before = len(table.fake.messages(table.group))
    table.press_label(3, table.group, "Vote history")
    assert table.fake.calls_to("answerCallbackQuery")[-1]["text"] == "I sent you the vote history in private."
    (photo,) = _photos(table, 3)
    assert "vote history so far" in photo["caption"]
    assert table.fake.files[photo["photo"][0]["file_id"]].startswith(b"\x89PNG")
    table.press_label(3, table.group, "Vote history")  # once a minute
    assert "again in" in table.fake.calls_to("answerCallbackQuery")[-1]["text"]
    assert len(_photos(table, 3)) == 1
    assert len(table.fake.messages(table.group)) == group_before


def test_votes_in_french_and_the_link_for_someone_the_bot_cannot_message(lambda_env):
    from localdev.autoplay import FRENCH, WebhookTable
    from tests.e2e.conftest import SECRET

    table = WebhookTable(lambda_env, SECRET, words=FRENCH, language_code="fr")
    table.open_lobby(PLAYERS)
    table.start_game(1)
    table.command(2, "/votes")
    (photo,) = _photos(table, 2)
    assert "l'historique des votes jusqu'ici" in photo["caption"]
    table.command(9, "/votes")  # never opened the bot's private chat
    assert f"t.me/{U.BOT_USERNAME}?start=r" in table.fake.texts(table.group)[-1]


def _to_the_first_vote(table) -> None:
    """The Leader proposes a team (through their private picker); nobody has voted yet."""
    import random

    from localdev.autoplay import Driver, Policy

    driver = Driver(table, table.group, PLAYERS, Policy(rng=random.Random(2)), words=table.words)
    for _ in range(40):  # (a bound on the loop; the picker needs a few taps)
        if any(table.words.approve in b["text"] for m in table.messages(table.group) for row in m["buttons"]
               for b in row):
            return
        assert driver.step()
    raise AssertionError("no vote came")


def test_votes_while_a_vote_is_open_shows_it_open_in_the_picture_and_in_the_text(table):
    import io

    from PIL import Image

    from gamebot.story import picture_draw, picture_layout

    table.open_lobby(PLAYERS)
    table.start_game(1)
    _to_the_first_vote(table)
    voters = [u for u in PLAYERS if u != 5][:2]
    for uid in voters:
        table.press_label(uid, table.group, table.words.approve)
    table.command(5, "/votes")
    (photo,) = _photos(table, 5)
    png = table.fake.files[photo["photo"][-1]["file_id"]]
    img = Image.open(io.BytesIO(png)).convert("RGB")
    y = int(picture_layout.plan(5, [], 184).outcome_top + picture_layout.CELL / 2)  # the "Vote" row
    row = [img.getpixel((x, y)) for x in range(img.width)]
    assert picture_draw.REJECT not in row and picture_draw.APPROVE not in row  # no result drawn
    assert row.count(picture_draw.MUTED) > 10  # the open vote's mark
    table.fake.inject("sendPhoto", 400, "Bad Request: the picture could not be sent")
    table.command(4, "/votes")  # the text instead
    text = table.fake.texts(4)[-1]
    names = " and ".join(U.user(u)["first_name"] for u in voters)  # (seated in the order they joined)
    assert f"🗳 vote open, 2 voted so far: {names}" in text
    assert "rejected" not in text and "approved" not in text


def _play_to_the_end(table, players=PLAYERS) -> None:
    import random

    from localdev.autoplay import Driver, Policy

    driver = Driver(table, table.group, players, Policy(rng=random.Random(5)), words=table.words)
    driver.play()
    assert driver.over()


def test_play_again_opens_a_lobby_with_the_same_settings_and_everyone_joins_with_one_tap(table):
    table.open_lobby(PLAYERS, roles=["Percival", "Morgana"], options=["Lady"])
    table.start_game(1)
    _play_to_the_end(table)
    table.press_label(2, table.group, "Play again")
    lobby = table.fake.texts(table.group)[-1]
    assert "Host: Carol" in lobby and "Invited back from the last game" in lobby
    assert "Percival" in lobby and "Lady of the Lake" in lobby
    for uid in (1, 3, 4, 5):
        for m in reversed(table.fake.messages(table.group)):  # the game-over message's button
            button = next((b for row in m.get("reply_markup", {}).get("inline_keyboard", []) for b in row
                           if "Play again" in b["text"]), None)
            if button is not None:
                table.press(uid, table.group, m["message_id"], button["callback_data"])
                break
    lobby = table.fake.texts(table.group)[-1]
    assert all(f"{i}. " in lobby for i in range(1, 6)) and "Invited back" not in lobby


def test_nextgame_tells_once_in_private_when_the_next_lobby_opens(table):
    table.fake.add_group(table.group, table.title)
    table.start_private(7)
    table.command(7, "/nextgame")
    assert "I will tell you here when the next game opens" in table.fake.texts(7)[-1]
    assert table.fake.texts(table.group) == []  # nothing in the group
    table.open_lobby(PLAYERS)
    notice = table.fake.messages(7)[-1]
    assert "A new game is open in <b>Avalon Test Group</b>" in notice["text"]
    table.press_label(7, 7, "Join")
    assert "6. " in table.fake.texts(table.group)[0]
    table.command(1, "/cancel")
    table.command(1, "/newgame")
    assert table.fake.messages(7)[-1] == notice  # told once: the subscription ended
