"""End to end in French: a group set to French plays a whole game through ``lambda_handler`` (moto's
DynamoDB, the fake Bot API server), receives French texts and the picture of the game, then asks
/stats and /history."""
from __future__ import annotations

import html
import io
import random

from PIL import Image

from tests.e2e.driver import FRENCH, Driver, LambdaTable, Policy

ENGLISH_WORDS = ("Game over", "Quest ", "Leader", "Approve", "Reject", "Round ", "Your secret role", "players")


def _french_table(lambda_env, secret: str) -> LambdaTable:
    return LambdaTable(lambda_env, secret, words=FRENCH, language_code="fr")


def test_a_french_group_plays_to_the_end_and_gets_french_texts_and_the_picture(lambda_env):
    from tests.e2e.conftest import SECRET

    table = _french_table(lambda_env, SECRET)
    players = [1, 2, 3, 4, 5, 6, 7]
    table.fake.add_group(table.group, table.title)
    assert table.command(1, "/language fr") == 200
    assert "Langue de ce groupe désormais : Français" in table.fake.texts(table.group)[-1]
    table.open_lobby(players, roles=["Perceval", "Morgane"], options=["Dame du Lac"])
    assert table.start_game(1) == 200
    driver = Driver(table, table.group, players, Policy(rng=random.Random(7)), words=FRENCH)
    driver.play()
    assert driver.over()
    assert set(table.statuses) == {200}

    group = [html.unescape(t) for t in table.fake.texts(table.group)]
    joined = "\n".join(group)
    # the start opened the board (the lobby message, edited), which later edits keep current
    edits = [c["text"] for c in table.fake.calls_to("editMessageText") if c.get("chat_id") == table.group]
    assert any("La partie commence" in t for t in edits)
    assert "Fin de la partie" in joined and "<b>Historique</b>" in joined
    # (the Leader's crown: "Couronne : Alice", as "le Roi" would make every Leader a man)
    assert "Dame du Lac" in joined and "Couronne : " in joined
    for word in ENGLISH_WORDS:
        assert word not in joined, word
    for uid in players:
        private = "\n".join(html.unescape(t) for t in table.fake.texts(uid))
        assert "Votre rôle secret" in private, uid
        for word in ENGLISH_WORDS:
            assert word not in private, (uid, word)

    # the picture arrives last, as an uploaded PNG with a French caption
    last = table.fake.messages(table.group)[-1]
    assert last["caption"].startswith("🖼 <b>Avalon</b> · 7 joueurs · ")
    png = table.fake.files[last["photo"][0]["file_id"]]
    assert Image.open(io.BytesIO(png)).format == "PNG"

    # /stats in the group and in private, /history in the group
    table.command(2, "/stats")
    stats = html.unescape(table.fake.texts(table.group)[-1])
    assert stats.startswith("📊 <b>Statistiques · Avalon Test Group</b>")
    assert "<b>Avalon</b> — parties : 1" in stats and "🏆 <b>Classement</b> (cote · parties)" in stats
    assert "les parties annulées sont exclues" in stats
    table.command(3, "/stats", chat=3)
    mine = html.unescape(table.fake.texts(3)[-1])
    assert mine.startswith("📊 <b>Vos statistiques") and "Parties : 1" in mine
    photos = len(table.fake.calls_to("sendPhoto"))
    assert table.command(4, "/history") == 200
    assert len(table.fake.calls_to("sendPhoto")) == photos + 1
    again = table.fake.messages(table.group)[-1]
    assert table.fake.files[again["photo"][0]["file_id"]] == png  # the same picture, from the chat item


def test_the_command_menu_help_and_language_picker_in_french(lambda_env):
    from tests.e2e.conftest import SECRET

    table = _french_table(lambda_env, SECRET)
    table.fake.add_group(table.group, table.title)
    table.command(1, "/language")
    picker = table.messages(table.group)[-1]
    # no language chosen yet: the picker shows the asker's (French) as current
    assert [b["text"] for row in picker["buttons"] for b in row] == [
        "English", "Deutsch", "Español", "✅ Français", "Italiano", "Português (Brasil)", "Русский"]
    table.press(1, table.group, picker["message_id"], picker["buttons"][0][0]["data"])
    assert table.fake.messages(table.group)[-1]["text"] == "🌐 From now on I speak English in this group."
    table.start_private(2)
    table.command(2, "/help", chat=2)
    helptext = html.unescape(table.fake.texts(2)[-1])
    assert "<b>Commandes</b>" in helptext and "/stats — Statistiques" in helptext
