"""The engine's ``timeout`` move: what a seat that ran out of time does, for every kind of decision.

Each default of docs/TIMERS.md is checked here: skipped team, missing vote, quest card, optional and
forced plug-in decisions, the hidden Loyalty card; plus the move's guards, its events and replay.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import (
    Action,
    GameConfig,
    IllegalAction,
    Side,
    actors,
    apply_action,
    new_game,
    prompts,
    replay,
    validate_config,
)
from engine import cards as card_registry
from engine.errors import GameOver, InvalidChoice, NotYourTurn
from engine.plugin import Ctx
from engine.policy import ai_seat_move
from engine.timeouts import every_answer, quest_card
from tests.builder import make_state
from tests.helpers import propose, run_quest, vote
from tests.unit.bigbox_characters_helpers import find_game, same, seat_of


def timeout(state, seat):
    return apply_action(state, Action(seat=seat, kind="timeout"))


def public(events, type_=None):
    return [e for e in events if e.to is None and (type_ is None or e.type == type_)]


BASE5 = ["merlin", "servant", "servant", "assassin", "minion"]


# --- the move itself ---------------------------------------------------------------------------------


def test_a_timeout_is_refused_unless_that_seat_is_awaited():
    s = make_state(BASE5, leader=0)
    for seat in range(1, 5):  # only the Leader is awaited
        with pytest.raises(NotYourTurn):
            timeout(s, seat)
    s, _ = propose(s, (0, 1))
    s, _ = apply_action(s, Action(seat=2, kind="vote", choice="reject"))
    with pytest.raises(NotYourTurn):
        timeout(s, 2)  # already voted
    before = s
    with pytest.raises(InvalidChoice):
        apply_action(s, Action(seat=3, kind="timeout", choice="approve"))  # the rules choose, not the caller
    assert same(before, s)


def test_a_finished_game_refuses_timeouts():
    s = make_state(BASE5, leader=0)
    for _ in range(5):
        s, _ = timeout(s, s.leader)
    assert s.over
    with pytest.raises(GameOver):
        timeout(s, 0)


def test_the_timeout_is_logged_and_replay_reproduces_it():
    config = GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"),
                        options={"lady_of_the_lake": True})
    s, _ = new_game(config, 11)
    rng = random.Random(3)
    while not s.over:
        seat = rng.choice(actors(s))
        s, _ = timeout(s, seat) if rng.random() < 0.5 else apply_action(s, ai_seat_move(s, seat, rng))
    assert any(entry.split("|")[1] == "timeout" for entry in s.log)
    assert replay(config, 11, s.log).model_dump() == s.model_dump()


def test_a_plugin_cannot_name_a_decision_timeout():
    s = make_state(BASE5)
    with pytest.raises(ValueError):
        Ctx(s).push("timeout", "loyalty", [0])


# --- team proposal -------------------------------------------------------------------------------------


def test_a_leader_who_does_not_propose_passes_leadership_as_a_rejected_team():
    s = make_state(BASE5, leader=2)
    s, events = timeout(s, 2)
    assert [e.type for e in public(events)][:2] == ["PlayerTimedOut", "TeamNotProposed"]
    assert public(events, "PlayerTimedOut")[0].data == {"seat": 2, "kind": "propose"}
    assert public(events, "TeamNotProposed")[0].data == {"leader": 2, "rejections": 1}
    assert (s.stage, s.leader, s.vote_track, s.proposals) == ("team", 3, 1, [])


def test_five_teams_not_proposed_or_rejected_in_a_row_win_for_evil():
    s = make_state(BASE5, leader=0)
    s, _ = propose(s, (0, 1))
    s, _ = vote(s, approve=())  # one voted down...
    for _ in range(4):  # ...and four never proposed
        assert not s.over
        s, _ = timeout(s, s.leader)
    assert s.over and s.winner is Side.EVIL and s.win_reason == "five_rejections"


def test_a_successful_quest_clears_the_track_of_skipped_teams():
    s = make_state(BASE5, leader=0)
    s, _ = timeout(s, 0)
    s, _ = run_quest(s, (1, 2))
    assert s.vote_track == 0


# --- votes ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("option,expected", [(None, True), ("approve", True), ("reject", False)])
def test_a_missing_vote_counts_as_the_configured_default(option, expected):
    options = {} if option is None else {"timeout_vote": option}
    s = make_state(BASE5, leader=0, options=options)
    s, _ = propose(s, (0, 1))
    s, events = timeout(s, 4)
    assert s.votes[4] is expected
    assert public(events, "PlayerTimedOut")[0].data == {"seat": 4, "kind": "vote"}
    (applied,) = [e for e in events if e.type == "DefaultApplied"]
    assert applied.to == (4,) and applied.data["choice"] == ("approve" if expected else "reject")


def test_the_vote_default_must_be_approve_or_reject():
    config = GameConfig(players=5, options={"timeout_vote": "abstain"})
    assert "bad_timeout_vote" in {i.code for i in validate_config(config) if i.level == "error"}
    assert not [i for i in validate_config(GameConfig(players=5, options={"timeout_vote": "reject"}))
                if i.level == "error"]


def test_every_missing_vote_at_once_reveals_the_result():
    s = make_state(BASE5, leader=0, options={"timeout_vote": "reject"})
    s, _ = propose(s, (0, 1))
    for seat in (0, 1):
        s, _ = apply_action(s, Action(seat=seat, kind="vote", choice="approve"))
    for seat in (2, 3, 4):
        s, events = timeout(s, seat)
    assert s.proposals[-1].approved is False and s.vote_track == 1
    assert public(events, "VotesRevealed")[0].data["reject"] == [2, 3, 4]


# --- quest cards -----------------------------------------------------------------------------------------


def test_a_timed_out_team_member_plays_success_even_when_evil():
    s = make_state(BASE5, leader=0)
    s, _ = propose(s, (3, 4))  # the Assassin and the Minion
    s, _ = vote(s)
    s, events = timeout(s, 3)
    assert s.cards[3] == "success"
    assert public(events, "PlayerTimedOut")[0].data == {"seat": 3, "kind": "play"}
    assert "success" not in str([e.data for e in public(events)])  # the card itself stays secret


@pytest.mark.parametrize("choices,expected", [
    (["success", "fail"], "success"),
    (["success", "magic"], "success"),  # a Sorcerer
    (["rogue_fail", "fail", "evil_message"], None),  # only Fail-type cards: a random one is drawn
    (["good_message", "fail"], "good_message"),
])
def test_the_quest_card_default_is_success_or_a_card_that_counts_as_success(choices, expected):
    import engine.modules.messengers  # noqa: F401  (registers the Message cards)
    import engine.modules.rogue  # noqa: F401

    assert quest_card(choices) == expected


def test_a_lancelot_who_may_only_play_fail_plays_a_fail_card():
    roles = ["merlin", "good_lancelot", "servant", "servant", "servant", "assassin", "evil_lancelot", "minion"]
    s = make_state(roles, leader=0, options={"lancelot": "bigbox_predealt"})
    evil_lancelot = next(x for x in range(8) if roles[x].endswith("lancelot") and s.sides[x] is Side.EVIL)
    s, _ = propose(s, tuple(sorted({0, 2, evil_lancelot})))
    s, _ = vote(s)
    (p,) = prompts(s, evil_lancelot)
    assert all(card_registry.counts_as(c) == card_registry.FAIL for c in p.choices)
    s, _ = timeout(s, evil_lancelot)
    assert s.cards[evil_lancelot] in p.choices


# --- plug-in decisions -------------------------------------------------------------------------------------


LADY_7 = ["merlin", "servant", "servant", "troublemaker", "assassin", "trickster", "minion"]
HOLDER, TRICKSTER = 6, 5


def _lady_time(seed: int = 0):
    s = make_state(LADY_7, options={"lady_of_the_lake": True}, seed=seed)
    s, _ = run_quest(s, (1, 2))
    s, _ = run_quest(s, (1, 2, 4), fails=(4,))
    (p,) = prompts(s, HOLDER)
    assert p.kind == "lady"
    return s, p


def test_the_lady_of_the_lake_checks_a_random_legal_player_drawn_from_the_seeded_rng():
    chosen = Counter()
    for seed in range(30):
        s, p = _lady_time(seed)
        after, events = timeout(s, HOLDER)
        again, _ = timeout(s, HOLDER)
        assert after.model_dump() == again.model_dump()  # the same state always gives the same draw
        assert after.rng_calls > s.rng_calls  # ...drawn from the game's own randomness
        (used,) = public(events, "LadyUsed")
        assert used.data["target"] in p.targets
        chosen[used.data["target"]] += 1
    assert len(chosen) >= 3  # not always the same player


def test_the_trickster_out_of_time_shows_the_truth_and_nobody_learns_who_held_the_decision():
    s, _ = _lady_time()
    s, _ = apply_action(s, Action(seat=HOLDER, kind="lady", targets=(TRICKSTER,)))
    assert s.pending[0].hidden
    s, events = timeout(s, TRICKSTER)
    assert [e.type for e in public(events)][0] == "SecretDecisionTimedOut"
    assert not public(events, "PlayerTimedOut")
    assert all(TRICKSTER not in e.data.values() for e in public(events) if e.type.endswith("TimedOut"))
    (applied,) = [e for e in events if e.type == "DefaultApplied"]
    assert applied.to == (TRICKSTER,)
    seen = [k for k in s.knowledge[HOLDER] if k.source == "lady"]
    assert [(k.seat, k.label) for k in seen] == [(TRICKSTER, "evil")]  # the Trickster's true side


def test_an_optional_decision_passes():
    roles = ["merlin", "servant", "servant", "servant", "servant", "assassin", "minion", "minion"]
    s = make_state(roles, leader=0, options={"excalibur": True})
    s, _ = propose(s, (0, 1, 2))
    s, events = timeout(s, 0)  # give_excalibur is forced: a random team member other than the Leader
    (given,) = public(events, "ExcaliburGiven")
    holder = given.data["seat"]
    assert holder in (1, 2)
    s, _ = vote(s)
    for seat in (0, 1, 2):
        s, _ = apply_action(s, Action(seat=seat, kind="play", choice="success"))
    assert prompts(s, holder)[0].kind == "excalibur" and prompts(s, holder)[0].optional
    s, events = timeout(s, holder)
    assert public(events, "ExcaliburNotUsed") and not public(events, "ExcaliburUsed")


def test_every_answer_lists_the_prompts_legal_shapes():
    from engine.models import Prompt

    p = Prompt(kind="x", seat=0, pick=2, targets=[1, 2, 3], choices=["a", "b"])
    answers = every_answer(p)
    assert len(answers) == 3 * 2 and {a.targets for a in answers} == {(1, 2), (1, 3), (2, 3)}
    assert every_answer(Prompt(kind="x", seat=0, quests=[1, 3]))[1].quest == 3
    assert every_answer(Prompt(kind="x", seat=0)) == []


# --- every kind of decision, in many games -------------------------------------------------------------------

CONFIGS = [
    GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), options={"lady_of_the_lake": True}),
    GameConfig(players=8, roles=("merlin", "assassin", "good_rogue", "evil_rogue"),
               options={"excalibur": True, "trapper": True}),
    GameConfig(players=7, roles=("merlin", "assassin", "trickster", "cleric"),
               options={"lady_of_the_lake": True, "plot_cards": True}),
    GameConfig(players=8, roles=("merlin", "assassin", "untrustworthy_servant", "good_messenger", "good_messenger",
                                 "evil_messenger")),
    GameConfig(players=10, roles=("merlin", "assassin"), options={"plot_cards": True, "targeting": True}),
    GameConfig(players=8, roles=("merlin", "assassin", "good_lancelot", "evil_lancelot", "good_sorcerer",
                                 "evil_sorcerer"), options={"lancelot": "bigbox_predealt", "timeout_vote": "reject"}),
]
EVERY_KIND = {
    "propose", "vote", "play", "lady", "assassinate", "assassin_target", "recruit", "loyalty_card",
    "give_excalibur", "excalibur", "watch", "trap", "plot_deal", "plot_strong_leader", "plot_no_confidence",
    "plot_keeping_close_eye", "plot_in_the_spotlight", "plot_open_up", "plot_establish_confidence",
    "plot_overheard_conversation", "plot_take_responsibility",
}


def _check_default(before, seat, events):
    """One timed-out decision against the documented defaults."""
    (p,) = prompts(before, seat)
    pending = before.pending[0] if before.pending else None
    timed = [e for e in events if e.type in ("PlayerTimedOut", "SecretDecisionTimedOut")]
    assert len(timed) == 1 and timed[0].to is None
    if pending is not None and pending.hidden:
        assert timed[0].type == "SecretDecisionTimedOut" and seat not in timed[0].data.values()
    else:
        assert timed[0].data == {"seat": seat, "kind": p.kind}
    if p.kind == "propose":
        assert any(e.type == "TeamNotProposed" for e in events)
        return
    (applied,) = [e for e in events if e.type == "DefaultApplied"]
    assert applied.to == (seat,) and applied.data["kind"] == p.kind
    choice, targets = applied.data["choice"], applied.data["targets"]
    if p.kind == "vote":
        assert choice == before.config.options.get("timeout_vote", "approve")
    elif p.kind == "play" and pending is None:
        assert choice == (quest_card(p.choices) or choice) and choice in p.choices
    elif p.kind == "loyalty_card":
        assert choice == before.sides[seat].value
    elif p.optional:
        assert choice == "pass" and not targets
    else:
        assert set(targets) <= set(p.targets) and len(targets) == p.pick
        assert choice is None or choice in p.choices


@pytest.mark.slow
def test_every_decision_kind_has_a_documented_default_and_replays():
    seen = Counter()
    for config in CONFIGS:
        assert not [i for i in validate_config(config) if i.level == "error"]
        for seed in range(40):
            s, _ = new_game(config, seed)
            rng = random.Random(seed)
            while not s.over:
                seat = rng.choice(actors(s))
                if rng.random() < 0.4:
                    before = s
                    seen[prompts(s, seat)[0].kind] += 1
                    s, events = timeout(s, seat)
                    _check_default(before, seat, events)
                else:
                    s, _ = apply_action(s, ai_seat_move(s, seat, rng))
            assert replay(config, seed, s.log).model_dump() == s.model_dump()
    assert EVERY_KIND <= set(seen), EVERY_KIND - set(seen)


def test_a_game_where_one_seat_always_times_out_still_ends():
    config = GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), options={"lady_of_the_lake": True})
    for seed in range(10):
        s, _ = new_game(config, seed)
        rng = random.Random(seed)
        absent = seed % 7
        for _ in range(2000):
            if s.over:
                break
            seat = rng.choice(actors(s))
            s, _ = timeout(s, seat) if seat == absent else apply_action(s, ai_seat_move(s, seat, rng))
        assert s.over


def test_a_timeout_with_no_acceptable_default_is_an_error_not_a_silent_skip(monkeypatch):
    from engine import timeouts

    s = make_state(BASE5, leader=0)
    s, _ = propose(s, (0, 1))
    monkeypatch.setattr(timeouts, "candidates", lambda ctx, prompt, pending: [Action(seat=1, kind="vote", choice="x")])
    with pytest.raises(IllegalAction) as info:
        timeout(s, 1)
    assert info.value.code == "no_default"


def test_a_hidden_decision_during_the_reveal_times_out_too():
    # a Trickster Leader checked by the Cleric decides in secret during the Reveal, before any team
    config = GameConfig(players=7, roles=("merlin", "assassin", "cleric", "trickster", "troublemaker"))
    _, s, _ = find_game(config, lambda st, ev: st.roles[st.first_leader] == "trickster")
    trickster = seat_of(s, "trickster")
    assert s.stage == "reveal"
    s, events = timeout(s, trickster)
    assert s.stage == "team" and public(events, "SecretDecisionTimedOut")
