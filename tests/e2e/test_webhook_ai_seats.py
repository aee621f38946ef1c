"""End to end (issue 30): games with AI seats through ``lambda_handler`` and the timer
function (moto's DynamoDB and EventBridge Scheduler, the fake Bot API server): a group of 3 people seats
2 bots with the lobby's 🤖 button and plays to the end, in English and in French; a person practises
alone in the bot's private chat with /practice. The bots move when the chat's wake-up arrives (the
wake-up queue, modelled with AWS's timing: ``tests/aws_model``), each move an invocation of the timer
function; no webhook invocation waits for them."""
from __future__ import annotations

import html

import pytest

from gamebot.scores import stats
from gamebot.storage.seats import is_ai_seat_id
from tests.e2e.driver import FRENCH, LambdaTable
from tests.e2e.scheduler_helpers import configure, fire_next, play_with_alarms, schedules

PEOPLE = [1, 2, 3]


@pytest.fixture
def timed(lambda_env, monkeypatch):
    yield configure(monkeypatch)


def _stats(chat: int) -> dict:
    from gamebot.aws import dynamo
    from gamebot.scores.stats import chat_stats_key

    item = dynamo.DynamoRepository("avalon-e2e").get(chat_stats_key(chat))
    return item.body if item is not None else {}


def _ai_seat_moves(chat: int) -> list[str]:
    """The moves of the AI seats in the chat's last game, from its archive."""
    from engine import GameState
    from gamebot.aws import dynamo
    from gamebot.storage.session import Session, archive_key, chat_key

    repo = dynamo.DynamoRepository("avalon-e2e")
    s = Session.from_body(repo.get(chat_key(chat)).body)
    state = s.game()
    if state is None:  # (over: its archive)
        archive = repo.get(archive_key(chat, s.game_id or ""))
        assert archive is not None
        state = GameState.model_validate_json(archive.body["state"])
    seats = {str(i) for i, p in enumerate(s.players) if is_ai_seat_id(p.id)}
    return [e for e in state.log if e.split("|", 1)[0] in seats]


def _never_messaged_a_bot(fake) -> None:
    for call in fake.calls:
        chat = call.params.get("chat_id")
        assert not (isinstance(chat, int | str) and str(chat).isdigit() and is_ai_seat_id(int(chat))), call.method


def test_three_people_and_two_ai_seats_play_to_the_end(table, timed):
    table.open_lobby(PEOPLE)
    assert table.press_label(1, table.group, "🤖 Add a bot") == 200
    assert table.press_label(1, table.group, "🤖 Add a bot") == 200
    assert table.start_game(1) == 200
    fired = play_with_alarms(table, timed, table.group, PEOPLE)
    # every bot step came from a wake-up of the queue, 2 to 3 s after its decision (+ the poller's second)
    assert sum(f.split(",").count("ai_seats") for f in fired) >= 3 and set(table.statuses) == {200}
    assert timed.slept == [] and schedules(timed.client) == []  # nobody waited; no schedule was needed
    assert len(_ai_seat_moves(table.group)) >= 3
    group = html.unescape("\n".join(table.fake.texts(table.group)))
    assert "🤖 Ada (bot)" in group and "🤖 Bruno (bot)" in group and "Game over" in group
    photos = [c for c in table.fake.calls_to("sendPhoto") if str(c.get("chat_id")) == str(table.group)]
    assert photos and "(bot)" in "".join(str(c.get("caption", "")) for c in photos) + group
    _never_messaged_a_bot(table.fake)
    body = _stats(table.group)
    assert body.get(stats.AI_SEAT_GAMES) == 1 and body.get(stats.AI_SEATS_PLAYED) == 2
    assert all(not row.get("rated") for row in body["players"].values())  # a game with bots moves no rating


def test_a_french_group_adds_ai_seats_and_plays_to_the_end(lambda_env, timed):
    from tests.e2e.conftest import SECRET

    table = LambdaTable(lambda_env, SECRET, words=FRENCH, language_code="fr")
    table.fake.add_group(table.group, table.title)
    assert table.command(1, "/language fr") == 200
    table.open_lobby(PEOPLE)
    assert table.press_label(1, table.group, "🤖 Ajouter un bot") == 200
    assert table.press_label(1, table.group, "🤖 Ajouter un bot") == 200
    assert table.start_game(1) == 200
    fired = play_with_alarms(table, timed, table.group, PEOPLE, words=FRENCH)
    assert "ai_seats" in ",".join(fired) and timed.slept == [] and set(table.statuses) == {200}
    group = html.unescape("\n".join(table.fake.texts(table.group)))
    assert "🤖 Ada (bot)" in group and "Partie terminée" in group
    _never_messaged_a_bot(table.fake)


def test_practice_alone_in_the_private_chat_plays_to_the_end(table, timed):
    me = 1
    table.start_private(me)
    assert table.command(me, "/practice 4", chat=me) == 200
    lobby = html.unescape(table.fake.texts(me)[-1])
    assert "Practice" in lobby and lobby.count("(bot)") == 4
    assert table.press_label(me, me, "▶️ Start") == 200
    fired = play_with_alarms(table, timed, me, [me])
    assert "ai_seats" in ",".join(fired) and timed.slept == [] and set(table.statuses) == {200}
    texts = html.unescape("\n".join(table.fake.texts(me)))
    assert "Practice game" in texts and "Game over" in texts
    assert _stats(me) == {}  # nothing of a practice counts
    _never_messaged_a_bot(table.fake)


def test_without_the_queue_the_ai_seats_wait_for_eventbridge_scheduler_and_no_invocation_waits(table, monkeypatch,
                                                                                          lambda_env):
    """A stack without the wake-up queue (EventBridge Scheduler alone, up to a minute late): the Start is
    answered at once in the webhook's reply; the bot Leader's team comes with the schedule."""
    from engine import new_game
    from gamebot.handlers import lobby
    from tests.e2e.scheduler_helpers import configure

    timed = configure(monkeypatch, queue=False)
    monkeypatch.setattr(lobby, "new_game", lambda config, seed: new_game(config, seed, first_leader=3))
    table.open_lobby(PEOPLE)
    table.press_label(1, table.group, "🤖 Add a bot")
    table.press_label(1, table.group, "🤖 Add a bot")
    started = timed.clock.now
    assert table.start_game(1) == 200
    assert _ai_seat_moves(table.group) == [] and timed.queue.sent == []
    (schedule,) = schedules(timed.client)
    assert fire_next(timed) == "ai_seats" and _ai_seat_moves(table.group)[0].startswith("3|propose|")
    assert timed.clock.now - started >= timed.late  # (a minute, at worst: what the queue is for)
