"""Play a simulated game in the terminal: bots at every seat, or you at one seat (--seat).

Everything it prints is in the chosen language (--lang), from the bot's own catalogs: what the players
would read in Telegram, and the script's own lines (the ``simulate.*`` entries).

    scripts/run simulate --players 7 --roles merlin,assassin,percival,morgana --lady
    scripts/run simulate --seat 1 --lang pt-BR --excalibur --plot-cards   # you play seat 1
"""
from __future__ import annotations

import argparse
import html
import random
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))

from engine import (  # noqa: E402
    ROLES,
    Action,
    GameConfig,
    IllegalAction,
    InvalidConfig,
    Prompt,
    actors,
    apply_action,
    new_game,
    prompts,
    public_view,
    validate_config,
    view,
)
from engine.policy import ai_seat_move  # noqa: E402
from gamebot.botapi.callbacks import Codec  # noqa: E402
from gamebot.language import texts
from gamebot.messages.events import announcements, event_line, private_events  # noqa: E402
from gamebot.messages.prompts import choice_label, private_prompt  # noqa: E402
from gamebot.messages.role_card import role_card  # noqa: E402
from gamebot.messages.settings import available_modules, available_roles, issue_text  # noqa: E402
from gamebot.messages.table import Table  # noqa: E402
from gamebot.messages.vote import picker_heading, proposal_line, team_sizes  # noqa: E402
from gamebot.story import end_text

NAMES = ["Walter", "Thomas", "Laura", "Evie", "Justin", "Margaret", "Don", "Ron", "Sarah", "Pat"]
TAG = re.compile(r"<[^>]+>")
ALIASES = {"lady_of_the_lake": ["--lady"]}  # (the flag this script had before the others)
LANGUAGE_NAMES = {"pt": "pt-BR"}  # how the README names a catalog language


class Refused(Exception):
    """Bad input from the command line: its one-line reason."""


def plain(text: str) -> str:
    """What a player reads of a message (its HTML tags removed)."""
    return html.unescape(TAG.sub("", text))


def language(value: str) -> str:
    """A catalog language from ``--lang``: its code or a locale of it (``pt-BR``, ``PT``, ``fr_CA``)."""
    code = texts.lang_for(value, fallback="")
    if not code:
        raise argparse.ArgumentTypeError(f"no catalog speaks {value!r} (choose from {', '.join(languages())})")
    return code


def languages() -> list[str]:
    return [LANGUAGE_NAMES.get(code, code) for code in texts.languages()]


def module_options() -> dict[str, list[str] | None]:
    """Every option a host may set (either game), with its named values (None: a switch)."""
    out: dict[str, list[str] | None] = {}
    for theme in ("avalon", "resistance"):
        for _, key, values in available_modules(theme):
            out.setdefault(key, values)
    return out


def option_help(key: str, values: list[str] | None) -> str:
    themes = [th for th in ("avalon", "resistance") if key in {m[1] for m in available_modules(th)}]
    words = plain(texts.t(f"modulehelp.{key}", "en", themes[0]))
    if values:
        words += " " + "; ".join(f"{v}: {plain(texts.t(f'variant.{v}', 'en', themes[0]))}" for v in values)
    games = " and ".join(texts.t(f"theme.{th}") for th in themes)
    return f"{plain(texts.name_of('module', key))} ({games}): {words}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    roles = sorted(set(available_roles("avalon")) | set(available_roles("resistance")))
    ap = argparse.ArgumentParser(
        prog="scripts/run simulate", description=__doc__.split("\n\n")[0],
        epilog="Characters (--roles): " + ", ".join(f"{r} ({texts.name_of('role', r)})" for r in roles) + ".")
    ap.add_argument("--players", type=int, default=5, metavar="5-10", help="seats at the table, 5 to 10 (default 5)")
    ap.add_argument("--roles", default="merlin,assassin", metavar="ID,ID",
                    help="the characters, comma-separated ids listed below (default merlin,assassin; Avalon only)")
    ap.add_argument("--theme", default="avalon", choices=["avalon", "resistance"], help="the game (default avalon)")
    ap.add_argument("--lang", default="en", type=language, metavar="|".join(languages()),
                    help="the language, any case, or a locale of it such as pt-BR (default en)")
    options = ap.add_argument_group("options and modules")
    for key, values in module_options().items():
        flags = ["--" + key.replace("_", "-"), *ALIASES.get(key, [])]
        if values:
            options.add_argument(*flags, dest=key, choices=values, metavar="|".join(values), help=option_help(key, values))
        else:
            options.add_argument(*flags, dest=key, action="store_true", help=option_help(key, values))
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30), help="seed of the deal and the bots")
    ap.add_argument("--seat", type=int, default=None, metavar="1-N", help="play this seat yourself (1 is the first)")
    return ap.parse_args(argv)


def check(args: argparse.Namespace, table: Table) -> None:
    if not 5 <= args.players <= 10:
        raise Refused(table.t("simulate.bad_players", value=args.players))
    unknown = [r for r in args.roles.split(",") if r and r not in ROLES]
    if unknown:
        raise Refused(table.t("simulate.bad_role", role=unknown[0]))
    if args.seat is not None and not 1 <= args.seat <= args.players:
        raise Refused(table.t("simulate.bad_seat", players=args.players, value=args.seat))


def config_of(args: argparse.Namespace, table: Table) -> GameConfig:
    options = {key: getattr(args, key) for key in module_options() if getattr(args, key) not in (None, False)}
    roles = tuple(r for r in args.roles.split(",") if r) if args.theme == "avalon" else ()
    config = GameConfig(theme=args.theme, players=args.players, roles=roles, options=options)
    errors = [i for i in validate_config(config) if i.level == "error"]
    if errors:
        raise Refused(plain(issue_text(table, errors[0])))
    return config


def show(lines: list[str], indent: str = "") -> None:
    for line in lines:
        for part in plain(line).split("\n"):
            print(indent + part)


def numbered(table: Table, p: Prompt) -> list[tuple[str, Any, str]]:
    """What a prompt's answer is made of, to be numbered from 1: (what, value, label): its quests, players,
    choices, and passing."""
    sizes = p.info.get("sizes") or {}
    items = [("quest", q, table.t("team.button.quest", quest=q + 1, size=sizes.get(str(q), p.pick)))
             for q in p.quests]
    items += [("target", s, table.names[s]) for s in p.targets]
    items += [("choice", c, plain(choice_label(table, c, p.kind))) for c in p.choices]
    if p.optional:
        items.append(("pass", "pass", plain(table.t("prompt.button.pass"))))
    return items


def hint(table: Table, p: Prompt, items: list[tuple[str, Any, str]]) -> str:
    """What to type, in words: "a number", or which numbers ("a quest and its team, or 9 to pass")."""
    if not p.quests and bool(p.pick) + bool(p.choices) <= 1 and p.pick <= 1:
        return table.t("simulate.answer.number")
    parts = []
    if p.quests:
        parts.append(table.t("simulate.answer.quest"))
    if p.pick:
        parts.append(table.t("simulate.answer.team") if p.quests else table.t("simulate.answer.players", count=p.pick))
    if p.choices:
        parts.append(table.t("simulate.answer.option"))
    words = table.t("simulate.answer.numbers", parts=texts.join_names(parts, table.lang))
    if p.optional:
        words += ", " + table.t("simulate.answer.or_pass", number=len(items))
    return words


def answer(p: Prompt, items: list[tuple[str, Any, str]], raw: str) -> Action | None:
    """The action the typed numbers stand for, or None when they do not make one answer."""
    numbers = raw.replace(",", " ").split()
    if not numbers or not all(n.isdigit() and 1 <= int(n) <= len(items) for n in numbers):
        return None
    picked = [items[int(n) - 1] for n in numbers]
    if [what for what, _, _ in picked] == ["pass"]:
        return Action(seat=p.seat, kind=p.kind, choice="pass")
    chosen: dict[str, list[Any]] = {"quest": [], "target": [], "choice": [], "pass": []}
    for what, value, _ in picked:
        chosen[what].append(value)
    quest = chosen["quest"][0] if len(chosen["quest"]) == 1 else None
    size = int((p.info.get("sizes") or {}).get(str(quest), p.pick)) if p.pick else 0
    targets = chosen["target"]
    if chosen["pass"] or len(chosen["quest"]) != int(bool(p.quests)) or len(chosen["choice"]) != int(bool(p.choices)):
        return None
    if len(targets) != size or len(set(targets)) != size:
        return None
    return Action(seat=p.seat, kind=p.kind, targets=tuple(targets), quest=quest,
                  choice=chosen["choice"][0] if p.choices else None)


def team_prompt(table: Table, p: Prompt, pv: dict[str, Any]) -> str:
    """The Leader's decision as the bot's team picker words it: the bot asks it with that picker, not as a
    prompt, and has no sentence of its own for it (``private_prompt`` would show its raw data: "Sizes: 0: 2")."""
    sizes, attempt = team_sizes(p, pv)
    return picker_heading(table, pv, sizes, list(p.quests), attempt, table.name(p.seat))


def ask(state, seat: int, table: Table) -> Action:
    """Your decision: the prompt as the bot words it (the team as its team picker does), what makes an
    answer numbered."""
    p = prompts(state, seat)[0]
    pv = public_view(state)
    if p.kind == "propose":
        text = team_prompt(table, p, pv)
    else:
        text, _ = private_prompt(table, p.model_dump(), Codec("simulate"), 0, pv=pv)
    print()
    show([text], "  ")
    items = numbered(table, p)
    for i, (_, _, label) in enumerate(items):
        print(f"    {i + 1}. {label}")
    words = hint(table, p, items)
    while True:
        action = answer(p, items, input(f"  [{words}]> ").strip())
        if action is not None:
            return action
        print("  " + table.t("simulate.retry", answer=words))


def refusal(table: Table, err: IllegalAction) -> str:
    """The engine's refusal as the bot says it (``illegal.<code>``)."""
    key = f"illegal.{err.code}"
    return table.t(key, **err.params) if texts.has(key, table.lang) else err.reason


def tell(table: Table, state, events, me: int | None, before: str | None = None) -> None:
    """The group's lines of these events (and the proposed team once its vote opens, which the vote message
    names: after the proposal, or after Excalibur is given between the two), then the private ones of
    ``me``. ``before``: the stage before these events."""
    proposed = any(ev.type == "TeamProposed" for ev in events)
    if state.stage == "vote" and before not in (None, "vote") and not proposed:  # (Excalibur given meanwhile)
        show([proposal_line(table, public_view(state))])
    show(announcements(table, events))
    for ev in events:
        if ev.type == "RoundStarted" and ev.data.get("round") == 1:  # (the bot's start message says it)
            show([event_line(table, ev.type, dict(ev.data)) or ""])
    if state.stage == "vote" and proposed:
        show([proposal_line(table, public_view(state))])
    if me is not None:
        show(private_events(table, events, me), f"  {table.t('simulate.private')} ")


def play(args: argparse.Namespace, table: Table) -> None:
    check(args, table)
    table.names = names = NAMES[: args.players]
    config = config_of(args, table)
    try:
        state, events = new_game(config, args.seed)
    except InvalidConfig as exc:
        raise Refused(plain(issue_text(table, exc.problems[0])) if exc.problems else str(exc)) from None
    rng = random.Random(args.seed)
    me = None if args.seat is None else args.seat - 1
    print(table.t("simulate.seed", seed=args.seed, players=", ".join(f"{i + 1}. {n}" for i, n in enumerate(names))))
    if me is not None:
        print()
        show([role_card(table, view(state, me))])
    tell(table, state, events, me)
    while not state.over:
        now = actors(state)
        seat = me if me in now else rng.choice(now)
        action = ask(state, seat, table) if seat == me else ai_seat_move(state, seat, rng)
        before = state.stage
        try:
            state, events = apply_action(state, action)
        except IllegalAction as err:
            print(f"  {refusal(table, err)}")
            continue
        tell(table, state, events, me, before)
    print()
    show(end_text.head(table, public_view(state)))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    table = Table(chat_id=0, game_id="sim", lang=args.lang, theme=args.theme, names=[])
    try:
        play(args, table)
    except Refused as exc:
        print(f"scripts/run simulate: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        print("\n" + table.t("simulate.abandoned"), file=sys.stderr)
        return 1
    except BrokenPipeError:  # (the output piped into a program that stopped reading)
        sys.stderr.close()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
