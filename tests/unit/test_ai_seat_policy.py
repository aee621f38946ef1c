"""The simulated players' policy (shared/engine/policy/) decides from its own seat's view only, and plays
plausibly for its side: seeded whole games of every set-up where each seat acts on ``decide(view(state,
seat))``, every Good decision checked against what its view told it."""
from __future__ import annotations

import random

import pytest

from engine import GameConfig, actors, apply_action, new_game, policy, view
from engine.policy import belief, moves
from engine.policy.belief import GUIDE, decisive, fails_needed, servant
from engine.policy.moves import as_servant, score
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
    """Evil fails quests (sometimes), leaves the fail to one known mate, votes as a Servant would."""
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
    vote = {"kind": "vote", "seat": 2, "choices": ["approve", "reject"], "info": {"team": [1, 4]}}
    for k in range(40):  # a mate's team: voted as a Servant in this seat would (the same draws), not always approved
        assert policy.decide(v, random.Random(k), prompt=vote) == policy.decide(as_servant(v), random.Random(k),
                                                                                prompt=vote)
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


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_evil_leads_as_a_servant_in_its_seat_would(setup):
    """Every proposal of an Evil seat in seeded self-play games is the one a Servant in that seat would make
    on the same public record (the same draws), but on a quest needing two fails (a mate on the team)."""
    theme, n, roles, options = SETUPS[setup]
    compared = 0
    for seed in range(6):
        state, _ = new_game(GameConfig(theme=theme, players=n, roles=tuple(roles), options=options), seed)
        rng = random.Random(seed)
        while not state.over:
            seat = rng.choice(actors(state))
            v = view(state, seat)
            prompt = (v["you"].get("prompts") or [None])[0]
            if prompt and v["you"]["side"] == "evil" and prompt["kind"] == "propose":
                draw = rng.random()
                mine = policy.decide(v, random.Random(draw), prompt=prompt)
                quest = mine.quest if mine.quest is not None else v.get("quest")
                if quest is not None and v["track"][quest]["fails_needed"] == 1:
                    assert mine == policy.decide(as_servant(v), random.Random(draw), prompt=prompt)
                    compared += 1
            action = policy.decide(v, rng)
            assert action is not None
            state, _ = apply_action(state, action)
    assert compared > 5


def _record(votes: list[str]) -> list[dict]:
    """Proposals of round 1 (quest 0, 5 players), led by seats 0, 1, 3: each a team of the Leader and the
    next seat, with ``votes``."""
    return [{"round": 1, "quest": 0, "leader": leader, "team": [leader, leader + 1], "votes": letters,
             "approved": False} for leader, letters in zip((0, 1, 3), votes, strict=False)]


def test_evil_votes_as_the_good_seats_at_the_table_have_voted():
    """Off the team, Evil approves about as often as the Good seats off the team did on the earlier
    proposals; on a bare record, it votes as a Servant in its seat would."""
    def approvals(votes: list[str]) -> int:
        return sum(_vote([0, 1], [], leader=0, vote_track=3, proposals=_record(votes), draw=d) == "approve"
                   for d in range(60))

    # seats 0, 1, 3 are Good (seat 2 votes, seat 4 is its mate): off the teams, 0, 1 and 3 approved
    assert approvals(["AARAR", "AAAAR", "ARRAA"]) > 40
    assert approvals(["AARRR", "RAARR", "RRRAA"]) == 0  # they rejected: so does Evil (so would a Servant)
    assert _vote([0, 1], [], leader=0) == _vote([0, 1], [], leader=0, role="servant", side="good")


def _vote(team: list[int], track: list[bool | None], *, seat: int = 2, role: str = "minion", side: str = "evil",
          vote_track: int = 0, leader: int = 0, proposals: list[dict] | None = None, draw: int = 0) -> str:
    v = {"you": {"seat": seat, "side": side, "role": role, "knowledge": [
        {"seat": 4, "label": "evil", "source": "reveal"}] if side == "evil" or role == "merlin" else [],
                 "prompts": []}, "players": 5, "team": team, "vote_track": vote_track, "quest": len(track),
         "leader": leader, "roles_in_play": ["assassin", "merlin"], "proposals": proposals or [],
         "track": [{"quest": i, "result": r, "fails_needed": 1}
                   for i, r in enumerate([*track, None, None, None, None, None][:5])]}
    action = policy.decide(v, random.Random(draw), prompt={"kind": "vote", "seat": seat,
                                                            "choices": ["approve", "reject"], "info": {"team": team}})
    assert action is not None and action.choice is not None
    return action.choice


def test_evil_approves_a_team_it_is_on_that_can_fail_the_quest_deciding_the_game():
    assert _vote([0, 2, 1], [False, False], leader=0) == "approve"
    assert _vote([0, 2, 1], [True, True], leader=0) == "approve"
    # off the team, as a Servant would: on a bare record a team it is not on is rejected, Evil or not
    assert _vote([0, 4, 1], [False, False]) == _vote([0, 4, 1], [False, False], role="servant", side="good")


def _decisions(players: int, seeds: range):
    """Every decision of seeded self-play games (base set-up): (the seat's view, its prompt); each game goes
    on with the policy's answer, whatever the caller asks the policy meanwhile."""
    for seed in seeds:
        state, _ = new_game(GameConfig(players=players, roles=("merlin", "assassin")), seed)
        rng = random.Random(seed)
        while not state.over:
            v = view(state, rng.choice(actors(state)))
            yield v, v["you"]["prompts"][0]
            state, _ = apply_action(state, policy.decide(v, rng))


def _servant_in_his_seat(v: dict) -> dict:
    """Merlin's view as a Servant in his seat would have it: the public record."""
    seen = moves.public_record(v)
    return {**seen, "you": {**seen["you"], "role": "servant"}}


def _merlin_votes(players: int, seeds: range, late: bool):
    """Every vote of Merlin in seeded self-play games (not as the Leader, not on a round's fifth team), before
    Evil's second fail or after it (``late``): (his view, the Evil seats he saw, his answers and a Servant's
    in his seat, each with 40 draws)."""
    for v, prompt in _decisions(players, seeds):
        if prompt["kind"] == "vote" and v["you"]["role"] == "merlin" and v["leader"] != v["you"]["seat"] and \
                v["vote_track"] < 4 and (score(v)[1] >= 2) == late:
            evil, _ = policy.known(v)
            mine = [policy.decide(v, random.Random(d), prompt=prompt).choice for d in range(40)]
            theirs = [policy.decide(_servant_in_his_seat(v), random.Random(d), prompt=prompt).choice
                      for d in range(40)]
            yield v, evil, mine, theirs


def test_merlin_rejects_some_teams_with_evil_he_is_on_and_votes_on_others_as_a_servant_would():
    """From three Evil players (7 here), until Evil has two fails, Merlin votes as a Servant in his seat would,
    but rejects a team he is on (not as its Leader, not the fifth) with an Evil player he saw ``GUIDE`` of
    the time where that Servant would approve it."""
    guided = same = 0
    rejects = []
    for v, evil, mine, theirs in _merlin_votes(7, range(30), late=False):
        team = set(v["team"])
        if v["you"]["seat"] in team and team & evil and set(theirs) == {"approve"}:
            rejects.append(mine.count("reject") / 40)
            guided += 1
        else:  # off the team, a team without Evil, or one the Servant rejects anyway
            assert mine == theirs
            same += 1
    assert same and guided >= 10
    assert abs(sum(rejects) / len(rejects) - GUIDE) < 0.06


def test_at_five_players_merlin_votes_as_a_servant_until_evil_has_two_fails():
    """With two Evil players (5 and 6 at the table), Merlin's early rejections of teams he was on passed no
    more quests and showed him to the Assassin: until Evil's second fail he votes as a Servant in his seat."""
    compared = dirty = 0
    for v, evil, mine, theirs in _merlin_votes(5, range(30), late=False):
        assert mine == theirs
        compared += 1
        dirty += bool(v["you"]["seat"] in v["team"] and set(v["team"]) & evil and set(theirs) == {"approve"})
    assert compared > 50 and dirty >= 5  # (teams with Evil he was on, which the Servant approved, among them)


@pytest.mark.parametrize("players", [5, 7])
def test_once_evil_has_two_fails_merlin_rejects_every_team_with_evil_and_otherwise_votes_as_a_servant(players):
    """Once Evil is one fail from winning, Merlin never approves a team with an Evil player he saw (but the
    fifth) and votes on a team without Evil he is off as a Servant in his seat would (approving those
    teams showed him to an Assassin that reads votes, and passed no more quests). A team without Evil he
    is on he approves with two Evil players (5 here: his vote is one of five), and votes on as a Servant
    from three (7 here: there his approvals passed no more quests and showed him)."""
    kinds = {"dirty": 0, "on clean": 0, "off clean": 0}
    for v, evil, mine, theirs in _merlin_votes(players, range(40), late=True):
        team = set(v["team"])
        if team & evil:
            assert set(mine) == {"reject"}
            kinds["dirty"] += 1
        elif v["you"]["seat"] in team:
            assert set(mine) == ({"approve"} if players < 7 else set(theirs))
            kinds["on clean"] += 1
        else:
            assert mine == theirs
            kinds["off clean"] += 1
    assert kinds["dirty"] >= 5 and kinds["on clean"] >= 5 and kinds["off clean"] >= 1, kinds


@pytest.mark.parametrize("players", [5, 7])
def test_merlin_leads_as_a_servant_in_his_seat_would(players):
    """Merlin's teams show nothing he saw: every proposal of his is the one a Servant in his seat would make
    on the public record (the same draws), after Evil's second fail too."""
    compared = late = 0
    for v, prompt in _decisions(players, range(20)):
        if prompt["kind"] == "propose" and v["you"]["role"] == "merlin":
            assert policy.decide(v, random.Random(compared)) == policy.decide(_servant_in_his_seat(v),
                                                                              random.Random(compared))
            compared += 1
            late += score(v)[1] >= 2
    assert compared > 10 and late >= 2


def test_on_a_quest_deciding_the_game_good_approves_only_a_team_about_as_clean_as_its_best():
    """A Servant approves a team at least ``APPROVE_RATIO`` as likely to be clean as the best it could pick;
    on a quest that decides the game, only one at least ``APPROVE_DECIDING`` as likely: every Servant vote
    of seeded 5-player self-play games on a team between the two (not its Leader's, not the fifth)."""
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for v, prompt in _decisions(5, range(60)):
        seat = v["you"]["seat"]
        if prompt["kind"] == "vote" and v["you"]["role"] == "servant" and v["leader"] != seat and \
                v["vote_track"] < 4 and v["leader"] in v["team"]:
            p = policy.suspicion(v)
            best = moves._clean(p, sorted((s for s in range(5) if s != seat), key=lambda s: p[s])[:len(v["team"]) - 1])
            if moves.APPROVE_RATIO * best <= moves._clean(p, v["team"]) < moves.APPROVE_DECIDING * best:
                seen[decisive(*score(v))].add(policy.decide(v, random.Random(0), prompt=prompt).choice)
    assert seen == {True: {"reject"}, False: {"approve"}}


def test_a_leader_off_his_own_team_is_suspect_and_his_team_rejected():
    """A Good Leader is on his own team: one who is not reads as Evil, and Good rejects his team."""
    v = {"you": {"seat": 2, "side": "good", "role": "servant", "knowledge": [], "prompts": []}, "players": 5,
         "roles_in_play": ["assassin", "merlin"], "quests": [],
         "track": [{"quest": i, "result": None, "fails_needed": 1} for i in range(5)],
         "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [1, 3], "votes": "", "approved": None}]}
    p = policy.suspicion(v)
    assert p[0] > 0.9 and p[0] == max(p)
    assert _vote([1, 3], [], seat=2, role="servant", side="good", leader=0) == "reject"
    assert _vote([0, 3], [], seat=3, role="servant", side="good", leader=0) == "approve"  # on his own team


def test_a_lone_rejection_of_a_team_makes_its_members_suspect():
    """A member who rejects a team the other members approve reads as Merlin seeing Evil on it."""
    def suspicion(votes: str) -> list[float]:
        return policy.suspicion({
            "you": {"seat": 2, "side": "good", "role": "servant", "knowledge": [], "prompts": []}, "players": 7,
            "roles_in_play": ["assassin", "merlin"], "quests": [],
            "track": [{"quest": i, "result": None, "fails_needed": 1} for i in range(5)],
            "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [0, 1, 3, 5], "votes": votes,
                           "approved": True}]})
    quiet, lone = suspicion("AAAAAAA"), suspicion("AAAAARA")
    assert lone[0] > quiet[0] and lone[1] > quiet[1] and lone[3] > quiet[3]
    assert lone[5] < quiet[5]  # the rejecting seat is Merlin (Good) more likely


def test_the_assassin_names_the_seat_whose_votes_read_as_merlin():
    """Once Evil has two fails, seat 3 rejected a team with Evil (seat 4) it was on, which seat 0, on it too,
    approved; seat 1 rejected more teams with Evil, but only off them, where everyone off them did: as
    Merlin, against as a Servant, seat 3's record is the likelier (a count of rejected Evil teams would
    name seat 1)."""
    proposals = [{"round": r, "quest": 2, "leader": leader, "team": team, "votes": votes, "approved": False}
                 for r, leader, team, votes in ((3, 4, [0, 3, 4], "ARARA"), (3, 2, [0, 1, 2], "AAARA"),
                                                (3, 0, [0, 4], "ARRRA"), (4, 4, [0, 4], "ARARA"))]
    quests = [{"round": r, "quest": r - 1, "team": [2, 4], "fails": 1, "fails_needed": 1, "success": False}
              for r in (1, 2)]
    v = {"you": {"seat": 2, "side": "evil", "role": "assassin", "knowledge": [
        {"seat": 4, "label": "evil", "source": "reveal"}], "prompts": []}, "players": 5,
         "roles_in_play": ["assassin", "merlin"], "proposals": proposals, "quests": quests,
         "track": [{"quest": i, "result": [False, False, True, True, True][i], "fails_needed": 1}
                   for i in range(5)]}
    prompt = {"kind": "assassinate", "seat": 2, "pick": 1, "targets": [0, 1, 3]}
    assert {policy.decide(v, random.Random(k), prompt=prompt).targets for k in range(20)} == {(3,)}


@pytest.mark.parametrize("players", [5, 7])
def test_once_a_failed_quest_gives_evil_the_game_good_approves_only_a_team_more_likely_safe_than_not(players):
    """Once Evil has two fails, a Servant rejects a team (not its own as Leader, not the fifth) less likely
    than ``LAST_STAND`` to hold too few Evil players to fail its quest, even one about as clean as the best
    it could pick (which it approved before): every such Servant vote of seeded self-play games."""
    strict = rejected = 0
    for v, prompt in _decisions(players, range(40)):
        seat, team = v["you"]["seat"], v["team"]
        if prompt["kind"] != "vote" or v["you"]["role"] != "servant" or v["leader"] == seat or \
                v["vote_track"] >= 4 or score(v)[1] < 2:
            continue
        p = policy.suspicion(v)
        if moves._safe(p, team, fails_needed(v, v["quest"])) < moves.LAST_STAND:
            assert policy.decide(v, random.Random(0), prompt=prompt).choice == "reject"
            rejected += 1
            best = moves._clean(p, sorted((s for s in range(players) if s != seat), key=lambda s: p[s])[:len(team) - 1])
            strict += moves._clean(p, team) >= moves.APPROVE_DECIDING * best
    assert rejected >= 10 and strict >= 3, (rejected, strict)


def test_how_likely_a_team_is_safe():
    """``moves._safe``: how likely fewer of its members than the quest's fails needed are Evil."""
    p = [0.5, 0.5, 0.2, 0.0]
    assert moves._safe(p, [0, 1], 1) == pytest.approx(0.25) == moves._clean(p, [0, 1])
    assert moves._safe(p, [0, 1], 2) == pytest.approx(0.75)
    assert moves._safe(p, [0, 1, 2], 2) == pytest.approx(1 - 0.5 * 0.5 * 0.8 - 2 * 0.5 * 0.5 * 0.2 - 0.5 * 0.5 * 0.2)
    assert moves._safe(p, [3], 1) == 1.0 and moves._safe(p, [], 1) == 1.0


@pytest.mark.parametrize("roles", [["assassin", "merlin"], ["assassin"]])
def test_the_assassins_model_of_a_servant_is_the_servants_own_belief(roles):
    """The Assassin reads each Good seat's votes against a Servant's in that seat: ``belief.servant`` on
    ``Moments.at(k)`` (the record of the ``k``-th proposal's time, weighed once for every seat, each sum
    carried on from the moment before) is the belief of a Servant in that seat then (``belief.moment``),
    with Merlin in play or not; and the moments carried on are the ones weighed afresh, number for number."""
    compared = 0
    for seed in range(3):
        state, _ = new_game(GameConfig(players=7, roles=("merlin", "assassin")), seed)
        v = {**view(policy.play_to_end(state, random.Random(seed)), 0), "roles_in_play": roles}
        moments = belief.Moments(v)
        for k in range(0, len(v["proposals"]), 3):
            table = moments.at(k)
            assert table == belief._hypotheses(belief.moment(v, k, 0), set(), list(range(7)),
                                               (1 << 7) - 1 if "merlin" in roles else 0)
            for seat in (1, 4):
                assert servant(table, 7, seat) == pytest.approx(policy.suspicion(belief.moment(v, k, seat)))
                compared += 1
    assert compared > 20


@pytest.mark.parametrize(("votes", "merlin"), [("ARAAR", 3), ("AAARR", 1)])
def test_the_assassin_names_the_seat_that_approved_a_clean_team_a_servant_in_it_would_have_rejected(votes, merlin):
    """Five players, Evil seats 2 (the Assassin) and 4, both fails on teams with one of {0, 2} and one of
    {1, 3, 4}: a Servant in seat 1 or 3 then thinks team [0, 1, 3] more likely to fail than not and rejects
    it. The one of them who approved it (the team is clean) voted as Merlin would, not as a Servant: the
    Assassin names him (a reading of the votes alone says nothing of a team without Evil)."""
    quests = [{"round": r + 1, "quest": r, "team": team, "fails": 1, "fails_needed": 1, "success": False}
              for r, team in enumerate(([0, 2], [1, 3, 4]))]
    proposals = [{"round": r + 1, "quest": r, "leader": leader, "team": team, "votes": v, "approved": v == "AAAAA"}
                 for r, leader, team, v in ((0, 0, [0, 2], "AAAAA"), (1, 1, [1, 3, 4], "AAAAA"),
                                            (2, 0, [0, 1, 3], votes))]
    v = {"you": {"seat": 2, "side": "evil", "role": "assassin", "knowledge": [
        {"seat": 4, "label": "evil", "source": "reveal"}], "prompts": []}, "players": 5,
         "roles_in_play": ["assassin", "merlin"], "proposals": proposals, "quests": quests,
         "track": [{"quest": i, "result": [False, False, None, None, None][i], "fails_needed": 1}
                   for i in range(5)]}
    for seat in (1, 3):
        then = belief.moment(v, 2, seat)
        assert policy.decide(then, random.Random(0), prompt={"kind": "vote", "info": {"team": [0, 1, 3]}}
                             ).choice == "reject"
    prompt = {"kind": "assassinate", "seat": 2, "pick": 1, "targets": [0, 1, 3]}
    assert {policy.decide(v, random.Random(k), prompt=prompt).targets for k in range(20)} == {(merlin,)}
