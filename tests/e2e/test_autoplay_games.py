"""The simulated players (localdev/autoplay.py) play plausibly: checked on whole games through
``lambda_handler``, from what the group is shown at the end (roles and the round-by-round history)."""
from __future__ import annotations

import random
import re

import pytest

from localdev.autoplay import Driver, Policy, split_names


def _ending(table) -> tuple[dict[str, str], list[str]]:
    """(name -> "Good"/"Evil" as revealed, the History lines)."""
    texts = [m["text"] for m in table.messages(table.group)]
    sides = {}
    for text in texts:
        for line in text.split("\n"):
            m = re.match(r"^(😇|😈) (.+?): <b>.+</b>", line)  # the icon is the side (a name may say it too)
            if m:
                sides[m.group(2)] = "Good" if m.group(1) == "😇" else "Evil"
    history = next(t for t in texts if t.startswith("<b>History</b>")).split("\n")
    return sides, history


@pytest.mark.parametrize("seed", [5, 6])
def test_leaders_pick_themselves_evil_backs_its_teams_and_fails_them(table, seed):
    players = list(range(1, 8))
    table.open_lobby(players, roles=["Percival", "Morgana"])
    table.start_game(1)
    driver = Driver(table, table.group, players, Policy(rng=random.Random(seed), fail_rate=1.0))
    driver.play()
    assert driver.over()
    sides, history = _ending(table)
    evil = {n for n, side in sides.items() if side == "Evil"}
    assert len(sides) == 7 and len(evil) == 3
    proposals = quests = 0
    for line in history:
        vote = re.match(r"^  Team \d · (.+?): (.+) → ✅ (.+) \| ❌ (.+) → (approved|rejected)$", line)
        if vote:
            proposals += 1
            leader, team, approve = vote.group(1), set(split_names(vote.group(2))), set(split_names(vote.group(3)))
            assert leader in team, line  # a Leader puts themself on the team
            assert evil & team <= approve, line  # Evil on a team approves it
            if evil & team:
                assert evil <= approve, line  # Evil backs every team with one of its own on it
        quest = re.match(r"^  ⚔️ (.+): (success|failed) \((.+)\)$", line)
        if quest:
            quests += 1
            team = set(split_names(quest.group(1)))
            fails = sum(int(n) for n in re.findall(r"(\d+) × ❌", quest.group(3)))
            assert fails == len(team & evil), line  # fail_rate=1: each Evil member fails, Good never does
    assert proposals >= 3 and quests >= 3
