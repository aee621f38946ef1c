"""Every message one state change of a game causes (:func:`game_outs`, which says what the session is to keep
of it: :class:`Told`, applied by the step), and the private messages of one
player: their prompts, the Leader's team picker, their role and decisions again (:func:`private_status`).
Group messages use only public data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import GameState, prompts, public_view, view
from engine.views import PublicView, SeatView
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
from gamebot.storage.session import Selection, Session, collecting, serial
from gamebot.story import end_text

GAP, NOTHING = Html("\n\n"), Html("")
INTRO_LIMIT = 1000  # characters of news kept atop the vote message
MESSAGE_LIMIT = 3800  # Telegram's limit is 4096 characters


def card(table: Table, s: Session, v: SeatView) -> Html:
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


@dataclass(frozen=True)
class NewVote:
    """A vote this change opens: its decision (``serial``) and the news its message opens with (kept while the
    round message is edited: ``round_message``)."""

    serial: int
    intro: Html | None


@dataclass
class Told:
    """What one change of a game sends (``outs``), and what the session is to keep of it: the builder only
    says it, the step that made the change applies it (``handlers.play.keep``): a vote opened (its message
    not sent yet), the game over."""

    outs: list[Out]
    vote: NewVote | None = None
    ended: bool = False


def _tables(deps: Deps, s: Session, table: Table) -> Callable[[int], Table]:
    """A seat's table (its language's), each language's made once for the step (``table``: the group's)."""
    tables = {s.lang: table}

    def table_of(seat: int) -> Table:
        lang = player_lang(s, seat)
        if lang not in tables:
            tables[lang] = deps.table(s, lang)
        return tables[lang]

    return table_of


def _role_cards(s: Session, after: GameState, table_of: Callable[[int], Table]) -> list[Out]:
    return [Out("send", chat_id=player.id, user_id=player.id, tag="role", text=card(table_of(seat), s, view(after, seat)))
            for seat, player in enumerate(s.players)]


def _private_events(s: Session, events: list[Any], table_of: Callable[[int], Table]) -> list[Out]:
    """Private events (loyalty seen, cards seen...), to the seats they are addressed to."""
    addressed = {seat for e in events if e.to is not None for seat in e.to}
    outs = []
    for seat, player in enumerate(s.players):
        lines = private_events(table_of(seat), events, seat) if seat in addressed else None
        if lines:
            outs.append(Out("send", chat_id=player.id, user_id=player.id, text=NL.join(lines), tag="private_event"))
    return outs


def _decisions(deps: Deps, s: Session, table: Table, after: GameState, pv: PublicView, news: Html
               ) -> tuple[list[Out], list[Out], NewVote | None, Html]:
    """New decisions: the vote in the group (once per decision; the news atop it when short), the team
    picker and everything else in private. Returns (private, group, the vote opened, the news left)."""
    private: list[Out] = []
    group: list[Out] = []
    s_after, vote = serial(after), None
    for seat in range(after.n):
        for p in prompts(after, seat):
            if p.kind == "propose":
                private.append(picker_out(deps, s, after, p, None))
            elif p.kind == "vote":
                if s.vote_serial == s_after or vote is not None:
                    continue
                vote = NewVote(s_after, news if news and len(news) < INTRO_LIMIT else None)
                text, kb = vote_message(table, pv, deps.codec, s_after)
                if vote.intro:
                    text, news = news + GAP + text, NOTHING
                group.append(Out("send", chat_id=s.chat_id, text=text, keyboard=kb, remember="vote_msg", tag="vote",
                                 live=s_after))
            elif p.kind == "play":
                continue  # played from the round message's buttons, in the group
            else:
                private.extend(prompt_outs(deps, s, after, seat))
                break
    return private, group, vote, news


def _board_edit(deps: Deps, s: Session, table: Table, after: GameState, pv: PublicView, pv_before: PublicView | None,
                opening: Html | None) -> Out | None:
    """The board, edited only when its text changes (``opening``: the start, the lobby message becoming the
    board with the start's news atop it: one message). It tells what the step's group messages tell, so it
    comes after them (the game is "over" on the board only once the result is on screen), and it is
    essential: it always names the decision actually pending (its edits coalesce while they wait)."""
    board_text = state_cache.board(board, table, pv, "ended" if after.over else "playing")
    if opening is not None:
        board_text = opening + GAP + board_text if opening else board_text
    elif pv_before is not None and state_cache.board(board, table, pv_before) == board_text and not after.over:
        return None
    # (every edit keeps the board's button while the game runs; remembered only if the lobby message was
    # gone and the board had to be sent anew)
    return Out("edit", chat_id=s.chat_id, message_id=s.board_msg, text=board_text,
               keyboard=None if after.over and opening is None else board_keyboard(table, deps.codec),
               fallback_send=True, remember="board_msg", tag="board", view="board")


def _the_end(deps: Deps, s: Session, table: Table, pv: PublicView, news: Html) -> tuple[list[Out], Html]:
    """Every role, the winner, the history (the step's news atop them, if it fits); the last message with
    "Play again" (its button goes once it can do nothing: ``follow_up.again_gone``)."""
    tail = [Out("send", chat_id=s.chat_id, text=text, tag="end") for text in end_text.game_over(table, pv)]
    tail[-1].keyboard = play_again_keyboard(table, deps.codec)
    tail[-1].remember = "again_msg"
    if news and len(news) + len(tail[0].text or "") < MESSAGE_LIMIT:
        tail[0].text, news = news + GAP + tail[0].text, NOTHING
    return tail, news


def game_outs(deps: Deps, s: Session, before: GameState | None, after: GameState, events: list[Any],
              trigger: tuple[str, int | None]) -> Told:
    """Every message one state change causes, and what the session keeps of it (:class:`Told`). Group
    messages use only public data. The round message (``round_message.edits``) comes first, then the
    role cards and private events, the new decisions, the board, the end."""
    table = deps.table(s)
    table_of = _tables(deps, s, table)
    pv = state_cache.public(after)  # (shared: read, never changed)
    pv_before = state_cache.public(before) if before is not None else None
    same_point = collecting(before, after)  # a vote or a card that was not the last: no new decision, same board
    kind, trig_msg = trigger
    head, folded = round_message.edits(s, table, deps.codec, before, after, events, pv, pv_before)
    private = [*(_role_cards(s, after, table_of) if before is None else []), *_private_events(s, events, table_of)]
    news = NL.join(announcements(table, [e for e in events if e not in folded]))
    asked, group, vote, news = ([], [], None, news) if same_point else _decisions(deps, s, table, after, pv, news)
    private += asked
    if kind == "picker" and trig_msg and before is not None:  # the Leader's private picker, once the team is
        leader = s.players[before.leader]                       # proposed: what they proposed, no buttons
        private.insert(0, Out("edit", chat_id=leader.id, message_id=trig_msg, keyboard=None, essential=False,
                              user_id=leader.id, tag="picker", text=proposal_line(table_of(before.leader), pv)))
    opening = kind == "start" and bool(s.board_msg)
    edit = _board_edit(deps, s, table, after, pv, pv_before, news if opening else None) if opening or (not same_point and s.board_msg) \
        else None
    head, board_outs = ([edit, *head], []) if opening and edit else (head, [edit] if edit else [])
    ended = after.over and (before is None or not before.over)
    tail, news = _the_end(deps, s, table, pv, news) if ended else ([], news)
    if news and not opening:
        group.insert(0, Out("send", chat_id=s.chat_id, text=news, tag="announce"))
    if s.practice:  # one chat is the whole table: the game's messages in its order (a result, then what it asks)
        return Told(head + group + tail + private + board_outs, vote, ended)
    return Told(head + private + group + tail + board_outs, vote, ended)
