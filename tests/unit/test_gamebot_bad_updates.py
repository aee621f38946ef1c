"""Malformed updates are refused at the edge (nothing stored, nothing sent, no traceback), and a stored chat
item that does not load leaves its group a way out (a clear answer, and /cancel always works)."""
from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from gamebot.language import texts
from gamebot.storage.session import chat_key, user_key
from gamebot.storage.store import Item
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness, session

PLAYERS = [1, 2, 3, 4, 5]
OTHER = -1002000000002


class Records(logging.Handler):
    """Every record of the bot's loggers."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def loud(self) -> list[str]:
        """Errors, and anything logged with a traceback."""
        return [r.getMessage() for r in self.records if r.levelno >= logging.ERROR or r.exc_info]




@pytest.fixture
def logs():
    handler = Records()
    logging.getLogger("gamebot").addHandler(handler)
    yield handler
    logging.getLogger("gamebot").removeHandler(handler)




def stored(h: Harness) -> dict[str, tuple[int, str, int | None]]:
    """Every stored item, serialised: compared before and after, byte for byte."""
    return {k: (v.version, json.dumps(v.body, sort_keys=True), v.expires_at) for k, v in h.repo.items.items()}


def vote_open(h: Harness) -> dict[str, Any]:
    """A game of five whose first team vote is open; returns a valid Approve press by player 1."""
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    leader = PLAYERS[session(h).game().leader]
    for name in ("Bob", "Carol"):
        h.press_label(leader, leader, name)
    h.press_label(leader, leader, "Propose team")
    msg, btn = h.io.with_button(GROUP, "Approve")
    return U.press(U.user(1), U.message(GROUP, msg.message_id, msg.text), btn.data)


def command(uid: int, text: str, chat: int = GROUP) -> dict[str, Any]:
    return U.command(U.group(chat) if chat < 0 else U.private(U.user(uid)), U.user(uid), text)


def moves(h: Harness) -> int:
    return len(session(h).game().log)


def refused_quietly(h: Harness, logs: Records, update: dict[str, Any]) -> None:
    before, outs, answers = stored(h), len(h.io.outs), len(h.io.answers)
    assert h.send(update) == 200
    assert stored(h) == before, update
    assert h.io.outs[outs:] == [] and h.io.answers[answers:] == [], update
    assert logs.loud() == []


# ---------------------------------------------------------------------------------------------------
# Refused at the edge
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad_id", [1.5, "abc", [7], "12", True, None, -1, 2**64, {"id": 3}])
def test_a_vote_whose_update_id_is_not_an_integer_is_ignored_and_the_game_goes_on(h, logs, bad_id):
    vote = vote_open(h)
    played = moves(h)
    vote["update_id"] = bad_id
    refused_quietly(h, logs, vote)
    vote["update_id"] = U.next_update_id()  # the same press from Telegram counts
    assert h.send(vote) == 200
    assert moves(h) == played + 1
    sent = len(h.io.outs)
    h.send(command(1, "/status"))
    assert any(o.chat_id == GROUP and "Vote" in (o.text or "") for o in h.io.outs[sent:])
    assert logs.loud() == []


def test_update_ids_an_older_version_stored_do_not_make_the_group_unreadable(h, logs):
    vote = vote_open(h)
    played = moves(h)
    item = h.repo.items[chat_key(GROUP)]
    item.body["seen"] = [*item.body["seen"], 1.5, "abc", [7]]  # what the older version wrote
    user = h.repo.items[user_key(1)]
    user.body["seen"] = [*user.body["seen"], 2.5, "x"]
    assert h.send(vote) == 200
    assert moves(h) == played + 1
    assert all(type(i) is int for i in h.repo.items[chat_key(GROUP)].body["seen"])
    assert h.send(U.start(U.user(1))) == 200
    assert all(type(i) is int for i in h.repo.items[user_key(1)].body["seen"])
    assert logs.loud() == []


def nested(depth: int, leaf: Any = None, key: str | None = None) -> Any:
    """``depth`` levels of arrays (or of objects under ``key``), built without recursion."""
    value = leaf
    for _ in range(depth):
        value = {key: value} if key else [value]
    return value


@pytest.mark.parametrize("depth", [40, 2000, 5000])
def test_deeply_nested_updates_are_ignored(h, logs, depth):
    vote = vote_open(h)
    deep_reply = command(1, "/cancel")
    deep_reply["message"]["reply_to_message"] = nested(depth, U.message(GROUP, 5, "x"), key="reply_to_message")
    deep_entities = command(1, "/cancel")
    deep_entities["message"]["entities"] = nested(depth)
    vote["callback_query"]["message"]["reply_markup"] = nested(depth, key="inline_keyboard")
    for update in (deep_reply, deep_entities, vote):
        refused_quietly(h, logs, update)
    assert session(h).status == "playing"


@pytest.mark.parametrize("query_id", ["", None, 5, ["cbq1"], "x" * 300, "missing"])
def test_a_button_press_without_a_usable_query_id_gets_no_answer_and_no_message(h, logs, query_id):
    vote = vote_open(h)
    if query_id == "missing":
        del vote["callback_query"]["id"]
    else:
        vote["callback_query"]["id"] = query_id
    refused_quietly(h, logs, vote)
    vote["callback_query"]["data"] = "garbage"  # not even a stale button is answered in the group
    refused_quietly(h, logs, vote)


Q, M = "callback_query", "message"
WRONG_FIELDS = [
    ("cancel", (M, "text"), 5), ("cancel", (M, "text"), ["/cancel"]), ("cancel", (M, "text"), {"t": "/cancel"}),
    ("cancel", (M, "text"), "/cancel " + "x" * 10_000),
    ("vote", (Q, "data"), 5), ("vote", (Q, "data"), ["V"]), ("vote", (Q, "data"), {"a": 1}),
    ("vote", (Q, "data"), "é"), ("vote", (Q, "data"), "V:" + "a" * 70), ("vote", (Q, "data"), ""),
    ("vote", (Q, "from", "id"), "1"), ("cancel", (M, "from", "id"), 1.0), ("vote", (Q, "from", "is_bot"), 0),
    ("cancel", (M, "from", "first_name"), 7), ("vote", (Q, "from", "language_code"), ["fr"]),
    ("cancel", (M, "chat", "id"), str(GROUP)), ("vote", (Q, M, "chat", "id"), 2**70),
    ("cancel", (M, "chat", "type"), 3), ("cancel", (M, "chat", "title"), {"x": 1}),
    ("vote", (Q, M, "message_id"), "12"), ("vote", (Q, M, "date"), "today"), ("cancel", (M, "date"), 10**30),
    ("vote", (Q, "from"), "Bob"), ("cancel", (M, "chat"), [GROUP]), ("vote", (Q, M), 5),
]


@pytest.mark.parametrize("which,path,value", WRONG_FIELDS)
def test_fields_of_the_wrong_type_are_refused_quietly(h, logs, which, path, value):
    updates = {"vote": vote_open(h), "cancel": command(1, "/cancel")}  # each would change the game
    update = updates[which]
    target = update
    for name in path[:-1]:
        target = target[name]
    target[path[-1]] = value
    refused_quietly(h, logs, update)
    assert session(h).status == "playing"


def test_two_kinds_of_update_in_one_are_refused(h, logs):
    vote = vote_open(h)
    vote["edited_message"] = command(2, "/status", chat=OTHER)["message"]
    refused_quietly(h, logs, vote)


# ---------------------------------------------------------------------------------------------------
# A stored chat item that does not load
# ---------------------------------------------------------------------------------------------------


def damage(h: Harness, **fields: Any) -> None:
    item = h.repo.items[chat_key(GROUP)]
    h.repo.items[item.key] = Item(key=item.key, body={**item.body, **fields}, version=item.version)


def test_a_damaged_game_answers_clearly_and_changes_nothing(h, logs):
    vote = vote_open(h)
    damage(h, players=[{"id": 1, "name": "Bob"}, {"id": "two"}])
    before = stored(h)
    notice = texts.t("damaged.notice", "en")
    sent = len(h.io.outs)
    assert h.send(command(2, "/status")) == 200
    assert [(o.op, o.chat_id, o.text) for o in h.io.outs[sent:]] == [("send", GROUP, notice)]
    sent = len(h.io.outs)
    assert h.send(vote) == 200
    assert [(o.op, o.text, o.alert) for o in h.io.outs[sent:]] == [("answer", notice, True)]
    assert h.send(command(2, "/newgame")) == 200
    assert h.io.outs[-1].text == notice
    assert stored(h) == before
    assert logs.loud() == []


def test_the_host_cancels_a_damaged_game_and_the_group_plays_again(h, logs):
    vote_open(h)
    game_id = session(h).game_id
    damage(h, players=[{"id": 1, "name": "Bob"}, {"id": "two"}, {"id": 3, "name": "Dave"}], vote_msg="x")
    sent = len(h.io.outs)
    assert h.send(command(3, "/cancel")) == 200  # neither the host nor an admin
    assert "Only the host or a group admin" in h.io.outs[-1].text
    assert h.repo.items[chat_key(GROUP)].body["players"][1] == {"id": "two"}  # untouched
    assert h.send(command(1, "/cancel")) == 200
    s = session(h)
    assert (s.status, s.state, s.host, s.game_id) == ("cancelled", None, 1, game_id)
    assert [p.id for p in s.players] == [1, 3]  # what could be read
    group = [o.text for o in h.io.outs[sent:] if o.chat_id == GROUP]
    assert group[-1] == texts.t("damaged.cancelled", "en", name="Bob")
    assert h.send(command(2, "/newgame")) == 200  # the group and its players are free again
    assert session(h).status == "lobby" and session(h).host == 2
    h.press_label(1, GROUP, "Join")
    assert [p.id for p in session(h).players] == [2, 1]
    assert logs.loud() == []


@pytest.mark.parametrize("fields", [
    {"state": "{not a game"},
    {"state": json.dumps({"config": "from another version"})},
    {"chat_id": "x", "host": [1], "players": 5, "status": 7, "seen": "no", "settings": 3, "deadline": 1},
])
def test_a_group_admin_can_always_cancel_a_game_that_does_not_load(h, logs, fields):
    vote_open(h)
    damage(h, **fields)
    h.send(command(2, "/status"))
    assert h.io.outs[-1].text == texts.t("damaged.notice", "en")
    h.io.admins.add(4)
    assert h.send(command(4, "/cancel")) == 200
    assert session(h).status == "cancelled" and session(h).chat_id == GROUP
    assert "could not be read any more" in h.io.outs[-1].text
    assert h.send(command(4, "/cancel")) == 200  # and now there is nothing left to cancel
    assert h.io.outs[-1].text == texts.t("cancel.nothing", "en")
    assert logs.loud() == []


def test_a_damaged_game_elsewhere_does_not_keep_a_player_from_joining_here(h, logs):
    vote_open(h)
    damage(h, players="broken")
    h.send(command(6, "/newgame", chat=OTHER))
    h.send(U.start(U.user(2)))
    h.press_label(2, OTHER, "Join")  # user 2's record still points at the damaged game
    assert 2 in [p.id for p in session(h, OTHER).players]
    assert logs.loud() == []


def test_a_user_record_that_does_not_load_is_salvaged_when_read(h, logs):
    h.send(U.start(U.user(1)))
    item = h.repo.items[user_key(1)]
    h.repo.items[item.key] = Item(key=item.key, body={**item.body, "chat": "nowhere", "lang": 5}, version=item.version)
    sent = len(h.io.outs)
    assert h.send(U.start(U.user(1))) == 200
    assert [(o.chat_id, o.text) for o in h.io.outs[sent:]] == [(1, texts.t("start.welcome", "en", name="Bob"))]
    assert h.send(command(1, "/newgame")) == 200
    assert [p.id for p in session(h).players] == [1]
    assert logs.loud() == []


def test_cancel_closes_a_game_whose_state_loads_but_cannot_be_played(h, logs):
    """A state this version reads but cannot use (here a Leader seat that does not exist): the usual
    /cancel fails (and says so in the log), then closes what can be read all the same."""
    vote_open(h)
    state = json.loads(h.repo.items[chat_key(GROUP)].body["state"])
    damage(h, state=json.dumps({**state, "roles": state["roles"][:2], "sides": state["sides"][:2]}))
    assert h.send(command(1, "/cancel")) == 200
    assert session(h).status == "cancelled"
    assert h.io.outs[-1].text == texts.t("damaged.cancelled", "en", name="Bob")
    assert [line for line in logs.loud() if "/cancel failed" in line]


def test_an_update_is_refused_exactly_past_its_depth_and_its_number_of_values():
    from gamebot.botapi import inbound

    def nested(levels: int) -> dict[str, Any]:  # an object, then ``levels`` arrays, then a number
        inner: Any = 1
        for _ in range(levels):
            inner = [inner, {}]
        return {"update_id": 1, "x": inner}

    inbound._check_size(nested(inbound.MAX_DEPTH - 2))  # (MAX_DEPTH levels of values in all)
    for levels in (inbound.MAX_DEPTH - 1, inbound.MAX_DEPTH + 40):
        with pytest.raises(inbound.Refused, match="nested deeper"):
            inbound._check_size(nested(levels))
    inbound._check_size({"x": list(range(inbound.MAX_NODES - 2))})  # (the object, the array, its values)
    with pytest.raises(inbound.Refused, match="too many values"):
        inbound._check_size({"x": list(range(inbound.MAX_NODES - 1))})
