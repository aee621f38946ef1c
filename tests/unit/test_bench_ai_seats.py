"""scripts/bench_ai_seats.py: how games are counted, the previous policy it loads, and (counts on a small
seeded sample, no times) that the policy beats random legal play clearly on both sides (issue 30); its
``--exploit`` mode and the exploiters of scripts/exploiters.py (issue 39)."""
from __future__ import annotations

import copy
import random
import re

import pytest

from engine import GameConfig, actors, apply_action, legal_actions, new_game, policy
from engine.policy import play_to_end
from scripts import exploiters
from scripts.bench_ai_seats import (
    MATCHUPS,
    SELF,
    Tally,
    exploit_matchups,
    exploit_report,
    exploit_rows,
    gain,
    jobs,
    load_previous,
    main,
    outcome,
    play,
    random_player,
    setups,
    table,
    view_player,
)
from scripts.exploiters import EXPLOITERS


def test_the_set_ups_are_the_issue_s_nine():
    names = setups()
    assert sorted(names) == sorted(f"{n}p {kind}" for n in (5, 7, 10) for kind in ("base", "lady", "bigbox"))
    assert names["10p bigbox"].roles == ("merlin", "assassin", "percival", "morgana", "mordred", "oberon")
    assert names["5p lady"].options == {"lady_of_the_lake": True}


def test_every_row_gets_every_seed_once():
    work = jobs(["5p base", "7p lady"], games=600, chunk=250)
    for name in ("5p base", "7p lady"):
        for good, evil in MATCHUPS:
            seeds = [s for n, g, e, lo, hi in work if (n, g, e) == (name, good, evil) for s in range(lo, hi)]
            assert seeds == list(range(600))


def test_tallies_add_up_and_print_as_percentages():
    t = Tally(games=4, good=1, three_quests=2, assassinations=2, hits=1).add(Tally(games=1, good=1))
    assert t == Tally(games=5, good=2, three_quests=2, assassinations=2, hits=1)
    assert t.row() == {"good": "40.0", "evil": "60.0", "three": "40.0", "hit": "50.0", "survives": "50.0"}
    assert Tally(games=3).row()["hit"] == "-"  # no assassination: nothing to rate
    assert "| 5p base | policy | random | 5 | 40.0 | 60.0 |" in table({("5p base", "policy", "random"): t})


def test_an_assassination_is_counted_from_the_final_state():
    config = GameConfig(players=5, roles=("merlin", "assassin"))
    seen = {"hit": 0, "missed": 0, "none": 0}
    for seed in range(40):
        final = play_to_end(new_game(config, seed)[0], random.Random(seed))
        t = outcome(final)
        assert t.games == 1 and t.good == (final.winner.value == "good")
        if final.win_reason == "merlin_assassinated":
            seen["hit"] += 1
            assert (t.assassinations, t.hits, t.three_quests, t.good) == (1, 1, 1, 0)
        elif final.win_reason == "assassination_missed":
            seen["missed"] += 1
            assert (t.assassinations, t.hits, t.three_quests, t.good) == (1, 0, 1, 1)
        else:
            seen["none"] += 1
            assert (t.assassinations, t.hits, t.three_quests) == (0, 0, 0)
    assert all(seen.values()), seen


def test_the_previous_policy_is_loaded_from_its_files_and_plays():
    # from this checkout's own package folder (no git history needed: CI's checkout may have none); the
    # bench loads a commit's files the same way
    previous = load_previous("shared/engine/policy")
    assert previous.decide is not policy.decide
    final = play(setups()["5p base"], 3, view_player(previous), view_player(previous))
    assert final.over


def _good_wins(good, evil, config: GameConfig, games: int) -> int:
    return sum(outcome(play(config, seed, good, evil)).good for seed in range(games))


def test_the_policy_beats_random_play_clearly_on_both_sides():
    """On 60 seeded games per set-up, against random legal play on the other side: the policy's Good
    wins clearly more often than random Good does, and the policy's Evil nearly always wins."""
    bot = view_player(policy)
    for name in ("5p base", "7p bigbox"):
        config = setups()[name]
        baseline = _good_wins(random_player, random_player, config, 60)
        good = _good_wins(bot, random_player, config, 60)
        evil = 60 - _good_wins(random_player, bot, config, 60)
        assert good >= baseline + 10 and good >= 33, (name, baseline, good)  # Good: more than half
        assert evil >= 60 - baseline + 15 and evil >= 57, (name, baseline, evil)  # Evil: 95% or more


# --- issue 39: the exploiters and --exploit -----------------------------------------------------------------

def test_the_panel_has_the_issue_s_exploiters_on_their_sides():
    sides = {name: e.side for name, e in EXPLOITERS.items()}
    assert {"good_reads_evil_votes": "good", "evil_camouflage": "evil", "evil_never_fails_quest_1": "evil",
            "assassin_reads_votes": "evil", "good_only_own_teams": "good"}.items() <= sides.items()
    assert all(e.description and e.name == name for name, e in EXPLOITERS.items())
    assert exploit_matchups()[0] == SELF
    for name, e in EXPLOITERS.items():
        assert ((name, "policy") if e.side == "good" else ("policy", name)) in exploit_matchups()
    # --exploiters: self-play and the named ones only
    assert exploit_matchups(["assassin_reads_votes", "good_only_own_teams"]) == (
        SELF, ("policy", "assassin_reads_votes"), ("good_only_own_teams", "policy"))


def _fields(action) -> tuple:
    return action.kind, action.choice, tuple(action.targets), action.quest


@pytest.mark.parametrize("name", sorted(EXPLOITERS))
def test_an_exploiter_decides_from_its_view_alone_and_legally(name, monkeypatch):
    """Each exploiter move equals the move computed again from a deep copy of the one view it read (with the
    same rng state, its memos forgotten), and is among the seat's legal actions."""
    exploiter, bot = EXPLOITERS[name], view_player(policy)
    seen: list[dict] = []

    def recording(state, seat):
        v = real(state, seat)
        seen.append(copy.deepcopy(v))
        return v

    real = exploiters.view
    monkeypatch.setattr(exploiters, "view", recording)
    kinds: set[str] = set()
    wanted = {"vote", "propose", "play"} | ({"assassinate"} if exploiter.side == "evil" else set())
    games = [(7, 0)] + [(5, seed) for seed in range(1, 30)]
    for number, (players, seed) in enumerate(games):
        if number >= 4 and wanted <= kinds:
            break
        state, _ = new_game(GameConfig(players=players), seed)
        sides = [s.value for s in state.sides]
        rng = random.Random(seed)
        while not state.over:
            seat = rng.choice(actors(state))
            if sides[seat] != exploiter.side:
                state, _ = apply_action(state, bot(state, seat, rng))
                continue
            before = rng.getstate()
            seen.clear()
            action = exploiter.player(state, seat, rng)
            assert len(seen) == 1
            exploiters.clear_memos()
            again = random.Random()
            again.setstate(before)
            assert exploiter.decide(copy.deepcopy(seen[0]), again) == action
            assert _fields(action) in {_fields(a) for a in legal_actions(state, seat)}
            kinds.add(action.kind)
            state, _ = apply_action(state, action)
    assert wanted <= kinds


def test_an_exploit_run_ends_with_the_exploitability_line(capsys):
    main(["--exploit", "--quick", "--only", "5p", "--jobs", "1"])
    out = capsys.readouterr().out.rstrip().splitlines()
    assert re.match(r"^exploitability: max gain -?\d+\.\d \(\w+, 5p base\)$", out[-1]), out[-1]
    rows = [line for line in out if line.startswith("| 5p base |")]
    assert len(rows) == len(EXPLOITERS) and all("| 20 |" in row for row in rows)


def test_the_gain_and_its_confidence_interval():
    # Good exploiter: 60/100 against 40/100 in self-play: +20 points, 1.96 * sqrt(.24/100 + .24/100) either side
    g, lo, hi = gain(Tally(games=100, good=60), Tally(games=100, good=40), "good")
    half = 1.96 * (0.0048 ** 0.5) * 100
    assert g == pytest.approx(20.0) and lo == pytest.approx(20 - half) and hi == pytest.approx(20 + half)
    # Evil exploiter: Evil wins 150/200 against 60/100: +15 points
    g, lo, hi = gain(Tally(games=200, good=50), Tally(games=100, good=40), "evil")
    half = 1.96 * (0.75 * 0.25 / 200 + 0.6 * 0.4 / 100) ** 0.5 * 100
    assert g == pytest.approx(15.0) and (lo, hi) == (pytest.approx(15 - half), pytest.approx(15 + half))
    results = {("5p base", "policy", "policy"): Tally(games=100, good=40, assassinations=50, hits=20),
               ("5p base", "good_only_own_teams", "policy"): Tally(games=100, good=30),
               ("5p base", "policy", "evil_camouflage"): Tally(games=100, good=28, assassinations=10, hits=5)}
    rows = exploit_rows(results)
    assert [(r["exploiter"], r["side"], round(r["gain"], 1)) for r in rows] == [
        ("good_only_own_teams", "good", -10.0), ("evil_camouflage", "evil", 12.0)]
    report = exploit_report(rows)
    assert "| 5p base | evil_camouflage | evil | 100 | 72.0 | 60.0 | +12.0 | [" in report
    assert "| 50.0 (40.0) |" in report
    assert report.splitlines()[-1] == "exploitability: max gain 12.0 (evil_camouflage, 5p base)"
