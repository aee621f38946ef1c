"""The bot's own seats (``gamebot.storage.seats``): the host adds and removes them in the lobby (the 🤖
buttons), and they play every decision of their seat, each from that seat's view alone
(``engine.policy.bot_move``), with a random generator seeded from the game's seed, the seat and the
move's number, so a game with bots replays from its seed and log like any other.

Pace: a bot never moves in the step that gave it its decision. Every write of a running game brings
``Session.bot_turn`` up to date (:func:`plan_turn`, from ``Timers.plan``): when a bot seat has a decision
pending, its move is due 2 or 3 seconds later (seeded), and the chat's alarm is set for that moment
(``gamebot.timing.alarm``): the wake-up queue invokes the timer function then (``gamebot.timing.wakeup``),
and nothing waits meanwhile. The move is made by ``timekeeper.Timers.fire``: every due bot's move of that
decision in one unit of work (:func:`moves`), so all the bots' votes are one step, one progress edit, as
one person's vote is. Without a scheduler (no timers configured) there is no alarm: the bots move in the
same step as the move that gave them their decision (:func:`play_now`).
"""
from __future__ import annotations

import logging
import random
from typing import Any

from engine import Action, GameState, IllegalAction, actors, apply_action, prompts
from engine.policy import bot_move
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
from gamebot.storage.seats import MAX_DELAY, MIN_DELAY, BotTurn, bot_number, bot_seats, free_bot_id, is_bot_id
from gamebot.storage.session import LOBBY, PLAYING, Player, Session, serial
from gamebot.timing.policy import step_of

log = logging.getLogger("gamebot.handlers.bots")

MAX_CHAIN = 1000  # moves a chain of bots may make in one step without a scheduler (a game has far fewer)


def bot_name(uid: int, lang: str) -> str:
    """The shown name of the bot seat ``uid``: one of the catalog's names, marked as a bot (🤖 and the word)."""
    names = [n.strip() for n in str(texts.t("bots.names", lang)).split(",") if n.strip()]
    n = bot_number(uid)
    given = names[(n - 1) % len(names)] if names else str(n)
    return shorten(str(texts.t("bots.name", lang, name=given)), 40)


def bot_players(s: Session) -> list[int]:
    """The seats of ``s`` the bot plays."""
    return bot_seats([p.id for p in s.players])


def waiting_bots(s: Session, state: GameState) -> list[int]:
    """The bot seats with a decision pending now."""
    if state.over:
        return []
    return [seat for seat in actors(state) if seat < len(s.players) and is_bot_id(s.players[seat].id)]


def rng_for(state: GameState, seat: int) -> random.Random:
    """The bot's randomness for its next move: from the game's seed, the seat and the move's number."""
    return random.Random(f"{state.seed}:{seat}:{len(state.log)}")


def pace(state: GameState) -> int:
    """Seconds between a decision's arrival and the bots' move (seeded, ``MIN_DELAY``..``MAX_DELAY``)."""
    return random.Random(f"{state.seed}:pace:{len(state.log)}").randint(MIN_DELAY, MAX_DELAY)


def plan_turn(s: Session, now: float) -> None:
    """Bring ``s.bot_turn`` up to date before ``s`` is written: due a few seconds from now when a bot seat
    has a new decision pending, kept while that decision is the same, gone when no bot has one."""
    state = s.game() if s.status == PLAYING and s.state and bot_players(s) else None  # (no bot seat: nothing to plan)
    if state is None or not waiting_bots(s, state):
        s.bot_turn = None
        return
    key = (serial(state), step_of(state))
    turn = s.bot_turn
    if turn is not None and (turn.serial, turn.step) == key:
        return
    s.bot_turn = BotTurn(serial=key[0], step=key[1], due=round(now + pace(state), 2))


def one_move(state: GameState, seat: int) -> tuple[GameState, list[Any]]:
    """The bot at ``seat`` makes its move: the policy's, or, should the engine refuse it, the decision's
    default (the move a time limit would make)."""
    action = bot_move(state, seat, rng_for(state, seat))
    if action is not None:
        try:
            return apply_action(state, action)
        except IllegalAction as exc:
            log.warning("a bot's move was refused (%s): its seat takes the default", exc.code)
    return apply_action(state, Action(seat=seat, kind=TIMEOUT))


def moves(s: Session, state: GameState) -> tuple[GameState, list[Any]]:
    """Every bot with a decision pending now makes its move, while the decision stays the same (a vote
    the last bot completes ends there)."""
    key = (serial(state), step_of(state))
    events: list[Any] = []
    for seat in waiting_bots(s, state):
        if state.over or (serial(state), step_of(state)) != key:
            break
        if not prompts(state, seat):
            continue
        state, more = one_move(state, seat)
        events += more
    return state, events


def play_now(s: Session, state: GameState) -> tuple[GameState, list[Any]]:
    """Without a scheduler: the bots make their moves at once, decision after decision, until a person's
    decision (or the end) is reached."""
    events: list[Any] = []
    for _ in range(MAX_CHAIN):
        if not waiting_bots(s, state):
            break
        state, more = moves(s, state)
        events += more
    return state, events


# --- the lobby's 🤖 buttons (the host) -----------------------------------------------------------------


def add_bot(deps: Deps, s: Session | None, user: Any, pressed: Pressed) -> Plan:
    """The host seats one more bot (up to the table's size)."""
    lang = lang_of(user, s)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    seated = seat_bot(s)
    if seated is None:
        raise Reply(texts.t("bots.full", lang, max=MAX_PLAYERS), alert=True)
    plan = lobby_edit(deps, s)
    plan.answer = texts.t("bots.added", lang, name=esc(seated.name))
    return plan


def seat_bot(s: Session) -> Player | None:
    """Seat one more bot at the lobby of ``s`` (None: the table is full). Its name is its own at the
    table: a person who took it first keeps it, and the bot's gets its number."""
    uid = free_bot_id([p.id for p in s.players]) if len(s.players) < MAX_PLAYERS else None
    if uid is None:
        return None
    name = bot_name(uid, s.lang)
    if name in s.names():
        name = f"{name} #{bot_number(uid)}"
    player = Player(id=uid, name=name)
    s.players.append(player)
    return player


def remove_bot(deps: Deps, s: Session | None, user: Any, pressed: Pressed) -> Plan:
    """The host takes the last bot seated away (in the lobby only: a game keeps its seats)."""
    lang = lang_of(user, s)
    if s is not None and s.game_id == pressed.game_id and s.status == PLAYING:
        raise Reply(texts.t("bots.in_game", lang), alert=True, final=True)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    seats = bot_players(s)
    if not seats:
        raise Reply(texts.t("bots.none", lang), final=True)
    gone = s.players.pop(seats[-1])
    plan = lobby_edit(deps, s)
    plan.answer = texts.t("bots.removed", lang, name=esc(gone.name))
    return plan


def lobby_edit(deps: Deps, s: Session) -> Plan:
    """The lobby's message as it stands now (its progress edit)."""
    plan = Plan(session=s)
    if s.lobby_msg:
        text, kb = redraw.lobby(deps, s)
        plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                             essential=False, view="lobby"))
    return plan


def forged(user: Any) -> Reply | None:
    """An update that claims to come from a bot seat's id (no Telegram user has one): refused."""
    if not is_bot_id(getattr(user, "id", None)):
        return None
    return Reply(texts.t("bots.forged", lang_of(user)), alert=True, final=True)
