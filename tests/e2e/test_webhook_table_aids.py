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
