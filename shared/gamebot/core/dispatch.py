"""Which handler an update goes to: a command by its name, a button by its scope, a change of the
bot's membership, a chat migration. The tables are built once, at import."""
from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any

from gamebot.botapi import buttons
from gamebot.botapi.callbacks import BadCallback
from gamebot.botapi.commands import COMMANDS as command_table
from gamebot.compose.context import GROUP_TYPES, Deps, lang_of
from gamebot.handlers import (
    ai_seats,
    language,
    lobby,
    membership,
    play,
    prompts,
    settings,
    votes,
)
from gamebot.handlers.handling import Job, MissingPart, finish
from gamebot.language import texts
from gamebot.outbox.plan import Plan

Handler = Callable[[Deps, Job, Any], Awaitable[None]]



def _handler(path: str) -> Handler:
    """``"<module>.<function>"`` of ``gamebot.handlers`` (``botapi.commands.COMMANDS``) as a function."""
    module, _, name = path.partition(".")
    found: Handler = getattr(importlib.import_module(f"gamebot.handlers.{module}"), name)
    return found


# command name -> (handler(deps, job, args), in a group only): from the one table of commands
COMMANDS: dict[str, tuple[Handler, bool]] = {c.name: (_handler(c.handler), c.group_only) for c in command_table}

# button scope (``gamebot.botapi.callbacks``) -> handler(deps, job, pressed)
BUTTONS: dict[str, Handler] = {
    "L": lobby.on_button,
    "S": settings.on_button,
    "T": play.on_team,
    "V": play.on_vote,
    "Q": play.on_card,
    "P": prompts.on_prompt,
    "G": language.on_button,
    "H": votes.on_button,
}


async def on_message(deps: Deps, job: Job) -> None:
    msg = job.message
    if msg.migrate_to_chat_id:
        await membership.migrate(deps, job, msg.chat.id, msg.migrate_to_chat_id)
        return
    text = msg.text or ""
    if not text.startswith("/") or msg.from_user is None:
        return
    word, _, args = text.partition(" ")
    cmd, _, target = word[1:].partition("@")
    if target and deps.bot_username and target.lower() != deps.bot_username.lower():
        return  # addressed to another bot
    entry = COMMANDS.get(cmd.lower())
    if entry is None:
        return
    handler, group_only = entry
    refused = ai_seats.forged(msg.from_user)
    if refused is not None:  # (no person has an AI seat's id)
        await finish(deps, job, Plan(answer=refused.text))
        return
    private = msg.chat.type == "private"
    if private and group_only:
        table, _ = deps.load(msg.chat.id)  # (a /practice game's table is this chat: it says how it ends)
        lang = deps.private_lang(msg.from_user, table)
        key = "practice.group_only" if table is not None and table.practice and table.active else "error.group_only"
        await finish(deps, job, Plan(answer=texts.t(key, lang, command="/" + cmd.lower())))
        return
    if not private and msg.chat.type not in GROUP_TYPES:
        return
    await handler(deps, job, args.strip())


async def on_callback(deps: Deps, job: Job) -> None:
    q = job.query
    job.callback_id = q.id
    refused = ai_seats.forged(q.from_user)
    if refused is not None:  # a press in an AI seat's name: nothing is read or changed
        await finish(deps, job, Plan(answer=refused.text, alert=True))
        return
    try:
        pressed = buttons.decode(deps.codec, q.data)
    except BadCallback:
        await finish(deps, job, Plan(answer=texts.t("error.stale", lang_of(q.from_user))))
        return
    await BUTTONS[pressed.scope](deps, job, pressed)


async def dispatch(deps: Deps, job: Job) -> None:
    """Hand the update to its handler; every other update type is ignored (200)."""
    u = job.update
    if u is None:
        raise MissingPart("a timer's job has no update to dispatch (``Timers.fire`` handles timers)")
    if u.callback_query is not None:
        await on_callback(deps, job)
    elif u.message is not None:
        await on_message(deps, job)
    elif u.my_chat_member is not None:
        await membership.on_my_chat_member(deps, job)
