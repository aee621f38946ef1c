"""Helpers for the reliability tests: game set-ups covering every role and module, a driver that
recovers from refused presses and lost messages, and direct access to the stored lobby settings.

The driver still plays like a person (it reads chats and presses buttons); it never reads the game
state. It only differs from ``localdev.autoplay.Driver`` in how it gets unstuck: when nothing can be
pressed it first tries its refused presses again (a vote or a card whose message may look unchanged),
then asks the bot with ``/status`` (in the group and in private), as the help tells players to do when
a message is missing.
"""
from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Any

from gamebot.storage.session import Session, chat_key
from gamebot.storage.store import Item
from localdev.autoplay import Driver

# Every character and every module, in 10-player tables (6 Good, 4 Evil) the engine accepts.
ALL_MODULES = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
SETUPS: dict[str, tuple[str, int, list[str], dict[str, Any]]] = {
    "base": ("avalon", 10, ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"], dict(ALL_MODULES)),
    "lancelot_rogue_sorcerer": (
        "avalon", 10,
        ["merlin", "assassin", "good_lancelot", "evil_lancelot", "good_rogue", "evil_rogue", "good_sorcerer",
         "evil_sorcerer"],
        {**ALL_MODULES, "lancelot": "bigbox_switch", "sorcerer_hidden": True},
    ),
    "messengers_liars": (
        "avalon", 10,
        ["merlin", "assassin", "good_messenger", "good_messenger", "evil_messenger", "cleric", "troublemaker",
         "untrustworthy_servant", "trickster"],
        {**ALL_MODULES, "senior_junior_messengers": True},
    ),
    "lancelot_lunatic_brute": (
        "avalon", 10, ["merlin", "assassin", "percival", "good_lancelot", "evil_lancelot", "lunatic", "brute"],
        {**ALL_MODULES, "lancelot": "bigbox_predealt"},
    ),
    "revealer_mordred": (
        "avalon", 10, ["merlin", "assassin", "percival", "revealer", "mordred", "cleric"], dict(ALL_MODULES),
    ),
    "resistance": ("resistance", 10, [], {"plot_cards": True, "targeting": True, "blind_spies": True}),
}


def final_state(repo: Any, chat_id: int) -> Any:
    """The engine state of the chat's game: in the session while it runs, in its archive once finished."""
    from gamebot.storage.session import archive_key

    session = Session.from_body(repo.get(chat_key(chat_id)).body)
    if session.state:
        return session.game()
    from engine import GameState

    return GameState.from_json(repo.get(archive_key(chat_id, session.game_id)).body["state"])


def covered_roles() -> set[str]:
    return {r for _, _, roles, _ in SETUPS.values() for r in roles}


def set_settings(repo: Any, chat_id: int, theme: str, roles: list[str], options: dict[str, Any]) -> None:
    """Change the open lobby's settings in storage (what the host's settings panel would do)."""
    item = repo.get(chat_key(chat_id))
    session = Session.from_body(item.body)
    session.settings.theme = theme
    session.settings.roles = list(roles)
    session.settings.options = dict(options)
    session.settings.preset = None
    repo.put(Item(key=item.key, body=session.body()), item.version)


@dataclass
class RobustDriver(Driver):
    """``Driver`` that asks for /status when stuck (a message lost to a Telegram fault)."""

    status: Any = None  # status(user_id, chat_id): send /status there
    stuck: int = 0  # how many times the driver had to ask for /status

    def play(self, max_steps: int = 3000) -> int:
        steps = stuck = 0
        looked: tuple | None = None  # what was on screen when refused presses were last tried again
        idle = getattr(self.screen, "idle", None)
        while not self.over() and steps < max_steps:
            if self.step() or (idle is not None and idle()):  # (idle: what waits in the outbox goes out)
                steps += 1
                stuck = 0
                continue
            if stuck >= 5:
                break
            stuck += 1
            # a press refused earlier (someone votes in the open first) is tried again first: the round
            # message's progress is coalesced, so it may look the same as when it was refused
            if stuck == 1:  # (once until something changes: presses refused again change nothing)
                now = self.snapshot()
                if now != looked and self.look_again():
                    looked = now
                    continue
            if self.status is not None:
                self.stuck += 1  # nothing to press: a message may be lost; ask the bot again
                self.status(self.players[0], self.group)
                for user in self.players:
                    self.status(user, user)
            self.forget()
        return steps


def play_started(h: Any, players: list[int], seed: int) -> RobustDriver:
    """The host (``players[0]``) starts the open lobby of the harness ``h`` and the players play it to its
    end by reading their chats (/status when stuck), then whatever waited in the outbox goes out."""
    from localdev.autoplay import Policy
    from tests.unit.gamebot_fakes import HarnessScreen

    h.press_label(players[0], h.group, "Start")
    driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(seed)),
                          status=lambda u, c: h.command(u, "/status", chat_id=c))
    driver.play()
    while h.idle():
        pass
    return driver


def until_vote(driver: Driver, screen: Any, group: int) -> dict[str, Any] | None:
    """Let the Leader (and any private decision before the vote) act until a vote message is open."""
    for _ in range(200):
        for m in reversed(screen.messages(group)):
            if any("Approve" in b["text"] for row in m["buttons"] for b in row):
                return m
        if driver.over() or not (driver._private() or driver._picker()):
            return None
    return None


# ---------------------------------------------------------------------------------------------------
# Lambda containers against moto_server and the fake Bot API
# ---------------------------------------------------------------------------------------------------

from tests.e2e.conftest import SECRET, TOKEN  # noqa: E402,F401 - the fake Bot API fixture's token
from tests.moto_server import aws_dynamo_client, dynamo_client  # noqa: E402


def create_table(endpoint: str, name: str) -> None:
    """The game table as template.yaml defines it, on the moto server."""
    import os

    from localdev.tables import create_table_from_template

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    create_table_from_template(dynamo_client(endpoint), name, os.path.join(root, "template.yaml"))


class Container:
    """One Lambda container: its own event loop, Bot (HTTP client), DynamoDB client and Service, built
    by ``gamebot.core.runtime.build_service`` as the webhook's cold start does."""

    def __init__(self, endpoint: str, fake: Any, table: str, seeds: random.Random | None = None) -> None:
        import asyncio

        from gamebot.core.runtime import build_service
        from gamebot.environment import Environment

        self.loop = asyncio.new_event_loop()
        # no group budget: these containers play at full speed
        settings = Environment(bot_token=TOKEN, api_base_url=fake.base_url, table_name=table,
                               aws_endpoints=(("DYNAMODB", endpoint),), group_messages_per_minute=0)
        self.service = self.loop.run_until_complete(build_service(settings))
        # not the process-wide client: one per container (ours, as the Lambda functions have it)
        self.service.repo._client = aws_dynamo_client(endpoint)
        self.service.seeds = seeds

    def handle(self, update: dict[str, Any]) -> int:
        """As the webhook does: a button of the running game has its group's session read ahead."""
        with self.service.reading_ahead(update):
            return self.loop.run_until_complete(self.service.handle(update))

    def close(self) -> None:
        self.loop.run_until_complete(self.service.io.bot.request.shutdown())
        self.loop.close()


def session_of(container: Container, group: int) -> Session:
    """The group's session as stored now (read through ``container``'s repository)."""
    return Session.from_body(container.service.repo.get(chat_key(group)).body)


def all_at_once(containers: list[Container], updates: list[dict[str, Any]]) -> list[Any]:
    """Deliver ``updates[i]`` through ``containers[i]``, all threads released together: each one's status,
    or the exception it raised (reported by the caller's assertion)."""
    barrier = threading.Barrier(len(updates))
    statuses: list[Any] = [None] * len(updates)

    def run(i: int) -> None:
        barrier.wait()
        try:
            statuses[i] = containers[i].handle(updates[i])
        except BaseException as exc:  # noqa: BLE001 - reported by the caller's assertion
            statuses[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(updates))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


class ContainerTable:
    """A ``localdev.autoplay.Screen`` over the fake Bot API whose presses go to one container."""

    def __init__(self, fake: Any, container: Container, group: int) -> None:
        from localdev import updates as U

        self.U = U
        self.fake = fake
        self.container = container
        self.group = group
        self.statuses: list[int] = []

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        out = []
        for m in self.fake.messages(chat_id):
            rows = (m.get("reply_markup") or {}).get("inline_keyboard") or []
            buttons = [[{"text": b.get("text", ""), "data": b.get("callback_data"), "url": b.get("url")} for b in row]
                       for row in rows]
            out.append({"message_id": m["message_id"], "text": m.get("text", ""), "buttons": buttons})
        return out

    def post(self, update: dict[str, Any]) -> int:
        status = self.container.handle(update)
        self.statuses.append(status)
        return status

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> int:
        return self.post(self.U.press(self.U.user(user_id), self.fake.message(chat_id, message_id), data))

    def button(self, chat_id: int, contains: str) -> tuple[dict[str, Any], str]:
        for m in reversed(self.messages(chat_id)):
            for row in m["buttons"]:
                for b in row:
                    if contains in b["text"] and b["data"]:
                        return m, b["data"]
        raise AssertionError(f"no button {contains!r} in chat {chat_id}")

    def press_label(self, user_id: int, chat_id: int, contains: str) -> int:
        msg, data = self.button(chat_id, contains)
        return self.press(user_id, chat_id, msg["message_id"], data)

    def status(self, user_id: int, chat_id: int) -> int:
        chat = self.U.group(chat_id) if chat_id < 0 else self.U.private(self.U.user(user_id))
        return self.post(self.U.command(chat, self.U.user(user_id), "/status"))

    def open_lobby(self, players: list[int]) -> None:
        self.fake.add_group(self.group, "Avalon Test Group")
        for uid in players:
            self.fake.start_private(self.U.user(uid))
            self.post(self.U.start(self.U.user(uid)))
        self.post(self.U.command(self.U.group(self.group), self.U.user(players[0]), "/newgame"))
        for uid in players[1:]:
            self.press_label(uid, self.group, "Join")
