"""Property tests over random legal combinations of EVERY character, module, option and variant at once
(Lancelot variants, Big Box characters and modules, Lady of the Lake, Targeting, Excalibur, Trapper, Plot
cards, Blind Spies, both themes), played by the AI seats' policy and by purely random legal moves.

Each game is checked against oracles written from the rulebooks (``audit_helpers``), not against the
engine's bookkeeping: it ends; it replays from its seed and log; every quest card offered obeys every card
rule; the Reveal teaches each seat exactly what the scripts say; the seat that assassinates (or recruits)
is the one the Untrustworthy Servant was shown, is Evil, and may assassinate; the winners follow the
current sides (or the Rogue's solo win); no view shows another seat's secret and views never change the
state; a move that reveals nothing by rule looks the same to the table whatever the characters are; public
events carry no secret.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ROLES,
    GameState,
    Side,
    actors,
    apply_action,
    legal_actions,
    new_game,
    prompts,
    public_view,
    replay,
    view,
)
from engine.policy import ai_seat_move
from tests.unit.audit_helpers import LANCELOTS, expected_cards, expected_reveal, hide_secrets, random_setup

AUDIT = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
ASSASSIN_MOVES = ("assassinate", "assassin_target", "recruit")
# Moves whose public outcome may depend on secrets by rule: cards and votes are revealed, the Assassin's and the
# Recruiter's guesses are answered, a quest resolves after Excalibur, the Trapper or Ambush. Every other move
# (proposals, Lady of the Lake, Watch token, Excalibur given, every Plot card) must look the same to the table
# whatever the characters are.
REVEALING_MOVES = (
    "play", "vote", "assassinate", "recruit", "assassin_target", "loyalty_card", "excalibur", "trap",
    "plot_keeping_close_eye",
)
# Public events that name a character by rule: the Revealer shows themself, a Rogue's victory, the end.
PUBLIC_ROLE_EVENTS = ("RevealerRevealed", "RogueWon", "RoguePartialVictory", "GameEnded")
PRIVATE_ONLY = ("LoyaltySeen", "LoyaltyGiven", "QuestCardSeen", "CardSeen", "CardSwitched", "RoleDealt",
                "AllegianceSwitched", "MessengerRankDealt")


def _config_and_seed(seed: int):
    rng = random.Random(seed)
    while True:
        config = random_setup(rng)
        if config is not None:
            return config, rng.randrange(2**31)


def _assassin_told(state: GameState) -> int | None:
    told = {k.seat for ks in state.knowledge for k in ks if k.label == "assassin" and k.source == "reveal"}
    assert len(told) <= 1
    return next(iter(told), None)


def _check_assassin_is_legal(state: GameState, seat: int) -> None:
    """Big Box: the Assassin card, else the designated Evil character, else any Evil character."""
    config, roles = state.config, state.roles
    if "assassin" in roles:
        assert roles[seat] == "assassin"
    elif config.assassin:
        assert roles[seat] == config.assassin
    elif "minion" in roles:
        assert roles[seat] == "minion"
    role = ROLES[roles[seat]]
    assert role.side is Side.EVIL and roles[seat] != "evil_rogue"
    assert not (roles[seat] in LANCELOTS and config.options.get("lancelot")), "a Lancelot who may switch"


def _check_reveal(start: GameState) -> None:
    config, roles = start.config, start.roles
    assassin = _assassin_told(start)
    if "untrustworthy_servant" in roles and ("assassin" in roles or "merlin" in roles or "evil_messenger" in roles):
        assert assassin is not None
        _check_assassin_is_legal(start, assassin)
    learned = [{(k.seat, k.label) for k in ks if k.source == "reveal"} for ks in start.knowledge]
    ranks = [{x for x in ks if x[1] == "junior_messenger"} for ks in learned]
    expected = expected_reveal(roles, config, assassin)
    assert [k - r for k, r in zip(learned, ranks, strict=True)] == expected
    # Senior/Junior Messengers: exactly one Good Messenger learns the other as the Junior.
    messengers = [s for s, r in enumerate(roles) if r == "good_messenger"]
    seniors = [s for s in range(len(roles)) if ranks[s]]
    if config.options.get("senior_junior_messengers"):
        assert len(seniors) == 1 and seniors[0] in messengers
        assert ranks[seniors[0]] == {(next(m for m in messengers if m != seniors[0]), "junior_messenger")}
    else:
        assert not seniors


def _check_secrecy(state: GameState, rng: random.Random) -> None:
    before = state.model_dump()
    for seat in rng.sample(range(state.n), 2):
        assert view(hide_secrets(state, seat, rng), seat) == view(state, seat)
    if not state.over:
        assert public_view(hide_secrets(state, None, rng)) == public_view(state)
    assert state.model_dump() == before, "a view changed the state"


def _check_same_public_outcome(before: GameState, action, after: GameState, rng: random.Random) -> None:
    """Non-interference: the same move with the characters dealt differently (and every other secret
    changed) must look the same to the table. E.g. who the Lady examines is public; what they are, and
    whether they may lie, is not."""
    other = hide_secrets(before, None, rng)
    assert public_view(apply_action(other, action)[0]) == public_view(after)


def _check_events(events) -> None:
    for event in events:
        if event.public:
            assert event.type not in PRIVATE_ONLY, event
            if event.type not in PUBLIC_ROLE_EVENTS:
                assert not {"role", "roles", "side", "sides"} & set(event.data), event
        else:
            assert len(event.to) in (1, 2), event  # a seat, or the two Lancelots


def play_and_check(seed: int, policy: str) -> GameState:
    config, game_seed = _config_and_seed(seed)
    rng = random.Random(game_seed)
    state, events = new_game(config, game_seed)
    _check_reveal(state)
    _check_events(events)
    told = _assassin_told(state)
    watched: int | None = None
    good_messages = [0] * state.n
    recruited = False
    for step in range(3000):
        if state.over:
            break
        seat = rng.choice(actors(state))
        action = ai_seat_move(state, seat, rng) if policy == "ai_seats" else rng.choice(legal_actions(state, seat))
        if action.kind == "propose":
            watched = None
        elif action.kind == "watch":
            watched = action.targets[0]
        elif action.kind == "play":
            allowed = expected_cards(state, seat, watched == seat, good_messages[seat])
            assert set(prompts(state, seat)[0].choices) == allowed, (state.roles[seat], state.sides[seat])
            good_messages[seat] += action.choice in ("good_message", "evil_message")
        elif action.kind in ASSASSIN_MOVES:
            assert state.sides[seat] is Side.EVIL
            if recruited:
                assert state.roles[seat] == "untrustworthy_servant"
            else:
                _check_assassin_is_legal(state, seat)
                assert told is None or seat == told
        if step % 7 == 0:
            _check_secrecy(state, rng)
        before = state
        state, events = apply_action(state, action)
        if action.kind not in REVEALING_MOVES and not state.over:
            _check_same_public_outcome(before, action, state, rng)
        _check_events(events)
        recruited = recruited or any(e.type == "RecruitmentAttempted" and e.data["recruited"] for e in events)
    assert state.over and state.winner is not None, "every game ends"
    _check_secrecy(state, rng)
    if state.win_reason in ("good_rogue_solo", "evil_rogue_solo"):
        assert state.winners == [state.roles.index(state.win_reason.removesuffix("_solo"))]
    else:
        assert state.winners == [s for s in range(state.n) if state.sides[s] is state.winner]
    assert replay(config, game_seed, state.log) == state
    assert GameState.from_json(state.to_json()) == state
    return state


@pytest.mark.slow
@AUDIT
@given(seed=st.integers(0, 2**32), policy=st.sampled_from(["ai_seats", "random"]))
def test_random_games_with_every_module_keep_every_rule_and_every_secret(seed, policy):
    play_and_check(seed, policy)
