"""The bots' pace inside the invocation that gave them their decision.

A bot seat's move is due 2 to 4 seconds after its decision arrives (``Session.bot_turn``, planned by
``gamebot.handlers.bots.plan_turn``), and the chat's alarm is set for that moment. But EventBridge
Scheduler invokes its targets with 60-second precision (a schedule at 1:00 fires between 1:00:00 and
1:00:59): on AWS, an alarm alone would make every bot step wait up to a minute. So the invocation that
committed the step (a webhook update, or a timer) waits itself: once its own work is delivered, when one
of its steps planned a bot's move (``BotTurn.new``: a step that only keeps a pending turn, such as a
person's vote beside the bots', leaves it to the invocation that planned it) due within ``Pace.soon``
seconds, it sleeps until then (``Pace.sleep``:
the tests' fake clock moves instead) and plays that move as a new unit of work, the timer path's own
(``Timers.fire``: read, the bots' moves if still due, version-checked write, delivery), and so on while
the next bot step is due soon (bots proposing, then bots voting...). It stops when a person's decision
is pending, when the game is over, after ``Pace.chain`` seconds of waiting, or when the invocation's
time (``until``, the Lambda's time left less a margin) could not hold the wait and the step after it.

The alarm stays set all along, as the backstop: if the invocation stops early or dies, the alarm (within a
minute) plays the bots' moves. A person's press meanwhile is its own unit of work: whoever writes second
re-reads, and a bot turn already played is gone from the session it reads (``bot_turn`` is checked under
the version-checked write), so no move is played twice.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from gamebot.handlers.handling import Job
from gamebot.handlers.timekeeper import Timers

log = logging.getLogger("gamebot.core.pacing")

SOON = 5.0  # seconds: a bot's move due within this is waited for by the invocation (the pace is 2 to 4 s)
CHAIN = 30.0  # seconds an invocation may wait for bots in all
MAX_STEPS = 50  # bot steps one invocation plays at most (the waits bound them first: each is 2 to 4 s)
STEP_RESERVE = 2.0  # seconds kept for the bot step after its wait (a read, a write, its Bot API calls)


@dataclass
class Pace:
    """How an invocation waits for the bots: ``sleep`` (asyncio's; tests move their clock), ``soon`` (0:
    never wait, the alarm plays every bot move, as the playground's exact local scheduler does) and
    ``chain`` (the seconds of waiting one invocation allows)."""

    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep)
    soon: float = SOON
    chain: float = CHAIN


def next_turn(job: Job) -> tuple[int, int] | None:
    """The chat and moment of the earliest bot move this job's steps left pending (None: none)."""
    if not job.bots:
        return None
    chat = min(job.bots, key=lambda c: job.bots[c])
    return chat, job.bots[chat]


def waits(pace: Pace, job: Job, now: float, until: float | None, waited: float = 0.0) -> float | None:
    """The seconds this invocation waits for the bots' next move after ``job`` (None: it does not; the
    alarm will play it). ``until``: the moment (on the service's clock) the invocation's time runs out."""
    turn = next_turn(job)
    if turn is None:
        return None
    wait = max(0.0, turn[1] - now)
    if wait > pace.soon or waited + wait > pace.chain:
        return None
    if until is not None and now + wait + STEP_RESERVE > until:
        return None
    return wait


async def follow(timers: Timers, pace: Pace, clock: Callable[[], float], job: Job, until: float | None,
                 before_wait: Callable[[float], Awaitable[None]] | None = None) -> int:
    """Play the bots' moves ``job`` left due soon, each at its time, while the next is due soon and time
    allows (see the module's docstring). ``before_wait(at)``: called before each wait, with the moment
    the step after it starts (the webhook answers the pressed button there, and gives the Bot API calls
    of the step the time left). Returns how many bot steps were played."""
    played = 0
    waited = 0.0
    for _ in range(MAX_STEPS):
        now = clock()
        wait = waits(pace, job, now, until, waited)
        turn = next_turn(job)
        if wait is None or turn is None:
            break
        if before_wait is not None:
            await before_wait(now + wait)
        if wait > 0:
            await pace.sleep(wait)
            waited += wait
        job = Job(update=None, update_id=None)
        try:
            outcome = await timers.fire({"chat": turn[0], "kind": "bots"}, job)
        except Exception:  # nothing more is committed here: the chat's alarm (still set) plays it
            log.exception("a bot step in the invocation failed; the chat's alarm will play it")
            break
        if outcome == "bots":
            played += 1
        elif next_turn(job) == turn:  # (not played, and still the same: the alarm sees to it)
            break
    return played
