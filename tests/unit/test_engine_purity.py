"""The engine is pure and deterministic: no I/O, no clock, no global randomness, and a game replays to the
same state from its configuration, seed and log, in this interpreter or in a fresh one with another
string-hash seed (so no outcome depends on set or dict ordering of strings)."""
from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
from pathlib import Path

from engine import GameConfig, new_game, replay
from engine.policy import play_to_end

ENGINE = Path(__file__).resolve().parents[2] / "shared" / "engine"
ROOT = ENGINE.parents[1]
# Standard-library and third-party modules the engine may import: data structures and typing only.
ALLOWED_IMPORTS = {
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "importlib",  # plug-in discovery (engine.plugin.load_plugins)
    "itertools",
    "math",
    "pkgutil",
    "pydantic",
    "random",  # only random.Random, seeded from the game state (engine.rng) or passed in (bots)
    "typing",
}
FORBIDDEN_CALLS = {"open", "print", "input", "eval", "exec", "__import__", "breakpoint"}

# Many characters and modules at once, with Plot cards, on 10 players.
CONFIG = GameConfig(
    players=10,
    roles=(
        "merlin", "percival", "untrustworthy_servant", "good_messenger", "good_messenger", "good_lancelot",
        "assassin", "morgana", "evil_messenger", "evil_lancelot",
    ),
    options={
        "lancelot": "french_predealt", "lady_of_the_lake": True, "excalibur": True, "plot_cards": True,
        "targeting": True, "senior_junior_messengers": True,
    },
)
SEED = 20240611
SCRIPT = """
import random, sys
from engine import GameConfig, new_game
from engine.policy import play_to_end
config = GameConfig.model_validate_json(sys.argv[1])
state, _ = new_game(config, int(sys.argv[2]))
print(play_to_end(state, random.Random(int(sys.argv[2]))).to_json())
"""


def _engine_files() -> list[Path]:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 40
    return files


def test_engine_imports_no_io_clock_or_network_module():
    found: dict[str, set[str]] = {}
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(path.name)
    assert set(found) <= ALLOWED_IMPORTS, {k: v for k, v in found.items() if k not in ALLOWED_IMPORTS}


def test_engine_calls_no_io_builtin_and_no_global_random():
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name):
                assert func.id not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {func.id}"
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "random":
                assert func.attr == "Random", f"{path.name}:{node.lineno} uses the global random.{func.attr}"


def test_a_game_replays_to_the_same_state_from_its_seed_and_log():
    state, _ = new_game(CONFIG, SEED)
    final = play_to_end(state, random.Random(SEED))
    assert final.over and len(final.log) > 20
    assert replay(CONFIG, SEED, final.log) == final
    again, _ = new_game(CONFIG, SEED)
    assert play_to_end(again, random.Random(SEED)) == final


def test_a_game_is_the_same_in_a_fresh_interpreter_with_another_hash_seed():
    state, _ = new_game(CONFIG, SEED)
    expected = play_to_end(state, random.Random(SEED)).to_json()
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": f"{ROOT / 'shared'}"}
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, CONFIG.model_dump_json(), str(SEED)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=True,
            timeout=120,
        )
        assert out.stdout.strip() == expected
