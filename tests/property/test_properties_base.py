"""Property-based tests: random legal games over 5..10 players, base roles and base options.

Games are played by the AI seats' policy (``engine.policy.ai_seat_move``) and by purely random choices
from ``engine.legal_actions``. Every rule is checked against the recorded history, not against the
engine's own bookkeeping.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalAction,
    Side,
    Theme,
    apply_action,
    legal_actions,
    prompts,
    public_view,
    replay,
    validate_config,
    view,
)
from engine.errors import (
    AlreadyActed,
    CardNotAllowed,
    DuplicatePlayer,
    GameOver,
    InvalidChoice,
    InvalidTarget,
    NotOnTeam,
    NotYourTurn,
    WrongPhase,
    WrongTeamSize,
)
from tests.helpers import (
    EVIL_ROLES,
    GOOD_EVIL,
    TEAM_CHART,
    PlayedGame,
    fails_needed,
    legal_setups,
    oracle_knowledge,
    play_game,
    reveal_knowledge,
    scrambled,
)

PLAYERS = range(5, 11)
POLICIES = ("ai_seats", "random")
OPTION_KEYS = ("lady_of_the_lake", "targeting", "blind_spies")
TYPED_ERRORS = (
    NotYourTurn,
    WrongTeamSize,
    DuplicatePlayer,
    NotOnTeam,
    CardNotAllowed,
    AlreadyActed,
    WrongPhase,
    InvalidTarget,
    InvalidChoice,
    GameOver,
)
FAST = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@st.composite
def configs(draw, players: int) -> GameConfig:
    theme = draw(st.sampled_from([Theme.AVALON, Theme.RESISTANCE]))
    roles = draw(st.sampled_from(legal_setups(players, theme)))
    # The Lady of the Lake belongs to Avalon only (The Resistance's rulebook has Targeting and Blind Spies).
    keys = OPTION_KEYS if theme is Theme.AVALON else tuple(k for k in OPTION_KEYS if k != "lady_of_the_lake")
    options = {key: True for key in keys if draw(st.booleans())}
    assassin = None
    if "merlin" in roles and "assassin" not in roles:
        candidates: list[str | None] = [None] + [r for r in roles if r in EVIL_ROLES]
        if sum(r in EVIL_ROLES for r in roles) < GOOD_EVIL[players][1]:
            candidates.append("minion")
        assassin = draw(st.sampled_from(candidates))
    config = GameConfig(theme=theme, players=players, roles=roles, options=options, assassin=assassin)
    assert not [i for i in validate_config(config) if i.level == "error"], config
    return config


def draw_game(data, players: int, policy: str) -> PlayedGame:
    """Draw a configuration and a seed (shown by Hypothesis on failure), then play the game."""
    config = data.draw(configs(players), label="config")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    return play_game(config, seed, policy)


# ---------------------------------------------------------------------------------------------
# The rules, checked against the history of a finished game
# ---------------------------------------------------------------------------------------------


def check_game_follows_the_rules(game: PlayedGame) -> None:
    config, final = game.config, game.final
    n = config.players
    assert final.over, "every game terminates"
    targeting = bool(config.options.get("targeting"))

    # Setup: the rulebook's Good/Evil counts, the characters chosen, Servants/Minions for the rest.
    good, evil = GOOD_EVIL[n]
    assert [s.value for s in game.start.sides].count("good") == good
    assert [s.value for s in game.start.sides].count("evil") == evil
    specials = sorted(r for r in game.start.roles if r not in ("servant", "minion"))
    assert specials == sorted(config.roles)

    # Knowledge at the Reveal equals the rulebook oracle.
    assert reveal_knowledge(game.start) == oracle_knowledge(game.start.roles, config)

    # Walk the history.
    results: list[bool | None] = [None] * 5
    leader = final.first_leader
    rejections = 0
    proposals = 0
    quest_no = 0
    lady_holder = (final.first_leader - 1) % n if config.options.get("lady_of_the_lake") else None
    lady_held: list[int] = []
    votes: dict[int, str] = {}
    cards: dict[int, str] = {}
    team: list[int] = []
    slot: int | None = None
    assassinated: int | None = None
    ended_by: str | None = None
    for i, step in enumerate(game.steps):
        a, before = step.action, step.before
        types = [e.type for e in step.events]
        assert ended_by is None or (ended_by, a.kind) == ("three_successes", "assassinate")
        if a.kind == "propose":
            # Leadership passes to the next seat after every proposal (rejected or quest played).
            assert a.seat == leader
            slot = a.quest if a.quest is not None else results.index(None)
            assert results[slot] is None, "each quest is attempted once"
            if targeting:
                if slot == 4:
                    assert sum(r is True for r in results) >= 2, "quest 5 only after two successes"
            else:
                assert slot == results.index(None), "quests in order without Targeting"
            team = sorted(a.targets)
            assert len(set(team)) == len(team) == TEAM_CHART[n][slot], "team size from the chosen slot"
            assert all(0 <= t < n for t in team)
            votes, cards = {}, {}
            proposals += 1
            assert "TeamProposed" in types
        elif a.kind == "vote":
            assert a.seat not in votes, "every player votes once"
            votes[a.seat] = a.choice
            if len(votes) < n:
                assert "VotesRevealed" not in types, "votes are revealed together"
                assert after_proposal(step).votes == ""
                continue
            assert "VotesRevealed" in types
            approved = sum(v == "approve" for v in votes.values()) * 2 > n  # majority; a tie rejects
            record = after_proposal(step)
            assert record.votes == "".join("A" if votes[s] == "approve" else "R" for s in range(n))
            assert record.approved is approved
            leader = (leader + 1) % n if not approved else leader
            if not approved:
                rejections += 1
                if rejections == 5:
                    ended_by = "five_rejections"
        elif a.kind == "play":
            assert a.seat in team, "only team members play"
            assert a.seat not in cards
            if before.sides[a.seat] is Side.GOOD:
                assert a.choice == "success", "Good must play Success"
            cards[a.seat] = a.choice
            if len(cards) < len(team):
                assert "QuestCompleted" not in types
                continue
            completed = [e for e in step.events if e.type == "QuestCompleted"]
            assert len(completed) == 1
            data = completed[0].data
            fails = sum(c == "fail" for c in cards.values())
            success = fails < fails_needed(n, slot)
            assert data["quest"] == slot and data["success"] is success and data["fails"] == fails
            assert data["cards"] == {k: v for k, v in (("fail", fails), ("success", len(team) - fails)) if v}
            record = step.after.quests[quest_no]
            assert (record.quest, record.team, record.success) == (slot, team, success)
            quest_no += 1
            results[slot] = success
            rejections = 0
            leader = (leader + 1) % n
            if sum(r is True for r in results) == 3:
                ended_by = "three_successes"
            elif sum(r is False for r in results) == 3:
                ended_by = "three_failures"
        elif a.kind == "lady":
            assert config.options.get("lady_of_the_lake")
            assert quest_no in (2, 3, 4), "the Lady is used only after quests 2, 3 and 4"
            assert a.seat == lady_holder
            assert game.steps[i - 1].action.kind == "play", "immediately after the quest is resolved"
            (target,) = a.targets
            assert target != lady_holder and target not in lady_held
            seen = [e for e in step.events if e.type == "LoyaltySeen"]
            assert len(seen) == 1 and seen[0].to == (lady_holder,)
            assert seen[0].data == {"seat": target, "side": before.sides[target].value, "source": "lady"}
            lady_held.append(lady_holder)
            lady_holder = target
        elif a.kind == "assassinate":
            assert assassinated is None and ended_by == "three_successes"
            (assassinated,) = a.targets
            assert a.seat in designated_assassins(game)
            assert assassinated != a.seat
            known_evil = {k.seat for k in before.knowledge[a.seat] if k.label == "evil"}
            assert assassinated not in known_evil
        else:  # pragma: no cover - base games have no other decisions
            raise AssertionError(f"unexpected action {a}")

    # The Lady was used right after quests 2, 3 and 4, unless that quest decided the game.
    if config.options.get("lady_of_the_lake"):
        lady_quests = [len(st.before.quests) for st in game.steps if st.action.kind == "lady"]
        played = len(final.quests)
        assert played == quest_no
        assert lady_quests == [q for q in (2, 3, 4) if q < played or (q == played and ended_by == "five_rejections")]

    # The winner follows from the history.
    merlin_in_play = "merlin" in game.start.roles
    if ended_by == "five_rejections":
        assert (final.winner, final.win_reason) == (Side.EVIL, "five_rejections")
        assert assassinated is None
    elif ended_by == "three_failures":
        assert (final.winner, final.win_reason) == (Side.EVIL, "three_failures")
        assert assassinated is None
    else:
        assert ended_by == "three_successes"
        if merlin_in_play:
            assert assassinated is not None, "assassination when Merlin is in play and Good won by quests"
            hit = game.start.roles[assassinated] == "merlin"
            assert final.winner is (Side.EVIL if hit else Side.GOOD)
            assert final.win_reason == ("merlin_assassinated" if hit else "assassination_missed")
        else:
            assert assassinated is None
            assert (final.winner, final.win_reason) == (Side.GOOD, "three_successes")
    assert final.winners == [s for s in range(n) if final.sides[s] is final.winner]
    assert len(final.proposals) == proposals

    # The game replays exactly from its configuration, seed and action log, and survives storage as JSON.
    assert replay(config, game.seed, final.log) == final
    for state in (game.start, game.steps[len(game.steps) // 2].after, final):
        assert GameState.from_json(state.to_json()) == state


def designated_assassins(game: PlayedGame) -> set[int]:
    """The Assassin card; else the character the host designated; else a Minion (Big Box)."""
    roles = game.start.roles
    for role in ("assassin", game.config.assassin, "minion"):
        if role and role in roles:
            return {seat for seat, r in enumerate(roles) if r == role}
    return {seat for seat in range(len(roles)) if game.start.sides[seat] is Side.EVIL}


def after_proposal(step):
    return step.after.proposals[-1]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("players", PLAYERS)
@FAST
@given(data=st.data())
def test_random_games_follow_the_rules(players, policy, data):
    game = draw_game(data, players, policy)
    check_game_follows_the_rules(game)


# ---------------------------------------------------------------------------------------------
# Secrecy
# ---------------------------------------------------------------------------------------------

_SECRET_KEYS = {"role", "roles", "side", "sides"}


def check_no_view_leaks(game: PlayedGame, rng: random.Random) -> None:
    n = game.config.players
    states = [game.start] + [st.after for st in game.steps]
    for state in states:
        # Changing every secret hidden from a seat changes nothing that seat sees.
        for seat in rng.sample(range(n), 2):
            assert view(scrambled(state, seat, rng), seat) == view(state, seat)
        if not state.over:
            assert public_view(scrambled(state, None, rng)) == public_view(state)
    for event in game.events:
        if event.type == "GameEnded":
            continue
        if event.to is None:
            # Public events never name roles or sides, and quest results carry counts only.
            assert not _SECRET_KEYS & set(event.data), event
            assert "cards" not in event.data or set(event.data["cards"]) <= {"success", "fail"}
            assert event.type != "LoyaltySeen"
        else:
            assert len(event.to) == 1, event
    assert game.final.over


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("players", PLAYERS)
@FAST
@given(data=st.data())
def test_no_view_shows_another_seats_secret(players, policy, data):
    game = draw_game(data, players, policy)
    check_no_view_leaks(game, random.Random(game.seed))


# ---------------------------------------------------------------------------------------------
# Illegal actions
# ---------------------------------------------------------------------------------------------

_KINDS = ("propose", "vote", "play", "lady", "assassinate", "loyalty_card", "excalibur")
_CHOICES = (None, "approve", "reject", "success", "fail", "pass", "good", "evil", "maybe")


def _norm(state, action: Action) -> tuple:
    """An action reduced to the fields the rules read for its kind."""
    if action.kind == "propose":
        quest = action.quest
        if quest is None:
            ps = [p for p in prompts(state, action.seat) if p.kind == "propose"]
            sizes = ps[0].info["sizes"] if ps else {}
            quest = int(next(iter(sizes))) if len(sizes) == 1 else None
        return (action.seat, action.kind, tuple(sorted(action.targets)), quest)
    if action.kind in ("lady", "assassinate"):
        return (action.seat, action.kind, action.targets)
    return (action.seat, action.kind, action.choice)


def _random_action(rng: random.Random, state) -> Action:
    n = state.n
    legal = [a for s in range(n) for a in legal_actions(state, s)] if rng.random() < 0.5 else []
    if legal:  # a near-miss: one field of a legal action changed
        a = rng.choice(legal)
        field = rng.choice(["seat", "targets", "choice", "quest", "kind"])
        change = {
            "seat": rng.randrange(n),
            "targets": tuple(rng.randrange(-1, n + 1) for _ in range(rng.randrange(0, 6))),
            "choice": rng.choice(_CHOICES),
            "quest": rng.choice([None, -1, 0, 1, 2, 3, 4, 5]),
            "kind": rng.choice(_KINDS),
        }[field]
        return a.model_copy(update={field: change})
    return Action(
        seat=rng.randrange(-1, n + 1),
        kind=rng.choice(_KINDS),
        targets=tuple(rng.randrange(-1, n + 1) for _ in range(rng.randrange(0, 6))),
        choice=rng.choice(_CHOICES),
        quest=rng.choice([None, None, -1, 0, 1, 2, 3, 4, 5]),
    )


def check_illegal_actions_change_nothing(game: PlayedGame, rng: random.Random) -> None:
    states = [game.start] + [st.after for st in game.steps]
    tried = refused = 0
    for state in rng.sample(states, min(len(states), 25)):
        before = state.model_dump()
        before_json = state.to_json()
        all_legal = [a for s in range(state.n) for a in legal_actions(state, s)]
        legal = {_norm(state, a) for a in all_legal}
        for a in rng.sample(all_legal, min(len(all_legal), 5)):
            apply_action(state, a)  # every enumerated action is accepted
        assert bool(all_legal) is not state.over
        for _ in range(6):
            action = _random_action(rng, state)
            tried += 1
            try:
                apply_action(state, action)
            except IllegalAction as err:
                refused += 1
                assert isinstance(err, TYPED_ERRORS), err
                assert err.reason and isinstance(err.reason, str) and err.code
                assert state.model_dump() == before and state.to_json() == before_json
                assert _norm(state, action) not in legal, f"refused a legal action: {action}"
            else:
                assert _norm(state, action) in legal, f"accepted an action legal_actions lacks: {action}"
    assert refused, "some random actions were refused"
    assert tried


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("players", PLAYERS)
@FAST
@given(data=st.data())
def test_random_illegal_actions_never_change_the_state(players, policy, data):
    game = draw_game(data, players, policy)
    check_illegal_actions_change_nothing(game, random.Random(game.seed))
