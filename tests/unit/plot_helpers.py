"""Drivers for the Plot-card tests (test_plot_cards.py and the audits that play Plot cards).

``start`` builds a real game with ``new_game``; ``drawing`` finds the first seed whose shuffle makes the
Leader draw the cards a test needs. ``ready``, ``edit`` and ``give`` arrange the deck or the hands by
hand (a game where nobody holds a card, then chosen hands; a nearly empty deck): positions the seeded
shuffle could give but the engine's API cannot choose. Seats are relative to the Leader (``seat_of``).
"""
from __future__ import annotations

from engine import Action, GameConfig, GameState, Theme, apply_action, new_game, prompts

MOD = "plot_cards"




def act(state, seat, kind, targets=(), choice=None):
    return apply_action(state, Action(seat=seat, kind=kind, targets=tuple(targets), choice=choice))


def edit(state: GameState, fn) -> GameState:
    new = state.model_copy(deep=True)
    fn(new.mods[MOD], new)
    return GameState.model_validate(new.model_dump())


def mod(state: GameState) -> dict:
    return state.mods[MOD]


def start(n: int, seed: int = 0, theme: Theme = Theme.AVALON, roles=None) -> GameState:
    """A new game with Plot cards at its first deal: the Leader's ``plot_deal`` decision."""
    if roles is None:
        roles = ("merlin", "assassin") if theme is Theme.AVALON else ()
    config = GameConfig(players=n, theme=theme, roles=roles, options={MOD: True})
    state, _ = new_game(config, seed)
    assert state.pending and state.pending[0].kind == "plot_deal"
    return state


def drawing(n: int, cards: list[str], theme: Theme = Theme.AVALON) -> GameState:
    """A new game (``start``) whose Leader draws exactly ``cards`` first: the first seed that deals them."""
    for seed in range(5000):
        state = start(n, seed, theme)
        if mod(state)["drawn"] == cards:
            return state
    raise AssertionError(f"no seed makes the Leader draw {cards}")


def ready(n: int, seed: int = 0, theme: Theme = Theme.AVALON, hands=None) -> GameState:
    """A game at its first team proposal with nobody holding a Plot card, then ``hands`` given out.

    The first draw is replaced by Take Responsibility cards: with no Plot card at the table they are
    discarded without effect, so the round starts clean.
    """
    state = start(n, seed, theme)
    k = len(mod(state)["drawn"])
    state = edit(state, lambda m, s: m.update(drawn=["take_responsibility"] * k))
    for _ in range(k):
        state, _ = act(state, state.leader, "plot_deal", [(state.leader + 1) % n])
    assert state.stage == "team" and not state.pending
    return give(state, hands or {})


def give(state: GameState, hands: dict[int, list[str]]) -> GameState:
    def fn(m, s):
        for seat, cards in hands.items():
            m["hands"][seat] = list(cards)

    return edit(state, fn)


def seat_of(state: GameState, offset: int) -> int:
    return (state.leader + offset) % state.n


def pending_of(state: GameState):
    return state.pending[0] if state.pending else None


def propose(state: GameState, team=None):
    if team is None:
        size = prompts(state, state.leader)[0].pick
        team = [seat_of(state, i) for i in range(size)]
    return act(state, state.leader, "propose", sorted(team))


def vote_all(state: GameState, approve=True):
    """Everybody still to vote votes, whoever the engine asks first."""
    events = []
    while True:
        seats = [s for s in range(state.n) if any(p.kind == "vote" for p in prompts(state, s))]
        if not seats:
            return state, events
        state, ev = act(state, seats[0], "vote", choice="approve" if approve else "reject")
        events += ev


def play_all(state: GameState, fails=()):
    events = []
    for seat in list(state.team):
        if prompts(state, seat) and prompts(state, seat)[0].kind == "play":
            state, ev = act(state, seat, "play", choice="fail" if seat in fails else "success")
            events += ev
    return state, events


def public_events(events):
    return [e for e in events if e.public]
