"""The French catalog read as a French player reads it: Plot card names quoted « comme ceci » and never
followed by a second punctuation mark ("Démasqué ! »." or "Est-ce toi ? :"), any player fitting every
sentence (no participle, adjective or pronoun that takes a gender from a player: "vous serez prévenu",
"Invités", "Choisis : {names}", "c'est lui"), "d'Alice" rather than "de Alice", the group addressed as a
group, numbers agreeing with their nouns, verbs agreeing with the side in both games ("les Espions ont",
never "les Espions a"), and the words docs/I18N.md chose (Tour, salle d'attente, Mission).

Every check renders the catalog's templates with their theme words, as the bot does (``texts.t``)."""
from __future__ import annotations

import re

import pytest

from engine import GameConfig
from gamebot.language import plurals, texts
from gamebot.messages.reveal_words import reveal_text
from gamebot.messages.table import Table

THEMES = ("avalon", "resistance")
PLOT_CARDS = sorted(k.removeprefix("plot.") for k in texts.catalog("fr").messages if k.startswith("plot."))
# Placeholders that hold a player's name (or several, joined with "et").
PLAYERS = {"assassin", "by", "checker", "holder", "host", "leader", "name", "previous", "receiver", "seat",
           "target", "who", "names", "team", "approve", "reject"}
# Placeholders that hold a number.
NUMBERS = {"count", "n", "games", "wins", "min", "max", "seats", "chosen", "players", "size", "used", "seconds",
           "hits", "attempts", "idle", "fails", "fails_needed", "attempt", "rejections", "of", "number", "round",
           "quest", "low", "high", "rank", "rating", "rate", "good", "evil", "deck"}


def plural_params(template: str) -> set[str]:
    return set(re.findall(r"\{(\w+),\s*plural", template))


def template_of(key: str, theme: str) -> str:
    entry = texts.catalog("fr").messages[key]
    return entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))


def render(key: str, theme: str, number: int = 2, player: str = "Alice", **given: object) -> str:
    """The French text of ``key`` with every parameter filled: players as ``player``, numbers as
    ``number``, anything else as a neutral word, and ``given`` as given."""
    params: dict[str, object] = {}
    for field in texts.fields(key, "fr", theme) | plural_params(template_of(key, theme)):
        if field in given:
            params[field] = given[field]
        elif field in NUMBERS or field in plural_params(template_of(key, theme)):
            params[field] = number
        elif field in PLAYERS:
            params[field] = player
        else:
            params[field] = "truc"
    params.update(given)
    return texts.t(key, "fr", theme, **params)


def card_name(card: str, theme: str) -> str:
    return texts.name_of("plot", card, "fr", theme)


# --- 1. Plot card names: quoted, in a sentence that can hold them, no double punctuation ---------------

# Templates that take one Plot card's name: any card ...
ANY_CARD = ["ev.PlotCardDealt", "ev.PlotCardDiscarded", "ev.PlotCardDiscarded.no_effect",
            "ev.PlotCardDiscarded.declined", "ev.PlotCardTaken", "ev.PlotCardPlayed", "ev.PlotCardPlayed.target",
            "learned.plot"]
# ... or the card the sentence is about (its variant, its prompt, who votes first, who may look).
OWN_CARD = {**{f"ev.PlotCardPlayed.{c}": c for c in PLOT_CARDS if texts.has(f"ev.PlotCardPlayed.{c}", "fr")},
            **{f"prompt.plot_{c}": c for c in PLOT_CARDS if texts.has(f"prompt.plot_{c}", "fr")},
            "prompt.play.ambush": "keeping_close_eye", "prompt.play.ambush_you": "keeping_close_eye",
            "vote.first": "opinion_maker"}
# Templates that end with a list of Plot cards the code joins (the last name may end with "?" or "!").
CARD_LISTS = {"ev.PlotCardsDrawn": "cards", "prompt.plot_deal": "drawn", "board.line.plot_hand": "cards",
              "board.line.plot_drawn": "cards", "prompt.plot_take_responsibility": "hands"}
DOUBLE_PUNCTUATION = re.compile(r"[!?]\s*(?:</b>)?\s*»?\s*[.,;:!?]")


def one_card_texts():
    for theme in THEMES:
        for card in PLOT_CARDS:
            name = card_name(card, theme)
            for key in ANY_CARD:
                yield key, theme, name, render(key, theme, card=name)
            yield ("ev.PlotCardPlayed.take_responsibility", theme, name,
                   render("ev.PlotCardPlayed.take_responsibility", theme, card=card_name("take_responsibility", theme),
                          taken=name))
        for key, card in OWN_CARD.items():
            name = card_name(card, theme)
            yield key, theme, name, render(key, theme, card=name)


def test_every_plot_card_name_in_a_sentence_is_in_french_quotation_marks():
    unquoted = [(key, theme, text) for key, theme, name, text in one_card_texts() if f"« {name} »" not in text]
    assert unquoted == []


def test_no_plot_card_name_is_followed_by_a_second_punctuation_mark():
    doubled = [(key, theme, text) for key, theme, _, text in one_card_texts() if DOUBLE_PUNCTUATION.search(text)]
    lists = [(key, theme, text) for theme in THEMES for card in PLOT_CARDS for key, field in CARD_LISTS.items()
             if DOUBLE_PUNCTUATION.search(text := render(key, theme, **{field: card_name(card, theme)}))]
    assert doubled == [] and lists == []


def test_the_checks_find_what_they_look_for():
    assert DOUBLE_PUNCTUATION.search("joue la carte « Démasqué ! ».")
    assert DOUBLE_PUNCTUATION.search("🃏 <b>Est-ce toi ?</b> : choisissez")
    assert DOUBLE_PUNCTUATION.search("vous avez pioché Est-ce toi ?.")
    assert DOUBLE_PUNCTUATION.search("joue la carte « Démasqué ! » : Bob doit jouer")
    assert not DOUBLE_PUNCTUATION.search("joue la carte « Démasqué ! » et oblige Bob à jouer")
    assert set(ANY_CARD) | set(OWN_CARD) | set(CARD_LISTS) <= set(texts.catalog("fr").messages)
    assert {"ev.PlotCardPlayed.strong_leader", "prompt.plot_open_up"} <= set(OWN_CARD)


# --- 2. Any player fits: no word that takes a gender from a player --------------------------------------

# Words that agree in gender with whoever they describe. Each one the catalog has is listed below with
# what it agrees with (never a player's gender).
GENDERED = (r"chacune?|celui|ceux|eux|lui|ils|seule?s?|prête?s?|inscrite?s?|invitée?s?|classée?s?|désignée?s?"
            r"|ajoutée?s?|prévenue?s?|choisie?s?|inconnue?s?|placée?s?|assise?s?|recrutée?s?|surveillée?s?"
            r"|bloquée?s?|détentrice|détenteur|vainqueurs?")
AGREES_WITH = {
    ("blocked.group", "bloqué"): "the bot (m'a bloqué)",
    ("blocked.group", "lui"): "indirect object (lui envoyer), the same for anyone",
    ("help.body", "lui"): "indirect object (lui envoyer), the same for anyone",
    ("prompt.loyalty_card", "lui"): "indirect object (lui montrer), the same for anyone",
    ("rolehelp.percival", "lui"): "Merlin, a character (qui lui ressemble)",
    ("config.morgana_needs_percival", "lui"): "Perceval, a character (auprès de lui)",
    ("rules.resistance", "eux"): "the Spies as a side, in the rules (entre eux)",
    ("settings.page.roles_order", "ceux"): "the characters who may change sides",
    ("help.body", "seul"): "the bot (moi seul)",
    ("role.cards", "seul"): "the bot (moi seul)",
    ("quest.play_below", "seul"): "the bot (moi seul)",
    ("lobby.only_host", "seul"): "the word hôte (seul l'hôte)",
    ("cancel.not_allowed", "seul"): "the word hôte (seul l'hôte)",
    ("language.not_allowed", "seul"): "the word hôte (seul son hôte)",
    ("rules.avalon", "seul"): "the Fail card (un seul Échec)",
    ("rules.resistance", "seul"): "the Fail card (un seul Échec)",
    ("rolehelp.merlin", "seule"): "the chance (une seule chance)",
    ("quest.not_on_team", "seule"): "the team (seule son Équipe)",
    ("illegal.not_on_team", "seuls"): "the noun membres (seuls les membres)",
    ("timers.extend.not_player", "seuls"): "the noun joueurs (seuls les joueurs)",
    ("timers.join.closed", "seul"): "the noun joueur (un seul joueur)",
    ("timers.join.closed", "seuls"): "the noun joueurs (seuls # joueurs)",
    ("settings.check.joined", "seul"): "the noun joueur (le seul joueur inscrit)",
    ("timers.join.started", "seul"): "the noun joueur (le seul joueur inscrit)",
    ("timers.forcestart.started", "seul"): "the noun joueur (le seul joueur inscrit)",
    ("config.filler_role", "seul"): "the noun personnage (ce personnage occupe tout seul)",
    ("config.assassin_cannot_assassinate", "seul"): "the noun personnage (ce personnage joue seul)",
    ("ratings.evil.rogue", "seul"): "the Evil Rogue, a character",
    ("stats.footer", "seules"): "the games (seules comptent les parties)",
    ("timers.page.in_play", "seules"): "the phases (seules les phases)",
    ("settings.check.joined", "inscrit"): "the noun joueur",
    ("settings.check.joined", "inscrits"): "the noun joueurs",
    ("timers.join.started", "inscrit"): "the noun joueur",
    ("timers.join.started", "inscrits"): "the noun joueurs",
    ("timers.forcestart.started", "inscrit"): "the noun joueur",
    ("timers.forcestart.started", "inscrits"): "the noun joueurs",
    ("timers.extend.not_player", "inscrits"): "the noun joueurs",
    ("command.extend", "inscrit"): "the noun joueur (tout joueur inscrit)",
    ("command.forcestart", "inscrits"): "the noun joueurs",
    ("timers.default.assassination", "désigné"): "the noun joueur (un joueur tiré au hasard est désigné)",
    ("config.duplicate_role", "ajouté"): "the noun personnage",
    ("note.messenger_backup_evil", "ajouté"): "the verb avoir (a ajouté un Échec)",
    ("config.assassin_designation_unused", "choisi"): "the noun personnage",
    ("config.too_many_good", "choisi"): "the noun personnage",
    ("config.too_many_good", "choisis"): "the noun personnages",
    ("config.too_many_evil", "choisi"): "the noun personnage",
    ("config.too_many_evil", "choisis"): "the noun personnages",
    ("select.need_players", "choisi"): "the noun joueur (# choisi)",
    ("select.need_players", "choisis"): "the noun joueurs (# choisis)",
    ("simulate.bad_role", "inconnu"): "the noun personnage",
    ("settings.language.title", "choisie"): "the language (la langue choisie)",
    ("prompt.watch", "surveillé"): "a Rogue, a character (un Brigand surveillé)",
    ("field.watches", "surveillés"): "a board label of the Rogues module (characters)",
    ("field.recruited", "recruté"): "a board label: the Untrustworthy Servant, a character",
    ("field.holder", "détenteur"): "a board label naming the role of holding a token",
    ("end.winners", "vainqueurs"): "a noun used for anyone (no feminine in use)",
}


def gendered_words() -> set[tuple[str, str]]:
    found = set()
    for key, entry in texts.catalog("fr").messages.items():
        for template in entry.values() if isinstance(entry, dict) else [entry]:
            for m in re.finditer(rf"(?<![\w'-])(?:{GENDERED})(?![\w'-])", plurals.flatten(template), re.I):
                found.add((key, m.group(0).lower()))
    return found


def test_no_word_takes_its_gender_from_a_player():
    assert sorted(gendered_words() - set(AGREES_WITH)) == []


def test_every_listed_exception_is_still_in_the_catalog():
    assert sorted(set(AGREES_WITH) - gendered_words()) == []


def test_a_name_starting_with_a_vowel_is_elided_before():
    """"l'allégeance de Émile" is not French: a player's name never follows "de", "que" and the like."""
    found = []
    for key in texts.catalog("fr").messages:
        for theme in THEMES:
            text = render(key, theme, player="Émile")
            found += [(key, m.group(0)) for m in re.finditer(r"\b(?:de|que|ce|le|la|je|me|te|se|ne|jusque|lorsque)"
                                                            r" Émile\b", text, re.I)]
    assert found == []


# --- 3. The group is addressed as a group -------------------------------------------------------------

# Messages the whole group reads (transcript: [group · ...]).
GROUP_KEYS = ["ev.GameStarted", "lobby.howto", "lobby.no_players", "quest.play_below", "status.none", "status.lobby",
              "newgame.exists", "timers.remind_join", "timers.join.closed", "timers.join.config", "damaged.cancelled",
              "rematch.invited", "lobby.unreachable", "timers.join.dropped", "votes.none", "pin.need_admin",
              "help.body", "rules.avalon", "rules.resistance", "ev.VotesRevealed", "vote.first", "team.proposed"]


@pytest.mark.parametrize("key", GROUP_KEYS)
def test_a_group_message_speaks_to_the_whole_group(key):
    for theme in THEMES:
        text = render(key, theme)
        assert not re.search(r"\bnotre conversation\b", text), text  # one person's chat with the bot
        assert not re.search(r"(?<![\w'-])(?:tu|te|toi|ton|ta|tes|t')(?![\w-])", text, re.I), text
        assert not re.search(r"\bchacun\b", text, re.I), text  # "tous les joueurs", "les rôles sont distribués"


# --- 4. Numbers and verbs agree ------------------------------------------------------------------------

NOUNS = r"joueur|partie|carte|place|personnage|inscrit|Échec|Quête|Mission|Équipe|prolongation"
# Their number is a table size (5 to 10), never 1.
TABLE_SIZE = {"vote.closed", "config.recommended_players"}


def test_a_number_agrees_with_its_noun():
    wrong = []
    for key in texts.catalog("fr").messages:
        for theme in THEMES:
            one, two = render(key, theme, number=1), render(key, theme, number=2)
            wrong += [(key, m.group(0)) for m in re.finditer(rf"(?<![\w/.,])1 (?:{NOUNS})s\b", one)
                      if key not in TABLE_SIZE]
            wrong += [(key, m.group(0)) for m in re.finditer(rf"(?<![\w/.,])2 (?:{NOUNS})\b(?!s)", two)]
    assert wrong == []


def test_the_side_agrees_with_its_verb_and_its_preposition_in_both_games():
    wrong = []
    for key in texts.catalog("fr").messages:
        for theme in THEMES:
            text = render(key, theme)
            wrong += [(key, theme, m.group(0)) for m in re.finditer(
                r"\bles Espions (?:a|est|peut|doit|gagne|l'emporte)\b|\b(?:du|au) Espions\b|\bdu Résistance\b"
                r"|\b(?:de|à) les\b|\bEspions aveugles aveugles\b", text)]
    assert wrong == []


def test_the_reveal_names_plain_minions_with_their_article():
    avalon = reveal_text(Table(chat_id=-1, game_id="g", lang="fr"), GameConfig(players=10, roles=["merlin", "assassin"]))
    assert "• Mal : l'Assassin et les Sbires de Mordred ouvrent les yeux et se reconnaissent." in avalon
    assert "Merlin voit l'Assassin et les Sbires de Mordred comme du Mal" in avalon
    spies = reveal_text(Table(chat_id=-1, game_id="g", lang="fr", theme="resistance"),
                        GameConfig(players=10, roles=[], theme="resistance"))
    assert "• Espions : les Espions ouvrent les yeux et se reconnaissent." in spies


def test_the_quest_that_sets_out_is_named_once():
    text = texts.t("ev.QuestStarted", "fr", "avalon", quest=2, team="Alice, Bob et Carol")
    assert text == "⚔️ Quête 2 : Alice, Bob et Carol se mettent en route."


def test_a_vote_said_in_the_open_and_the_votes_say_for_and_against():
    assert texts.t("ev.VoteShown", "fr", "avalon", seat="Alice", vote="pour") == "📣 Alice vote à découvert : <b>pour</b>."
    assert texts.t("ev.VotesRevealed", "fr", "avalon", approve="Alice", reject="Bob") == (
        "🗳 <b>Votes</b>\n✅ Pour : Alice\n❌ Contre : Bob")


# --- 5. The words the French texts chose ---------------------------------------------------------------


def test_the_words_chosen_for_french_are_used_everywhere():
    rendered = [(key, theme, render(key, theme)) for key in texts.catalog("fr").messages for theme in THEMES]
    assert [k for k, _, text in rendered if re.search(r"\bmanches?\b", text, re.I)] == []  # a round is a Tour
    assert [k for k, _, text in rendered if re.search(r"\bsalon\b", text, re.I)] == []  # the lobby: salle d'attente
    assert [k for k, t, text in rendered if t == "resistance" and re.search(r"\bmissions?\b", text)] == []  # Mission
    assert [k for k, _, text in rendered if re.search(r"\béquipes?\b", text)] == []  # Équipe, as in the rulebook
    assert [k for k, _, text in rendered if "Assassine :" in text] == []  # "Qui assassine", not a feminine noun


def test_buttons_stay_short():
    prefixes = ("optionbutton.", "valuebutton.", "rolebutton.", "settings.button.", "timers.button.",
                "lobby.button.", "language.button", "votes.button", "rematch.button", "nextgame.join", "choice.")
    long = [(key, text) for key in texts.catalog("fr").messages if key.startswith(prefixes)
            for theme in THEMES if len(text := render(key, theme, language="Français", game="La Résistance",
                                                      role="Vassal Peu Fiable", vote="contre")) > 40]
    assert long == []
