"""Time limits as policy, with no I/O: the phases and their default limits, which phase a decision is
in, the running deadline a session should have, the idle record, and how limits read. ``gamebot.handlers.timekeeper``
enforces them (through the chat's alarm, ``gamebot.timing.alarm``); the settings panel offers them.
"""
from __future__ import annotations

import math
from typing import TypedDict

from engine import ALL, GameConfig, GameState
from engine.timeouts import DEFAULT_VOTE, VOTE_OPTION
from gamebot.botapi.telegram_io import Out
from gamebot.language import texts
from gamebot.messages.table import Table
from gamebot.messages.time_limits import duration
from gamebot.storage import idle_record
from gamebot.storage.effects import Outbox
from gamebot.storage.session import LOBBY, PLAYING, Alarm, Deadline, Session, TimerSettings, serial

# Phase -> default limit in seconds (0 = off). A plug-in's decisions are in the phase it declares
# (``Plugin.timer_phase``); "other": any decision of a plug-in that declares none.
PHASES: tuple[tuple[str, int], ...] = (
    ("join", 600),
    ("propose", 180),
    ("vote", 120),
    ("quest", 120),
    ("lady", 180),
    ("assassination", 300),
    ("excalibur", 120),
    ("plot_cards", 120),
    ("trapper", 120),
    ("rogue", 120),
    ("loyalty", 120),
    ("other", 120),
)
DEFAULT_LIMITS = dict(PHASES)
CHOICES = (0, 60, 120, 180, 300, 600, 900, 1800, 3600)  # what the settings buttons cycle through
EXTEND_SECONDS = 300
MAX_EXTENSIONS = 3
REMIND_MIN_LIMIT = 120  # shorter limits get no reminder (EventBridge Scheduler's precision is a minute)
MIN_PLAYERS, MAX_PLAYERS = 5, 10


# ---------------------------------------------------------------------------------------------------
# Policy: limits, phases, deadlines
# ---------------------------------------------------------------------------------------------------


def limit_for(settings: TimerSettings, phase: str) -> int:
    return int(settings.limits.get(phase, DEFAULT_LIMITS.get(phase, DEFAULT_LIMITS["other"])))


def remind_lead(limit: int) -> int | None:
    """Seconds before the deadline the reminder comes: 1 min (5 min for limits of 15 min or more)."""
    if limit < REMIND_MIN_LIMIT:
        return None
    return 300 if limit >= 900 else 60


def owner_phase(owner: str) -> str:
    """The phase of a decision owned by the plug-in ``owner`` (its ``timer_phase``; "other" if unknown)."""
    plugin = ALL.get(owner)
    phase = plugin.timer_phase if plugin is not None else "other"
    return phase if phase in DEFAULT_LIMITS else "other"


def phase_of(state: GameState) -> str | None:
    """The phase of the decision awaited now (None once the game has ended)."""
    if state.over:
        return None
    if state.pending:
        p = state.pending[0]
        return "vote" if p.kind == "vote" else owner_phase(p.owner)
    return {"team": "propose", "vote": "vote", "quest": "quest"}.get(state.stage, "other")


def step_of(state: GameState) -> str:
    """Which decision within one serial (an Opinion Maker's open vote, then everyone's vote)."""
    return f"{state.stage}.{len(state.pending)}"


def configure(config: GameConfig, timers: TimerSettings) -> GameConfig:
    """The game's configuration with the group's timeout rules the engine needs (the vote default)."""
    if timers.vote == DEFAULT_VOTE:
        return config
    return config.model_copy(update={"options": {**config.options, VOTE_OPTION: timers.vote}})


def new_deadline(phase: str, serial_: int, step: str, limit: int, due: int, extensions: int = 0) -> Deadline:
    lead = remind_lead(limit)
    return Deadline(phase=phase, serial=serial_, step=step, due=due, limit=limit, extensions=extensions,
                    remind_at=due - lead if lead else None)


def desired_deadline(s: Session, now: float) -> Deadline | None:
    """The deadline that should run for this session now: the current one if it still applies."""
    d = s.deadline
    if s.status == LOBBY:
        limit = limit_for(s.settings.timers, "join")
        if not limit:
            return None
        if d is not None and d.phase == "join" and (d.limit == limit or d.extensions):
            return d
        return new_deadline("join", d.serial + 1 if d is not None and d.phase == "join" else 0, "", limit,
                         int(math.ceil(now)) + limit)
    state = s.game() if s.status == PLAYING else None
    if state is None:  # no game going on: no time limit
        return None
    phase = phase_of(state)
    if phase is None:
        return None
    key = (phase, serial(state), step_of(state))
    if d is not None and (d.phase, d.serial, d.step) == key:
        return d
    limit = limit_for(s.settings.timers, phase)
    return new_deadline(*key, limit, int(math.ceil(now)) + limit) if limit else None


def running(s: Session, now: float) -> Deadline | None:
    """The time limit of the game's decision awaited now, as the next write will store it (what its
    messages show); None outside a game."""
    if s.status != PLAYING or not s.state:
        return None
    return desired_deadline(s, now)


def key(d: Deadline | None) -> str | None:
    """Names the decision a time limit is about (its reminders are about it too): phase, serial, step."""
    return None if d is None else f"{d.phase}:{d.serial}:{d.step}"


def closing_reminders(s: Session) -> list[Out]:
    """The reminders on screen whose decision is over (its time limit is no longer the running one): they
    are deleted (and forgotten); a reminder never stays below newer messages once its decision is over."""
    running_key = key(s.deadline) if s.active else None
    over = [r for r in s.reminders if r.key != running_key]
    if not over:
        return []
    s.reminders = [r for r in s.reminders if r.key == running_key]
    return [Out("delete", chat_id=r.chat, message_id=r.msg, user_id=r.chat if r.chat > 0 else None,
                tag="reminder_over") for r in over]


def same_deadline(a: Deadline | None, b: Deadline | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.phase, a.serial, a.step, a.due) == (b.phase, b.serial, b.step, b.due)


def record_idle(s: Session, seat: int, hidden: bool) -> None:
    """The player at ``seat`` ran out of time: counted in this game's record (``Session.idle``), which joins
    the group's record of all games once the game is over (``gamebot.storage.idle_record.settle_idle``)."""
    uid = str(s.players[seat].id)
    if hidden:  # who held a hidden decision stays secret until the end
        s.idle_hidden[uid] = s.idle_hidden.get(uid, 0) + 1
        return
    s.idle[uid] = s.idle.get(uid, 0) + 1


class CarriedOver(TypedDict, total=False):
    """The fields a new lobby's session takes from the previous one (``carry_over``)."""

    alarm: Alarm | None
    outbox: Outbox


def carry_over(previous: Session | None) -> CarriedOver:
    """What a new lobby keeps from the group's previous session: the chat's pending alarm (so that the next
    write can move or cancel it) and its outbox (what waits to be sent or counted, the last game's
    timeouts on their way to the group's record, the group's budget, a delivery's lease: nothing decided is
    lost to a new lobby)."""
    if previous is None:
        return {}
    idle_record.settle_idle(previous)
    return {"alarm": previous.alarm, "outbox": previous.outbox}


# ---------------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------------


def time_left(table: Table, seconds: float) -> str:
    return duration(table, seconds) if seconds >= 60 else table.t("timers.left_soon")


def default_text(table: Table, phase: str, settings: TimerSettings) -> str:
    key = f"timers.default.{phase}"
    if not texts.has(key, table.lang):
        key = "timers.default.other"
    return table.t(key, vote=table.t(f"vote.{settings.vote}"), count=MIN_PLAYERS)


def phase_name(table: Table, phase: str) -> str:
    return table.t(f"timers.phase.{phase}") if texts.has(f"timers.phase.{phase}", table.lang) else table.module(phase)
