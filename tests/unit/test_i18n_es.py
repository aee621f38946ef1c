"""The Spanish catalog read as a native speaker would: Plot card names quoted «así» and introduced as "la
carta «...»" where the sentence needs an article, never followed by punctuation when the name ends with
"!" or "?" ("¡A la carga!." ); a message to the whole group speaks to everyone (vosotros: *mirad*,
*tocad*, *enviad*), a private one to one person (tú); and no gendered word is bound to a player ("Elegidos:
Carol", "Anfitrión: Alice", "al ser reclutado")."""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts
from gamebot.messages.table import Table
from gamebot.messages.values import hands_text

LANG = "es"
THEMES = ("avalon", "resistance")
# Placeholders that hold the name of one Plot card.
CARD_PARAMS = ("card", "taken")


def plot_names(theme: str) -> list[str]:
    return [texts.t(key, LANG, theme) for key in texts.catalog(LANG).messages if key.startswith("plot.")]


def template_of(key: str, theme: str) -> str:
    entry = texts.catalog(LANG).messages[key]
    return entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))


def plot_card_keys() -> list[str]:
    """Every sentence that names a Plot card: the Plot events and prompts, the Ambush and Charge lines, how
    a player learned something with a Plot card."""
    keys = [k for k in texts.catalog(LANG).messages
            if k.startswith(("ev.PlotCard", "prompt.plot_")) or k in ("prompt.play.ambush", "prompt.play.ambush_you",
                                                                        "vote.first", "learned.plot")]
    return [k for k in keys if any(f"{{{p}}}" in template_of(k, t) for p in CARD_PARAMS for t in THEMES)]


def render(key: str, theme: str, card: str) -> str:
    """The sentence with ``card`` as every Plot card in it, a name for every other value, 2 for counts; the
    HTML tags taken out (a name in bold is still a name followed by what follows the tag)."""
    template = template_of(key, theme)
    counts = {name for name, _ in plurals.selectors(template)}
    params = {}
    for field in texts.placeholders(template) - set(texts.vocab(LANG, theme)):
        params[field] = card if field in CARD_PARAMS else 2 if field in counts else "Alice"
    return re.sub(r"<[^>]+>", "", texts.t(key, LANG, theme, **params))


def after_name(text: str, name: str) -> list[str]:
    """What follows each occurrence of ``name`` (past a closing quote), to catch "¡A la carga!." """
    return [text[m.end():m.end() + 1] for m in re.finditer(re.escape(name) + "»?", text)]


def test_every_plot_card_sentence_is_checked():
    keys = plot_card_keys()
    assert {"ev.PlotCardDealt", "ev.PlotCardDiscarded.no_effect", "ev.PlotCardPlayed.take_responsibility",
            "prompt.plot_opinion_maker", "vote.first", "learned.plot"} <= set(keys)
    assert "¡A la carga!" in plot_names("avalon") and "¿Eres tú?" in plot_names("avalon")


@pytest.mark.parametrize("theme", THEMES)
def test_a_plot_card_name_in_a_sentence_is_quoted(theme):
    wrong = []
    for key in plot_card_keys():
        for name in plot_names(theme):
            text = render(key, theme, name)
            if f"«{name}»" not in text:
                wrong.append(f"{key}: {text}")
    assert wrong == []


def test_no_punctuation_follows_a_card_name_that_ends_with_its_own():
    names = sorted({n for theme in THEMES for n in plot_names(theme) if n[-1] in "!?"})
    assert names  # ¡A la carga!, ¿Eres tú?, ¡Te encontramos!
    wrong = []
    for theme in THEMES:
        for key in plot_card_keys():
            for name in names:
                text = render(key, theme, name)
                if any(c in ".,;:" for c in after_name(text, name) if c):
                    wrong.append(f"{key} ({theme}): {text}")
    assert wrong == []


def test_the_examples_of_the_review_read_as_a_spaniard_writes_them():
    assert render("ev.PlotCardDiscarded.no_effect", "avalon", "Restaura tu honor") == \
        "🃏 La carta «Restaura tu honor» no tiene efecto ahora y se descarta."
    assert render("ev.PlotCardDealt", "avalon", "¡A la carga!") == \
        "🃏 Alice da la carta de Intriga «¡A la carga!» a Alice."
    assert render("prompt.plot_overheard_conversation", "avalon", "¿Eres tú?").startswith(
        "🃏 Con la carta «¿Eres tú?» verás la lealtad")


def test_lists_of_plot_cards_are_not_closed_by_a_full_stop():
    """A list is joined by the code ("Emboscada, ¡A la carga!"), so the sentence around it must not add a
    full stop after it, and the board's separator is not a punctuation mark either."""
    cards = "Emboscada, ¡A la carga!"
    for key, param in [("ev.PlotCardsDrawn", "cards"), ("prompt.plot_deal", "drawn")]:
        text = texts.t(key, LANG, "avalon", leader="Carol", **{param: cards})
        assert not re.search(r"!\W*[.,;:]", text), text
    table = Table(chat_id=-1, game_id="g", title="T", lang=LANG, theme="avalon", names=["Alice", "Bob"],
                  user_ids=[1, 2], bot_username="TestBot")
    line = hands_text(table, {0: ["opinion_maker"], 1: ["keeping_close_eye"]})
    assert line == "Alice tiene <b>¡A la carga!</b> · Bob tiene <b>Emboscada</b>"
    hands = texts.t("prompt.plot_take_responsibility", LANG, "avalon", card="Restaura tu honor", hands=line)
    assert not re.search(r"[!?]\W*[.,;:]", re.sub(r"<[^>]+>", "", hands)), hands


# --- a message to the whole group speaks to everyone (vosotros) ------------------------------------------

# Messages the group reads as a whole, with the plural imperative each says (the transcript shows where a
# text goes: the lobby, announcements, the quest message, reminders in the group).
GROUP_ADDRESSED = {
    "ev.GameStarted": ["mirad"],
    "lobby.no_players": ["tocad"],
    "lobby.howto": ["Tocad", "escribiros"],
    "quest.play_below": ["jugad", "vuestra"],
    "timers.remind_join": ["Tocad", "enviad"],
    "timers.join.closed": ["enviad"],
    "timers.join.config": ["enviad"],
    "damaged.cancelled": ["Enviad"],
}
# The tú forms these texts had, and any tú possessive or pronoun.
SINGULAR = r"\b(?:mira|toca|envía|juega|elige|usa|únete|tu|tus|te|escribirte)\b"


@pytest.mark.parametrize("key", sorted(GROUP_ADDRESSED))
def test_a_message_to_the_whole_group_uses_the_plural(key):
    for theme in THEMES:
        text = render(key, theme, "Emboscada")
        for word in GROUP_ADDRESSED[key]:
            assert re.search(rf"\b{word}\b", text), (key, text)
        assert not re.search(SINGULAR, text, re.I), (key, text)


def test_a_private_message_to_one_person_keeps_tu():
    assert texts.t("prompt.pick_one", LANG) == "Elige a un jugador."
    assert "toca Iniciar" in texts.t("votes.need_private", LANG, link="L")
    assert texts.t("vote.already", LANG, vote=texts.t("vote.approve", LANG)) == "Ya has votado: Aprobar."


# --- any player fits ---------------------------------------------------------------------------------------

PLAYER = r"\{(?:names|name|host|seat|leader|who|target|holder|assassin)\}"
# A gendered label or participle before a player's name ("Elegidos: {names}", "Anfitrión: {host}").
GENDERED_LABEL = re.compile(r"\b(?:elegid|invitad|reclutad|designad|inscrit)[oa]s?\b[^.:{}\n]*:\s*" + PLAYER
                            + r"|\b(?:anfitri(?:ón|ona)|ganador(?:es|as?)?|portador(?:es|as?)?)\b[^.:{}\n]*:\s*" + PLAYER,
                            re.I)
# An article and a title before a player's name in brackets ("el Líder ({leader})").
TITLE_IN_BRACKETS = re.compile(r"\b(?:el|la|los|las)\s+\w+\s*\(\s*" + PLAYER)


def test_no_gendered_label_or_title_is_bound_to_a_player():
    wrong = []
    for key in texts.catalog(LANG).messages:
        for theme in THEMES:
            template = plurals.flatten(template_of(key, theme))
            for word, value in texts.vocab(LANG, theme).items():
                template = template.replace(f"{{{word}}}", value)
            if GENDERED_LABEL.search(template) or TITLE_IN_BRACKETS.search(template):
                wrong.append(f"{key}: {template}")
    assert sorted(set(wrong)) == []


@pytest.mark.parametrize("key,gendered", [
    ("learned.recruitment", "reclutad"),  # said to the player: "al ser reclutado"
    ("know.assassinates", "designad"),  # about another player
    ("rolehelp.evil_rogue", "oculto"),  # said to the player
    ("select.need_players", "# elegido"),  # "llevas 1 elegido" (not "has elegido", which never agrees)
    ("rematch.invited", "invitado"),
    ("lobby.host", "anfitri"),
    ("lobby.only_host", "anfitri"),
    ("start.joined", "anfitri"),
    ("settings.changed", "anfitri"),
    ("timers.forcestart.started", "anfitri"),
])
def test_texts_about_one_player_have_no_gendered_word(key, gendered):
    for theme in THEMES:
        assert gendered not in template_of(key, theme).lower(), (key, template_of(key, theme))
