"""End to end: games played only through ``lambda_handler`` (API Gateway events with the secret
header), the fake Bot API server and DynamoDB (moto), read back from what each chat received."""
from __future__ import annotations

import json
import random
import re

import app
import pytest

from engine import ROLES
from gamebot.language.texts import name_of
from localdev import updates as U
from localdev.autoplay import Driver, Policy

BASE_ROLE_NAMES = [name_of("role", r) for r in ("merlin", "percival", "morgana", "mordred", "oberon", "assassin")]
FILLER_NAMES = [name_of("role", "servant"), name_of("role", "minion")]


def _role_card(table, uid: int) -> str:
    return next(m["text"] for m in table.messages(uid) if "Your secret role" in m["text"])


def _final_roles(table) -> dict[str, str]:
    """Name -> role as revealed in the group at the end."""
    roles = {}
    for m in table.messages(table.group):
        for line in m["text"].split("\n"):
            if line[:2] in ("😇 ", "😈 ") and ": <b>" in line:
                name, _, rest = line[2:].partition(": <b>")
                roles[name] = rest.split("</b>")[0]
    return roles


def _group_texts_during_play(table) -> list[str]:
    """Group texts after the start and before the game-end phase (assassination or game over)."""
    out = []
    started = False
    for call in table.fake.calls:
        if call.method not in ("sendMessage", "editMessageText") or call.params.get("chat_id") != table.group:
            continue
        text = call.params.get("text", "")
        if "The game begins" in text:
            started = True
        if "one last chance" in text or "Game over" in text:
            break
        if started and "New game of" not in text:
            out.append(text)
    return out


GAMES = [
    (5, [], []),
    (7, ["Percival", "Morgana"], ["Lady"]),
    (10, ["Percival", "Morgana", "Mordred", "Oberon"], ["Lady", "Targeting"]),
]


@pytest.mark.parametrize("n,roles,options", GAMES, ids=[f"{g[0]}p" for g in GAMES])
def test_full_game_through_the_webhook(table, n, roles, options):
    players = list(range(1, n + 1))
    table.open_lobby(players, roles=roles, options=options)
    assert table.start_game(1) == 200
    driver = Driver(table, table.group, players, Policy(rng=random.Random(n)))
    driver.play()
    assert driver.over()
    assert set(table.statuses) == {200}
    revealed = _final_roles(table)
    assert len(revealed) == n
    for uid in players:
        name = U.user(uid)["first_name"]
        card = _role_card(table, uid)
        told = re.search(r"You are <b>(?:an? |the )?(.+?)</b>", card)  # "the Assassin": with its article
        assert told and told.group(1) == revealed[name]  # each player was told exactly their role
        for role in roles:
            assert role in revealed.values()
    # quest prompts went only to team members: every card prompt a player got was answered
    for uid in players:
        for m in table.messages(uid):
            if "choose your card" in m["text"]:
                assert "You played" in m["text"] and not m["buttons"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nothing_secret_reaches_the_group_before_the_end(table, seed):
    """10 players with every base character: no role, side or knowledge in the group while playing."""
    players = list(range(1, 11))
    table.open_lobby(players, roles=["Percival", "Morgana", "Mordred", "Oberon"], options=["Lady"])
    table.start_game(1)
    driver = Driver(table, table.group, players, Policy(rng=random.Random(seed), fail_rate=0.3))
    driver.play()
    assert driver.over()
    during = _group_texts_during_play(table)
    assert during, "the group saw the game"
    for text in during:
        for word in BASE_ROLE_NAMES + FILLER_NAMES + ["Evil (", "Good (", "Merlin or Morgana"]:
            assert word not in text, (word, text)
    # and each private chat got only its owner's secrets: a card naming someone else's role is a leak
    revealed = _final_roles(table)
    for uid in players:
        own = revealed[U.user(uid)["first_name"]]
        for m in table.messages(uid):
            if "Your secret role" in m["text"]:
                others = [r for r in BASE_ROLE_NAMES if r != own and f"You are <b>{r}</b>" in m["text"]]
                assert others == []


def test_wrong_or_missing_secret_is_refused_with_401(table):
    table.fake.add_group(table.group)
    update = U.command(U.group(table.group), U.user(1), "/newgame")
    assert table.post(update, secret="wrong") == 401
    assert table.post(update, secret=None) == 401
    assert table.fake.calls == []
    assert table.post(update) == 200
    assert any("New game of" in t for t in table.fake.texts(table.group))


def test_redelivered_updates_are_applied_once(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    start = table.messages(table.group)[0]
    data = next(b["data"] for row in start["buttons"] for b in row if b["text"].endswith("Start"))
    update = U.press(U.user(1), table.fake.message(table.group, start["message_id"]), data)
    assert table.post(update) == 200
    roles_dealt = len([t for uid in players for t in table.fake.texts(uid) if "Your secret role" in t])
    assert table.post(update) == 200  # Telegram redelivers: nothing is dealt twice
    assert len([t for uid in players for t in table.fake.texts(uid) if "Your secret role" in t]) == roles_dealt
    # a vote delivered twice counts once
    uid = table.leader()  # the team picker is in the Leader's private chat
    for name in ("Bob", "Carol"):
        table.press_label(uid, uid, name)
    table.press_label(uid, uid, "Propose team")
    table.press_label(1, table.group, "Approve")
    again = table.last_update
    table.post(again)
    vote = next(m for m in table.messages(table.group) if any("Approve" in b["text"] for r in m["buttons"] for b in r))
    assert "Voted (1/5)" in vote["text"]


def _sends(table) -> int:
    return len(table.fake.calls_to("sendMessage")) + len(table.fake.calls_to("sendPhoto"))


def _group_buttons(table) -> set[str]:
    return {b["data"] for m in table.messages(table.group) for row in m["buttons"] for b in row if b["data"]}


def test_each_vote_and_card_costs_at_most_one_read_and_one_write(table, monkeypatch):
    players = [1, 2, 3, 4, 5, 6, 7]
    table.open_lobby(players)
    table.start_game(1)
    repo = app.service().repo
    measured = []
    counted = []  # the calls of the statistics' effect, per press
    original = table.press
    stats_calls = {"read": 0, "write": 0}
    get_many, transact = repo.get_many, repo.transact

    def stats_get_many(keys):
        stats_calls["read"] += any(k.startswith("stats#") for k in keys)
        return get_many(keys)

    def stats_transact(writes, deletes=None):
        stats_calls["write"] += any(w.item.key.startswith("stats#") for w in writes)
        return transact(writes, deletes)

    monkeypatch.setattr(repo, "get_many", stats_get_many)
    monkeypatch.setattr(repo, "transact", stats_transact)

    def press(user_id, chat_id, message_id, data):
        before, ahead, stats_before = dict(repo.calls), dict(repo.read_ahead), dict(stats_calls)
        sent, buttons = _sends(table), _group_buttons(table)
        status = original(user_id, chat_id, message_id, data)
        if data.startswith(("T:", "V:", "Q:", "P:")):
            # the group's session was read while the update was parsed, and that read was the one used
            assert (repo.read_ahead["started"] - ahead["started"], repo.read_ahead["used"] - ahead["used"]) == (1, 1)
        if data.startswith(("V:", "Q:", "P:")):
            # new messages were sent, or the round message's buttons changed (the vote's became the quest's
            # cards, or they went): an essential step, whose delivery the outbox records
            opened = _sends(table) > sent or _group_buttons(table) != buttons
            reads, writes = stats_calls["read"] - stats_before["read"], stats_calls["write"] - stats_before["write"]
            counted.append((reads, writes))
            measured.append((repo.calls["read"] - before["read"] - reads,
                             repo.calls["write"] - before["write"] - writes, opened))
        return status

    table.press = press
    driver = Driver(table, table.group, players, Policy(rng=random.Random(11)))
    driver.play()
    assert driver.over()
    assert len(measured) > 20
    # Steady play: one read and one write (the answer to the press is the webhook's reply; progress is
    # never stored). A press whose step sends new messages or changes the round message's buttons (the
    # vote's result with the quest's cards after the last vote, the result and the next team picker after
    # the last card) writes once more, after sending them: the outbox records what was delivered, with
    # the new messages' ids. The press that ends the game is such a step too: one read, one write (the
    # chat item and the archive in one transaction) and the ack. Its statistics are counted after the
    # commit, by the outbox's "stats" effect delivered beside the messages: one batched read of the
    # statistics items and one transaction writing them (no player's statistics can make the move retry).
    *steady, final = measured
    assert all(reads <= 1 and writes <= 1 for reads, writes, opened in steady if not opened), measured
    assert all(reads <= 1 and writes <= 2 for reads, writes, opened in steady if opened), measured
    assert sum(1 for *_, opened in steady if not opened) > 20
    assert final == (1, 2, True), measured
    assert counted[-1] == (1, 1) and all(c == (0, 0) for c in counted[:-1]), counted


def test_join_without_private_chat_gets_a_deep_link_then_joins_on_start(table):
    table.fake.add_group(table.group)
    table.start_private(1)
    table.command(1, "/newgame")
    table.press_label(2, table.group, "Join")
    answer = table.fake.calls_to("answerCallbackQuery")[-1]
    assert answer["url"].startswith(f"https://t.me/{U.BOT_USERNAME}?start=j")
    payload = answer["url"].split("start=")[1]
    table.fake.start_private(U.user(2))
    table.post(U.start(U.user(2), payload))
    assert "2. Carol" in table.messages(table.group)[0]["text"]
    assert any("You joined the game" in t for t in table.fake.texts(2))


def test_blocked_player_is_told_how_to_fix_it_in_the_group(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    table.fake.block(U.user(3))
    table.post(U.bot_blocked(U.user(3)))
    notice = table.fake.texts(table.group)[-1]
    assert "blocked me" in notice and f"t.me/{U.BOT_USERNAME}?start=r" in notice
    table.fake.start_private(U.user(3))
    payload = notice.split("start=")[1].split()[0].split('"')[0]
    table.post(U.start(U.user(3), payload))
    assert any("Welcome back" in t for t in table.fake.texts(3))


def test_bot_removed_from_the_group_ends_the_game(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    table.fake.kick(table.group)
    assert table.post(U.bot_removed(U.group(table.group), U.user(1), kicked=True)) == 200
    for uid in players:
        assert "I was removed from the group" in table.fake.texts(uid)[-1]
    table.fake.add_group(-1005555555555, "New group")
    table.command(2, "/newgame", chat=-1005555555555)
    assert "Host: Carol" in table.fake.texts(-1005555555555)[0]


def test_progress_edits_are_dropped_under_flood_control_but_results_arrive(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.start_game(1)
    uid = table.leader()  # the team picker is in the Leader's private chat
    for name in ("Bob", "Carol"):
        table.press_label(uid, uid, name)
    table.press_label(uid, uid, "Propose team")
    fault = table.fake.inject("editMessageText", status=429, retry_after=30, times=4, chat_id=table.group)
    for p in players[:4]:
        assert table.press_label(p, table.group, "Approve") == 200
    assert fault.hits == 4  # four progress edits were refused and dropped, nothing waited 30 s
    table.press_label(5, table.group, "Approve")
    assert any("<b>Votes</b>" in t for t in table.fake.texts(table.group))


def test_help_lists_the_commands(table):
    table.fake.add_group(table.group)
    table.command(1, "/help")
    text = table.fake.texts(table.group)[-1]
    for cmd in ("/newgame", "/status", "/rules", "/help", "/cancel", "/leave", "/start"):
        assert cmd in text


def test_malformed_body_is_acknowledged_without_processing(table):
    event = U.webhook_event({"update_id": 1}, table.secret)
    event["body"] = "not json"
    assert app.lambda_handler(event, None)["statusCode"] == 200
    event["body"] = json.dumps({"hello": 1})
    assert app.lambda_handler(event, None)["statusCode"] == 200
    assert table.fake.calls_to("sendMessage") == []


def test_all_engine_roles_can_be_offered_in_settings(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    table.press_label(1, table.group, "Settings")
    table.press_label(1, 1, "Characters")
    labels = " ".join(b["text"] for row in table.messages(1)[-1]["buttons"] for b in row)
    for role in ROLES.values():
        if not role.filler and "avalon" in {t.value for t in role.themes}:
            assert name_of("rolebutton", role.id) in labels  # whole names: no label is cut
