"""The group never learns a hidden role before the end, with every role and module: whole games played
to their end (each set-up, seeds 1 to 3), no group message before the end phase names a role that is
not public by the rules, and every group message of every state change is the same when it is rendered
again with the hidden roles dealt to other seats (non-interference, as tests/property/
test_secrecy_permutations.py checks for what each seat receives)."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

import engine
from engine import GameState
from gamebot.compose import game as game_messages
from gamebot.language.texts import name_of
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver, covered_roles, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen

SEEDS = [1, 2, 3]
END_PHASE = ("one last chance", "tries to recruit the Untrustworthy Servant", "Game over")
# Public by the rules: the Revealer turns their loyalty face up after the second failed quest.
RULED_PUBLIC = [re.compile(r"reveals themself: <b>" + re.escape(name_of("role", "revealer")) + "</b>"),
                re.compile(r"^🎭 .+ is " + re.escape(name_of("role_a", "revealer")) + r" \(", re.M)]  # the board


def _role_patterns() -> dict[str, re.Pattern[str]]:
    out = {}
    for rid in engine.ROLES:
        name = re.sub(r"^(the|a|an) ", "", name_of("role", rid))
        out[rid] = re.compile(r"\b" + re.escape(name) + r"(?![a-z])")
    return out


@dataclass
class Played:
    """A game played to its end: the group outs of each update, and every ``game_outs`` call with the
    harness's deps (what the game's messages were made of, to make them again)."""

    per_update: list[list[Any]]
    calls: list[tuple[Any, ...]]
    deps: Any


@cache
def played(setup: str, seed: int) -> Played:
    """``setup`` played with ``seed``, once for both tests below (the same game: same seed, same policy)."""
    game_outs = game_messages.game_outs
    calls: list[tuple[Any, ...]] = []

    def recording(deps, s, before, after, events, trigger):
        calls.append((s.model_copy(deep=True), before, after, events, trigger))
        return game_outs(deps, s, before, after, events, trigger)

    h = Harness(seed=seed)
    game_messages.game_outs = recording
    try:
        per_update = _play(setup, seed, h)
    finally:
        game_messages.game_outs = game_outs
        h.close()
    return Played(per_update, calls, h.service.deps)


def _play(setup: str, seed: int, h: Harness) -> list[list[Any]]:
    """Play ``setup``; the group outs of each update, from the start to the end."""
    theme, n, roles, options = SETUPS[setup]
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    per_update: list[list[Any]] = []
    send = h.send

    def recorded(update: dict[str, Any]) -> int:
        start = len(h.io.outs)
        status = send(update)
        per_update.append([o for o in h.io.outs[start:] if o.chat_id == GROUP and o.text])
        return status

    h.send = recorded
    h.press_label(1, GROUP, "Start")
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed), fail_rate=0.4))
    driver.play()
    assert driver.over()
    return per_update


def test_the_setups_cover_every_character():
    assert covered_roles() | {"servant", "minion"} == set(engine.ROLES)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_no_group_message_before_the_end_names_a_hidden_role(setup):
    patterns = _role_patterns()
    for seed in SEEDS:
        checked = 0
        for outs in played(setup, seed).per_update:
            if any(marker in o.text for o in outs for marker in END_PHASE):
                break  # the end phase: Evil reveals itself (assassination, recruitment), then every role
            for o in outs:
                text = o.text
                for ruled in RULED_PUBLIC:
                    text = ruled.sub("", text)
                named = [rid for rid, pattern in patterns.items() if pattern.search(text)]
                assert named == [], (named, o.tag, o.text)
                checked += 1
        assert checked > 20


def _permuted(state: GameState | None, perm: list[int], rng: random.Random) -> GameState | None:
    """The same public history with the hidden roles dealt differently: roles, sides and knowledge move
    to other seats; undisclosed votes and quest cards are shuffled among those who cast them."""
    if state is None or state.over:
        return state
    s = GameState.model_validate(state.model_dump())
    s.roles = [state.roles[p] for p in perm]
    s.sides = [state.sides[p] for p in perm]
    s.knowledge = [state.knowledge[p] for p in perm]
    voters, values = list(s.votes), list(s.votes.values())
    rng.shuffle(values)
    s.votes = dict(zip(voters, values, strict=True))
    players, cards = list(s.cards), list(s.cards.values())
    rng.shuffle(cards)
    s.cards = dict(zip(players, cards, strict=True))
    return s


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_group_messages_are_the_same_whoever_holds_the_hidden_roles(setup):
    """Every state change of real games is rendered again with the hidden roles dealt to other seats (and
    undisclosed votes and cards moved around, private events dropped): the group sees the same."""
    for seed in SEEDS[:2]:
        game = played(setup, seed)

        def original(*args, deps=game.deps):
            return game_messages.game_outs(deps, *args).outs

        rng = random.Random(seed)
        compared = 0
        for s, before, after, events, trigger in game.calls:
            if after.over:
                continue  # the end reveals every role
            perm = list(range(after.n))
            rng.shuffle(perm)
            public = [e for e in events if e.to is None]
            real = original(s.model_copy(deep=True), before, after, events, trigger)
            other = original(s.model_copy(deep=True), _permuted(before, perm, rng), _permuted(after, perm, rng),
                             public, trigger)
            group = [(o.op, o.message_id, o.text, o.keyboard) for o in real if o.chat_id == GROUP]
            assert group == [(o.op, o.message_id, o.text, o.keyboard) for o in other if o.chat_id == GROUP]
            compared += 1
        assert compared > 50
