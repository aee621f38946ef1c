"""Print what the players of a simulated game see, in the order they see it: the group chat and, on
request, private chats. Bots play every seat through the real ``Service`` (tests' ``Harness``), so this
is the text Telegram would show, for reading a game like a player does.

    .venv/bin/python scripts/transcript.py base                 # the group, English, 10 players
    .venv/bin/python scripts/transcript.py resistance --lang fr --private 1,2
    .venv/bin/python scripts/transcript.py --list               # the set-ups (every role and module)

Sends are printed as they arrive; edits of the board are printed when its text changes (``--edits``
prints every edit: the vote and quest progress too). ``--board`` prints only the board's versions.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

from gamebot.session import Session, chat_key  # noqa: E402
from gamebot.store import Item  # noqa: E402
from localdev.autoplay import ENGLISH, FRENCH, Policy  # noqa: E402
from tests.reliability.support import SETUPS, RobustDriver, set_settings  # noqa: E402
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen  # noqa: E402


def play(setup: str, seed: int = 1, lang: str = "en") -> Harness:
    """A whole game of ``setup`` (a key of ``SETUPS``) played by bots; every player speaks ``lang``."""
    theme, n, roles, options = SETUPS[setup]
    h = Harness(seed=seed)
    players = list(range(1, n + 1))
    for uid in players:
        h.langs[uid] = lang
    words = FRENCH if lang == "fr" else ENGLISH
    h.lobby(players, join=words.join)
    item = h.repo.get(chat_key(GROUP))
    session = Session.from_body(item.body)
    session.lang = lang
    h.repo.put(Item(key=item.key, body=session.body()), item.version)
    set_settings(h.repo, GROUP, theme, roles, options)
    h.press_label(players[0], GROUP, words.start)
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed), fail_rate=0.4), words=words)
    driver.status = lambda user, chat: h.command(user, "/status", chat_id=chat)
    driver.play()
    return h


def timeline(h: Harness, chats: list[int], edits: bool = False, board_only: bool = False) -> list[str]:
    """The texts ``chats`` were shown, in order: sends, and board edits that changed its text."""
    out: list[str] = []
    last: dict[tuple[int, int], str] = {}
    started = False
    boards: set[int] = set()
    for o in h.io.outs:
        if o.chat_id not in chats or not o.text:
            continue
        if o.tag == "board":
            started = True
        if not started:
            continue  # the lobby
        key = (o.chat_id, o.message_id or 0)
        if o.tag == "board":
            if o.op == "send":
                boards.add(len(out))
            if last.get(("board", o.chat_id)) == o.text:
                continue
            last[("board", o.chat_id)] = o.text
        elif board_only or (o.op == "edit" and not edits):
            continue
        if last.get(key) == o.text:
            continue
        last[key] = o.text
        where = "group" if o.chat_id < 0 else f"private {o.chat_id}"
        mark = "✎" if o.op == "edit" else "→"
        out.append(f"{mark} [{where} · {o.tag}]\n{o.text}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("setup", nargs="?", default="base")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--private", default="", help="comma-separated user ids (1..10) whose private chat to add")
    parser.add_argument("--edits", action="store_true", help="every edit, not only the board's")
    parser.add_argument("--board", action="store_true", help="only the board's versions")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        for name, (theme, n, roles, options) in SETUPS.items():
            print(f"{name}: {theme}, {n} players, {', '.join(roles) or '-'}; {', '.join(options)}")
        return 0
    h = play(args.setup, args.seed, args.lang)
    chats = [GROUP] + [int(x) for x in args.private.split(",") if x.strip()]
    print("\n\n".join(timeline(h, chats, edits=args.edits, board_only=args.board)))
    h.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
