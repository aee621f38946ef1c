"""AI seats, the bot's own players at the table (issue 30): seated and removed by the host in the lobby, named as bots
everywhere, moving a few seconds after their decision arrives through the chat's alarm (never in the
update that gave it to them), costing no group message more than a person's move, never messaged, never
rated; and the refusals (a full table, removing a bot in the game, a press in an AI seat's name)."""
from __future__ import annotations

import random

import pytest

from engine import replay
from gamebot.handlers import ai_seats
from gamebot.scores import stats as stats_store
from gamebot.storage.seats import AI_SEAT_BASE, MAX_AI_SEATS, ai_seat_id, is_ai_seat_id
from gamebot.storage.session import LOBBY, PLAYING, Session, chat_key
from localdev import updates as U
from tests.ai_seat_helpers import play_out, seat_ai_seats
from tests.unit.gamebot_fakes import GROUP, Harness
from tests.unit.timer_fakes import Timed

PEOPLE = [1, 2, 3]


@pytest.fixture
def h():
    harness = Timed()
    yield harness
    harness.close()


def started(h: Timed, people: list[int] = PEOPLE, count: int = 2) -> Session:
    h.lobby(people)
    seat_ai_seats(h, people[0], count)
    h.press_label(people[0], GROUP, "Start")
    return h.session()


def stored_version(h: Harness) -> int:
    return h.repo.items[chat_key(GROUP)].version


# --- identities ---------------------------------------------------------------------------------------


def test_ai_seat_ids_are_above_every_telegram_user_id_and_exact_in_json():
    ids = [ai_seat_id(n) for n in range(1, MAX_AI_SEATS + 1)]
    assert all(2**52 < i < 2**53 for i in ids) and len(set(ids)) == MAX_AI_SEATS
    assert all(is_ai_seat_id(i) for i in ids)
    assert not any(is_ai_seat_id(i) for i in (1, 2**52 - 1, AI_SEAT_BASE, -1001000000001, AI_SEAT_BASE + MAX_AI_SEATS + 1, "1"))
    with pytest.raises(ValueError):
        ai_seat_id(0)


def test_every_language_names_an_ai_seat_as_a_bot():
    from gamebot.language import texts

    for lang in texts.languages():
        names = {ai_seats.ai_seat_name(ai_seat_id(n), lang) for n in range(1, MAX_AI_SEATS + 1)}
        assert len(names) == MAX_AI_SEATS  # each bot at a table has a name of its own
        assert all(name.startswith("🤖 ") and "(" in name for name in names), (lang, names)


# --- the lobby ------------------------------------------------------------------------------------------


def test_the_host_adds_ai_seats_named_as_bots_in_the_lobby(h):
    h.lobby(PEOPLE)
    msg, button = h.io.with_button(GROUP, "🤖")
    assert button.text.startswith("🤖")
    seat_ai_seats(h, 1, 2)
    s = h.session()
    assert [p.name for p in s.players[3:]] == ["🤖 Ada (bot)", "🤖 Bruno (bot)"]
    assert all(is_ai_seat_id(p.id) for p in s.players[3:])
    while h.idle():  # (the lobby's edits within the group's budget)
        pass
    lobby = h.io.msgs[(GROUP, s.lobby_msg)].text
    assert "🤖 Ada (bot)" in lobby and "🤖 Bruno (bot)" in lobby
    assert "tg://user?id=" + str(s.players[3].id) not in lobby
    h.press_label(1, GROUP, "🤖 Remove")
    assert [p.name for p in h.session().players] == ["Bob", "Carol", "Dave", "🤖 Ada (bot)"]


def test_only_the_host_adds_an_ai_seat(h):
    h.lobby(PEOPLE)
    version = stored_version(h)
    h.press_label(2, GROUP, "🤖 Add")
    assert "Only the host" in h.last_answer().text
    assert stored_version(h) == version and len(h.session().players) == 3


def test_an_ai_seat_is_refused_at_a_full_table_and_nothing_changes(h):
    h.lobby(PEOPLE)
    seat_ai_seats(h, 1, 7)
    assert len(h.session().players) == 10
    version = stored_version(h)
    h.press_label(1, GROUP, "🤖 Add")
    answer = h.last_answer()
    assert answer.text == "The table is full (10 seats): no room for another bot." and answer.alert
    assert stored_version(h) == version and len(h.session().players) == 10


def test_an_ai_seat_cannot_be_removed_once_the_game_has_started(h):
    h.lobby(PEOPLE)
    seat_ai_seats(h, 1, 2)
    while h.idle():
        pass
    lobby_msg = h.session().lobby_msg
    remove = next(b for row in h.io.msgs[(GROUP, lobby_msg)].keyboard for b in row if "🤖 Remove" in b.text)
    h.press_label(1, GROUP, "Start")
    version = stored_version(h)
    h.press(1, h.io.msgs[(GROUP, lobby_msg)], remove.data)  # the lobby's button, pressed from an old screen
    assert h.last_answer().text == "The game has started: the bots keep their seats until it ends."
    assert stored_version(h) == version and len(h.session().players) == 5


def test_a_lobby_left_by_its_last_person_closes_even_with_ai_seats_in_it(h):
    h.lobby([1])
    seat_ai_seats(h, 1, 3)
    h.press_label(1, GROUP, "Leave")
    assert h.session().status == "cancelled"


# --- moves --------------------------------------------------------------------------------------------


def _ai_seat_leader(monkeypatch) -> None:
    from engine import new_game
    from gamebot.handlers import lobby

    monkeypatch.setattr(lobby, "new_game", lambda config, seed: new_game(config, seed, first_leader=3))


def test_the_start_answers_at_once_and_the_chat_s_wake_up_plays_the_ai_seat_leader_s_team_2_to_3_seconds_later(h, monkeypatch):
    """No invocation waits for the bots (Telegram sends the chat's next update only once this one is
    answered): the Start is answered in the webhook's reply, and the chat's alarm, a wake-up of the queue
    due 2 to 3 seconds later, plays the bot Leader's team."""
    _ai_seat_leader(monkeypatch)
    h.lobby(PEOPLE)
    seat_ai_seats(h, 1, 2)
    before = len(h.io.outs)
    h.press_label(1, GROUP, "Start")
    s = h.session()
    assert s.game().log == []  # nothing played for the bot in the start's invocation
    assert [o.op for o in h.io.outs[before:]].count("answer") == 1 and h.io.outs[-1].op == "answer"  # (the reply)
    turn = s.ai_seat_turn
    assert turn is not None and 2 <= turn.due - h.clock.now <= 3
    assert turn.due - 1 <= until_ai_seats(h) <= turn.due  # (a wake-up within a second of it plays it)
    after = h.session().game()
    assert after.log and after.log[0].startswith("3|propose|")
    assert h.io.with_button(GROUP, "Approve") is not None  # and the table votes on it, as after a person's


def test_an_ai_seat_turn_s_wake_up_delivered_twice_plays_it_once(h, monkeypatch):
    """A queue delivers at least once: the same wake-up again (or a late one) finds the turn played,
    under the version-checked write, and plays, sends and writes nothing."""
    _ai_seat_leader(monkeypatch)
    h.lobby(PEOPLE)
    seat_ai_seats(h, 1, 2)
    h.press_label(1, GROUP, "Start")
    timer = h.sched.pop_next()
    assert h.fire(timer) == "ai_seats"
    while h.session().outbox.effects or h.session().outbox.dirty or h.session().outbox.repeats:
        h.fire(h.sched.pop_next())  # (what the bots' step left to send goes first)
    version, outs, log = stored_version(h), len(h.io.outs), list(h.session().game().log)
    reads = h.repo.calls["read"]
    assert h.fire(timer) == "stale"
    assert stored_version(h) == version and len(h.io.outs) == outs and h.session().game().log == log
    assert h.repo.calls["read"] - reads == 1  # a wake-up that finds nothing due costs one read
    assert len([e for e in log if e.startswith("3|propose|")]) == 1  # the bot Leader's team once only


def test_ai_seats_vote_together_in_one_step_with_one_progress_edit_and_nothing_sent_to_them(h):
    started(h)
    mark = 0  # how many operations were made when the last bot step began
    while not h.session().game().votes:  # people act (the Leader's team) until the bots have voted
        if h.session().ai_seat_turn:
            mark = len(h.io.outs)
            h.fire(h.sched.pop_next())
        else:
            play_out_one(h)
    s = h.session()
    assert set(s.game().votes) == {3, 4}  # both bots, in one wake-up; no person yet
    group_ops = [o for o in h.io.outs[mark:] if o.chat_id == GROUP and o.op in ("send", "edit") and o.tag != "repeat"]
    assert len(group_ops) <= 1  # both bots' votes: at most the one progress edit a person's vote makes
    for uid in (p.id for p in s.players if is_ai_seat_id(p.id)):
        assert h.io.chat(uid) == [] and not [o for o in h.io.outs if o.chat_id == uid]


def test_a_press_in_an_ai_seat_s_name_is_refused_and_changes_nothing(h):
    s = started(h)
    while h.io.with_button(GROUP, "Approve") is None:
        h.fire(h.sched.pop_next()) if h.session().ai_seat_turn else play_out_one(h)
    version = stored_version(h)
    msg, button = h.io.with_button(GROUP, "Approve")
    ghost = {"id": s.players[3].id, "is_bot": False, "first_name": "Ada"}
    h.send(U.press(ghost, U.message(GROUP, msg.message_id, msg.text), button.data))
    answer = h.last_answer()
    assert answer.text == "A bot's seat is played by the bot alone." and answer.alert
    assert stored_version(h) == version and 3 not in h.session().game().votes


def until_ai_seats(h: Timed) -> float:
    """Fire the chat's wake-ups until one plays the bots' moves; the moment it did."""
    for _ in range(20):
        if h.fire(h.sched.pop_next()) == "ai_seats":
            return h.clock.now
    raise AssertionError("no wake-up played the bots")


def play_out_one(h: Timed) -> None:
    from tests.ai_seat_helpers import Driver, HarnessScreen, Policy

    assert Driver(HarnessScreen(h), GROUP, PEOPLE, Policy(rng=random.Random(1)))._picker()


def test_a_game_of_three_people_and_two_ai_seats_ends_counted_but_not_rated_and_replays(h):
    started(h)
    fired = play_out(h, PEOPLE)
    assert fired.count("ai_seats") >= 3  # every bot move came from a wake-up of the chat
    s = h.session()
    assert s.status == "ended"
    assert "🤖 Ada (bot)" in "\n".join(h.io.texts(GROUP)[-3:])  # the end names the bots as bots
    assert h.io.photos(GROUP)  # and the picture is drawn
    group = h.repo.items[stats_store.chat_stats_key(GROUP)].body
    assert group[stats_store.AI_SEAT_GAMES] == 1 and group[stats_store.AI_SEATS_PLAYED] == 2
    assert set(group["players"]) == {"1", "2", "3"}  # the bots have no row
    assert all(row.get("rated", 0) == 0 for row in group["players"].values())  # and nobody was rated
    assert not [k for k in h.repo.items if k.startswith("stats#user#") and is_ai_seat_id(int(k.rsplit("#", 1)[1]))]
    archived = next(i.body for k, i in h.repo.items.items() if k.startswith("game#"))
    from engine import GameState

    state = GameState.model_validate_json(archived["state"])
    again = replay(state.config, state.seed, list(state.log), deal=list(state.roles), first_leader=None)
    assert again.log == state.log and again.winner == state.winner


def test_the_same_seed_gives_the_same_ai_seat_moves():
    logs = []
    for _ in range(2):
        h = Timed(seed=11)
        try:
            started(h)
            play_out(h, PEOPLE, seed=5)
            archived = next(i.body for k, i in h.repo.items.items() if k.startswith("game#"))
            logs.append(archived["state"])
        finally:
            h.close()
    assert logs[0] == logs[1]


def test_without_a_scheduler_the_ai_seats_move_at_once():
    h = Harness()
    try:
        h.lobby(PEOPLE)
        seat_ai_seats(h, 1, 2)
        h.press_label(1, GROUP, "Start")
        from tests.ai_seat_helpers import Driver, HarnessScreen, Policy

        driver = Driver(HarnessScreen(h), GROUP, PEOPLE, Policy(rng=random.Random(2)))
        driver.play()
        assert driver.over()
        s = Session.from_body(h.repo.items[chat_key(GROUP)].body)
        assert s.status == "ended" and s.ai_seat_turn is None
    finally:
        h.close()


def test_an_ai_seat_turn_is_planned_only_for_an_ai_seat_and_kept_while_its_decision_lasts(h):
    s = started(h)
    state = s.game()
    assert s.status == PLAYING and s.status != LOBBY
    kept = s.ai_seat_turn
    ai_seats.plan_turn(s, h.clock.now + 1)
    assert s.ai_seat_turn == kept  # the same decision: the same moment
    people_only = s.model_copy(update={"players": [p.model_copy(update={"id": 100 + i}) for i, p in enumerate(s.players)]})
    people_only.set_game(state)
    ai_seats.plan_turn(people_only, h.clock.now)
    assert people_only.ai_seat_turn is None


def test_play_again_seats_as_many_ai_seats_again(h):
    started(h)
    play_out(h, PEOPLE)
    h.press_label(2, GROUP, "Play again")
    s = h.session()
    assert s.status == LOBBY and [p.id for p in s.players][:1] == [2]
    assert sum(is_ai_seat_id(p.id) for p in s.players) == 2
    assert all(not is_ai_seat_id(p.id) for p in s.invited)  # the people are invited; the bots are seated


def test_stats_say_how_many_seats_were_ai_seats(h):
    started(h)
    play_out(h, PEOPLE)
    h.command(2, "/stats")
    assert "🤖 Games with bots: 1, 2 seats played by bots (not rated)" in h.io.texts(GROUP)[-1]
    Harness.command(h, 2, "/stats", chat_id=2)
    assert "🤖 Games with bots: 1 (not rated)" in h.io.texts(2)[-1]


def test_one_person_with_ai_seats_in_a_group_counts_nowhere(h):
    h.lobby([1])
    seat_ai_seats(h, 1, 4)
    h.press_label(1, GROUP, "Start")
    play_out(h, [1])
    assert h.session().status == "ended"
    assert not [k for k in h.repo.items if k.startswith("stats#")]


def test_status_lists_the_ai_seats_as_players(h):
    started(h)
    while h.io.with_button(GROUP, "Approve") is None:
        h.fire(h.sched.pop_next()) if h.session().ai_seat_turn else play_out_one(h)
    h.command(1, "/status")
    board = h.io.texts(GROUP)
    assert any("🤖 Ada (bot)" in t and "🤖 Bruno (bot)" in t for t in board[-3:])


def test_ai_seats_alone_finish_every_preset_and_covering_set_up_answering_every_prompt(monkeypatch):
    """Every kind of decision (teams, votes, cards, Lady of the Lake, Excalibur, Plot cards, the
    assassination, every plug-in's prompt) is answered by the bots' policy with a legal move; the
    decision's default (``ai_seats.one_move``'s fallback) is never needed."""
    from engine import new_game, prompts
    from gamebot.storage.session import Player
    from tests.unit.i18n_inventory import configs

    refused: list[str] = []
    original = ai_seats.apply_action

    def counting(state, action):
        try:
            return original(state, action)
        except Exception:
            refused.append(action.kind)
            raise

    monkeypatch.setattr(ai_seats, "apply_action", counting)
    kinds: set[str] = set()
    for i, config in enumerate(configs()):
        state, _ = new_game(config, 1000 + i)
        s = Session(chat_id=GROUP, status=PLAYING,
                    players=[Player(id=ai_seat_id(n % MAX_AI_SEATS + 1), name=str(n)) for n in range(config.players)])
        for _ in range(400):
            if state.over:
                break
            kinds |= {p.kind for seat in range(state.n) for p in prompts(state, seat)}
            state, _ = ai_seats.moves(s, state)
        assert state.over, config
    assert {"propose", "vote", "play", "lady", "excalibur", "assassinate", "plot_deal", "trap", "watch"} <= kinds
    assert refused == []  # the policy's own move, every time (the default is only a fallback)


def test_a_person_named_like_a_bot_keeps_the_name_and_the_bot_gets_its_number(h):
    h.langs[2] = "en"
    plain_user = h.user
    h.user = lambda uid: dict(plain_user(uid), first_name="🤖 Ada (bot)", last_name=None) if uid == 2 else plain_user(uid)
    h.lobby([1, 2])
    seat_ai_seats(h, 1, 1)
    names = [p.name for p in h.session().players]
    assert names[1] == "🤖 Ada (bot)" and names[2] == "🤖 Ada (bot) #1" and len(set(names)) == 3


def test_the_timer_that_ends_a_time_limit_leaves_the_ai_seat_leader_s_team_to_the_next_wake_up(h, monkeypatch):
    """A person Leader lets the proposal's time run out: the timer applies the default (a rejected team);
    the next Leader is a bot, whose team is the chat's next wake-up, 2 to 3 seconds later, then the bots'
    votes the one after: each a wake-up of its own, none waited for."""
    from engine import new_game
    from gamebot.handlers import lobby

    monkeypatch.setattr(lobby, "new_game", lambda config, seed: new_game(config, seed, first_leader=2))
    started(h)
    assert h.session().ai_seat_turn is None  # a person leads
    _, outcome = h.fire_next("expire")
    assert outcome == "expired"
    log = h.session().game().log
    assert len(log) == 1 and log[0].startswith("2|timeout")
    expired_at = h.clock.now
    assert 2 <= h.alarm().at - expired_at <= 3
    until_ai_seats(h)
    assert h.session().game().log[1].startswith("3|propose|")
    until_ai_seats(h)
    log = h.session().game().log
    assert {e.split("|")[0] for e in log[2:]} == {"3", "4"} and all("|vote|" in e for e in log[2:])


def test_a_person_s_vote_beside_the_ai_seats_keeps_their_turn(h):
    """A person's vote while the bots' votes are pending keeps their turn and the chat's alarm: no new
    wake-up, and the one set plays them."""
    started(h)
    while h.io.with_button(GROUP, "Approve") is None:
        h.fire(h.sched.pop_next()) if h.session().ai_seat_turn else play_out_one(h)
    turn = h.session().ai_seat_turn
    alarm = h.alarm()
    assert turn is not None and h.session().game().votes == {}
    h.press_label(1, GROUP, "Approve")
    s = h.session()
    assert set(s.game().votes) == {0} and s.ai_seat_turn == turn  # (their turn, kept)
    assert h.alarm().at <= turn.due and alarm.at <= turn.due
    assert turn.due - 1 <= until_ai_seats(h) <= turn.due and {3, 4} <= set(h.session().game().votes)


def test_votes_lists_the_ai_seats_as_players(h):
    """/votes after a team the bots voted on: the history names the bots as the players they are (the
    text the picture falls back to, in the person's private chat)."""
    started(h)
    while h.io.with_button(GROUP, "Approve") is None:
        h.fire(h.sched.pop_next()) if h.session().ai_seat_turn else play_out_one(h)
    for uid in PEOPLE:
        h.press_label(uid, GROUP, "Approve")
    while h.session().ai_seat_turn and not h.session().game().proposals[0].votes:
        h.fire(h.sched.pop_next())
    assert h.session().game().proposals[0].votes  # the first team was voted on, bots included
    h.io.photo_error = "bad_request"
    h.command(PEOPLE[0], "/votes")
    text = h.io.texts(PEOPLE[0])[-1]
    assert "Vote history" in text
    assert "🤖 Ada (bot)" in text and "🤖 Bruno (bot)" in text  # named as bots, among the voters
