"""Phase timers through ``Service.handle`` and ``Timers.fire`` with a FakeScheduler and a fake clock.

Each chat has one pending timer, its alarm (``gamebot.timing.alarm``), at the next moment something is due.
Timers are fired by hand in time order (``fire_next``), like EventBridge Scheduler would; the clock
moves one second per update (the harness's pace) and when a timer fires, so nothing here depends on
real time.
"""
from __future__ import annotations

import random

import pytest

from engine import Action, GameConfig, new_game, prompts
from gamebot.core.service import Reply, Service
from gamebot.handlers.play import apply_move
from gamebot.storage.session import Session, chat_key, serial
from gamebot.timing.policy import DEFAULT_LIMITS, EXTEND_SECONDS, MAX_EXTENSIONS
from gamebot.timing.scheduler import Timer
from localdev import updates as U
from tests.e2e.driver import Driver, Policy
from tests.unit.gamebot_fakes import GROUP, T0, Clock, Harness, HarnessScreen
from tests.unit.timer_fakes import Timed

NAME_CHARS = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_.")


@pytest.fixture
def h():
    harness = Timed()
    yield harness
    harness.close()


def started(h: Timed, players: list[int]) -> Session:
    h.lobby(players)
    h.press_label(players[0], GROUP, "Start")
    return h.session()


def propose(h: Timed, players: list[int]) -> None:
    """The Leader builds and proposes a team through the picker."""
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()


# --- the join phase ----------------------------------------------------------------------------------


def test_a_lobby_sets_the_chat_alarm_at_the_join_reminder_then_at_the_expiry(h):
    h.lobby([1, 2, 3])
    opened = T0 + 4  # (one second per update: three players open the private chat, then /newgame)
    due = int(opened) + DEFAULT_LIMITS["join"]
    s = h.session()
    assert s.deadline.due == due
    # the joins' lobby edits wait for the group's budget: the alarm first wakes the chat to show them
    assert h.alarm().at < due - 60 and s.outbox.dirty == ["lobby"]
    assert h.fire_next()[1] == "flushed" and not h.session().outbox.dirty
    remind = h.alarm()
    assert remind.at == due - 60
    assert remind.payload == {"chat": GROUP, "game": s.game_id, "kind": "wake", "due": due - 60, "name": remind.name}
    assert len(remind.name) <= 64 and set(remind.name) <= NAME_CHARS
    h.sched.pop_next()
    assert h.fire(remind) == "reminded"
    expire = h.alarm()
    assert expire.at == due and expire.name != remind.name
    assert h.sched.calls[-1] == ("schedule", expire.name)  # (the alarm that fired deleted itself)


def test_the_join_reminder_invites_more_players_and_extend(h):
    h.lobby([1, 2, 3])
    _, outcome = h.fire_next("remind")
    assert outcome == "reminded"
    assert "The lobby closes in <b>1 min</b>: 3 players so far" in h.io.last(GROUP).text


def test_join_expiry_starts_with_the_reachable_players_when_five_to_ten(h):
    h.lobby([1, 2, 3, 4, 5, 6])
    h.send(U.bot_blocked(6))  # Grace blocked the bot after joining
    _, outcome = h.fire_next("expire")
    assert outcome == "expired"
    s = h.session()
    assert s.status == "playing" and [p.id for p in s.players] == [1, 2, 3, 4, 5] and s.game().n == 5
    notice = next(t for t in h.group_texts() if "Time to join is up" in t)
    assert "starts with the 5 players" in notice and "Grace" in notice
    assert any("Your secret role" in m.text for m in h.io.chat(5))
    assert not any("Your secret role" in m.text for m in h.io.chat(6))
    assert h.session().deadline.phase in ("propose", "plot_cards")  # the first decision has its own timer


def test_join_expiry_closes_a_lobby_with_too_few_players(h):
    h.lobby([1, 2, 3])
    h.fire_next("expire")
    s = h.session()
    assert s.status == "cancelled" and s.deadline is None
    assert "only 3 players can play (5 are needed)" in h.io.chat(GROUP)[0].text  # the lobby message, edited
    assert h.io.chat(GROUP)[0].keyboard is None
    h.command(2, "/newgame")  # the group is free for a new lobby
    assert h.session().status == "lobby"


def test_join_expiry_with_settings_that_cannot_be_played_closes_with_the_reasons(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Characters")
    h.press_label(1, 1, "Morgana")  # Morgana without Percival
    h.fire_next("expire")
    assert h.session().status == "cancelled"
    assert "Morgana must be played with Percival" in h.io.chat(GROUP)[0].text


def test_extend_pushes_the_join_deadline_a_limited_number_of_times(h):
    h.lobby([1, 2, 3])
    first_due = h.session().deadline.due
    h.command(9, "/extend")
    assert "Only players in the lobby" in h.io.last(GROUP).text
    for used in range(1, MAX_EXTENSIONS + 1):
        h.command(2, "/extend")
        assert f"({used} of {MAX_EXTENSIONS} extensions used)" in h.io.last(GROUP).text
        assert h.session().deadline.due == first_due + used * EXTEND_SECONDS
        assert h.alarm().at <= h.session().deadline.remind_at  # the alarm moved with it: one timer
    h.command(3, "/extend")
    assert f"already extended {MAX_EXTENSIONS} times" in h.io.last(GROUP).text
    h.settle()
    assert h.fire(h.old_alarm(first_due)) == "stale"  # the old deadline no longer applies
    assert h.session().status == "lobby"
    outcomes = []
    while h.sched.pending():
        outcomes.append(h.fire_next()[1])
    assert [o for o in outcomes if o != "flushed"] == ["reminded", "expired"] and h.session().status == "cancelled"


def test_forcestart_is_for_the_host_and_needs_five_reachable_players(h):
    h.lobby([1, 2, 3, 4])
    h.command(2, "/forcestart")
    assert "Only the host" in h.io.last(GROUP).text
    h.command(1, "/forcestart")
    assert "5 to 10 players" in h.io.last(GROUP).text and h.session().status == "lobby"
    for uid in (5, 6):
        h.send(U.start(U.user(uid)))
        h.press_label(uid, GROUP, "Join")
    h.send(U.bot_blocked(6))
    h.command(1, "/forcestart")
    s = h.session()
    assert s.status == "playing" and len(s.players) == 5 and 6 not in [p.id for p in s.players]
    assert any("The host starts the game now with the 5 players" in t for t in h.group_texts())


def test_group_commands_are_refused_in_private(h):
    h.send(U.command(U.private(U.user(1)), U.user(1), "/extend"))
    assert "This works in a group" in h.io.last(1).text


# --- the game --------------------------------------------------------------------------------------------


def play_with_an_absent_player(h: Timed, players: list[int], absent: int, seed: int) -> Driver:
    """Everyone but ``absent`` plays through the buttons; when the table waits, the next timer fires."""
    driver = Driver(HarnessScreen(h), GROUP, [p for p in players if p != absent], Policy(rng=random.Random(seed)))
    for _ in range(400):
        driver.play()
        if driver.over():
            break
        h.fire_next()
    return driver


@pytest.mark.parametrize("seed,absent", [(1, 1), (2, 3), (3, 5), (4, 2)])
def test_a_game_where_one_player_never_acts_still_finishes(seed, absent):
    h = Timed(seed=seed)
    try:
        players = [1, 2, 3, 4, 5]
        started(h, players)
        driver = play_with_an_absent_player(h, players, absent, seed)
        assert driver.over()
        s = h.session()
        assert s.status == "ended"
        missed = s.idle.get(str(absent), 0)
        assert missed > 0 and h.record()[str(absent)] == missed
        assert set(s.idle) == {str(absent)}  # nobody else ever ran out of time
        name = U.user(absent)["first_name"]
        assert sum(t.count(f"⏰ {name} ran out of time.") for t in h.group_texts()) >= 1
        h.command(2, "/idles")
        assert f"This game: {name} ×{missed}" in h.io.last(GROUP).text
    finally:
        h.close()


def test_a_leader_who_never_proposes_passes_the_lead_as_a_rejected_team(h):
    players = [1, 2, 3, 4, 5]
    s = started(h, players)
    leader = s.players[s.game().leader].id
    assert s.deadline.phase == "propose"
    _, outcome = h.fire_next("expire")
    assert outcome == "expired"
    state = h.session().game()
    assert state.vote_track == 1 and state.leader == (s.game().leader + 1) % 5
    assert "No team was proposed in time: it counts as a rejected team (1/5)" in "\n".join(h.group_texts())
    assert h.session().idle == {str(leader): 1}
    # the new Leader has a picker and a fresh deadline
    assert h.session().deadline.phase == "propose" and h.session().deadline.serial == serial(state)


def test_the_reminder_names_who_is_missing_and_is_sent_once(h):
    players = [1, 2, 3, 4, 5]
    started(h, players)
    h.sched.timers.clear()
    propose(h, players)
    for uid in (1, 2, 3):
        h.press_label(uid, GROUP, "Approve")
    assert h.session().deadline.phase == "vote"
    remind, _ = h.fire_next("remind")
    assert remind.at == h.session().deadline.remind_at
    text = h.io.last(GROUP).text
    assert "waiting for" in text and "Erin" in text and "Frank" in text and "Bob" not in text
    assert "the vote counts as Approve" in text
    assert any("⏰" in m.text for m in h.io.chat(4)) and not any("⏰" in m.text for m in h.io.chat(1))
    sent = len(h.io.outs)
    assert h.fire(remind) == "stale"  # a redelivered reminder is not sent twice
    assert len(h.io.outs) == sent


def test_a_stale_timer_does_nothing(h):
    players = [1, 2, 3, 4, 5]
    s = started(h, players)
    propose_alarm, propose_due = h.alarm(), s.deadline.due
    propose(h, players)  # in time
    assert propose_alarm not in h.sched.pending()  # replaced by the vote's alarm, and deleted
    assert propose_due > h.session().deadline.remind_at
    h.settle()  # (what waited for the group's budget has gone out)
    before = h.repo.items[chat_key(GROUP)].version
    assert h.fire(h.old_alarm(int(h.clock.now) + 1, propose_alarm.name)) == "stale"  # had it fired anyway
    assert h.repo.items[chat_key(GROUP)].version == before and h.session().idle == {}


def _to_vote(h: Timed, players: list[int]) -> Timer:
    """Up to the vote; a timer firing when the vote's time is up."""
    started(h, players)
    propose(h, players)
    assert h.session().deadline.phase == "vote"
    return h.old_alarm(h.session().deadline.due, "gb-the-vote-expiry")


def test_a_late_vote_racing_the_timer_counts_and_only_the_others_time_out(h):
    expire = _to_vote(h, [1, 2, 3, 4, 5])
    for uid in (1, 2):
        h.press_label(uid, GROUP, "Reject")
    msg, btn = h.io.with_button(GROUP, "Approve")
    h.race_before_next_write(U.press(U.user(3), U.message(GROUP, msg.message_id, msg.text), btn.data))
    assert h.fire(expire) == "expired"  # conflict, reload, the same decision: time out who is still missing
    s = h.session()
    votes = s.game().proposals[-1].votes
    assert votes[2] == "A"  # Dave's late press counts as he cast it
    assert s.idle == {"4": 1, "5": 1}


def test_a_human_action_that_ends_the_decision_first_makes_the_timer_stale(h):
    expire = _to_vote(h, [1, 2, 3, 4, 5])
    for uid in (1, 2, 3, 4):
        h.press_label(uid, GROUP, "Approve")
    msg, btn = h.io.with_button(GROUP, "Approve")
    h.race_before_next_write(U.press(U.user(5), U.message(GROUP, msg.message_id, msg.text), btn.data))
    assert h.fire(expire) in ("stale", "flushed")  # nothing timed out (what waited went out)
    assert h.session().idle == {} and h.session().game().proposals[-1].votes == "AAAAA"


def test_steady_play_keeps_its_budget_and_moves_the_alarm_only_when_a_moment_changes(h):
    from gamebot.timing.wakeup import QueueScheduler

    _to_vote(h, [1, 2, 3, 4, 5])
    sent: list[int] = []

    class Queue:
        def send(self, body: str, delay: int) -> None:
            sent.append(delay)

    h.service.deps.scheduler = QueueScheduler(Queue(), h.sched)  # (the wake-up queue, as deployed)
    calls = len(h.sched.calls)
    for uid in (1, 2, 3, 4, 5):
        before, queued = dict(h.repo.calls), len(sent)
        h.press_label(uid, GROUP, "Approve")
        # (the last vote opens the quest: one more write records that its essential edit went out)
        writes = 2 if uid == 5 else 1
        assert h.repo.calls["read"] - before["read"] <= 1 and h.repo.calls["write"] - before["write"] <= writes
        assert len(sent) - queued <= 1  # at most one wake-up message a vote, none when no moment changes
    # a vote moves the alarm only when its moment changes: the vote message's latest state held back by
    # the 2-s gap or the group's budget, the quest's time limit; no schedule is made or deleted
    assert len(sent) <= 5 and all(0 <= d <= 60 for d in sent)  # (the latest: the budget's next slot)
    assert [c for c in h.sched.calls[calls:] if c[0] == "schedule"] == []  # (the one set before: deleted)
    d = h.session().deadline
    assert d.phase == "quest" and h.session().alarm.at <= d.remind_at
    before = dict(h.repo.calls)
    h.press_label(1, GROUP, "Success")
    assert h.repo.calls["read"] - before["read"] <= 1 and h.repo.calls["write"] - before["write"] <= 1


def test_a_player_can_never_send_a_timeout(h):
    s = started(h, [1, 2, 3, 4, 5])
    state = s.game()
    with pytest.raises(Reply):
        apply_move(h.service.deps, s, state, Action(seat=state.leader, kind="timeout"), "en", ("picker", None))
    assert all(p.kind != "timeout" for seat in range(5) for p in prompts(state, seat))


# --- hidden decisions ----------------------------------------------------------------------------------------

TRICKSTER_ROLES = ["merlin", "assassin", "cleric", "trickster"]


def _trickster_leader_seed() -> int:
    """A harness seed whose game makes the Trickster the first Leader (the Cleric checks them in secret)."""
    config = GameConfig(players=7, roles=tuple(TRICKSTER_ROLES))
    for seed in range(500):
        state, _ = new_game(config, random.Random(seed).getrandbits(48))
        if state.roles[state.first_leader] == "trickster":
            return seed
    raise AssertionError("no seed")


def test_a_hidden_decision_never_names_its_holder_until_the_game_ends():
    h = Timed(seed=_trickster_leader_seed())
    try:
        players = list(range(1, 8))
        h.lobby(players)
        body = h.repo.items[chat_key(GROUP)].body
        body["settings"]["roles"] = list(TRICKSTER_ROLES)  # (the settings panel's job; tested elsewhere)
        h.press_label(1, GROUP, "Start")
        s = h.session()
        state = s.game()
        trickster = s.players[state.roles.index("trickster")]
        assert state.pending and state.pending[0].hidden and s.deadline.phase == "loyalty"
        sent = len(h.io.outs)
        _, outcome = h.fire_next("remind")
        assert outcome == "reminded"
        (reminder,) = [o for o in h.io.outs[sent:] if o.chat_id == GROUP and o.tag == "remind"]
        assert "a secret decision is awaited" in reminder.text
        assert trickster.name not in reminder.text and f"id={trickster.id}" not in reminder.text
        assert [o.chat_id for o in h.io.outs[sent:] if o.chat_id != GROUP and o.tag == "remind"] == [trickster.id]  # nudged privately
        sent = len(h.io.outs)
        _, outcome = h.fire_next("expire")
        assert outcome == "expired"
        (announce,) = [o for o in h.io.outs[sent:] if o.chat_id == GROUP and o.tag == "announce"]
        assert "A secret decision ran out of time" in announce.text and trickster.name not in announce.text
        assert not any("ran out of time." in t and trickster.name in t for t in h.group_texts())
        assert h.session().idle == {} and h.session().idle_hidden == {str(trickster.id): 1}
        h.command(2, "/idles")
        assert trickster.name not in h.io.last(GROUP).text
        h.command(1, "/cancel")  # the game ends: now the record is complete
        s = h.session()
        assert s.idle == {str(trickster.id): 1} and h.record() == {str(trickster.id): 1} and not s.idle_hidden
    finally:
        h.close()


# --- settings, carrying over, off -----------------------------------------------------------------------------


def test_the_timers_page_sets_limits_and_the_vote_default_for_the_group(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Time limits")
    page = h.io.last(1).text
    assert "Time limits for" in page and "Team proposal: <b>3 min</b>" in page and "counts as a rejected team" in page
    h.press_label(1, 1, "Vote: 2 min")  # a phase's button offers every limit at once
    choice = h.io.last(1)
    assert [b.text for row in choice.keyboard for b in row] == [
        "off", "1 min", "🔘 2 min", "3 min", "5 min", "10 min", "15 min", "30 min", "1 h", "⬅️ Back"]
    h.press_label(1, 1, "3 min")
    h.press_label(1, 1, "Missing vote counts as: Approve")
    assert "Vote: <b>3 min</b>" in h.io.last(1).text and "the vote counts as Reject" in h.io.last(1).text
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    s = started_from_lobby(h)
    assert s.game().config.options.get("timeout_vote") == "reject"
    propose(h, [1, 2, 3, 4, 5])
    d = h.session().deadline
    assert d.phase == "vote" and d.due == int(h.clock.now) + 180 and h.alarm().at <= d.remind_at
    h.settle()
    assert h.alarm().at == d.remind_at
    h.command(1, "/cancel")
    h.command(1, "/newgame")  # the group keeps its timers
    assert h.session().settings.timers.limits == {"vote": 180} and h.session().settings.timers.vote == "reject"


def started_from_lobby(h: Timed) -> Session:
    h.press_label(1, GROUP, "Start")
    return h.session()


def test_all_timers_off_schedule_nothing(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Time limits")
    h.press_label(1, 1, "All off")
    assert "Joining: <b>off</b>" in h.io.last(1).text and h.session().deadline is None
    h.settle()
    assert h.sched.pending() == []  # the join alarm is gone
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    s = started_from_lobby(h)
    driver = Driver(HarnessScreen(h), GROUP, [1, 2, 3, 4, 5], Policy(rng=random.Random(2)))
    while not driver.over():
        assert driver.step() or h.fire_next()[1] in ("flushed", "stale")  # (only the outbox wakes it)
        assert h.session().deadline is None
    assert s.deadline is None
    h.command(1, "/newgame")
    while h.idle():  # the lobby waits behind the end's messages for the group's budget
        pass
    h.press_label(1, GROUP, "Settings")
    h.press_label(1, 1, "Time limits")
    h.press_label(1, 1, "Defaults")
    assert "Joining: <b>10 min</b>" in h.io.last(1).text
    h.settle()
    assert h.alarm().at == h.session().deadline.remind_at  # the join timer starts when the limit is set again


def test_the_idle_record_resets_per_game_and_adds_up_across_games():
    h = Timed(seed=3)
    try:
        players = [1, 2, 3, 4, 5]
        started(h, players)
        play_with_an_absent_player(h, players, 5, 3)
        first = h.record()["5"]
        h.io.msgs.clear()  # a fresh screen: the driver reads "Game over" from the chat
        h.io.order.clear()
        h.command(1, "/newgame")
        s = h.session()
        assert s.idle == {} and h.record() == {"5": first}
        for uid in players[1:]:
            h.press_label(uid, GROUP, "Join")
        h.press_label(1, GROUP, "Start")
        play_with_an_absent_player(h, players, 4, 4)
        s = h.session()
        assert h.record()["5"] == first and h.record()["4"] == s.idle["4"] > 0 and "5" not in s.idle
        h.command(3, "/idles")
        text = h.io.last(GROUP).text
        assert f"Frank ×{first}" in text.split("All games")[1] and "Frank" not in text.split("All games")[0]
    finally:
        h.close()


def test_without_a_scheduler_nothing_is_planned():
    h = Harness()
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.press_label(1, GROUP, "Start")
        assert Session.from_body(h.repo.items[chat_key(GROUP)].body).deadline is None
    finally:
        h.close()


def test_a_local_scheduler_fires_the_service_timers_in_process():
    """The playground's wiring: LocalScheduler calls the timer handler on its own thread."""
    import asyncio
    import threading

    from gamebot.timing.scheduler import LocalScheduler

    h = Harness()
    clock = Clock()
    fired = threading.Event()
    outcomes: list[str] = []

    def handler(payload):
        loop = asyncio.new_event_loop()  # the timer function keeps its own loop, as in functions/timer
        try:
            outcomes.append(loop.run_until_complete(h.service.timers.fire(payload)))
        finally:
            loop.close()
        if outcomes[-1] == "expired":
            fired.set()

    local = LocalScheduler(handler, clock=clock).start()
    try:
        h.service = Service(h.repo, h.io, h.codec, bot_username=U.BOT_USERNAME, clock=clock, scheduler=local)
        h.lobby([1, 2, 3])
        assert [t.payload["kind"] for t in local.pending()] == ["wake"]  # the chat's alarm
        clock.now = T0 + DEFAULT_LIMITS["join"]  # time to join is up
        local.wake()
        assert fired.wait(10.0)  # a guard against a hang, not a timing assertion
        # a late wake-up does what is due then: the expiry (a reminder after the time is up would be noise)
        assert [o for o in outcomes if o not in ("flushed", "stale")] == ["expired"]
        assert Session.from_body(h.repo.items[chat_key(GROUP)].body).status == "cancelled"
    finally:
        local.stop()
        h.close()


def test_a_reminder_is_deleted_once_its_decision_is_over(h):
    """The vote's reminder (in the group and to each voter still missing) goes once the vote is decided,
    by the last voters or by the time limit: no reminder stays below newer messages."""
    players = [1, 2, 3, 4, 5]
    started(h, players)
    h.sched.timers.clear()
    propose(h, players)
    for uid in (1, 2, 3):
        h.press_label(uid, GROUP, "Approve")
    remind, _ = h.fire_next("remind")
    shown = [(m.chat_id, m.message_id) for chat in (GROUP, 4, 5) for m in h.io.chat(chat) if "⏰" in m.text]
    assert len(shown) == 3 and {c for c, _ in shown} == {GROUP, 4, 5}
    assert {(r.chat, r.msg) for r in h.session().reminders} == set(shown)
    h.press_label(4, GROUP, "Approve")
    assert all(key in h.io.msgs for key in shown)  # the vote is still open: the reminders stay
    h.press_label(5, GROUP, "Reject")
    h.settle()
    assert not any(key in h.io.msgs for key in shown) and set(h.io.deleted) >= set(shown)
    assert h.session().reminders == []


def test_a_reminder_goes_when_the_time_limit_applies_the_default(h):
    players = [1, 2, 3, 4, 5]
    started(h, players)
    h.sched.timers.clear()
    propose(h, players)
    h.fire_next("remind")
    shown = [(m.chat_id, m.message_id) for m in h.io.chat(GROUP) if "): waiting for" in m.text]
    assert len(shown) == 1
    _, outcome = h.fire_next()
    assert outcome == "expired"
    h.settle()
    assert shown[0] not in h.io.msgs and shown[0] in h.io.deleted
    assert not any("left" in m.text for chat in [GROUP, *players] for m in h.io.chat(chat) if "⏰" in m.text)
    assert h.session().reminders == []
