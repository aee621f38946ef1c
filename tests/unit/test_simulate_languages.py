"""``scripts/run simulate --lang xx --seat N``: everything a person playing a seat reads in the terminal is in
their language. Whole games in every language but English, a seat answering each decision as a person would
(a wrong answer first, passing now and then) with Targeting, Excalibur, Plot cards, the Trapper, the Lady of
the Lake, Lancelot, the Messengers, the Sorcerers, the Rogues, The Resistance...; the output must hold no stretch of
English catalog text (``catalog_check.english_fragments``) and no English word the language's catalog does
not use (the names the script would make up for a prompt's data: "Sizes", "Attempt"...)."""
from __future__ import annotations

import builtins
import importlib.util
import re
from functools import cache
from pathlib import Path
from typing import get_type_hints

import pytest

from engine.event_types import PROMPTS
from gamebot.language import plurals, texts
from tests.catalog_check import PROPER, english_fragments, templates

REPO = Path(__file__).resolve().parents[2]
LANGS = [lang for lang in texts.languages() if lang != "en"]
WORD = re.compile(r"[^\W\d_]{2,}")
TAG = re.compile(r"<[^>]+>")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")

GAMES = {  # the options, and the games played: (seed, the seat typed), chosen for the decisions they bring
    "targeting, excalibur, plot cards, trapper, lady, lancelot": (
        ["--players", "8", "--roles", "merlin,assassin,good_lancelot,evil_lancelot", "--lancelot", "french_predealt",
         "--excalibur", "--plot-cards", "--trapper", "--targeting", "--lady"], [(0, 1), (0, 3), (0, 4), (1, 7)]),
    "a team for the quest in play, percival, lady": (
        ["--players", "7", "--roles", "merlin,assassin,percival,morgana", "--lady", "--blind-spies"], [(2, 1), (2, 5)]),
    "messengers, sorcerers, cleric, revealer": (
        ["--players", "10", "--roles", "merlin,assassin,cleric,good_messenger,good_messenger,evil_messenger,"
         "good_sorcerer,evil_sorcerer,revealer", "--senior-junior-messengers", "--sorcerer-hidden"], [(4, 1), (4, 9)]),
    "rogues, trickster, untrustworthy servant, troublemaker, lady": (
        ["--players", "9", "--roles", "merlin,assassin,untrustworthy_servant,trickster,good_rogue,evil_rogue,troublemaker",
         "--lady"], [(2, 1), (2, 6), (6, 6)]),
    "the resistance with plot cards and targeting": (
        ["--theme", "resistance", "--players", "6", "--plot-cards", "--targeting"], [(6, 1), (6, 3)]),
}
DECISIONS = {"propose", "vote", "play", "give_excalibur", "excalibur", "trap", "lady", "plot_deal", "assassinate",
             "assassin_target", "loyalty_card", "recruit", "watch"}


def load_simulate():
    spec = importlib.util.spec_from_file_location("simulate_languages", REPO / "scripts" / "simulate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIM = load_simulate()


def catalog_text(lang: str) -> str:
    catalog = texts.catalog(lang)
    entries = [t for entry in catalog.messages.values() for t in templates(entry)]
    entries += [w for words in catalog.vocab.values() for w in words.values()]
    text = " ".join(TAG.sub(" ", plurals.flatten(t)) for t in entries)
    while PLACEHOLDER.search(text):  # (the words read, not the names of the blanks: "{Quest}" in any language)
        text = PLACEHOLDER.sub(" ", text)
    return text


@cache
def english_words(lang: str) -> frozenset[str]:
    """Words of the English catalog (and the names of a prompt's data the script could show, ``sizes`` ->
    "Sizes") that ``lang``'s catalog never uses, besides proper names and the players' names."""
    words = set(WORD.findall(catalog_text("en")))
    declared = {key for kind in PROMPTS.values() for info in kind for key in get_type_hints(info)}
    words |= set(WORD.findall(" ".join(texts.humanize(key).title() for key in declared)))  # "Sizes", "Attempt"
    words |= {"Round", "Team", "Quest", "Players", "Seed", "Selected", "Choose", "Leader"}
    return frozenset(words - set(WORD.findall(catalog_text(lang))) - PROPER - set(SIM.NAMES))


def play(monkeypatch, capsys, lang: str, options: list[str], seed: int, seat: int) -> tuple[str, set[str]]:
    """One game with ``seat`` typed: its output (stdout and stderr) and the kinds of decision it met. The
    first answer is a wrong one, so the script's "type ... from the list" is printed too."""
    shown: dict = {"answers": 0, "wrong": True}
    kinds: set[str] = set()
    real_numbered = SIM.numbered

    def numbered(table, p):
        shown["prompt"], shown["items"] = p, real_numbered(table, p)
        return shown["items"]

    def typed(prompt: str) -> str:
        print(prompt)  # (what the terminal shows before the answer)
        shown["answers"] += 1
        if shown["answers"] > 500:
            raise EOFError  # (answers the script never takes: the game is abandoned and the test fails)
        if shown.pop("wrong", False):  # (the script asks again: ``simulate.retry``, with this hint)
            shown["hint"] = prompt.strip().removeprefix("[").removesuffix("]>")
            return "0"
        p, items = shown["prompt"], shown["items"]
        kinds.add(p.kind)
        index = {what: [i + 1 for i, item in enumerate(items) if item[0] == what]
                 for what in ("quest", "target", "choice", "pass")}
        if index["pass"] and shown["answers"] % 3 == 0:
            return str(index["pass"][0])
        picks = index["quest"][-1:]
        size = int((p.info.get("sizes") or {}).get(str(items[picks[0] - 1][1]), p.pick)) if picks else p.pick
        picks += index["target"][:size] + index["choice"][:1]
        return " ".join(str(n) for n in picks)

    monkeypatch.setattr(SIM, "numbered", numbered)
    monkeypatch.setattr(builtins, "input", typed)
    code = SIM.main(["--lang", lang, "--seed", str(seed), "--seat", str(seat), *options])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert texts.t("simulate.retry", lang, answer=shown["hint"]) in captured.out
    return captured.out + captured.err, kinds


def english_in(out: str, lang: str) -> list[str]:
    fragments = sorted(f for f in english_fragments(lang) if f in out)
    words = sorted(set(WORD.findall(out)) & english_words(lang))
    lines = [line for line in out.splitlines() if any(re.search(rf"\b{re.escape(w)}\b", line) for w in words)]
    return fragments + lines


@pytest.mark.parametrize("lang", LANGS)
def test_a_person_playing_a_seat_reads_no_english(monkeypatch, capsys, lang):
    met: set[str] = set()
    for name, (options, games) in GAMES.items():
        for seed, seat in games:
            out, kinds = play(monkeypatch, capsys, lang, options, seed, seat)
            met |= kinds
            assert not english_in(out, lang), (name, seed, seat, english_in(out, lang))
    assert DECISIONS <= met, DECISIONS - met  # (the decisions the games above bring, each printed)
    assert any(kind.startswith("plot_") and kind != "plot_deal" for kind in met), met


def test_the_check_finds_english():
    """The check above is not blind: the English of a prompt's data, an English sentence of the catalog."""
    assert english_in("  Sizes: 0: 2\n  Attempt: 1", "pt")
    assert english_in(texts.t("simulate.retry", "en", answer="1"), "pt")
    assert not english_in(texts.t("simulate.retry", "pt", answer="1"), "pt")
