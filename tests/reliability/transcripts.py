"""Whole games through the bot (``Harness``: the real ``Service``, a recording Bot API), and what the
players were shown: every text and button of the group and of each private chat, in order.

Used by the readability tests and by ``scripts/transcript.py`` (which prints a game for people to
read). Games are played by the simulated players of ``localdev.autoplay``; with ``absent`` one player
never acts and the phase timers (fake scheduler and clock) play for them, so reminders, timeouts and
defaults are shown too; ``status_every`` makes everyone ask ``/status`` (group and private) now and then;
at the end the group asks for the rules, statistics, idle record and picture.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from localdev import updates as U
from localdev.autoplay import Driver, Policy, Words
from tests.reliability.support import RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen

Setup = tuple[str, int, list[str], dict[str, Any]]  # theme, players, characters, options
AFTER_THE_END = ("/status", "/rules", "/stats", "/idles", "/history")  # what a group may ask once it ended


@dataclass(frozen=True)
class Shown:
    """One thing a player saw: a message text (sent or edited), a button label or a button answer."""

    chat: int | None  # None: the answer to a button press (a toast or an alert)
    tag: str
    text: str


def play(setup: Setup, seed: int = 1, lang: str = "en", absent: int | None = None, status_every: int = 0) -> Harness:
    """A whole game of ``setup``; every player's Telegram speaks ``lang``, and so does the group."""
    theme, n, roles, options = setup
    h = _timed(seed) if absent is not None else Harness(seed=seed)
    players = list(range(1, n + 1))
    for uid in players:
        h.langs[uid] = lang
    words = Words.of(lang)
    h.lobby(players, join=words.join)
    item = h.repo.get(chat_key(GROUP))
    session = Session.from_body(item.body)
    session.lang = lang
    h.repo.put(Item(key=item.key, body=session.body()), item.version)
    set_settings(h.repo, GROUP, theme, roles, options)
    h.press_label(players[0], GROUP, words.start)
    active = [p for p in players if p != absent]
    policy = Policy(rng=random.Random(seed), fail_rate=0.4)
    if absent is not None:  # a plain driver: when nobody it plays for can act, the next timer fires
        driver: Driver = Driver(HarnessScreen(h), GROUP, active, policy, words=words)
    else:
        driver = RobustDriver(HarnessScreen(h), GROUP, active, policy, words=words,
                              status=lambda user, chat: status(h, user, chat))
    for _ in range(500):
        driver.play(max_steps=status_every or 3000)
        if driver.over():
            break
        if status_every:
            status(h, players[0], GROUP)
            for uid in players:
                status(h, uid, uid)
        if absent is not None:
            h.fire_next()
        elif not status_every:
            break
    for command in AFTER_THE_END:
        h.send(U.command(U.group(GROUP), h.user(players[0]), command))
    return h


def _timed(seed: int) -> Harness:
    from tests.unit.timer_fakes import Timed

    return Timed(seed=seed)


def status(h: Harness, user: int, chat: int) -> int:
    """``user`` sends /status in the group (``chat`` < 0) or in their private chat."""
    where = U.group(chat) if chat < 0 else U.private(h.user(user))
    return h.send(U.command(where, h.user(user), "/status"))


def shown(h: Harness) -> list[Shown]:
    """Everything the bot showed, in order: texts sent or edited, button labels, answers to presses."""
    out = []
    for o in h.io.outs:
        if o.op == "answer":
            if o.text:
                out.append(Shown(None, "answer", o.text))
            continue
        if o.text:
            out.append(Shown(o.chat_id, o.tag or o.op, o.text))
        for row in o.keyboard or []:
            out.extend(Shown(o.chat_id, "button", b.text) for b in row)
    return out


def timeline(h: Harness, chats: list[int], edits: bool = False, board_only: bool = False) -> list[str]:
    """The texts ``chats`` were shown from the start of the game, in order: what was sent, and the
    board each time its text changed (``edits``: every other edit too; ``board_only``: only the board)."""
    out: list[str] = []
    last: dict[Any, str] = {}
    started = False
    for o in h.io.outs:
        if o.chat_id not in chats or not o.text:
            continue
        started = started or o.tag == "board"
        if not started:
            continue  # the lobby
        board = o.tag == "board"
        if board_only and not board or o.op == "edit" and not (board or edits):
            continue
        key = ("board", o.chat_id) if board else (o.chat_id, o.message_id)
        if last.get(key) == o.text:
            continue
        last[key] = o.text
        where = "group" if o.chat_id < 0 else f"private {o.chat_id}"
        out.append(f"{'✎' if o.op == 'edit' else '→'} [{where} · {o.tag}]\n{o.text}")
    return out
