"""Count the messages a game costs the bot: sends + edits (Telegram's ~30 a second per bot token), at
the pace of the players.

    .venv/bin/python scripts/count_messages.py            # every set-up at one action a second
    .venv/bin/python scripts/count_messages.py base       # one set-up only (see SETUPS)
    .venv/bin/python scripts/count_messages.py --seeds 1 2 3
    .venv/bin/python scripts/count_messages.py --paces    # every set-up at 1 s, bursty 3 s / 45 s and 10 s
    .venv/bin/python scripts/count_messages.py --timers   # with the phase timers on: reminders fire when due

Whole games are played through ``Service`` with the fake repository and the recording Bot API
(``tests.unit.gamebot_fakes.Harness``), by the reliability tests' driver (simulated players that read
their chats and press buttons, asking ``/status`` when stuck), under the group's default budget. Every
sendMessage, sendPhoto and edit is counted, by chat (group or private) and by what it is (its tag:
``vote``, ``quest``, ``picker``, ``answered``, ``prompt:play``...); webhook replies that send a message
count, answers to buttons do not. The games are seeded: the counts repeat from run to run.

The pace is the simulated time before each action (``gap``): ``1s`` one action a second (the brisk pace
the group's budget of 20 messages a minute merges most progress edits at); ``bursty``: the table talks,
then acts: 45 s of quiet before the Leader starts picking each team, then everything up to the next
team (the picks, the proposal, the votes, the cards, the decisions) 3 s apart; ``10s`` one action every
ten seconds. When nobody can act (the outbox waits for
the budget) time passes a second at a time to the flush, whatever the pace. With ``--timers`` the phase
timers run (a fake scheduler): those due by an action's time fire before it, so a slow table gets its
reminders (counted; deleting one later is not a message) and a limit could run out (the games report
how many did).

Capacity, as docs/BENCHMARKS.md says it: one bot token hosts at most 30 x 2,700 / (sends + edits of a
45-minute game) games at once; the same game is assumed to last 45 minutes at every pace (the simulated
minutes are shown too).
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]

BASE = ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"]
BASE5 = ["merlin", "assassin", "percival", "morgana"]
EVERY = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
# name: (players, roles, options, title)
SETUPS: dict[str, tuple[int, list[str], dict[str, Any], str]] = {
    "base": (10, BASE, {"lady_of_the_lake": True}, "10 players, base roles + Lady of the Lake"),
    "every": (10, BASE, EVERY, "10 players, every module"),
    "roles": (10, BASE, {}, "10 players, base roles"),
    "base5": (5, BASE5, {}, "5 players, base roles"),
    "every5": (5, BASE5, EVERY, "5 players, every module"),
}
DEFAULT_SETUPS = ("base", "every")
COUNTED = ("send", "edit", "markup", "photo")
PER_SECOND = 30  # Telegram: about 30 messages a second per bot
GAME_SECONDS = 2700  # a 45-minute game
PACES = ("1s", "bursty", "10s")
BURST_GAP = 45.0  # seconds of quiet between two bursts
BURST_STEP = 3.0  # seconds between two actions of a burst


def gap(pace: str, action: str, previous: str | None) -> float:
    """Simulated seconds before an action at ``pace``: ``1s``, ``10s`` or ``bursty``: 3 s, but 45 s of quiet
    (the table talks) before the Leader starts picking a team: a press of the team picker (``action``
    "T", as its button data begins) after any other action (``previous``; None before the first)."""
    if pace == "1s":
        return 1.0
    if pace == "10s":
        return 10.0
    if pace == "bursty":
        return BURST_GAP if action == "T" and previous not in (None, "T") else BURST_STEP
    raise ValueError(f"unknown pace {pace!r} (choose from {', '.join(PACES)})")


def action_of(update: dict[str, Any]) -> str:
    """What kind of action an update is, for the pace: a button's scope (its data's first field: ``T`` the
    team picker, ``V`` a vote...) or ``/`` for a command or a message."""
    query = update.get("callback_query")
    return str(query.get("data", "")).split(":")[0] if query else "/"


def capacity(sends_edits: float) -> float:
    """Simultaneous 45-minute games one bot token carries at 30 messages a second."""
    return PER_SECOND * GAME_SECONDS / sends_edits if sends_edits else 0.0


def category(out: Any, group: int) -> tuple[str, str]:
    """(chat, what): ``group`` / ``private`` and the operation's tag (a prompt's kind kept)."""
    tag = out.tag or "?"
    head, _, rest = tag.partition(":")
    what = f"{head}:{rest}" if head == "prompt" and rest else head
    op = "send" if out.op in ("send", "photo") else "edit"
    return ("group" if out.chat_id == group else "private"), f"{what} ({op})"


def paced(base: type, pace: str) -> Any:
    """``base`` (a ``Harness``) whose updates arrive ``gap(pace, ...)`` seconds apart; waiting for the
    outbox moves time a second at a time."""

    class Paced(base):  # type: ignore[misc, valid-type]
        actions = 0
        previous: str | None = None

        fired: collections.Counter = collections.Counter()  # with a scheduler: the timers fired, by outcome

        def send(self, update: dict[str, Any]) -> int:
            key = repr(update.get("update_id")) if isinstance(update, dict) else None
            if key not in self._paced:  # (a redelivery comes back to the same moment: no new action)
                action = action_of(update)
                at = self.clock.now + gap(pace, action, self.previous)
                self.fire_until(at)
                self.pace = at - self.clock.now
                self.actions, self.previous = self.actions + 1, action
            return int(super().send(update))

        def fire_until(self, at: float) -> None:
            """The phase timers due by ``at`` fire first, in order (reminders; a limit that runs out)."""
            sched = getattr(self, "sched", None)
            while sched is not None and sched.pending() and sched.pending()[0].at <= at:
                self.fired[self.fire(sched.pop_next())] += 1

        def idle(self, chat_id: int | None = None) -> bool:
            self.pace = 1.0
            return bool(super().idle(chat_id))

    return Paced


def play(setup: str, seed: int, timers: bool = False,
         pace: str = "1s") -> tuple[collections.Counter, bool, tuple[int, int], float, collections.Counter]:
    """One seeded game: its sends and edits by (chat, what), whether it ended, (teams, quests), its
    simulated seconds and the phase timers fired, by outcome (``reminded``, ``expired``...)."""
    from gamebot.storage.effects import Budget
    from tests.reliability.support import final_state, play_started, set_settings
    from tests.unit.gamebot_fakes import Harness

    n, roles, options, _ = SETUPS[setup]
    if timers:  # a fake scheduler: the limits run and are shown, their timers fire when due
        from tests.unit.timer_fakes import Timed

        base: type = Timed
    else:
        base = Harness
    h = paced(base, pace)(seed=seed)
    try:
        h.service.uow.budget = Budget()
        players = list(range(100 * seed + 1, 100 * seed + 1 + n))
        h.lobby(players)
        start = h.clock.now
        set_settings(h.repo, h.group, "avalon", roles, options)
        driver = play_started(h, players, seed)
        counts = collections.Counter(category(o, h.group) for o in h.io.outs if o.op in COUNTED)
        state = final_state(h.repo, h.group)
        took = h.clock.now - start
        return counts, driver.over(), (len(state.proposals), len(state.quests)), took, collections.Counter(h.fired)
    finally:
        h.close()


def split(counts: collections.Counter) -> dict[str, float]:
    """Sends and edits, group and private, and their total."""
    out = {f"{chat} {op}": 0.0 for chat in ("group", "private") for op in ("sends", "edits")}
    for (chat, what), v in counts.items():
        out[f"{chat} {'sends' if what.endswith('(send)') else 'edits'}"] += v
    out["total"] = sum(counts.values())
    return out


def measure(setup: str, seeds: list[int], timers: bool = False, pace: str = "1s",
            verbose: bool = True) -> dict[str, Any]:
    """Means over ``seeds``: counts by (chat, what), the split, capacity, teams, quests, simulated minutes."""
    total: collections.Counter = collections.Counter()
    fired: collections.Counter = collections.Counter()
    teams = quests = 0
    seconds = 0.0
    for seed in seeds:
        counts, over, (proposals, played), took, outcomes = play(setup, seed, timers, pace)
        total += counts
        fired += outcomes
        teams, quests, seconds = teams + proposals, quests + played, seconds + took
        if verbose:
            print(f"  seed {seed}: {sum(counts.values())} sends + edits, {proposals} teams proposed, {played} quests,"
                  f" {took / 60:.1f} simulated minutes{'' if over else ' (the game did not end!)'}"
                  + (f"; timers: {dict(outcomes)}" if timers else ""))
    n = len(seeds)
    mean = collections.Counter({k: v / n for k, v in total.items()})
    parts = split(mean)
    return {"counts": mean, **parts, "capacity": capacity(parts["total"]), "teams": teams / n, "quests": quests / n,
            "minutes": seconds / n / 60, "reminded": fired["reminded"] / n, "expired": fired["expired"] / n}


def report(setup: str, seeds: list[int], timers: bool = False, pace: str = "1s") -> float:
    m = measure(setup, seeds, timers, pace)
    print(f"{SETUPS[setup][3]}{' (timers on)' if timers else ''}, pace {pace}: {m['total']:.1f} sends + edits per game"
          f" (group {m['group sends']:.1f} sends + {m['group edits']:.1f} edits / private {m['private sends']:.1f}"
          f" sends + {m['private edits']:.1f} edits), mean of {len(seeds)}; games per bot token: {m['capacity']:,.0f};"
          f" {m['teams']:.1f} teams proposed and {m['quests']:.1f} quests per game"
          + (f"; {m['reminded']:.1f} reminders and {m['expired']:.1f} limits run out per game" if timers else ""))
    for (chat, what), v in sorted(m["counts"].items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {v:6.1f}  {chat:7}  {what}")
    return float(m["total"])


def pace_table(setups: list[str], seeds: list[int], timers: bool = False) -> str:
    """The capacity per pace of every set-up (docs/BENCHMARKS.md's table), then what grows at a slow pace."""
    lines = ["| set-up | pace | group sends | group edits | private sends | private edits | sends + edits |"
             " games per bot token | simulated minutes |" + (" reminders / limits run out |" if timers else ""),
             "|---|---|---|---|---|---|---|---|---|" + ("---|" if timers else "")]
    growth: list[str] = []
    for setup in setups:
        results = {pace: measure(setup, seeds, timers, pace, verbose=False) for pace in PACES}
        for pace, m in results.items():
            lines.append(f"| {SETUPS[setup][3]} | {pace} | {m['group sends']:.1f} | {m['group edits']:.1f} |"
                         f" {m['private sends']:.1f} | {m['private edits']:.1f} | **{m['total']:.1f}** |"
                         f" **{m['capacity']:,.0f}** | {m['minutes']:.0f} |"
                         + (f" {m['reminded']:.1f} / {m['expired']:.1f} |" if timers else ""))
        fast, slow = results["1s"]["counts"], results["10s"]["counts"]
        more = sorted(((slow[k] - fast[k], k) for k in set(fast) | set(slow)), reverse=True)
        growth.append(f"- {SETUPS[setup][3]}, 10 s against 1 s: " + ", ".join(
            f"{chat} {what} {d:+.1f}" for d, (chat, what) in more if abs(d) >= 0.5))
    return "\n".join([*lines, "", "What changes at a slow pace (means per game):", *growth])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("setups", nargs="*", help=f"{', '.join(SETUPS)} (default: {', '.join(DEFAULT_SETUPS)};"
                                                  " with --paces: all)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--timers", action="store_true", help="phase timers on (a fake scheduler)")
    parser.add_argument("--pace", choices=PACES, default="1s", help="the players' pace (default 1s)")
    parser.add_argument("--paces", action="store_true", help="the capacity table at every pace, in the doc's format")
    args = parser.parse_args(argv)
    unknown = [s for s in args.setups if s not in SETUPS]
    if unknown:
        parser.error(f"unknown set-up {', '.join(unknown)} (choose from {', '.join(SETUPS)})")
    if args.paces:
        print(pace_table(args.setups or list(SETUPS), args.seeds, args.timers))
        return
    for setup in args.setups or list(DEFAULT_SETUPS):
        report(setup, args.seeds, args.timers, args.pace)
        print()


if __name__ == "__main__":
    main()
