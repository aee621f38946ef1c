"""Plug-in interface for roles and modules, their registry, and the context hooks receive.

A role or module is one small file that subclasses :class:`Role` or :class:`Module` and decorates
the class with :func:`register`. The engine calls the hooks below at fixed points of the round, in
the order of the plug-ins' places (``engine.hook_order``);
a hook that needs a player's decision pushes a :class:`Pending` and the engine waits for it.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .basics import Side, Theme
from .errors import WrongPhase
from .hook_order import check_place, resolve
from .models import Action, ConfigIssue, Event, GameConfig, GameState, Knowledge, Pending, Prompt
from .rng import draw_rng
from .view_types import PublicView, SeatView

TIMEOUT = "timeout"  # the engine's move for a seat that ran out of time (engine.timeouts)

if TYPE_CHECKING:  # pragma: no cover
    import random


class Tally:
    """The revealed quest cards and what modules do to them before the result is decided."""

    def __init__(self, cards: list[str], fails_needed: int) -> None:
        self.cards = cards
        self.fails_needed = fails_needed
        self.extra_fails = 0  # e.g. Messenger backup
        self.reversals = 0  # e.g. Sorcerer Magic cards
        self.notes: list[str] = []


class Ctx:
    """What a hook may touch: the (already copied) state, events, pendings and randomness."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []
        self._plugins: tuple[Plugin, ...] | None = None  # (the game's plug-ins, looked up once per Ctx)

    # --- facts -----------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.state.n

    @property
    def config(self) -> GameConfig:
        return self.state.config

    def role(self, seat: int) -> Role:
        return ROLES[self.state.roles[seat]]

    def side(self, seat: int) -> Side:
        return self.state.sides[seat]

    def seats_with(self, role_id: str) -> list[int]:
        return [s for s, r in enumerate(self.state.roles) if r == role_id]

    def plugins(self) -> list[Plugin]:
        if self._plugins is None:
            self._plugins = tuple(active_plugins(self.state.config))
        return list(self._plugins)

    def plugin(self, plugin_id: str) -> Plugin:
        return ALL[plugin_id]

    def mod(self, plugin_id: str) -> dict[str, Any]:
        """The plug-in's own slice of the state (created on first use)."""
        return self.state.mods.setdefault(plugin_id, {})

    def next_seat(self, seat: int, step: int = 1) -> int:
        return (seat + step) % self.n

    # --- effects ---------------------------------------------------------------------------
    def emit(self, type_: str, to: list[int] | tuple[int, ...] | None = None, **data: object) -> None:
        self.events.append(Event(type=type_, to=None if to is None else tuple(to), data=data))

    def push(
        self,
        kind: str,
        owner: str,
        actors: list[int],
        hidden: bool = False,
        front: bool = False,
        **data: object,
    ) -> None:
        """Wait for a decision. ``front`` puts it before decisions already waiting."""
        if kind == TIMEOUT:
            raise ValueError(f"'{TIMEOUT}' is the engine's own move, not a decision kind")
        pending = Pending(kind=kind, owner=owner, actors=actors, hidden=hidden, data=data)
        if front:
            self.state.pending.insert(0, pending)
        else:
            self.state.pending.append(pending)

    def learn(self, seat: int, about: int | None, label: str, source: str, **extra: Any) -> None:
        self.state.knowledge[seat].append(
            Knowledge(seat=about, label=label, source=source, quest=extra.get("quest"))
        )

    def rng(self) -> random.Random:
        r = draw_rng(self.state.seed, self.state.rng_calls)
        self.state.rng_calls += 1
        return r

    def win(self, side: Side, reason: str) -> None:
        self.state.winner = side
        self.state.win_reason = reason


def issue(level: str, code: str, message: str, **params: object) -> ConfigIssue:
    return ConfigIssue(level=level, code=code, message=message, params=params)


@dataclass(frozen=True)
class Needs:
    """Something a plug-in wants in the same game, and the issue validation gives without it
    (``engine.validation``): one of the plug-ins ``any_of`` in play, or (``loyalty_check``) a rule that
    checks loyalty (``Plugin.checks_loyalty_from``)."""

    code: str
    message: str
    any_of: tuple[str, ...] = ()
    loyalty_check: bool = False
    level: str = "warning"


class Plugin:
    """Base of every role and module. Every hook is optional."""

    id: ClassVar[str] = ""
    place: ClassVar[str] = "rules"  # where its hooks run among the others (engine.hook_order)
    option_keys: ClassVar[tuple[str, ...]] = ()  # extra config.options keys this plug-in reads
    # The games (rulebooks) this plug-in belongs to: its options are offered and accepted only there.
    themes: ClassVar[frozenset[Theme]] = frozenset({Theme.AVALON})
    # Where the host sets this plug-in's options: the settings panel's options page, or another page
    # that owns them (the time limits' page for what a vote not cast in time counts as).
    settings_page: ClassVar[str] = "options"
    # The quest cards this plug-in adds to the table (each registered with ``engine.cards.register_card``):
    # offered to every team member whenever the plug-in is in play, whoever holds its characters
    # (``engine.quest_rules.table_cards``); ``adjust_cards`` says who may play them.
    quest_cards: ClassVar[tuple[str, ...]] = ()
    # Declarations the generic rules read instead of per-plug-in code (``engine.validation``, the
    # bot's timers): the smallest table this plug-in is recommended for (a warning below it; None: any);
    # what it needs in the same game; from how many players it checks loyalty (None: it never does);
    # and the time-limit phase its decisions are in (``gamebot.timing.policy.PHASES``).
    recommended_players: ClassVar[int | None] = None
    needs: ClassVar[tuple[Needs, ...]] = ()
    checks_loyalty_from: ClassVar[int | None] = None
    timer_phase: ClassVar[str] = "other"

    # -- activation & setup --
    def active(self, config: GameConfig) -> bool:  # pragma: no cover - overridden
        return False

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        return []

    def setup(self, ctx: Ctx) -> None:
        """After roles are dealt and the first Leader chosen."""

    # -- stage hooks (may push pendings) --
    def on_reveal(self, ctx: Ctx) -> None: ...
    def on_round_start(self, ctx: Ctx) -> None: ...
    def before_team(self, ctx: Ctx) -> None: ...
    def on_team_proposed(self, ctx: Ctx) -> None: ...
    def on_votes_revealed(self, ctx: Ctx) -> None: ...
    def on_team_approved(self, ctx: Ctx) -> None: ...
    def before_cards(self, ctx: Ctx) -> None: ...
    def on_card_played(self, ctx: Ctx, seat: int) -> None:
        """One quest card was just played by ``seat`` (pure: emit events, no pendings)."""
    def on_cards_played(self, ctx: Ctx) -> None: ...
    def on_quest_resolved(self, ctx: Ctx) -> None: ...
    def after_quest(self, ctx: Ctx) -> None: ...
    def on_game_end(self, ctx: Ctx) -> None: ...

    # -- pure adjustments --
    def check_proposal(self, ctx: Ctx, action: Action) -> None:
        """Raise IllegalAction to refuse a proposal."""

    def team_size_bonus(self, ctx: Ctx) -> int:
        return 0

    def adjust_cards(self, ctx: Ctx, seat: int, cards: list[str]) -> list[str]:
        """Cards ``seat`` may play on the current quest."""
        return cards

    def adjust_tally(self, ctx: Ctx, tally: Tally) -> None: ...

    def adjust_winners(self, ctx: Ctx, winners: list[int]) -> list[int]:
        """Seats that share the victory (e.g. a Rogue's solo win)."""
        return winners

    def quest_slots(self, ctx: Ctx, slots: list[int]) -> list[int]:
        """Quest slots the Leader may pick this round (only Targeting widens it)."""
        return slots

    # -- decisions owned by this plug-in --
    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt | None:
        return None

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        raise WrongPhase("Nothing to decide here.")

    def timeout_action(self, ctx: Ctx, pending: Pending, prompt: Prompt) -> Action | None:
        """The move made for ``prompt.seat`` when it runs out of time on this plug-in's decision.

        None (the default) leaves it to the engine: pass if the prompt is optional, else a legal
        action drawn at random with ``ctx.rng()`` (see ``engine.timeouts``). Must be deterministic
        given the state, and draw randomness only from ``ctx.rng()``, so that replay reproduces it.
        """
        return None

    # -- views --
    def public_view(self, ctx: Ctx, view: PublicView) -> None: ...
    def private_view(self, ctx: Ctx, seat: int, view: SeatView) -> None: ...


class Role(Plugin):
    """A character card. ``side`` is its starting loyalty."""

    side: ClassVar[Side] = Side.GOOD
    filler: ClassVar[bool] = False  # Loyal Servant / Minion: added automatically
    max_count: ClassVar[int] = 1
    # Reveal traits: the reveal steps this role shows itself in (thumb) and looks in (eyes).
    shows_in: ClassVar[frozenset[str]] = frozenset()
    looks_in: ClassVar[frozenset[str]] = frozenset()
    can_assassinate: ClassVar[bool] = False
    # The quest cards only this character may play, beyond its side's Success (and Fail): each is added to
    # the table by a module's ``quest_cards``, and that module's ``adjust_cards`` says when (the Watch token,
    # Message cards twice only).
    own_cards: ClassVar[tuple[str, ...]] = ()
    # The whole set this character is dealt in, itself included, when it never plays alone (both Lancelots;
    # two Good Messengers and the Evil Messenger); empty: it may be dealt on its own.
    dealt_as_set: ClassVar[tuple[str, ...]] = ()
    place = "characters"

    def active(self, config: GameConfig) -> bool:
        return self.filler or self.id in config.roles

    def may_assassinate(self, config: GameConfig) -> bool:
        """May this character be the one who assassinates in this game (when no Assassin card plays)?"""
        return self.can_assassinate

    def loyalty_options(self, ctx: Ctx, seat: int) -> list[Side]:
        """Loyalty cards this seat may hand over when checked (Trickster: both; Troublemaker: the lie)."""
        return [ctx.side(seat)]

    def reveal_traits(self, config: GameConfig) -> tuple[frozenset[str], frozenset[str]]:
        """(shows_in, looks_in) in this game; an option may change them (the hidden Evil Sorcerer)."""
        return self.shows_in, self.looks_in


class Module(Plugin):
    """An optional rule switched on by ``config.options[option]``."""

    option: ClassVar[str] = ""
    # Named values of ``option`` when it is not a plain on/off switch (e.g. Lancelot's variants).
    option_values: ClassVar[tuple[str, ...]] = ()
    place = "rules"

    def active(self, config: GameConfig) -> bool:
        return bool(config.options.get(self.option))


ROLES: dict[str, Role] = {}
MODULES: dict[str, Module] = {}
CORE: dict[str, Plugin] = {}  # always-on plug-ins (e.g. loyalty checks)
ALL: dict[str, Plugin] = {}


def register(cls: type[Plugin]) -> type[Plugin]:
    inst = cls()
    if not inst.id:
        raise ValueError(f"{cls.__name__} has no id")
    if inst.id in ALL:
        raise ValueError(f"duplicate plug-in id {inst.id}")
    check_place(inst.id, inst.place)
    ALL[inst.id] = inst
    if isinstance(inst, Role):
        ROLES[inst.id] = inst
    elif isinstance(inst, Module):
        MODULES[inst.id] = inst
    else:
        CORE[inst.id] = inst
    return cls


def unregister(plugin_id: str) -> None:
    """Forget a registered plug-in (tests and tools that register one of their own for a while)."""
    ALL.pop(plugin_id, None)
    ROLES.pop(plugin_id, None)
    MODULES.pop(plugin_id, None)
    CORE.pop(plugin_id, None)
    _ACTIVE_CACHE.clear()


def option_owners() -> dict[str, Plugin]:
    """Every option key a host may set, and the plug-in that reads it (its switch or an extra key)."""
    owners: dict[str, Plugin] = {}
    for plugin in sorted(ALL.values(), key=lambda p: p.id):
        if isinstance(plugin, Module) and plugin.option:
            owners[plugin.option] = plugin
    for plugin in sorted(ALL.values(), key=lambda p: p.id):
        for key in plugin.option_keys:
            owners.setdefault(key, plugin)
    return owners


def load_plugins() -> None:
    """Import every file in ``engine.roles`` and ``engine.modules`` so they register themselves."""
    for pkg_name in ("engine.roles", "engine.modules"):
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg_name}.{info.name}")


_ACTIVE_CACHE: dict[tuple[Theme, tuple[str, ...], str, str | None], tuple[str, ...]] = {}


def active_plugins(config: GameConfig) -> list[Plugin]:
    """Every plug-in that takes part in a game with this configuration, in hook order."""
    key = (config.theme, config.roles, repr(sorted(config.options.items())), config.assassin)
    ids = _ACTIVE_CACHE.get(key)
    if ids is None:
        found = resolve(p for p in ALL.values() if p.id in CORE or p.active(config))
        ids = tuple(p.id for p in found)
        if len(_ACTIVE_CACHE) > 512:
            _ACTIVE_CACHE.clear()
        _ACTIVE_CACHE[key] = ids
    return [ALL[i] for i in ids]
