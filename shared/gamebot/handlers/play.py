"""Play: the buttons of a running game pressed by its players (the Leader's team picker, drawn again at
each toggle; the vote and the quest cards pressed in the group, a second press told what the presser
already did) and how an engine move becomes the session's new state, its messages and, at the end, its
archive and statistics."""
from __future__ import annotations

from collections.abc import Callable

from telegram import User

from engine import Action, Event, GameState, IllegalAction, apply_action, prompts, public_view, waiting_for
from engine.timeouts import TIMEOUT
from engine.views import PublicView
from gamebot.botapi.buttons import Card, Pressed, TeamConfirm, TeamQuest, TeamSeat, Vote
from gamebot.botapi.telegram_io import Out
from gamebot.compose import game as game_messages
from gamebot.compose.context import Deps, lang_of
from gamebot.handlers import ai_seats, selection, statistics
from gamebot.handlers.handling import Job, check_game, finish, game_of, transact
from gamebot.language import texts, wording
from gamebot.language.markup import escape
from gamebot.messages import round_message
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage import state_cache
from gamebot.storage.session import ENDED, PLAYING, Selection, Session, archive_key, serial
from gamebot.storage.store import Item, Write

# press(deps, session, state, seat (None: not at the table), user, lang, message id, pressed) -> Plan
Press = Callable[[Deps, Session, GameState, "int | None", User, str, "int | None", Pressed], Plan]


async def game_button(deps: Deps, job: Job, pressed: Pressed, press: Press) -> None:
    """A button of the running game: ``press`` decides under the version-checked write, once the
    button is known to belong to this game."""
    q = job.query
    user = q.from_user
    msg_id = q.message.message_id if q.message else None

    def decide(s: Session | None) -> Plan:
        lang = lang_of(user, s)
        s = check_game(s, pressed.game_id, PLAYING, lang)
        return press(deps, s, game_of(s), s.seat_of(user.id), user, lang, msg_id, pressed)

    plan = transact(deps, job, pressed.chat_id, decide)
    await finish(deps, job, plan)


# --- moves -------------------------------------------------------------------------------------------


def apply_move(deps: Deps, s: Session, state: GameState, action: Action, lang: str,
               trigger: tuple[str, int | None]) -> Plan:
    """A player's move: the new state and its messages, or the engine's refusal (a ``Reply``)."""
    if action.kind == TIMEOUT:  # only the timer path (gamebot.handlers.timekeeper) times a seat out
        raise Reply(texts.t("error.stale", lang), final=True)
    try:
        new, events = apply_action(state, action)
    except IllegalAction as exc:
        raise refusal(s, state, action, lang, exc) from None
    return commit_game(deps, s, state, new, events, trigger)


# Refusals the same press can never pass later, under the same decision (``Reply.final``): nothing
# records them. The others (not yet their turn: someone votes in the open first; a team or a choice the
# rules refuse, which later taps may change) are noted for a redelivery (``uow.refusals_key``).
FINAL = frozenset({"already_acted", "not_on_team", "card_not_allowed", "game_over"})


def refusal(s: Session, state: GameState, action: Action, lang: str, exc: IllegalAction) -> Reply:
    """The answer to a move the engine refused: its reason in the presser's language (an alert). A second
    vote is answered with the vote already cast (a toast: the answer reaches the presser alone)."""
    if exc.code == "already_acted" and action.kind == "vote" and action.seat in state.votes:
        mine, theme = ("approve" if state.votes[action.seat] else "reject"), state.config.theme.value
        return Reply(texts.t("vote.already", lang, theme, vote=texts.t(f"vote.button.{mine}", lang, theme)),
                     final=True)
    key = f"illegal.{exc.code}"
    text = texts.t(key, lang, **exc.params) if texts.has(key, lang) else escape(exc.reason)
    if exc.code == "not_your_turn":  # say whose turn it is, when the table may know
        text = wording.whose_turn(waiting_for(state), s.names(), action.kind, state.stage, lang,
                                  state.config.theme.value) or text
    return Reply(text, alert=True, final=exc.code in FINAL)


def commit_game(deps: Deps, s: Session, state: GameState, new: GameState, events: list[Event],
                trigger: tuple[str, int | None]) -> Plan:
    """The session after a move: the new state, its messages, and the archive if the game ended. Without
    a scheduler the AI seats' moves that follow are made in this step too (``ai_seats.play_now``)."""
    if deps.scheduler is None and ai_seats.waiting_ai_seats(s, new):
        new, more = ai_seats.play_now(s, new)
        events = [*events, *more]
    s.set_game(new)
    outs = keep(s, game_messages.game_outs(deps, s, state, new, events, trigger))
    plan = Plan(session=s, outs=outs)
    if new.over:
        final = public_view(new)
        plan.writes.append(archive(deps, s, new, final))
        statistics.end_extras(deps, s, new, final, plan)  # statistics counted and the picture sent after it
    return plan


def keep(s: Session, told: game_messages.Told) -> list[Out]:
    """What the session keeps of a game's change, decided with it (``game_outs`` says it, the step applies
    it): a vote opened (its message not sent yet: its id comes back with the delivery; the news atop it),
    the game over (no selection left; the "Play again" message is this game's, its id yet to come).
    Returns the change's messages."""
    if told.vote is not None:
        s.vote_serial, s.vote_msg, s.vote_intro = told.vote.serial, None, told.vote.intro
    if told.ended:
        s.status, s.sel = ENDED, {}
        s.again_msg, s.again_game = None, s.game_id
    return told.outs


def archive(deps: Deps, s: Session, state: GameState, final_view: PublicView) -> Write:
    """The game is finished (ended or cancelled): keep its summary in the chat item for good and move
    the whole game to an archive item that expires by TTL. Written in the same transaction."""
    now = deps.clock()
    s.last = {
        "game_id": s.game_id,
        "status": s.status,
        "ended_at": now,
        "names": s.names(),
        "user_ids": [p.id for p in s.players],
        "view": final_view,
    }
    record = {
        "chat_id": s.chat_id,
        "game_id": s.game_id,
        "title": s.title,
        "status": s.status,
        "ended_at": now,
        "players": [p.model_dump() for p in s.players],
        "state": s.state,
    }
    s.state = None
    return Write(Item(key=archive_key(s.chat_id, s.game_id or ""), body=record,
                      expires_at=int(now + deps.archive_days * 86400)), None)


# --- the team picker (the Leader, private) -------------------------------------------------------------


def team_press(deps: Deps, s: Session, state: GameState, seat: int | None, user: User, lang: str,
               msg_id: int | None, pressed: Pressed) -> Plan:
    if serial(state) != pressed.serial:
        raise Reply(texts.t("error.stale", lang), final=True)  # (a decision point never comes back)
    mine = [p for p in prompts(state, seat) if p.kind == "propose"] if seat is not None else []
    if seat is None or not mine:
        raise Reply(texts.t("team.only_leader", lang, leader=s.players[state.leader].name), final=True)
    prompt = mine[0]
    sel = s.sel.get("g")
    if sel is None or sel.serial != pressed.serial:
        sel = Selection(serial=pressed.serial, kind="propose")
    op = pressed.op
    if isinstance(op, TeamSeat):
        if op.seat not in prompt.targets:
            raise Reply(texts.t("error.stale", lang), final=True)
        full = wording.team_full(prompt, sel.quest, len(sel.targets), lang, state.config.theme.value)
        if full and op.seat not in sel.targets:
            raise Reply(full)  # (noted: once a name is taken off, this very tap could pass)
        sel.targets = sorted(set(sel.targets) ^ {op.seat})
    elif isinstance(op, TeamQuest) and prompt.quests:
        if op.quest not in prompt.quests:
            raise Reply(texts.t("error.stale", lang), final=True)
        if sel.quest == op.quest and s.sel.get("g") is sel:  # a tap that changes nothing: answered, no write
            raise Reply(selection.toast([deps.table(s, lang).names[t] for t in sel.targets], [], lang,
                                        state.config.theme.value))
        sel.quest = op.quest
    elif isinstance(op, TeamConfirm):
        missing = selection.team_missing(prompt, sel, lang, state.config.theme.value)
        if missing:  # said before the engine is asked: what the team still needs
            raise Reply(missing, alert=True)
        action = Action(seat=seat, kind="propose", targets=tuple(sel.targets),
                        quest=sel.quest if prompt.quests else None)
        plan = apply_move(deps, s, state, action, lang, trigger=("picker", msg_id))
        s.sel.pop("g", None)
        return plan
    else:
        raise Reply(texts.t("error.stale", lang), final=True)
    s.sel["g"] = sel
    names = deps.table(s, lang).names
    # every toggle draws the picker again: the team so far marked, named and counted (gamebot.handlers.selection)
    return Plan(session=s, outs=[game_messages.picker_out(deps, s, state, prompt, sel, msg_id)] if msg_id else [],
                answer=selection.toast([names[t] for t in sel.targets], [], lang, state.config.theme.value))


# --- votes (group) -------------------------------------------------------------------------------------


def vote_press(deps: Deps, s: Session, state: GameState, seat: int | None, user: User, lang: str,
               msg_id: int | None, pressed: Pressed) -> Plan:
    op = pressed.op
    if serial(state) != pressed.serial or not isinstance(op, Vote):
        raise Reply(texts.t("error.stale", lang), final=True)
    if seat is None:
        raise Reply(texts.t("error.not_in_game", lang), final=True)
    choice = "approve" if op.approve else "reject"
    plan = apply_move(deps, s, state, Action(seat=seat, kind="vote", choice=choice), lang, trigger=("vote", msg_id))
    plan.answer = texts.t("vote.cast", lang, vote=texts.t(f"vote.{choice}", lang))
    return plan


# --- quest cards (group) -------------------------------------------------------------------------------


def card_press(deps: Deps, s: Session, state: GameState, seat: int | None, user: User, lang: str,
               msg_id: int | None, pressed: Pressed) -> Plan:
    """A quest card pressed under the round message: seen by the bot alone; the presser alone is
    answered (the card played, or why it is refused and which cards they may play)."""
    cards = state_cache.public(state)["table_cards"]
    op = pressed.op
    if serial(state) != pressed.serial or not round_message.quest_open(state) or not isinstance(op, Card) \
            or op.index >= len(cards):
        raise Reply(texts.t("error.stale", lang), final=True)
    if seat is None:
        raise Reply(texts.t("error.not_in_game", lang), final=True)
    table = deps.table(s, lang)
    card = cards[op.index]
    action = Action(seat=seat, kind="play", choice=card)
    try:
        new, events = apply_action(state, action)
    except IllegalAction as exc:
        text = round_message.refusal(table, exc, state.cards.get(seat))  # about the cards: a toast, to the presser alone
        raise (Reply(text, final=exc.code in FINAL) if text is not None else refusal(s, state, action, lang, exc)
               ) from None
    plan = commit_game(deps, s, state, new, events, trigger=("card", msg_id))
    plan.answer = round_message.played(table, card)
    return plan


async def on_team(deps: Deps, job: Job, pressed: Pressed) -> None:
    await game_button(deps, job, pressed, team_press)


async def on_vote(deps: Deps, job: Job, pressed: Pressed) -> None:
    await game_button(deps, job, pressed, vote_press)


async def on_card(deps: Deps, job: Job, pressed: Pressed) -> None:
    await game_button(deps, job, pressed, card_press)
