"""State, actions, events and prompts. Plain data: pydantic models that serialise to compact JSON."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .basics import Side, Theme


class GameConfig(BaseModel):
    """What the host chose. ``roles`` lists the special characters; plain Servants/Minions fill the rest."""

    model_config = ConfigDict(frozen=True)

    theme: Theme = Theme.AVALON
    players: int = 5
    roles: tuple[str, ...] = ("merlin", "assassin")
    # Module switches and variants, e.g. {"lady_of_the_lake": True, "targeting": True}.
    options: dict[str, Any] = Field(default_factory=dict)
    # With Merlin but no Assassin card: which Evil character assassinates (Big Box rule).
    assassin: str | None = None

    def option(self, key: str, default: Any = None) -> Any:
        return self.options.get(key, default)


class ConfigIssue(BaseModel):
    level: str  # "error" or "warning"
    code: str
    message: str
    params: dict[str, Any] = Field(default_factory=dict)


class Action(BaseModel):
    """One player's move. ``kind`` names the move; the other fields are its arguments."""

    model_config = ConfigDict(frozen=True)

    seat: int
    kind: str
    targets: tuple[int, ...] = ()
    choice: str | None = None
    quest: int | None = None  # quest slot 0..4, used by Targeting

    def encode(self) -> str:
        """Compact text form for the game log: ``seat|kind|targets|choice|quest``."""
        t = ",".join(str(x) for x in self.targets)
        q = "" if self.quest is None else str(self.quest)
        return f"{self.seat}|{self.kind}|{t}|{self.choice or ''}|{q}"

    @classmethod
    def decode(cls, text: str) -> Action:
        seat, kind, t, choice, q = text.split("|")
        return cls(
            seat=int(seat),
            kind=kind,
            targets=tuple(int(x) for x in t.split(",") if x),
            choice=choice or None,
            quest=int(q) if q else None,
        )


class Event(BaseModel):
    """Something that happened, in the past tense. ``to`` is None for the whole table, else private seats."""

    type: str
    to: tuple[int, ...] | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def public(self) -> bool:
        return self.to is None


class Knowledge(BaseModel):
    """One thing a seat privately knows: ``seat`` is seen as ``label`` (learned through ``source``).
    Frozen: what was learned stays as learned, so game states share it (``copy_state``)."""

    model_config = ConfigDict(frozen=True)

    seat: int | None = None
    label: str
    source: str
    quest: int | None = None


class Pending(BaseModel):
    """A decision a plug-in is waiting for. ``hidden`` pendings do not name their actors publicly."""

    kind: str
    owner: str
    actors: list[int]
    data: dict[str, Any] = Field(default_factory=dict)
    hidden: bool = False


class Prompt(BaseModel):
    """What a seat may do now. ``pick`` targets out of ``targets`` and/or one of ``choices``."""

    kind: str
    seat: int
    pick: int = 0
    targets: list[int] = Field(default_factory=list)
    choices: list[str] = Field(default_factory=list)
    quests: list[int] = Field(default_factory=list)
    optional: bool = False  # the seat may answer with choice="pass"
    info: dict[str, Any] = Field(default_factory=dict)


class Proposal(BaseModel):
    round: int
    quest: int
    leader: int
    team: list[int]
    votes: str = ""  # one letter per seat, "A"pprove / "R"eject, once revealed
    approved: bool | None = None
    note: str | None = None  # e.g. "overruled" when a Plot card turned an approval into a rejection


class QuestRecord(BaseModel):
    round: int
    quest: int
    leader: int
    team: list[int]
    cards: dict[str, int]  # revealed cards by kind: counts only, never who played what
    fails: int
    fails_needed: int
    success: bool


def _no_results() -> list[bool | None]:
    """A new game's quest results: none played yet (five slots)."""
    return [None] * 5


class GameState(BaseModel):
    schema_version: int = 1
    config: GameConfig
    seed: int
    rng_calls: int = 0
    roles: list[str]
    sides: list[Side]  # current loyalty; Lancelot may switch it
    knowledge: list[list[Knowledge]]
    first_leader: int
    leader: int
    stage: str = "reveal"
    hook_i: int = 0
    quest: int | None = None  # slot being attempted this round
    results: list[bool | None] = Field(default_factory=_no_results)
    vote_track: int = 0
    team: list[int] = Field(default_factory=list)
    votes: dict[int, bool] = Field(default_factory=dict)
    cards: dict[int, str] = Field(default_factory=dict)
    pending: list[Pending] = Field(default_factory=list)
    proposals: list[Proposal] = Field(default_factory=list)
    quests: list[QuestRecord] = Field(default_factory=list)
    winner: Side | None = None
    win_reason: str | None = None
    winners: list[int] = Field(default_factory=list)
    mods: dict[str, dict[str, Any]] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=list)
    deal: list[str] | None = None  # the characters per seat when chosen rather than shuffled (new_game)
    chosen_leader: int | None = None  # the first Leader when chosen rather than drawn (new_game)

    @property
    def n(self) -> int:
        return len(self.roles)

    @property
    def round(self) -> int:
        """1-based round number: quests attempted so far plus one."""
        return len(self.quests) + 1

    @property
    def over(self) -> bool:
        return self.stage == "ended"

    def successes(self) -> int:
        return sum(1 for r in self.results if r is True)

    def failures(self) -> int:
        return sum(1 for r in self.results if r is False)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_defaults=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        return cls.model_validate_json(text)


# --- copying a state -----------------------------------------------------------------------------------
# ``engine.game.apply_action`` works on a copy of the state it is given. The copy is made field by field,
# as ``model_construct`` makes a model (its ``__dict__``, fields set, no extra, no private attributes):
# every list, dict and model is new, the immutable values (numbers, strings, enum members) are shared.
# The ``Any`` fields hold what JSON holds (a state is stored as JSON): their dicts and lists are copied
# all the way down. A third of the time of ``model_validate(model_dump())``, which serialised the state
# and validated it back (tests/unit/test_engine_copy.py: no mutable part is shared).

_new, _set = object.__new__, object.__setattr__


def _plain(value: Any) -> Any:
    """A deep copy of a JSON-like value (the ``Any`` fields: plug-ins' data, options)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value  # (a number, a string, None: immutable)


def _built[M: BaseModel](cls: type[M], values: dict[str, Any], of: BaseModel) -> M:
    """A ``cls`` holding ``values``, with the fields set of ``of`` (what ``model_construct`` does)."""
    made = _new(cls)
    _set(made, "__dict__", values)
    _set(made, "__pydantic_fields_set__", set(of.__pydantic_fields_set__))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


def copy_state(state: GameState) -> GameState:
    """A deep copy of ``state``: changing the copy never changes ``state``. What seats learned is shared:
    a ``Knowledge`` is frozen and holds no list or dict, so nothing can change it."""
    values = dict(state.__dict__)
    config = state.config
    values["config"] = _built(GameConfig, {**config.__dict__, "options": _plain(config.options)}, config)
    for name in ("roles", "sides", "results", "team", "winners", "log"):
        values[name] = list(values[name])
    values["votes"] = dict(state.votes)
    values["cards"] = dict(state.cards)
    values["knowledge"] = [list(seat) for seat in state.knowledge]
    values["pending"] = [_built(Pending, {**p.__dict__, "actors": list(p.actors), "data": _plain(p.data)}, p)
                         for p in state.pending]
    values["proposals"] = [_built(Proposal, {**p.__dict__, "team": list(p.team)}, p) for p in state.proposals]
    values["quests"] = [_built(QuestRecord, {**q.__dict__, "team": list(q.team), "cards": dict(q.cards)}, q)
                        for q in state.quests]
    values["mods"] = _plain(state.mods)
    if state.deal is not None:
        values["deal"] = list(state.deal)
    return _built(GameState, values, state)
