"""``scripts/run simulate``: what players would read (the bot's catalogs), bad arguments refused in one line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENGINE_WORDS = ("three_failures", "(good)", "(evil)", "{'", "[{", "merlin", "'seat'", "None")


def simulate(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "scripts/simulate.py", *args], cwd=REPO, input=stdin, capture_output=True,
                          text=True, timeout=120)


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
    (["--roles", "merlin,nobody"], "unknown character 'nobody'"),
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
    out = " ".join(simulate("--help").stdout.split())
    for value in ("5-10", "avalon", "resistance", "en", "fr", "merlin (Merlin)", "morgana (Morgana)", "percival"):
        assert value in out, value
