"""The local playground without a browser: moto server + fake Bot API + lambda_handler + simulated
players + the page's JSON API (Flask test client)."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from localdev.playground import DEFAULT_SIM_DELAY, GROUP_ID, Playground, parse_args
from localdev.webhook import WebhookWorker
from tests.integration.playground_wait import GIVE_UP, wait_for

REPO = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
FIVE = ["Zoe", "Yan", "Xia", "Wes", "Vic"]


def story(pg: Playground) -> str:
    """What happened, for a failure message: the statuses and the group's last messages."""
    texts = pg.fake.texts(GROUP_ID)[-4:]
    return f"statuses={pg.worker.statuses} seats={pg.seats} group={texts}"




@pytest.fixture
def pg():
    with Playground(sim_delay=0, seed=2, group_budget=0) as playground:
        yield playground


def lobby(pg: Playground) -> dict | None:
    return next((m for m in reversed(pg.fake.messages(GROUP_ID)) if "New game of" in m.get("text", "")), None)


def seat_five(pg: Playground, open_lobby: bool = False):
    """Zoe (a person, the host) and four simulated players."""
    return pg.seat([{"name": n, "simulated": i > 0} for i, n in enumerate(FIVE)], open_lobby=open_lobby)


@pytest.fixture
def client(pg):
    from localdev.web import create_app

    app = create_app(pg)
    return app.test_client()


def test_the_table_comes_from_template_yaml_on_a_local_moto_server(pg):
    import boto3

    from localdev.tables import load_template, table_definition

    endpoint = pg.moto.get_host_and_port()
    assert endpoint[0] == "127.0.0.1"
    client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{endpoint[1]}", region_name="us-east-1",
                          aws_access_key_id="x", aws_secret_access_key="x")
    table = client.describe_table(TableName=pg.table_name)["Table"]
    wanted = table_definition(load_template(REPO / "template.yaml"))
    assert table["KeySchema"] == wanted["KeySchema"]
    assert pg.fake.base_url.startswith("http://127.0.0.1:")


def test_simulated_players_in_every_seat_play_a_whole_game_through_the_webhook(pg):
    seats = pg.seat(pg.default_seats(7, humans=0))
    assert all(s.simulated for s in seats)
    assert wait_for(pg, lambda: any("Game over" in t for t in pg.fake.texts(GROUP_ID))), story(pg)
    assert set(pg.worker.statuses) == {200}
    texts = pg.fake.texts(GROUP_ID)
    assert texts[0] == "/newgame"  # the host's own message is in the chat history
    for s in seats:
        assert any("Your secret role" in t for t in pg.fake.texts(s.user_id))
    # every proposal names its Leader on the team (plausible Leaders)
    for t in texts:
        if "proposes:" in t:
            leader = t.split("Leader ")[1].split(" proposes")[0]
            assert leader in t.split("proposes:")[1], t


def test_a_person_seat_is_left_to_the_person(pg, client):
    seats = seat_five(pg, open_lobby=True)
    zoe = seats[0].user_id
    assert wait_for(pg, lambda: "5. Vic" in (lobby(pg) or {}).get("text", ""))  # the simulated players joined by themselves
    shown = lobby(pg)
    assert "Host: Zoe" in shown["text"]
    pg.fake.wait_changed(pg.fake.version, 0.3)
    assert "The game begins" not in " ".join(pg.fake.texts(GROUP_ID))  # only the host starts it
    start = next(b for row in shown["reply_markup"]["inline_keyboard"] for b in row if "Start" in b["text"])
    answer = client.post("/api/press", json={"as": zoe, "chat": GROUP_ID, "message": shown["message_id"],
                                             "data": start["callback_data"]}).get_json()
    assert answer["status"] == 200
    assert wait_for(pg, lambda: any("Your secret role" in t for t in pg.fake.texts(zoe)))
    snap = client.get(f"/api/state?as={zoe}").get_json()
    mine = next(p for p in snap["players"] if p["id"] == zoe)
    assert [p["id"] for p in snap["players"] if "messages" in p] == [zoe]  # a tab sees only its own chat
    assert any("Your secret role" in m["html"] for m in mine["messages"])
    assert client.post("/api/send", json={"as": zoe, "chat": GROUP_ID, "text": "/cancel"}).get_json()["status"] == 200
    assert wait_for(pg, lambda: any("Game cancelled" in t for t in pg.fake.texts(GROUP_ID)))


def test_phase_timers_run_locally_so_a_person_who_walks_away_does_not_stall_the_game():
    """The playground runs the same timers as AWS: the bot schedules them, the timer Lambda's handler
    applies the defaults. Zoe starts the game and never acts again; moving the timers' clock on
    (instead of waiting minutes) lets the game finish without her."""
    now = [time.time()]
    with Playground(sim_delay=0, seed=5, timer_clock=lambda: now[0], group_budget=0) as pg:
        seats = seat_five(pg, open_lobby=True)
        zoe = seats[0].user_id
        assert wait_for(pg, lambda: "5. Vic" in (lobby(pg) or {}).get("text", ""))
        shown = lobby(pg)
        start = next(b for row in shown["reply_markup"]["inline_keyboard"] for b in row if "Start" in b["text"])
        assert pg.press(zoe, GROUP_ID, shown["message_id"], start["callback_data"])["status"] == 200
        assert pg.scheduler.pending(), "the game's first decision has a deadline"

        def over() -> bool:
            return any("Game over" in t for t in pg.fake.texts(GROUP_ID))

        for _ in range(200):
            if over():
                break
            since = pg.fake.version  # (before the wake: what it changes is not waited for)
            now[0] += 600  # ten minutes later: every limit has run out
            pg.scheduler.wake()
            pg.fake.wait_changed(since, 0.5)
        assert over(), story(pg)
        # the board says "Game over" before the timeout notice is sent (edits go first): wait for it
        assert wait_for(pg, lambda: "Zoe ran out of time" in "\n".join(pg.fake.texts(GROUP_ID))), story(pg)
        assert pg.scheduler.fired, "the local scheduler fired the timers"
        assert set(pg.worker.statuses) == {200}


def test_a_join_answered_with_a_deep_link_opens_the_private_chat_with_its_payload(pg):
    from localdev import updates as U

    seat_five(pg, open_lobby=True)
    newbie = 2001
    pg.users[newbie] = U.user(newbie, "Newbie")  # in the group, but never opened the bot's chat
    assert wait_for(pg, lambda: lobby(pg) is not None)
    shown = lobby(pg)
    join = next(b for row in shown["reply_markup"]["inline_keyboard"] for b in row if "Join" in b["text"])
    pg.press(newbie, GROUP_ID, shown["message_id"], join["callback_data"])
    texts = pg.fake.texts(newbie)
    assert texts[0].startswith("/start j") and any("You joined the game" in t for t in texts)
    assert "Newbie" in lobby(pg)["text"]


def test_the_webhook_secret_is_checked(pg):
    seat_five(pg)
    real = pg.worker.secret
    before = len(pg.fake.calls)
    pg.worker.secret = "not-the-secret"
    try:
        assert pg.send(pg.seats[0].user_id, GROUP_ID, "/help") == 401
    finally:
        pg.worker.secret = real
    assert all(c.method != "sendMessage" for c in pg.fake.calls[before:])
    assert pg.send(pg.seats[0].user_id, GROUP_ID, "/help") == 200


def test_the_api_refuses_foreign_hosts_non_json_and_other_players_chats(pg, client):
    seat_five(pg)
    a, b = pg.seats[0].user_id, pg.seats[1].user_id
    assert client.get("/api/state", headers={"Host": "evil.example:80"}).status_code == 403
    assert client.post("/api/send", data="as=1", content_type="application/x-www-form-urlencoded").status_code == 415
    refused = client.post("/api/send", json={"as": a, "chat": b, "text": "/start"})
    assert refused.status_code == 403
    assert client.post("/api/send", json={"as": 999, "chat": GROUP_ID, "text": "/help"}).status_code == 404
    assert client.post("/api/seat", json={"players": []}).status_code == 400  # 1 to 10 seats
    eleven = [{"name": f"P{i}", "simulated": True} for i in range(11)]
    assert client.post("/api/seat", json={"players": eleven}).status_code == 400
    same = [{"name": "Ann", "simulated": True}] * 5
    assert client.post("/api/seat", json={"players": same}).status_code == 400


def test_fewer_than_five_seats_are_filled_with_the_lobby_ai_seats(pg, client):
    """The page seats 1 to 10: three simulated players, no person. Their host fills the table with the lobby's
    🤖 Add a bot (AI seats), as a person hosting does, and starts the game with five."""
    trio = [{"name": n, "simulated": True} for n in ("Ann", "Ben", "Cy")]
    answer = client.post("/api/seat", json={"players": trio, "open_lobby": True})
    assert answer.status_code == 200 and len(answer.get_json()["seats"]) == 3
    assert wait_for(pg, lambda: "The game begins" in "\n".join(pg.fake.texts(GROUP_ID))), story(pg)
    group = "\n".join(pg.fake.texts(GROUP_ID))
    assert "Seats: 1. Ann, 2. Ben, 3. Cy, 4. 🤖 Ada (bot), 5. 🤖 Bruno (bot)" in group, story(pg)
    assert pg.table_ai_seats() == 2 and pg.game_status() == "playing"
    assert pg.seat_view(pg.seats[0].user_id)["players"] == 5
    assert set(pg.worker.statuses) == {200}


def test_photos_the_bot_sends_are_viewable(pg, client):
    sent = httpx.post(f"{pg.fake.api_url(pg.token)}/sendPhoto", data={"chat_id": str(GROUP_ID), "caption": "<b>Board</b>",
                      "parse_mode": "HTML"}, files={"photo": ("board.png", PNG, "image/png")}).json()
    assert sent["ok"]
    snap = client.get("/api/state").get_json()
    msg = next(m for m in snap["group"]["messages"] if m["id"] == sent["result"]["message_id"])
    assert msg["html"] == "<b>Board</b>"
    image = client.get(msg["photo"])
    assert image.status_code == 200 and image.mimetype == "image/png" and image.data == PNG


def test_the_state_long_poll_answers_when_a_chat_changes(pg, client):
    seat_five(pg)
    version = client.get("/api/state").get_json()["version"]
    result = {}
    thread = threading.Thread(target=lambda: result.update(client.get(f"/api/state?since={version}").get_json()))
    thread.start()
    pg.send(pg.seats[0].user_id, GROUP_ID, "/rules")
    thread.join(timeout=30)
    assert result["version"] > version
    assert any(m["html"] == "/rules" for m in result["group"]["messages"])


def test_background_tasks_run_again_when_they_ask_to(pg):
    """The seam for local timers: a task's tick runs again after the delay it returns."""
    ticks: list[float] = []
    done = threading.Event()

    class Probe:
        def tick(self, now: float) -> float | None:
            ticks.append(now)
            if len(ticks) >= 5:
                done.set()
                return None
            return 0.01

    pg.add_task(Probe())
    assert done.wait(timeout=GIVE_UP)
    assert ticks == sorted(ticks)


def test_the_worker_never_runs_two_updates_at_once():
    active, peak, threads = [0], [0], set()
    lock = threading.Lock()

    def handler(event, context):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            threads.add(threading.get_ident())
        time.sleep(0.002)
        with lock:
            active[0] -= 1
        return {"statusCode": 200}

    worker = WebhookWorker("s", handler=handler)
    callers = [threading.Thread(target=lambda: [worker.post({"update_id": i}) for i in range(20)]) for _ in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    worker.stop()
    assert len(worker.statuses) == 160 and peak[0] == 1 and len(threads) == 1


def test_run_help_describes_the_options():
    out = subprocess.run([sys.executable, "-m", "localdev.playground", "--help"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    for option in ("--port", "--players", "--humans", "--sim-delay", "--mode", "TELEGRAM_BOT_TOKEN"):
        assert option in out


def test_the_simulated_players_pause_is_sim_delay_and_its_former_names_still_work(monkeypatch, capsys):
    """``--sim-delay`` (``PLAYGROUND_SIM_DELAY``): seconds between two moves of the simulated players. The
    option and the variable under their former names still set it (scripts and habits may hold them), and
    --help shows the new name only."""
    former_option, former_variable = ("--bot-delay", "PLAYGROUND_BOT_DELAY")  # (before issue 38)
    for name in ("PLAYGROUND_SIM_DELAY", former_variable):
        monkeypatch.delenv(name, raising=False)
    assert parse_args([]).sim_delay == DEFAULT_SIM_DELAY
    assert parse_args(["--sim-delay", "1.5"]).sim_delay == 1.5
    assert parse_args([former_option, "2.5"]).sim_delay == 2.5
    monkeypatch.setenv(former_variable, "3")
    assert parse_args([]).sim_delay == 3.0
    monkeypatch.setenv("PLAYGROUND_SIM_DELAY", "4")  # the new name first
    assert parse_args([]).sim_delay == 4.0
    with pytest.raises(SystemExit):
        parse_args([former_option, "-1"])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    shown = capsys.readouterr().out
    assert "--sim-delay" in shown and "PLAYGROUND_SIM_DELAY" in shown
    assert former_option not in shown and former_variable not in shown


@pytest.mark.slow
def test_the_host_adds_ai_seats_with_the_lobby_button_and_they_play_to_the_end():
    """Issue 30 in the page: the lobby's 🤖 button, pressed through the page's API, seats the bot's own
    players; they move when the chat's alarm fires (the local scheduler, on a clock the test moves)."""
    import random

    from localdev.autoplay import Driver, FakeTelegramScreen, Policy

    now = [time.time()]
    with Playground(sim_delay=0, seed=3, timer_clock=lambda: now[0], group_budget=0) as pg:
        from localdev.web import create_app

        page = create_app(pg).test_client()
        (zoe,) = [s.user_id for s in pg.seat([{"name": "Zoe", "simulated": False}], open_lobby=True)]
        assert wait_for(pg, lambda: lobby(pg) is not None)
        for count in range(1, 5):
            shown = lobby(pg)
            add = next(b for row in shown["reply_markup"]["inline_keyboard"] for b in row if b["text"].startswith("🤖"))
            answer = page.post("/api/press", json={"as": zoe, "chat": GROUP_ID, "message": shown["message_id"],
                                                   "data": add["callback_data"]}).get_json()
            assert answer["status"] == 200 and "takes a seat" in answer["text"]
            assert wait_for(pg, lambda c=count: f"{c + 1}. 🤖" in (lobby(pg) or {}).get("text", "")), story(pg)
        shown = lobby(pg)
        start = next(b for row in shown["reply_markup"]["inline_keyboard"] for b in row if "Start" in b["text"])
        assert pg.press(zoe, GROUP_ID, shown["message_id"], start["callback_data"])["status"] == 200
        driver = Driver(FakeTelegramScreen(pg.fake, pg.deliver, pg.users), GROUP_ID, [zoe],
                        Policy(rng=random.Random(4)), views=pg.seat_view)
        for _ in range(600):
            if driver.over():
                break
            since = pg.fake.version  # (before the step and the wake: what they change is not waited for)
            if not driver.step():
                now[0] += 5  # a few seconds later: the bots' moves are due
                pg.scheduler.wake()
                pg.fake.wait_changed(since, 0.2)
        assert driver.over(), story(pg)
        assert "🤖 Ada (bot)" in "\n".join(pg.fake.texts(GROUP_ID))
        assert set(pg.worker.statuses) == {200}
