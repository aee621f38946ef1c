"""The Brazilian Portuguese catalog (``pt``) read as a native speaker reads it (docs/I18N.md, "Português
(Brasil)"):

* a Plot card's name inside a sentence follows the word *carta* in Brazilian quotation marks (“...”), which
  gives it its article whatever the name's own gender ("joga a carta “O Rei retorna”", not "joga O Rei
  Retorna"), and no sentence puts a dot or a comma right after a name that ends in "?" or "!" ("“É
  você?”."); a card named as a prompt's heading stands alone on the prompt's first line;
* the Plot cards are named in sentence case ("Achamos você!", not "Achamos Você!");
* a message to the whole group speaks to *vocês* (*toquem*, *confiram*, *enviem*), never to one *você*;
* no word with a gender agrees with a player (no *eles* for players, no *avisado*, *oculto*,
  *designado*, *escolhidos*, *inscrito* bound to whoever reads or is named);
* no sentence says "privado" twice ("no privado: confira nosso chat privado").

Each check renders the catalog's templates (``texts.t``) with every Plot card name of both games where a
card is named, so a new template or a renamed card is checked too.
"""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts

LANG = "pt"
THEMES = ("avalon", "resistance")
MESSAGES = texts.catalog(LANG).messages
PLOT = sorted(k.removeprefix("plot.") for k in MESSAGES if k.startswith("plot."))
# Values for the other placeholders of the card templates: players' names.
PEOPLE = {"seat": "Alice", "target": "Bob", "leader": "Carol", "previous": "Dave", "receiver": "Erin",
          "source": "Frank", "names": "Grace", "holder": "Heidi", "checker": "Ivan", "hands": "Judy tem Investida"}

# Templates whose {card} (or {taken}) may be any Plot card.
ANY_CARD = {"ev.PlotCardDealt": "card", "ev.PlotCardDiscarded": "card", "ev.PlotCardTaken": "card",
            "ev.PlotCardPlayed": "card", "ev.PlotCardPlayed.target": "card", "ev.PlotCardDiscarded.no_effect": "card",
            "ev.PlotCardDiscarded.declined": "card", "learned.plot": "card",
            "ev.PlotCardPlayed.take_responsibility": "taken"}
# Templates that name one card only: the card's own event, and the texts about Ambush and Charge.
OWN_CARD = {**{f"ev.PlotCardPlayed.{c}": c for c in PLOT if f"ev.PlotCardPlayed.{c}" in MESSAGES},
            "prompt.play.ambush": "keeping_close_eye", "prompt.play.ambush_you": "keeping_close_eye",
            "vote.first": "opinion_maker", "prompt.plot_establish_confidence": "establish_confidence"}
# Prompts headed by the card's name (its first line, which stays once the prompt is answered).
# (prompt.plot_establish_confidence is a sentence: "Erin recebeu a carta “...”")
HEADINGS = {f"prompt.plot_{c}": c for c in PLOT
            if f"prompt.plot_{c}" in MESSAGES and f"prompt.plot_{c}" not in OWN_CARD}
# Templates that end with a list of Plot cards' names.
LISTS = {"ev.PlotCardsDrawn": "cards", "prompt.plot_deal": "drawn", "prompt.plot_take_responsibility": "hands"}


def plot_name(card: str, theme: str) -> str:
    return texts.t(f"plot.{card}", LANG, theme)


def render(key: str, theme: str, **values: str) -> str:
    return texts.t(key, LANG, theme, **{**PEOPLE, "card": "Emboscada", "taken": "Investida", **values})


def sentences_with_a_card():
    """(key, theme, card's name, text) for every sentence that names a Plot card, with each card it may name."""
    for theme in THEMES:
        for key, field in ANY_CARD.items():
            for card in PLOT:
                name = plot_name(card, theme)
                yield key, theme, name, render(key, theme, **{field: name})
        for key, card in OWN_CARD.items():
            name = plot_name(card, theme)
            yield key, theme, name, render(key, theme, card=name)


DOUBLED = re.compile(r"[?!](?:</?[bi]>|”)*[.,;:?!]")  # "?." "!”." "?</b>:" ...


def test_the_tables_know_every_template_that_names_a_plot_card():
    card_templates = {k for k, v in MESSAGES.items() if k.startswith(("ev.PlotCard", "prompt.plot_"))
                      and any(p in str(v) for p in ("{card}", "{taken}"))}
    assert card_templates <= set(ANY_CARD) | set(OWN_CARD) | set(HEADINGS), card_templates - set(ANY_CARD) - set(
        OWN_CARD) - set(HEADINGS)
    assert len(PLOT) == 9 and all(k in MESSAGES for k in (*ANY_CARD, *OWN_CARD, *HEADINGS, *LISTS))


def test_a_plot_card_in_a_sentence_is_the_card_named_in_quotation_marks():
    wrong = []
    for key, theme, name, text in sentences_with_a_card():
        if not re.search(rf"\bcarta(?: de Trama)? “(?:<b>)?{re.escape(name)}(?:</b>)?”", text):
            wrong.append(f"{key} ({theme}): {text}")
    assert wrong == []


def test_no_sentence_puts_a_dot_after_a_card_name_that_ends_in_a_question_or_exclamation_mark():
    assert [plot_name("overheard_conversation", "avalon")[-1], plot_name("in_the_spotlight", "avalon")[-1]] == ["?", "!"]
    wrong = [f"{key} ({theme}): {text}" for key, theme, _, text in sentences_with_a_card() if DOUBLED.search(text)]
    for theme in THEMES:
        for card in PLOT:
            name = plot_name(card, theme)
            for key, field in LISTS.items():  # a list that ends with this card (one card drawn, one in a hand)
                value = f"Judy tem <b>{name}</b>" if field == "hands" else name
                text = render(key, theme, **{field: value}, card=name)
                if DOUBLED.search(text):
                    wrong.append(f"{key} ({theme}): {text}")
    assert wrong == []


def test_a_prompt_headed_by_a_card_names_it_alone_on_its_first_line():
    for key, card in HEADINGS.items():
        for theme in THEMES:
            name = plot_name(card, theme)
            first, _, rest = render(key, theme, card=name).partition("\n")
            assert first == f"🃏 <b>{name}</b>", (key, theme, first)
            assert rest[:1].isupper(), (key, theme, rest)


def test_plot_cards_are_named_in_sentence_case():
    assert plot_name("in_the_spotlight", "avalon") == "Achamos você!"
    capitalised = {"Rei", "Trama"}  # the King, and the game's own word for the Plot cards
    for card in PLOT:
        for theme in THEMES:
            words = plot_name(card, theme).split()
            assert all(w[:1].islower() or w in capitalised for w in words[1:]), (card, theme, words)
    assert texts.t("module.plot_cards", LANG, "resistance") == "A trama se complica"


# Messages the whole group reads, and the plural word each now says to the group.
GROUP_PLURAL = {
    "ev.GameStarted": "confiram",
    "lobby.no_players": "toquem",
    "lobby.howto": "toquem",
    "board.waiting_many": "vejam",
    "quest.play_below": "joguem",
    "status.lobby": "vejam",
    "language.title": "toquem",
    "damaged.cancelled": "enviem",
    "timers.remind_join": "toquem",
    "timers.join.closed": "enviem",
    "timers.join.config": "enviem",
}
# Group messages without an order: they must not speak to one reader either.
GROUP_PREFIXES = ("ev.", "board.", "end.", "reveal.", "rules.", "timers.join.", "vote.", "lobby.", "picture.")
PRIVATE = {"ev.private_generic", "vote.cast", "vote.already", "lobby.joined", "lobby.already_joined", "lobby.left",
           "lobby.not_joined", "lobby.in_other_game", "lobby.need_private", "lobby.only_host",
           "lobby.settings_sent"}  # (answers to one person's press)
# "você", or an order to one person ("toque em", "veja", "confira", "envie"...)
ONE_READER = re.compile(r"\bvocê\b|(?<!um )\btoque em\b|\b(?:veja|confira|envie|abra|aperte|aguarde|digite|jogue)\b",
                        re.I)


def group_keys() -> list[str]:
    # (a key's .practice form is read by one person, in the private chat a /practice game is played in)
    return sorted((set(GROUP_PLURAL) | {k for k in MESSAGES if k.startswith(GROUP_PREFIXES)
                                        and not k.endswith(".practice")}) - PRIVATE)


@pytest.mark.parametrize("key,word", sorted(GROUP_PLURAL.items()))
def test_a_message_to_the_whole_group_speaks_to_vocês(key, word):
    for theme in THEMES:
        assert re.search(rf"\b{word}\b", render(key, theme, count=3, max=2, min=5), re.I), (key, theme)


def test_no_message_to_the_group_speaks_to_one_reader():
    wrong = []
    for key in group_keys():
        for theme in THEMES:
            entry = MESSAGES[key]
            template = entry if isinstance(entry, str) else entry.get(theme) or next(iter(entry.values()))
            if ONE_READER.search(template):
                wrong.append(f"{key} ({theme}): {template}")
    assert wrong == []


def test_the_check_finds_one_reader_and_not_a_group():
    assert ONE_READER.search("Enviei a cada um seu papel secreto no privado: confira nosso chat privado.")
    assert ONE_READER.search("Ninguém ainda: toque em Entrar.")
    assert not ONE_READER.search("Convite (um toque em Entrar): toquem em Entrar, confiram, enviem /newgame.")


# (key, the word that would agree with a player) -> what the text says instead
NOT_BOUND = {
    ("nextgame.already", "avisad"): "vou avisar quando...",
    ("rolehelp.mordred", "ocult"): "Merlin não vê você",
    ("rolehelp.evil_rogue", "ocult"): "nem Merlin nem os outros jogadores do Mal veem você",
    ("know.assassinates", "designad"): "por designação",
    ("field.recruited", "recrutad"): "acertou",
    ("field.watches", "vigiad"): "sob vigia",
    ("team.selected", "escolhid"): "Seleção",
    ("team.selected_none", "escolhid"): "Seleção",
    ("select.need_players", "escolhid"): "só # até agora",
    ("settings.check.sizes", "inscrit"): "# inscrições",
    ("settings.check.none", "inscrit"): "# inscrições",
    ("rematch.invited", "convidad"): "Convite para quem jogou",
    ("lobby.assassin", "assassina:"): "Quem assassina: (not a feminine noun 'Assassina')",
    ("settings.assassin", "assassina ("): "Quem assassina",
}


@pytest.mark.parametrize("key,stem", sorted(NOT_BOUND))
def test_no_word_agrees_with_a_player(key, stem):
    for theme in THEMES:
        entry = MESSAGES[key]
        template = entry if isinstance(entry, str) else entry.get(theme) or next(iter(entry.values()))
        assert stem not in template.lower().replace("quem assassina", ""), (key, theme, template)


def templates():
    """(key, theme, template with every plural branch and the theme's words) for every entry."""
    for key, entry in MESSAGES.items():
        for theme in THEMES:
            template = entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))
            yield key, theme, with_theme_words(plurals.flatten(template), texts.vocab(LANG, theme))


def with_theme_words(template: str, words: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: words.get(m.group(1), m.group(0)), template)


PLURAL_PRONOUN = re.compile(r"(?<![\w-])(?:eles|elas|deles|delas|neles|nelas)(?![\w-])", re.I)
# a text about players: a player's name in it, or a word for a player
ABOUT_PLAYERS = re.compile(r"\{(?:assassin|by|checker|holder|host|leader|name|names|previous|receiver|seat|target|who)\}"
                           r"|jogador|membro|líder|vizinho|anfitrião|alguém|quem", re.I)


def test_no_plural_pronoun_with_a_gender_stands_for_players():
    """A plural "eles" for players fits no table of women (tests/unit/test_player_gender.py checks the
    singular ones); in the Reveal, "eles" stands for the characters who open their eyes."""
    characters = {"reveal.evil.thumbs"}
    found = [f"{key} ({theme}): {text}" for key, theme, text in templates()
             if key not in characters and PLURAL_PRONOUN.search(text) and ABOUT_PLAYERS.search(text)]
    assert found == []


def test_no_sentence_says_private_twice():
    for key, theme, text in templates():
        assert len(re.findall(r"privad", text)) <= 1, (key, theme, text)
    assert "privado" in render("ev.GameStarted", "avalon", players=7)
