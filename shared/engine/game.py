"""The round structure: setup, team building, vote, quest, resolution and the end of the game.

The game is a small stage machine. Input stages wait for players (``team``, ``vote``, ``quest``).
Hook stages call every active plug-in's hook in turn; a hook that needs a decision pushes a
:class:`~engine.models.Pending`, and the machine resumes at the next plug-in once it is answered.
``apply_action`` never mutates its argument: it works on a copy and returns the new state and the
events it produced, so an illegal action leaves the state exactly as it was.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations

from . import cards as card_registry
from . import timeouts
from .basics import (
    MAX_PLAYERS,
    MAX_REJECTIONS,
    MIN_PLAYERS,
    QUESTS,
    SIDES_BY_PLAYERS,
    TEAM_SIZES,
    WINS_NEEDED,
    Side,
    fails_required,
)
from .errors import (
    AlreadyActed,
    CardNotAllowed,
    DuplicatePlayer,
    GameOver,
    IllegalAction,
    InvalidChoice,
    InvalidConfig,
    InvalidTarget,
    NotOnTeam,
    NotYourTurn,
    WrongPhase,
    WrongTeamSize,
)
from .models import Action, ConfigIssue, Event, GameConfig, GameState, Prompt, Proposal, QuestRecord
from .plugin import ALL, ROLES, TIMEOUT, Ctx, Tally, active_plugins, issue, option_owners
from .reveal import compute_reveal

INPUT_STAGES = {"team": "propose", "vote": "vote", "quest": "play"}

# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------

FILLER = {Side.GOOD: "servant", Side.EVIL: "minion"}


def validate_config(config: GameConfig) -> list[ConfigIssue]:
    """Every problem with a configuration: errors forbid it, warnings are advice for the host."""
    found: list[ConfigIssue] = []
    n = config.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        found.append(
            issue("error", "player_count", f"The game needs 5 to 10 players, not {n}.", players=n)
        )
        return found
    good_seats, evil_seats = SIDES_BY_PLAYERS[n]
    unknown = [r for r in config.roles if r not in ROLES]
    for r in unknown:
        found.append(issue("error", "unknown_role", f"There is no character called '{r}'.", role=r))
    roles = [ROLES[r] for r in config.roles if r in ROLES]
    counts = Counter(r.id for r in roles)
    for rid, c in counts.items():
        role = ROLES[rid]
        if role.filler:
            found.append(
                issue("error", "filler_role", f"'{rid}' fills empty seats by itself.", role=rid)
            )
        elif c > role.max_count:
            found.append(
                issue("error", "duplicate_role", f"Only {role.max_count} × '{rid}' may play.", role=rid)
            )
        if config.theme not in role.themes:
            found.append(
                issue(
                    "error",
                    "wrong_theme",
                    f"'{rid}' is not part of {config.theme.value.title()}.",
                    role=rid,
                    theme=config.theme.value,
                )
            )
    good = sum(1 for r in roles if r.side is Side.GOOD)
    evil = sum(1 for r in roles if r.side is Side.EVIL)
    if good > good_seats:
        found.append(
            issue(
                "error",
                "too_many_good",
                f"{good} Good characters chosen but a {n}-player game has only {good_seats} Good seats.",
                chosen=good,
                seats=good_seats,
            )
        )
    if evil > evil_seats:
        found.append(
            issue(
                "error",
                "too_many_evil",
                f"{evil} Evil characters chosen but a {n}-player game has only {evil_seats} Evil seats.",
                chosen=evil,
                seats=evil_seats,
            )
        )
    owners = option_owners()
    for key, value in config.options.items():
        owner = owners.get(key)
        if owner is None:
            found.append(issue("error", "unknown_option", f"There is no option called '{key}'.", option=key))
        elif value and config.theme not in owner.themes:
            found.append(
                issue(
                    "error",
                    "option_wrong_theme",
                    f"'{key}' is not part of {config.theme.value.title()}.",
                    option=key,
                    theme=config.theme.value,
                )
            )
    if found:
        return found
    active = active_plugins(config)
    for plugin in active:
        found.extend(plugin.validate(config))
    for plugin in ALL.values():
        for key in plugin.option_keys:
            if config.options.get(key) and plugin not in active:
                found.append(
                    issue(
                        "warning",
                        "option_without_effect",
                        f"The option '{key}' has no effect: '{plugin.id}' is not in this game.",
                        option=key,
                        needs=plugin.id,
                    )
                )
    return found


def _deck(config: GameConfig) -> list[str]:
    good_seats, evil_seats = SIDES_BY_PLAYERS[config.players]
    deck = list(config.roles)
    good = sum(1 for r in deck if ROLES[r].side is Side.GOOD)
    evil = len(deck) - good
    deck += [FILLER[Side.GOOD]] * (good_seats - good) + [FILLER[Side.EVIL]] * (evil_seats - evil)
    return deck


# ---------------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------------


def new_game(
    config: GameConfig, seed: int, deal: list[str] | tuple[str, ...] | None = None
) -> tuple[GameState, list[Event]]:
    """Deal the roles, pick the first Leader, run the reveal and stop at the first decision.

    ``deal``: the character of each seat, chosen instead of shuffled (tests, what-if checks). It must
    be the deck this configuration deals; the game draws the same randomness as the seeded shuffle, so
    everything after the deal (first Leader, Plot deck...) is what the seed alone would give. The deal
    is recorded in the state (``GameState.deal``) so that the game replays."""
    problems = [i for i in validate_config(config) if i.level == "error"]
    if problems:
        raise InvalidConfig(problems)
    n = config.players
    state = GameState(
        config=config,
        seed=seed,
        roles=[],
        sides=[],
        knowledge=[[] for _ in range(n)],
        first_leader=0,
        leader=0,
    )
    ctx = Ctx(state)
    deck = _deck(config)
    ctx.rng().shuffle(deck)
    if deal is not None:
        if sorted(deal) != sorted(deck):
            raise InvalidConfig(
                [issue("error", "bad_deal", "The deal must hold exactly the characters of this game.")]
            )
        deck = list(deal)
        state.deal = list(deal)
    state.roles = deck
    state.sides = [ROLES[r].side for r in deck]
    state.first_leader = state.leader = ctx.rng().randrange(n)
    for plugin in ctx.plugins():
        plugin.setup(ctx)
    compute_reveal(ctx)
    ctx.emit("GameStarted", players=n, theme=config.theme.value, leader=state.leader)
    for seat in range(n):
        ctx.emit("RoleDealt", to=[seat], role=state.roles[seat], side=state.sides[seat].value)
    state.stage = "reveal"
    _advance(ctx)
    return state, ctx.events


# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------


def apply_action(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """Apply one move. Returns the new state and the events; raises IllegalAction if refused."""
    if state.over:
        raise GameOver("The game is over.")
    if not 0 <= action.seat < state.n:
        raise InvalidTarget("That seat is not at this table.", seat=action.seat)
    if action.kind == TIMEOUT:
        new, ctx = _timeout(state, action)
    else:
        new = _copy(state)
        ctx = Ctx(new)
        _route(ctx, action)
    new.log.append(action.encode())
    _advance(ctx)
    return new, ctx.events


def _copy(state: GameState) -> GameState:
    return GameState.model_validate(state.model_dump())  # a deep copy, 4x faster than deepcopy


def _route(ctx: Ctx, action: Action) -> None:
    """Hand ``action`` to the decision waiting first, or to the input stage's handler."""
    new = ctx.state
    if new.pending:
        pending = new.pending[0]
        if action.seat not in pending.actors:
            raise NotYourTurn("Someone else has to decide first.", waiting=pending.kind)
        if action.kind != pending.kind:
            raise WrongPhase(f"Now is the time for '{pending.kind}', not '{action.kind}'.")
        new.pending.pop(0)
        ALL[pending.owner].handle(ctx, pending, action)
    else:
        handler = _HANDLERS.get(new.stage)
        expected = INPUT_STAGES.get(new.stage)
        if handler is None or action.kind != expected:
            raise WrongPhase(f"You cannot '{action.kind}' now.", stage=new.stage)
        handler(ctx, action)


def _timeout(state: GameState, action: Action) -> tuple[GameState, Ctx]:
    """``action.seat`` ran out of time: apply the default move the rules give it (engine.timeouts)."""
    if action.targets or action.choice is not None or action.quest is not None:
        raise InvalidChoice("A timeout carries no choice: the rules decide what it does.")
    now = prompts(state, action.seat)
    if not now:
        raise NotYourTurn("Nobody is waiting for that seat.", seat=action.seat)
    prompt = now[0]
    new = _copy(state)
    ctx = Ctx(new)
    pending = new.pending[0] if new.pending else None
    timeouts.announce(ctx, action.seat, prompt.kind, pending)
    if pending is None and new.stage == "team":
        new.vote_track += 1
        ctx.emit("TeamNotProposed", leader=action.seat, rejections=new.vote_track)
        _next_team(ctx)
        return new, ctx
    for move in timeouts.candidates(ctx, prompt, pending):
        trial = _copy(new)
        trial_ctx = Ctx(trial)
        trial_ctx.events = list(ctx.events)
        try:
            _route(trial_ctx, move)
        except IllegalAction:
            continue
        timeouts.applied(trial_ctx, move)
        return trial, trial_ctx
    raise IllegalAction(f"No default move is accepted for '{prompt.kind}'.", code="no_default", kind=prompt.kind)


def current_slot(state: GameState) -> int:
    """The quest slot in play: the chosen one, else the first not yet attempted."""
    if state.quest is not None:
        return state.quest
    return state.results.index(None)


def quest_slots(ctx: Ctx) -> list[int]:
    slots = [current_slot(ctx.state)]
    for plugin in ctx.plugins():
        slots = plugin.quest_slots(ctx, slots)
    return slots


def team_size(ctx: Ctx, slot: int) -> int:
    bonus = sum(p.team_size_bonus(ctx) for p in ctx.plugins())
    return TEAM_SIZES[ctx.n][slot] + bonus


def allowed_cards(ctx: Ctx, seat: int) -> list[str]:
    cards = [card_registry.SUCCESS] if ctx.side(seat) is Side.GOOD else [
        card_registry.SUCCESS,
        card_registry.FAIL,
    ]
    for plugin in ctx.plugins():
        cards = plugin.adjust_cards(ctx, seat, cards)
    return cards


def _propose(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat != s.leader:
        raise NotYourTurn("Only the Leader can propose a team.", leader=s.leader)
    slots = quest_slots(ctx)
    if action.quest is None:
        if len(slots) > 1:
            raise InvalidChoice("Choose which quest this team will attempt.", quests=slots)
        slot = slots[0]
    elif action.quest in slots:
        slot = action.quest
    else:
        raise InvalidChoice(
            f"Quest {action.quest + 1} cannot be attempted now.", quest=action.quest, quests=slots
        )
    size = team_size(ctx, slot)
    for t in action.targets:
        if not 0 <= t < s.n:
            raise InvalidTarget("That player is not at this table.", seat=t)
    if len(set(action.targets)) != len(action.targets):
        raise DuplicatePlayer("A player can be on the team only once.")
    if len(action.targets) != size:
        raise WrongTeamSize(
            f"This quest needs a team of exactly {size}.", size=size, given=len(action.targets)
        )
    for plugin in ctx.plugins():
        plugin.check_proposal(ctx, action)
    s.quest = slot
    s.team = sorted(action.targets)
    s.votes = {}
    s.proposals.append(Proposal(round=s.round, quest=slot, leader=s.leader, team=s.team))
    ctx.emit("TeamProposed", leader=s.leader, team=s.team, quest=slot, attempt=s.vote_track + 1)
    _goto(s, "team_proposed")


def _vote(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat in s.votes:
        raise AlreadyActed("You have already voted on this team.")
    if action.choice not in ("approve", "reject"):
        raise InvalidChoice("Vote approve or reject.", choice=action.choice)
    s.votes[action.seat] = action.choice == "approve"
    ctx.emit("VoteCast", seat=action.seat, count=len(s.votes), of=s.n)
    if len(s.votes) < s.n:
        return
    approvals = [seat for seat in range(s.n) if s.votes[seat]]
    proposal = s.proposals[-1]
    proposal.votes = "".join("A" if s.votes[seat] else "R" for seat in range(s.n))
    proposal.approved = len(approvals) * 2 > s.n
    ctx.emit(
        "VotesRevealed",
        approve=approvals,
        reject=[seat for seat in range(s.n) if not s.votes[seat]],
        approved=proposal.approved,
    )
    _goto(s, "vote_result")


def _play(ctx: Ctx, action: Action) -> None:
    s = ctx.state
    if action.seat not in s.team:
        raise NotOnTeam("Only team members play quest cards.")
    if action.seat in s.cards:
        raise AlreadyActed("You have already played your card.")
    allowed = allowed_cards(ctx, action.seat)
    if action.choice not in allowed:
        if action.choice == card_registry.FAIL and ctx.side(action.seat) is Side.GOOD:
            raise CardNotAllowed("Good players must play Success.", allowed=allowed)
        raise CardNotAllowed(
            f"You may play only: {', '.join(allowed)}.", allowed=allowed, card=action.choice
        )
    s.cards[action.seat] = action.choice
    ctx.emit("CardPlayed", seat=action.seat, count=len(s.cards), of=len(s.team))
    for plugin in ctx.plugins():
        plugin.on_card_played(ctx, action.seat)
    if len(s.cards) == len(s.team):
        _goto(s, "cards_played")


_HANDLERS: dict[str, Callable[[Ctx, Action], None]] = {
    "team": _propose,
    "vote": _vote,
    "quest": _play,
}

# ---------------------------------------------------------------------------------------------
# The stage machine
# ---------------------------------------------------------------------------------------------


def _goto(state: GameState, stage: str) -> None:
    state.stage = stage
    state.hook_i = 0


def _after_reveal(ctx: Ctx) -> None:
    _goto(ctx.state, "round_start")


def _after_round_start(ctx: Ctx) -> None:
    ctx.emit("RoundStarted", round=ctx.state.round, leader=ctx.state.leader)
    _goto(ctx.state, "before_team")


def _after_before_team(ctx: Ctx) -> None:
    s = ctx.state
    slots = quest_slots(ctx)
    ctx.emit(
        "TeamRequested",
        leader=s.leader,
        attempt=s.vote_track + 1,
        quests=slots,
        sizes={str(q): team_size(ctx, q) for q in slots},
    )
    _goto(s, "team")


def _after_team_proposed(ctx: Ctx) -> None:
    _goto(ctx.state, "vote")


def _after_vote_result(ctx: Ctx) -> None:
    s = ctx.state
    proposal = s.proposals[-1]
    if proposal.approved:
        ctx.emit("TeamApproved", team=s.team, quest=s.quest)
        _goto(s, "team_approved")
        return
    s.vote_track += 1
    ctx.emit("TeamRejected", team=s.team, rejections=s.vote_track)
    _next_team(ctx)


def _next_team(ctx: Ctx) -> None:
    """After a rejected team (voted down, or none proposed in time): five in a row win for Evil."""
    s = ctx.state
    s.team = []
    s.quest = None
    if s.vote_track >= MAX_REJECTIONS:
        ctx.win(Side.EVIL, "five_rejections")
        _goto(s, "game_end")
        return
    s.leader = ctx.next_seat(s.leader)
    _goto(s, "before_team")


def _after_team_approved(ctx: Ctx) -> None:
    _goto(ctx.state, "before_cards")


def _after_before_cards(ctx: Ctx) -> None:
    s = ctx.state
    s.cards = {}
    ctx.emit("QuestStarted", quest=s.quest, team=s.team)
    _goto(s, "quest")


def _after_cards_played(ctx: Ctx) -> None:
    s = ctx.state
    slot = s.quest if s.quest is not None else current_slot(s)
    played = [s.cards[seat] for seat in s.team if seat in s.cards]
    tally = Tally(played, fails_required(s.n, slot))
    for plugin in ctx.plugins():
        plugin.adjust_tally(ctx, tally)
    fails = sum(1 for c in tally.cards if card_registry.counts_as(c) == card_registry.FAIL)
    fails = max(0, fails + tally.extra_fails)
    success = fails < tally.fails_needed
    if tally.reversals % 2:
        success = not success
    record = QuestRecord(
        round=s.round,
        quest=slot,
        leader=s.leader,
        team=list(s.team),
        cards=dict(sorted(Counter(tally.cards).items())),
        fails=fails,
        fails_needed=tally.fails_needed,
        success=success,
    )
    s.quests.append(record)
    s.results[slot] = success
    s.vote_track = 0
    ctx.emit(
        "QuestCompleted",
        quest=slot,
        success=success,
        cards=record.cards,
        fails=fails,
        fails_needed=tally.fails_needed,
        notes=tally.notes,
    )
    _goto(s, "quest_resolved")


def _after_quest_resolved(ctx: Ctx) -> None:
    s = ctx.state
    if s.winner is None:
        if s.successes() >= WINS_NEEDED:
            ctx.win(Side.GOOD, "three_successes")
        elif s.failures() >= WINS_NEEDED:
            ctx.win(Side.EVIL, "three_failures")
    _goto(s, "game_end" if s.winner is not None else "after_quest")


def _after_after_quest(ctx: Ctx) -> None:
    s = ctx.state
    s.leader = ctx.next_seat(s.leader)
    s.team = []
    s.quest = None
    s.cards = {}
    s.votes = {}
    _goto(s, "round_start")


def _after_game_end(ctx: Ctx) -> None:
    s = ctx.state
    winners = [seat for seat in range(s.n) if s.sides[seat] is s.winner]
    for plugin in ctx.plugins():
        winners = plugin.adjust_winners(ctx, winners)
    s.winners = sorted(winners)
    _goto(s, "ended")
    ctx.emit(
        "GameEnded",
        winner=s.winner.value if s.winner else None,
        reason=s.win_reason,
        winners=s.winners,
        roles=list(s.roles),
        sides=[x.value for x in s.sides],
    )


# stage -> (plug-in hook run in that stage, what follows once every hook has run)
_HOOK_STAGES: dict[str, tuple[str, Callable[[Ctx], None]]] = {
    "reveal": ("on_reveal", _after_reveal),
    "round_start": ("on_round_start", _after_round_start),
    "before_team": ("before_team", _after_before_team),
    "team_proposed": ("on_team_proposed", _after_team_proposed),
    "vote_result": ("on_votes_revealed", _after_vote_result),
    "team_approved": ("on_team_approved", _after_team_approved),
    "before_cards": ("before_cards", _after_before_cards),
    "cards_played": ("on_cards_played", _after_cards_played),
    "quest_resolved": ("on_quest_resolved", _after_quest_resolved),
    "after_quest": ("after_quest", _after_after_quest),
    "game_end": ("on_game_end", _after_game_end),
}


def _advance(ctx: Ctx) -> None:
    """Run hook stages until a player must act or the game has ended."""
    s = ctx.state
    plugins = ctx.plugins()
    while not s.pending and s.stage in _HOOK_STAGES:
        hook_name, finish = _HOOK_STAGES[s.stage]
        stage = s.stage
        while s.hook_i < len(plugins):
            plugin = plugins[s.hook_i]
            s.hook_i += 1
            getattr(plugin, hook_name)(ctx)
            if s.pending or s.stage != stage:
                break
        if s.pending or s.stage != stage:
            continue
        finish(ctx)


# ---------------------------------------------------------------------------------------------
# What a seat may do
# ---------------------------------------------------------------------------------------------


def prompts(state: GameState, seat: int) -> list[Prompt]:
    """What ``seat`` may do right now (empty when it is someone else's turn)."""
    if state.over:
        return []
    ctx = Ctx(state)
    if state.pending:
        pending = state.pending[0]
        if seat not in pending.actors:
            return []
        prompt = ALL[pending.owner].prompt(ctx, pending, seat)
        return [prompt] if prompt else []
    if state.stage == "team" and seat == state.leader:
        slots = quest_slots(ctx)
        sizes = {q: team_size(ctx, q) for q in slots}
        return [
            Prompt(
                kind="propose",
                seat=seat,
                pick=sizes[slots[0]],
                targets=list(range(state.n)),
                quests=slots if len(slots) > 1 else [],
                info={"sizes": {str(q): v for q, v in sizes.items()}, "attempt": state.vote_track + 1},
            )
        ]
    if state.stage == "vote" and seat not in state.votes:
        return [Prompt(kind="vote", seat=seat, choices=["approve", "reject"], info={"team": state.team})]
    if state.stage == "quest" and seat in state.team and seat not in state.cards:
        return [Prompt(kind="play", seat=seat, choices=allowed_cards(ctx, seat), info={"quest": state.quest})]
    return []


def waiting_for(state: GameState) -> dict[str, object]:
    """Who the table is waiting for, as the public may know it."""
    if state.over:
        return {"kind": None, "seats": []}
    if state.pending:
        p = state.pending[0]
        return {"kind": p.kind, "seats": [] if p.hidden else list(p.actors), "hidden": p.hidden}
    if state.stage == "team":
        return {"kind": "propose", "seats": [state.leader]}
    if state.stage == "vote":
        return {"kind": "vote", "seats": [s for s in range(state.n) if s not in state.votes]}
    if state.stage == "quest":
        return {"kind": "play", "seats": [s for s in state.team if s not in state.cards]}
    return {"kind": None, "seats": []}  # pragma: no cover - the machine never rests elsewhere


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, enumerated (OpenSpiel style)."""
    out: list[Action] = []
    for p in prompts(state, seat):
        if p.optional:
            out.append(Action(seat=seat, kind=p.kind, choice="pass"))
        if p.pick:
            quests = p.quests or [None]
            for q in quests:
                size = int(p.info.get("sizes", {}).get(str(q), p.pick)) if q is not None else p.pick
                for team in combinations(p.targets, size):
                    out.append(Action(seat=seat, kind=p.kind, targets=team, quest=q))
        else:
            for c in p.choices:
                out.append(Action(seat=seat, kind=p.kind, choice=c))
    return out


def actors(state: GameState) -> list[int]:
    """Seats that have something to do right now."""
    return [seat for seat in range(state.n) if prompts(state, seat)]


def replay(config: GameConfig, seed: int, log: list[str], deal: list[str] | None = None) -> GameState:
    """Rebuild a game from its seed and action log (and its chosen deal, if it had one)."""
    state, _ = new_game(config, seed, deal)
    for entry in log:
        state, _ = apply_action(state, Action.decode(entry))
    return state


__all__ = [
    "IllegalAction",
    "QUESTS",
    "actors",
    "allowed_cards",
    "apply_action",
    "legal_actions",
    "new_game",
    "prompts",
    "replay",
    "validate_config",
    "waiting_for",
]
