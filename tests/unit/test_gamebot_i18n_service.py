"""Languages through the update service: the group's language (settings panel, /language), private
messages in each player's Telegram language, translated /help and /rules."""
from __future__ import annotations

import html
import random

from localdev import updates as U
from tests.e2e.driver import FRENCH, Driver, Policy
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session


def role_card(h: Harness, uid: int) -> str:
    return next(m.text for m in h.io.chat(uid) if m.text.startswith("🎭"))


def test_the_group_language_is_a_host_setting_in_the_settings_panel(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    panel = h.io.last(1)
    assert "Group language: English" in panel.text
    h.press_label(1, 1, "🌐 Language: English")  # the button says what is set now; it opens the choice
    assert session(h).lang == "en"
    h.press_label(1, 1, "Français")  # the host's panel speaks the host's language; the group's changes
    assert session(h).lang == "fr"
    assert "Group language: Français" in h.io.last(1).text
    h.press_label(1, 1, "🌐 Language: Français")
    h.press_label(2, 1, "English")  # only the host changes settings
    assert session(h).lang == "fr"
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    lobby = h.io.chat(GROUP)[0]
    assert "Nouvelle partie d'Avalon" in lobby.text and "Hôte : Bob" in lobby.text
    assert [b.text for b in lobby.keyboard[0]] == ["🙋 Rejoindre", "🚪 Quitter"]
    h.press_label(1, GROUP, "Commencer")
    group = "\n".join(h.io.texts(GROUP))
    assert "La partie commence" in group and "joueurs" in group
    assert "Your secret role" in role_card(h, 1)  # the players' apps are in English


def test_private_messages_follow_each_players_telegram_language(h):
    h.langs.update({2: "fr", 3: "ja", 4: None, 5: "fr-CA"})
    h.command(1, "/language fr")  # no game yet: anyone in the group may choose
    assert session(h).lang == "fr"
    h.lobby([1, 2, 3, 4, 5], join="Rejoindre")
    h.press_label(1, GROUP, "Commencer")
    assert role_card(h, 1).startswith("🎭 <b>Your secret role")
    for uid in (2, 3, 4, 5):  # French app, or a language we do not speak: the group's French
        assert role_card(h, uid).startswith("🎭 <b>Votre rôle secret"), uid
    card = role_card(h, 2)
    assert "Votre personnage est <b>" in card and "Gardez-le secret" in card


def test_a_french_group_plays_a_whole_game_in_french(h):
    h.langs.update({uid: "fr" for uid in range(1, 8)})
    players = list(range(1, 8))
    h.command(1, "/language fr")
    h.lobby(players, join="Rejoindre")
    h.press_label(1, GROUP, "Commencer")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)), words=FRENCH)
    driver.play()
    assert driver.over()
    group = "\n".join(h.io.texts(GROUP))
    assert "Fin de la partie" in group and "<b>Historique</b>" in group and "<b>Rôles</b>" in group
    for english in ("Game over", "Quest ", "Leader", "Approve", "Reject", "Round "):
        assert english not in group, english
    for uid in players:
        private = "\n".join(h.io.texts(uid))
        assert "Votre rôle secret" in private and "Your secret role" not in private
    [photo] = h.io.photos(GROUP)
    assert photo.text.startswith("🖼 <b>Avalon</b> · 7 joueurs")


def test_the_language_command(h):
    h.command(2, "/language")  # a picker with one button per catalog
    picker = h.io.last(GROUP)
    assert "Language of this group" in picker.text
    assert [b.text for row in picker.keyboard for b in row] == [
        "✅ English", "Deutsch", "Español", "Français", "Italiano", "Português (Brasil)", "Русский"]
    h.press_label(2, GROUP, "Français")
    assert session(h).lang == "fr"
    assert h.io.msgs[(GROUP, picker.message_id)].text == "🌐 Langue de ce groupe désormais : Français."
    h.command(3, "/language klingon")
    assert "Je ne parle pas « klingon »" in h.io.last(GROUP).text and "English (en)" in h.io.last(GROUP).text
    h.command(3, "/language English")  # a language's own name works too
    assert session(h).lang == "en"
    # with a lobby open, only its host or an admin may change it
    h.lobby([1, 2, 3])
    h.command(2, "/language fr")
    assert "only its host or a group admin" in h.io.last(GROUP).text and session(h).lang == "en"
    h.io.admins.add(3)
    h.command(3, "/language fr")
    assert session(h).lang == "fr"
    lobby = h.io.msgs[(GROUP, session(h).lobby_msg)]
    assert lobby.text.startswith("🎲 <b>Nouvelle partie d'Avalon</b>")  # the lobby is edited into French
    h.command(1, "/language en")
    assert session(h).lang == "en"
    # in private it chooses the person's own language (tests/unit/test_own_language.py), not the group's
    h.command(4, "/language", chat_id=4)
    assert h.io.last(4).text.startswith("🌐 <b>Your language</b>") and session(h).lang == "en"


def test_a_new_lobby_keeps_the_groups_language_and_the_last_game(h):
    h.command(1, "/language fr")
    h.langs[1] = "en"
    h.lobby([1, 2, 3, 4, 5], join="Rejoindre")
    assert session(h).lang == "fr"  # not the host's English
    h.command(1, "/cancel")
    h.command(2, "/newgame")
    assert session(h).lang == "fr"


def test_help_and_rules_speak_the_groups_language(h):
    h.command(1, "/language fr")
    h.command(2, "/help")
    text = html.unescape(h.io.last(GROUP).text)
    assert "<b>Commandes</b>" in text
    assert "/stats — Statistiques" in text
    assert "/history — Revoir l'image de la dernière partie terminée" in text
    assert "/language — Choisir la langue de ce groupe" in text
    assert "les parties annulées ne comptent pas" in text
    h.command(2, "/rules")
    rules = h.io.last(GROUP).text
    assert "<b>Avalon en bref</b>" in rules and "Roi" in rules and "<b>La Résistance en bref</b>" in rules
    h.command(2, "/help", chat_id=2)  # in private: the user's own (English) app language
    assert "<b>Commands</b>" in h.io.last(2).text


def test_rules_show_translated_role_reminders_for_the_roles_in_play(h):
    h.command(1, "/language fr")
    h.lobby([1, 2, 3, 4, 5], join="Rejoindre")
    h.command(3, "/rules")
    rules = html.unescape(h.io.last(GROUP).text)
    assert "<b>Personnages de cette partie</b>" in rules
    assert "• <b>Merlin</b> (Bien) : Vous connaissez les suppôts du Mal" in rules
    assert "• <b>Assassin</b> (Mal)" in rules


def test_callback_answers_speak_the_pressers_language_else_the_groups(h):
    h.command(1, "/language fr")
    h.langs[2] = "ja"  # (a seat keeps the language its player joined with, or chose in private)
    h.lobby([1, 2, 3, 4], join="Rejoindre")
    h.press_label(2, GROUP, "Commencer")  # not the host: told in the group's French (no Japanese catalog)
    assert h.last_answer().text.startswith("Seul l'hôte")
    h.langs[3] = "en"
    h.press_label(3, GROUP, "Commencer")
    assert h.last_answer().text.startswith("Only the host")


def test_settings_problems_are_explained_in_the_hosts_language(h):
    h.command(2, "/language en")
    h.langs[1] = "fr"
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")  # the group is English; the host reads French
    h.press_label(1, 1, "Personnages")
    h.press_label(1, 1, "Morgane")
    assert "Morgane se joue avec Perceval" in h.io.last(1).text
    h.press_label(1, 1, "Retour")
    h.press_label(1, 1, "Préréglages")
    assert "Perceval cherche Merlin" in h.io.last(1).text
    h.press_label(1, 1, "Retour")
    h.press_label(1, 1, "Terminé")
    h.press_label(1, GROUP, "Start")
    assert h.last_answer().text.startswith("Ces réglages ne sont pas jouables :\nMorgane se joue avec Perceval")
    assert h.last_answer().alert


def test_unknown_user_language_records_nothing_but_follows_the_group(h):
    h.langs[1] = "ja"
    h.command(1, "/language fr")
    h.lobby([1, 2, 3], join="Rejoindre")
    assert session(h).players[0].lang == ""  # follows the group
    h.send(U.command(U.private(h.user(1)), h.user(1), "/status"))
    assert "Vous n'êtes dans aucune partie" in h.io.last(1).text
