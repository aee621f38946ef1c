"""The update service with an in-memory repository and a recording Bot API double."""
from __future__ import annotations

import random

import pytest

from gamebot.handlers import lobby
from gamebot.storage.session import Session, archive_key, chat_key, user_key
from localdev import updates as U
from localdev.autoplay import Driver, Policy
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session

OTHER = -1002000000002






def test_join_requires_a_private_chat_and_answers_with_a_deep_link(h):
    h.send(U.start(U.user(1)))
    h.send(U.command(U.group(GROUP), U.user(1), "/newgame"))
    h.press_label(2, GROUP, "Join")  # user 2 never opened the private chat
    answer = h.last_answer()
    assert answer.url and answer.url.startswith("https://t.me/AvalonTestBot?start=j")
    assert [p.id for p in session(h).players] == [1]
    payload = answer.url.split("start=")[1]
    h.send(U.start(U.user(2), payload))  # the deep link opens the chat and completes the join
    assert [p.id for p in session(h).players] == [1, 2]
    assert "You joined the game" in h.io.last(2).text
    assert "2. Carol" in h.io.chat(GROUP)[0].text  # the lobby message was edited in place


def test_one_active_game_per_group(h):
    h.lobby([1, 2, 3])
    h.send(U.command(U.group(GROUP), U.user(2), "/newgame"))
    assert "already running" in h.io.last(GROUP).text


def test_a_player_is_in_one_active_game_at_a_time(h):
    h.lobby([1, 2, 3])
    h.send(U.command(U.group(OTHER, "Other"), U.user(4), "/newgame"))
    h.press_label(2, OTHER, "Join")
    assert "already playing in another game" in h.last_answer().text
    assert 2 not in [p.id for p in session(h, OTHER).players]
    h.press_label(2, GROUP, "Leave")  # after leaving the first lobby the second one is open to them
    h.press_label(2, OTHER, "Join")
    assert 2 in [p.id for p in session(h, OTHER).players]


def test_only_the_host_starts_and_at_least_five_players(h):
    h.lobby([1, 2, 3, 4])
    h.press_label(2, GROUP, "Start")
    assert "Only the host" in h.last_answer().text
    h.press_label(1, GROUP, "Start")
    assert "5 to 10 players" in h.last_answer().text
    assert session(h).status == "lobby"


def test_invalid_settings_are_explained_with_the_engine_messages(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Characters")
    h.press_label(1, 1, "Morgana")  # Morgana without Percival is an error
    assert "Morgana must be played with Percival" in h.io.last(1).text
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    h.press_label(1, GROUP, "Start")
    assert "Morgana must be played with Percival" in h.last_answer().text
    assert session(h).status == "lobby"


def test_settings_offer_every_engine_role_of_the_theme_and_presets(h):
    import engine

    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Characters")
    labels = " ".join(b.text for row in h.io.last(1).keyboard for b in row)
    from gamebot.language.texts import name_of

    for role in engine.ROLES.values():
        if not role.filler and engine.Theme.AVALON in role.themes:
            assert name_of("rolebutton", role.id) in labels  # whole names, never cut
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Game: Avalon")  # the button says what is set now; a press switches
    assert session(h).settings.theme == "resistance"
    assert session(h).settings.roles == []
    assert "Game: The Resistance" in [b.text.removeprefix("🎭 ") for row in h.io.last(1).keyboard for b in row]


def test_start_deals_each_player_a_private_role_and_posts_the_board(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    s = session(h)
    state = s.game()
    assert s.status == "playing" and s.board_msg == h.io.chat(GROUP)[0].message_id
    for seat, uid in enumerate(players):
        card = next(m.text for m in h.io.chat(uid) if "Your secret role" in m.text)
        from gamebot.language.texts import name_of

        assert name_of("role", state.roles[seat]) in card
    leader = players[state.leader]
    # the start is one group message (the lobby turned into the board, opening with the start); the Leader
    # gets the team picker in private
    assert [m.message_id for m in h.io.chat(GROUP)] == [s.board_msg]
    board = h.io.chat(GROUP)[0].text
    assert board.startswith("🎬 <b>The game begins!</b>") and f"Leader: {s.players[state.leader].name}" in board
    assert "Propose team" in " ".join(b.text for row in h.io.last(leader).keyboard for b in row)


def test_others_pressing_the_team_picker_are_told_it_is_not_their_turn(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    state = session(h).game()
    other = players[(state.leader + 1) % 5]
    picker, button = h.io.with_button(players[state.leader], "Propose team")  # in the Leader's hands
    h.press(other, picker, button.data)  # (a forwarded or forged press)
    assert "Only the Leader" in h.last_answer().text
    h.press_label(players[state.leader], players[state.leader], "Propose team")
    assert h.last_answer().text == "Choose 2 players: none chosen yet."  # what the team still needs


def _to_vote(h: Harness, players: list[int]):
    h.lobby(players)
    h.press_label(players[0], GROUP, "Start")
    state = session(h).game()
    leader = players[state.leader]
    for name in ("Bob", "Carol"):
        h.press_label(leader, leader, name)
    h.press_label(leader, leader, "Propose team")
    return state


def test_group_sees_who_voted_but_not_how_until_everyone_has(h):
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    vote_msg = h.io.with_button(GROUP, "Approve")[0]
    h.press_label(1, GROUP, "Approve")
    assert "Voted (1/5): Bob" in vote_msg.text
    h.press_label(2, GROUP, "Reject")  # a second later: progress is coalesced (the group's budget)...
    assert "Voted (1/5): Bob" in vote_msg.text
    while h.idle():  # ...and its latest state goes out a little later, in one edit
        pass
    assert "Voted (2/5): Bob and Carol" in vote_msg.text
    assert all("Approve:" not in t and "Reject:" not in t.replace("❌ Reject", "") for t in vote_msg.history)
    for uid in (3, 4, 5):
        h.press_label(uid, GROUP, "Approve")
    # the votes, all at once, in the vote message itself (no message of their own)
    assert "Approve: Bob, Dave, Erin and Frank" in vote_msg.text and "Reject: Carol" in vote_msg.text
    assert not [m for m in h.io.chat(GROUP) if "<b>Votes</b>" in m.text and m is not vote_msg]


def test_the_team_plays_from_the_group_and_nobody_gets_a_private_quest_prompt(h):
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    quest_msg = h.io.with_button(GROUP, "Success")[0]
    assert [b.text for row in quest_msg.keyboard for b in row] == ["✅ Success", "❌ Fail"]  # the game's cards
    assert "Quest 1 sets out: Bob and Carol." in quest_msg.text
    assert quest_msg.text.endswith("Team members, play your card with the buttons below. Only I see who presses what.")
    assert not any("choose your card" in m.text or (m.keyboard and "Success" in str(m.keyboard))
                   for uid in players for m in h.io.chat(uid))


def _cost(h, press) -> tuple[int, int, bool, int]:
    """(reads, writes, whether new decision buttons were sent, notes) of one press (a note: a refused
    press, ``uow.refusals_key``; a delivery notes nothing, its ack records it)."""
    before, sent = dict(h.repo.calls), len(h.io.outs)
    press()
    new = h.io.outs[sent:]
    opened = any(o.op == "send" and o.live is not None for o in new)
    return (h.repo.calls["read"] - before["read"], h.repo.calls["write"] - before["write"], opened,
            h.repo.calls["note"] - before["note"])


def test_a_vote_or_a_card_costs_one_read_and_one_write(h):
    """One read and one write; a press that deals new decisions writes once more after delivering them
    (the ack): the last vote (its result and the quest's card buttons, one essential edit of the round
    message) and the last card (the next team picker beside the group's news: the ack records both, and
    the picker's id is kept so that its buttons are taken away when the decision ends)."""
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    costs = [_cost(h, lambda uid=uid: h.press_label(uid, GROUP, "Approve")) for uid in players]
    costs += [_cost(h, lambda uid=uid: h.press_label(uid, GROUP, "Success")) for uid in (1, 2)]
    assert [c[2] for c in costs] == [False] * 6 + [True]  # (only the picker is a new message with buttons)
    assert [c[:2] for c in costs] == [(1, 1)] * 4 + [(1, 2)] + [(1, 1)] + [(1, 2)], costs
    # no press notes anything (none is refused; a delivery writes only its ack)
    assert [c[3] for c in costs] == [0] * 7


def test_a_redelivered_update_is_applied_once(h):
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    msg, btn = h.io.with_button(GROUP, "Approve")
    update = U.press(U.user(1), U.message(GROUP, msg.message_id, msg.text), btn.data)
    assert h.send(update) == 200
    log_after_first = session(h).game().log
    sent = len(h.io.outs)
    assert h.send(update) == 200  # Telegram redelivers the same update
    assert session(h).game().log == log_after_first
    assert [o.op for o in h.io.outs[sent:]] == ["answer"]


def test_stale_and_forged_buttons_are_refused(h):
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    msg, btn = h.io.with_button(GROUP, "Approve")
    for uid in players:
        h.press(uid, msg, btn.data)
    log = session(h).game().log
    h.press(1, msg, btn.data)  # the vote is over: this button is out of date
    assert "out of date" in h.last_answer().text
    forged = btn.data[:-6] + "AAAAAA"
    h.press(1, msg, forged)
    assert "out of date" in h.last_answer().text
    assert session(h).game().log == log


def test_a_player_outside_the_game_cannot_vote(h):
    _to_vote(h, [1, 2, 3, 4, 5])
    h.press_label(9, GROUP, "Approve")
    assert "not playing" in h.last_answer().text


@pytest.mark.parametrize("n", [5, 7, 10])
def test_full_games_end_with_every_role_revealed(h, n):
    players = list(range(1, n + 1))
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(n)))
    driver.play()
    assert driver.over()
    s = session(h)
    state = archived_game(h, s)
    end = "\n".join(m.text for m in h.io.chat(GROUP) if "Game over" in m.text or "<b>Roles</b>" in m.text)
    from gamebot.language.texts import name_of

    for seat in range(n):
        assert name_of("role", state.roles[seat]) in end
    assert s.status == "ended"


def archived_game(h: Harness, s: Session):
    """The finished game from its archive item (the chat item keeps only the summary)."""
    from engine import GameState

    item = h.repo.items[archive_key(GROUP, s.last["game_id"])]
    return GameState.from_json(item.body["state"])


def test_a_finished_game_is_archived_with_a_ttl_and_its_summary_is_kept(h):
    from engine import replay

    players = [1, 2, 3, 4, 5, 6]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    game_id = session(h).game_id
    Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(4))).play()
    s = session(h)
    assert s.status == "ended" and s.state is None  # the chat item no longer carries the whole game
    item = h.repo.items[archive_key(GROUP, game_id)]
    assert item.expires_at == int(s.last["ended_at"] + 30 * 86400)  # DynamoDB's TTL deletes it later
    state = archived_game(h, s)
    assert state.over and replay(state.config, state.seed, state.log) == state  # replayable from the archive
    summary = s.last
    assert summary["game_id"] == game_id and summary["names"] == s.names()
    assert summary["view"]["winner"] == state.winner.value
    assert summary["view"]["roles"] == list(state.roles)  # the summary reveals every role: the game is over
    assert len(summary["view"]["proposals"]) == len(state.proposals)
    assert chat_key(GROUP) in h.repo.items and h.repo.items[chat_key(GROUP)].expires_at  # (a year: lifetimes)


def test_a_cancelled_game_is_archived_too(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    game_id = session(h).game_id
    h.send(U.command(U.group(GROUP), U.user(1), "/cancel"))
    s = session(h)
    assert s.status == "cancelled" and s.state is None
    assert s.last["status"] == "cancelled" and len(s.last["view"]["roles"]) == 5
    assert archive_key(GROUP, game_id) in h.repo.items


def test_cancel_needs_the_host_or_an_admin_and_reveals_roles(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    h.send(U.command(U.group(GROUP), U.user(3), "/cancel"))
    assert "Only the host or a group admin" in h.io.last(GROUP).text
    h.io.admins.add(3)
    h.send(U.command(U.group(GROUP), U.user(3), "/cancel"))
    assert session(h).status == "cancelled"
    assert any("Game cancelled" in m.text for m in h.io.chat(GROUP))
    assert any("<b>Roles</b>" in m.text for m in h.io.chat(GROUP))
    h.send(U.command(U.group(GROUP), U.user(2), "/newgame"))  # the group and its players are free again
    assert session(h).status == "lobby"


def test_leave_works_in_the_lobby_but_not_during_a_game(h):
    h.lobby([1, 2, 3, 4, 5])
    h.send(U.command(U.group(GROUP), U.user(5), "/leave"))
    assert 5 not in [p.id for p in session(h).players]
    h.press_label(5, GROUP, "Join")
    h.press_label(1, GROUP, "Start")
    h.send(U.command(U.group(GROUP), U.user(5), "/leave"))
    assert "needs every player" in h.io.last(GROUP).text
    assert 5 in [p.id for p in session(h).players]


def test_host_leaving_passes_the_lobby_on_and_the_last_one_closes_it(h):
    h.lobby([1, 2])
    h.press_label(1, GROUP, "Leave")
    assert session(h).host == 2
    h.press_label(2, GROUP, "Leave")
    assert session(h).status == "cancelled"


def test_bot_removed_from_the_group_ends_the_game_and_frees_players(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    h.send(U.bot_removed(U.group(GROUP), U.user(1)))
    assert session(h).status == "cancelled"
    assert "I was removed" in h.io.last(2).text
    h.send(U.command(U.group(OTHER, "Other"), U.user(2), "/newgame"))
    assert [p.id for p in session(h, OTHER).players] == [2]


def test_a_player_who_blocks_the_bot_is_reported_and_can_reconnect(h):
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    h.send(U.bot_blocked(U.user(2)))
    h.io.forbidden.add(2)
    notice = h.io.last(GROUP).text
    assert "blocked me" in notice and "start=r" in notice
    assert h.repo.items[user_key(2)].body["blocked"] is True
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    assert 2 in session(h).unreachable
    h.io.forbidden.discard(2)
    payload = notice.split("start=")[1].split('"')[0].split()[0]
    h.send(U.start(U.user(2), payload))
    texts = [m.text for m in h.io.chat(2)]
    assert any("Welcome back" in t for t in texts)
    assert "Your secret role" in texts[-1] and "Your quest cards now" in texts[-1]  # (played from the group)
    assert 2 not in session(h).unreachable


def test_commands_addressed_to_another_bot_are_ignored(h):
    sent = len(h.io.outs)
    h.send(U.command(U.group(GROUP), U.user(1), "/help", bot_username="SomeOtherBot"))
    assert len(h.io.outs) == sent
    h.send(U.command(U.group(GROUP), U.user(1), "/help", bot_username=U.BOT_USERNAME))
    assert "/newgame" in h.io.last(GROUP).text


def test_status_and_rules_describe_the_current_game(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    leader = session(h).players[session(h).game().leader]
    h.send(U.command(U.group(GROUP), U.user(2), "/status"))
    assert f"⏳ Waiting (team): {leader.name}" in h.io.last(GROUP).text  # the picker is in the Leader's hands
    h.send(U.command(U.group(GROUP), U.user(2), "/rules"))
    assert "Merlin" in h.io.last(GROUP).text and "Avalon in short" in h.io.last(GROUP).text
    h.send(U.command(U.private(U.user(2)), U.user(2), "/status"))
    assert any("Your secret role" in m.text for m in h.io.chat(2)[-2:])
    h.send(U.command(U.private(U.user(leader.id)), U.user(leader.id), "/status"))
    assert "Propose team" in " ".join(b.text for row in h.io.last(leader.id).keyboard for b in row)


def test_unknown_update_types_are_ignored():
    harness = Harness()
    try:
        assert harness.send({"update_id": 77, "edited_message": U.text(U.group(GROUP), U.user(1), "x")["message"]}) == 200
        assert harness.io.outs == []
    finally:
        harness.close()


def _preset_cases():
    from engine.presets import PRESETS

    return [(p.id, p.name, p.theme.value, p.min_players) for p in PRESETS.values()]


@pytest.mark.parametrize("preset_id,name,theme,n", _preset_cases(), ids=lambda x: str(x))
def test_every_preset_is_chosen_in_settings_and_plays_to_the_end(h, preset_id, name, theme, n):
    players = list(range(1, n + 1))
    h.lobby(players)
    h.press_label(1, GROUP, "Settings")
    if theme == "resistance":
        h.press_label(1, 1, "Game: Avalon")
    h.press_label(1, 1, "Presets")
    h.press_label(1, 1, name)
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    assert session(h).settings.preset == preset_id
    h.press_label(1, GROUP, "Start")
    assert session(h).status == "playing", h.last_answer().text
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(n)))
    driver.play()
    assert driver.over()


MODULE_CASES = [
    (["Plot cards"], [], 7),
    (["Plot cards"], [], 10),
    (["Excalibur"], [], 7),
    (["Trapper"], [], 7),
    (["Lady of the Lake", "Targeting"], ["Percival", "Morgana"], 8),
    ([], ["Good Rogue", "Evil Rogue"], 7),
    (["Hidden Sorcerer"], ["Good Sorcerer", "Evil Sorcerer"], 7),
    (["Messenger ranks"], ["Good Messenger", "Evil Messenger"], 8),
]


@pytest.mark.parametrize("options,roles,n", MODULE_CASES, ids=lambda x: str(x))
def test_big_box_modules_and_characters_are_played_through_generic_prompts(h, options, roles, n):
    players = list(range(1, n + 1))
    h.lobby(players)
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Characters")
    for role in roles:
        h.press_label(1, 1, role)
    if "Good Messenger" in roles:
        h.press_label(1, 1, "Good Messenger")  # two Good Messengers
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Options")
    for option in options:
        h.press_label(1, 1, option)
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    h.press_label(1, GROUP, "Start")
    assert session(h).status == "playing", h.last_answer().text
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(n)))
    driver.play()
    assert driver.over()


class FailingRepo:
    """A repository whose storage is unreachable."""

    calls = {"read": 0, "write": 0}

    def get(self, key):
        raise ConnectionError("storage unavailable")

    put = transact = delete = get


def test_storage_failure_before_commit_asks_telegram_to_redeliver(h):
    h.service.repo = FailingRepo()
    assert h.send(U.command(U.group(GROUP), U.user(1), "/newgame")) == 500
    assert h.io.outs == []


def test_an_error_after_the_commit_never_causes_a_redelivery(h):
    h.lobby([1, 2, 3, 4, 5])

    async def broken(outs):
        raise RuntimeError("Bot API exploded")

    h.io.run = broken
    msg, btn = h.io.with_button(GROUP, "Start")
    assert h.press(1, msg, btn.data) == 200  # committed: the game started even though sending failed
    assert session(h).status == "playing"


def test_a_bug_while_deciding_answers_the_button_and_is_not_redelivered(h, monkeypatch):
    h.lobby([1, 2, 3, 4, 5])

    def bug(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(lobby, "start_game", bug)
    assert h.press_label(1, GROUP, "Start") == 200
    assert "something went wrong" in h.last_answer().text
    assert session(h).status == "lobby"


def test_a_vote_or_card_that_does_not_finish_the_round_edits_at_most_one_group_message(h):
    """Group traffic stays low: a vote or card edits at most the vote message, at most once in the
    progress gap (2 s; votes a second apart: the first one's edit, then the latest state once the gap is
    over), nothing else in the group; the answer to the press is the webhook's reply."""
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    edits = []
    for uid in players[:4]:
        sent = len(h.io.outs)
        h.press_label(uid, GROUP, "Approve")
        # (an edit of the board sent again once no older edit can overtake it, ``Outbox.closes``, may ride along)
        group_ops = [o for o in h.io.outs[sent:] if o.chat_id == GROUP and o.tag != "repeat"]
        assert [(o.op, o.tag) for o in group_ops] in ([], [("edit", "vote")])
        edits += group_ops
        # (besides the answer, at most the Leader's closed picker sent once more: a toggle's edit let out
        # just before the proposal could have overtaken its closing edit; ``Outbox.closes``)
        assert [o.op for o in h.io.outs[sent:] if o.chat_id != GROUP and o.tag != "repeat"] == ["answer"]
    # votes a second apart, a 2-second gap: the first vote's edit, then the third's
    assert len(edits) == 2 and "Voted (1/5)" in edits[0].text and "Voted (3/5)" in edits[1].text
    h.press_label(5, GROUP, "Approve")
    while h.idle():  # time passes: the views held back by the progress gap catch up
        pass
    h.clock.now += 60  # (the group's minute is over: its budget has room for progress again)
    sent = len(h.io.outs)
    h.press_label(1, GROUP, "Success")  # Bob (seat 0) is on the team; one of two cards
    group_ops = [o for o in h.io.outs[sent:] if o.chat_id == GROUP]
    assert [(o.op, o.tag) for o in group_ops] == [("edit", "quest")]
    assert "Cards played: 1/2" in group_ops[0].text


def test_concurrent_votes_both_count_after_a_version_conflict(h):
    """Two Lambda containers apply votes at the same time: the loser reloads, reapplies and retries."""
    players = [1, 2, 3, 4, 5]
    _to_vote(h, players)
    msg, btn = h.io.with_button(GROUP, "Approve")
    mine = U.press(U.user(1), U.message(GROUP, msg.message_id, msg.text), btn.data)
    theirs = U.press(U.user(2), U.message(GROUP, msg.message_id, msg.text), btn.data)
    h.race_before_next_write(theirs)  # another container commits its vote between our read and our write
    assert h.send(mine) == 200
    state = session(h).game()
    assert sorted(state.votes) == [0, 1]
    assert {mine["update_id"], theirs["update_id"]} <= set(session(h).seen)


def test_the_settings_offer_to_designate_an_assassin_whenever_the_engine_needs_one(h):
    """Messengers without Merlin still have an Assassination stage: the host may choose who assassinates,
    among exactly the characters the engine accepts (then back to the automatic choice)."""
    from gamebot.storage.store import Item

    h.lobby(list(range(1, 8)))
    item = h.repo.items[chat_key(GROUP)]
    s = Session.from_body(item.body)
    s.settings.roles = ["good_messenger", "good_messenger", "evil_messenger"]
    h.repo.items[chat_key(GROUP)] = Item(key=item.key, body=s.body(), version=item.version)
    h.press_label(1, GROUP, "Settings")
    choices = [(None, "Minion of Mordred (by default)"), ("evil_messenger", "Evil Messenger"),
               ("minion", "Minion of Mordred")]
    seen = []
    for pick in (1, 2, 0):
        panel = h.io.last(1)
        assert "Assassinates (no Assassin card)" in panel.text
        h.press_label(1, 1, "Assassin:")  # the button says who assassinates now and opens the choice
        page = h.io.last(1)
        offered = [b.text for row in page.keyboard for b in row]
        now = session(h).settings.assassin
        assert offered == [("🔘 " if now == r else "▫️ ") + name for r, name in choices] + ["⬅️ Back"]
        button = next(b for row in page.keyboard for b in row if b.text.endswith(" " + choices[pick][1]))
        h.press(1, page, button.data)
        seen.append(session(h).settings.assassin)
    assert seen == ["evil_messenger", "minion", None]


def test_the_settings_offer_no_assassin_choice_when_the_assassin_card_plays(h):
    h.lobby(list(range(1, 6)))
    h.press_label(1, GROUP, "Settings")  # the default: Merlin and the Assassin
    labels = " ".join(b.text for row in h.io.last(1).keyboard for b in row)
    assert "Assassin:" not in labels and "Assassinates" not in h.io.last(1).text
