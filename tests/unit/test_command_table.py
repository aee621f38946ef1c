"""Each slash command is declared once (``gamebot.botapi.commands.COMMANDS``): the dispatcher's table, the
menu the setup function registers and /help's list all come from it."""
from __future__ import annotations

import asyncio
import inspect

from gamebot.botapi import commands
from gamebot.core import dispatch


def test_the_dispatcher_runs_exactly_the_declared_commands_with_their_declared_handlers():
    declared = {c.name: c for c in commands.COMMANDS}
    assert list(dispatch.COMMANDS) == [c.name for c in commands.COMMANDS]
    for name, (handler, group_only) in dispatch.COMMANDS.items():
        module, _, function = declared[name].handler.partition(".")
        assert handler.__module__ == f"gamebot.handlers.{module}" and handler.__name__ == function
        assert inspect.iscoroutinefunction(handler) and group_only == declared[name].group_only


def test_the_menu_lists_the_declared_commands_in_their_order_in_every_language():
    names = [c.name for c in commands.COMMANDS]
    assert len(set(names)) == len(names)
    for menu in commands.menus():
        assert [entry["command"] for entry in menu["commands"]] == names


def test_a_command_declared_in_the_table_reaches_its_handler(monkeypatch):
    """(The table is not decoration: the dispatcher looks a typed command up in it.)"""
    seen: list[str] = []

    async def handler(deps, job, args):
        seen.append(args)

    monkeypatch.setitem(dispatch.COMMANDS, "status", (handler, False))

    class Chat:
        type, id = "group", -5

    class Message:
        text, migrate_to_chat_id, chat, from_user = "/status now", None, Chat(), object()

    class Job:
        message = Message()

    class Deps:
        bot_username = ""

    asyncio.run(dispatch.on_message(Deps(), Job()))
    assert seen == ["now"]
