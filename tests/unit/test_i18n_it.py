"""The Italian catalog as an Italian player reads it.

* A Plot card named in a sentence is introduced by the word *carta* and quoted «così» ("gioca la carta
  «Imboscata»", "la carta Complotto «Sei tu?»"), and no punctuation mark follows a name that ends with its own
  "!" or "?" ("Sei tu?." or "«Ti abbiamo trovato!»." are not written); a list of names the code joins is
  not closed by a full stop either, and the board's parts are joined by " · ", not "; ".
* A message the whole group reads speaks to everyone with *voi* (*controllate*, *toccate*, *inviate*); a
  private one speaks to one person with *tu* (docs/I18N.md).
* Any player fits: no participle, adjective or gendered label agrees with a player ("Sei entrato",
  "verrai aggiunto", "vincere da solo", "voti per primo", "Scelti: {names}", "Organizzatore: {host}").
"""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts
from gamebot.messages.settings import available_modules
from gamebot.messages.table import Table
from gamebot.messages.values import hands_text

LANG = "it"
THEMES = ("avalon", "resistance")
CARD_PARAMS = ("card", "taken")  # the placeholders that hold one Plot card's name
TAG = re.compile(r"<[^>]+>")


def entry(key: str, theme: str) -> str:
    value = texts.catalog(LANG).messages[key]
    return value if isinstance(value, str) else value.get(theme) or value.get("*") or next(iter(value.values()))


def plot_names(theme: str) -> list[str]:
    return [texts.t(k, LANG, theme) for k in texts.catalog(LANG).messages if k.startswith("plot.")]


def naming_keys() -> list[str]:
    """The sentences that name one Plot card: its events and prompts, the Ambush and Charge lines of the
    quest and vote messages, how a player learned something with a Plot card."""
    wanted = ("ev.PlotCard", "prompt.plot_", "prompt.play.ambush", "vote.first", "learned.plot")
    return sorted(k for k in texts.catalog(LANG).messages if k.startswith(wanted)
                  and any("{" + p + "}" in entry(k, t) for p in CARD_PARAMS for t in THEMES))


def render(key: str, theme: str, card: str = "Imboscata", **given) -> str:
    """The visible text (no HTML tags) with ``card`` for every Plot card, "Alice" for every other value and
    2 for every count."""
    template = entry(key, theme)
    counts = {name for name, _ in plurals.selectors(template)}
    params = {}
    for name in texts.placeholders(template) - set(texts.vocab(LANG, theme)):
        params[name] = card if name in CARD_PARAMS else 2 if name in counts else "Alice"
    params.update(given)
    return TAG.sub("", texts.t(key, LANG, theme, **params))


# --- Plot card names ---------------------------------------------------------------------------------------


def test_the_sentences_naming_a_plot_card_are_all_checked():
    keys = naming_keys()
    assert {"ev.PlotCardDealt", "ev.PlotCardPlayed", "ev.PlotCardDiscarded.no_effect",
            "ev.PlotCardPlayed.take_responsibility", "prompt.plot_opinion_maker", "prompt.play.ambush",
            "prompt.play.ambush_you", "vote.first", "learned.plot"} <= set(keys)
    assert {"Sei tu?", "Ti abbiamo trovato!"} <= set(plot_names("avalon"))


@pytest.mark.parametrize("theme", THEMES)
def test_a_plot_card_in_a_sentence_is_a_quoted_carta(theme):
    wrong = []
    for key in naming_keys():
        for name in plot_names(theme):
            text = render(key, theme, name)
            if not re.search(r"\bcarta(?: Complotto)? «" + re.escape(name) + "»", text):
                wrong.append(f"{key}: {text}")
    assert wrong == []


@pytest.mark.parametrize("theme", THEMES)
def test_no_punctuation_follows_a_name_that_ends_with_its_own(theme):
    names = [n for n in plot_names(theme) if n.endswith(("!", "?"))] or ["Sei tu?"]
    wrong = []
    for key in naming_keys():
        for name in names:
            text = render(key, theme, name)
            if re.search(re.escape(name) + r"»?\s*[.,;:!?]", text):
                wrong.append(f"{key}: {text}")
    assert wrong == []


def test_a_list_of_plot_cards_is_not_closed_by_a_punctuation_mark():
    """The code joins the names ("Imboscata, Ti abbiamo trovato!"): the sentence around the list adds no full
    stop after it, and the board joins its parts with " · " (a "; " would follow "Ti abbiamo trovato!")."""
    cards = "Imboscata, Ti abbiamo trovato!"
    for key, param in [("ev.PlotCardsDrawn", "cards"), ("prompt.plot_deal", "drawn")]:
        text = texts.t(key, LANG, "avalon", leader="Carol", **{param: cards})
        assert not re.search(r"[!?]\W*[.,;:]", TAG.sub("", text)), text
    table = Table(chat_id=-1, game_id="g", title="T", lang=LANG, theme="avalon", names=["Alice", "Bob"],
                  user_ids=[1, 2], bot_username="TestBot")
    hands = hands_text(table, {0: ["in_the_spotlight"], 1: ["keeping_close_eye"]})
    assert hands == "Alice ha <b>Ti abbiamo trovato!</b> · Bob ha <b>Imboscata</b>"
    prompt = texts.t("prompt.plot_take_responsibility", LANG, "avalon", card="Riscatta il tuo onore", hands=hands)
    assert not re.search(r"[!?]\W*[.,;:]", TAG.sub("", prompt)), prompt


def test_plot_card_sentences_read_as_an_italian_writes_them():
    assert render("ev.PlotCardDiscarded.no_effect", "avalon", "Riscatta il tuo onore") == \
        "🃏 La carta «Riscatta il tuo onore» ora non ha effetto e viene scartata."
    assert render("ev.PlotCardDealt", "avalon", "Sei tu?", seat="Erin", leader="Carol") == \
        "🃏 Erin riceve la carta Complotto «Sei tu?» da Carol."
    assert render("ev.PlotCardPlayed", "avalon", "Ti abbiamo trovato!", seat="Erin") == \
        "🃏 La carta «Ti abbiamo trovato!» viene giocata da Erin."
    assert render("prompt.play.ambush", "avalon", names="Dave") == \
        "La carta «Imboscata» permette a Dave di guardare una carta giocata."
    assert render("vote.first", "avalon", "Carica", names="Heidi") == \
        "📣 Chi ha la carta «Carica» vota apertamente, prima degli altri: Heidi."
    assert render("prompt.plot_deal", "avalon", drawn="Carica, Sei tu?") == \
        "🃏 Carte Complotto: scegli una carta e il giocatore che la riceve (non tu).\nHai pescato: Carica, Sei tu?"


# --- who the text speaks to --------------------------------------------------------------------------------

# Texts the whole group reads, each with the plural (voi) words it must say.
GROUP_ADDRESSED = {
    "ev.GameStarted": ["controllate"],
    "lobby.no_players": ["toccate"],
    "lobby.howto": ["Toccate", "potervi"],
    "quest.play_below": ["giocate", "vostra"],
    "timers.remind_join": ["Toccate", "inviate"],
    "timers.join.closed": ["inviate"],
    "timers.join.config": ["inviate"],
    "damaged.cancelled": ["inviate"],
}
# Texts the group reads that speak to nobody in particular (a reply to one person's command, a board line).
GROUP_IMPERSONAL = ["status.none", "status.lobby", "newgame.exists", "board.waiting_many", "rematch.invited",
                    "timers.forcestart.started", "pin.need_admin"]
# The tu forms: imperatives these texts had or could have (not the impersonal "si gioca"), tu's possessives
# and pronouns.
TU = (r"(?<!si )\b(?:tocca|controlla|guarda|invia|usa|gioca|scegli|vedi|premi|apri|aspetta|nominami|tuo|tua|tuoi|tue"
      r"|ti|te|poterti|scriverti|aggiungerti)\b")


@pytest.mark.parametrize("key", sorted(GROUP_ADDRESSED))
def test_a_message_to_the_whole_group_says_voi(key):
    for theme in THEMES:
        text = render(key, theme)
        for word in GROUP_ADDRESSED[key]:
            assert re.search(rf"\b{word}\b", text), (key, text)
        assert not re.search(TU, text, re.I), (key, text)


@pytest.mark.parametrize("key", GROUP_IMPERSONAL)
def test_a_group_text_for_nobody_in_particular_says_no_tu(key):
    for theme in THEMES:
        text = render(key, theme)
        assert not re.search(TU, text.replace("(non tu)", ""), re.I), (key, text)


def test_a_private_message_still_says_tu():
    assert texts.t("prompt.pick_one", LANG) == "Scegli un giocatore."
    assert texts.t("vote.already", LANG, vote=texts.t("vote.approve", LANG)) == "Hai già votato: Approva."
    assert render("prompt.plot_opinion_maker", "avalon", "Carica") == \
        "🃏 Con la carta «Carica» voti prima degli altri, apertamente. Scegli il tuo voto."


# --- any player fits ---------------------------------------------------------------------------------------

PLAYER = r"\{(?:names|name|host|seat|leader|who|target|holder|assassin|receiver|checker|by|previous)\}"
# A label that agrees with the players it names ("Scelti: {names}", "Vincitori: {names}", "Organizzatore:
# {host}", "Invitati dall'ultima partita (...): {names}").
GENDERED_LABEL = re.compile(r"\b(?:scelt[oi]|invitat[oi]|esclus[oi]|vincitor[ei]|organizzator[ei]|iscritt[oi]|designat[oi]"
                            r"|reclutat[oi])\b"
                            r"[^.:{}\n]*:\s*" + PLAYER, re.I)
# A participle or adjective that agrees with the player the text speaks to or about: "sei entrato",
# "sei stato reclutato", "sarai avvisato", "verrai aggiunto", "bentornato", "da solo", "per primo",
# "nascosto a Merlino", a bare count of people ("finora 1 scelto", "2 iscritti").
GENDERED_WORD = re.compile(
    r"\b(?:sei|sarai|verrai|eri)\s+(?:già\s+)?(?:stat[oaie]\s+)?[a-zà-ù]+(?:at|ut|it|nt|ss|st)[oaie]\b"
    r"|\bbentornat[oaie]\b|\bvincere da sol[oaie]\b|\bper prim[oaie]\b|,\s*nascost[oaie] a\b"
    r"|\(designat[oaie]\)|(?:#|\d)\s+(?:scelt|iscritt)[oaie]\b", re.I)


def plain_templates():
    for key in texts.catalog(LANG).messages:
        for theme in THEMES:
            template = plurals.flatten(entry(key, theme))
            for word, value in texts.vocab(LANG, theme).items():
                template = template.replace("{" + word + "}", value)
            yield key, template


def test_no_label_agrees_with_the_players_it_names():
    assert sorted({f"{k}: {t}" for k, t in plain_templates() if GENDERED_LABEL.search(t)}) == []


def test_no_participle_or_adjective_agrees_with_a_player():
    assert sorted({f"{k}: {m.group(0)}" for k, t in plain_templates() for m in GENDERED_WORD.finditer(t)}) == []


def test_the_checks_find_what_they_look_for():
    assert GENDERED_LABEL.search("Scelti: {names}") and GENDERED_LABEL.search("Organizzatore: {host}")
    assert not GENDERED_LABEL.search("La tua scelta: {names}")
    for wrong in ("Sei entrato nella partita.", "l'hai saputo quando sei stato reclutato", "Sarai già avvisato",
                  "poi verrai aggiunto alla partita", "vuoi vincere da solo", "voti per primo",
                  "Sei del Male, nascosto a Merlino", "finora # scelto", "assassina alla fine (designato)"):
        assert GENDERED_WORD.search(wrong), wrong
    for right in ("Sei del Male", "Sei <b>{role}</b>", "Sei tu?", "Hai lasciato la partita.",
                  "i # giocatori iscritti", "sei tu a indicare"):
        assert not GENDERED_WORD.search(right), right


# --- wording -----------------------------------------------------------------------------------------------


def test_votes_and_winners_are_told_not_ordered():
    """"✅ Approva: Alice" reads as an order (or "approves"): the votes are *a favore* / *contro*."""
    votes = texts.t("ev.VotesRevealed", LANG, "avalon", approve="Alice", reject="Bob")
    assert votes == "🗳 <b>Voti</b>\n✅ A favore: Alice\n❌ Contro: Bob"
    assert texts.t("end.winners", LANG, names="Alice e Bob") == "Hanno vinto: Alice e Bob"
    assert texts.t("lobby.assassin", LANG, role="Morgana") == "🗡 Chi assassina: Morgana"  # not "Assassina:"


def test_lancelots_and_quests_are_named_as_elsewhere():
    for key in ("varianthelp.bigbox_predealt", "varianthelp.french_predealt"):
        text = render(key, "avalon")
        assert "i due Lancillotto" in text and "Lancillotti" not in text, text
        assert "«Nessun cambio»" in text and "«Cambio di schieramento»" in text, text
        assert "Missione" in text, text


def test_settings_buttons_are_short():
    """Option buttons share a row two by two (about 20 characters); an option's button with its value, and
    each value's own button, at most 40."""
    for theme in THEMES:
        for _, key, values in available_modules(theme):
            option = texts.name_of("optionbutton", key, LANG, theme)
            assert len(option) <= 20, option
            for value in values or []:
                label = texts.name_of("valuebutton", value, LANG, theme)
                assert len("✅ " + texts.t("settings.button.option_value", LANG, theme, option=option, value=label)) <= 40
