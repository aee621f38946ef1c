"""Shared helpers for the rules-engine tests.

* Games are built with ``tests.builder`` (``make_state``, ``new_game``), never by editing a state.
* small drivers: ``act``, ``propose``, ``vote``, ``play``, ``run_quest``.
* ``oracle_knowledge``: what each seat learns at the Reveal, written from the rulebook scripts
  (000/002 Avalon, 003 The Resistance), independent of ``engine.reveal``.
* ``play_game``: plays a full game (bots or purely random legal moves) and records every step.
* ``scrambled``: a copy of a state where every secret hidden from one seat is changed (leak checks).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine import (
    Action,
    Event,
    GameConfig,
    GameState,
    Side,
    Theme,
    actors,
    apply_action,
    legal_actions,
    new_game,
    prompts,
)
from engine.policy import ai_seat_move

# Rulebook charts, copied from the rulebooks (not imported from the engine) so tests check the engine.
GOOD_EVIL = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}
TEAM_CHART = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}
GOOD_ROLES = ("merlin", "percival")
EVIL_ROLES = ("assassin", "morgana", "mordred", "oberon")
BASE_SPECIALS = GOOD_ROLES + EVIL_ROLES

# Names used by the rulebook examples, in seating (clockwise) order.
WALTER, THOMAS, LAURA, EVIE, JUSTIN, MARGARET, DON = range(7)


def fails_needed(players: int, slot: int) -> int:
    """Rulebook: the 4th quest (and only it) needs two Fails with 7 or more players."""
    return 2 if slot == 3 and players >= 7 else 1


# ---------------------------------------------------------------------------------------------
# Drivers
# ---------------------------------------------------------------------------------------------


def act(
    state: GameState,
    seat: int,
    kind: str,
    targets: tuple[int, ...] | list[int] = (),
    choice: str | None = None,
    quest: int | None = None,
) -> tuple[GameState, list[Event]]:
    return apply_action(state, Action(seat=seat, kind=kind, targets=tuple(targets), choice=choice, quest=quest))


def propose(state: GameState, team, quest: int | None = None) -> tuple[GameState, list[Event]]:
    return act(state, state.leader, "propose", tuple(team), quest=quest)


def vote(state: GameState, approve=None) -> tuple[GameState, list[Event]]:
    """Every seat votes (in seat order); ``approve`` is the set of approving seats (default: all)."""
    approve = set(range(state.n)) if approve is None else set(approve)
    events: list[Event] = []
    for seat in range(state.n):
        state, ev = act(state, seat, "vote", choice="approve" if seat in approve else "reject")
        events += ev
    return state, events


def play(state: GameState, fails=()) -> tuple[GameState, list[Event]]:
    """Every team member plays a card; seats in ``fails`` play Fail, the others Success."""
    events: list[Event] = []
    for seat in list(state.team):
        state, ev = act(state, seat, "play", choice="fail" if seat in fails else "success")
        events += ev
    return state, events


def run_quest(state: GameState, team, fails=(), quest: int | None = None) -> tuple[GameState, list[Event]]:
    """Propose ``team``, approve it unanimously, play the cards."""
    state, e1 = propose(state, team, quest)
    state, e2 = vote(state)
    state, e3 = play(state, fails)
    return state, e1 + e2 + e3


def reject(state: GameState, team=None) -> tuple[GameState, list[Event]]:
    """The Leader proposes (by default the first seats) and everybody rejects."""
    if team is None:
        prompt = [p for p in prompts(state, state.leader) if p.kind == "propose"][0]
        team = tuple(range(prompt.pick))
    state, e1 = propose(state, team)
    state, e2 = vote(state, approve=())
    return state, e1 + e2


def good_seats(state: GameState) -> list[int]:
    return [s for s in range(state.n) if state.sides[s] is Side.GOOD]


def evil_seats(state: GameState) -> list[int]:
    return [s for s in range(state.n) if state.sides[s] is Side.EVIL]


# ---------------------------------------------------------------------------------------------
# Reveal oracle (rulebook scripts, written independently of engine.reveal)
# ---------------------------------------------------------------------------------------------

# "Minions of Mordred, not Oberon - open your eyes and look around": Mordred's agents bar Oberon.
_EYES_OPEN_TOGETHER = {"assassin", "minion", "mordred", "morgana"}
# "Minions of Mordred, not Mordred himself - extend your thumb so that Merlin will know of you":
# Oberon is an agent of Evil and extends his thumb too (Merlin sees Oberon; only Mordred is hidden).
_THUMBS_FOR_MERLIN = {"assassin", "minion", "morgana", "oberon"}
# "Merlin & Morgana - extend your thumb so that Percival may know of you".
_THUMBS_FOR_PERCIVAL = {"merlin", "morgana"}


def oracle_knowledge(roles: list[str], config: GameConfig) -> list[set[tuple[int, str]]]:
    """For each seat, the set of (seat seen, label) it learns at the Reveal."""
    n = len(roles)
    known: list[set[tuple[int, str]]] = [set() for _ in range(n)]
    blind = bool(config.options.get("blind_spies"))
    percival_label = "merlin_or_morgana" if "morgana" in roles else "merlin"
    for me, role in enumerate(roles):
        for other, theirs in enumerate(roles):
            if other == me:
                continue
            # The Spies' / Minions' reveal (skipped with Blind Spies).
            if not blind and role in _EYES_OPEN_TOGETHER and theirs in _EYES_OPEN_TOGETHER:
                known[me].add((other, "evil"))
            if role == "merlin" and theirs in _THUMBS_FOR_MERLIN:
                known[me].add((other, "evil"))
            if role == "percival" and theirs in _THUMBS_FOR_PERCIVAL:
                known[me].add((other, percival_label))
    # Big Box: with Merlin and no Assassin card, "designate any other Evil character to serve as the
    # Assassin". The host's choice, else a Minion, else the first Evil character chosen; the agents of
    # Evil who open their eyes together with them are told.
    if "merlin" in roles and "assassin" not in roles:
        chosen = [r for r in config.roles if r in EVIL_ROLES]
        role = config.assassin or ("minion" if "minion" in roles else chosen[0])
        designated = roles.index(role)
        for me, mine in enumerate(roles):
            if (me != designated and not blind and mine in _EYES_OPEN_TOGETHER
                    and role in _EYES_OPEN_TOGETHER):
                known[me].add((designated, "assassinates"))
    return known


def reveal_knowledge(state: GameState) -> list[set[tuple[int, str]]]:
    return [{(k.seat, k.label) for k in ks if k.source == "reveal"} for ks in state.knowledge]


# ---------------------------------------------------------------------------------------------
# Random legal role sets and full games
# ---------------------------------------------------------------------------------------------


def legal_setups(players: int, theme: Theme = Theme.AVALON) -> list[tuple[str, ...]]:
    """Every legal set of base special characters for ``players`` (rulebook counts, Morgana needs Percival)."""
    if theme is Theme.RESISTANCE:
        return [()]
    good, evil = GOOD_EVIL[players]
    out = []
    for mask in range(1 << len(BASE_SPECIALS)):
        chosen = tuple(r for i, r in enumerate(BASE_SPECIALS) if mask >> i & 1)
        if sum(r in GOOD_ROLES for r in chosen) > good or sum(r in EVIL_ROLES for r in chosen) > evil:
            continue
        if "morgana" in chosen and "percival" not in chosen:
            continue
        out.append(chosen)
    return out


@dataclass
class Step:
    action: Action
    before: GameState
    after: GameState
    events: list[Event]


@dataclass
class PlayedGame:
    config: GameConfig
    seed: int
    start: GameState
    start_events: list[Event]
    final: GameState
    steps: list[Step] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        return self.start_events + [e for st in self.steps for e in st.events]



POLICIES = ("ai_seats", "random")  # how next_action and play_game choose each move


def next_action(state: GameState, rng: random.Random, policy: str) -> Action:
    """One move by a random seat that may act: an AI seat's choice (``policy="ai_seats"``) or any legal one
    (``"random"``)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: one of {POLICIES}")
    seat = rng.choice(actors(state))
    if policy == "ai_seats":
        return ai_seat_move(state, seat, rng)
    return rng.choice(legal_actions(state, seat))

def play_game(config: GameConfig, seed: int, policy: str = "ai_seats", max_actions: int = 3000) -> PlayedGame:
    """Play a full game. ``ai_seats``: engine.policy.ai_seat_move; ``random``: any action of legal_actions."""
    rng = random.Random(seed)
    state, events = new_game(config, seed)
    game = PlayedGame(config=config, seed=seed, start=state, start_events=events, final=state)
    for _ in range(max_actions):
        if state.over:
            break
        action = next_action(state, rng, policy)
        after, ev = apply_action(state, action)
        game.steps.append(Step(action, state, after, ev))
        state = after
    game.final = state
    return game


# ---------------------------------------------------------------------------------------------
# Secrecy helpers
# ---------------------------------------------------------------------------------------------

_JUNK_ROLES = ("servant", "minion", "merlin", "assassin", "percival", "morgana", "mordred", "oberon")


def scrambled(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """A copy of ``state`` where every secret ``seat`` may not know is changed.

    Changed for every other seat: the role and the side (before the end), the private knowledge; the vote
    (only its value; the public knows who voted and, once revealed, the proposal records the votes); the
    quest card played (only its value; counts are in the quest record). ``seat=None`` scrambles all seats.
    """
    s = GameState.model_validate(state.model_dump())
    others = [x for x in range(s.n) if x != seat]
    for x in others:
        if not s.over:
            s.roles[x] = rng.choice([r for r in _JUNK_ROLES if r != s.roles[x]])
            s.sides[x] = s.sides[x].other
        s.knowledge[x] = [k.model_copy(update={"label": "scrambled"}) for k in s.knowledge[x]]
        s.knowledge[x].append(_junk_knowledge(rng, s.n))
        if x in s.votes:
            s.votes[x] = not s.votes[x]
        if x in s.cards:
            s.cards[x] = "fail" if s.cards[x] == "success" else "success"
    return s


def _junk_knowledge(rng: random.Random, n: int):
    from engine.models import Knowledge

    return Knowledge(seat=rng.randrange(n), label="evil", source="reveal")
