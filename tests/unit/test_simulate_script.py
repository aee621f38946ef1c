"""``scripts/run simulate``: what players would read (the bot's catalogs), its own lines in the chosen language,
every module offered and playable by typed numbers, bad arguments refused in one line."""
from __future__ import annotations

import functools
import importlib.util
import io
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from gamebot.language import texts

REPO = Path(__file__).resolve().parents[2]
FIVE = "1. Walter, 2. Thomas, 3. Laura, 4. Evie, 5. Justin"
ENGINE_WORDS = ("three_failures", "(good)", "(evil)", "{'", "[{", "merlin", "'seat'", "None")


def simulate_process(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``scripts/simulate.py`` run as a program, in a Python of its own."""
    return subprocess.run([sys.executable, "scripts/simulate.py", *args], cwd=REPO, input=stdin, capture_output=True,
                          text=True, timeout=120)


def simulate(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The script's command line run in this process: its ``main`` with a standard input, output and error
    of its own (what the program does, without a Python start-up per test; ``simulate_process`` checks that
    the file runs as a program)."""
    module = load_simulate()
    out, err, saved = io.StringIO(), io.StringIO(), sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = module.main(list(args))
            except SystemExit as exc:  # (argparse: --help, a refused argument)
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(["scripts/simulate.py", *args], code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(("lang", "over"), [("en", "Game over"), ("fr", "Fin de la partie")])
def test_a_bot_game_prints_what_the_players_would_read(lang, over):
    run = simulate("--seed", "3", "--players", "7", "--lady", "--roles", "merlin,assassin,percival,morgana",
                   "--lang", lang)
    assert run.returncode == 0, run.stderr
    assert over in run.stdout
    for word in ENGINE_WORDS:
        assert word not in run.stdout, word


def test_your_seat_gets_its_role_card_and_prompts_in_words():
    run = simulate("--seed", "3", "--seat", "1", stdin="1\n" * 200 + "1 2\n" * 50)
    assert "Your secret role" in run.stdout and "What you know" in run.stdout
    assert "1. ✅ Approve" in run.stdout
    for word in ENGINE_WORDS:
        assert word not in run.stdout, word


@pytest.mark.parametrize(("args", "reason"), [
    (["--players", "4"], "--players must be 5 to 10"),
    (["--roles", "merlin,nobody"], "unknown character “nobody”"),
    (["--seat", "9"], "--seat must be 1 to 5"),
    (["--players", "5", "--lady", "--roles", "merlin,assassin,mordred,morgana,oberon"], "Evil"),
])
def test_bad_arguments_are_refused_with_a_one_line_reason(args, reason):
    run = simulate(*args)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert reason in run.stderr.strip().splitlines()[-1], run.stderr


def test_ctrl_d_at_a_prompt_ends_without_a_traceback():
    run = simulate("--seed", "3", "--seat", "1", stdin="")
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_help_lists_the_option_values():
    run = simulate_process("--help")  # (the file as a program: its imports and its path to the engine)
    assert run.returncode == 0, run.stderr
    out = " ".join(run.stdout.split())
    for value in ("5-10", "avalon", "resistance", "en", "fr", "merlin (Merlin)", "morgana (Morgana)", "percival"):
        assert value in out, value


@functools.cache
def load_simulate():
    spec = importlib.util.spec_from_file_location("simulate_script", REPO / "scripts" / "simulate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["pt-BR", "pt", "PT-br", "pt_BR"])
def test_the_readmes_language_names_are_accepted_in_any_case(name):
    run = simulate("--seed", "3", "--lang", name)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(texts.t("simulate.seed", "pt", seed=3, players=FIVE)), run.stdout[:200]
    titles = [re.sub(r"<[^>]+>", "", texts.t(f"end.title.{side}", "pt")) for side in ("good", "evil")]
    assert any(title in run.stdout for title in titles), run.stdout[-300:]


def test_an_unknown_language_is_refused_naming_the_languages():
    run = simulate("--lang", "xx")
    assert run.returncode == 2
    assert "pt-BR" in run.stderr and "'xx'" in run.stderr


@pytest.mark.parametrize("lang", texts.languages())
def test_its_own_lines_speak_the_chosen_language(lang):
    """Seat 1's first decision in this game is a vote: one number (a refused answer, then Ctrl-D)."""
    run = simulate("--seed", "3", "--seat", "1", "--lang", lang, stdin="0\n")
    number = texts.t("simulate.answer.number", lang)
    assert run.stdout.startswith(texts.t("simulate.seed", lang, seed=3, players=FIVE))
    assert f"[{number}]> " in run.stdout
    assert texts.t("simulate.retry", lang, answer=number) in run.stdout
    assert run.returncode == 1 and run.stderr.strip() == texts.t("simulate.abandoned", lang)
    if lang != "en":
        for english in ("Players:", "a number", "Type ", "Game abandoned", "(private)"):
            assert english not in run.stdout + run.stderr, english


def test_help_offers_every_module_and_the_lancelot_variants():
    out = " ".join(simulate("--help").stdout.split())
    for flag in ("--excalibur", "--plot-cards", "--trapper", "--lady", "--targeting", "--blind-spies",
                 "--senior-junior-messengers", "--sorcerer-hidden"):
        assert flag in out, flag
    for variant in ("bigbox_switch", "classic_switch", "bigbox_predealt", "french_predealt"):
        assert variant in out, variant


MODULES = ["--players", "8", "--roles", "merlin,assassin,good_lancelot,evil_lancelot", "--lancelot", "french_predealt",
           "--excalibur", "--plot-cards", "--trapper", "--targeting", "--lady"]


def test_a_bot_game_with_excalibur_plot_cards_trapper_and_lancelot_runs_to_its_end():
    run = simulate("--seed", "4", *MODULES)
    assert run.returncode == 0, run.stderr
    for word in ("Excalibur", "Plot", "Allegiance", "Lady of the Lake", "Game over"):
        assert word in run.stdout, word
    for word in ENGINE_WORDS:
        assert word not in run.stdout, word


def test_a_person_answers_every_kind_of_decision_with_numbers(monkeypatch, capsys):
    """Seat 1 played by typed numbers (first a wrong answer each time, then what a person would type from
    the numbered list) through whole games with every module: quest and team together (Targeting),
    a card and a player together (dealing Plot cards), passing, Excalibur, the Trapper..."""
    sim = load_simulate()
    shown: dict = {}
    real_numbered = sim.numbered

    def numbered(table, p):
        shown["prompt"], shown["items"] = p, real_numbered(table, p)
        shown["wrong"] = True
        return shown["items"]

    def typed(_prompt: str) -> str:
        shown["answers"] = shown.get("answers", 0) + 1
        if shown["answers"] > 2000:
            raise EOFError  # (an answer the script never takes: the game is abandoned and the test fails)
        if shown.pop("wrong", False):
            return "0"
        p, items = shown["prompt"], shown["items"]
        index = {what: [i + 1 for i, item in enumerate(items) if item[0] == what] for what in ("quest", "target", "choice", "pass")}
        if index["pass"] and shown["answers"] % 3 == 0:
            return str(index["pass"][0])
        picks = index["quest"][-1:]
        size = int((p.info.get("sizes") or {}).get(str(items[picks[0] - 1][1]), p.pick)) if picks else p.pick
        picks += index["target"][:size] + index["choice"][:1]
        kinds.add((p.kind, bool(p.quests), bool(p.pick and p.choices), bool(p.optional)))
        return " ".join(str(n) for n in picks)

    kinds: set = set()
    monkeypatch.setattr(sim, "numbered", numbered)
    monkeypatch.setattr("builtins.input", typed)
    for seed in range(6):
        shown.clear()
        assert sim.main(["--seed", str(seed), "--seat", "1", *MODULES]) == 0
        out = capsys.readouterr().out
        assert "Game over" in out and texts.t("simulate.retry", "en", answer=texts.t("simulate.answer.number")) in out
    answered = {kind for kind, *_ in kinds}
    assert {"propose", "vote", "plot_deal", "give_excalibur", "trap", "lady"} <= answered, kinds
    assert ("propose", True, False, False) in kinds  # a quest and its team
    assert ("plot_deal", False, True, False) in kinds  # a card and the player who receives it


@pytest.mark.parametrize("seed", ["4", "5"])
def test_every_vote_follows_the_line_that_proposes_its_team_even_with_excalibur(seed):
    """The team is named before its votes, also when the Leader gives Excalibur between the proposal and the
    vote (the proposal's line used to be printed only when the vote opened in the same step)."""
    run = simulate("--seed", seed, "--players", "7", "--excalibur")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    votes = [i for i, line in enumerate(lines) if line.startswith("🗳 Votes")]
    assert votes
    for i in votes:
        since = lines[max(j for j in range(i) if lines[j].startswith(("🔔", "👍", "👎")) or j == 0):i]
        assert any(" proposes " in line for line in since), lines[i - 4 : i + 1]
        given = [k for k, line in enumerate(since) if "gives Excalibur" in line]
        assert all(k > next(j for j, line in enumerate(since) if " proposes " in line) for k in given), since
