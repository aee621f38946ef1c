"""The Russian catalog read as a Russian speaker reads it (the review of issue i25).

* A Plot card's name in a sentence is quoted «…» after a case form of «карта» (the name itself cannot
  decline: "разыгрывает карту «Засада»", not "разыгрывает Засада"), and no full stop, colon or semicolon
  follows a name that ends in "!" or "?" («В атаку!». is wrong; so is "Это ты?.").
* A message to the whole group says «вы» (загляните, нажмите, отправьте); text that goes to the group and
  to private chats alike (/help) is impersonal; everything sent to one person says «ты».
* No word gives a player a gender: no past tense or participle agreeing with a player ("назначен",
  "Попался!"), no "своего соседа {target}".
* Numbers agree with their nouns ("Проголосовали все (21)", not "все 21 игрок"), and the issue's phrases.
* Buttons stay short.
"""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts
from gamebot.messages.events import event_line
from gamebot.messages.table import Table
from gamebot.messages.values import hands_text

LANG = "ru"
THEMES = ("avalon", "resistance")
# Placeholders whose value is a player's name (as in tests/unit/test_player_gender.py).
PLAYER = {"assassin", "by", "checker", "holder", "host", "leader", "name", "previous", "receiver", "seat", "target",
          "who"}
MARK = "Игрок_X"  # a player's name, as a placeholder holding one is rendered here
TAG = re.compile(r"<[^>]+>")
# A second punctuation mark right after a name that ends in "!" or "?" (a closing quote or bold between).
DOUBLE = re.compile(r"[!?](?:</b>)?»?(?:</b>)?[.:;]|[!?](?:</b>)?,")
# Russian singular "ты" forms and the singular imperatives the catalog uses.
SINGULAR = re.compile(
    r"(?<!\w)(?:ты|тебя|тебе|тобой|твой|твоя|твоё|твои|твою|твоей|твоего|твоих|твоим|нажми|отправь|загляни|смотри"
    r"|открой|выбери|сыграй|добавь|выйди|дождись|играй)(?!\w)", re.I)
PLURAL = re.compile(r"(?<!\w)(?:\w+(?:ите|йте|ьте)|вы|вас|вам|ваш\w*)(?!\w)", re.I)

# Sent to the whole group (the lobby message, announcements, the timers' notices, the group's language
# picker, a reply in the group's language to /status in the group): "вы".
GROUP_KEYS = ["ev.GameStarted", "lobby.no_players", "lobby.howto", "status.none", "status.lobby", "damaged.cancelled",
              "timers.remind_join", "timers.join.closed", "timers.join.config", "language.title", "quest.play_below"]
# Sent to a group (when the bot is added, /help there) and to private chats alike: neither "ты" nor "вы".
BOTH_KEYS = ["help.body", "help.languages"]
# Sent to one person: "ты" (the register of the Russian catalog), never "вы".
PRIVATE_KEYS = ["start.welcome", "prompt.plot_deal", "prompt.lady", "role.keep_secret", "lobby.need_private",
                "language.own_title", "nextgame.need_private", "timers.remind_private"]


def template(key: str, theme: str) -> str:
    entry = texts.catalog(LANG).messages[key]
    return entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))


def render(key: str, theme: str, number: int = 2, **given: object) -> str:
    """The text of ``key``: players named ``MARK``, numbers ``number``, other values a word, ``given`` as given."""
    tpl = template(key, theme)
    numbers = {name for name, _ in plurals.selectors(tpl)}
    params: dict[str, object] = {}
    for name in texts.placeholders(tpl) - set(texts.vocab(LANG, theme)):
        params[name] = number if name in numbers else MARK if name in PLAYER else "слово"
    params.update(given)
    return texts.t(key, LANG, theme, **params)


def plain(text: str) -> str:
    return TAG.sub("", text)


def plot_names(theme: str) -> list[str]:
    return [texts.t(key, LANG, theme) for key in texts.catalog(LANG).messages if key.startswith("plot.")]


def plot_card_keys() -> list[str]:
    """The texts that get one Plot card's name as ``{card}`` (or ``{taken}``): the Plot events and prompts,
    the Ambush line of a quest, what was learned with a card, the open vote of Charge / Opinion Maker."""
    out = []
    for key in texts.catalog(LANG).messages:
        names = texts.placeholders(template(key, "avalon"))
        plot = key.startswith(("ev.PlotCard", "prompt.plot_", "prompt.play.ambush")) or key in {"learned.plot", "vote.first"}
        if plot and names & {"card", "taken"}:
            out.append(key)
    return out


def test_the_plot_texts_are_found():
    keys = plot_card_keys()
    assert len(keys) >= 25
    assert {"ev.PlotCardPlayed", "ev.PlotCardDealt", "ev.PlotCardPlayed.take_responsibility", "vote.first",
            "prompt.play.ambush", "learned.plot", "prompt.plot_opinion_maker"} <= set(keys)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("key", plot_card_keys())
def test_a_plot_card_is_named_in_quotes_after_the_word_card(key, theme):
    for name in plot_names(theme):
        text = plain(render(key, theme, card=name, taken=name))
        quoted = rf"(?<!\w)[Кк]арт(?:а|у|ы|е|ой)(?: заговора)? «{re.escape(name)}»"
        assert re.search(quoted, text), text
        assert not DOUBLE.search(text), text


@pytest.mark.parametrize("theme", THEMES)
def test_no_second_punctuation_after_a_list_of_cards(theme):
    shouted = [n for n in plot_names(theme) if n.endswith(("!", "?"))] or ["Засада, В атаку!"]
    for name in shouted:
        for key, value in (("ev.PlotCardsDrawn", "cards"), ("prompt.plot_deal", "drawn"),
                           ("prompt.plot_take_responsibility", "hands"), ("board.line.plot_hand", "cards"),
                           ("board.line.plot_drawn", "cards")):
            text = render(key, theme, card="Засада", **{value: f"Засада, {name}"})
            assert not DOUBLE.search(text), text


def test_the_plot_events_as_the_group_reads_them():
    table = Table(chat_id=-1, game_id="g", lang=LANG, names=["Alice", "Bob", "Carol", "Dave", "Erin"],
                  user_ids=list(range(5)))
    assert event_line(table, "PlotCardPlayed", {"seat": 1, "card": "opinion_maker"}) == (
        "🃏 Карту <b>«В атаку!»</b> разыгрывает Bob.")
    assert event_line(table, "PlotCardPlayed", {"seat": 2, "card": "keeping_close_eye", "target": 3}) == (
        "🃏 Carol разыгрывает карту <b>«Засада»</b> и смотрит карту игрока Dave.")
    assert event_line(table, "PlotCardDealt", {"leader": 0, "seat": 4, "card": "overheard_conversation"}) == (
        "🃏 Alice отдаёт карту заговора <b>«Это ты?»</b> игроку Erin.")
    assert hands_text(table, {1: ["opinion_maker"], 2: ["keeping_close_eye"]}) == (
        "у игрока Bob — <b>В атаку!</b> · у игрока Carol — <b>Засада</b>")


@pytest.mark.parametrize("theme", THEMES)
def test_the_whole_group_is_addressed_in_the_plural(theme):
    for key in GROUP_KEYS:
        text = plain(render(key, theme))
        assert PLURAL.search(text) and not SINGULAR.search(text), (key, text)
    for key in BOTH_KEYS:
        text = plain(render(key, theme))
        assert not SINGULAR.search(text) and not PLURAL.search(text), (key, text)
    for key in PRIVATE_KEYS:
        text = plain(render(key, theme))
        assert SINGULAR.search(text) and not PLURAL.search(text), (key, text)


def _with_players(theme: str):
    for key in texts.catalog(LANG).messages:
        tpl = template(key, theme)
        if texts.placeholders(tpl) & PLAYER:
            yield key, plain(render(key, theme))


@pytest.mark.parametrize("theme", THEMES)
def test_no_word_gives_a_player_a_gender(theme):
    found = []
    for key, text in _with_players(theme):
        if re.search(rf"(?<!\w)сосед(?:а|у|ом|е|ка|ки|ку|кой)?\s+{MARK}", text, re.I):
            found.append((key, "сосед"))  # "своего соседа Bob": "соседнего игрока Bob"
        past = re.search(rf"{MARK}\s+(?:не\s+)?[а-яё]+(?:л|ла|лся|лась)(?!\w)", text, re.I)
        if past and not past.group(0).endswith("Провал"):
            found.append((key, past.group(0)))  # "Bob сыграл": the present tense
    labels = ("know.", "field.", "board.")
    for key in texts.catalog(LANG).messages:
        text = plain(render(key, theme))
        if key.startswith(labels) and re.search(r"(?<!\w)(?:назначен|завербован|раскрыт|выбран|готов|должен)(?!\w)",
                                                text, re.I):
            found.append((key, text))  # a label beside a player's name: "(назначен)"
    for name in plot_names(theme):
        if re.fullmatch(r"[А-ЯЁ][а-яё]+(?:лся|лась|л|ла)!", name):
            found.append(("plot", name))  # "Попался!" said to a player: "Мы тебя нашли!"
    assert found == []


def test_numbers_agree_with_their_nouns():
    assert render("vote.closed", "avalon", of=21) == "Проголосовали все (21)."
    for key in texts.catalog(LANG).messages:
        for theme in THEMES:
            if not plurals.selectors(template(key, theme)):
                continue
            for n in (1, 2, 5, 11, 21, 22, 25):
                text = plain(render(key, theme, number=n))
                assert not re.search(r"(?<!\w)все \d+ [а-яё]", text, re.I), (key, text)  # "все 21 игрок"
    # a number the caller passes, followed by a noun, is always in a plural block
    counted = r"count|of|players|size|fails|fails_needed|games|wins|min|max|seats|chosen|used|rejections|hits"
    for key, entry in texts.catalog(LANG).messages.items():
        for tpl in entry.values() if isinstance(entry, dict) else [entry]:
            bare = re.search(rf"\{{(?:{counted})\}}\s+(?!из\b|до\b|×)[а-яё]+", tpl)
            assert bare is None, (key, tpl)


def test_the_issue_phrases():
    assert "Теперь я пишу в этой группе по-русски" in texts.t("language.changed", LANG, language="Русский")
    assert "«" not in texts.t("language.changed", LANG, language="Русский").split(".")[-2]
    assert "Мы тебя нашли!" in plot_names("avalon")


def test_buttons_stay_short():
    catalog = texts.catalog(LANG)
    buttons = ("optionbutton.", "rolebutton.", "valuebutton.", "settings.button.", "timers.button.", "lobby.button.",
               "vote.button.", "team.button.", "prompt.button.", "choice.")
    keys = [k for k in catalog.messages if k.startswith(buttons)] + [
        "language.button_auto", "rematch.button", "votes.button", "nextgame.join"]
    for key in keys:
        for theme in THEMES:
            # (the only option with variants is Lancelot: "✅ Ланселот: Открыты заранее (франц.)")
            text = render(key, theme, game="Сопротивление", role="Ненадёжный служитель", language="Português (Brasil)",
                          option="Ланселот", value="Открыты заранее (франц.)", vote="«Отклонить»",
                          phase="Дозор Разбойников", limit="10 мин")
            assert len(text) <= 40, (key, text)
            if key.startswith(("optionbutton.", "rolebutton.")):  # two share a row
                assert len(text) <= 20, (key, text)
