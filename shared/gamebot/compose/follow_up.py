"""What the unit of work and its courier ask for around a delivery: the messages a delivery calls for (a player the
bot cannot reach, a prompt that could not be sent, the pin hint), the decision buttons taken away once
their decision has ended, and the picture of a finished game."""
from __future__ import annotations

import logging
from typing import Any

from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.table import Table
from gamebot.outbox.courier import Notices
from gamebot.outbox.delivery import Facts
from gamebot.outbox.plan import Plan
from gamebot.outbox.uow import Settled
from gamebot.storage.seats import is_ai_seat_id
from gamebot.storage.session import LOBBY, PLAYING, LiveKeyboard, Session, serial, split_ended, with_keyboard
from gamebot.story import end_text

log = logging.getLogger("gamebot.core.service")


def follow_up(deps: Deps, session: Session, facts: Facts) -> Notices:
    """What a delivery calls for (the ack applies it: ``courier.Courier.learnt``): the host told once how to
    let the bot pin the board, the players the bot cannot reach any more, the prompts that could not be sent."""
    table = deps.table(session)
    told: list[Out] = []
    pin_hint = facts.cannot_pin and not session.pin_hint
    if pin_hint:
        host = session.seat_of(session.host) if session.host is not None else None
        told.append(Out("send", chat_id=session.chat_id, tag="pin_hint", text=table.t(
            "pin.need_admin", host=table.mention(host) if host is not None else "")))
    gone = [(uid, seat) for uid in facts.blocked if (seat := session.seat_of(uid)) is not None
            and uid not in session.unreachable] if session.active else []
    told += [Out("send", chat_id=session.chat_id, tag="unreachable", text=table.t(
        "unreachable", name=table.mention(seat), link=table.deep_link("r"))) for _, seat in gone]
    return Notices(told=told, lost=_lost(table, session, facts), pin_hint=pin_hint,
                   unreachable=[uid for uid, _ in gone])


def _lost(table: Table, session: Session, facts: Facts) -> list[Out]:
    """The prompts lost while a game runs, announced (without a game, no decision awaits them); never a
    hidden decision (the group must not learn that someone has one), nor a player the bot cannot reach."""
    state = session.game() if session.status == PLAYING and facts.lost else None
    if state is None:
        return []
    hidden = {p.kind for p in state.pending if p.hidden}
    said = []
    for uid, kinds in sorted(facts.lost.items()):
        seat = session.seat_of(uid)
        if seat is None or uid in facts.blocked or uid in session.unreachable or kinds <= hidden:
            continue
        said.append(Out("send", chat_id=session.chat_id, tag="undelivered",
                        text=table.t("undelivered", name=table.mention(seat), link=table.deep_link("r"))))
    return said


GAP = Html("\n\n")
FOLD_LIMIT = 3800  # characters (Telegram's limit is 4096)


def fold_into_pressed(outs: list[Out]) -> list[Out]:
    """A player answered a decision in private and their next decision comes in the same step: the
    message they pressed becomes the next prompt (one edit, where an edit and a new message were). They
    are looking at it; nothing else of this step comes before it in that chat."""
    result = list(outs)
    for closing in outs:
        if not (closing.op == "edit" and not closing.essential and (closing.chat_id or 0) > 0
                and closing.keyboard is None and closing.message_id and closing.text):
            continue
        first = next((o for o in result if o.chat_id == closing.chat_id and o.op in ("send", "photo")), None)
        if (first is None or first.op != "send" or first.keyboard is None or not first.text
                or not (first.tag or "").startswith(("prompt", "picker"))
                or len(closing.text) + len(first.text) > FOLD_LIMIT):
            continue
        result[result.index(closing)] = Out(
            "edit", chat_id=closing.chat_id, message_id=closing.message_id, text=closing.text + GAP + first.text,
            keyboard=first.keyboard, user_id=first.user_id, tag=first.tag, live=first.live, remember=first.remember,
            fallback_send=True)
        result.remove(first)
    return result


def settle(plan: Plan) -> Settled:
    """What a step decided, before it is sorted (the unit of work applies it): private prompts folded into
    the pressed message (:func:`fold_into_pressed`), nothing sent to AI seats (``gamebot.storage.seats``),
    then the decision buttons on screen brought up to date (in the session the plan writes: the unit of
    work settles only such plans; without one, no buttons are known)."""
    outs = [o for o in fold_into_pressed(plan.outs) if not is_ai_seat_id(o.chat_id)]  # (an AI seat has no chat)
    if plan.session is None:
        return Settled(outs)
    keyboards, stale = keyboards_now(plan.session, outs)
    again = again_gone(plan.session)
    return Settled([*outs, *stale, *([again] if again else [])], keyboards=keyboards, again_gone=again is not None)


def again_gone(s: Session) -> Out | None:
    """The last game's "Play again" opens its rematch or joins the lobby open now; once a game runs (or a
    lobby of another game was closed), it can do nothing any more: its button is taken away (and the
    session forgets it: the step applies that)."""
    if s.again_msg is None or s.status == LOBBY or (s.status != PLAYING and s.game_id == s.again_game):
        return None
    return Out("markup", chat_id=s.chat_id, message_id=s.again_msg, keyboard=None, tag="stale")


def keyboards_now(s: Session, outs: list[Out]) -> tuple[list[LiveKeyboard], list[Out]]:
    """The session's list of decision buttons on screen once ``outs`` are made (kept current with their
    edits, without the decisions that have ended), and the edits taking away the buttons of every decision
    that has ended (a timeout, a resolved vote, a /status copy). ``s`` is not changed."""
    keyboards = s.keyboards
    edited = set()
    for out in outs:
        if out.op in ("edit", "markup") and out.message_id and out.chat_id is not None:
            keyboards = with_keyboard(keyboards, out.chat_id, out.message_id, out.live if out.has_buttons() else None)
            edited.add((out.chat_id, out.message_id))
    state = s.game() if s.status == PLAYING else None
    keyboards, ended = split_ended(keyboards, serial(state) if state is not None else None)
    closed = round_closings(s.keyboards, outs)
    return keyboards, [ended_out(k, closed) for k in ended if (k.chat, k.msg) not in edited]


ROUND_TAGS = ("vote", "quest")  # (the round message: the team vote, then the quest's cards on it)


def round_closings(before: list[LiveKeyboard], outs: list[Out]) -> dict[tuple[int, int], Out]:
    """The edits of ``outs`` that close a round message on its decision (its text, its buttons taken away),
    by (chat, decision serial): ``before``, the decision buttons on screen before them."""
    serials = {(k.chat, k.msg): k.serial for k in before}
    closed: dict[tuple[int, int], Out] = {}
    for out in outs:
        key = (out.chat_id, out.message_id)
        if out.op == "edit" and out.tag in ROUND_TAGS and key in serials and out.chat_id is not None:
            decision = (out.chat_id, serials[key])  # (type: the key holds ints once found in serials)
            if out.has_buttons():
                closed.pop(decision, None)
            else:
                closed[decision] = out
    return closed


def ended_out(k: LiveKeyboard, closed: dict[tuple[int, int], Out], essential: bool = False) -> Out:
    """The edit taking away the buttons of ``k``, whose decision has ended. A /status copy of a round message
    that closed (``closed``: ``round_closings``) shows the round message's closing text too: its old text
    would still tell the team to play with buttons no longer there; any other message keeps its text."""
    closing = closed.get((k.chat, k.serial))
    if closing is None:
        return Out("markup", chat_id=k.chat, message_id=k.msg, keyboard=None, essential=essential, tag="stale")
    return Out("edit", chat_id=k.chat, message_id=k.msg, text=closing.text, keyboard=None, essential=essential,
               tag="stale")


def picture_out(chat_id: int, last: dict[str, Any], lang: str, user_id: int | None = None,
                essential: bool = False) -> Out | None:
    """The photo of the game summarised in ``last``, or None if it cannot be drawn (the text
    history already said everything: a picture is a bonus)."""
    try:
        from gamebot.story.picture import (
            render_png,  # (Pillow: only when a picture is drawn, not at cold start)
        )

        png = render_png(last, lang)
    except Exception:
        log.exception("could not draw the picture of game %s", last.get("game_id"))
        return None
    pv: Any = last.get("view") or {}  # stored JSON (a final public view, {} if lost): read defensively
    theme = str(pv.get("theme") or "avalon")
    if last.get("status") == "cancelled":
        result = texts.t("history.cancelled", lang, theme)
    else:  # who won: a side, or a Rogue alone, by name
        table = Table(chat_id=chat_id, game_id=str(last.get("game_id") or ""), lang=lang, theme=theme,
                             names=list(last.get("names") or []))
        result = end_text.result(table, pv)[0]
    caption = texts.t("history.caption", lang, theme, game=texts.t(f"theme.{theme}", lang, theme),
                      players=pv.get("players", len(last.get("names") or [])), result=result)
    return Out("photo", chat_id=chat_id, photo=png, text=caption, user_id=user_id, essential=essential,
               tag="picture")


def outbox_photo(s: Session, effect: Any) -> Out | None:
    """The picture of the session's last game, drawn when its outbox entry is delivered."""
    if not s.last:
        return None
    return picture_out(effect.chat, dict(s.last), effect.picture or s.lang, essential=True)
