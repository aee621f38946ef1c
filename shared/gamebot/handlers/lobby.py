"""The lobby: /newgame, joining (its button or the private deep link), leaving (/leave or its button),
the host opening the settings panel, and starting the game (the deal)."""
from __future__ import annotations

import secrets
from collections.abc import Callable

from telegram import User

import engine
from engine import new_game, validate_config
from gamebot.botapi.buttons import (
    AddAiSeat,
    Join,
    Leave,
    Op,
    OpenSettings,
    PlayAgain,
    Pressed,
    RemoveAiSeat,
    StartGame,
)
from gamebot.botapi.telegram_io import Out
from gamebot.compose import game as game_messages
from gamebot.compose import redraw, settings_check
from gamebot.compose.context import MAX_PLAYERS, Deps, display_name, lang_of, own_lang
from gamebot.handlers import ai_seats, nextgame, play
from gamebot.handlers.handling import Job, check_game, finish, host_check, transact
from gamebot.handlers.settings import lobby_settings
from gamebot.language import texts
from gamebot.language.markup import shorten
from gamebot.messages.table import esc
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.seats import is_ai_seat_id
from gamebot.storage.session import (
    CANCELLED,
    LOBBY,
    PLAYING,
    Player,
    Session,
    Settings,
    new_game_id,
    user_key,
)
from gamebot.storage.store import Item, Write
from gamebot.timing.policy import carry_over, configure


async def cmd_newgame(deps: Deps, job: Job, args: str) -> None:
    user = job.user
    chat = job.chat

    def decide(s: Session | None) -> Plan:
        if s is not None and s.active:
            raise Reply(texts.t("newgame.exists", s.lang))
        return open_lobby(deps, s, chat.id, chat.title or "", user, lobby_settings(s.settings if s else None, args))

    plan = transact(deps, job, chat.id, decide)
    await finish(deps, job, plan)


def open_lobby(deps: Deps, s: Session | None, chat_id: int, title: str, user: User, settings: Settings,
               rematch_of: str | None = None, invited: list[Player] | None = None, ai_seat_count: int = 0,
               practice: bool = False) -> Plan:
    """A new lobby in the group of ``s`` (None: a group new to the bot), hosted by ``user``, who joins it
    if the bot can message them. ``rematch_of``: the game it replays, whose players are ``invited``;
    ``ai_seat_count``: AI seats seated at once; ``practice``: the lobby of a /practice game, in the user's private
    chat (``chat_id``), in their language."""
    rec, version = deps.load_user(user.id)
    own = own_lang(user, rec)  # "" when we do not speak the user's language
    # the group keeps its language (/language, settings); a new group speaks its first host's
    lang = s.lang if s is not None and texts.supported(s.lang) else own or texts.DEFAULT_LANG
    if practice:
        lang = own or lang_of(user)
    session = Session(
        chat_id=chat_id,
        title=title,
        lang=lang,
        game_id=new_game_id(),
        status=LOBBY,
        host=user.id,
        settings=settings,
        seen=list(s.seen) if s is not None else [],
        **carry_over(s),
        last=s.last if s is not None else None,
        pin_hint=s.pin_hint if s is not None else False,
        again_msg=s.again_msg if s is not None else None,
        again_game=s.again_game if s is not None else None,
        rematch_of=rematch_of,
        invited=[p for p in invited or [] if p.id != user.id and not is_ai_seat_id(p.id)],
        practice=practice,
    )
    plan = Plan(session=session)
    if s is not None and s.pinned:  # the last game's board makes way for the lobby
        plan.outs.append(Out("unpin", chat_id=chat_id, message_id=s.pinned, essential=False, tag="unpin"))
    table = deps.table(session)
    elsewhere = deps.active_elsewhere(rec, chat_id) if rec.reachable else None
    if rec.reachable and elsewhere is None:
        session.players.append(Player(id=user.id, name=display_name(user), lang=own, bot=user.is_bot or None))
        rec = rec.model_copy(update={"chat": chat_id, "game_id": session.game_id, "name": display_name(user)})
        plan.writes.append(Write(Item(key=user_key(user.id), body=rec.body()), version))
        table = deps.table(session)
    for _ in range(ai_seat_count):
        ai_seats.new_ai_seat(session)
    text, kb = redraw.lobby(deps, session)
    plan.outs.append(Out("send", chat_id=chat_id, text=text, keyboard=kb, remember="lobby_msg", tag="lobby"))
    if elsewhere is not None:
        plan.outs.append(Out("send", chat_id=chat_id, tag="notice", text=table.t(
            "lobby.in_other_game", title=esc(elsewhere.title or "?"))))
    elif not session.players:
        plan.outs.append(Out("send", chat_id=chat_id, tag="notice", text=table.t(
            "newgame.host_not_reachable", name=esc(display_name(user)), link=table.deep_link("j"))))
    if not practice:
        plan.effects.append(nextgame.lobby_opened(session))  # the /nextgame subscribers, a batch per delivery
    return plan


def play_again(deps: Deps, s: Session | None, user: User, pressed: Pressed, msg_id: int | None = None) -> Plan:
    """"Play again" on a game-over message: a lobby with the same settings, the game's players invited;
    while a lobby is open (that one, or one /newgame opened), the same button joins it. Once a game runs
    it can do nothing: the answer says why, and the button goes (``follow_up.again_gone`` takes it away
    from the group's screen as the game starts)."""
    lang = lang_of(user, s)
    if s is not None and s.status == LOBBY:
        return join(deps, s, user, s.game_id)
    if s is None or s.active or s.game_id != pressed.game_id:
        key = "rematch.running" if s is not None and s.active else "rematch.gone"
        gone = [Out("markup", chat_id=pressed.chat_id, message_id=msg_id, keyboard=None, essential=False,
                    tag="stale")] if msg_id else []
        return Plan(answer=texts.t(key, lang), alert=True, outs=gone)
    return open_lobby(deps, s, s.chat_id, s.title, user, lobby_settings(s.settings, ""), rematch_of=s.game_id,
                      invited=list(s.players), ai_seat_count=len(ai_seats.ai_seats_at(s)), practice=s.practice)


def join(deps: Deps, s: Session | None, user: User, game_id: str | None, via_start: bool = False) -> Plan:
    """``user`` joins the lobby of ``game_id`` (its button, or ``via_start``: the private deep link; "Play
    again" names ``s``'s own, a ``Session.game_id``)."""
    rec, version = deps.load_user(user.id)
    own = own_lang(user, rec)  # "" when we do not speak the user's language
    lang = lang_of(user, s) if s is not None and s.seat_of(user.id) is not None else own or lang_of(user, s)
    if s is None or s.status != LOBBY or s.game_id != game_id:
        raise Reply(texts.t("start.game_gone", lang) if via_start else texts.t("error.stale", lang))
    table = deps.table(s)
    if via_start:
        rec = rec.model_copy(update={"started": True, "blocked": False})
    if s.seat_of(user.id) is not None:
        if via_start:
            return Plan(writes=[Write(Item(key=user_key(user.id), body=rec.body()), version)],
                        outs=[Out("send", chat_id=user.id, user_id=user.id, tag="joined",
                                  text=texts.t("start.joined", lang, title=esc(s.title)))])
        raise Reply(texts.t("lobby.already_joined", lang))
    if not rec.reachable:
        raise Reply(texts.t("lobby.need_private", lang), url=table.deep_link("j"))
    if len(s.players) >= MAX_PLAYERS:
        raise Reply(texts.t("lobby.full", lang), alert=True)
    other = deps.active_elsewhere(rec, s.chat_id)
    if other is not None:
        raise Reply(texts.t("lobby.in_other_game", lang, title=esc(other.title or "?")), alert=True)
    name = display_name(user)
    if name in s.names():
        name = f"{name} @{user.username}" if user.username else f"{name} #{len(s.players) + 1}"
    s.players.append(Player(id=user.id, name=shorten(name, 40), lang=own, bot=user.is_bot or None))
    if s.host is None:
        s.host = user.id
    rec = rec.model_copy(update={"chat": s.chat_id, "game_id": s.game_id, "name": name, "lang": lang})
    plan = Plan(session=s, writes=[Write(Item(key=user_key(user.id), body=rec.body()), version)])
    text, kb = redraw.lobby(deps, s)
    if s.lobby_msg:  # the lobby's latest state: progress
        plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                             essential=False, view="lobby"))
    if via_start:
        plan.outs.append(Out("send", chat_id=user.id, user_id=user.id, tag="joined",
                             text=texts.t("start.joined", lang, title=esc(s.title))))
    else:
        plan.answer = texts.t("lobby.joined", lang)
    return plan


async def cmd_leave(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    plan = transact(deps, job, chat.id, lambda s: leave(deps, s, user, None))
    await finish(deps, job, plan)


def leave(deps: Deps, s: Session | None, user: User, game_id: str | None) -> Plan:
    lang = lang_of(user, s)
    if s is None or not s.active or (game_id is not None and s.game_id != game_id):
        raise Reply(texts.t("leave.nothing", lang))
    if s.status == PLAYING:
        raise Reply(texts.t("leave.in_game", lang), alert=True)
    seat = s.seat_of(user.id)
    if seat is None:
        raise Reply(texts.t("lobby.not_joined", lang))
    del s.players[seat]
    plan = Plan(session=s, answer=texts.t("lobby.left", lang))
    rec, version = deps.load_user(user.id)
    if rec.chat == s.chat_id:
        rec = rec.model_copy(update={"chat": None, "game_id": None})
        plan.writes.append(Write(Item(key=user_key(user.id), body=rec.body()), version))
    people = [p for p in s.players if not is_ai_seat_id(p.id)]
    if not people:  # (AI seats alone do not keep a lobby open)
        s.status = CANCELLED
        text, kb = deps.table(s).t("lobby.closed"), None
    else:
        if s.host == user.id:
            s.host = people[0].id
        text, kb = redraw.lobby(deps, s)
    if s.lobby_msg:  # the lobby's latest state (progress), unless it closed
        plan.outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                             essential=kb is None, view="lobby"))
    return plan


def open_settings(deps: Deps, s: Session | None, user: User, pressed: Pressed) -> Plan:
    lang = lang_of(user, s)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    rec, _ = deps.load_user(user.id)
    if not rec.reachable:
        raise Reply(texts.t("lobby.need_private", lang), url=deps.table(s).deep_link("j"))
    text, kb = redraw.settings_page(deps, s, "main", lang)
    return Plan(outs=[Out("send", chat_id=user.id, user_id=user.id, text=text, keyboard=kb, tag="settings")],
                answer=deps.table(s, lang).t("lobby.settings_sent"))


def config(s: Session, n: int) -> engine.GameConfig:
    """The game the lobby's settings make for ``n`` players."""
    return settings_check.config_for(s.settings, n)


def start_game(deps: Deps, s: Session | None, user: User, pressed: Pressed, msg_id: int | None) -> Plan:
    """The host pressed Start: deal if the table can play these settings (``msg_id``: the lobby message)."""
    lang = lang_of(user, s)
    s = check_game(s, pressed.game_id, LOBBY, lang)
    host_check(s, user)
    n = len(s.players)
    table = deps.table(s)
    if not 5 <= n <= MAX_PLAYERS:
        raise Reply(texts.t("lobby.not_enough", lang, count=n), alert=True)
    try:
        cfg = config(s, n)
    except Exception as exc:
        problems = getattr(exc, "problems", None) or []
        raise Reply(redraw.config_errors(deps, s, lang, problems), alert=True) from None
    errors = [i for i in validate_config(cfg) if i.level == "error"]
    if errors:
        raise Reply(redraw.config_errors(deps, s, lang, errors), alert=True)
    # a player who blocked the bot since joining is in ``s.unreachable`` (``membership.user_blocked``): only
    # then are the records read, to see who still cannot be messaged (joining needed a reachable record)
    unreachable = [p.name for p in deps.split_reachable(s)[1]] if s.unreachable else []
    if unreachable:
        text = table.t("lobby.unreachable", names=esc(", ".join(unreachable)), link=table.deep_link("j"))
        return Plan(outs=[Out("send", chat_id=s.chat_id, text=text, tag="notice")], answer=text, alert=True)
    return launch(deps, s, cfg, msg_id)


def launch(deps: Deps, s: Session, cfg: engine.GameConfig, msg_id: int | None) -> Plan:
    """Deal and start the game; ``msg_id``: the message to turn into the board (else the lobby's)."""
    seed = deps.seeds.getrandbits(48) if deps.seeds is not None else secrets.randbits(48)
    state, events = new_game(configure(cfg, s.settings.timers), seed)
    s.status = PLAYING
    if deps.scheduler is None and ai_seats.waiting_ai_seats(s, state):  # no alarm to pace them: at once
        state, more = ai_seats.play_now(s, state)
        events = [*events, *more]
    s.set_game(state)
    s.board_msg = msg_id or s.lobby_msg
    s.lobby_msg = None
    s.unreachable = []
    s.invited, s.rematch_of = [], None
    plan = Plan(session=s)
    plan.outs = play.keep(s, game_messages.game_outs(deps, s, None, state, events, trigger=("start", msg_id)))
    if s.board_msg:
        plan.outs.append(Out("pin", chat_id=s.chat_id, message_id=s.board_msg, essential=False, tag="pin"))
    return plan


# What a lobby button decides: (deps, session, user, pressed, message id) -> Plan. (Module names are
# looked up at each press.)
Decision = Callable[[Deps, Session | None, User, Pressed, int | None], Plan]
DECISIONS: dict[type[Op], Decision] = {
    Join: lambda deps, s, user, pressed, msg_id: join(deps, s, user, pressed.game_id),
    Leave: lambda deps, s, user, pressed, msg_id: leave(deps, s, user, pressed.game_id),
    OpenSettings: lambda deps, s, user, pressed, msg_id: open_settings(deps, s, user, pressed),
    StartGame: lambda deps, s, user, pressed, msg_id: start_game(deps, s, user, pressed, msg_id),
    PlayAgain: lambda deps, s, user, pressed, msg_id: play_again(deps, s, user, pressed, msg_id),
    AddAiSeat: lambda deps, s, user, pressed, msg_id: ai_seats.add_ai_seat(deps, s, user, pressed),
    RemoveAiSeat: lambda deps, s, user, pressed, msg_id: ai_seats.remove_ai_seat(deps, s, user, pressed),
}


async def on_button(deps: Deps, job: Job, pressed: Pressed) -> None:
    q = job.query
    user = q.from_user
    decision = DECISIONS.get(type(pressed.op)) if pressed.op is not None else None
    if decision is None:
        await finish(deps, job, Plan(answer=texts.t("error.stale", lang_of(user))))
        return
    msg_id = q.message.message_id if q.message else None
    plan = transact(deps, job, pressed.chat_id, lambda s: decision(deps, s, user, pressed, msg_id))
    await finish(deps, job, plan)
