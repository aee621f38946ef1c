"""Rendering in French: events, knowledge, board extras and the end, from the French catalog."""
from __future__ import annotations

from gamebot.messages.events import event_line
from gamebot.messages.role_card import knowledge_lines
from gamebot.messages.table import Table
from gamebot.messages.view_lines import plugin_board_lines
from gamebot.story import end_text

NAMES = ["Arthur", "Bérénice", "Clément", "Dalia", "Émile", "Fanny", "Gaspard"]


def fr(theme: str = "avalon") -> Table:
    return Table(chat_id=-1, game_id="g", lang="fr", theme=theme, names=NAMES, user_ids=list(range(7)))


def line(etype: str, private: bool = False, theme: str = "avalon", **data) -> str:
    return event_line(fr(theme), etype, data, private=private)


def test_french_announcements():
    assert line("TeamApproved", quest=0, team=[0, 2]) == "👍 L'Équipe est <b>approuvée</b> : Arthur et Clément."
    assert line("QuestCompleted", quest=1, success=False, cards={"fail": 1, "success": 2}, notes=["magic_reversed"]) == (
        "❌ <b>Quête 2 échouée</b> (1 × ❌ Échec, 2 × ✅ Succès).\n   La Magie a inversé le résultat.")
    assert line("QuestCompleted", theme="resistance", quest=0, success=True, cards={"success": 2}) == (
        "✅ <b>Mission 1 réussie</b> (2 × ✅ Succès).")
    assert line("LeaderChanged", leader=3, previous=2) == "👑 Dalia prend la tête."
    assert line("LeaderChanged", theme="resistance", leader=3) == "👑 Dalia prend la tête."
    assert line("VoteShown", seat=1, vote="approve") == "📣 Bérénice vote à découvert : <b>Approuver</b>."


def test_assassination_and_recruitment_name_their_outcome():
    assert line("AssassinationAttempted", assassin=1, target=4, hit=False) == (
        "🗡 Bérénice désigne Émile... qui n'est <b>pas</b> Merlin !")
    assert line("AssassinationAttempted", assassin=1, targets=[2, 4], kind="messengers", hit=True) == (
        "🗡 Bérénice désigne Clément et Émile... qui <b>sont</b> les Messagers du Bien !")
    assert line("RecruitmentAttempted", assassin=1, target=3, recruited=True) == (
        "🤝 Bérénice désigne Dalia... dont le rôle <b>est</b> le Vassal Peu Fiable, qui rejoint le Mal !")
    assert line("PlotCardPlayed", seat=2, card="keeping_close_eye", target=5) == (
        "🃏 Clément joue la carte « Embuscade » et regarde la carte jouée par Fanny.")
    assert line("PlotCardPlayed", theme="resistance", seat=2, card="strong_leader") == (
        "🃏 Carte « Chef charismatique » jouée par Clément.")


def test_private_knowledge_and_events():
    table = fr()
    lines = knowledge_lines(table, [{"seat": 1, "label": "evil", "source": "lady"},
                                           {"seat": 3, "label": "fail", "source": "keeping_close_eye", "quest": 1},
                                           {"seat": 4, "label": "merlin_or_morgana", "source": "reveal"}])
    assert lines == ["• Bérénice : Mal (vu avec la Dame du Lac)", "• Dalia : a joué ❌ Échec (vu grâce à la carte « Embuscade », Quête 2)",
                     "• Émile : Merlin ou Morgane"]
    assert line("MessengerRankDealt", private=True, rank="junior") == "📜 Votre rang de Messager : <b>cadet</b>."
    assert line("CardSwitched", private=True, by=0, card="fail", was="success") == (
        "⚔️ Arthur a utilisé Excalibur sur votre carte : elle compte maintenant comme <b>❌ Échec</b> (vous aviez joué"
        " ✅ Succès).")


def test_an_event_without_words_still_shows_its_details_with_french_field_names(black_knight):
    assert line("BlackKnightRode", holder=1, deck_left=3) == "ℹ️ Black knight rode\n   Détenteur: Bérénice\n   Cartes restantes: 3"


def test_the_end_in_french():
    pv = {"players": 5, "winner": "good", "win_reason": "assassination_missed", "winners": [0, 2, 4],
          "roles": ["merlin", "assassin", "servant", "minion", "percival"],
          "sides": ["good", "evil", "good", "evil", "good"],
          "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [0, 2], "votes": "AARRA", "approved": True}],
          "quests": [{"round": 1, "quest": 0, "team": [0, 2], "cards": {"success": 2}, "success": True}],
          "assassination": {"assassin": 1, "kind": "merlin", "named": [4], "hit": False}}
    head, history = end_text.game_over(Table(chat_id=-1, game_id="g", lang="fr", names=NAMES[:5]), pv)
    assert head.startswith("🏁 <b>Fin de la partie : le Bien l'emporte !</b>\nBérénice a manqué Merlin.")
    assert "😇 Arthur, rôle : <b>Merlin</b> (Bien)" in head and "😈 Dalia, rôle : <b>Sbire de Mordred</b>\n" in head
    assert history.splitlines()[:3] == [
        "<b>Historique</b>", "<b>Tour 1</b> · Quête 1",
        "  Équipe 1 · Arthur : Arthur et Clément → ✅ Arthur, Bérénice et Émile | ❌ Clément et Dalia → approuvée"]
    assert history.splitlines()[-2:] == [
        "<b>Après les Quêtes</b>", "  🗡 Bérénice désigne Émile... qui n'est <b>pas</b> Merlin !"]


def test_the_board_in_french_names_players_and_cards():
    table = Table(chat_id=-1, game_id="g", lang="fr", names=NAMES, user_ids=list(range(7)))
    pv = {"excalibur": {"holder": 6, "uses": []},
          "plot": {"deck": 5, "hands": [[], ["no_confidence"], [], [], [], [], []], "drawn": [], "face_up": [3]},
          "messengers": {"good_messages": 1, "evil_messages": 0},
          "rogue": {"watch": 2, "tokens": []},
          "lancelot": {"cards": ["switch", "no_change"]}}
    assert plugin_board_lines(table, pv) == [
        "⚔️ Excalibur : Gaspard",
        "👁 Guet : Clément",
        "🃏 Cartes Complot : Bérénice détient <b>Le Roi est de retour</b> ; carte face visible pour Dalia ;"
        " 5 dans la pioche",
        "📨 Messages : 1 du Bien, 0 du Mal",
        "🎴 Cartes Allégeance : 1️⃣ Changement · 2️⃣ Pas de changement",
    ]
    resistance = Table(chat_id=-1, game_id="g", lang="fr", theme="resistance", names=NAMES)
    assert plugin_board_lines(resistance, {"plot": {"deck": 0, "hands": [["strong_leader"]]}}) == [
        "🃏 Le Complot s'épaissit : Arthur détient <b>Chef charismatique</b>"]


def test_plot_cards_in_french_say_what_happened():
    assert line("PlotCardPlayed", seat=2, card="strong_leader", previous=0) == (
        "🃏 Clément joue la carte « Mener à la victoire » et prend la tête : Arthur ne mène plus.")
    assert line("PlotCardPlayed", theme="resistance", seat=4, card="in_the_spotlight", target=1) == (
        "🃏 Émile joue la carte « Sous les projecteurs » et oblige Bérénice à jouer sa carte face visible.")
    assert line("CardSeen", private=True, seat=0, card="fail", source="trapper") == (
        "🔍 Vous avez vu la carte jouée par Arthur : <b>❌ Échec</b>.")
