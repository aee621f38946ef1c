"""scripts/bench_ai_seats.py: how games are counted, the previous policy it loads, and (counts on a small
seeded sample, no times) that the policy beats random legal play clearly on both sides (issue 30)."""
from __future__ import annotations

import random

from engine import GameConfig, new_game, policy
from engine.policy import play_to_end
from scripts.bench_ai_seats import (
    MATCHUPS,
    Tally,
    jobs,
    load_previous,
    outcome,
    play,
    random_player,
    setups,
    table,
    view_player,
)


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
