"""The simulated players' policy (shared/engine/policy/) decides from its own seat's view only, and plays
plausibly for its side: seeded whole games of every set-up where each seat acts on ``decide(view(state,
seat))``, every Good decision checked against what its view told it."""
from __future__ import annotations

import random

import pytest

from engine import GameConfig, actors, apply_action, new_game, policy, view
from tests.reliability.support import SETUPS
from tests.unit.policy_checks import harms_good

SEEDS = range(6)


@pytest.mark.parametrize("setup", sorted(SETUPS))
@pytest.mark.parametrize("seed", SEEDS)
def test_good_ai_seats_never_take_an_action_that_only_hurts_good(setup, seed):
    theme, n, roles, options = SETUPS[setup]
    state, _ = new_game(GameConfig(theme=theme, players=n, roles=tuple(roles), options=options), seed)
    rng = random.Random(seed)
    harms, decisions, excalibur = [], 0, 0
    for _ in range(3000):
        if state.over:
            break
        seat = rng.choice(actors(state))
        v = view(state, seat)
        action = policy.decide(v, rng)
        assert action is not None and action.seat == seat
        if v["you"]["side"] == "good":
            decisions += 1
            why = harms_good(v, action)
            if why:
                harms.append((seat, v["you"]["role"], why))
        excalibur += action.kind == "excalibur"
        state, _ = apply_action(state, action)
    assert state.over, "the bots did not finish the game"
    assert decisions and harms == []


def test_an_all_good_known_team_keeps_its_cards_with_excalibur():
    """A Good holder who knows every other member is Good passes: a turned card would only hurt Good."""
    v = {"you": {"seat": 0, "side": "good", "role": "servant", "knowledge": [
        {"seat": 1, "label": "good", "source": "lady"}], "prompts": [], "cards": ["success"]},
         "team": [0, 1], "vote_track": 0, "players": 5}
    prompt = {"kind": "excalibur", "seat": 0, "pick": 1, "targets": [1], "optional": True}
    for seed in range(50):
        assert policy.decide(v, random.Random(seed), prompt=prompt).choice == "pass"
    v["you"]["knowledge"] = [{"seat": 1, "label": "evil", "source": "lady"}]
    assert policy.decide(v, random.Random(0), prompt=prompt).targets == (1,)  # a known Evil card: turned


def test_evil_ai_seats_play_for_evil():
    """Evil fails quests (sometimes), approves its mates' teams, never assassinates a mate."""
    v = {"you": {"seat": 2, "side": "evil", "role": "minion", "knowledge": [{"seat": 4, "label": "evil",
                                                                              "source": "reveal"}],
                 "prompts": [], "cards": ["success", "fail"]}, "team": [1, 4], "vote_track": 0, "players": 5}
    rng = random.Random(1)
    on_team = {**v, "team": [2, 4]}  # two known mates on a one-fail quest: the lower seat fails, the other passes
    plays = {policy.decide(on_team, rng, prompt={"kind": "play", "seat": 2, "choices": ["success", "fail"]}).choice
             for _ in range(40)}
    assert "fail" in plays
    mate = {**on_team, "you": {**v["you"], "seat": 4, "knowledge": [{"seat": 2, "label": "evil", "source": "reveal"}]}}
    assert {policy.decide(mate, rng, prompt={"kind": "play", "seat": 4, "choices": ["success", "fail"]}).choice
            for _ in range(40)} == {"success"}
    votes = {policy.decide(v, rng, prompt={"kind": "vote", "seat": 2, "choices": ["approve", "reject"],
                                           "info": {"team": [1, 4]}}).choice for _ in range(40)}
    assert votes == {"approve"}
    for _ in range(40):
        target = policy.decide(v, rng, prompt={"kind": "excalibur", "seat": 2, "pick": 1, "targets": [1, 4],
                                               "optional": True})
        assert target.choice == "pass" or target.targets == (1,)


def test_no_confidence_is_played_against_evil_teams_and_never_as_the_fifth_rejection_by_good():
    """The King Returns turns an approved team into a rejection; the fifth of a round wins for Evil."""
    prompt = {"kind": "plot_no_confidence", "seat": 0, "choices": ["play"], "optional": True,
              "info": {"card": "no_confidence", "kind": "held"}}

    def answer(side: str, knows_evil: bool, track: int) -> str:
        knowledge = [{"seat": 2, "label": "evil", "source": "lady"}] if knows_evil else []
        v = {"you": {"seat": 0, "side": side, "role": "servant" if side == "good" else "minion",
                     "knowledge": knowledge, "prompts": [prompt], "cards": []},
             "team": [1, 2], "vote_track": track, "players": 5}
        return policy.decide(v, random.Random(track)).choice

    assert answer("good", knows_evil=True, track=0) == "play"
    assert answer("good", knows_evil=False, track=0) == "pass"  # a team it has nothing against
    assert answer("good", knows_evil=True, track=4) == "pass"  # the fifth rejection would hand Evil the game
    assert answer("evil", knows_evil=True, track=0) == "pass"  # its mate is on the team
    assert answer("evil", knows_evil=False, track=0) == "play"
    assert answer("evil", knows_evil=True, track=4) == "play"  # the fifth rejection wins
