"""Players never see raw data: whole games with every character and module (and random legal set-ups
of every combination), in every language, through the bot; every text the group and each player was
shown (messages, their edits, buttons, answers to presses, /status) is checked for Python values
("None", "True", "[]", "{'"...), engine ids ("strong_leader", "good_rogue"...) and unfilled blanks
("{name}"), in another language than English for English sentences and catalog keys; the board, edited in
place all game, stays short; and a text never points at buttons that are not there: the line that tells
the team to play its card with the buttons below stands only in a message that carries the card buttons
(a quest that opens after other decisions, the last card in, a Plot card's news in between).

Each game is played once and every check reads it (one test per set-up and language).
"""
from __future__ import annotations

import functools
import html
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from gamebot.language import texts
from tests.catalog_check import english_fragments
from tests.reliability.support import SETUPS
from tests.reliability.transcripts import Shown, play, shown
from tests.unit.audit_helpers import random_setup
from tests.unit.gamebot_fakes import GROUP

LANGS = tuple(texts.languages())
RAW = {
    "None": re.compile(r"\bNone\b"),
    "True/False": re.compile(r"\b(True|False)\b"),
    "a list or a dict": re.compile(r"\[\]|\{\}|\[['\"]|\{['\"]|['\"]\]|['\"]\}"),
    "an engine id": re.compile(r"\b[a-z]+_[a-z0-9_]+\b"),
    "an unfilled blank": re.compile(r"\{[A-Za-z_]+\}"),
}
TAG = re.compile(r"<[^>]+>")
URL = re.compile(r"(https?|tg)://\S+")
BOARD_LIMIT = 1200  # characters, with 10 players and every module (Telegram's limit is 4096)


@functools.cache
def _names_with_raw_words() -> list[str]:
    """Names from the catalogs that happen to contain such words ("Show Your True Nature")."""
    found = set()
    for lang in texts.languages():
        for key, entry in texts.catalog(lang).messages.items():
            if key.startswith(("plot.", "card.", "role.", "choice.", "module.", "kind.")):
                for name in entry.values() if isinstance(entry, dict) else [entry]:
                    if any(p.search(name) for p in RAW.values()):
                        found.add(name)
    return sorted(found, key=len, reverse=True)


@functools.cache
def _names_pattern() -> re.Pattern[str]:
    """Those names as one pattern, the longest first (one pass over a text instead of one per name)."""
    return re.compile("|".join(re.escape(name) for name in _names_with_raw_words()))


@functools.lru_cache(maxsize=4096)  # (a game shows the same board and prompts again and again)
def raw_bits(text: str) -> list[str]:
    """What in ``text`` (Telegram HTML) looks like data rather than words for people."""
    visible = _names_pattern().sub("", html.unescape(TAG.sub("", URL.sub("", text))))
    return [f"{what}: {m.group(0)!r}" for what, pattern in RAW.items() for m in pattern.finditer(visible)]


def _problems(seen: list[Shown]) -> list[str]:
    return sorted({f"{bits} in [{s.tag}] {s.text[:300]!r}" for s in seen if (bits := raw_bits(s.text))})


@dataclass(frozen=True)
class Game:
    """What a whole game showed: every text, and each group message's texts in order with whether it
    carries buttons now."""

    shown: list[Shown]
    group: list[tuple[list[str], bool]]


def _game(setup: str, lang: str, seed: int = 1) -> Game:
    h = play(SETUPS[setup], seed=seed, lang=lang, status_every=60)
    try:
        seen = shown(h)
        assert any("🏁" in s.text for s in seen if s.chat == GROUP), "the game did not end"
        return Game(seen, [(list(m.history), bool(m.keyboard)) for m in h.io.chat(GROUP)])
    finally:
        h.close()


def test_the_checker_finds_python_values_and_ids():
    assert raw_bits("Excalibur: holder: None; uses: []") == ["None: 'None'", "a list or a dict: '[]'"]
    assert raw_bits("hands: [['strong_leader'], []]; Open votes: {}") != []
    assert raw_bits("Lead locked: False") == ["True/False: 'False'"]
    assert raw_bits("⏳ Waiting for: {who}") == ["an unfilled blank: '{who}'"]
    assert raw_bits("🃏 Alice uses <b>Show Your True Nature</b> on <a href=\"tg://user?id=1\">Bob</a>.") == []
    assert raw_bits("Join: https://t.me/TestBot?start=j_1_abc") == []


@functools.cache
def _fragments(lang: str) -> list[str]:
    return sorted(english_fragments(lang), key=len, reverse=True)


def english_bits(text: str, lang: str) -> list[str]:
    """The English catalog sentences (three words or more) that ``text`` of ``lang`` shows."""
    visible = html.unescape(TAG.sub("", text))
    return [piece for piece in _fragments(lang) if piece in visible]


def test_the_english_finder_finds_english_sentences_only():
    assert english_bits("🗳 Vote terminé. Still to vote: Alice", "fr") == ["Still to vote"]
    assert english_bits(texts.t("lobby.joined", "fr"), "fr") == []


@pytest.mark.parametrize("seed", range(8))
def test_no_message_shows_python_values_or_engine_ids_in_random_setups(seed):
    """Random legal combinations of every character, module, option and variant, 5 to 10 players."""
    rng = random.Random(seed)
    config = None
    while config is None:
        config = random_setup(rng)
    setup = (config.theme.value, config.players, list(config.roles), dict(config.options))
    h = play(setup, seed=seed, lang=LANGS[seed % 2], status_every=80)
    try:
        seen = shown(h)
        assert any("🏁" in s.text for s in seen if s.chat == GROUP), "the game did not end"
        assert _problems(seen) == [], setup
    finally:
        h.close()


@pytest.mark.parametrize("lang", LANGS)
def test_timeouts_reminders_and_defaults_are_sentences(lang):
    """A player who never acts, with every module: reminders, timeouts and defaults are shown."""
    h = play(SETUPS["messengers_liars"], seed=3, lang=lang, absent=4)
    try:
        seen = shown(h)
        assert any("⏰" in s.text for s in seen if s.chat == GROUP)
        assert _problems(seen) == []
    finally:
        h.close()


def _foreign(seen: list[Shown], lang: str) -> list[str]:
    """English sentences and catalog keys ("lobby.joined") in the texts of a game in ``lang``."""
    if lang == "en":
        return []
    keys = set(texts.catalog("en").messages)
    found = set()
    for s in seen:
        found |= {f"English {bit!r} in [{s.tag}] {s.text[:200]!r}" for bit in english_bits(s.text, lang)}
        found |= {f"raw key {w!r} in [{s.tag}]" for w in re.findall(r"[a-z_]+\.[a-z_.]+", s.text) if w in keys}
    return sorted(found)


def _long_boards(seen: list[Shown]) -> list[str]:
    """Versions of the board longer than ``BOARD_LIMIT`` characters or 14 lines (and a complaint if the
    board was shown fewer than 5 times: progress edits are coalesced under the group's budget)."""
    # (the first version of the board opens with the start's announcements: the board is what follows)
    boards = [s.text.rpartition("\n\n📜 ")[2] for s in seen if s.chat == GROUP and s.tag == "board"]
    if len(boards) < 5:
        return [f"the board was shown {len(boards)} times"]
    return [b for b in boards if len(b) > BOARD_LIMIT or len(b.split("\n")) > 14]


def _pointing_without_buttons(game: Game, theme: str, lang: str) -> tuple[int, list[str]]:
    """How many group texts told the team to play with the buttons below, and those of them that stand
    (now, as the message's latest text) in a message without buttons."""
    line = texts.t("quest.play_below", lang, theme)
    pointed, bare = 0, []
    for history, buttons in game.group:
        pointed += sum(1 for text in history if line in text)
        if history and line in history[-1] and not buttons:
            bare.append(history[-1])
    return pointed, bare


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_every_text_of_a_game_reads_as_words_with_every_character_and_module(setup, lang):
    game = _game(setup, lang)
    assert len(game.shown) > 200
    assert _problems(game.shown) == []  # Python values, engine ids, unfilled blanks
    assert _foreign(game.shown, lang) == []
    assert _long_boards(game.shown) == []
    pointed, bare = _pointing_without_buttons(game, SETUPS[setup][0], lang)
    assert bare == []
    assert pointed >= 3  # (quests were played)


def test_only_the_line_made_for_it_points_at_buttons_below():
    """In English, the one sentence that says "the buttons below" is the card line drawn with the buttons."""
    catalog = json.loads((Path(texts.LOCALES_DIR) / "en.json").read_text())["messages"]
    entries = {key: value for section in catalog.values() for key, value in section.items()}
    pointing = sorted(key for key, value in entries.items()
                      if "buttons below" in json.dumps(value) or "button below" in json.dumps(value))
    assert pointing == ["quest.play_below"]
