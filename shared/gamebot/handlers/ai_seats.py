"""AI seats (``gamebot.storage.seats``): the host adds and removes them in the lobby (the 🤖
buttons), and they play every decision of their seat, each from that seat's view alone
(``engine.policy.ai_seat_move``), with a random generator seeded from the game's seed, the seat and the
move's number, so a game with AI seats replays from its seed and log like any other.

Pace: an AI seat never moves in the step that gave it its decision. Every write of a running game brings
``Session.ai_seat_turn`` up to date (:func:`plan_turn`, from ``Timers.plan``): when an AI seat has a decision
pending, its move is due 2 or 3 seconds later (seeded), and the chat's alarm is set for that moment
(``gamebot.timing.alarm``): the wake-up queue invokes the timer function then (``gamebot.timing.wakeup``),
and nothing waits meanwhile. The move is made by ``timekeeper.Timers.fire``: every due AI seat's move of that
decision in one unit of work (:func:`moves`), so all the AI seats' votes are one step, one progress edit, as
one person's vote is. Without a scheduler (no timers configured) there is no alarm: the AI seats move in the
same step as the move that gave them their decision (:func:`play_now`).
"""
from __future__ import annotations

import logging
import random

from telegram import User

from engine import Action, Event, GameState, IllegalAction, actors, apply_action, prompts
from engine.policy import ai_seat_move
from engine.timeouts import TIMEOUT
from gamebot.botapi.buttons import Pressed
from gamebot.botapi.telegram_io import Out
from gamebot.compose import redraw
from gamebot.compose.context import MAX_PLAYERS, Deps, lang_of
from gamebot.handlers.handling import check_game, host_check
from gamebot.language import texts
from gamebot.language.markup import shorten
from gamebot.messages.table import esc
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.seats import (
    MAX_DELAY,
    MIN_DELAY,
    AiSeatTurn,
    ai_seat_number,
    ai_seats,
    free_ai_seat_id,
    is_ai_seat_id,
)
from gamebot.storage.session import LOBBY, PLAYING, Player, Session, serial
from gamebot.timing.policy import step_of

log = logging.getLogger("gamebot.handlers.ai_seats")

MAX_CHAIN = 1000  # moves a chain of AI seats may make in one step without a scheduler (a game has far fewer)


def ai_seat_name(uid: int, lang: str) -> str:
    """The shown name of the AI seat ``uid``: one of the catalog's names, marked as a bot (🤖 and the word)."""
    names = [n.strip() for n in str(texts.t("ai_seats.names", lang)).split(",") if n.strip()]
    n = ai_seat_number(uid)
    given = names[(n - 1) % len(names)] if names else str(n)
    return shorten(str(texts.t("ai_seats.name", lang, name=given)), 40)


def ai_seats_at(s: Session) -> list[int]:
    """The AI seats of ``s``: the seats the bot plays."""
    return ai_seats([p.id for p in s.players])


def waiting_ai_seats(s: Session, state: GameState) -> list[int]:
    """The AI seats with a decision pending now."""
    if state.over:
        return []
    return [seat for seat in actors(state) if seat < len(s.players) and is_ai_seat_id(s.players[seat].id)]


def rng_for(state: GameState, seat: int) -> random.Random:
    """An AI seat's randomness for its next move: from the game's seed, the seat and the move's number."""
    return random.Random(f"{state.seed}:{seat}:{len(state.log)}")


def pace(state: GameState) -> int:
    """Seconds between a decision's arrival and the AI seats' move (seeded, ``MIN_DELAY``..``MAX_DELAY``)."""
    return random.Random(f"{state.seed}:pace:{len(state.log)}").randint(MIN_DELAY, MAX_DELAY)


def plan_turn(s: Session, now: float) -> None:
    """Bring ``s.ai_seat_turn`` up to date before ``s`` is written: due a few seconds from now when an AI seat
    has a new decision pending, kept while that decision is the same, gone when no AI seat has one."""
    state = s.game() if s.status == PLAYING and s.state and ai_seats_at(s) else None  # (no AI seat: nothing to plan)
    if state is None or not waiting_ai_seats(s, state):
        s.ai_seat_turn = None
        return
    key = (serial(state), step_of(state))
    turn = s.ai_seat_turn
    if turn is not None and (turn.serial, turn.step) == key:
        return
    s.ai_seat_turn = AiSeatTurn(serial=key[0], step=key[1], due=round(now + pace(state), 2))


def one_move(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """The AI seat at ``seat`` makes its move: the policy's, or, should the engine refuse it, the decision's
    default (the move a time limit would make)."""
    action = ai_seat_move(state, seat, rng_for(state, seat))
    if action is not None:
        try:
            return apply_action(state, action)
        except IllegalAction as exc:
            log.warning("an AI seat's move was refused (%s): its seat takes the default", exc.code)
    return apply_action(state, Action(seat=seat, kind=TIMEOUT))


def moves(s: Session, state: GameState) -> tuple[GameState, list[Event]]:
    """Every AI seat with a decision pending now makes its move, while the decision stays the same (a vote
    the last AI seat completes ends there)."""
    key = (serial(state), step_of(state))
    events: list[Event] = []
    for seat in waiting_ai_seats(s, state):
        if state.over or (serial(state), step_of(state)) != key:
            break
        if not prompts(state, seat):
            continue
        state, more = one_move(state, seat)
        events += more
    return state, events


def play_now(s: Session, state: GameState) -> tuple[GameState, list[Event]]:
    """Without a scheduler: the AI seats make their moves at once, decision after decision, until a person's
    decision (or the end) is reached."""
    events: list[Event] = []
    for _ in range(MAX_CHAIN):
        if not waiting_ai_seats(s, state):
            break
        state, more = moves(s, state)
        events += more
    return state, events


# --- the lobby's 🤖 buttons (the host) -----------------------------------------------------------------


def add_ai_seat(deps: Deps, s: Session | None, user: User, pressed: Pressed) -> Plan:
    """The host adds one more AI seat (up to the table's size)."""
    lang = lang_of(user, s)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    seated = new_ai_seat(s)
    if seated is None:
        raise Reply(texts.t("ai_seats.full", lang, max=MAX_PLAYERS), alert=True)
    plan = lobby_edit(deps, s)
    plan.answer = texts.t("ai_seats.added", lang, name=esc(seated.name))
    return plan


def new_ai_seat(s: Session) -> Player | None:
    """Seat one more AI seat at the lobby of ``s`` (None: the table is full). Its name is its own at the
    table: a person who took it first keeps it, and the AI seat's gets its number."""
    uid = free_ai_seat_id([p.id for p in s.players]) if len(s.players) < MAX_PLAYERS else None
    if uid is None:
        return None
    name = ai_seat_name(uid, s.lang)
    if name in s.names():
        name = f"{name} #{ai_seat_number(uid)}"
    player = Player(id=uid, name=name)
    s.players.append(player)
    return player


def remove_ai_seat(deps: Deps, s: Session | None, user: User, pressed: Pressed) -> Plan:
    """The host takes the last AI seat seated away (in the lobby only: a game keeps its seats)."""
    lang = lang_of(user, s)
    if s is not None and s.game_id == pressed.game_id and s.status == PLAYING:
        raise Reply(texts.t("ai_seats.in_game", lang), alert=True, final=True)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    seats = ai_seats_at(s)
    if not seats:
        raise Reply(texts.t("ai_seats.none", lang), final=True)
    gone = s.players.pop(seats[-1])
    plan = lobby_edit(deps, s)
    plan.answer = texts.t("ai_seats.removed", lang, name=esc(gone.name))
    return plan


def lobby_edit(deps: Deps, s: Session) -> Plan:
    """The lobby's message as it stands now (its progress edit)."""
    plan = Plan(session=s)
    if s.lobby_msg:
        text, kb = redraw.lobby(deps, s)
        plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                             essential=False, view="lobby"))
    return plan


def forged(user: User) -> Reply | None:
    """An update that claims to come from an AI seat's id (no Telegram user has one): refused."""
    if not is_ai_seat_id(getattr(user, "id", None)):
        return None
    return Reply(texts.t("ai_seats.forged", lang_of(user)), alert=True, final=True)
