"""The chat's alarm clock, as policy with no I/O: when a chat must next wake up, and how (the scheduler
calls that make it so).

Each chat has one alarm (``Session.alarm``), set to the earliest moment something is due: the running time
limit's reminder or expiry, an AI seat's move, an outbox entry that waits for the group's budget or for
Telegram's flood control, a held-back progress edit, a closing edit to send again once no older progress
edit can overtake it, or a delivery of another container that might have died. Every write of the session brings the alarm up to date in the same write (:func:`rearm`); the
scheduler calls are made after the commit, next to the Bot API calls. A vote that changes none of those
moments costs no scheduler call.

How the alarm wakes the chat depends on how far off it is (``window``: what the scheduler can wake
precisely, ``gamebot.timing.wakeup``: 2 minutes, ``QUEUE_WINDOW``, with EventBridge Scheduler behind the
queue as the stack configures it): within it, a message of the wake-up queue delayed to that moment
(SQS: whole seconds, up to 15 minutes), which arrives within a second or two of it and cannot be taken
back (``Alarm.queued``: a wake-up for an alarm that moved since finds nothing due and writes nothing);
beyond it, an EventBridge Scheduler schedule, which fires within a minute of its time and is deleted when
the alarm moves (``Schedule.cancel``); the scheduler sets it ahead of the moment (``EARLY``), and the
write that records its finding nothing due yet sets the alarm again, now within the window.

A timer that fires (``gamebot.handlers.timekeeper``) does whatever is due then, and the write that records it
sets the next alarm. Alarm names are unique per chat (``Alarm.n``), so a late delete can only remove the
schedule it was meant for, and a wake-up tells whether it is the chat's current alarm.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from gamebot.botapi.callbacks import b36
from gamebot.storage.session import Alarm, Session
from gamebot.storage.store import JsonValue
from gamebot.timing.scheduler import Timer

WAKE = "wake"  # the payload kind of an alarm
SOON = 5  # seconds: what is due this soon when a timer fires is done now (clocks differ a little)
AGAIN = 30  # seconds: something overdue that a wake-up could not settle is looked at again after this


@dataclass(frozen=True)
class Schedule:
    """One scheduler call to make after the commit: create ``timer``, or delete the schedule ``cancel``."""

    timer: Timer | None = None
    cancel: str | None = None


def wake_at(s: Session, now: float, in_flight: set[int] | frozenset[int] = frozenset()) -> float | None:
    """When the chat must next wake up (None: nothing will be due). ``in_flight``: the outbox entries the
    delivery that follows this write sends: that delivery takes care of them, and if its function dies,
    the update's redelivery (Telegram's, or the timer invocation's retry) resumes it."""
    times: list[float] = []
    d = s.deadline
    if d is not None:
        if d.remind_at is not None and not d.reminded:
            times.append(d.remind_at)
        times.append(d.due)
    if s.ai_seat_turn is not None:  # an AI seat's move (``gamebot.handlers.ai_seats``)
        times.append(s.ai_seat_turn.due)
    box = s.outbox
    times += [e.not_before for e in box.effects if e.not_before is not None]
    if box.dirty and box.dirty_at is not None:
        times.append(box.dirty_at)
    times += [r.not_before for r in box.repeats if r.not_before is not None]  # a closing edit sent again
    held = [e for e in box.effects if e.not_before is None and e.seq not in in_flight
            and not (e.chat and box.waiting(e))]  # (behind one that waits: it goes with it, at its moment)
    if held:  # another delivery holds them (come back if it dies), or nobody does yet: now
        times.append(box.lease.until if box.lease is not None and box.lease.until > now else now)
    return min(times) if times else None


def quiet(s: Session, now: float) -> bool:
    """Is nothing due in the chat now, with its alarm set for the next moment something will be? Then a
    wake-up that finds nothing due either (one for an alarm that moved since) has nothing to deliver and
    no alarm to set: it need not read the chat again to resume its outbox (``Timers.fire``)."""
    want = wake_at(s, now)
    if want is None:
        return s.alarm is None or s.alarm.queued  # (a schedule left behind is deleted by the next write)
    return now < want and s.alarm is not None and now < s.alarm.at <= math.ceil(want)


def rearm(s: Session, now: float, in_flight: set[int] | frozenset[int], payload: dict[str, JsonValue],
          consumed: bool = False, window: float = 0.0) -> list[Schedule]:
    """Set ``s.alarm`` to the next wake-up; the scheduler calls that make it so. ``consumed``: the alarm
    on record has just fired (what it was for is being done: it is no longer pending). ``window``: how far
    ahead the scheduler wakes a chat by its queue, to the second (0: it has none; every alarm is a
    schedule at a whole second)."""
    current = s.alarm
    want = wake_at(s, now, in_flight)
    if want is not None:
        if want <= now:  # overdue: a wake-up is running (or failed); look again a little later
            want = math.ceil(now) + (AGAIN if consumed else 1)
        queued = want - now <= window
        want = math.ceil(want * 100) / 100 if queued else math.ceil(want)  # (a schedule: a whole second)
    if current is not None and not consumed and want == current.at:
        return []
    if want is None:
        s.alarm = None
        return [Schedule(cancel=current.name)] if current is not None and not consumed and not current.queued else []
    n = current.n + 1 if current is not None else 1
    s.alarm = Alarm(at=want, name=f"gb{b36(s.chat_id)}-{b36(n)}-{b36(int(want))}", n=n, queued=queued)
    timer = Timer(name=s.alarm.name, at=want, payload={**payload, "chat": s.chat_id, "kind": WAKE, "due": want,
                                                       "name": s.alarm.name},
                  delay=max(0, math.ceil(round(want - now, 1))) if queued else None)  # (never a second late)
    calls = [Schedule(timer=timer)]
    if current is not None and not consumed and not current.queued:  # (a queued wake-up cannot be taken back)
        calls.append(Schedule(cancel=current.name))
    return calls
