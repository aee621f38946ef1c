"""The round's group message: the vote (who has voted), what it decided, then the quest's cards.

One message per team: the vote message (``Session.vote_msg``) is edited into the votes and their outcome
(one essential edit) and, once the team's quest begins, carries the quest's card buttons, as the physical
game puts a Success and a Fail card in every team member's hand. The buttons are the game's cards
(``table_cards`` of the public view: Success, Fail and the cards of the plug-ins in play), the same for
every team member, every quest and every deal: they never depend on hidden roles or on who is on the
team. A press in a group is seen by the bot alone; the presser alone gets the answer, a toast (the card
played, or why it is refused and which cards they may play); the engine refuses every card a player may
not play. Cards played so far are progress (coalesced within the group's budget); the last card takes
the buttons away (one essential edit).

Built from the public view only, like every group message (``gamebot.messages``).
"""
from __future__ import annotations

from typing import Any

from engine import Event, GameState, IllegalAction, waiting_for
from engine.views import PublicView
from gamebot.botapi.buttons import Card
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Drawing, DrawnLater, Keyboard, Out
from gamebot.language import wording
from gamebot.language.markup import Html, restored
from gamebot.messages.table import NL, Table
from gamebot.messages.time_limits import prompt_lines
from gamebot.messages.vote import TOLD_BY_THE_VOTE, vote_message, vote_result
from gamebot.storage.session import Session, serial

GAP = Html("\n\n")  # between the news atop the round message and the vote


def quest_open(state: GameState) -> bool:
    """Team members play their cards now (the quest stage, no other decision first): the engine's
    ``waiting_for`` says so."""
    return waiting_for(state)["kind"] == "play"


def card_keyboard(table: Table, pv: PublicView, codec: Codec, serial_: int) -> Keyboard:
    """The game's cards, two a row: a button's data names the card by its place in ``table_cards``."""
    buttons = [Btn(table.card(card), Card(i).encode(codec, table.chat_id, table.game_id, serial_))
               for i, card in enumerate(pv.get("table_cards") or [])]
    return [buttons[i : i + 2] for i in range(0, len(buttons), 2)]


def quest_text(table: Table, pv: PublicView, head: PublicView | None = None, count: int | None = None,
               timed: bool = True) -> Html:
    """The vote's outcome with the quest under it: who may see a card played, then how many are in.
    ``head``: the view the vote was made in; ``count``: the cards in (default: the view's); ``timed``: the
    cards are played now, with the buttons under this message (how to play them and the time limit are said)."""
    team = pv.get("team") or []
    played = len(pv.get("played") or []) if count is None else count
    quest = pv["quest"] if pv["quest"] is not None else 0
    secret = table.t("prompt.play.secret")  # (the quest's line already says that only the bot sees presses)
    notes = [line for line in wording.play_notes(table, pv, -1) if line != secret]
    lines = [vote_result(table, pv, head=head), *notes,
             table.t("quest.progress", quest=quest + 1, team=table.names_of(team), count=played, of=len(team))]
    if timed:  # the card buttons are under this message now (and only then does a text point at them)
        lines += [table.t("quest.play_below"), *prompt_lines(table)]
    return NL.join(lines)


def _intro(s: Session) -> Html | None:
    """The news that came with the vote message: markup when it was kept (``compose.game``), a plain
    string once read back from storage."""
    return restored(s.vote_intro) if s.vote_intro else None


def _with_intro(s: Session, text: Html) -> Html:
    """``text`` under the news that came with the vote message (it stays atop it), as that news stands now."""
    intro = _intro(s)
    return intro + GAP + text if intro else text


def _vote_edit(s: Session, text: Html, **fields: Any) -> Out:  # (``Out``'s own fields, passed on)
    return Out("edit", chat_id=s.chat_id, message_id=s.vote_msg, view="vote", text=_with_intro(s, text), **fields)


def _vote_progress(s: Session, draw: Drawing, buttons: bool, tag: str, live: int) -> Out:
    """Progress of the round message (who has voted, the cards in), drawn only if it goes out now."""
    intro = _intro(s)  # (as it stands now)

    def drawn() -> tuple[Html, Keyboard | None]:
        text, keyboard = draw()
        return (intro + GAP + text if intro else text), keyboard

    return DrawnLater(drawn, buttons, chat_id=s.chat_id, message_id=s.vote_msg, view="vote", tag=tag, live=live)


def _cards(table: Table, pv: PublicView, codec: Codec, serial_: int) -> Drawing:
    return lambda: (quest_text(table, pv), card_keyboard(table, pv, codec, serial_))


def _voters(table: Table, pv: PublicView, codec: Codec, serial_: int) -> Drawing:
    return lambda: vote_message(table, pv, codec, serial_)


def edits(s: Session, table: Table, codec: Codec, before: GameState | None, after: GameState, events: list[Event],
          pv: PublicView, pv_before: PublicView | None) -> tuple[list[Out], list[Event]]:
    """The round message's operations for one state change, and the public events it tells (folded
    into it instead of an announcement of their own)."""
    s_after = serial(after)
    types = {e.type for e in events}
    now = quest_open(after)
    if "VotesRevealed" in types and s.vote_msg and pv_before is not None:
        # the votes and what they decided (and, if its quest begins now, the cards): one essential edit
        folded = [e for e in events if e.to is None and e.type in TOLD_BY_THE_VOTE]
        keyboard = card_keyboard(table, pv, codec, s_after) if now else None
        text = quest_text(table, pv, head=pv_before) if now else vote_result(table, pv, head=pv_before)
        return [_vote_edit(s, text=text, keyboard=keyboard, tag="vote", live=s_after if now else None,
                           fallback_send=now, remember="vote_msg" if now else None)], folded
    if "VoteCast" in types and s.vote_msg and s.vote_serial == s_after:  # who has voted: progress
        return [_vote_progress(s, _voters(table, pv, codec, s_after), True, "vote", s_after)], []
    was_open = before is not None and quest_open(before) and serial(before) == s_after
    if now and not was_open:
        # the quest begins after decisions that came between the vote and the cards (the Watch token...)
        keyboard = card_keyboard(table, pv, codec, s_after)
        if s.vote_msg:
            return [_vote_edit(s, text=quest_text(table, pv), keyboard=keyboard, tag="quest", live=s_after,
                               fallback_send=True, remember="vote_msg")], []
        return [Out("send", chat_id=s.chat_id, text=quest_text(table, pv), keyboard=keyboard, tag="quest",
                    live=s_after, remember="vote_msg", view="vote")], []
    if "CardPlayed" in types and s.vote_msg and now:  # cards played so far: progress
        return [_vote_progress(s, _cards(table, pv, codec, s_after), bool(pv.get("table_cards")), "quest", s_after)], []
    if "CardPlayed" in types and s.vote_msg and pv_before is not None and pv_before.get("stage") == "quest":
        # the last card: every card is in, the buttons go
        text = quest_text(table, pv_before, count=len(pv_before.get("team") or []), timed=False)
        return [_vote_edit(s, text=text, keyboard=None, tag="quest")], []
    return [], []


def _round_now(s: Session, state: GameState, pv: PublicView) -> str | None:
    """What the round message shows now: its vote ("vote"), its quest's cards ("quest"), or nothing left open."""
    if not s.vote_msg:
        return None
    if s.vote_serial == serial(state) and pv["stage"] == "vote":
        return "vote"
    return "quest" if quest_open(state) else None


def refresh(s: Session, table: Table, codec: Codec, state: GameState, pv: PublicView) -> Out | None:
    """The round message's latest state, when its last progress edit was held back by the group's budget."""
    now, shows = serial(state), _round_now(s, state, pv)
    if shows == "vote":
        return _vote_progress(s, _voters(table, pv, codec, now), True, "vote", now)
    if shows == "quest":
        return _vote_progress(s, _cards(table, pv, codec, now), bool(pv.get("table_cards")), "quest", now)
    return None


def as_it_stood(s: Session, table: Table, codec: Codec, state: GameState, pv: PublicView) -> Out | None:
    """The round message as it stood, drawn for a game no longer running (cancelled): the votes or the
    cards in so far, with no button, no time limit and no line telling the team to play with buttons."""
    shows = _round_now(s, state, pv)
    if shows is None:
        return None
    text = vote_message(table, pv, codec, serial(state))[0] if shows == "vote" else quest_text(table, pv, timed=False)
    return Out("edit", chat_id=s.chat_id, message_id=s.vote_msg, text=_with_intro(s, text), keyboard=None, tag=shows)


def status(table: Table, codec: Codec, state: GameState, pv: PublicView) -> Out | None:
    """The quest message again, with its buttons (``/status`` in the group), while cards are played."""
    if not quest_open(state):
        return None
    now = serial(state)
    return Out("send", chat_id=table.chat_id, text=quest_text(table, pv), keyboard=card_keyboard(table, pv, codec, now),
               tag="quest", live=now)


# ---------------------------------------------------------------------------------------------------
# The presser's answer (a toast: its plain text, ``handling.respond``)
# ---------------------------------------------------------------------------------------------------


def cards_or(table: Table, cards: list[str]) -> Html:
    """``✅ Success or ✨ Magic``."""
    return wording.join_or(table, [table.card(c) for c in cards])


def refusal(table: Table, exc: IllegalAction, played: str | None = None) -> Html | None:
    """Why the engine refused a quest card (``IllegalAction``), naming the cards the presser may play, or
    the card they already played (``played``, theirs: the answer reaches them alone); None for a
    refusal that is not about the cards (the service's generic answer)."""
    code, params = exc.code, dict(exc.params or {})
    if code == "not_on_team":
        return table.t("quest.not_on_team")
    if code == "already_acted" and played:
        return table.t("quest.already_played", card=table.card(played))
    if code != "card_not_allowed":
        return None
    allowed = [c for c in params.get("allowed") or [] if isinstance(c, str)]
    if params.get("side") == "good" and len(allowed) == 1:
        return table.t("quest.refused.good", allowed=cards_or(table, allowed))
    card = params.get("card")
    return table.t("quest.refused", card=table.card(card) if isinstance(card, str) else "?",
                   allowed=cards_or(table, allowed))


def played(table: Table, card: str) -> Html:
    return table.t("quest.played", card=table.card(card))

