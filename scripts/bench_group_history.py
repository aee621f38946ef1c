"""The chat's item after a long group history: what a vote writes once a group has 10,000 /nextgame
subscribers, 10,000 players in its idle record and 1,000 finished games.

    .venv/bin/python scripts/bench_group_history.py                 # 10,000 subscribers, 1,000 games
    .venv/bin/python scripts/bench_group_history.py --quick         # 1,000 subscribers, 100 games
    .venv/bin/python scripts/bench_group_history.py --json out.json

Everything goes through ``Service`` (the unit harness with phase timers: in-memory repository, recorded Bot
API, a scheduler the script fires). Each game seats 10 players never seen before (10,000 over 1,000 games):
the first Leader proposes a team, nobody votes (the vote times out: all 10 in the idle record), nobody
plays a card, and every later proposal times out until five rejections end the game (Evil wins: the game
is counted and its players rated). Then a last game opens, the subscribers send /nextgame while it runs,
and its players vote: the size reported is that of every chat item those votes write, as
``DynamoRepository`` stores it (DynamoDB's item size: attribute names and values). Target: 16 KB. The
other items a group's history fills are measured too (the subscribers', the idle record, the statistics),
and how the subscribers are told once the next lobby opens: deliveries, the most notices in one, and
that each subscriber is told exactly once.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT), str(ROOT / "scripts")]

TARGET = 16 * 1024
DYNAMO_LIMIT = 400 * 1024
SUBSCRIBER = 5_000_000_000  # the subscribers' user ids are drawn from here to twice as much (the players' below)


def stored_size(item: Any) -> int:
    from bench_webhook import item_size

    from gamebot.aws.dynamo import DynamoRepository

    return item_size(DynamoRepository.encode_item(item, item.version or 1))


class Sizes:
    """Every chat item the repository writes, with its stored size (while ``on``)."""

    def __init__(self, h: Any) -> None:
        from gamebot.storage.session import chat_key

        self.key = chat_key(h.group)
        self.on = False
        self.sizes: list[int] = []
        self.last: Any = None
        transact = h.repo.transact

        def measured(writes: Any, deletes: Any = None) -> Any:
            out = transact(writes, deletes)
            for item in out:
                if item.key == self.key and self.on:
                    self.sizes.append(stored_size(item))
                    self.last = item
            return out

        h.repo.transact = measured


def notices(outs: list[Any]) -> list[Any]:
    """The notices that a lobby opened (with their Join button; the confirmations of /nextgame have none)."""
    return [o for o in outs if o.tag == "nextgame" and o.keyboard and o.chat_id >= SUBSCRIBER]


def run(subs: int, games: int) -> dict[str, Any]:
    from gamebot.scores import stats
    from gamebot.storage import idle_record, subscribers
    from gamebot.storage.session import chat_key
    from localdev import updates as U
    from tests.unit.gamebot_fakes import GROUP
    from tests.unit.history_helpers import press_team, timed_out_game
    from tests.unit.timer_fakes import Timed

    h = Timed(seed=11)
    h.pace = 20.0  # (20 s between updates: the group's budget of messages per minute rarely holds anything)
    sizes = Sizes(h)
    started = time.perf_counter()
    for g in range(games):
        timed_out_game(h, list(range(10 * g + 1, 10 * g + 11)))
    games_s = time.perf_counter() - started
    last = list(range(10 * games + 1, 10 * games + 11))
    h.lobby(last)
    while h.idle():
        pass
    h.press_label(last[0], GROUP, "Start")
    started = time.perf_counter()
    for uid in random.Random(5).sample(range(SUBSCRIBER, 2 * SUBSCRIBER), subs):  # (while the last game runs; ids spread like Telegram's)
        h.send(U.start(h.user(uid)))
        h.command(uid, "/nextgame")
    subs_s = time.perf_counter() - started
    press_team(h)
    sizes.on = True
    for uid in last:
        h.press_label(uid, GROUP, "Approve")
    sizes.on = False
    vote = sizes.sizes
    body = sizes.last.body
    parts = {k: len(json.dumps(v, separators=(",", ":"))) for k, v in body.items()}
    shards = [h.repo.items[k] for k in subscribers.keys(GROUP) if k in h.repo.items]
    waiting = sum(len(subscribers.members(i)) for i in shards)
    records = [h.repo.items[k] for k in idle_record.keys(GROUP) if k in h.repo.items]
    idle_players = len(idle_record.stored(h.repo, GROUP)[0])
    chat_stats = h.repo.items.get(stats.chat_stats_key(GROUP))
    # the next lobby: every subscriber told once, a bounded batch per delivery
    while h.session().status == "playing":
        h.fire_next("expire")
    before = len(h.io.outs)
    notices_per_delivery: list[int] = []
    h.command(last[0], "/newgame")
    notices_per_delivery.append(len(notices(h.io.outs[before:])))
    while True:
        before = len(h.io.outs)
        if not h.idle():
            break
        notices_per_delivery.append(len(notices(h.io.outs[before:])))
    told = Counter(o.chat_id for o in notices(h.io.outs))
    h.close()
    return {
        "subscribers": subs, "games": games, "idle_players": idle_players,
        "rated_players_table": len((chat_stats.body if chat_stats else {}).get("players") or {}),
        "target_bytes": TARGET, "vote_writes": len(vote), "vote_max_bytes": max(vote), "vote_min_bytes": min(vote),
        "vote_wru": -(-max(vote) // 1024), "chat_item_parts_json": dict(sorted(parts.items(), key=lambda kv: -kv[1])),
        "has_history_fields": sorted(k for k in ("next_game", "idle_totals", "idle_names") if k in body),
        "subscriber_items": len(shards), "subscribers_waiting": waiting,
        "subscriber_item_max_bytes": max((stored_size(i) for i in shards), default=0),
        "idle_record_items": len(records), "idle_record_max_bytes": max((stored_size(i) for i in records), default=0),
        "chat_stats_bytes": stored_size(chat_stats) if chat_stats else 0,
        "chat_item_bytes_in_chat_key": stored_size(h.repo.items[chat_key(GROUP)]),
        "deliveries_to_tell": len([n for n in notices_per_delivery if n]),
        "most_notices_in_one_delivery": max(notices_per_delivery, default=0),
        "told_once": sum(1 for n in told.values() if n == 1), "told_twice_or_more": sum(1 for n in told.values() if n > 1),
        "seconds": {"games": round(games_s, 1), "subscribing": round(subs_s, 1)},
    }


def report(r: dict[str, Any]) -> str:
    lines = [
        f"A group after {r['games']} finished games ({r['idle_players']} players in its idle record, "
        f"{r['rated_players_table']} in its statistics' table) and {r['subscribers']} /nextgame subscribers:",
        f"  the chat item a vote writes: {r['vote_min_bytes']}-{r['vote_max_bytes']} bytes stored over "
        f"{r['vote_writes']} writes ({r['vote_max_bytes'] / 1024:.1f} KB at most, {r['vote_wru']} write units; "
        f"target {r['target_bytes'] // 1024} KB); history fields in it: {r['has_history_fields'] or 'none'}",
        f"  subscribers' items: {r['subscriber_items']} holding {r['subscribers_waiting']}, the largest "
        f"{r['subscriber_item_max_bytes']} bytes; idle record: {r['idle_record_items']} items, the largest "
        f"{r['idle_record_max_bytes']} bytes; group statistics "
        f"{r['chat_stats_bytes']} bytes (DynamoDB's limit: {DYNAMO_LIMIT // 1024} KB)",
        f"  next lobby: told in {r['deliveries_to_tell']} deliveries, at most {r['most_notices_in_one_delivery']} "
        f"notices in one; {r['told_once']} told once, {r['told_twice_or_more']} more than once",
        "", "The chat item a vote writes, by part (bytes of JSON before compression):",
    ]
    lines += [f"  {k:16} {v:6}" for k, v in list(r["chat_item_parts_json"].items())[:10]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--subscribers", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=1_000)
    ap.add_argument("--quick", action="store_true", help="1,000 subscribers and 100 games")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    subs, games = (1_000, 100) if args.quick else (args.subscribers, args.games)
    result = run(subs, games)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
