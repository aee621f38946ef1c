"""Phase timers and AFK handling: time limits, reminders, expiry, /extend, /forcestart, /idles.

The rules of what a timeout does live in the engine (``engine.timeouts``: the ``timeout`` move); this
module decides WHEN: each group has a limit per phase (``Settings.timers``, carried into the next
/newgame). Whenever the service is about to write a session (``Service._transact``), :meth:`Timers.plan`
compares the decision now awaited with the running :class:`~gamebot.session.Deadline`; only when it
changed (a new decision, the lobby opened or was extended) does it start a new deadline, stored in the
same write, and ask the scheduler for two one-time timers: a reminder and the expiry. Votes and cards
that do not end their decision therefore cost nothing more (the steady-play budget stays one read and
one write).

A timer carries the game id, the phase, the decision serial (``session.serial``), the step within it
and the due time. When it fires (:meth:`Timers.fire`, from ``functions/timer/app.py``) the session is
read and the timer acts only if that exact deadline is still running; a stale timer does nothing. The
expiry applies ``Action(seat, "timeout")`` for every awaited seat in a version-checked write, so a
human action that lands at the same moment either wins (the timer is then stale on reload) or is
refused as out of date. Players can never send a timeout: only this path creates one.

Group messages never name who holds a hidden decision; timeouts of hidden decisions are added to the
idle record only when the game ends.
"""
from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from engine import Action, GameConfig, GameState, actors, apply_action, prompts, validate_config, waiting_for
from engine.timeouts import DEFAULT_VOTE, TIMEOUT, VOTE_OPTION

from . import render, texts
from .callbacks import b36
from .render import Btn, Table
from .scheduler import Scheduler, Timer
from .session import ACTIVE, CANCELLED, LOBBY, PLAYING, Deadline, Session, TimerSettings, kind_tag, serial

if TYPE_CHECKING:  # pragma: no cover
    from .service import Job, Plan, Service

log = logging.getLogger("gamebot.timers")

# Phase -> default limit in seconds (0 = off). "other": any decision of a plug-in not listed.
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
# Owner of a pending decision -> its phase.
OWNER_PHASE = {
    "lady_of_the_lake": "lady",
    "assassination": "assassination",
    "untrustworthy_servant": "assassination",  # the Recruitment stage, just before the Assassination
    "excalibur": "excalibur",
    "plot_cards": "plot_cards",
    "trapper": "trapper",
    "rogue": "rogue",
    "loyalty": "loyalty",
}
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


def phase_of(state: GameState) -> str | None:
    """The phase of the decision awaited now (None once the game has ended)."""
    if state.over:
        return None
    if state.pending:
        p = state.pending[0]
        return "vote" if p.kind == "vote" else OWNER_PHASE.get(p.owner, "other")
    return {"team": "propose", "vote": "vote", "quest": "quest"}.get(state.stage, "other")


def step_of(state: GameState) -> str:
    """Which decision within one serial (an Opinion Maker's open vote, then everyone's vote)."""
    return f"{state.stage}.{len(state.pending)}"


def configure(config: GameConfig, timers: TimerSettings) -> GameConfig:
    """The game's configuration with the group's timeout rules the engine needs (the vote default)."""
    if timers.vote == DEFAULT_VOTE:
        return config
    return config.model_copy(update={"options": {**config.options, VOTE_OPTION: timers.vote}})


def _deadline(phase: str, serial_: int, step: str, limit: int, due: int, extensions: int = 0) -> Deadline:
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
        return _deadline("join", d.serial + 1 if d is not None and d.phase == "join" else 0, "", limit,
                         int(math.ceil(now)) + limit)
    if s.status != PLAYING or s.game() is None:
        return None
    state = s.game()
    phase = phase_of(state)
    if phase is None:
        return None
    key = (phase, serial(state), step_of(state))
    if d is not None and (d.phase, d.serial, d.step) == key:
        return d
    limit = limit_for(s.settings.timers, phase)
    return _deadline(*key, limit, int(math.ceil(now)) + limit) if limit else None


def _same(a: Deadline | None, b: Deadline | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.phase, a.serial, a.step, a.due) == (b.phase, b.serial, b.step, b.due)


def timers_for(s: Session, d: Deadline) -> list[Timer]:
    """The reminder (if any) and the expiry of a deadline."""
    out = []
    for kind, at in (("remind", d.remind_at), ("expire", d.due)):
        if at is None:
            continue
        payload = {"chat": s.chat_id, "game": s.game_id, "phase": d.phase, "serial": d.serial, "step": d.step,
                   "due": d.due, "kind": kind}
        name = f"gb{b36(s.chat_id)}-{s.game_id}-{b36(d.serial)}{kind_tag(d.step)}-{b36(d.due)}-{kind[0]}"
        out.append(Timer(name=name, at=int(at), payload=payload))
    return out


def record_idle(s: Session, seat: int, hidden: bool) -> None:
    player = s.players[seat]
    uid = str(player.id)
    s.idle_names[uid] = player.name
    if hidden:  # who held a hidden decision stays secret until the end
        s.idle_hidden[uid] = s.idle_hidden.get(uid, 0) + 1
        return
    s.idle[uid] = s.idle.get(uid, 0) + 1
    s.idle_totals[uid] = s.idle_totals.get(uid, 0) + 1


def settle_idle(s: Session) -> None:
    """The game is over: hidden decisions that ran out of time join the idle record."""
    for uid, n in s.idle_hidden.items():
        s.idle[uid] = s.idle.get(uid, 0) + n
        s.idle_totals[uid] = s.idle_totals.get(uid, 0) + n
    s.idle_hidden = {}


def carry_over(previous: Session | None) -> dict[str, Any]:
    """What a new lobby keeps from the group's previous session: the all-time idle record."""
    if previous is None:
        return {}
    settle_idle(previous)
    return {"idle_totals": dict(previous.idle_totals), "idle_names": dict(previous.idle_names)}


def is_stale(s: Session | None, p: dict[str, Any]) -> bool:
    """A timer acts only while its exact deadline (game, phase, decision, due time) is still running."""
    if s is None or s.game_id != p.get("game") or s.deadline is None:
        return True
    d = s.deadline
    if (d.phase, d.serial, d.step, d.due) != (p.get("phase"), p.get("serial"), p.get("step"), p.get("due")):
        return True
    if d.phase == "join":
        return s.status != LOBBY
    state = s.game()
    return s.status != PLAYING or state is None or (serial(state), step_of(state)) != (d.serial, d.step)


# ---------------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------------


def duration(table: Table, seconds: float) -> str:
    if seconds <= 0:
        return table.t("timers.off")
    minutes = max(1, math.ceil(seconds / 60))
    if minutes >= 60 and minutes % 60 == 0:
        return table.t("timers.hours", n=minutes // 60)
    return table.t("timers.minutes", n=minutes)


def time_left(table: Table, seconds: float) -> str:
    return duration(table, seconds) if seconds >= 60 else table.t("timers.left_soon")


def default_text(table: Table, phase: str, settings: TimerSettings) -> str:
    key = f"timers.default.{phase}"
    if not texts.has(key, table.lang):
        key = "timers.default.other"
    return table.t(key, vote=table.t(f"vote.{settings.vote}"), count=MIN_PLAYERS)


def phase_name(table: Table, phase: str) -> str:
    return table.t(f"timers.phase.{phase}") if texts.has(f"timers.phase.{phase}", table.lang) else table.module(phase)


# ---------------------------------------------------------------------------------------------------
# The service side
# ---------------------------------------------------------------------------------------------------


class Timers:
    """Timer planning, firing, commands and settings for one :class:`~gamebot.service.Service`."""

    def __init__(self, service: Service, scheduler: Scheduler | None) -> None:
        self.service = service
        self.scheduler = scheduler

    # --- planning ------------------------------------------------------------------------------------

    def plan(self, s: Session, old: Deadline | None) -> list[Timer]:
        """Bring ``s.deadline`` up to date before ``s`` is written; the timers to schedule once committed."""
        if s.status not in ACTIVE:
            settle_idle(s)
        if self.scheduler is None:
            return []
        s.deadline = desired_deadline(s, self.service.clock())
        if s.deadline is None or _same(s.deadline, old):
            return []
        return timers_for(s, s.deadline)

    def dispatch(self, timers: list[Timer]) -> None:
        """Schedule, after the commit. A failure is logged: the game goes on (without that time limit)."""
        for timer in timers:
            try:
                self.scheduler.schedule(timer)
            except Exception:
                log.exception("could not schedule timer %s", timer.name)

    # --- firing ---------------------------------------------------------------------------------------

    async def fire(self, payload: dict[str, Any]) -> str:
        """A timer is due: remind, or apply the defaults. Returns what it did (for logs and tests)."""
        from .service import Job

        outcome = ["stale"]
        chat_id = int(payload["chat"])
        job = Job(update=None, update_id=None)

        def decide(s: Session | None) -> Plan:
            from .service import Plan

            outcome[0] = "stale"
            if is_stale(s, payload):
                return Plan()
            if payload.get("kind") == "remind":
                if s.deadline.reminded:
                    return Plan()
                s.deadline.reminded = True
                outcome[0] = "reminded"
                return Plan(session=s, outs=self._reminder(s))
            outcome[0] = "expired"
            return self._expire_join(s) if s.deadline.phase == "join" else self._expire_game(s)

        plan = self.service._transact(job, chat_id, decide)
        await self.service._finish(job, plan, chat_id)
        return outcome[0]

    def _reminder(self, s: Session) -> list:
        from .telegram_io import Out

        d = s.deadline
        table = self.service._table(s)
        left = time_left(table, d.due - self.service.clock())
        if d.phase == "join":
            text = table.t("timers.remind_join", left=left, count=len(s.players), max=MAX_EXTENSIONS)
            return [Out("send", chat_id=s.chat_id, text=text, essential=False, tag="remind")]
        state = s.game()
        waiting = waiting_for(state)
        default = default_text(table, d.phase, s.settings.timers)
        if waiting.get("hidden") or not waiting.get("seats"):
            text = table.t("timers.remind_hidden", left=left)
        else:
            who = texts.join_names([table.mention(x) for x in waiting["seats"]], table.lang)
            text = table.t("timers.remind", left=left, who=who, what=render.esc(table.kind(waiting["kind"])),
                           default=default)
        outs = [Out("send", chat_id=s.chat_id, text=text, essential=False, tag="remind")]
        for seat in actors(state):  # a private nudge, hidden decisions included: only they see it
            player = s.players[seat]
            t = self.service._table(s, player.lang)
            outs.append(Out("send", chat_id=player.id, user_id=player.id, essential=False, tag="remind",
                            text=t.t("timers.remind_private", left=time_left(t, d.due - self.service.clock()),
                                     title=render.esc(s.title), default=default_text(t, d.phase, s.settings.timers))))
        return outs

    def _expire_game(self, s: Session) -> Plan:
        before = state = s.game()
        d = s.deadline
        events: list[Any] = []
        for seat in actors(before):
            if state.over or (serial(state), step_of(state)) != (d.serial, d.step):
                break
            if not prompts(state, seat):
                continue
            hidden = bool(state.pending and state.pending[0].hidden)
            state, ev = apply_action(state, Action(seat=seat, kind=TIMEOUT))
            events += ev
            record_idle(s, seat, hidden)
        return self.service._commit_game(s, before, state, events, ("timer", None))

    def _expire_join(self, s: Session) -> Plan:
        """Time to join is up: start with the reachable players if there are 5 to 10, else close."""
        from .service import Plan
        from .telegram_io import Out

        table = self.service._table(s)
        players, dropped = self.service._split_reachable(s)
        count = len(players)
        problem = None
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            problem = table.t("timers.join.closed", count=count, min=MIN_PLAYERS)
        else:
            errors = self._config_errors(s, count)
            if errors:
                problem = table.t("timers.join.config", count=count, errors=render.esc("\n".join(errors)))
        if problem is None:
            return self._start(s, players, dropped, table.t("timers.join.started", count=count))
        s.status = CANCELLED
        plan = Plan(session=s)
        if s.lobby_msg:
            plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=problem, keyboard=None,
                                 tag="lobby"))
        else:
            plan.outs.append(Out("send", chat_id=s.chat_id, text=problem, tag="notice"))
        return plan


    def _config_errors(self, s: Session, n: int) -> list[str]:
        try:
            config = self.service._config(s, n)
        except Exception as exc:  # e.g. a preset not offered for this many players
            return [p.message for p in getattr(exc, "problems", None) or []] or [str(exc)]
        return [i.message for i in validate_config(config) if i.level == "error"]

    def _start(self, s: Session, players: list[Any], dropped: list[Any], notice: str) -> Plan:
        from .telegram_io import Out

        s.players = list(players)
        if s.host not in {p.id for p in players}:
            s.host = players[0].id
        plan = self.service._launch(s, self.service._config(s, len(players)), None)
        table = self.service._table(s)
        if dropped:
            notice += "\n" + table.t("timers.join.dropped", names=render.esc(", ".join(p.name for p in dropped)))
        plan.outs.insert(0, Out("send", chat_id=s.chat_id, text=notice, tag="notice"))
        return plan

    # --- commands ---------------------------------------------------------------------------------------

    async def cmd_extend(self, job: Job, args: str) -> None:
        from .service import Plan, Reply

        chat = job.update.effective_chat
        user = job.update.effective_user
        lang = self.service._user_lang(job)

        def decide(s: Session | None) -> Plan:
            if s is None or s.status != LOBBY or s.deadline is None or s.deadline.phase != "join":
                raise Reply(texts.t("timers.extend.none", lang))
            if s.seat_of(user.id) is None:
                raise Reply(texts.t("timers.extend.not_player", lang))
            d = s.deadline
            if d.extensions >= MAX_EXTENSIONS:
                raise Reply(texts.t("timers.extend.limit", lang, max=MAX_EXTENSIONS))
            now = self.service.clock()
            due = max(d.due, int(math.ceil(now))) + EXTEND_SECONDS
            s.deadline = _deadline("join", d.serial + 1, "", d.limit, due, extensions=d.extensions + 1)
            table = self.service._table(s)
            return Plan(session=s, answer=table.t(
                "timers.extend.done", name=render.esc(s.players[s.seat_of(user.id)].name),
                left=duration(table, due - now), used=d.extensions + 1, max=MAX_EXTENSIONS))

        plan = self.service._transact(job, chat.id, decide)
        await self.service._finish(job, plan, chat.id)

    async def cmd_forcestart(self, job: Job, args: str) -> None:
        from .service import Reply

        chat = job.update.effective_chat
        user = job.update.effective_user
        lang = self.service._user_lang(job)

        def decide(s: Session | None) -> Plan:
            if s is None or s.status != LOBBY:
                raise Reply(texts.t("timers.forcestart.no_lobby", lang))
            self.service._host_check(s, user)
            players, dropped = self.service._split_reachable(s)
            if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
                raise Reply(texts.t("timers.forcestart.not_enough", lang, count=len(players)))
            errors = self._config_errors(s, len(players))
            if errors:
                raise Reply(texts.t("lobby.config_errors", lang, errors=render.esc("\n".join(errors))))
            table = self.service._table(s)
            return self._start(s, players, dropped, table.t("timers.forcestart.started", count=len(players)))

        plan = self.service._transact(job, chat.id, decide)
        await self.service._finish(job, plan, chat.id)

    async def cmd_idles(self, job: Job, args: str) -> None:
        from .service import Plan

        chat = job.update.effective_chat
        session, _ = self.service._load(chat.id)
        lang = self.service._reply_lang(job, session)  # the group's language, as every group reply
        if session is None:
            session = Session(chat_id=chat.id, lang=lang)
        table = self.service._table(session, lang)

        def listing(counts: dict[str, int]) -> str:
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], session.idle_names.get(kv[0], kv[0])))
            entries = [table.t("timers.idles.entry", name=render.esc(session.idle_names.get(uid, uid)), count=n)
                       for uid, n in ranked if n]
            return ", ".join(entries) or table.t("timers.idles.none")

        lines = [table.t("timers.idles.title"), table.t("timers.idles.game", list=listing(session.idle)),
                 table.t("timers.idles.total", list=listing(session.idle_totals))]
        await self.service._finish(job, Plan(answer="\n".join(lines)))

    # --- settings (the host's private panel, page "timers") ------------------------------------------

    def settings_op(self, st: Any, op: str, lang: str) -> bool:
        """Apply a Timers-page button to the settings; False if it only shows the page."""
        from .service import Reply

        timers = st.timers
        if op == "pt":
            return False
        if op == "kv":
            timers.vote = "reject" if timers.vote == "approve" else "approve"
        elif op == "ko":
            timers.limits = {phase: 0 for phase, _ in PHASES}
        elif op == "kd":
            timers.limits, timers.vote = {}, DEFAULT_VOTE
        elif op[1:].isdigit() and int(op[1:]) < len(PHASES):
            phase = PHASES[int(op[1:])][0]
            current = limit_for(timers, phase)
            later = [c for c in CHOICES if c > current]
            timers.limits[phase] = later[0] if later else CHOICES[0]
            if timers.limits[phase] == DEFAULT_LIMITS[phase]:
                del timers.limits[phase]
        else:
            raise Reply(texts.t("error.stale", lang))
        return True

    def panel(self, table: Table, settings: Any) -> tuple[str, list[list[Btn]]]:
        codec = self.service.codec
        timers: TimerSettings = settings.timers

        def data(op: str) -> str:
            return codec.encode("S", table.chat_id, table.game_id, 0, op)

        lines = [table.t("timers.page.title", title=render.esc(table.title)), table.t("timers.page.help"), ""]
        buttons = []
        for i, (phase, _) in enumerate(PHASES):
            limit = limit_for(timers, phase)
            name = phase_name(table, phase)
            lines.append(table.t("timers.page.line", phase=render.esc(name), limit=duration(table, limit),
                                 default=default_text(table, phase, timers)))
            buttons.append(Btn(table.t("timers.button.phase", phase=name[:22], limit=duration(table, limit)),
                               data(f"k{i}")))
        if self.scheduler is None:
            lines += ["", table.t("timers.page.unavailable")]
        rows = [buttons[i: i + 2] for i in range(0, len(buttons), 2)]
        rows.append([Btn(table.t("timers.button.vote", vote=table.t(f"vote.{timers.vote}")), data("kv"))])
        rows.append([Btn(table.t("timers.button.all_off"), data("ko")), Btn(table.t("timers.button.defaults"), data("kd"))])
        rows.append([Btn(table.t("settings.button.back"), data("pm"))])
        return "\n".join(lines), rows

    def settings_button(self, table: Table) -> Btn:
        return Btn(table.t("timers.button.page"), self.service.codec.encode("S", table.chat_id, table.game_id, 0, "pt"))
