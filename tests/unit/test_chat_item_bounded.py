"""The chat's item stays small whatever the group's history: every vote rewrites it, DynamoDB charges a
write unit per KB and refuses items over 400 KB. The /nextgame subscribers and the idle record of all
games live in items of their own (``gamebot.storage.subscribers``, ``gamebot.storage.idle_record``); items written by
earlier versions are moved out at their first write (``recovery.move_out``)."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamebot.aws.dynamo import DynamoRepository
from gamebot.storage import idle_record, subscribers
from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from localdev import updates as U
from scripts.bench_webhook import item_size
from tests.unit.gamebot_fakes import GROUP
from tests.unit.history_helpers import press_team, timed_out_game
from tests.unit.timer_fakes import Timed

TARGET = 16 * 1024
SUB = 9_100_000_000  # subscribers' user ids (never a player's, a message id or a time)


def stored_size(item: Any) -> int:
    return item_size(DynamoRepository.encode_item(item, item.version or 1))


def watch(h: Timed) -> list[Any]:
    """Every chat item the repository writes from now on (as written)."""
    written: list[Any] = []
    transact = h.repo.transact

    def recorded(writes: Any, deletes: Any = None) -> Any:
        out = transact(writes, deletes)
        written.extend(i for i in out if i.key == chat_key(GROUP))
        return out

    h.repo.transact = recorded
    return written


def subscribe(h: Timed, ids: list[int]) -> None:
    for uid in ids:
        h.send(U.start(h.user(uid)))
        h.command(uid, "/nextgame")


def waiting(h: Timed) -> dict[int, str]:
    return {int(uid): lang for shard in subscribers.waiting(h.repo, GROUP) for uid, lang in shard.subs.items()}


def record(h: Timed) -> dict[str, int]:
    return idle_record.stored(h.repo, GROUP)[0]


def notices(h: Timed) -> Counter:
    """How often each subscriber was told that a lobby opened (the notices carry a Join button)."""
    return Counter(o.chat_id for o in h.io.outs if o.tag == "nextgame" and o.keyboard and o.chat_id >= SUB)


def votes(h: Timed, players: list[int]) -> list[Any]:
    """Everyone approves the proposed team: the chat items those votes write."""
    written = watch(h)
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    return written


def test_subscribing_writes_the_subscribers_item_once_and_never_the_chat_item():
    h = Timed()
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.press_label(1, GROUP, "Start")
        h.send(U.start(h.user(SUB)))
        keys: list[str] = []
        transact = h.repo.transact
        h.repo.transact = lambda writes, deletes=None: keys.extend(w.item.key for w in writes) or transact(
            writes, deletes)
        h.command(SUB, "/nextgame")
        assert "I will tell you here when the next game opens" in h.io.texts(SUB)[-1]
        assert chat_key(GROUP) not in keys  # (nor is it read: the answer needs only the subscriber's item)
        assert [k for k in keys if not k.startswith("update#")] == [subscribers.key_of(GROUP, SUB)]
        assert waiting(h) == {SUB: "en"}
    finally:
        h.close()


def test_a_thousand_subscribers_during_a_game_leave_what_its_votes_write_as_small_as_without_them():
    h = Timed()
    try:
        players = [1, 2, 3, 4, 5]
        h.lobby(players)
        h.press_label(1, GROUP, "Start")
        subscribe(h, [SUB + i for i in range(1000)])
        press_team(h)
        written = votes(h, players)
        assert written and max(stored_size(i) for i in written) < 4 * 1024  # (one game: a few KB)
        for item in written:
            text = json.dumps(item.body)
            assert "next_game" not in item.body and str(SUB) not in text and str(SUB + 999) not in text
        assert len(waiting(h)) == 1000
    finally:
        h.close()


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subs=st.integers(0, 300), games=st.integers(0, 3), later=st.integers(0, 40), seed=st.integers(1, 50))
def test_what_a_vote_writes_never_holds_the_groups_history(subs, games, later, seed):
    """Whatever the history (subscribers, finished games whose players all ran out of time, subscribers
    arriving during the game), the items the next game's votes write hold only that game and the last
    finished one: under 16 KB, no subscriber, no player of an earlier game; the history is all in its own
    items (every subscriber waiting once, every timeout counted once)."""
    h = Timed(seed=seed)
    try:
        subscribe(h, [SUB + i for i in range(subs)])
        expected: Counter = Counter()
        for g in range(games):
            players = [100 * (g + 1) + i for i in range(5)]
            timed_out_game(h, players)
            expected.update(h.session().idle)
        current = [1, 2, 3, 4, 5]
        h.lobby(current)
        while h.idle():
            pass
        h.press_label(1, GROUP, "Start")
        subscribe(h, [SUB + 1000 + i for i in range(later)])
        press_team(h)
        written = votes(h, current)
        assert written and all(stored_size(i) < TARGET for i in written)
        last = set((written[-1].body.get("last") or {}).get("user_ids") or [])
        earlier = {100 * (g + 1) + i for g in range(games) for i in range(5)} - last
        for item in written:
            s = Session.from_body(item.body)
            assert not s.next_game and not s.idle_totals and not s.idle_names
            text = json.dumps(item.body)
            assert not any(f"{SUB + i}" in text for i in range(subs)) and f'"{SUB + 1000}' not in text
            assert not any(f"id={uid}" in text or f'"{uid}"' in text for uid in earlier)
        assert record(h) == {uid: n for uid, n in expected.items()}
        assert sorted(waiting(h)) == [SUB + 1000 + i for i in range(later)]  # (the others were told once)
        assert set(notices(h).values()) <= {1} and len(notices(h)) == subs
    finally:
        h.close()


def test_the_subscribers_are_told_a_bounded_batch_per_delivery_each_once():
    h = Timed()
    try:
        subscribe(h, [SUB + i for i in range(70)])
        h.command(1, "/newgame")  # the update that opens the lobby tells a first batch beside its messages
        assert len(notices(h)) == 20
        box = h.session().outbox
        assert [e.op for e in box.effects if e.tag == "nextgame"] == ["nextgame"]  # one entry for all of them
        h.send(U.start(h.user(2)))
        h.press_label(2, GROUP, "Join")  # each update of the chat tells another batch
        assert len(notices(h)) == 40
        while h.idle():  # the chat's alarm delivers the rest
            pass
        assert set(notices(h).values()) == {1} and len(notices(h)) == 70 and waiting(h) == {}
        assert not [e for e in h.session().outbox.effects if e.tag == "nextgame"]
        assert "A new game is open" in h.io.last(SUB).text
    finally:
        h.close()


def test_a_notice_that_fails_is_tried_again_and_nobody_is_told_twice():
    h = Timed()
    try:
        subscribe(h, [SUB + i for i in range(30)])
        failing = {SUB + 3, SUB + 17}
        apply = h.io.apply

        def flaky(out: Any) -> Any:
            from gamebot.botapi.telegram_io import Result

            if out.tag == "nextgame" and out.keyboard and out.chat_id in failing:
                failing.discard(out.chat_id)  # (once each)
                h.io.outs.append(out)
                return Result(out, False, error="network")
            return apply(out)

        h.io.apply = flaky
        h.command(1, "/newgame")
        while h.idle():
            pass
        told = Counter(o.chat_id for o in h.io.outs if o.tag == "nextgame" and o.keyboard)
        assert told[SUB + 3] == told[SUB + 17] == 2  # (the failed try, then the notice)
        assert all(n == 1 for uid, n in told.items() if uid not in (SUB + 3, SUB + 17)) and len(told) == 30
        assert waiting(h) == {}
    finally:
        h.close()


def test_once_the_lobby_starts_whoever_was_not_told_waits_for_the_next_one():
    h = Timed()
    try:
        subscribe(h, [SUB + i for i in range(150)])
        players = [1, 2, 3, 4, 5]
        h.lobby(players)  # (20 told by /newgame and by each Join: 100 before the start)
        told = set(notices(h))
        h.press_label(1, GROUP, "Start")
        while h.idle():
            pass
        assert set(notices(h)) == told and len(told) < 150
        assert sorted(waiting(h)) == sorted(set(range(SUB, SUB + 150)) - told)
        h.command(1, "/cancel")
        h.command(2, "/newgame")
        while h.idle():
            pass
        assert set(notices(h).values()) == {1} and len(notices(h)) == 150 and waiting(h) == {}
    finally:
        h.close()


def test_a_subscriber_who_joined_before_being_told_is_not_told():
    h = Timed()
    try:
        subscribe(h, [SUB + i for i in range(25)])
        h.send(U.start(h.user(SUB + 24)))
        h.command(SUB + 24, "/newgame")  # the host subscribed too
        h.press_label(SUB + 23, GROUP, "Join")  # (the first batch told SUB .. SUB + 19: one a shard)
        while h.idle():
            pass
        told = notices(h)
        assert SUB + 23 not in told and SUB + 24 not in told and len(told) == 23 and waiting(h) == {}
    finally:
        h.close()


def old_item(h: Timed, subs: int, idlers: int) -> dict[str, Any]:
    """The chat's item as an earlier version kept it: the /nextgame subscribers and the idle record of all
    games in the session (its totals counting this game's timeouts as they happened)."""
    body = dict(h.repo.items[chat_key(GROUP)].body)
    langs = ("", "fr", "de", "ru")
    body["next_game"] = [{"id": SUB + i, "name": f"Subscriber {i}", "lang": langs[i % 4]} for i in range(subs)]
    totals = {str(8_000_000 + i): 1 + i % 7 for i in range(idlers)}
    for uid, n in (body.get("idle") or {}).items():
        totals[uid] = totals.get(uid, 0) + n
    body["idle_totals"] = totals
    body["idle_names"] = {uid: f"Idler {uid}" for uid in totals}
    h.repo.items[chat_key(GROUP)].body = body
    return body


def test_an_old_item_with_5000_subscribers_and_5000_idle_records_moves_them_out_at_its_first_write():
    h = Timed()
    try:
        players = [1, 2, 3, 4, 5]
        h.lobby(players)
        h.press_label(1, GROUP, "Start")
        h.fire_next("expire")  # the Leader ran out of time: this game's record, and the old totals, count it
        leader = next(iter(h.session().idle))
        old = old_item(h, 5000, 5000)
        assert stored_size(h.repo.items[chat_key(GROUP)]) > 48 * 1024  # (what every vote used to rewrite)
        h.command(2, "/idles")  # (a read: the old item as it is)
        assert "Idler 8000006 ×7" in h.io.last(GROUP).text
        written = watch(h)
        press_team(h)  # the first write: everything moves out with it
        first = h.repo.items[chat_key(GROUP)]
        assert not {"next_game", "idle_totals", "idle_names"} & set(first.body)
        assert max(stored_size(i) for i in written) < TARGET
        assert waiting(h) == {p["id"]: p["lang"] for p in old["next_game"]}  # nobody lost, languages kept
        expected = {uid: n for uid, n in old["idle_totals"].items() if uid != leader}
        if old["idle_totals"][leader] > h.session().idle[leader]:  # (this game's are counted once it ends)
            expected[leader] = old["idle_totals"][leader] - h.session().idle[leader]
        assert record(h) == expected
        assert idle_record.stored(h.repo, GROUP)[1]["8000006"] == "Idler 8000006"
        for uid in players:
            h.press_label(uid, GROUP, "Approve")
        assert max(stored_size(i) for i in written) < TARGET
        h.command(1, "/cancel")  # the game is over: its timeouts join the record, once
        assert record(h) == old["idle_totals"]
        h.command(2, "/idles")
        assert "Idler 8000006 ×7" in h.io.last(GROUP).text
        h.command(1, "/newgame")
        while h.idle():
            pass
        told = notices(h)
        assert len(told) == 5000 and set(told.values()) == {1} and waiting(h) == {}
        french = next(o for o in h.io.outs if o.chat_id == SUB + 1 and o.keyboard)
        assert "Une nouvelle partie est ouverte" in french.text
        assert record(h) == old["idle_totals"]
    finally:
        h.close()


def test_the_move_is_one_transaction_with_the_chat_item_and_merges_what_the_new_items_hold():
    h = Timed()
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.send(U.start(h.user(SUB + 7)))
        h.command(SUB + 7, "/nextgame")  # (the lobby is open: refused)
        h.command(1, "/cancel")
        subscribe(h, [SUB + 7, SUB + 40])  # subscribed the new way, in French for one of them
        h.repo.items[subscribers.key_of(GROUP, SUB + 40)].body["subs"][str(SUB + 40)] = "fr"
        key = idle_record.key_of(GROUP, 8000001)
        h.repo.put(Item(key=key, body={"totals": {"8000001": 4}, "names": {"8000001": "Idler"}}), None)
        old = old_item(h, 60, 3)
        calls: list[list[str]] = []
        transact = h.repo.transact
        h.repo.transact = lambda writes, deletes=None: calls.append([w.item.key for w in writes]) or transact(
            writes, deletes)
        h.command(2, "/newgame")
        move = calls[0]  # the first write: the move, with the chat's item, before the lobby is decided on
        assert move[0] == chat_key(GROUP) and set(move[1:]) == (
            {subscribers.key_of(GROUP, p["id"]) for p in old["next_game"]}
            | {idle_record.key_of(GROUP, uid) for uid in old["idle_totals"]})
        assert set(waiting(h)) | set(notices(h)) == {p["id"] for p in old["next_game"]} | {SUB + 40}
        assert waiting(h).get(SUB + 40, "fr") == "fr"
        assert record(h) == {"8000000": 1, "8000001": 4 + 2, "8000002": 3}
    finally:
        h.close()


def test_a_group_that_becomes_a_supergroup_takes_its_subscribers_and_idle_record_along():
    h = Timed()
    try:
        players = [1, 2, 3, 4, 5]
        timed_out_game(h, players)
        expected = record(h)
        h.lobby(players)
        h.press_label(1, GROUP, "Start")
        subscribe(h, [SUB + i for i in range(30)])
        new = -1002000000002
        h.send({"update_id": U.next_update_id(), "message": {
            **U.message(GROUP, 900, None, from_user=U.user(1)), "migrate_to_chat_id": new}})
        assert Session.from_body(h.repo.items[chat_key(new)].body).status == "playing"
        assert subscribers.waiting(h.repo, GROUP) == [] and idle_record.stored(h.repo, GROUP)[0] == {}
        assert {int(u) for s in subscribers.waiting(h.repo, new) for u in s.subs} == set(range(SUB, SUB + 30))
        assert idle_record.stored(h.repo, new)[0] == expected and expected
    finally:
        h.close()


def test_the_chats_alarm_delivers_the_next_batches():
    h = Timed()
    try:
        subscribe(h, [SUB + i for i in range(350)])
        h.command(1, "/newgame")
        assert len(notices(h)) == 20
        wake = min(t.at for t in h.sched.pending())
        assert wake <= h.clock.now + 2  # (a moment later: EventBridge Scheduler fires within its minute)
        for told in (320, 350):
            while len(notices(h)) < told:
                h.fire_next()
            assert len(notices(h)) == told
        assert set(notices(h).values()) == {1} and waiting(h) == {}
    finally:
        h.close()
