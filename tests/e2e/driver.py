"""A bot driver for tests: plays games by reading what each chat shows and pressing buttons, as the
players would on their phones. It never looks at the game state.

The driver works on a :class:`Screen`: ``messages(chat_id)`` lists a chat's messages as dicts
``{"message_id", "text", "buttons": [[{"text", "data" | "url"}]]}`` (oldest first, current text and
keyboard), and ``press(user_id, chat_id, message_id, data)`` delivers a button press. Adapters exist for
``localdev.fake_telegram.FakeTelegram`` (through ``lambda_handler``) and for the unit tests' recording IO.

Reading the table like a person:
* the group's newest "Propose team" keyboard belongs to the Leader named (mentioned) in its text;
* a vote message with Approve / Reject buttons is answered by every player once;
* anything with buttons in a player's private chat is a decision for that player (quest cards, Lady
  of the Lake, assassination, and any prompt a plug-in adds): pick buttons, then Confirm if there is one.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

MENTION = re.compile(r"tg://user\?id=(\d+)")
COUNT = re.compile(r"\((\d+)/(\d+)\)")


@dataclass(frozen=True)
class Words:
    """The words a player reads on the buttons and messages, in the table's language."""

    confirm: str = "Confirm"
    quest: tuple[str, ...] = ("Quest", "Mission")
    pass_: str = "Pass"
    fail: str = "Fail"
    approve: str = "Approve"
    reject: str = "Reject"
    voted: str = "Voted ("
    and_: str = " and "
    propose: str = "Propose team"
    over: tuple[str, ...] = ("Game over", "Game cancelled")
    join: str = "Join"
    settings: str = "Settings"
    characters: str = "Characters"
    back: str = "Back"
    options: str = "Options"
    done: str = "Done"
    start: str = "Start"


ENGLISH = Words()
FRENCH = Words(
    confirm="Confirmer", quest=("Quête", "Mission"), pass_="Passer", fail="Échec", approve="Approuver",
    reject="Rejeter", voted="Ont voté (", and_=" et ", propose="Proposer l'Équipe",
    over=("Fin de la partie", "Partie annulée"), join="Rejoindre", settings="Réglages", characters="Personnages",
    back="Retour", options="Options", done="Terminé", start="Commencer",
)


class Screen(Protocol):
    def messages(self, chat_id: int) -> list[dict[str, Any]]: ...
    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> Any: ...


def _look(msg: dict[str, Any]) -> str:
    """What a person sees of a message: its text and its button labels."""
    labels = "|".join(b.get("text", "") for row in msg.get("buttons") or [] for b in row)
    return f"{msg['text']}#{labels}"


def _buttons(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for row in msg.get("buttons") or [] for b in row if b.get("data")]


@dataclass
class Policy:
    """How the simulated players decide. ``fail_rate``: chance an Evil player (who has a Fail
    button) fails a quest; ``approve_rate``: chance of an Approve vote."""

    rng: random.Random = field(default_factory=lambda: random.Random(1))
    approve_rate: float = 0.7
    fail_rate: float = 0.5
    vote: Callable[[int, dict[str, Any]], bool] | None = None  # (user, vote message) -> approve?


@dataclass
class Driver:
    screen: Screen
    group: int
    players: list[int]
    policy: Policy = field(default_factory=Policy)
    words: Words = ENGLISH
    presses: int = 0
    _voted: set[tuple[int, str, str]] = field(default_factory=set)
    _dead: set[tuple[int, int, str]] = field(default_factory=set)

    # --- looking -------------------------------------------------------------------------------
    def group_texts(self) -> list[str]:
        return [m["text"] for m in self.screen.messages(self.group)]

    def over(self) -> bool:
        return any(any(w in t for w in self.words.over) for t in self.group_texts())

    def _press(self, user: int, chat: int, msg: dict[str, Any], data: str) -> None:
        self.presses += 1
        self.screen.press(user, chat, msg["message_id"], data)

    # --- acting --------------------------------------------------------------------------------
    def step(self) -> bool:
        """Make one decision somewhere. False when nobody has anything to press."""
        return self._private() or self._vote() or self._picker()

    def play(self, max_steps: int = 2000) -> int:
        steps = 0
        while not self.over() and steps < max_steps:
            if not self.step():
                break
            steps += 1
        return steps

    def _private(self) -> bool:
        for user in self.players:
            msgs = self.screen.messages(user)
            for msg in reversed(msgs):
                buttons = _buttons(msg)
                if not buttons:
                    continue
                key = (user, msg["message_id"], _look(msg))
                if key in self._dead:
                    continue
                self._dead.add(key)  # one attempt per shown state of a message
                self._answer_prompt(user, msg, buttons)
                return True
        return False

    def _answer_prompt(self, user: int, msg: dict[str, Any], buttons: list[dict[str, Any]]) -> None:
        rng = self.policy.rng
        w = self.words
        confirm = next((b for b in buttons if w.confirm in b["text"]), None)
        toggles = [b for b in buttons if b["text"].startswith(("▫️", "✅"))]
        quests = [b for b in buttons if any(q in b["text"] for q in w.quest)]
        passes = [b for b in buttons if w.pass_ in b["text"]]
        fail = [b for b in buttons if w.fail in b["text"]]
        if confirm is not None:
            m = COUNT.search(confirm["text"])
            chosen, size = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
            if quests and not any(b["text"].startswith("🎯") for b in quests):
                self._press(user, user, msg, rng.choice(quests)["data"])
            elif chosen < size and toggles:
                free = [b for b in toggles if b["text"].startswith("▫️")]
                self._press(user, user, msg, rng.choice(free or toggles)["data"])
            else:
                choices = [b for b in buttons if b not in toggles and b not in quests and b is not confirm and b not in passes]
                if choices and not any(b["text"].startswith("🔘") for b in choices):
                    self._press(user, user, msg, rng.choice(choices)["data"])
                else:
                    self._press(user, user, msg, confirm["data"])
            return
        if fail and rng.random() < self.policy.fail_rate:
            self._press(user, user, msg, fail[0]["data"])
            return
        options = [b for b in buttons if b not in fail] or buttons
        if passes and len(options) > 1 and rng.random() < 0.5:
            options = [b for b in options if b not in passes]
        self._press(user, user, msg, rng.choice(options)["data"])

    def _vote(self) -> bool:
        for msg in reversed(self.screen.messages(self.group)):
            buttons = _buttons(msg)
            approve = next((b for b in buttons if self.words.approve in b["text"]), None)
            reject = next((b for b in buttons if self.words.reject in b["text"]), None)
            if approve is None or reject is None:
                continue
            voted_line = next((line for line in msg["text"].split("\n") if line.startswith(self.words.voted)), "")
            names = voted_line.partition(":")[2]
            voted = {name.strip() for name in re.split(f",|{re.escape(self.words.and_)}", names)}
            for user in self.players:
                if self.name_of(user) in voted:
                    continue
                key = (user, approve["data"], _look(msg))  # a refused press is retried once the message changes
                if key in self._voted:
                    continue
                self._voted.add(key)
                if self.policy.vote is not None:
                    yes = self.policy.vote(user, msg)
                else:
                    yes = self.policy.rng.random() < self.policy.approve_rate
                self._press(user, self.group, msg, (approve if yes else reject)["data"])
                return True
            return False
        return False

    def _picker(self) -> bool:
        for msg in reversed(self.screen.messages(self.group)):
            buttons = _buttons(msg)
            confirm = next((b for b in buttons if self.words.propose in b["text"]), None)
            if confirm is None:
                continue
            m = MENTION.search(msg.get("html") or msg["text"]) if msg.get("html") or "tg://" in msg["text"] else None
            leader = int(m.group(1)) if m else self._leader_by_name(msg["text"])
            if leader is None or leader not in self.players:  # a Leader the driver does not play waits
                return False
            key = (leader, msg["message_id"], _look(msg))
            if key in self._dead:
                return False
            self._dead.add(key)
            quests = [b for b in buttons if b["text"].startswith((*self.words.quest, "🎯"))]
            toggles = [b for b in buttons if b["text"].startswith(("▫️", "✅"))]
            count = COUNT.search(confirm["text"])
            if quests and not any(b["text"].startswith("🎯") for b in quests):
                self._press(leader, self.group, msg, self.policy.rng.choice(quests)["data"])
            elif count and int(count.group(1)) < int(count.group(2)):
                free = [b for b in toggles if b["text"].startswith("▫️")]
                self._press(leader, self.group, msg, self.policy.rng.choice(free)["data"])
            elif count and int(count.group(1)) > int(count.group(2)):
                chosen = [b for b in toggles if b["text"].startswith("✅")]
                self._press(leader, self.group, msg, self.policy.rng.choice(chosen)["data"])
            else:
                self._press(leader, self.group, msg, confirm["data"])
            return True
        return False

    names: dict[str, int] = field(default_factory=dict)

    def name_of(self, user: int) -> str:
        """The name the bot shows for ``user`` (the test users of ``localdev.updates``)."""
        from localdev import updates as U

        return U.user(user)["first_name"]

    def _leader_by_name(self, text: str) -> int | None:
        for name, uid in self.names.items():
            if text.startswith(f"👑 {name},"):
                return uid
        return None


# ---------------------------------------------------------------------------------------------------
# Playing through the real Lambda handler against the fake Bot API server
# ---------------------------------------------------------------------------------------------------


class LambdaTable:
    """A Telegram group as the webhook Lambda sees it: updates are posted through ``lambda_handler``
    (with the secret header) and what the bot sent is read back from ``FakeTelegram``."""

    def __init__(self, fake: Any, secret: str, group: int = -1001000000001, title: str = "Avalon Test Group",
                 words: Words = ENGLISH, language_code: str | None = "en") -> None:
        from localdev import updates as U

        self.U = U
        self.words = words
        self.language_code = language_code  # what every test user's Telegram app is set to
        self.fake = fake
        self.secret = secret
        self.group = group
        self.title = title
        self.statuses: list[int] = []
        self.last_update: dict[str, Any] | None = None

    # --- Screen ------------------------------------------------------------------------------------
    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        out = []
        for m in self.fake.messages(chat_id):
            rows = (m.get("reply_markup") or {}).get("inline_keyboard") or []
            buttons = [[{"text": b.get("text", ""), "data": b.get("callback_data"), "url": b.get("url")} for b in row]
                       for row in rows]
            out.append({"message_id": m["message_id"], "text": m.get("text", ""), "buttons": buttons})
        return out

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> int:
        msg = self.fake.message(chat_id, message_id)
        return self.post(self.U.press(self.user(user_id), msg, data))

    # --- posting updates -----------------------------------------------------------------------------
    def post(self, update: dict[str, Any], secret: str | None = "__default__") -> int:
        import app

        self.last_update = update
        event = self.U.webhook_event(update, self.secret if secret == "__default__" else secret)
        status = app.lambda_handler(event, None)["statusCode"]
        self.statuses.append(status)
        return status

    def user(self, uid: int) -> dict[str, Any]:
        return self.U.user(uid, language_code=self.language_code)

    def start_private(self, uid: int) -> int:
        """The user opens the bot's private chat and presses Start."""
        self.fake.start_private(self.user(uid))
        return self.post(self.U.start(self.user(uid)))

    def command(self, uid: int, text: str, chat: int | None = None) -> int:
        chat_id = self.group if chat is None else chat
        chat_obj = self.U.group(chat_id, self.title) if chat_id < 0 else self.U.private(self.user(uid))
        return self.post(self.U.command(chat_obj, self.user(uid), text))

    def press_label(self, uid: int, chat_id: int, contains: str) -> int:
        for m in reversed(self.messages(chat_id)):
            for row in m["buttons"]:
                for b in row:
                    if contains in b["text"] and b["data"]:
                        return self.press(uid, chat_id, m["message_id"], b["data"])
        raise AssertionError(f"no button {contains!r} in chat {chat_id}")

    def open_lobby(self, players: list[int], roles: list[str] = (), options: list[str] = ()) -> None:
        """Everyone starts the bot; the first player opens a lobby, sets the characters and options
        through the settings panel, the others join."""
        self.fake.add_group(self.group, self.title)
        host = players[0]
        for uid in players:
            self.start_private(uid)
        self.command(host, "/newgame")
        for uid in players[1:]:
            self.press_label(uid, self.group, self.words.join)
        if roles or options:
            w = self.words
            self.press_label(host, self.group, w.settings)
            self.press_label(host, host, w.characters)
            for r in roles:
                self.press_label(host, host, r)
            self.press_label(host, host, w.back)
            if options:
                self.press_label(host, host, w.options)
                for o in options:
                    self.press_label(host, host, o)
                self.press_label(host, host, w.back)
            self.press_label(host, host, w.done)

    def start_game(self, host: int) -> int:
        return self.press_label(host, self.group, self.words.start)
