"""Players never see raw data: whole games with every character and module (and random legal set-ups
of every combination), in English and in French, through the bot; every text the group and each player
was shown (messages, their edits, buttons, answers to presses, /status) is checked for Python values
("None", "True", "[]", "{'"...), engine ids ("strong_leader", "good_rogue"...) and unfilled blanks
("{name}"), and the board, edited in place all game, stays short.
"""
from __future__ import annotations

import functools
import html
import random
import re

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


@functools.cache
def _game(setup: str, lang: str, seed: int = 1) -> list[Shown]:
    h = play(SETUPS[setup], seed=seed, lang=lang, status_every=60)
    try:
        assert any("🏁" in s.text for s in shown(h) if s.chat == GROUP), "the game did not end"
        return shown(h)
    finally:
        h.close()


def test_the_checker_finds_python_values_and_ids():
    assert raw_bits("Excalibur: holder: None; uses: []") == ["None: 'None'", "a list or a dict: '[]'"]
    assert raw_bits("hands: [['strong_leader'], []]; Open votes: {}") != []
    assert raw_bits("Lead locked: False") == ["True/False: 'False'"]
    assert raw_bits("⏳ Waiting for: {who}") == ["an unfilled blank: '{who}'"]
    assert raw_bits("🃏 Alice uses <b>Show Your True Nature</b> on <a href=\"tg://user?id=1\">Bob</a>.") == []
    assert raw_bits("Join: https://t.me/TestBot?start=j_1_abc") == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_no_message_shows_python_values_or_engine_ids_with_every_character_and_module(setup, lang):
    seen = _game(setup, lang)
    assert len(seen) > 200
    assert _problems(seen) == []


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


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_no_message_shows_english_or_a_raw_key_in_another_language(setup, lang):
    """Every character and module: each text of a game in ``lang`` is free of English sentences and of
    catalog keys ("lobby.joined")."""
    keys = set(texts.catalog("en").messages)
    found = set()
    for s in _game(setup, lang):
        found |= {f"English {bit!r} in [{s.tag}] {s.text[:200]!r}" for bit in english_bits(s.text, lang)}
        found |= {f"raw key {w!r} in [{s.tag}]" for w in re.findall(r"[a-z_]+\.[a-z_.]+", s.text) if w in keys}
    assert sorted(found) == []


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


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_the_board_stays_short_with_ten_players_and_every_module(setup, lang):
    # (the first version of the board opens with the start's announcements: the board is what follows)
    boards = [s.text.rpartition("\n\n📜 ")[2] for s in _game(setup, lang) if s.chat == GROUP and s.tag == "board"]
    assert len(boards) >= 5  # (progress edits are coalesced under the group's budget)
    longest = max(boards, key=len)
    assert len(longest) <= BOARD_LIMIT, longest
    assert all(len(b.split("\n")) <= 14 for b in boards), longest
