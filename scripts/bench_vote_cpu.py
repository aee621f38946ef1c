"""The CPU of one vote, warm and in memory, piece by piece: this tree against another one, side by side.

    .venv/bin/python scripts/bench_vote_cpu.py                      # this tree alone
    .venv/bin/python scripts/bench_vote_cpu.py --base /tmp/i27base  # and an older checkout, ratios
    .venv/bin/python scripts/bench_vote_cpu.py --rounds 15 --number 200 --base /tmp/i27base
    .venv/bin/python scripts/bench_vote_cpu.py --quick --json out.json   # that it runs (CI)

A 10-player game (the tests' ``Harness``: the real ``Service`` over an in-memory repository) is played by
bots (``localdev.autoplay``) up to a vote of ``--round`` (default 3: a chat item of the middle of a game)
where four players have voted. Then the fifth player's vote (a vote that is not the last: the most
common press) is measured, with ``timeit`` (the best of several repeats, microseconds per call):

* ``env``: ``Environment.read()`` (each webhook invocation reads its settings);
* ``refusal``: the update's shape checked (``botapi.inbound.refusal``), before anything is read;
* ``decode``: the chat item as DynamoDB returns it, decoded (its body unpacked: ``storage.packing.unpack``) and made a ``Session`` with its game (``Session.from_body``, ``game()``);
* ``engine``: ``engine.apply_action`` of the vote; ``copy``: the engine's copy of the state alone;
  ``view``: ``engine.public_view`` of the state after the vote (the group's messages are drawn from it);
* ``decide``: what the webhook decides under the chat's read (``handlers.play.vote_press`` on a
  ``Session`` made from the item's body): the move, the session's new state, the messages of the move;
* ``encode``: the session after the move, stored (``Session.set_game``, ``body()``) and packed
  (``DynamoRepository.encode_item``);
* ``observed``: ``gamebot.core.metrics.observed`` around nothing, with a stack (its summary log line,
  formatted as JSON as in Lambda, and the EMF blob, both to /dev/null);
* ``press``: the whole vote through ``Service.handle_update`` over a repository that stores items as
  DynamoDB records (``encode_item`` / ``unpack``): the read, the decision, the messages, the write and
  the delivery to the recording fake Bot API (the item restored before each press).

``critical`` adds up the pieces a press goes through one after the other, outside the network waits
(env, refusal, decode, decide, encode, observed: the PTB parse overlaps the read, the delivery follows
the answer). Each tree runs in a subprocess of its own (its ``shared`` first on the path); for each piece the two
take turns ``--rounds`` times; the table shows each tree's best and the ratio (this tree / base). The machine is
shared: the absolute times are noisy, compare the ratios. The webhook's own timeline, with the network
waits, is ``scripts/bench_timeline.py``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
PIECES = ("env", "refusal", "decode", "copy", "engine", "view", "decide", "encode", "observed", "press")
CRITICAL = ("env", "refusal", "decode", "decide", "encode", "observed")  # one after the other on a press's path


def measure(tree: Path, at_round: int) -> dict[str, Any]:
    """The pieces of ``tree``, ready to be timed (in a subprocess whose path starts with that tree)."""
    sys.path[:0] = [str(tree / "shared"), str(tree / "functions" / "webhook"), str(tree)]
    import asyncio
    import io
    import logging
    import os
    import random

    os.environ.setdefault("STACK_NAME", "bench")

    from engine import Action, apply_action, public_view
    from engine import models as engine_models
    from gamebot.aws.dynamo import DynamoRepository
    from gamebot.botapi import inbound
    from gamebot.botapi.buttons import decode as decode_button
    from gamebot.core import logs, metrics
    from gamebot.environment import Environment
    from gamebot.handlers.play import vote_press
    from gamebot.storage.session import Session, chat_key
    from gamebot.storage.store import FakeRepository, Item
    from localdev.autoplay import Driver, Policy
    from tests.unit import gamebot_fakes as fakes
    from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen

    U = fakes.U

    as_item = DynamoRepository.decode_item  # what ``DynamoRepository`` reads from a record

    class Records(FakeRepository):
        """Items kept as the DynamoDB records they would be (packed on write, decoded on read): the fake
        repository's own writes, each also encoded as ``DynamoRepository`` writes it."""

        def __post_init__(self) -> None:
            super().__post_init__()
            self.records: dict[str, dict[str, Any]] = {}

        def get(self, key: str) -> Item | None:
            self.calls["read"] += 1
            record = self.records.get(key)
            return None if record is None else as_item(record)

        def transact(self, writes: Any, deletes: Any = None) -> list[Item]:
            done = super().transact(writes, deletes)
            for stored in done:
                self.records[stored.key] = DynamoRepository.encode_item(stored, stored.version)
            for d in deletes or []:
                self.records.pop(d.key, None)
            return done

    fakes.FakeRepository = Records  # (the Harness builds its service over this repository)
    h = Harness()
    assert isinstance(h.repo, Records)
    players = list(range(1, 11))
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    key = chat_key(GROUP)

    def game_now() -> Any:
        return Session.from_body(h.repo.items[key].body).game()

    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)))
    for _ in range(2000):  # (bots play up to the fifth vote of the round)
        state = game_now()
        if state.round >= at_round and state.stage == "vote" and len(state.votes) == 4:
            break
        assert not state.over, "the game ended before the round the benchmark votes in"
        if not driver.step():
            assert h.idle(), "the bots are stuck"  # (what waited in the outbox went out: on with the game)
    while h.idle():
        pass
    record = dict(h.repo.records[key])
    item = h.repo.items[key]
    s = Session.from_body(item.body)
    state = s.game()
    assert state is not None and state.stage == "vote", state and state.stage
    seat = next(seat for seat in range(state.n) if seat not in state.votes)
    vote = Action(seat=seat, kind="vote", choice="approve")
    new, _ = apply_action(state, vote)
    msg, btn = h.io.with_button(GROUP, "Approve")
    update = U.press(h.user(s.players[seat].id), U.message(GROUP, msg.message_id, msg.text), btn.data)

    pressed = decode_button(h.codec, btn.data)

    def decide() -> None:
        s = Session.from_body(item.body)
        vote_press(h.service.deps, s, s.game(), seat, None, "en", msg.message_id, pressed)

    def decode() -> None:
        Session.from_body(as_item(record).body).game()

    after = Session.from_body(item.body)

    def encode() -> None:
        after.set_game(new)
        DynamoRepository.encode_item(Item(key=key, body=after.body()), item.version + 1)

    log = logging.getLogger("bench_vote_cpu")
    log.propagate = False
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(logs.JsonFormatter())
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    devnull = open(os.devnull, "w")  # noqa: SIM115 (the blobs' stdout, for the whole run)

    def observed() -> None:
        handler.stream.seek(0)
        handler.stream.truncate()
        stdout, sys.stdout = sys.stdout, devnull
        try:
            with metrics.observed("unknown", None, log) as inv:
                inv.stack = "bench"
                inv.note(update_id=123456789, update_type="button", chat_id=GROUP, game_id="g1", status=200)
                inv.chat_item_written(1400)
        finally:
            sys.stdout = stdout

    loop = asyncio.new_event_loop()

    def press() -> None:
        h.repo.records[key] = record
        h.repo.items[key] = item
        answer = loop.run_until_complete(h.service.handle_update(update))
        assert answer.status == 200

    press()  # (the answer and the vote it records: checked once)
    assert Session.from_body(h.repo.get(key).body).game().votes.get(seat) is True

    # (this tree's copy; before engine.models.copy_state, apply_action validated the state's dump back)
    copy = getattr(engine_models, "copy_state", None) or (lambda st: type(st).model_validate(st.model_dump()))
    jobs = {"env": Environment.read, "refusal": lambda: inbound.refusal(update), "decode": decode, "copy": lambda: copy(state),
            "engine": lambda: apply_action(state, vote), "view": lambda: public_view(new), "decide": decide,
            "encode": encode, "observed": observed, "press": press}
    return jobs


def serve(tree: Path, at_round: int) -> None:
    """The child: read ``piece calls`` lines, answer each with the best of 5 timings (µs per call)."""
    import timeit

    jobs = measure(tree, at_round)
    print("ready", flush=True)
    for line in sys.stdin:
        name, number = line.split()
        runs = int(number)
        best = min(timeit.repeat(jobs[name], number=runs, repeat=5)) / runs
        print(best * 1e6, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, help="another checkout to compare with (its .venv is not used)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--number", type=int, default=400, help="calls per timing (press: a twentieth)")
    ap.add_argument("--round", type=int, default=3, help="the round whose vote is measured (default 3)")
    ap.add_argument("--quick", action="store_true", help="one round of few calls (that it runs, not figures)")
    ap.add_argument("--json", type=Path, help="also write the table to this file ({piece: {tree: µs}})")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.number = 1, 40
    if args.child:
        serve(args.child, args.round)
        return 0
    trees = {"this": HERE} | ({"base": args.base.resolve()} if args.base else {})
    children = {name: subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", str(tree),
                                        "--round", str(args.round)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree)
                for name, tree in trees.items()}
    for child in children.values():
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    best: dict[str, dict[str, float]] = {name: {} for name in trees}
    for piece in PIECES:  # (the trees take turns, piece by piece: a busy moment of the machine hits both)
        number = args.number if piece != "press" else max(1, args.number // 20)
        for _ in range(args.rounds):
            for name, child in children.items():
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(f"{piece} {number}\n")
                child.stdin.flush()
                us = float(child.stdout.readline())
                best[name][piece] = min(best[name].get(piece, us), us)
    for child in children.values():
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    header = f"{'piece':10}" + "".join(f"{name + ' µs':>12}" for name in trees) + ("  this/base" if args.base else "")
    print(header)
    for name in trees:
        best[name]["critical"] = sum(best[name][piece] for piece in CRITICAL)
    for piece in (*PIECES, "critical"):
        row = f"{piece:10}" + "".join(f"{best[name][piece]:12.1f}" for name in trees)
        if args.base:
            row += f"  {best['this'][piece] / best['base'][piece]:9.2f}"
        print(row)
    if args.json:
        args.json.write_text(json.dumps({piece: {name: best[name][piece] for name in trees}
                                         for piece in (*PIECES, "critical")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
