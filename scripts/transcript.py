"""Print what the players of a simulated game see, in the order they see it: the group chat and, on
request, private chats. Bots play every seat through the real ``Service`` (tests' ``Harness``), so this
is the text Telegram would show, for reading a game like a player does.

    .venv/bin/python scripts/transcript.py base                 # the group, English, 10 players
    .venv/bin/python scripts/transcript.py resistance --lang fr --private 1,2
    .venv/bin/python scripts/transcript.py base --absent 4      # player 4 never acts: the timers play
    .venv/bin/python scripts/transcript.py --list               # the set-ups (every role and module)
    .venv/bin/python scripts/transcript.py --dump DIR           # every Bot API call of many seeded games

``--dump DIR`` writes, for every set-up, seeds 1-2, four languages, and a game where one player never
acts (the timers play), every Bot API call the bot made (operation, chat, message, tag, text, buttons
with their data, the answers to presses), one file per game: run it before and after a refactor and
``diff -r`` the two directories (game ids are numbered, so the runs are comparable).

Sends are printed as they arrive; the board each time its text changes (``--edits``: every edit, the
vote and quest progress too; ``--board``: only the board).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

from tests.reliability.support import SETUPS  # noqa: E402
from tests.reliability.transcripts import play, timeline  # noqa: E402
from tests.unit.gamebot_fakes import GROUP  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("setup", nargs="?", default="base", help="a set-up from --list")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--private", default="", help="comma-separated user ids (1..10) whose private chat to add")
    parser.add_argument("--absent", type=int, default=None, help="a user id who never acts (timers on)")
    parser.add_argument("--edits", action="store_true", help="every edit, not only the board's")
    parser.add_argument("--board", action="store_true", help="only the board's versions")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--dump", metavar="DIR", help="write every call of many seeded games to DIR")
    args = parser.parse_args(argv)
    if args.dump:
        return dump(Path(args.dump))
    if args.list:
        for name, (theme, n, roles, options) in SETUPS.items():
            print(f"{name}: {theme}, {n} players, {', '.join(roles) or '-'}; {', '.join(options)}")
        return 0
    h = play(SETUPS[args.setup], args.seed, args.lang, absent=args.absent)
    chats = [GROUP] + [int(x) for x in args.private.split(",") if x.strip()]
    print("\n\n".join(timeline(h, chats, edits=args.edits, board_only=args.board)))
    h.close()
    return 0


def dump(out: Path) -> int:
    """Every Bot API call of seeded games of every set-up, one file per game (see the module's doc)."""
    import functools
    import itertools

    from gamebot.handlers import lobby

    out.mkdir(parents=True, exist_ok=True)
    games = [(name, seed, lang, None) for name in SETUPS for seed in (1, 2) for lang in ("en", "fr", "ru", "de")]
    games += [(name, 1, "en", 4) for name in SETUPS]
    for name, seed, lang, absent in games:
        lobby.new_game_id = functools.partial(lambda ids: f"g{next(ids):05d}", itertools.count(1))  # (else random)
        h = play(SETUPS[name], seed, lang, absent=absent)
        lines = []
        for o in h.io.outs:
            buttons = [[(b.text, b.data, b.url) for b in row] for row in o.keyboard or []]
            lines.append(f"{o.op} chat={o.chat_id} msg={o.message_id} tag={o.tag} essential={o.essential} "
                         f"alert={o.alert}\n{o.text}\n{buttons}\n")
        (out / f"{name}-{lang}-{seed}{'-absent' if absent else ''}.txt").write_text("\n".join(lines))
        h.close()
    print(f"{len(games)} games written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
