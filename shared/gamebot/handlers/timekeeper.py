"""Phase timers and AFK handling: time limits, reminders, expiry, /extend, /forcestart, /idles.

The rules of what a timeout does live in the engine (``engine.timeouts``: the ``timeout`` move); this
module decides WHEN: each group has a limit per phase (``Settings.timers``, carried into the next
/newgame). Whenever the unit of work is about to write a session, :meth:`Timers.plan` compares the
decision now awaited with the running :class:`~gamebot.storage.session.Deadline`; only when it changed (a new
decision, the lobby opened or was extended) does it start a new deadline, stored in the same write.
The chat's alarm (``gamebot.timing.alarm``: one per chat, at the next moment something is due)
follows it in that write, and the scheduler is called after the commit only when the alarm moved.
Votes and cards that do not end their decision therefore cost nothing more (the steady-play budget
stays one read and one write).

When the alarm fires (:meth:`Timers.fire`, from ``functions/timer/app.py``: a wake-up of the queue or an
EventBridge schedule, ``gamebot.timing.wakeup``) the session is read and
whatever is due then is done in one version-checked write: the AI seats' moves (``ai_seat_turn``, planned by
``gamebot.handlers.ai_seats.plan_turn`` in the same :meth:`Timers.plan`), the reminder, or the expiry, which applies
``Action(seat, "timeout")`` for every awaited seat (a human action that lands at the same moment either
wins, and the deadline has moved on, or is refused as out of date), and what waits in the outbox goes
out. Players can never send a timeout: only this path creates one.

Group messages never name who holds a hidden decision; timeouts of hidden decisions are added to the
idle record only when the game ends.
"""
from __future__ import annotations

import logging
import math
from typing import Any

from engine import Action, Event, actors, apply_action, prompts, waiting_for
from engine.timeouts import TIMEOUT
from gamebot import observe
from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps, lang_of
from gamebot.compose.settings_check import issues_for
from gamebot.handlers import ai_seats
from gamebot.handlers.handling import Job, finish, game_of, host_check, reply_lang, transact
from gamebot.handlers.lobby import config, launch
from gamebot.handlers.play import commit_game
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.settings import issue_text
from gamebot.messages.table import NL, esc
from gamebot.messages.time_limits import duration
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage import idle_record
from gamebot.storage.seats import is_ai_seat_id
from gamebot.storage.session import (
    ACTIVE,
    CANCELLED,
    LOBBY,
    PLAYING,
    Deadline,
    Player,
    Session,
    chat_key,
    serial,
)
from gamebot.timing.alarm import SOON, Schedule, quiet, rearm
from gamebot.timing.policy import (
    EXTEND_SECONDS,
    MAX_EXTENSIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    closing_reminders,
    default_text,
    desired_deadline,
    key,
    new_deadline,
    record_idle,
    same_deadline,
    step_of,
    time_left,
)
from gamebot.timing.scheduler import Scheduler

log = logging.getLogger("gamebot.handlers.timekeeper")


class Timers:
    """Timer planning and firing for one set of handler dependencies (``deps.scheduler``: None, no
    time limits)."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    @property
    def scheduler(self) -> Scheduler | None:
        scheduler: Scheduler | None = self.deps.scheduler
        return scheduler

    # --- planning ------------------------------------------------------------------------------------

    def plan(self, s: Session, old: Deadline | None) -> list[Out]:
        """Bring ``s.deadline`` up to date before ``s`` is written (its alarm follows: :meth:`arm`); the
        reminders of a decision that is over are deleted (the operations returned)."""
        if s.status not in ACTIVE:
            idle_record.settle_idle(s)
        if self.deps.scheduler is not None:
            s.deadline = desired_deadline(s, self.deps.clock())
            ai_seats.plan_turn(s, self.deps.clock())  # an AI seat's move, a few seconds ahead
        else:
            s.ai_seat_turn = None  # (without a scheduler the AI seats move at once: ``ai_seats.play_now``)
        return closing_reminders(s)

    def arm(self, s: Session, now: float, in_flight: set[int], consumed: bool = False) -> list[Schedule]:
        """Move the chat's alarm to the next moment something is due (in ``s``, written next); the
        scheduler calls to make once that write is committed (:meth:`dispatch`)."""
        scheduler = self.scheduler
        if scheduler is None:
            return []
        return rearm(s, now, in_flight, {"game": s.game_id or ""}, consumed, window=scheduler.window)

    def dispatch(self, calls: list[Schedule]) -> None:
        """The scheduler calls of a committed write. A failure is logged: the game goes on (a missed
        wake-up is made up by the chat's next update, which finds what is due)."""
        scheduler = self.deps.scheduler
        if scheduler is None:  # (``arm`` asks for no call without a scheduler)
            return
        for call in calls:
            try:
                if call.timer is not None:
                    scheduler.schedule(call.timer)
                elif call.cancel:
                    scheduler.cancel(call.cancel)
            except Exception:
                if call.timer is not None:  # (a cancel that failed leaves a wake-up that finds nothing due)
                    observe.current().schedule_failed()
                    log.exception("ScheduleFailed: could not schedule alarm %s (due %s): the chat's next update "
                                  "or wake-up finds what is due", call.timer.name, call.timer.at)
                else:
                    log.exception("could not cancel alarm %s", call.cancel)

    # --- firing ---------------------------------------------------------------------------------------

    async def fire(self, payload: dict[str, Any], job: Job | None = None) -> str:
        """A chat's alarm (or an older wake-up of it, which finds nothing due) fired: the AI seats' moves if
        due, else remind or apply the defaults if a time limit is due; deliver what waits in the outbox, and
        set the next alarm. Returns what it did."""
        deps = self.deps
        outcome = ["stale"]
        chat_id = int(payload["chat"])
        name = payload.get("name")
        job = job or Job(update=None, update_id=None)
        idle = [True]  # nothing is due in the chat, and its alarm is set for the next moment (``alarm.quiet``)

        def decide(s: Session | None) -> Plan:
            outcome[0] = "stale"
            if s is None:
                return Plan()
            consumed = s.alarm is not None and s.alarm.name == name
            idle[0] = quiet(s, deps.clock())
            plan = ai_seat_turn(deps, s, outcome) or due(deps, s, outcome)
            if plan is None:
                plan = Plan(session=s) if consumed else Plan()
            plan.fired = consumed
            return plan

        plan = transact(deps, job, chat_id, decide)
        if (plan.step is None or not plan.step.committed) and not idle[0]:
            plan = deps.uow.resume(chat_id)  # an older wake-up: what waits in the outbox (or a lost alarm)
        results = await finish(deps, job, plan)
        if outcome[0] == "stale" and any(r.ok for r in results):
            outcome[0] = "flushed"
        return outcome[0]


def ai_seat_turn(deps: Deps, s: Session, outcome: list[str]) -> Plan | None:
    """The AI seats' moves, if due now (None: none is): every AI seat with a decision pending makes its move
    (``ai_seats.moves``), with the messages a person's move makes."""
    turn = s.ai_seat_turn
    if turn is None or deps.clock() + 1 < turn.due or s.status != PLAYING:
        return None
    before = game_of(s)
    s.ai_seat_turn = None  # (the write plans the next one: ``Timers.plan``)
    if (serial(before), step_of(before)) != (turn.serial, turn.step):
        return Plan(session=s)
    outcome[0] = "ai_seats"
    state, events = ai_seats.moves(s, before)
    return commit_game(deps, s, before, state, events, ("ai_seats", None))


def due(deps: Deps, s: Session, outcome: list[str]) -> Plan | None:
    """The running time limit's reminder or expiry, if due now (None: nothing of the kind)."""
    d = s.deadline
    now = deps.clock()
    if d is None or not same_deadline(desired_deadline(s, now), d):
        return None
    if now + SOON >= d.due:
        outcome[0] = "expired"
        return expire_join(deps, s) if d.phase == "join" else expire_game(deps, s, d)
    if d.remind_at is not None and not d.reminded and now + SOON >= d.remind_at:
        d.reminded = True
        outcome[0] = "reminded"
        return Plan(session=s, outs=reminder(deps, s, d))
    return None


def reminder(deps: Deps, s: Session, d: Deadline) -> list[Out]:
    """The reminders of the running time limit ``d``: in the group and to each player it waits for. Each
    is deleted once its decision is over (``policy.closing_reminders``)."""
    table = deps.table(s)
    left = time_left(table, d.due - deps.clock())
    about = key(d)
    if d.phase == "join":
        text = table.t("timers.remind_join", left=left, count=len(s.players), max=MAX_EXTENSIONS)
        return [Out("send", chat_id=s.chat_id, text=text, essential=False, tag="remind", expires_with=about)]
    state = game_of(s)
    waiting = waiting_for(state)
    seats, kind = waiting.get("seats"), waiting.get("kind")
    default = default_text(table, d.phase, s.settings.timers)
    # (``waiting_for`` names seats in a list, always with their decision's kind)
    if waiting.get("hidden") or not seats or not isinstance(seats, list) or not isinstance(kind, str):
        text = table.t("timers.remind_hidden", left=left)
    else:
        who = texts.join_names([table.mention(x) for x in seats], table.lang)
        text = table.t("timers.remind", left=left, who=who, what=esc(table.kind(kind)),
                       default=default)
    outs = [Out("send", chat_id=s.chat_id, text=text, essential=False, tag="remind", expires_with=about)]
    for seat in actors(state):  # a private nudge, hidden decisions included: only they see it
        player = s.players[seat]
        t = deps.table(s, player.lang)
        outs.append(Out("send", chat_id=player.id, user_id=player.id, essential=False, tag="remind", expires_with=about,
                        text=t.t("timers.remind_private", left=time_left(t, d.due - deps.clock()),
                                 title=esc(s.title), default=default_text(t, d.phase, s.settings.timers))))
    return outs


def expire_game(deps: Deps, s: Session, d: Deadline) -> Plan:
    """The running time limit ``d`` is up: every seat it waits for times out."""
    before = state = game_of(s)
    events: list[Event] = []
    for seat in actors(before):
        if state.over or (serial(state), step_of(state)) != (d.serial, d.step):
            break
        if not prompts(state, seat):
            continue
        hidden = bool(state.pending and state.pending[0].hidden)
        state, ev = apply_action(state, Action(seat=seat, kind=TIMEOUT))
        events += ev
        if not is_ai_seat_id(s.players[seat].id):  # (an AI seat is nobody's idleness)
            record_idle(s, seat, hidden)
    return commit_game(deps, s, before, state, events, ("timer", None))


def expire_join(deps: Deps, s: Session) -> Plan:
    """Time to join is up: start with the reachable players if there are 5 to 10, else close."""
    table = deps.table(s)
    players, dropped = deps.split_reachable(s)
    count = len(players)
    problem = None
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        problem = table.t("timers.join.closed", count=count, min=MIN_PLAYERS)
    else:
        errors = config_errors(deps, s, count)
        if errors:
            problem = table.t("timers.join.config", count=count, errors=NL.join(errors))
    if problem is None:
        return start(deps, s, players, dropped, table.t("timers.join.started", count=count))
    s.status = CANCELLED
    plan = Plan(session=s)
    if s.lobby_msg:
        plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=problem, keyboard=None,
                             tag="lobby"))
    else:
        plan.outs.append(Out("send", chat_id=s.chat_id, text=problem, tag="notice"))
    return plan


def config_errors(deps: Deps, s: Session, n: int, lang: str | None = None) -> list[Html]:
    """Why these settings cannot be played by ``n`` players (``lang``: the group's)."""
    table = deps.table(s, lang)
    return [issue_text(table, i) for i in issues_for(s.settings, n) if i.level == "error"]


def start(deps: Deps, s: Session, players: list[Player], dropped: list[Player], notice: Html) -> Plan:
    """Start with ``players`` (those who could not be reached, ``dropped``, are named in ``notice``)."""
    s.players = list(players)
    if s.host not in {p.id for p in players}:
        s.host = next((p.id for p in players if not is_ai_seat_id(p.id)), players[0].id)
    plan = launch(deps, s, config(s, len(players)), None)
    table = deps.table(s)
    if dropped:
        notice += "\n" + table.t("timers.join.dropped", names=esc(", ".join(p.name for p in dropped)))
    plan.outs.insert(0, Out("send", chat_id=s.chat_id, text=notice, tag="notice"))
    return plan


# --- commands ---------------------------------------------------------------------------------------


async def cmd_extend(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    lang = lang_of(user)

    def decide(s: Session | None) -> Plan:
        if s is None or s.status != LOBBY or s.deadline is None or s.deadline.phase != "join":
            raise Reply(texts.t("timers.extend.none", lang))
        seat = s.seat_of(user.id)
        if seat is None:
            raise Reply(texts.t("timers.extend.not_player", lang))
        d = s.deadline
        if d.extensions >= MAX_EXTENSIONS:
            raise Reply(texts.t("timers.extend.limit", lang, max=MAX_EXTENSIONS))
        now = deps.clock()
        due = max(d.due, int(math.ceil(now))) + EXTEND_SECONDS
        s.deadline = new_deadline("join", d.serial + 1, "", d.limit, due, extensions=d.extensions + 1)
        table = deps.table(s)
        return Plan(session=s, answer=table.t(
            "timers.extend.done", name=esc(s.players[seat].name),
            left=duration(table, due - now), used=d.extensions + 1, max=MAX_EXTENSIONS))

    plan = transact(deps, job, chat.id, decide)
    await finish(deps, job, plan)


async def cmd_forcestart(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    lang = lang_of(user)

    def decide(s: Session | None) -> Plan:
        if s is None or s.status != LOBBY:
            raise Reply(texts.t("timers.forcestart.no_lobby", lang))
        host_check(s, user)
        players, dropped = deps.split_reachable(s)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise Reply(texts.t("timers.forcestart.not_enough", lang, count=len(players)))
        errors = config_errors(deps, s, len(players), lang)
        if errors:
            raise Reply(texts.t("lobby.config_errors", lang, errors=NL.join(errors)))
        table = deps.table(s)
        return start(deps, s, players, dropped, table.t("timers.forcestart.started", count=len(players)))

    plan = transact(deps, job, chat.id, decide)
    await finish(deps, job, plan)


IDLES_SHOWN = 30  # /idles names the players who ran out of time most (the record keeps more: idle_record)


async def cmd_idles(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    found = deps.repo.get_many([chat_key(chat.id), *idle_record.keys(chat.id)])  # (one read)
    session = Session.from_body(found[chat_key(chat.id)].body) if chat_key(chat.id) in found else None
    lang = reply_lang(job, session)  # the group's language, as every group reply
    if session is None:
        session = Session(chat_id=chat.id, lang=lang)
    table = deps.table(session, lang)
    totals, names = idle_record.all_time(session, [found[k].body for k in idle_record.keys(chat.id) if k in found])

    def listing(counts: dict[str, int]) -> Html:
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], names.get(kv[0], kv[0])))
        entries = [table.t("timers.idles.entry", name=names.get(uid, uid), count=n)
                   for uid, n in ranked[:IDLES_SHOWN] if n]
        return Html(", ").join(entries) or table.t("timers.idles.none")

    lines = [table.t("timers.idles.title"), table.t("timers.idles.game", list=listing(session.idle)),
             table.t("timers.idles.total", list=listing(totals))]
    await finish(deps, job, Plan(answer=NL.join(lines)))
