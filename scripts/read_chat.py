#!/usr/bin/env python3
"""Print one chat's items from the game table, decoded, as JSON: what the bot keeps about a group.

For the chat id given it reads ``chat#<id>`` (the group's session), ``next#<id>#0..19`` (the /nextgame
subscribers), ``idle#<id>#0..15`` (the idle record) and ``stats#chat#<id>``; with ``--game ID`` the finished
game's archive ``game#<chat>#<game>``; with ``--user ID`` (repeatable) the player's ``user#``, ``stats#user#``
and their refused presses in this chat ``refused#<chat>#<user>``. Bodies over 1 KB are stored compressed
(``gamebot.storage.packing``): they are decoded as the bot decodes them (``DynamoRepository.decode_item``).

Each item found is printed with its version, its expiry (``expires_at``, epoch seconds, and as an ISO date;
``expired``: DynamoDB's TTL has not deleted it yet, the bot treats it as absent), its stored size and a summary:
for the session its status, game id, players, the game's phase (stage, quest, Leader, results, team),
time limit, alarm and outbox entries; for the others their counts and scalar fields. ``--full`` adds each
whole body (the engine state parsed: every secret role in it, mind who reads over your shoulder).
Absent keys are listed under ``absent``. Nothing is written.

Run it on an operator's machine with boto3 and credentials from the AWS profile (dynamodb:GetItem and
dynamodb:BatchGetItem on the table; cloudformation:DescribeStacks for ``--stack``)::

    scripts/read_chat.py --stack avalon-bot -1001234567890
    scripts/read_chat.py --stack avalon-bot -1001234567890 --game 3fa9c1 --user 42 --full
    scripts/read_chat.py --table avalon-bot-GameTable-1X2Y3Z --region eu-west-3 -1001234567890

``--stack`` reads the table's name from the stack's output ``GameTableName``. ``AWS_ENDPOINT_URL`` (or
``AWS_ENDPOINT_URL_DYNAMODB``) points it at another endpoint: moto, DynamoDB Local, the playground.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # (run from anywhere, or loaded by a test)

import game_table  # noqa: E402

from gamebot.aws.dynamo import NOTE_PREFIX, NOTED, DynamoRepository, stored_size  # noqa: E402
from gamebot.outbox.uow import refusals_key  # noqa: E402
from gamebot.scores.stats import chat_stats_key, user_stats_key  # noqa: E402
from gamebot.storage import idle_record, lifetimes, subscribers  # noqa: E402
from gamebot.storage.session import Session, archive_key, chat_key, user_key  # noqa: E402

JSON = dict[str, Any]
BATCH = 100  # keys a BatchGetItem reads


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Print one chat's items from the game table, decoded.")
    game_table.add_arguments(parser)
    parser.add_argument("chat", type=int, help="the chat id (a group's is negative: -100...)")
    parser.add_argument("--game", help="a game id: its archive game#<chat>#<game> too")
    parser.add_argument("--user", type=int, action="append", default=[],
                        help="a user id: their user#, stats#user# and refused#<chat>#<user> too (repeatable)")
    parser.add_argument("--full", action="store_true", help="print each whole body too")
    return parser.parse_args(argv)


def keys_of(chat: int, game: str | None, users: list[int]) -> list[str]:
    keys = [chat_key(chat), *subscribers.keys(chat), *idle_record.keys(chat), chat_stats_key(chat)]
    if game:
        keys.append(archive_key(chat, game))
    for user in users:
        keys += [user_key(user), user_stats_key(user), refusals_key(chat, user)]
    return keys


def read(client: Any, table: str, keys: list[str]) -> dict[str, JSON]:
    """The stored records of ``keys`` (consistent reads), by key: BatchGetItem, again for what it left."""
    found: dict[str, JSON] = {}
    for start in range(0, len(keys), BATCH):
        request: JSON = {table: {"Keys": [{"pk": {"S": k}} for k in keys[start:start + BATCH]], "ConsistentRead": True}}
        for attempt in range(8):
            answer = client.batch_get_item(RequestItems=request)
            for record in answer.get("Responses", {}).get(table, []):
                found[record["pk"]["S"]] = record
            request = answer.get("UnprocessedKeys") or {}
            if not request:
                break
            time.sleep(0.05 * 2 ** attempt)
    return found


def iso(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds") if epoch is not None else None


def counted(value: Any) -> Any:
    """A scalar as it is; a list or a mapping by its size."""
    if isinstance(value, dict):
        return f"{len(value)} entries"
    if isinstance(value, list):
        return f"{len(value)} items"
    return value


def fields(body: JSON) -> JSON:
    return {k: counted(v) for k, v in body.items()}


def session_summary(body: JSON) -> JSON:
    s = Session.from_body(body)
    out: JSON = {
        "title": s.title, "status": s.status, "game_id": s.game_id, "lang": s.lang, "host": s.host,
        "players": [{"id": p.id, "name": p.name, **({"bot": True} if p.bot else {})} for p in s.players],
        "settings": {"theme": s.settings.theme, "roles": s.settings.roles, "options": s.settings.options},
        "messages": {"lobby": s.lobby_msg, "board": s.board_msg, "vote": s.vote_msg, "pinned": s.pinned},
        "updates_seen": len(s.seen), "last_update": max(s.seen) if s.seen else None,
        "practice": s.practice,
    }
    state = s.game() if s.state else None
    if state is not None:
        leader = s.players[state.leader].name if state.leader < len(s.players) else None
        out["phase"] = {"stage": state.stage, "quest": state.quest, "leader": state.leader, "leader_name": leader,
                        "results": state.results, "vote_track": state.vote_track, "team": state.team,
                        "proposals": len(state.proposals), "log": len(state.log), "winner": state.winner}
    if s.deadline is not None:
        out["time_limit"] = {**s.deadline.model_dump(), "due_iso": iso(s.deadline.due)}
    if s.alarm is not None:
        out["alarm"] = {**s.alarm.model_dump(), "at_iso": iso(s.alarm.at)}
    box = s.outbox
    out["outbox"] = {
        "entries": [{"seq": e.seq, "op": e.op, "chat": e.chat, "tag": e.tag, "attempts": e.attempts,
                     **({"not_before": iso(e.not_before)} if e.not_before else {})} for e in box.effects],
        "lease": box.lease.model_dump() if box.lease else None, "next_seq": box.next_seq,
        "held_back_views": box.dirty, "repeats": len(box.repeats),
    }
    if s.last:
        out["last_game"] = {"game_id": s.last.get("game_id"), "status": s.last.get("status"),
                            "ended": iso(s.last.get("ended_at")), "names": s.last.get("names")}
    if s.idle:
        out["timeouts_this_game"] = s.idle
    return out


def summary(key: str, body: JSON) -> JSON:
    kind = lifetimes.kind_of(key).prefix
    if kind == "chat#":
        return session_summary(body)
    if kind == "game#":
        return {"game_id": body.get("game_id"), "title": body.get("title"), "status": body.get("status"),
                "ended": iso(body.get("ended_at")),
                "players": [{"id": p.get("id"), "name": p.get("name")} for p in body.get("players") or []]}
    return fields(body)


def full_body(body: JSON) -> JSON:
    if isinstance(body.get("state"), str):  # the engine state: JSON in the item, parsed to read
        return {**body, "state": json.loads(body["state"])}
    return body


def describe(record: JSON, now: float, full: bool) -> JSON:
    key = record["pk"]["S"]
    item = DynamoRepository.decode_item(record)
    out: JSON = {"expires_at": item.expires_at, "expires": iso(item.expires_at),
                 "expired": item.expires_at is not None and item.expires_at <= now, "stored_bytes": stored_size(record)}
    try:
        kind = lifetimes.kind_of(key)
    except lifetimes.UnknownKind:
        return {"version": item.version, **out, "body": item.body}
    if kind.notes:  # a notes item, no body nor version: one attribute per note (update id -> 1)
        notes = {k[len(NOTE_PREFIX):]: int(v["N"]) for k, v in record.items() if k.startswith(NOTE_PREFIX)}
        return {**out, "kind": kind.what, "notes": lifetimes.oldest_first(list(notes)),
                "noted": int(record[NOTED]["N"]) if NOTED in record else None}
    out = {"version": item.version, **out, "compressed": "B" in record.get("body", {}), "kind": kind.what}
    try:
        out["summary"] = summary(key, item.body)
    except Exception as exc:  # noqa: BLE001 - a damaged item is shown as it is
        out["summary_error"] = f"{type(exc).__name__}: {exc}"
    if full:
        out["body"] = full_body(item.body)
    return out


def report(client: Any, table: str, chat: int, game: str | None = None, users: list[int] | None = None,
           full: bool = False, now: float | None = None) -> JSON:
    """What ``main`` prints: the chat's items found, decoded, and the keys absent."""
    now = time.time() if now is None else now
    keys = keys_of(chat, game, users or [])
    found = read(client, table, keys)
    return {"table": table, "chat": chat, "read_at": iso(now),
            "items": {k: describe(found[k], now, full) for k in keys if k in found},
            "absent": collapsed([k for k in keys if k not in found])}


def collapsed(keys: list[str]) -> list[str]:
    """Keys, a run of shards of one family as one: ``next#-5#{0..19}``, ``idle#-5#{2,7}``."""
    out: list[str] = []
    shards: dict[str, list[str]] = {}
    for key in keys:
        family, _, k = key.rpartition("#")
        if key.startswith(("next#", "idle#")) and k.isdigit():
            if family not in shards:
                out.append(family)
            shards.setdefault(family, []).append(k)
        else:
            out.append(key)
    for family, ks in shards.items():
        every = ks == [str(i) for i in range(len(ks))] and len(ks) > 2
        at = out.index(family)
        out[at] = f"{family}#{{0..{len(ks) - 1}}}" if every else f"{family}#{{{','.join(ks)}}}"
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    client, table = game_table.opened(args)
    out = report(client, table, args.chat, args.game, args.user, args.full)
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
