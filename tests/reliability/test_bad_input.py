"""Bad input: generated updates at every stage that a whole game of each set-up goes through.

The bulk goes through ``Service.handle`` with the in-memory repository and the recording Bot API
double (cheap), a smaller batch through ``lambda_handler`` with moto. Updates include unknown update
types, malformed structures, forged and stale callback data, signed callback data with nonsense
operations, buttons pressed by people outside the game or by the wrong player, huge texts and
random commands and deep links.

After every update: the answer is 200 (never a 5xx: a retry would not help), nothing crashed, every
stored item still parses, and each game's state is exactly what applying the new log entries to the
previous (checked) state gives: the state still replays from seed + log, every new action was made
by the sender's own seat (nobody acts for another), and a game only stops by its rules, /cancel from
the host, or the bot leaving the group.

The count: each set-up's game is recorded step by step and its snapshots grouped by stage (the game's
stage and first pending decision: 13 to 21 per set-up, 70 in all); at every stage ``PER_STAGE`` batches
of ``BATCH`` updates each hold every kind of update at least once (70 x 2 x 25 = 3,500 updates). The test
used to draw 10,000 updates (400 batches) at uniformly random steps: measured by replaying its examples
(generation only, nothing sent), they reached 28 of the 70 (set-up, stage) pairs (never the Lady, the
assassination, a loyalty card or a finished game) and were still finding new (set-up, stage, kind)
triples at batch 360 of 400 (250 reached); here all 630 (nine kinds) are reached, each at least
twice. ``RELIABILITY_FUZZ_PER_STAGE`` sets ``PER_STAGE``.
"""
from __future__ import annotations

import base64
import json
import logging
import os
import random
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine import Action, GameState, apply_action, replay
from gamebot.botapi.callbacks import Codec
from gamebot.storage.session import (
    CANCELLED,
    ENDED,
    LOBBY,
    PLAYING,
    Session,
    UserRecord,
    archive_key,
    chat_key,
)
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver, set_settings
from tests.unit.gamebot_fakes import GROUP, TOKEN, Harness, HarnessScreen, Msg

PER_STAGE = int(os.environ.get("RELIABILITY_FUZZ_PER_STAGE", "2"))
BATCH = 25
OTHER_GROUP = -1009000000009
OUTSIDERS = [11, 12, 4242]


# ---------------------------------------------------------------------------------------------------
# Worlds: games recorded step by step, to restore at any point
# ---------------------------------------------------------------------------------------------------


@dataclass
class Snapshot:
    items: dict[str, Any]
    msgs: dict[Any, Any]
    order: list[Any]
    next_id: int


@dataclass
class World:
    players: list[int]
    snapshots: list[Snapshot]
    buttons: list[tuple[int, int, str]]  # every button ever shown: (chat, message id, callback data)
    stages: dict[str, list[int]]  # stage (``stage_of``) -> the snapshots at it


def stage_of(snap: Snapshot) -> str:
    """Where the game of the snapshot is: the lobby, the game's stage and first pending decision, ended."""
    session = Session.from_body(snap.items[chat_key(GROUP)].body)
    state = session.game()
    if state is None:
        return session.status
    return "over" if state.over else state.stage + "".join(f"/{p.kind}" for p in state.pending[:1])


def _messages(msgs: dict[Any, Msg]) -> dict[Any, Msg]:
    """A copy of the chats: an edit changes a message's text, keyboard and history in place."""
    return {k: replace(m, history=list(m.history)) for k, m in msgs.items()}


def _snapshot(h: Harness) -> Snapshot:
    # (the repository's items are never changed in place: it stores a copy of what is written, and hands
    # out copies of what is read; a copy of the dict is a copy of the store)
    return Snapshot(dict(h.repo.items), _messages(h.io.msgs), list(h.io.order), h.io._next)


@cache
def world(setup: str) -> World:
    """A whole game of ``setup``, with a snapshot before each step (and in the lobby)."""
    theme, n, roles, options = SETUPS[setup]
    h = Harness(seed=3)
    players = list(range(1, n + 1))
    h.lobby(players)
    set_settings(h.repo, GROUP, theme, roles, options)
    snapshots = [_snapshot(h)]
    h.press_label(1, GROUP, "Start")
    driver = RobustDriver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)))
    second_looks = 3
    while not driver.over():
        if driver.step() or h.idle():  # (idle: what waits for the group's budget goes out)
            snapshots.append(_snapshot(h))
        elif second_looks and driver.look_again():  # a vote refused (someone votes in the open first)
            second_looks -= 1
        else:
            break
    assert driver.over()
    buttons = [(o.chat_id, o.message_id or 0, b.data) for o in h.io.outs for row in (o.keyboard or []) for b in row
               if b.data]
    h.close()
    stages: dict[str, list[int]] = {}
    for i, snap in enumerate(snapshots):
        stages.setdefault(stage_of(snap), []).append(i)
    return World(players, snapshots, sorted(set(buttons)), stages)


def restore(h: Harness, snap: Snapshot) -> None:
    h.repo.items = dict(snap.items)
    h.io.msgs = _messages(snap.msgs)
    h.io.order = list(snap.order)
    h.io._next = snap.next_id
    h.io.outs.clear()
    h.io.answers.clear()


# ---------------------------------------------------------------------------------------------------
# Generated updates
# ---------------------------------------------------------------------------------------------------

CODEC = Codec(TOKEN)
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=8,
)
UPDATE_KEYS = ["message", "edited_message", "channel_post", "callback_query", "my_chat_member", "chat_member",
               "inline_query", "poll", "poll_answer", "message_reaction", "chat_join_request", "business_message",
               "pre_checkout_query", "unknown_" + "x" * 20]
COMMANDS = ["/start", "/newgame", "/newgame resistance", "/status", "/rules", "/help", "/cancel", "/leave",
            "/start j", "/start r", "/start jzz_zz", "/start " + "j" * 80, "/unknown", "/newgame@OtherBot", "/"]


def _user(uid: int, rng: random.Random) -> dict[str, Any]:
    u = U.user(uid)
    if rng.random() < 0.1:
        u["first_name"] = rng.choice(["<b>", "&amp;", "x" * 300, "", "\u202e\u0000", "💥" * 50])
    if rng.random() < 0.1:
        u.pop("language_code", None)
    return u


def _chat(rng: random.Random, uid: int) -> dict[str, Any]:
    return rng.choice([U.group(GROUP), U.group(OTHER_GROUP, "Other"), U.private(U.user(uid)),
                       {"id": -1001234, "type": "channel", "title": "A channel"}])


def _forged(data: str, rng: random.Random) -> str:
    parts = data.split(":")
    choice = rng.randrange(5)
    if choice == 0:  # someone edits a field and keeps the old signature
        i = rng.randrange(len(parts) - 1)
        parts[i] = rng.choice(["t0", "c", "x9", "zz", "0", "-1", parts[i] + "0", ""])
        return ":".join(parts)
    if choice == 1:
        return data[:-6] + "".join(rng.choice("abcdefABCDEF0123456789-_") for _ in range(6))
    if choice == 2:
        return data + ":" + data
    if choice == 3:
        return "".join(rng.choice("LSTVP:-0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(0, 70)))
    return data.replace(":", "", 1)


def _signed_nonsense(data: str, rng: random.Random) -> str:
    """Data with a valid signature but an operation, serial, game or chat no button has: only a bug or a
    stolen key would produce it; the handlers must still validate every field."""
    scope, chat, game, serial, op, _ = data.split(":")
    scope = rng.choice([scope, *"LSTVP"])
    chat_id = rng.choice([int(chat, 36), GROUP, OTHER_GROUP, 1, 0])
    serial_n = rng.choice([int(serial, 36), int(serial, 36) + 1, 0, 10**9])
    op = rng.choice([op, op[:2], op + "9", "t99", "t-1", "q7", "x50", "c", "p", "j", "g", "s", "l", "d", "a", "th",
                     "r999", "m999", "p999", "vo", "voa", "vor", "zzzz", ""])
    game = rng.choice([game, "abcdef", ""])
    try:
        return CODEC.encode(scope, chat_id, game, serial_n, op)
    except ValueError:
        return data


def current_buttons(h: Harness) -> list[tuple[int, int, str]]:
    """The buttons on screen now (what players can press without any trickery)."""
    return [(chat, mid, b.data) for (chat, mid), m in h.io.msgs.items() for row in m.keyboard or [] for b in row
            if b.data]


def make_update(kind: str, rng: random.Random, w: World, junk: list[Any] | None = None,
                current: list[tuple[int, int, str]] | None = None) -> dict[str, Any]:
    uid = rng.choice(w.players + OUTSIDERS)
    if kind == "current" and current:  # a button on screen: its owner, another player, or an outsider
        chat_id, message_id, data = rng.choice(current)
        if chat_id > 0 and rng.random() < 0.5:
            uid = chat_id
        return U.press(_user(uid, rng), U.message(chat_id, message_id, "x"), data)
    user = _user(uid, rng)
    if kind == "junk":
        key = rng.choice(UPDATE_KEYS)
        return {"update_id": U.next_update_id(), key: junk.pop() if junk else _junk(rng)}
    if kind == "command":
        text = rng.choice(COMMANDS)
        if rng.random() < 0.3:
            text += " " + rng.choice(["x" * rng.randint(1, 20000), "<b>" * 100, "\u0000\uffff", "🃏" * 3000])
        return U.command(_chat(rng, uid), user, text)
    if kind == "text":
        return U.text(_chat(rng, uid), user, "x" * rng.choice([0, 1, 4096, 50000]))
    if kind == "member":
        who = rng.choice([GROUP, OTHER_GROUP, uid])
        status = rng.choice(["member", "administrator", "left", "kicked", "restricted", "creator"])
        old = rng.choice(["member", "left", "kicked"])
        chat = U.chat(who) if who != uid else U.private(user)
        return U._my_chat_member(chat, user, old, status) if status in ("member", "administrator", "left", "kicked") \
            else {"update_id": U.next_update_id(), "my_chat_member": {"chat": chat, "from": user, "date": 0,
                                                                      "old_chat_member": {"status": old},
                                                                      "new_chat_member": {"status": status}}}
    chat_id, message_id, data = rng.choice(w.buttons)
    if kind == "forged":
        data = _forged(data, rng)
    elif kind == "nonsense":
        data = _signed_nonsense(data, rng)
    elif kind == "huge":
        data = data * rng.randint(2, 200)
    msg = U.message(chat_id if rng.random() < 0.9 else rng.choice([GROUP, uid, 77]), message_id or 1, "x")
    update = U.press(user, msg, data)
    if rng.random() < 0.05:
        update["callback_query"]["message"] = {"chat": {"id": "nope"}}  # malformed message under a button
    elif rng.random() < 0.05:
        update["callback_query"].pop("message")
    return update


def _junk(rng: random.Random) -> Any:
    pick = rng.randrange(6)
    if pick == 0:
        return None
    if pick == 1:
        return {"text": "/newgame", "chat": {"id": GROUP}}  # no message_id, no date, no type
    if pick == 2:
        return {"id": "x", "from": {"id": "nope"}, "data": 5}
    if pick == 3:
        return [1, 2, {"a": "b"}]
    if pick == 4:
        return {"message_id": 1, "date": 0, "chat": {"id": GROUP, "type": "supergroup"}, "from": {"id": 1},
                "text": "/cancel"}  # a user without is_bot/first_name
    return "x" * rng.randint(0, 5000)


KINDS = ["junk", "command", "text", "member", "stale", "current", "current", "current", "forged", "nonsense", "huge"]


# ---------------------------------------------------------------------------------------------------
# The invariants
# ---------------------------------------------------------------------------------------------------


def _sender(update: dict[str, Any]) -> int | None:
    for key in ("callback_query", "message", "my_chat_member"):
        part = update.get(key)
        if isinstance(part, dict):
            who = part.get("from")
            if isinstance(who, dict) and isinstance(who.get("id"), int):
                return who["id"]
    return None


def _command(update: dict[str, Any]) -> str:
    msg = update.get("message")
    return str(msg.get("text") or "") if isinstance(msg, dict) else ""


class Checker:
    """Checks each stored item after an update against the items before it (each item once: an item the
    update left as it was, checked already, is not checked again)."""

    def __init__(self, items: dict[str, Any]) -> None:
        self.items = dict(items)  # repositories replace stored items on write, never change them in place
        self.verified: set[str] = set()  # keys whose item in ``self.items`` has been checked
        self.states: dict[str, GameState] = {}
        for key, item in items.items():
            if key.startswith("chat#"):
                s = Session.from_body(item.body)
                if s.state:
                    self.states[key] = s.game()

    def after(self, update: dict[str, Any], items: dict[str, Any]) -> None:
        sender = _sender(update)
        for key, item in items.items():
            if item is self.items.get(key) and key in self.verified:
                continue  # the same item, checked already: nothing changed it (an item is replaced on write)
            self.verified.add(key)
            if key.startswith("user#"):
                UserRecord.model_validate(item.body)
            elif key.startswith("game#"):  # a finished game's archive: it still replays from seed + log
                archived = GameState.from_json(item.body["state"])
                assert replay(archived.config, archived.seed, archived.log).to_json() == archived.to_json()
            elif key.startswith("chat#"):
                s = Session.from_body(item.body)
                old_item = self.items.get(key)
                old = Session.from_body(old_item.body) if old_item else None
                assert len(s.players) <= 10 and len({p.id for p in s.players}) == len(s.players)
                assert len(s.seen) <= 100
                state = s.game()
                if state is None and old is not None and old.state and old.game_id:  # the game was archived
                    archive = items.get(archive_key(s.chat_id, old.game_id))
                    assert archive is not None, "a finished game is archived in the same write"
                    state = GameState.from_json(archive.body["state"])
                self._check_status(update, sender, old, s, state)
                self._check_state(key, sender, old, s, state)
            elif key.startswith("update#"):  # a command answered (so that a redelivery is not)
                assert item.body == {} and item.expires_at, item
            elif key.startswith("refused#"):  # a player's refused presses: update id -> 1 (uow.refusals_key)
                assert item.expires_at and all(v == 1 and k.isdigit() for k, v in item.body.items()), item.body
            else:
                assert key.startswith("stats#") and isinstance(item.body, dict), key
        self.items = dict(items)

    def _check_status(self, update: dict[str, Any], sender: int | None, old: Session | None, s: Session,
                      state: GameState | None) -> None:
        if old is None or old.status != PLAYING or s.game_id != old.game_id or s.status == PLAYING:
            return
        if s.status == CANCELLED:  # only /cancel by the host, or the bot removed from the group
            removed = isinstance(update.get("my_chat_member"), dict)
            assert removed or (_command(update).startswith("/cancel") and sender == old.host), update
        else:
            assert state is not None and state.over

    def _check_state(self, key: str, sender: int | None, old: Session | None, s: Session,
                     state: GameState | None) -> None:
        if state is None:
            self.states.pop(key, None)
            return
        before = self.states.get(key)
        if before is None or old is None or old.game_id != s.game_id or state.seed != before.seed:
            rebuilt = replay(state.config, state.seed, state.log)  # a new game: replays from seed + log
            assert rebuilt.to_json() == state.to_json()
        else:
            assert state.log[: len(before.log)] == before.log, "the log only grows"
            new = state.log[len(before.log):]
            assert len(new) <= 1, new
            rebuilt = before
            for entry in new:
                action = Action.decode(entry)
                seat = s.seat_of(sender) if sender is not None else None
                assert seat is not None and action.seat == seat, (entry, sender)  # nobody acts for another
                rebuilt, _ = apply_action(rebuilt, action)
            assert rebuilt.to_json() == state.to_json()
        if s.state:
            self.states[key] = state
        else:
            self.states.pop(key, None)


class Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


# ---------------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------------

SETUP_NAMES = ["base", "lancelot_rogue_sorcerer", "messengers_liars", "resistance"]


@cache
def junk_pool() -> tuple[Any, ...]:
    """Values of the ``JUNK`` strategy (hypothesis, derandomized): what the junk updates carry."""
    pool: list[Any] = []

    @settings(max_examples=300, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(JUNK)
    def collect(value: Any) -> None:
        pool.append(value)

    collect()
    return tuple(pool)


@pytest.mark.slow
@pytest.mark.parametrize("setup", SETUP_NAMES)
def test_bad_updates_at_every_stage_never_fail_the_webhook_or_break_a_game(setup):
    w = world(setup)
    assert {LOBBY, ENDED} <= set(w.stages) and len(w.stages) >= 10, w.stages  # (from the lobby to the end)
    harness = Harness()
    errors = Errors()
    logging.getLogger("gamebot").addHandler(errors)
    sent: dict[tuple[str, str], int] = {}
    try:
        for stage, points in w.stages.items():
            for batch in range(PER_STAGE):
                rng = random.Random(f"{setup}:{stage}:{batch}")  # (str seeds: the same in every run)
                restore(harness, w.snapshots[rng.choice(points)])
                checker = Checker(harness.repo.items)
                kinds = list(KINDS) + rng.choices(KINDS, k=BATCH - len(KINDS))  # every kind, then at random
                rng.shuffle(kinds)
                junk = rng.sample(junk_pool(), 3)
                for kind in kinds:
                    update = make_update(kind, rng, w, junk, current_buttons(harness))
                    status = harness.send(update)
                    assert status == 200, (stage, batch, status, update)
                    assert not errors.records, (stage, batch, [r.getMessage() for r in errors.records])
                    checker.after(update, harness.repo.items)
                    sent[stage, kind] = sent.get((stage, kind), 0) + 1
    finally:
        logging.getLogger("gamebot").removeHandler(errors)
        harness.close()
    assert set(sent) == {(stage, kind) for stage in w.stages for kind in KINDS}
    assert min(sent.values()) >= PER_STAGE and sum(sent.values()) == len(w.stages) * PER_STAGE * BATCH


def test_bad_bodies_through_the_webhook_with_dynamodb_are_answered_200_and_change_nothing(table):
    """A few hundred malformed bodies and bad updates through ``lambda_handler`` with moto."""
    import app

    from gamebot.storage.session import chat_key

    players = [1, 2, 3, 4, 5, 6, 7]
    table.open_lobby(players)
    table.start_game(1)
    repo = app.service().repo
    chats = [chat_key(table.group), chat_key(OTHER_GROUP)]
    users = [f"user#{u}" for u in players + OUTSIDERS]

    def items(keys: list[str] = chats) -> dict[str, Any]:
        found = {k: item for k in keys if (item := repo.get(k)) is not None}
        for key in [k for k in found if k.startswith("chat#")]:  # and the archive of a game that ended
            game_id = found[key].body.get("game_id")
            archived = repo.get(archive_key(int(key[5:]), game_id)) if game_id else None
            if archived is not None:
                found[archived.key] = archived
        return found

    checker = Checker(items())
    w = World(players, [], [(chat, m["message_id"], b["data"]) for chat in [table.group, *players]
                            for m in table.messages(chat) for row in m["buttons"] for b in row if b["data"]], {})
    assert w.buttons  # (the Leader's team picker, in their private chat, at least)
    rng = random.Random(99)
    bodies: list[Any] = ["", "{", "null", "[]", "42", '"x"', '{"update_id": "x"}', '{"update_id": 1, "message": 5}',
                         "\udcff", "x" * 300_000, base64.b64encode(b"\xff\xfe").decode()]
    bodies += [json.dumps(make_update(rng.choice(KINDS), rng, w)) for _ in range(250)]
    for i, body in enumerate(bodies):
        event = U.webhook_event({"update_id": 1}, table.secret)
        event["body"] = body
        if i % 7 == 0:  # API Gateway may base64-encode the body
            event["body"] = base64.b64encode(body.encode("utf-8", "surrogatepass")).decode()
            event["isBase64Encoded"] = True
        assert app.lambda_handler(event, None)["statusCode"] == 200, body[:300]
        try:
            update = json.loads(body)
        except ValueError:
            update = {}
        checker.after(update if isinstance(update, dict) else {}, items())
    checker.after({}, items(chats + users))  # every user record still parses too
