"""The local playground: the whole bot on one machine, with no AWS account and no Telegram token.

``scripts/run`` (``python -m localdev.playground``) starts, in this one process:

* DynamoDB and SQS: a moto server on 127.0.0.1 (free port; one request at a time but SQS's long poll,
  ``localdev.serial_moto``) with the bot's table created from template.yaml's own definition
  (``localdev.tables.create_table_from_template``) and the wake-up queue (``avalon-playground-wake``);
* the Bot API: ``localdev.fake_telegram.FakeTelegram`` on 127.0.0.1, where the bot sends its messages
  (``TELEGRAM_API_BASE_URL``);
* the bot: ``functions/webhook/app.py``'s ``lambda_handler``, fed webhook updates (with the secret
  header) by one :class:`~localdev.webhook.WebhookWorker` thread;
* simulated players (``localdev.autoplay``: scripted stand-ins for people) in the seats marked
  simulated, pressing buttons through the same handler, paced by ``sim_delay`` seconds;
* a web page (``localdev.web``) standing in for Telegram: the group and every player's private chat;
* the chats' wake-ups as on AWS (``gamebot.timing.wakeup``): the bot is given (``wakeup.install``) a
  ``QueueScheduler`` whose queue is that SQS queue (``SqsQueue``, boto3, ``WAKE_QUEUE_URL``): an alarm due
  within 2 minutes (an AI seat's move 2 or 3 seconds after its decision, a reminder, a held-back edit) is
  a message delayed to its second, which moto holds back in real time. ``localdev.wake_consumer`` stands
  in for Lambda's event source mapping: a thread long-polls the queue and hands each batch, as Lambda's
  SQS event, to ``functions/timer/app.py``'s ``lambda_handler`` through ``worker.call`` (so it never
  overlaps an update), then deletes what it did not report failed. Nothing waits in an invocation.
  EventBridge Scheduler (far alarms, set 90 s ahead of their moment, and the backstop when the queue
  would not take a wake-up) is ``gamebot.timing.scheduler.LocalScheduler``: a thread that calls the same
  handler with the payload itself when a timer is due, through the worker too.
  A test that moves the timers' clock (``Playground(timer_clock=...)``) gets the LocalScheduler alone, on
  that clock, for every alarm (no queue): SQS's delays run in real time and cannot follow a moved clock.

The background loop (:meth:`Playground.add_task`) runs every registered :class:`Task` whenever a chat
changes or a task asks to be called again: the simulated players are one.

Real bot mode (``TELEGRAM_BOT_TOKEN`` set, or ``--mode telegram``): the same DynamoDB and worker, fed
by :class:`~localdev.poller.Poller` (getUpdates long polling against ``TELEGRAM_API_BASE_URL``).
"""
from __future__ import annotations

import argparse
import html
import importlib.util
import logging
import os
import re
import secrets
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

_IMPORTED = time.time()
REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "shared", REPO / "functions" / "webhook", REPO):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from localdev import tg_html  # noqa: E402
from localdev import updates as U  # noqa: E402
from localdev.webhook import WebhookWorker  # noqa: E402

log = logging.getLogger("localdev.playground")

GROUP_ID = -1_001_000_000_777
GROUP_TITLE = "Avalon Playground"
TABLE_NAME = "avalon-playground"
LOCAL_TOKEN = "7000000001:PLAYGROUND-local-token"
FIRST_USER_ID = 1001
DEFAULT_PORT = 8642
DEFAULT_SIM_DELAY = 0.6
MAX_SEATS = 10
MIN_PLAYERS = 5  # a game's smallest table: fewer seats are filled with AI seats in the lobby (its 🤖)
JSON = dict[str, Any]


class Task(Protocol):
    """Background work of the playground loop. ``tick(now)`` (``time.monotonic()``) does what is due
    and returns the seconds until it wants to be called again (0: at once), or None (no need: it is
    called again when a chat changes, and at least once a second)."""

    def tick(self, now: float) -> float | None: ...


@dataclass
class Seat:
    user_id: int
    name: str
    simulated: bool  # played by :class:`SimulatedPlayers`, not by a person in the page
    lang: str = ""  # the seat's Telegram app language; "": none sent, so its private chat speaks the group's


class SimulatedPlayers:
    """The simulated players: scripted stand-ins for the people of the seats marked simulated (they press
    buttons like a person; not AI seats, which the bot plays itself), one move per tick, ``sim_delay``
    seconds apart."""

    def __init__(self, playground: Playground, seed: int | None = None) -> None:
        import random

        from localdev.autoplay import Driver, FakeTelegramScreen, Policy

        self.pg = playground
        screen = FakeTelegramScreen(playground.fake, playground.deliver, playground.users)
        # they decide from their own seat's view only (engine.policy), and read the page to act
        self.driver = Driver(screen, GROUP_ID, [], Policy(rng=random.Random(seed)), lobby=True,
                             views=playground.seat_view)
        self.next_at = 0.0

    def seat(self, seats: list[Seat]) -> None:
        self.driver.names = {s.user_id: s.name for s in seats}
        # a simulated host of fewer seats than a game needs fills the table with the lobby's 🤖 (AI
        # seats), as a person hosting does, then starts
        self.driver.fill_to = MIN_PLAYERS
        self.driver.start_at = max(len(seats), MIN_PLAYERS)
        self.driver.players = [s.user_id for s in seats if s.simulated]

    def tick(self, now: float) -> float | None:
        if not self.driver.players:
            return None
        if now < self.next_at:
            return self.next_at - now
        if not self.driver.step():
            return None
        delay = self.pg.sim_delay
        self.next_at = now + delay
        return delay


class Playground:
    def __init__(
        self,
        *,
        mode: str = "playground",
        sim_delay: float = DEFAULT_SIM_DELAY,
        seed: int | None = None,
        table_name: str | None = None,
        token: str | None = None,
        api_base: str | None = None,
        timer_clock: Any = None,
        group_budget: int | None = None,
    ) -> None:
        """``mode``: "playground" (fake Telegram, web page) or "telegram" (real bot by long polling:
        ``token`` and ``api_base`` name the Bot API). ``timer_clock``: the phase timers' clock (tests
        move it forward instead of waiting minutes); the real time by default. Given another clock, the
        chats' alarms are all the local scheduler's, on that clock: no wake-up queue (SQS's delays run in
        real time). ``group_budget``: group messages and edits per minute (Telegram's limit, 20, by
        default; 0: none, for simulated players at full speed in tests). ``sim_delay``: seconds between
        two moves of the simulated players."""
        if mode not in ("playground", "telegram"):
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.sim_delay = sim_delay
        self.seed = seed
        # moto keeps its data per process: a fresh table name gives each playground an empty table
        self.table_name = table_name or f"{TABLE_NAME}-{secrets.token_hex(4)}"
        self.token = token or LOCAL_TOKEN
        self.api_base = api_base
        self.secret = secrets.token_urlsafe(24)
        self.users: dict[int, JSON] = {}
        self.seats: list[Seat] = []
        self.tasks: list[Task] = []
        self.fake: Any = None
        self.moto: Any = None
        self.admin: Any = None  # a boto3 client for the table itself (created in start)
        self.worker: WebhookWorker | None = None
        self.simulated: SimulatedPlayers | None = None
        self.scheduler: Any = None  # gamebot.timing.scheduler.LocalScheduler: EventBridge Scheduler's part
        self.wakeups: Any = None  # gamebot.timing.wakeup.QueueScheduler: what the bot schedules with (None:
        # the LocalScheduler alone, on a clock a test moves)
        self.consumer: Any = None  # localdev.wake_consumer.WakeConsumer: the queue's event source mapping
        self.queue_url = ""
        self.timer_app: Any = None
        self.timer_clock = timer_clock or time.time
        self.group_budget = group_budget
        self.bot_user: JSON = {}
        self._saved_env: dict[str, str | None] = {}
        self._stop = threading.Event()
        self._loop_thread: threading.Thread | None = None
        self._seat_lock = threading.Lock()
        self._user_ids: dict[str, int] = {}  # a player's name (lower case) -> their Telegram user id

    # ------------------------------------------------------------------------------------------------
    # life cycle
    # ------------------------------------------------------------------------------------------------

    def start(self) -> Playground:
        from localdev.serial_moto import SerialMotoServer

        # one request at a time: moto's backend breaks when two threads use it (localdev.serial_moto)
        self.moto = SerialMotoServer().start()
        host, port = self.moto.get_host_and_port()
        if self.mode == "playground":
            from localdev.fake_telegram import FakeTelegram

            self.fake = FakeTelegram(token=self.token).start()
            self.api_base = self.fake.base_url
        self._set_env({
            "TABLE_NAME": self.table_name,
            "TELEGRAM_BOT_TOKEN": self.token,
            "TELEGRAM_WEBHOOK_SECRET": self.secret,
            "TELEGRAM_API_BASE_URL": self.api_base or "https://api.telegram.org",
            "AWS_ENDPOINT_URL_DYNAMODB": f"http://{host}:{port}",
            "AWS_ENDPOINT_URL_SQS": f"http://{host}:{port}",  # the wake-up queue (boto3: SqsQueue)
            "AWS_ACCESS_KEY_ID": "playground",
            "AWS_SECRET_ACCESS_KEY": "playground",
            "AWS_SESSION_TOKEN": "playground",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_PROFILE": None,
            "TELEGRAM_BOT_USERNAME": None,
            "GROUP_MESSAGES_PER_MINUTE": None if self.group_budget is None else str(self.group_budget),
            "PLAYER_THROTTLE": "0",  # the simulated players press at machine speed (gamebot.botapi.throttle)
        })
        from gamebot.aws import dynamo
        from localdev.tables import admin_client, create_table_from_template

        dynamo.reset_default_client()
        self.admin = admin_client()  # boto3: creating and deleting the table (the bot's client has items only)
        create_table_from_template(self.admin, self.table_name, REPO / "template.yaml")
        # The method a webhook answers with is performed by Telegram: here by the fake Bot API, or (real
        # bot mode) by a call to the real Bot API (``perform``, set by run_telegram).
        self.worker = WebhookWorker(self.secret, perform=self.fake.perform if self.fake is not None else None)
        self._start_timers()
        self.worker.call(self._warm_up)
        if self.fake is not None:
            self.bot_user = dict(self.fake.bot)
            self.fake.add_group(GROUP_ID, GROUP_TITLE)
            self.simulated = SimulatedPlayers(self, self.seed)
            self.add_task(self.simulated)
        self._loop_thread = threading.Thread(target=self._loop, name="playground-loop", daemon=True)
        self._loop_thread.start()
        return self

    def _start_timers(self) -> None:
        """The chats' wake-ups run here as they do on AWS (see the module's docstring): the bot sets each
        chat's alarm, an alarm within 2 minutes is a message of the wake-up queue delayed to its second,
        and the timer Lambda's own handler takes it (in the worker, so it never overlaps an update); a
        far alarm is the local scheduler's. With a clock a test moves, the local scheduler takes them all."""
        from gamebot.timing import scheduler, wakeup

        spec = importlib.util.spec_from_file_location("timer_app", REPO / "functions" / "timer" / "app.py")
        assert spec is not None and spec.loader is not None
        self.timer_app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.timer_app)
        worker, timer_app, clock = self.worker, self.timer_app, self.timer_clock
        assert worker is not None

        def invoke(event: dict[str, Any], context: Any = None) -> Any:
            """The timer function invoked with ``event``: a payload (EventBridge Scheduler) or an SQS batch."""
            svc = timer_app.service()
            svc.set_clock(clock)  # (the timers' clock: a test moves it instead of waiting)
            return timer_app.lambda_handler(event, context)

        self.scheduler = scheduler.LocalScheduler(lambda payload: worker.call(invoke, payload), clock=clock).start()
        if clock is not time.time:  # SQS's delays run in real time: they cannot follow a clock a test moves
            self._set_env({"WAKE_QUEUE_URL": None})
            wakeup.install(self.scheduler)
            return
        from localdev.wake_consumer import WakeConsumer, create_queue, sqs_client

        sqs = sqs_client(self.moto.endpoint)
        self.queue_url = create_queue(sqs)
        self._set_env({"WAKE_QUEUE_URL": self.queue_url})
        self.wakeups = wakeup.QueueScheduler(wakeup.SqsQueue(self.queue_url), later=self.scheduler)
        wakeup.install(self.wakeups)
        self.consumer = WakeConsumer(sqs, self.queue_url, invoke, worker).start()

    def _stop_timers(self) -> None:
        from gamebot.timing import wakeup

        if self.consumer is not None:  # (before the worker and the moto server stop: it uses both)
            self.consumer.stop()
            self.consumer = None
        if self.scheduler is not None:
            self.scheduler.stop()
            wakeup.install(None)
            self.scheduler = None
        self.wakeups = None
        if self.timer_app is not None and self.worker is not None:
            self.worker.call(self.timer_app.reset)

    def _warm_up(self) -> None:
        """Build the bot's service once (imports, getMe), in the worker thread that will use it."""
        import app

        app.reset()
        service = app.service()
        service.set_clock(self.timer_clock)  # what is due is judged on the timers' clock
        self.bot_user = {"username": str(service.bot_username)}  # a BotName asks getMe here

    def stop(self) -> None:
        self._stop.set()
        if self.fake is not None:
            self.fake.touch()
        if self._loop_thread is not None:
            self._loop_thread.join(timeout=10)
        if self.worker is not None:
            try:
                import app

                self._stop_timers()
                self.worker.call(app.reset)
            finally:
                self.worker.stop()
        if self.fake is not None:
            self.fake.stop()
        from gamebot.aws import dynamo

        if self.moto is not None:
            try:
                self.admin.delete_table(TableName=self.table_name)
            except Exception:  # best effort: the data is in memory and goes with the process
                log.debug("could not delete the table", exc_info=True)
            self.moto.stop()
        dynamo.reset_default_client()
        self._restore_env()

    def __enter__(self) -> Playground:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _set_env(self, values: dict[str, str | None]) -> None:
        for key, value in values.items():
            self._saved_env.setdefault(key, os.environ.get(key))
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    def _restore_env(self) -> None:
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env.clear()

    # ------------------------------------------------------------------------------------------------
    # background loop (the simulated players)
    # ------------------------------------------------------------------------------------------------

    def add_task(self, task: Task) -> None:
        self.tasks.append(task)
        self.wake()

    def wake(self) -> None:
        if self.fake is not None:
            self.fake.touch()

    def _wait(self, since: int, timeout: float) -> None:
        if self.fake is not None:
            self.fake.wait_changed(since, timeout)
        else:
            self._stop.wait(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            since = self.fake.version if self.fake is not None else 0
            waits = []
            for task in list(self.tasks):
                try:
                    wait = task.tick(time.monotonic())
                except Exception:
                    log.exception("background task %r failed", task)
                    wait = 1.0
                if wait is not None:
                    waits.append(wait)
            wait = min(waits, default=None)
            if wait is not None and wait <= 0:
                continue
            self._wait(since, 1.0 if wait is None else min(wait, 1.0))

    # ------------------------------------------------------------------------------------------------
    # delivering updates
    # ------------------------------------------------------------------------------------------------

    def deliver(self, update: JSON) -> int:
        """Post an update through the webhook handler; a press answered with a deep link to this bot
        opens the presser's private chat with that payload (as Telegram does)."""
        assert self.worker is not None, "start() first"
        status = self.worker.post(update)
        query = update.get("callback_query")
        if query and self.fake is not None:
            answer = self.fake.answers.get(query["id"]) or {}
            payload = tg_html.deep_link_payload(answer.get("url") or "", self.bot_username)
            if payload is not None:
                self.open_private(query["from"]["id"], payload)
        return status

    @property
    def bot_username(self) -> str:
        return str(self.bot_user.get("username") or "")

    def user(self, user_id: int) -> JSON:
        if user_id not in self.users:
            raise KeyError(f"no player {user_id}")
        return self.users[user_id]

    def _check_chat(self, user_id: int, chat_id: int) -> None:
        if chat_id != GROUP_ID and chat_id != user_id:
            raise PermissionError("a player can act only in the group and in their own private chat")

    def open_private(self, user_id: int, payload: str | None = None) -> int:
        """The user opens the bot's private chat (a t.me deep link, or the Start button)."""
        who = self.user(user_id)
        self.fake.start_private(who)
        text = "/start" + (f" {payload}" if payload else "")
        return self.send(user_id, user_id, text)

    def send(self, user_id: int, chat_id: int, text: str) -> int:
        """``user_id`` types ``text`` in a chat (a command if it starts with "/")."""
        self._check_chat(user_id, chat_id)
        text = text.strip()[:4096]
        if not text:
            raise ValueError("empty message")
        who = self.user(user_id)
        chat = U.group(GROUP_ID, GROUP_TITLE) if chat_id == GROUP_ID else U.private(who)
        if chat_id == user_id:
            self.fake.start_private(who)
        update = U.command(chat, who, text) if text.startswith("/") else U.text(chat, who, text)
        shown = self.fake.user_message(chat_id, who, text, update["message"].get("entities"))
        update["message"]["message_id"] = shown["message_id"]
        return self.deliver(update)

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> JSON:
        """``user_id`` presses an inline button; returns the status and what the press was answered."""
        self._check_chat(user_id, chat_id)
        msg = self.fake.message(chat_id, message_id)
        if msg is None:
            raise LookupError("that message is gone")
        update = U.press(self.user(user_id), msg, data)
        status = self.deliver(update)
        answer = self.fake.answers.get(update["callback_query"]["id"]) or {}
        return {"status": status, "text": answer.get("text") or "", "alert": bool(answer.get("show_alert"))}

    # ------------------------------------------------------------------------------------------------
    # seating
    # ------------------------------------------------------------------------------------------------

    def user_id_of(self, name: str) -> int:
        """The Telegram user id of the player called ``name``: a new name is a new person (a fresh private
        chat), a name seated before is the same person again."""
        key = name.lower()
        if key not in self._user_ids:
            self._user_ids[key] = FIRST_USER_ID + len(self._user_ids)
        return self._user_ids[key]

    def game_status(self) -> str:
        """The group's session status as the bot stored it ("none", "lobby", "playing", "ended"...)."""
        assert self.worker is not None, "start() first"

        def read() -> str:
            import app

            from gamebot.storage.session import Session, chat_key

            item = app.service().repo.get(chat_key(GROUP_ID))
            return "none" if item is None else Session.from_body(item.body).status

        return self.worker.call(read)

    def table_ai_seats(self) -> int:
        """How many of the group's seats the bot itself plays (its AI seats, added with the lobby's 🤖)."""
        assert self.worker is not None, "start() first"

        def read() -> int:
            import app

            from gamebot.storage.seats import ai_seats
            from gamebot.storage.session import Session, chat_key

            item = app.service().repo.get(chat_key(GROUP_ID))
            session = Session.from_body(item.body) if item is not None else None
            return len(ai_seats([p.id for p in session.players])) if session is not None else 0

        return self.worker.call(read)

    def seat_view(self, user_id: int) -> JSON | None:
        """What ``user_id``'s seat may know of the group's running game: ``engine.view(state, seat)``
        (None when they do not play in it). The only thing of the game a simulated player is given."""
        assert self.worker is not None, "start() first"

        def read() -> JSON | None:
            import app

            import engine
            from gamebot.storage.session import PLAYING, Session, chat_key

            item = app.service().repo.get(chat_key(GROUP_ID))
            session = Session.from_body(item.body) if item is not None else None
            state = session.game() if session is not None and session.status == PLAYING else None
            seats = [p.id for p in session.players] if state is not None else []
            return engine.view(state, seats.index(user_id)) if user_id in seats else None

        return self.worker.call(read)

    def seat(self, players: list[JSON], open_lobby: bool = True) -> list[Seat]:
        """Seat ``players`` (``{"name", "simulated", "lang"}``, at most 10): each opens the bot's private chat;
        the simulated seats are played by :class:`SimulatedPlayers`. ``lang``: the language of the seat's Telegram app (a
        catalog code); none (the default) sends none, so the bot writes to the seat in the group's language. ``open_lobby``: the host (the first person, or the
        first seat if all are simulated) then sends /newgame in the group (closing with /cancel the lobby
        or game still open), and the simulated players join by pressing Join."""
        if not 1 <= len(players) <= MAX_SEATS:
            raise ValueError(f"seat 1 to {MAX_SEATS} players")
        names = [re.sub(r"\s+", " ", str(p.get("name") or "")).strip()[:24] for p in players]
        for i, name in enumerate(names):
            if not name:
                names[i] = U.NAMES[i % len(U.NAMES)]
        if len({n.lower() for n in names}) != len(names):
            raise ValueError("each player needs a different name")
        langs = [str(p.get("lang") or "").strip().lower()[:8] for p in players]
        if any(lang and lang not in self.languages() for lang in langs):
            raise ValueError("a seat's language must be one of " + ", ".join(self.languages()))
        with self._seat_lock:
            seats = []
            for p, name, lang in zip(players, names, langs, strict=True):
                uid = self.user_id_of(name)
                slug = re.sub(r"[^a-z0-9]", "", name.lower()) or "player"
                who = U.user(uid, name, username=f"{slug}{uid}", language_code=lang or None)
                fresh = self.users.get(uid) != who or not self.fake.started(uid)
                self.users[uid] = who
                seats.append(Seat(uid, name, bool(p.get("simulated")), lang))
                if fresh:
                    self.open_private(uid)
            self.seats = seats
            host = next((s for s in seats if not s.simulated), seats[0])
            self.fake.set_admins(GROUP_ID, creator=self.users[host.user_id])
            if self.simulated is not None:
                self.simulated.seat(seats)
            self.fake.touch()
        if open_lobby:
            if self.game_status() in ("lobby", "playing"):  # the new host is the group's creator: may close it
                self.send(host.user_id, GROUP_ID, "/cancel")
            self.send(host.user_id, GROUP_ID, "/newgame")
        return seats

    @staticmethod
    def languages() -> list[str]:
        """The languages a seat's app may speak: the bot's catalogs."""
        from gamebot.language import texts

        return list(texts.languages())

    def default_seats(self, players: int = 5, humans: int = 1) -> list[JSON]:
        return [{"name": U.NAMES[i % len(U.NAMES)], "simulated": i >= humans} for i in range(players)]

    # ------------------------------------------------------------------------------------------------
    # what the page shows
    # ------------------------------------------------------------------------------------------------

    def _message(self, m: JSON) -> JSON:
        sender = m.get("from") or {}
        mine = sender.get("id") != self.fake.bot["id"]
        text = m.get("text", m.get("caption", ""))
        out: JSON = {
            "id": m["message_id"],
            "from": {"id": sender.get("id"), "name": sender.get("first_name", "")} if mine else None,
            "html": html.escape(text, quote=False) if mine else tg_html.render(text, self.bot_username),
            "edited": bool(m.get("edit_date")),
            # its unix date (the last edit's, if edited): the page shows it in the reader's zone, as its
            # deadlines (<tg-time>), never in the server's
            "date": int(m.get("edit_date") or m.get("date") or 0),
            "buttons": [],
        }
        if m.get("photo"):
            out["photo"] = f"/api/file/{m['photo'][-1]['file_id']}"
        for row in (m.get("reply_markup") or {}).get("inline_keyboard") or []:
            line = []
            for b in row:
                if "callback_data" in b:
                    line.append({"text": b["text"], "data": b["callback_data"]})
                elif "url" in b:
                    line.append({"text": b["text"], "url": b["url"],
                                 "start": tg_html.deep_link_payload(b["url"], self.bot_username)})
            out["buttons"].append(line)
        return out

    def snapshot(self, viewer: int | None = None) -> JSON:
        """The page's data. ``viewer`` set: only that player's private chat is included."""
        from gamebot.language.texts import language_name

        version = self.fake.version
        pinned = self.fake.pinned.get(GROUP_ID)
        players = []
        for s in self.seats:
            entry: JSON = {"id": s.user_id, "name": s.name, "simulated": s.simulated, "lang": s.lang,
                           "started": self.fake.started(s.user_id)}
            if viewer is None or viewer == s.user_id:
                entry["messages"] = [self._message(m) for m in self.fake.messages(s.user_id)]
            players.append(entry)
        host = next((s.user_id for s in self.seats if not s.simulated), self.seats[0].user_id if self.seats else None)
        return {
            "version": version,
            "bot": {"name": self.fake.bot.get("first_name", ""), "username": self.bot_username},
            "group": {
                "id": GROUP_ID,
                "title": GROUP_TITLE,
                "pinned": pinned,
                "messages": [self._message(m) for m in self.fake.messages(GROUP_ID)],
            },
            "players": players,
            "table_ai_seats": self.table_ai_seats() if self.worker is not None else 0,
            "host": host,
            "viewer": viewer,
            "sim_delay": self.sim_delay,
            "languages": [{"code": code, "name": language_name(code)} for code in self.languages()],
        }

    def file(self, file_id: str) -> bytes | None:
        return self.fake.files.get(file_id)


# ----------------------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------------------


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _sim_delay_env() -> float:
    """PLAYGROUND_SIM_DELAY, else its former name PLAYGROUND_BOT_DELAY, else the default."""
    return _env_float("PLAYGROUND_SIM_DELAY", _env_float("PLAYGROUND_BOT_DELAY", DEFAULT_SIM_DELAY))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="scripts/run",
        description=(
            "Run the whole bot on this machine with embedded defaults: DynamoDB and the wake-up queue (SQS) "
            "on moto, the timer function woken from that queue, and a web page that stands in for Telegram, on "
            "127.0.0.1. With TELEGRAM_BOT_TOKEN set it runs the real bot by long "
            "polling instead. `scripts/run simulate --help`: the engine alone, in the terminal."
        ),
        epilog="Environment: PLAYGROUND_PORT, PLAYGROUND_PLAYERS, PLAYGROUND_HUMANS, PLAYGROUND_SIM_DELAY, "
               "TELEGRAM_BOT_TOKEN, TELEGRAM_API_BASE_URL. See docs/PLAYGROUND.md.",
    )
    ap.add_argument("--port", type=int, metavar="N", default=_env_int("PLAYGROUND_PORT", DEFAULT_PORT),
                    help=f"port of the page on 127.0.0.1 (default {DEFAULT_PORT}, or a free one if taken; 0: any)")
    ap.add_argument("--players", type=int, metavar="N", default=_env_int("PLAYGROUND_PLAYERS", 5),
                    help="seats at the table, 1-10 (default 5; under 5, the host fills the table with the "
                         "lobby's 🤖 Add a bot)")
    ap.add_argument("--humans", type=int, metavar="N", default=_env_int("PLAYGROUND_HUMANS", 1),
                    help="seats played by people, the rest by simulated players (default 1; 0: watch them play)")
    ap.add_argument("--sim-delay", type=float, metavar="SECONDS", default=_sim_delay_env(),
                    help=f"seconds between two moves of the simulated players (default {DEFAULT_SIM_DELAY})")
    ap.add_argument("--bot-delay", dest="sim_delay", type=float, default=argparse.SUPPRESS,
                    help=argparse.SUPPRESS)  # the option's former name, still accepted
    ap.add_argument("--no-lobby", action="store_true", help="seat the players but do not open a game")
    ap.add_argument("--seed", type=int, metavar="N", default=None, help="seed of the simulated players' choices")
    ap.add_argument("--mode", choices=["auto", "playground", "telegram"], default="auto",
                    help="auto (default): telegram if TELEGRAM_BOT_TOKEN is set, else playground")
    ap.add_argument("-v", "--verbose", action="store_true", help="log every update the bot handles")
    args = ap.parse_args(argv)
    if not 1 <= args.players <= MAX_SEATS:
        ap.error(f"--players must be 1 to {MAX_SEATS}")
    if not 0 <= args.humans <= args.players:
        ap.error("--humans must be 0 to --players")
    if args.sim_delay < 0:
        ap.error("--sim-delay must be >= 0")
    return args


def _elapsed() -> str:
    """Seconds since scripts/run started (PLAYGROUND_T0), else since this module was imported."""
    try:
        t0 = float(os.environ.get("PLAYGROUND_T0") or _IMPORTED)
    except ValueError:
        t0 = _IMPORTED
    return f"{time.time() - t0:.1f} s"


def _quiet(verbose: bool) -> None:
    level = logging.INFO if verbose else logging.WARNING
    for name in ("gamebot", "gamebot.webhook", "localdev"):
        logging.getLogger(name).setLevel(level)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)


def _port_free(port: int) -> bool:
    """Whether 127.0.0.1:``port`` can be listened on (as the page's server would: SO_REUSEADDR)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def serve(pg: Playground, port: int) -> Any:
    """The page's HTTP server on 127.0.0.1 only (``port``; taken: a free one). Not yet serving."""
    from werkzeug.serving import make_server

    from localdev.web import create_app

    app = create_app(pg)
    if port and not _port_free(port):  # (werkzeug's make_server would exit the process)
        print(f"Port {port} is taken: using a free one (choose with --port).", flush=True)
        port = 0
    return make_server("127.0.0.1", port, app, threaded=True)


def run_playground(args: argparse.Namespace) -> None:
    pg = Playground(sim_delay=args.sim_delay, seed=args.seed).start()
    _quiet(args.verbose)
    server = serve(pg, args.port)
    url = f"http://127.0.0.1:{server.server_port}/"

    def play() -> None:
        pg.seat(pg.default_seats(args.players, args.humans), open_lobby=not args.no_lobby)
        print(f"\nAvalon playground: {url}")
        people = [s for s in pg.seats if not s.simulated]
        for s in people:
            print(f"  {s.name}'s own tab: {url}?as={s.user_id}")
        print(f"  {len(pg.seats) - len(people)} simulated player(s), one move every {pg.sim_delay:g} s. Ctrl-C stops.")
        print(f"ready in {_elapsed()}", flush=True)
        server.serve_forever(poll_interval=0.2)  # werkzeug's returns on Ctrl-C / SIGTERM

    _until_stopped(play, server.server_close, pg.stop)


def run_telegram(args: argparse.Namespace) -> None:
    from localdev.poller import Poller, PollError

    token = os.environ.get("TELEGRAM_BOT_TOKEN", "")
    if not token:
        raise SystemExit("TELEGRAM_BOT_TOKEN is not set: it is needed to run the real bot.")
    api_base = os.environ.get("TELEGRAM_API_BASE_URL", "https://api.telegram.org")
    poller = Poller(api_base, token, lambda update: 500)  # delivers once the playground runs
    try:
        me = poller.prepare()
    except PollError as exc:
        poller.close()
        raise SystemExit(f"The Bot API refused the bot: {exc}") from None
    if poller.removed_webhook:
        print(f"Removed the webhook {poller.removed_webhook} (getUpdates needs that). Put it back later with "
              "scripts/set_webhook.py or a deploy: see docs/PLAYGROUND.md.")
    pg = Playground(mode="telegram", token=token, api_base=api_base).start()
    _quiet(args.verbose)
    poller.deliver = pg.deliver
    pg.worker.perform = poller.perform  # with long polling the bot performs its webhook answer itself
    stop = threading.Event()

    def poll() -> None:
        print(f"\nReal bot mode: @{me.get('username')} answers on Telegram by long polling, on this machine.")
        print("DynamoDB is local and in memory: games end when this stops. Ctrl-C stops.")
        print(f"ready in {_elapsed()}", flush=True)
        poller.run(stop)

    _until_stopped(poll, stop.set, poller.close, pg.stop)


def _until_stopped(run: Any, *cleanups: Any) -> None:
    """``run()`` until Ctrl-C (or SIGTERM), then every cleanup in order, whatever happened."""
    try:
        run()
    except KeyboardInterrupt:
        pass
    finally:
        print("\nstopping", flush=True)
        for cleanup in cleanups:
            cleanup()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM stops as cleanly as Ctrl-C


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # request lines of moto and the page
    args = parse_args(argv)
    mode = args.mode
    if mode == "auto":
        mode = "telegram" if os.environ.get("TELEGRAM_BOT_TOKEN") else "playground"
    if mode == "telegram":
        run_telegram(args)
    else:
        run_playground(args)


if __name__ == "__main__":
    main()
