"""Play a simulated game in the terminal: bots at every seat, or you at one seat (--seat).

What it prints is what the players would read in Telegram, from the bot's own catalogs (--lang).

    scripts/run simulate --players 7 --roles merlin,assassin,percival,morgana --lady
    scripts/run simulate --seat 1          # you play seat 1, bots play the rest
"""
from __future__ import annotations

import argparse
import html
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from engine import (  # noqa: E402
    ROLES,
    Action,
    GameConfig,
    IllegalAction,
    InvalidConfig,
    actors,
    apply_action,
    new_game,
    prompts,
    public_view,
    validate_config,
    view,
)
from engine.bots import choose_action  # noqa: E402
from gamebot import ending, texts  # noqa: E402
from gamebot.callbacks import Codec  # noqa: E402
from gamebot.presenter.events import announcements, event_line, private_events  # noqa: E402
from gamebot.presenter.prompts import choice_label, private_prompt  # noqa: E402
from gamebot.presenter.role_card import role_card  # noqa: E402
from gamebot.presenter.settings import available_roles, issue_text  # noqa: E402
from gamebot.presenter.table import Table  # noqa: E402
from gamebot.presenter.vote import proposal_line  # noqa: E402

NAMES = ["Walter", "Thomas", "Laura", "Evie", "Justin", "Margaret", "Don", "Ron", "Sarah", "Pat"]
TAG = re.compile(r"<[^>]+>")


class Refused(Exception):
    """Bad input from the command line: its one-line reason."""


def plain(text: str) -> str:
    """What a player reads of a message (its HTML tags removed)."""
    return html.unescape(TAG.sub("", text))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    roles = sorted(set(available_roles("avalon")) | set(available_roles("resistance")))
    ap = argparse.ArgumentParser(
        prog="scripts/run simulate", description=__doc__.split("\n\n")[0],
        epilog="Characters (--roles): " + ", ".join(f"{r} ({texts.name_of('role', r)})" for r in roles) + ".")
    ap.add_argument("--players", type=int, default=5, metavar="5-10", help="seats at the table, 5 to 10 (default 5)")
    ap.add_argument("--roles", default="merlin,assassin", metavar="ID,ID",
                    help="the characters, comma-separated ids listed below (default merlin,assassin; Avalon only)")
    ap.add_argument("--theme", default="avalon", choices=["avalon", "resistance"], help="the game (default avalon)")
    ap.add_argument("--lang", default="en", choices=texts.languages(), help="the language (default en)")
    ap.add_argument("--lady", action="store_true", help="the Lady of the Lake (Avalon, 7 players or more)")
    ap.add_argument("--targeting", action="store_true", help="the Leader chooses which quest to go on")
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30), help="seed of the deal and the bots")
    ap.add_argument("--seat", type=int, default=None, metavar="1-N", help="play this seat yourself (1 is the first)")
    args = ap.parse_args(argv)
    if not 5 <= args.players <= 10:
        ap.error(f"--players must be 5 to 10, not {args.players}")
    unknown = [r for r in args.roles.split(",") if r and r not in ROLES]
    if unknown:
        ap.error(f"unknown character {unknown[0]!r} in --roles (`scripts/run simulate --help` lists them)")
    if args.seat is not None and not 1 <= args.seat <= args.players:
        ap.error(f"--seat must be 1 to {args.players}, not {args.seat}")
    return args


def config_of(args: argparse.Namespace, table: Table) -> GameConfig:
    options = {k: True for k, on in (("lady_of_the_lake", args.lady), ("targeting", args.targeting)) if on}
    roles = tuple(r for r in args.roles.split(",") if r) if args.theme == "avalon" else ()
    config = GameConfig(theme=args.theme, players=args.players, roles=roles, options=options)
    errors = [i for i in validate_config(config) if i.level == "error"]
    if errors:
        raise Refused(issue_text(table, errors[0], html=False))
    return config


def show(lines: list[str], indent: str = "") -> None:
    for line in lines:
        for part in plain(line).split("\n"):
            print(indent + part)


def ask(state, seat: int, table: Table) -> Action:
    """Your decision: the prompt as the bot words it, its buttons numbered."""
    p = prompts(state, seat)[0]
    text, _ = private_prompt(table, p.model_dump(), Codec("simulate"), 0, pv=public_view(state))
    print()
    show([text], "  ")
    for i, s in enumerate(p.targets):
        print(f"    {i + 1}. {table.names[s]}")
    for i, c in enumerate(p.choices):
        print(f"    {len(p.targets) + i + 1}. {plain(choice_label(table, c, p.kind))}")
    quests = f"the quest ({', '.join(str(q + 1) for q in p.quests)}) then " if p.quests else ""
    hint = f"{quests}{p.pick} number(s)" if p.pick else "a number"
    while True:
        raw = input(f"  [{hint}{', or pass' if p.optional else ''}]> ").strip().lower()
        if p.optional and raw in ("pass", "p"):
            return Action(seat=seat, kind=p.kind, choice="pass")
        try:
            picks = [int(x) for x in raw.replace(",", " ").split()]
        except ValueError:
            picks = []
        quest = None
        if p.quests and picks:
            quest = picks.pop(0) - 1
        if p.pick and len(picks) == p.pick and all(1 <= x <= len(p.targets) for x in picks):
            return Action(seat=seat, kind=p.kind, targets=tuple(p.targets[x - 1] for x in picks), quest=quest)
        if not p.pick and len(picks) == 1 and len(p.targets) < picks[0] <= len(p.targets) + len(p.choices):
            return Action(seat=seat, kind=p.kind, choice=p.choices[picks[0] - len(p.targets) - 1])
        print(f"  Type {hint} from the list above.")


def tell(table: Table, state, events, me: int | None) -> None:
    """The group's lines of these events (and the proposed team, which the vote message names), then the
    private ones of ``me``."""
    show(announcements(table, events))
    for ev in events:
        if ev.type == "RoundStarted" and ev.data.get("round") == 1:  # (the bot's start message says it)
            show([event_line(table, ev.type, dict(ev.data)) or ""])
    if any(ev.type == "TeamProposed" for ev in events) and state.stage == "vote":
        show([proposal_line(table, public_view(state))])
    if me is not None:
        show(private_events(table, events, me), "  (private) ")


def play(args: argparse.Namespace) -> None:
    names = NAMES[: args.players]
    table = Table(chat_id=0, game_id="sim", lang=args.lang, theme=args.theme, names=names)
    config = config_of(args, table)
    try:
        state, events = new_game(config, args.seed)
    except InvalidConfig as exc:
        raise Refused(str(exc)) from None
    rng = random.Random(args.seed)
    me = None if args.seat is None else args.seat - 1
    print(f"Seed {args.seed}. " + ", ".join(f"{i + 1}. {n}" for i, n in enumerate(names)))
    if me is not None:
        print()
        show([role_card(table, view(state, me))])
    tell(table, state, events, me)
    while not state.over:
        now = actors(state)
        seat = me if me in now else rng.choice(now)
        action = ask(state, seat, table) if seat == me else choose_action(state, seat, rng)
        try:
            state, events = apply_action(state, action)
        except IllegalAction as err:
            print(f"  {err.reason}")
            continue
        tell(table, state, events, me)
    print()
    show(ending.head(table, public_view(state)))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        play(args)
    except Refused as exc:
        print(f"scripts/run simulate: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        print("\nGame abandoned.", file=sys.stderr)
        return 1
    except BrokenPipeError:  # (the output piped into a program that stopped reading)
        sys.stderr.close()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
