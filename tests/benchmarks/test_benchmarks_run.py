"""The benchmark scripts run in CI in their quick mode. Only that they run and produce numbers is
checked, never how fast anything is (timings belong in docs/BENCHMARKS.md, measured side by side).

Those that play in memory (requests, state size, group history) and the cold start (its runs are child
processes anyway) are called in this process at their smallest size: the function their command line
calls. The others run their command line in a subprocess: they change the process (environment
variables, loggers, a moto server of their own, instrumented classes) or compare trees in subprocesses;
the warm update benchmark's run is the one that proves a ``--quick --json`` command line works."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _run(script: str, tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--quick", "--json", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()
    return json.loads(out.read_text())


def _script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (it puts shared/ and scripts/ on the path itself)."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module(name)


def _positive(*values: float) -> bool:
    return all(isinstance(v, int | float) and v > 0 for v in values)


@pytest.fixture(scope="module")
def webhook_run(tmp_path_factory) -> tuple[dict, Path]:
    """One quick run of the warm update benchmark (its command line): its results and its rows, read by the
    tests below and by the Lambda benchmark's."""
    tmp = tmp_path_factory.mktemp("webhook")
    return _run("bench_webhook.py", tmp, "--rows", str(tmp / "rows.json")), tmp / "rows.json"


@pytest.fixture(scope="module")
def webhook(webhook_run) -> dict:
    return webhook_run[0]


@pytest.mark.slow
def test_the_warm_update_benchmark_runs_and_reports_ratios_calls_and_cost(webhook):
    r = webhook
    assert r["errors"] == 0 and r["updates"] > 20
    assert _positive(r["handler_ms_median"], r["floor_ms_median"], r["ratio_median"])
    vote, card = r["kinds"]["vote"], r["kinds"]["quest card"]
    assert vote["count"] and card["count"] and _positive(vote["bot_calls_mean"], card["wru_mean"])
    game = next(iter(r["games"].values()))
    assert _positive(game["usd_total"], game["gb_s"], game["rru"], game["wru"])


@pytest.mark.slow
def test_the_warm_update_benchmark_reports_the_physical_floor_the_busiest_minute_capacity_and_both_costs(webhook):
    r = webhook
    assert _positive(r["rtt_ms"], r["dynamo_ms"], r["budget_per_minute"])
    for kind in ("team: pick", "vote", "quest card", "last vote"):
        k = r["kinds"][kind]
        assert _positive(k["count"], k["handler_ms_median"], k["floor_ms_median"], k["ratio"], k["cpu_ms_median"])
    assert _positive(r["kinds"]["last vote"]["chain_mean"], r["kinds"]["team: pick"]["bot_calls_mean"])
    game = next(iter(r["games"].values()))
    assert game["players"] == 5 and _positive(r["busiest_minute"]["5 players"], game["busiest_minute"])
    assert _positive(game["bot_calls"], game["sends_edits"], game["capacity_games"], game["floor_s"])
    assert game["notes"] >= 0  # (a refused press's note; a delivery writes nothing between its calls)
    assert _positive(game["usd_total_function_url"], game["same_model"]["usd_total"], game["same_model"]["gb_s"])
    assert game["usd_total"] > game["usd_total_function_url"]  # the HTTP API's requests are the difference
    assert _positive(*(game["usd"][part] for part in ("lambda_duration", "lambda_requests", "http_api",
                                                      "dynamodb_reads", "dynamodb_writes")))


@pytest.mark.slow
def test_the_warm_update_benchmark_times_the_end_of_a_games_text_against_its_floor(webhook):
    e = webhook["end_text"]
    assert e["count"] == 1 and _positive(e["text_ms_median"], e["floor_ms_median"], e["ratio_median"])


@pytest.mark.slow
def test_the_requests_per_move_benchmark_counts_reads_writes_and_notes_per_update_type():
    """Five of --quick's 23 set-ups: each module set-up with 5 players, every module with 10, a Big Box one."""
    only = ["5p base", "5p base + Lady", "5p every module", "10p every module", "10p Big Box resistance"]
    r = _script("bench_requests").run([1], only)
    assert {row["setup"] for row in r["rows"]} == set(only)
    kinds = r["summary"]
    assert {"start game", "vote", "last card", "end of game"} <= set(kinds)
    assert kinds["start game"]["reads_max"] == 1 and kinds["vote"]["writes_max"] == 1
    assert all(row["reads"] >= 0 and row["kind"] for row in r["rows"])


@pytest.mark.slow
def test_the_cold_start_benchmark_runs_and_reports_a_ratio():
    r = _script("bench_coldstart").run(1, importtime=False)  # (one run of each: --quick has three)
    assert _positive(r["handler_ms"], r["baseline_ms"], r["ratio"], r["handler_wall_ms"], r["baseline_wall_ms"],
                     r["baseline_model_ms"], r["ratio_model"])


@pytest.mark.slow
def test_the_state_size_benchmark_runs_and_reports_sizes():
    r = _script("bench_state_size").run(1, ["base", "resistance"])  # (--quick: a game of each of the six set-ups)
    assert r["games"] == 2 and _positive(r["max_bytes"], r["json_bytes"])
    assert r["breakdown"] and set(r["setups"]) == {"base", "resistance"}


@pytest.mark.slow
def test_the_timeline_shows_where_a_press_spends_its_time(tmp_path):
    """(The order of the marks, not their times: the read, then the engine's move and the messages of a
    vote, then its write.)"""
    r = _run("bench_timeline.py", tmp_path)
    for kind in ("vote", "quest card"):
        marks = r[kind]["marks"]
        read = marks.index("read:out")
        for step in ("engine move:out", "messages of the move:out"):
            assert read < marks.index(step) < marks.index("write:in"), (kind, step)
        assert all(s["ms"] >= 0 for s in r[kind]["steps"])


@pytest.mark.slow
def test_the_group_history_benchmark_runs_and_reports_what_a_vote_writes():
    """Smaller than --quick (1,000 subscribers, 100 games): still more subscribers than one delivery tells."""
    from gamebot.handlers.nextgame import BATCH

    subscribers, games = 2 * BATCH, 20
    r = _script("bench_group_history").run(subscribers, games)
    assert (r["games"], r["subscribers"], r["idle_players"]) == (games, subscribers, 10 * games)
    assert 0 < r["vote_max_bytes"] < r["target_bytes"] and not r["has_history_fields"]
    assert r["subscribers_waiting"] == subscribers and _positive(r["subscriber_item_max_bytes"], r["chat_stats_bytes"])
    assert r["told_once"] == subscribers and r["told_twice_or_more"] == 0 and r["deliveries_to_tell"] >= 2


def test_the_vote_cpu_benchmark_reports_every_piece_and_the_critical_path(tmp_path):
    r = _run("bench_vote_cpu.py", tmp_path)
    assert {"env", "decode", "engine", "decide", "encode", "observed", "press", "critical"} <= set(r)
    assert _positive(*(times["this"] for times in r.values()))
    assert r["critical"]["this"] > r["decide"]["this"]


@pytest.mark.slow
def test_the_lambda_benchmark_scales_cpu_to_each_memory_size_and_prices_a_game(webhook_run, tmp_path):
    """On the rows of the warm update benchmark's quick game (``--rows``: its own run would play that same
    game again)."""
    _script("bench_lambda").main(["--quick", "--rows", str(webhook_run[1]), "--json", str(tmp_path / "result.json")])
    r = json.loads((tmp_path / "result.json").read_text())
    vote = r["kinds"]["vote"]
    assert _positive(vote["count"], vote["cpu_ms_median"], vote["floor_ms_median"])
    # less CPU per second at less memory: never faster
    assert vote["ms_256_median"] >= vote["ms_512_median"] >= vote["ms_1024_median"] >= vote["ms_1769_median"] > 0
    (end,) = r["endings"]
    assert end["picture_by"] and _positive(end["cpu_ms"], end["picture_cpu_ms"])
    (game,) = r["memory"].values()
    assert set(game) == {"256", "512", "1024", "1769"}
    assert _positive(*(game[mb]["usd_game"] for mb in game))


@pytest.mark.slow
def test_the_ai_seats_benchmark_runs_every_set_up_and_match_up(tmp_path):
    # its smallest size: 4 games per set-up and match-up, in one process (the test runs beside others)
    out, games = tmp_path / "result.json", 4
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_ai_seats.py"), "--games", str(games),
                           "--jobs", "1", "--previous", "shared/engine/policy", "--json", str(out)],  # (no git history)
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip(), done.stderr[-3000:]
    r = json.loads(out.read_text())
    assert r["games"] == games and len(r["rows"]) == 9 * 7  # nine set-ups, seven match-ups
    for row in r["rows"]:
        assert row["games"] == games and 0 <= row["good_wins"] <= games
        assert row["hits"] <= row["assassinations"] <= row["three_quests"] <= row["games"]
        assert row["percent"]["good"] == f"{100 * row['good_wins'] / games:.1f}"
    sides = {(row["good_side"], row["evil_side"]) for row in r["rows"]}
    assert {("policy", "policy"), ("policy", "random"), ("random", "policy"), ("policy", "previous")} <= sides


def test_the_ai_seats_cost_benchmark_times_every_kind_of_decision_now_and_before(tmp_path):
    """``--cost --quick``: three self-play games each of 10p base and bigbox, every decision of the policy and
    of the previous one (here the same files: no git history needed) timed on the same view."""
    out = tmp_path / "cost.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_ai_seats.py"), "--cost", "--quick",
                           "--previous", "shared/engine/policy", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "slowest decision now" in done.stdout, done.stderr[-3000:]
    r = json.loads(out.read_text())
    assert r["mode"] == "cost" and r["games"] == 3
    assert {"propose", "vote", "play"} <= set(r["kinds"])
    for kind in r["kinds"].values():
        assert kind["decisions"] > 0
        assert 0 <= kind["now_median"] <= kind["now_p95"] <= kind["now_max"] <= r["slowest_ms"]
        assert 0 <= kind["previous_median"] <= kind["previous_max"]


def test_the_staleness_benchmark_runs_both_trees_and_the_webhook_never_waits_after(tmp_path):
    """Its quick run: the tables' rows for every set-up, before (4cd6f81, when git has it) and after, the
    accepted presses split into those with the group's budget's room and those while it was full; after,
    no webhook invocation sleeps (nothing waits for the bots), before, the one with bots did (core/pacing)."""
    before = subprocess.run(["git", "cat-file", "-e", "4cd6f81^{commit}"], cwd=ROOT, capture_output=True).returncode == 0
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_staleness.py"), "--quick", "--json", str(out),
                           *(() if before else ("--before", "none"))],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    r = json.loads(out.read_text())
    trees = ("before", "after") if before else ("after",)
    for setup in ("people", "3 people + 2 bots", "practice (1 + 6 bots)"):
        for tree in trees:
            assert done.stdout.count(f"| {setup} | {tree} |") == 4, (setup, tree)  # staleness, targets, held, GB-s
            s = r["setups"][tree][setup]
            assert s["games"] == 1 and s["accepted"] > 0 and _positive(s["gb_s"], s["webhooks"])
            assert s["room_presses"] + s["full_presses"] == s["accepted"] - s["never_shown"], (setup, tree)
        after = r["setups"]["after"][setup]
        assert after["held_total"] == after["held_max"] == after["held_count"] == 0, setup
    assert r["setups"]["after"]["practice (1 + 6 bots)"]["full_presses"] == 0  # (a private table: no group budget)
    if before:
        assert r["setups"]["before"]["3 people + 2 bots"]["held_total"] > 0
