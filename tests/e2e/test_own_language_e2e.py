"""End to end through ``lambda_handler``: in a Russian group, one player chooses German in the bot's
private chat before the game and another chooses Italian while it runs; each one's role card and
prompts come in their own language from then on, the group stays Russian, and the game plays to its end."""
from __future__ import annotations

import html
import random

from localdev.autoplay import Driver, Policy, WebhookTable, Words

ROLE_CARD = {"ru": "🎭 <b>Твоя тайная роль", "de": "🎭 <b>Deine geheime Rolle", "it": "🎭 <b>Il tuo ruolo segreto",
             "en": "🎭 <b>Your secret role"}


def pick(table: WebhookTable, uid: int, label: str) -> None:
    """``uid`` opens the picker of their own language in private and taps ``label``."""
    assert table.command(uid, "/language", chat=uid) == 200
    picker = table.messages(uid)[-1]
    assert picker["text"].startswith("🌐 <b>")
    assert table.press_label(uid, uid, label) == 200


def test_a_player_chooses_their_own_language_in_private_and_the_group_keeps_its_own(lambda_env):
    from tests.e2e.conftest import SECRET

    table = WebhookTable(lambda_env, SECRET, words=Words.of("ru"), language_code="en")
    players = [1, 2, 3, 4, 5]
    table.fake.add_group(table.group, table.title)
    assert table.command(1, "/language ru") == 200
    table.start_private(3)
    pick(table, 3, "Deutsch")
    assert table.fake.texts(3)[-1] == "🌐 Deine Sprache ab jetzt, in jeder Gruppe: Deutsch."
    table.open_lobby(players)
    assert table.start_game(1) == 200

    def cards(uid: int) -> list[str]:
        return [t for t in table.fake.texts(uid) if t.startswith("🎭")]

    assert cards(3)[-1].startswith(ROLE_CARD["de"])
    for uid in (1, 2, 4, 5):  # English apps: their own language when nobody chose another
        assert cards(uid)[-1].startswith(ROLE_CARD["en"]), uid
    # the Leader chooses Italian while the game runs: /status sends the role and the team picker again
    leader = next(uid for uid in players
                  if table.messages(uid)[-1]["buttons"] and table.messages(uid)[-1]["text"].startswith("👑"))
    pick(table, leader, "Italiano")
    mark = len(table.fake.texts(leader))
    assert table.command(leader, "/status", chat=leader) == 200
    again = table.fake.texts(leader)[mark:]
    assert any(t.startswith(ROLE_CARD["it"]) for t in again), again
    assert any(t.startswith("👑") and "scegli" in t.lower() for t in again), again

    driver = Driver(table, table.group, players, Policy(rng=random.Random(5)))  # each chat read in its language
    driver.play()
    assert driver.over()
    assert set(table.statuses) == {200}
    group = html.unescape("\n".join(table.fake.texts(table.group)))
    assert any(word in group for word in Words.of("ru").over)
    for english in ("Game over", "Leader", "Approve", "Your secret role", "Spiel", "Partita"):
        assert english not in group, english
    later = "\n".join(table.fake.texts(leader)[mark:])  # the Italian seat from its choice on
    for word in ("Your secret role", "Твоя тайная роль", "Deine geheime Rolle", "choose <b>"):
        assert word not in later, word
    if leader != 3:
        german = "\n".join(table.fake.texts(3))
        assert "Your secret role" not in german and "Твоя тайная роль" not in german
