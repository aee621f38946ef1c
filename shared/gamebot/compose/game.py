"""Every message one state change of a game causes (:func:`game_outs`), and the private messages of one
player: their prompts, the Leader's team picker, their role and decisions again (:func:`private_status`).
Group messages use only public data.
"""
from __future__ import annotations

from typing import Any

from engine import GameState, prompts, public_view, view
from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps, player_lang
from gamebot.language.markup import Html
from gamebot.messages import round_message
from gamebot.messages.board import board, board_keyboard, play_again_keyboard
from gamebot.messages.events import announcements, private_events
from gamebot.messages.prompts import private_prompt
from gamebot.messages.role_card import role_card
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.vote import proposal_line, team_picker, team_sizes, vote_message
from gamebot.storage import state_cache
from gamebot.storage.session import ENDED, Selection, Session, collecting, serial
from gamebot.story import end_text

GAP, NOTHING = Html("\n\n"), Html("")
INTRO_LIMIT = 1000  # characters of news kept atop the vote message
MESSAGE_LIMIT = 3800  # Telegram's limit is 4096 characters


def card(table: Table, s: Session, v: dict[str, Any]) -> Html:
    """A player's role card; in a /practice game it says so first (nothing of it counts)."""
    text = role_card(table, v)
    return table.t("practice.card") + GAP + text if s.practice else text


def prompt_outs(deps: Deps, s: Session, state: GameState, seat: int) -> list[Out]:
    """Private prompt messages for ``seat`` (not the Leader's team picker, :func:`picker_out`; nor the vote
    and the quest cards, which are the group's round message)."""
    player = s.players[seat]
    table = deps.table(s, player_lang(s, seat))
    pv = public_view(state)
    outs = []
    for p in prompts(state, seat):
        if p.kind in ("propose", "vote", "play"):
            continue
        text, kb = private_prompt(table, p.model_dump(), deps.codec, serial(state), None, pv)
        outs.append(Out("send", chat_id=player.id, user_id=player.id, text=text, keyboard=kb, tag=f"prompt:{p.kind}",
                        live=serial(state)))
    return outs


def picker_out(deps: Deps, s: Session, state: GameState, prompt: Any, sel: Selection | None,
               message_id: int | None = None) -> Out:
    """The team picker, in the Leader's hands: a keyboard in their private chat, drawn with ``sel`` (an
    edit of ``message_id``, at each toggle: it costs the group nothing; the group sees the proposal, with
    the vote)."""
    leader = s.players[state.leader]
    table = deps.table(s, player_lang(s, state.leader))
    pv = public_view(state)
    sizes, attempt = team_sizes(prompt, pv)
    text, kb = team_picker(
        table, pv, sizes, list(prompt.quests), attempt,
        list(sel.targets) if sel else [], sel.quest if sel else None, deps.codec, serial(state),
    )
    if message_id is not None:
        return Out("edit", chat_id=leader.id, message_id=message_id, text=text, keyboard=kb, essential=False,
                   user_id=leader.id, tag="picker", live=serial(state))
    return Out("send", chat_id=leader.id, user_id=leader.id, text=text, keyboard=kb, tag="picker",
               live=serial(state))


def private_status(deps: Deps, s: Session, seat: int, intro: bool = False) -> list[Out]:
    """A player's role card and current decisions again (``intro``: they have just come back); nothing
    without a game (the handlers ask only for a player seated in a running one)."""
    state = s.game()
    if state is None:
        return []
    player = s.players[seat]
    table = deps.table(s, player_lang(s, seat))
    outs = []
    if intro:
        outs.append(Out("send", chat_id=player.id, user_id=player.id, tag="reconnect",
                        text=table.t("start.reconnected", name=esc(player.name), title=esc(s.title))))
    outs.append(Out("send", chat_id=player.id, user_id=player.id, text=card(table, s, view(state, seat)), tag="role"))
    outs.extend(prompt_outs(deps, s, state, seat))
    mine = [p for p in prompts(state, seat) if p.kind == "propose"]
    if mine:  # the Leader's team picker, as it stands
        sel = s.sel.get("g")
        outs.append(picker_out(deps, s, state, mine[0], sel if sel and sel.serial == serial(state) else None))
    return outs


def game_outs(
    deps: Deps,
    s: Session,
    before: GameState | None,
    after: GameState,
    events: list[Any],
    trigger: tuple[str, int | None],
) -> list[Out]:
    """Every message one state change causes. Group messages use only public data."""
    table = deps.table(s)
    tables = {s.lang: table}  # one per language of the private messages

    def table_of(seat: int) -> Table:
        lang = player_lang(s, seat)
        if lang not in tables:
            tables[lang] = deps.table(s, lang)
        return tables[lang]

    chat = s.chat_id
    pv = state_cache.public(after)  # (shared: read, never changed)
    pv_before = state_cache.public(before) if before is not None else None
    s_after = serial(after)
    same_point = collecting(before, after)  # a vote or a card that was not the last: no new decision, same board
    kind, trig_msg = trigger
    head: list[Out] = []  # edits of existing messages
    group: list[Out] = []  # new group messages
    private: list[Out] = []

    # 1. Role cards at the start.
    if before is None:
        for seat, player in enumerate(s.players):
            t = table_of(seat)
            private.append(Out("send", chat_id=player.id, user_id=player.id, tag="role",
                               text=card(t, s, view(after, seat))))

    # 2. The round's message: who has voted (progress, coalesced within the group's budget), then the
    # votes and what they decided (one essential edit, instead of a message of its own), then the
    # quest's card buttons and the cards played (progress), the buttons gone with the last card.
    round_outs, folded = round_message.edits(s, table, deps.codec, before, after, events, pv, pv_before)
    head.extend(round_outs)

    # 3. Private events (loyalty seen, cards seen...), to the seats they are addressed to.
    addressed = {seat for e in events if e.to is not None for seat in e.to}
    for seat, player in enumerate(s.players):
        lines = private_events(table_of(seat), events, seat) if seat in addressed else None
        if lines:
            private.append(Out("send", chat_id=player.id, user_id=player.id, text=NL.join(lines), tag="private_event"))

    # 4. Public announcements, one message per update (at the start: with the board, one message; with a
    # new vote message or the end: atop it, one message).
    news = NL.join(announcements(table, [e for e in events if e not in folded]))

    # 5. New decisions: the vote in the group, the team picker and everything else in private.
    for seat in () if same_point else range(after.n):
        now = prompts(after, seat)
        for p in now:
            if p.kind == "propose":
                private.append(picker_out(deps, s, after, p, None))
            elif p.kind == "vote":
                if s.vote_serial == s_after:
                    continue
                s.vote_serial = s_after
                s.vote_msg = None
                s.vote_intro = news if news and len(news) < INTRO_LIMIT else None
                text, kb = vote_message(table, pv, deps.codec, s_after)
                if s.vote_intro:
                    text, news = news + GAP + text, NOTHING
                group.append(Out("send", chat_id=chat, text=text, keyboard=kb, remember="vote_msg", tag="vote",
                                 live=s_after))
            elif p.kind == "play":
                continue  # played from the round message's buttons, in the group
            else:
                private.extend(prompt_outs(deps, s, after, seat))
                break
    if kind == "picker" and trig_msg and before is not None:
        # the Leader's private picker, once the team is proposed: what they proposed, no buttons
        leader = s.players[before.leader]
        private.insert(0, Out("edit", chat_id=leader.id, message_id=trig_msg, keyboard=None, essential=False,
                              user_id=leader.id, tag="picker",
                              text=proposal_line(table_of(before.leader), pv)))

    # 6. The board, edited only when its text changes. It tells what the step's group messages tell,
    # so it comes after them (the game is "over" on the board only once the result is on screen), and
    # it is essential: it always names the decision actually pending (its edits coalesce while they wait).
    board_outs: list[Out] = []
    status = "ended" if after.over else "playing"
    if kind == "start" and s.board_msg:
        # the lobby message becomes the board, opening with the start's announcements: one message
        board_text = state_cache.board(board, table, pv, status)
        if news:
            board_text = news + GAP + board_text
        head.insert(0, Out("edit", chat_id=chat, message_id=s.board_msg, text=board_text,
                           keyboard=board_keyboard(table, deps.codec), fallback_send=True, remember="board_msg",
                           tag="board", view="board"))
        # (remembered only if the lobby message was gone and the board had to be sent anew)
    elif not same_point and s.board_msg:
        board_text = state_cache.board(board, table, pv, status)
        if pv_before is None or state_cache.board(board, table, pv_before) != board_text or after.over:
            # (every edit keeps the board's button while the game runs)
            board_outs.append(Out("edit", chat_id=chat, message_id=s.board_msg, text=board_text,
                                  keyboard=None if after.over else board_keyboard(table, deps.codec),
                                  fallback_send=True, remember="board_msg", tag="board", view="board"))

    # 7. The end: every role, the winner, the history.
    tail: list[Out] = []
    if after.over and (before is None or not before.over):
        s.status = ENDED
        s.sel = {}
        for text in end_text.game_over(table, pv):
            tail.append(Out("send", chat_id=chat, text=text, tag="end"))
        tail[-1].keyboard = play_again_keyboard(table, deps.codec)
        tail[-1].remember = "again_msg"  # (its button goes once it can do nothing: ``follow_up.settle_again``)
        s.again_msg, s.again_game = None, s.game_id
        if news and len(news) + len(tail[0].text or "") < MESSAGE_LIMIT:
            tail[0].text, news = news + GAP + tail[0].text, NOTHING
    if news and not (kind == "start" and s.board_msg):
        group.insert(0, Out("send", chat_id=chat, text=news, tag="announce"))
    if s.practice:  # one chat is the whole table: the game's messages in its order (a result, then what it asks)
        return head + group + tail + private + board_outs
    return head + private + group + tail + board_outs
