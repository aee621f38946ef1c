"""Private decisions: a player presses a button of a prompt the bot sent them (a target, a choice, a
quest, pass, confirm). An immediate prompt acts on the first press. In select mode each toggle draws the
prompt again with the selection so far, and Confirm before it is whole says what is still to choose
(``gamebot.handlers.selection``)."""
from __future__ import annotations

from telegram import User

from engine import Action, GameState, Prompt, prompts, public_view
from gamebot.botapi.buttons import (
    Op,
    Pressed,
    PromptChoice,
    PromptConfirm,
    PromptPass,
    PromptQuest,
    PromptTarget,
    PromptUnknown,
)
from gamebot.botapi.telegram_io import Out
from gamebot.compose.context import Deps, player_lang
from gamebot.handlers import selection
from gamebot.handlers.handling import Job
from gamebot.handlers.play import apply_move, game_button
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.prompts import answered, choice_label, private_prompt, prompt_mode
from gamebot.messages.table import NL
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.session import Selection, Session, kind_tag, serial

DONE = Html("✔️")  # the answer to a press that made the move
PROMPT_OPS = (PromptPass, PromptTarget, PromptChoice, PromptQuest, PromptConfirm, PromptUnknown)


def _action(op: Op | None, prompt: Prompt, mode: str, seat: int, sel: Selection) -> Action | None:
    """The move a press makes (None: the selection changed, ``sel``); a ``Reply`` if it cannot."""
    immediate = mode == "immediate"
    if isinstance(op, PromptPass) and prompt.optional:
        return Action(seat=seat, kind=prompt.kind, choice="pass")
    if isinstance(op, PromptTarget) and op.seat in prompt.targets:
        if immediate:
            return Action(seat=seat, kind=prompt.kind, targets=(op.seat,))
        if op.seat in sel.targets:
            sel.targets.remove(op.seat)
        elif prompt.pick == 1:  # one player to choose: another tap changes who
            sel.targets = [op.seat]
        else:
            sel.targets = sorted([*sel.targets, op.seat])
        return None
    if isinstance(op, PromptChoice) and op.index < len(prompt.choices):
        choice = prompt.choices[op.index]
        if immediate:
            return Action(seat=seat, kind=prompt.kind, choice=choice)
        sel.choice = None if sel.choice == choice else choice
        return None
    if isinstance(op, PromptQuest) and op.quest in prompt.quests:
        if immediate:
            return Action(seat=seat, kind=prompt.kind, quest=op.quest)
        sel.quest = op.quest
        return None
    if isinstance(op, PromptConfirm) and mode == "select":
        only = prompt.choices[0] if len(prompt.choices) == 1 else None  # a single choice needs no tap
        return Action(seat=seat, kind=prompt.kind, targets=tuple(sel.targets), choice=sel.choice or only,
                      quest=sel.quest)
    raise _Stale


class _Stale(Exception):
    """The press names nothing this prompt offers."""


def prompt_press(deps: Deps, s: Session, state: GameState, seat: int | None, user: User, lang: str,
                 msg_id: int | None, pressed: Pressed) -> Plan:
    if seat is None:
        raise Reply(texts.t("error.not_in_game", lang), final=True)
    s_now = serial(state)
    op = pressed.op
    tag = op.tag if isinstance(op, PROMPT_OPS) else None  # (a private prompt's buttons decode to these)
    mine = [p for p in prompts(state, seat) if kind_tag(p.kind) == tag]
    if s_now != pressed.serial or not mine:
        plan = Plan(answer=texts.t("error.stale", lang))
        if msg_id:  # take the dead buttons away
            plan.outs.append(Out("markup", chat_id=user.id, message_id=msg_id, keyboard=None, essential=False))
        return plan
    prompt = mine[0]
    pd = prompt.model_dump()
    mode = prompt_mode(pd)
    key = str(seat)
    sel = s.sel.get(key)
    if sel is None or sel.serial != s_now or sel.kind != prompt.kind:
        sel = Selection(serial=s_now, kind=prompt.kind)
    try:
        action = _action(op, prompt, mode, seat, sel)
    except _Stale:  # (what a prompt offers never changes under its decision: nothing to note)
        raise Reply(texts.t("error.stale", lang), final=True) from None
    table = deps.table(s, player_lang(s, seat))
    theme = state.config.theme.value
    if action is None:
        s.sel[key] = sel
        # every toggle draws the prompt again: the selection so far marked and counted (gamebot.handlers.selection)
        plan = Plan(session=s, answer=selection.toast(
            [table.names[t] for t in sel.targets],
            [choice_label(table, sel.choice, prompt.kind) if sel.choice else "",
             table.t("team.button.quest", quest=sel.quest + 1, size="·") if sel.quest is not None else ""],
            lang, theme))
        if msg_id:
            text, kb = private_prompt(table, pd, deps.codec, s_now, sel.model_dump(), public_view(state))
            plan.outs.append(Out("edit", chat_id=user.id, message_id=msg_id, text=text, keyboard=kb,
                                 essential=False, user_id=user.id, tag="prompt", live=s_now))
        return plan
    if isinstance(op, PromptConfirm):
        missing = selection.prompt_missing(prompt, sel, lang, theme)
        if missing:  # said before the engine is asked: what is still to choose
            raise Reply(missing, alert=True)
    prompt_text, _ = private_prompt(table, pd, deps.codec, s_now, None, public_view(state))
    plan = apply_move(deps, s, state, action, lang, trigger=("prompt", msg_id))
    s.sel.pop(key, None)
    if msg_id:
        # one message per decision: what it taught this player (a loyalty seen...) closes it too
        told = [o for o in plan.outs if o.tag == "private_event" and o.chat_id == user.id and o.op == "send"]
        plan.outs = [o for o in plan.outs if all(o is not t for t in told)]
        text = NL.join([answered(table, prompt_text, prompt.kind, action), *(o.text for o in told)])
        plan.outs.insert(0, Out("edit", chat_id=user.id, message_id=msg_id, user_id=user.id, tag="answered",
                                essential=bool(told), fallback_send=bool(told), text=text))
    plan.answer = plan.answer or DONE
    return plan


async def on_prompt(deps: Deps, job: Job, pressed: Pressed) -> None:
    await game_button(deps, job, pressed, prompt_press)
