"""Count the messages a game costs the bot: sends + edits (Telegram's ~30 a second per bot token).

    .venv/bin/python scripts/count_messages.py            # 10 players, base roles + Lady, and every module
    .venv/bin/python scripts/count_messages.py base       # one set-up only (base | every)
    .venv/bin/python scripts/count_messages.py --seeds 1 2 3
    .venv/bin/python scripts/count_messages.py --timers   # with the phase timers on (their limits shown)

Whole 10-player games are played through ``Service`` with the fake repository and the recording Bot
API (``tests.unit.gamebot_fakes.Harness``), by the reliability tests' driver (simulated players that
read their chats and press buttons, asking ``/status`` when stuck), at one update a second under the
group's default budget. Every sendMessage, sendPhoto and edit is counted, by chat (group or private)
and by what it is (its tag: ``vote``, ``quest``, ``picker``, ``answered``, ``prompt:play``...);
webhook replies that send a message count, answers to buttons do not. The games are seeded: the counts
repeat from run to run. Capacity, as docs/BENCHMARKS.md says it: one bot token hosts at most
30 x 2,700 / (sends + edits of a 45-minute game) games at once.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

from gamebot.storage.effects import Budget  # noqa: E402
from localdev.autoplay import Policy  # noqa: E402
from tests.reliability.support import RobustDriver, final_state, set_settings  # noqa: E402
from tests.unit.gamebot_fakes import Harness, HarnessScreen  # noqa: E402

BASE = ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"]
EVERY = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
SETUPS = {"base": {"lady_of_the_lake": True}, "every": EVERY}
TITLES = {"base": "10 players, base roles + Lady of the Lake", "every": "10 players, every module"}
COUNTED = ("send", "edit", "markup", "photo")
PER_SECOND = 30  # Telegram: about 30 messages a second per bot
GAME_SECONDS = 2700  # a 45-minute game


def category(out, group: int) -> tuple[str, str]:
    """(chat, what): ``group`` / ``private`` and the operation's tag (a prompt's kind kept)."""
    tag = out.tag or "?"
    head, _, rest = tag.partition(":")
    what = f"{head}:{rest}" if head == "prompt" and rest else head
    op = "send" if out.op in ("send", "photo") else "edit"
    return ("group" if out.chat_id == group else "private"), f"{what} ({op})"


def play(setup: str, seed: int, timers: bool = False) -> tuple[collections.Counter, bool, tuple[int, int]]:
    if timers:  # a fake scheduler: the limits run (and are shown), none runs out at one action a second
        from tests.unit.timer_fakes import Timed

        h: Harness = Timed(seed=seed)
    else:
        h = Harness(seed=seed)
    try:
        h.service.uow.budget = Budget()
        players = list(range(100 * seed + 1, 100 * seed + 11))
        h.lobby(players)
        set_settings(h.repo, h.group, "avalon", BASE, SETUPS[setup])
        h.press_label(players[0], h.group, "Start")
        driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(seed)),
                              status=lambda u, c: h.command(u, "/status", chat_id=c))
        driver.play()
        while h.idle():
            pass
        counts = collections.Counter(category(o, h.group) for o in h.io.outs if o.op in COUNTED)
        state = final_state(h.repo, h.group)
        return counts, driver.over(), (len(state.proposals), len(state.quests))
    finally:
        h.close()


def report(setup: str, seeds: list[int], timers: bool = False) -> float:
    total: collections.Counter = collections.Counter()
    teams = quests = 0
    for seed in seeds:
        counts, over, (proposals, played) = play(setup, seed, timers)
        total += counts
        teams, quests = teams + proposals, quests + played
        print(f"  seed {seed}: {sum(counts.values())} sends + edits, {proposals} teams proposed, {played} quests"
              f"{'' if over else ' (the game did not end!)'}")
    n = len(seeds)
    per_game = sum(total.values()) / n
    group = sum(v for (chat, _), v in total.items() if chat == "group") / n
    print(f"{TITLES[setup]}{' (timers on)' if timers else ''}: {per_game:.1f} sends + edits per game (group {group:.1f} / private "
          f"{per_game - group:.1f}), mean of {n}; games per bot token: {PER_SECOND * GAME_SECONDS / per_game:,.0f}; "
          f"{teams / n:.1f} teams proposed and {quests / n:.1f} quests per game")
    for (chat, what), v in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {v / n:6.1f}  {chat:7}  {what}")
    return per_game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("setups", nargs="*", help="base, every (default: both)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--timers", action="store_true", help="phase timers on (a fake scheduler)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.setups if s not in SETUPS]
    if unknown:
        parser.error(f"unknown set-up {', '.join(unknown)} (choose from {', '.join(SETUPS)})")
    for setup in args.setups or list(SETUPS):
        report(setup, args.seeds, args.timers)
        print()


if __name__ == "__main__":
    main()
