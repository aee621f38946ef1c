"""Simulated players: they read their chats and press buttons, as people do on their phones.

Used by the local playground (in the seats marked simulated) and by the tests (in every seat). A simulated
player never looks at the game state. Given ``Driver.views`` (as in the playground), each decision
comes from ``engine.policy.decide`` given only that player's own seat's view (``engine.view``), and
the page is read to find and press its buttons; without it, a player decides from what Telegram shows
it, a chat's messages and their inline keyboards, through a :class:`Screen`:

* ``messages(chat_id)`` lists a chat's messages as dicts ``{"message_id", "text", "buttons":
  [[{"text", "data" | "url"}]]}`` (oldest first, current text and keyboard);
* ``press(user_id, chat_id, message_id, data)`` delivers a button press.

:class:`FakeTelegramScreen` is that Screen over ``localdev.fake_telegram.FakeTelegram``, with presses
delivered as webhook updates through a ``deliver(update) -> HTTP status`` function (``lambda_handler``
directly in tests, the playground's single webhook worker there). :class:`WebhookTable` adds what a
test needs to set a table up (players starting the bot, a lobby with characters and options).

How a :class:`Driver` reads the table, like a person:

* its own role card ("Your secret role...") tells it its side and whom it knows (:class:`Mind`);
* a "Propose team" keyboard in a player's private chat means that player leads: a Leader puts
  themself on the team, then players they trust;
* a vote message with Approve / Reject is answered once by every player who has not voted: a player
  approves a team they are on, Good rejects a team with someone it knows to be Evil and approves the
  fifth team of a round (its rejection would hand Evil the game), Evil approves teams with Evil on
  them;
* the quest's card buttons under the round message in the group are pressed by each of its players
  on the team (named in the message): Good plays a card counting as Success, Evil plays a card
  counting as Fail with ``fail_rate``, each among the cards its role card lists first ("Your quest
  cards now: ..."). A refused press leaves the group message as it was: the player tries another of
  its cards (a press that went in may look the same too, its progress coalesced: the next press is
  then refused, which does no harm);
* anything with buttons in a player's private chat is a decision for that player (Lady of the Lake,
  assassination, the Plot cards, any prompt a plug-in adds): targets are chosen among people it does
  not already know about;
* a keyboard of toggles (the team picker, a prompt with Confirm) is drawn again at every tap, so the
  marks on screen are the selection; a player still remembers what they tapped since the message last
  changed (``Taps``), in case an edit is late (Telegram's flood control holds it back);
* with ``lobby=True`` it also presses Join on an open lobby for each of its players who is not
  listed yet, and, when one of its players is the host, Start once ``start_at`` players have joined.

The wording it reads is the bot's own catalog (``gamebot.language.texts``), in the language each chat is written
in (:func:`detect_words`), or the one ``Driver.words`` names.
"""
from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from localdev import updates as U

PRIVATE_TRIES = 6  # presses on one unchanged private message before giving up on it
TOGGLES = ("▫️", "✅")  # the marks of a toggle button (not chosen, chosen)
MENTION = re.compile(r"tg://user\?id=(\d+)")
COUNT = re.compile(r"\((\d+)/(\d+)\)")
TAG = re.compile(r"<[^>]+>")
JSON = dict[str, Any]


@dataclass(frozen=True)
class Words:
    """The words a player reads on the buttons and messages, in the table's language."""

    lang: str = "en"
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
    start: str = "Start"
    add_ai_seat: str = "Add a bot"
    host: str = "Host: "
    settings: str = "Settings"
    characters: str = "Characters"
    back: str = "Back"
    options: str = "Options"
    done: str = "Done"
    you_are: str = "You are "
    attempt: str = r"team (\d+) of 5"


    @classmethod
    def of(cls, lang: str) -> Words:
        """The words of the bot's catalog in ``lang`` (``gamebot.language.texts``): any catalog language reads."""
        return _catalog_words(lang)


BLANK, MARK = "\x00", "\x01"


def _before_blank(key: str, lang: str, theme: str = "avalon", **given: str) -> str:
    """A catalog sentence's visible text up to its first blank (``"Voted ("``, ``"Host: "``)."""
    from gamebot.language import texts

    blanks = {f: BLANK for f in texts.fields(key, lang, theme) if f not in given}
    return plain(texts.t(key, lang, theme, **blanks, **given)).split(BLANK)[0]


def _word(key: str, lang: str, theme: str = "avalon") -> str:
    """A button's or title's word, without its emoji, blanks and closing punctuation (``"✔️ Confirm ({count}/
    {size})"`` -> ``"Confirm"``)."""
    text = re.sub(r"^\W+", "", _before_blank(key, lang, theme))
    return re.sub(r"[\s(.:!]+$", "", text)


def _around(key: str, field_: str, lang: str, theme: str = "avalon") -> str:
    """A regex for the words around one number of a catalog sentence (``team (\\d+) of 5``)."""
    from gamebot.language import texts

    blanks = {f: BLANK for f in texts.fields(key, lang, theme)}
    blanks[field_] = MARK
    line = next(li for li in plain(texts.t(key, lang, theme, **blanks)).split("\n") if MARK in li)
    left, _, right = line.partition(MARK)
    left = re.split(r"[\x00,·:]", left)[-1].lstrip()
    right = re.split(r"[\x00,·:]", right)[0].rstrip()
    return re.escape(left) + r"(\d+)" + re.escape(right)


@functools.cache
def _catalog_words(lang: str) -> Words:
    from gamebot.language import texts

    return Words(
        lang=lang,
        confirm=_word("prompt.button.confirm", lang),
        quest=tuple(dict.fromkeys(texts.vocab(lang, th).get("Quest") or "Quest" for th in ("avalon", "resistance"))),
        pass_=_word("prompt.button.pass", lang),
        fail=re.sub(r"^\W+", "", texts.name_of("card", "fail", lang)),
        approve=_word("vote.button.approve", lang),
        reject=_word("vote.button.reject", lang),
        voted=_before_blank("vote.progress", lang),
        and_=texts.join_names(["A", "B"], lang)[1:-1],
        propose=_word("team.button.confirm", lang),
        over=tuple(dict.fromkeys(_word(k, lang) for k in ("board.ended", "board.cancelled", "end.title.none"))),
        join=_word("lobby.button.join", lang),
        start=_word("lobby.button.start", lang),
        add_ai_seat=_word("lobby.button.add_ai_seat", lang),
        host=_before_blank("lobby.host", lang),
        settings=_word("lobby.button.settings", lang),
        characters=_word("settings.button.roles", lang),
        back=_word("settings.button.back", lang),
        options=_word("settings.button.modules", lang),
        done=_word("settings.button.done", lang),
        you_are=_before_blank("role.you_are", lang),
        attempt=_around("vote.title", "attempt", lang),
    )


def catalog_languages() -> list[str]:
    from gamebot.language import texts

    return list(texts.languages())




class Screen(Protocol):
    def messages(self, chat_id: int) -> list[JSON]: ...
    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> Any: ...
    # optional: ``idle() -> bool`` lets time pass when nobody can act (what waits in the outbox goes out)


def plain(text: str) -> str:
    """The visible text of a Telegram HTML string (tags removed, entities decoded)."""
    import html

    return html.unescape(TAG.sub("", text or ""))


def proposed_team(text: str, w: Words) -> set[str]:
    """The team a round message proposes: after the last ": " of the line under its 🗳 title (the news
    that came with the vote may stand above the title)."""
    lines = plain(text).split("\n")
    title = next((i for i, line in enumerate(lines) if line.startswith("🗳")), 0)
    return set(split_names(lines[title + 1].rpartition(": ")[2], w.and_)) if len(lines) > title + 1 else set()


def split_names(text: str, and_: str = " and ") -> list[str]:
    """``"Bob, Carol and Dave"`` -> ``["Bob", "Carol", "Dave"]``."""
    parts = re.split(f", |{re.escape(and_)}", text.strip())
    return [p.strip() for p in parts if p.strip()]


ENGLISH = Words.of("en")
FRENCH = Words.of("fr")
DETECT_WINDOW = 8  # the newest messages of a chat that tell its language


@functools.cache
def _signature(lang: str) -> frozenset[str]:
    """Phrases that say a message is written in ``lang`` (buttons, fixed beginnings, quest words)."""
    w = Words.of(lang)
    cards = [label for label in _words(w.lang)["cards"]]
    return frozenset((w.join, w.start, w.settings, w.approve, w.reject, w.voted, w.propose, w.confirm, w.pass_,
                      w.host, w.you_are, *w.over, *w.quest, *cards))


@functools.lru_cache(maxsize=4096)
def _language_of(seen: str) -> str | None:
    """The catalog language whose phrases ``seen`` (a message as a person sees it) holds most, if one
    does more than any other. A longer phrase found wins: "Confirmer" holds "Confirm", "Mission" is in
    both. (Kept per text: a game shows the same board and buttons many times.)"""
    scores = sorted(((sum(len(p) for p in _signature(lang) if p in seen), lang) for lang in catalog_languages()),
                    reverse=True)
    if scores[0][0] > (scores[1][0] if len(scores) > 1 else 0):
        return scores[0][1]
    return None


def detect_words(messages: list[JSON]) -> Words:
    """The words of the catalog language ``messages`` are written in: the newest message whose phrases
    say (English when none does)."""
    for msg in reversed(messages[-DETECT_WINDOW:]):
        lang = _language_of(_look(msg))
        if lang is not None:
            return Words.of(lang)
    return ENGLISH


def _look(msg: JSON) -> str:
    """What a person sees of a message: its text and its button labels."""
    labels = "|".join(b.get("text", "") for row in msg.get("buttons") or [] for b in row)
    return f"{msg['text']}#{labels}"


def _buttons(msg: JSON) -> list[JSON]:
    return [b for row in msg.get("buttons") or [] for b in row if b.get("data")]


def _op(button: JSON) -> str:
    """What a button does, from its callback data (``scope:chat:game:serial:op:mac``, gamebot.botapi.callbacks)."""
    parts = (button.get("data") or "").split(":")
    return parts[4] if len(parts) == 6 else ""


def _seat(button: JSON) -> int | None:
    """The seat a player's button stands for (its op ends in ``t<seat>``)."""
    m = re.search(r"t(\d+)$", _op(button))
    return int(m.group(1)) if m else None


def _label_name(text: str) -> str:
    """The player name on a toggle button such as ``"▫️ Bob"`` or ``"✅ Bob"``."""
    return text.split(" ", 1)[1].strip() if " " in text else text.strip()


@functools.cache
def _words(lang: str = "en") -> JSON:
    """The catalog phrases a player recognises, in both themes."""
    from engine import ROLES
    from engine import cards as quest_cards
    from gamebot.language import texts, wording
    from gamebot.messages.table import Table

    themes = ("avalon", "resistance")
    tables = [Table(chat_id=0, game_id="", lang=lang, theme=th) for th in themes]
    return {
        # a quest card's label -> what it counts as (the rules every player knows)
        "cards": {table.card(card): counts for table in tables for card, counts in quest_cards.CARDS.items()},
        "evil_side": [texts.t("side.evil.team", lang, th) for th in themes],
        # "You are a Spy.": a role card whose character's name says the side
        "evil_named": [plain(table.t("role.you_are_named", role=wording.role_a(table, rid)))
                       for table in tables for rid, role in ROLES.items() if role.side.value == "evil"],
        "evil_labels": {texts.t("know.evil", lang, th) for th in themes},
        "now_side": [plain(texts.t("priv.AllegianceChanged", lang, th, side=texts.t("side.evil", lang, th)))
                     for th in themes],
        "now_good": [plain(texts.t("priv.AllegianceChanged", lang, th, side=texts.t("side.good", lang, th)))
                     for th in themes],
    }


@dataclass
class Mind:
    """What one player knows, from their private chat: their side and who they know is Evil."""

    evil: bool = False
    known_evil: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, messages: list[JSON], lang_words: Words = ENGLISH) -> Mind:
        words = _words(lang_words.lang)
        mind = cls()
        for msg in messages:
            text = plain(msg.get("text", ""))
            if lang_words.you_are in text and any(side in text for side in words["evil_side"] + words["evil_named"]):
                mind.evil = True
            if any(line in text for line in words["now_side"]):
                mind.evil = True
            if any(line in text for line in words["now_good"]):
                mind.evil = False
            for line in text.split("\n"):
                if not line.startswith("• ") or ": " not in line:
                    continue
                names, _, label = line[2:].rpartition(": ")
                label = label.split(" (")[0].strip()
                if label in words["evil_labels"]:
                    mind.known_evil.update(split_names(names, lang_words.and_))
        return mind


@dataclass
class Taps:
    """What a player tapped on a keyboard of toggles since it last changed (``look``): players, in order,
    and choices. The marks on screen and these taps make the selection."""

    look: str
    names: list[str] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)

    def chosen(self, marked: set[str], size: int) -> set[str]:
        """The players selected now: the marked ones, then each tap (with one to choose, a tap on
        another player changes who)."""
        chosen = set(marked)
        for name in self.names:
            if name in chosen:
                chosen.remove(name)
            elif size == 1:
                chosen = {name}
            else:
                chosen.add(name)
        return chosen

    def choice(self, marked: str | None) -> str | None:
        choice = marked
        for label in self.choices:
            choice = None if choice == label else label
        return choice


@dataclass
class Hand:
    """A player's quest cards on one quest message: the buttons still to try, in order, and how the
    message looked when they last pressed one (None: not pressed yet)."""

    todo: list[JSON]
    look: str | None = None
    done: bool = False


@dataclass
class Policy:
    """How the simulated players decide. ``fail_rate``: chance an Evil player (who has a Fail
    button) fails a quest; ``approve_rate``: chance of approving a team it has no opinion about;
    ``vote``: optional override ``(user, vote message) -> approve?``."""

    rng: random.Random = field(default_factory=lambda: random.Random(1))
    approve_rate: float = 0.6
    fail_rate: float = 0.6
    vote: Callable[[int, JSON], bool] | None = None


@dataclass
class Driver:
    """Plays for ``players`` (user ids): one decision per :meth:`step`."""

    screen: Screen
    group: int
    players: list[int]
    policy: Policy = field(default_factory=Policy)
    names: dict[int, str] = field(default_factory=dict)  # user id -> shown name (default: updates.user)
    lobby: bool = False
    start_at: int | None = None
    # with one of ``players`` the host: the lobby's 🤖 Add a bot adds AI seats until this many
    # are listed (a table of fewer simulated players than a game needs); None: never
    fill_to: int | None = None
    words: Words | None = None  # the catalog language to read; None: each chat's own, read off the page
    # user id -> the engine view of that player's own seat (``engine.view(state, seat)``), or None: with
    # it, decisions come from ``engine.policy.decide`` given that view alone; without, from the page
    views: Callable[[int], JSON | None] | None = None
    presses: int = 0
    _decided: dict[tuple, Any] = field(default_factory=dict)  # (user, prompt, table) -> the policy's answer
    _voted: set[tuple[int, str, str]] = field(default_factory=set)
    _dead: set[tuple[int, int, str]] = field(default_factory=set)
    _tries: Counter = field(default_factory=Counter)  # presses per shown state of a private message
    _taps: dict[tuple[int, int], Taps] = field(default_factory=dict)  # (user, message) -> toggles tapped
    _hands: dict[tuple[int, int], Hand] = field(default_factory=dict)  # (user, quest message) -> cards

    # --- looking -------------------------------------------------------------------------------
    def group_texts(self) -> list[str]:
        return [m["text"] for m in self.screen.messages(self.group)]

    def over(self) -> bool:
        return any(any(w in t for w in self._w(self.group).over) for t in self.group_texts())

    def _w(self, chat: int) -> Words:
        """The words of ``chat``'s language: ``words`` if set, else the catalog language its newest
        messages are written in (a group switched to Français, a player whose app speaks another)."""
        return self.words or detect_words(self.screen.messages(chat))

    def name_of(self, user: int) -> str:
        return self.names.get(user) or U.user(user)["first_name"]

    def user_named(self, name: str) -> int | None:
        for uid in self.players:
            if self.name_of(uid) == name:
                return uid
        return None

    def mind(self, user: int) -> Mind:
        msgs = self.screen.messages(user)
        return Mind.read(msgs, self.words or detect_words(msgs))

    def decision(self, user: int, kind: str, tag: str | None = None) -> tuple[Any, JSON] | None:
        """The policy's answer to ``user``'s prompt of ``kind`` (or whose callback tag is ``tag``) and the
        view it was given, decided once per prompt; None without a view or such a prompt."""
        from engine import policy
        from gamebot.storage.session import kind_tag

        view = self.views(user) if self.views is not None else None
        if not view:
            return None
        prompt = next((p for p in view["you"].get("prompts") or []
                       if (p["kind"] == kind if tag is None else kind_tag(p["kind"]) == tag)), None)
        if prompt is None:
            return None
        key = (user, repr(prompt), view.get("round"), view.get("stage"), view.get("quest"), view.get("vote_track"))
        if key not in self._decided:
            self._decided[key] = policy.decide(view, self.policy.rng, fail_rate=self.policy.fail_rate, prompt=prompt)
        return self._decided[key], view

    def _press(self, user: int, chat: int, msg: JSON, data: str) -> None:
        self.presses += 1
        self.screen.press(user, chat, msg["message_id"], data)

    # --- acting --------------------------------------------------------------------------------
    def step(self) -> bool:
        """Make one decision somewhere. False when none of our players has anything to press."""
        return (self.lobby and self._lobby()) or self._picker() or self._private() or self._quest() or self._vote()

    def play(self, max_steps: int = 2000) -> int:
        steps = 0
        idle = getattr(self.screen, "idle", None)
        second_looks = 3
        while not self.over() and steps < max_steps:
            if not self.step() and not (idle is not None and idle()):
                if not second_looks or not self.look_again():
                    break
                second_looks -= 1
                continue
            steps += 1
        if idle is not None:
            while idle():  # the end of the game may still wait for the group's budget
                pass
        return steps

    def look_again(self) -> bool:
        """Forget the votes and quest cards pressed so far, so a refused one (someone had to vote in the
        open first, a card pressed while its progress was held back) is tried again: the round message's
        progress is coalesced, so it may not have changed since. False when there was nothing to forget."""
        had = bool(self._voted) or any(not h.done or h.todo for h in self._hands.values())
        self._voted.clear()
        self._hands.clear()
        return had

    def snapshot(self) -> tuple:
        """What the players see now (the group and their chats): equal snapshots, nothing changed."""
        return tuple(tuple(_look(m) for m in self.screen.messages(chat)) for chat in (self.group, *self.players))

    def forget(self) -> None:
        """Forget every press remembered (after asking the bot for /status: its messages are new)."""
        self._voted.clear()
        self._dead.clear()
        self._tries.clear()
        self._taps.clear()
        self._hands.clear()

    def taps(self, user: int, msg: JSON) -> Taps:
        """What ``user`` tapped on ``msg`` since it last changed (a change shows the selection again)."""
        key = (user, msg["message_id"])
        look = _look(msg)
        if key not in self._taps or self._taps[key].look != look:
            self._taps[key] = Taps(look)
        return self._taps[key]

    def _newest(self, label: str, chat: int | None = None) -> tuple[JSON, list[JSON], JSON] | None:
        """The newest message of the group (or ``chat``) with a button labelled ``label``: (message,
        buttons, button)."""
        for msg in reversed(self.screen.messages(self.group if chat is None else chat)):
            buttons = _buttons(msg)
            button = next((b for b in buttons if label in b["text"]), None)
            if button is not None:
                return msg, buttons, button
        return None

    # --- lobby -----------------------------------------------------------------------------------
    def _lobby(self) -> bool:
        w = self._w(self.group)
        found = self._newest(w.join)
        if found is not None:
            msg, buttons, join = found
            text = plain(msg["text"])
            listed = set(re.findall(r"^\d+\. (.+)$", text, re.M))
            for user in self.players:
                if self.name_of(user) in listed:
                    continue
                key = (user, msg["message_id"], _look(msg))
                if key in self._dead:
                    continue
                self._dead.add(key)
                self._press(user, self.group, msg, join["data"])
                return True
            host = re.search(rf"^{re.escape(w.host)}(.+)$", text, re.M)
            host_id = self.user_named(host.group(1).strip()) if host else None
            start = next((b for b in buttons if w.start in b["text"]), None)
            add = next((b for b in buttons if w.add_ai_seat in b["text"]), None)
            if (host_id is not None and add is not None and self.fill_to and len(listed) < self.fill_to
                    and all(self.name_of(u) in listed for u in self.players)):
                key = (host_id, msg["message_id"], _look(msg))
                if key not in self._dead:
                    self._dead.add(key)
                    self._press(host_id, self.group, msg, add["data"])
                    return True
            if host_id is not None and start is not None and self.start_at and len(listed) >= self.start_at:
                key = (host_id, msg["message_id"], _look(msg))
                if key not in self._dead:
                    self._dead.add(key)
                    self._press(host_id, self.group, msg, start["data"])
                    return True
        return False

    # --- private decisions -------------------------------------------------------------------------
    def _private(self) -> bool:
        for user in self.players:
            msgs = self.screen.messages(user)
            w = self.words or detect_words(msgs)
            for msg in reversed(msgs):
                buttons = _buttons(msg)
                if not buttons or any(w.propose in b["text"] for b in buttons):
                    continue  # (the team picker: ``_picker``)
                taps = self.taps(user, msg)
                key = (user, msg["message_id"], _look(msg), tuple(taps.names), tuple(taps.choices))
                if self._tries[key] >= PRIVATE_TRIES:
                    continue
                self._tries[key] += 1
                if self._tries[key] > 1 and self.views is None:  # nothing changed: the last press was refused
                    others = [b for b in buttons if w.confirm not in b["text"] and w.pass_ not in b["text"]]
                    if others:  # change the selection before confirming again
                        self._tap(user, msg, taps, self.policy.rng.choice(others))
                        return True
                self._answer_prompt(user, msg, buttons, Mind.read(msgs, w), taps)
                return True
        return False

    def _tap(self, user: int, msg: JSON, taps: Taps, button: JSON) -> None:
        """Press a button of a private keyboard, remembering a toggle (its keyboard may stay as it is)."""
        text = button["text"]
        w = self._w(user)
        if text.startswith(TOGGLES):
            taps.names.append(_label_name(text))
        elif w.confirm not in text and w.pass_ not in text and not any(q in text for q in w.quest):
            taps.choices.append(text.removeprefix("🔘 "))
        self._press(user, user, msg, button["data"])

    def _rank(self, user: int, mind: Mind, toggles: list[JSON]) -> list[JSON]:
        """Toggles in the order this player would pick them: unknown people first, known ones last
        (Good avoids proven Evil; Evil spares its friends), themself never for a target prompt."""
        me = self.name_of(user)
        rng = self.policy.rng
        scored = []
        for b in toggles:
            name = _label_name(b["text"])
            score = 2 if name == me else (1 if name in mind.known_evil else 0)
            scored.append((score, rng.random(), b))
        scored.sort(key=lambda t: (t[0], t[1]))
        return [b for _, _, b in scored]

    def _answer_by_view(self, user: int, msg: JSON, buttons: list[JSON], taps: Taps) -> bool:
        """Answer a private prompt as the policy decided from the seat's view: its buttons' callback data
        name the seats (``t3``), choices (``x1``) and quests (``q2``) they stand for. False: no decision."""
        tags = {_op(b)[:2] for b in buttons if len(_op(b)) > 2}
        decided = self.decision(user, "", tag=next(iter(tags))) if len(tags) == 1 else None
        if decided is None:
            return False
        action, view = decided
        prompt = next(p for p in view["you"]["prompts"] if p["kind"] == action.kind)
        w = self._w(user)
        confirm = next((b for b in buttons if w.confirm in b["text"]), None)
        by_op = {_op(b)[2:]: b for b in buttons if len(_op(b)) > 2}
        if action.choice == "pass":
            button = by_op.get("p")
            if button is not None:
                self._press(user, user, msg, button["data"])
                return True
            return False
        if prompt.get("quests") and action.quest is not None and not any(b["text"].startswith("🎯") for b in buttons):
            button = by_op.get(f"q{action.quest}")
            if button is not None:
                self._press(user, user, msg, button["data"])
                return True
        choice, choices = action.choice, list(prompt.get("choices") or [])
        if choice is None and len(choices) > 1 and action.targets:
            # the engine's default card (the first drawn, or the first the chosen player holds), chosen on
            # screen: Confirm asks for every choice the prompt offers
            held = ((prompt.get("info") or {}).get("hands") or {}).get(str(action.targets[0])) or choices
            choice = next((c for c in held if c in choices), choices[0])
        if action.targets:
            toggles = [b for b in buttons if _op(b)[2:].startswith("t")]
            marked = {_label_name(b["text"]) for b in toggles if b["text"].startswith("✅")}
            names = taps.chosen(marked, len(action.targets))
            chosen = {_seat(b) for b in toggles if _label_name(b["text"]) in names}
            wanted = set(action.targets)
            todo = [b for b in toggles if (_seat(b) in wanted) != (_seat(b) in chosen)]
            if confirm is None:  # a tap answers: the first seat wanted
                todo = [b for b in toggles if _seat(b) in wanted]
            if todo:
                self._tap(user, msg, taps, todo[0])
                return True
        if choice is not None and choice in choices:
            button = by_op.get(f"x{choices.index(choice)}")
            if button is None:
                return False
            picked = button["text"].startswith("🔘") or button["text"].removeprefix("🔘 ") in taps.choices[-1:]
            if confirm is None or not picked:
                self._tap(user, msg, taps, button)
                return True
        if confirm is None:
            return False
        self._press(user, user, msg, confirm["data"])
        return True

    def _answer_prompt(self, user: int, msg: JSON, buttons: list[JSON], mind: Mind, taps: Taps) -> None:
        if self._answer_by_view(user, msg, buttons, taps):
            return
        rng = self.policy.rng
        w = self._w(user)
        confirm = next((b for b in buttons if w.confirm in b["text"]), None)
        toggles = [b for b in buttons if b["text"].startswith(TOGGLES)]
        quests = [b for b in buttons if any(q in b["text"] for q in w.quest)]
        passes = [b for b in buttons if w.pass_ in b["text"]]
        fail = [b for b in buttons if w.fail in b["text"]]
        if confirm is not None:
            m = COUNT.search(confirm["text"])
            size = int(m.group(2)) if m else 1
            marked = {_label_name(b["text"]) for b in toggles if b["text"].startswith("✅")}
            chosen = taps.chosen(marked, size)
            choices = [b for b in buttons if b not in toggles and b not in quests and b is not confirm and b not in passes]
            choice = taps.choice(next((b["text"].removeprefix("🔘 ") for b in choices if b["text"].startswith("🔘")), None))
            if quests and not any(b["text"].startswith("🎯") for b in quests):
                self._press(user, user, msg, rng.choice(quests)["data"])
            elif len(chosen) < size and toggles:
                free = [b for b in toggles if _label_name(b["text"]) not in chosen] or toggles
                self._tap(user, msg, taps, self._rank(user, mind, free)[0])
            elif len(chosen) > size and toggles:
                self._tap(user, msg, taps, rng.choice([b for b in toggles if _label_name(b["text"]) in chosen]))
            elif len(choices) > 1 and choice is None:
                self._tap(user, msg, taps, rng.choice(choices))
            else:
                self._press(user, user, msg, confirm["data"])
            return
        if fail and rng.random() < self.policy.fail_rate:
            self._press(user, user, msg, fail[0]["data"])
            return
        options = [b for b in buttons if b not in fail] or buttons
        if passes and len(options) > 1 and rng.random() < 0.5:
            options = [b for b in options if b not in passes]
        # a choice of players (Lady of the Lake, assassination...): someone it knows nothing about
        avoid = mind.known_evil | {self.name_of(user)}
        fresh = [b for b in options if b["text"].strip() not in avoid and _label_name(b["text"]) not in avoid]
        self._press(user, user, msg, rng.choice(fresh or options)["data"])

    # --- votes ---------------------------------------------------------------------------------------
    def _opinion(self, user: int, msg: JSON) -> bool:
        """Would ``user`` approve the team in this vote message?"""
        if self.policy.vote is not None:
            return self.policy.vote(user, msg)
        decided = self.decision(user, "vote")
        if decided is not None:
            return decided[0].choice == "approve"
        text = plain(msg["text"])
        w = self._w(self.group)
        team = proposed_team(text, w)
        attempt = re.search(w.attempt, text)
        last_chance = bool(attempt) and int(attempt.group(1)) >= 5
        mind = self.mind(user)
        me = self.name_of(user)
        rng = self.policy.rng
        if mind.evil:
            if me in team or team & mind.known_evil:
                return True
            return not last_chance and rng.random() < 0.3
        if last_chance:
            return True
        if team & mind.known_evil:
            return False
        if me in team:
            return rng.random() < 0.95
        return rng.random() < self.policy.approve_rate

    def _vote(self) -> bool:
        w = self._w(self.group)
        found = self._newest(w.approve)
        if found is not None:
            msg, buttons, approve = found
            reject = next((b for b in buttons if w.reject in b["text"]), approve)
            voted_line = next((line for line in msg["text"].split("\n") if line.startswith(w.voted)), "")
            voted = set(split_names(voted_line.partition(":")[2], w.and_))
            for user in self.players:
                if self.name_of(user) in voted:
                    continue
                key = (user, approve["data"], _look(msg))  # a refused press is retried once the message changes
                if key in self._voted:
                    continue
                self._voted.add(key)
                yes = self._opinion(user, msg)
                self._press(user, self.group, msg, (approve if yes else reject)["data"])
                return True
        return False

    # --- quest cards, from the group -------------------------------------------------------------------
    def _quest(self) -> bool:
        """The newest group message with quest card buttons: each of our players on its team presses one
        of their cards; a press that left the message as it was may have been refused: the next card.
        A player whose press is still unanswered on screen goes first."""
        w = self._w(self.group)
        cards = _words(w.lang)["cards"]
        for msg in reversed(self.screen.messages(self.group)):
            buttons = [b for b in _buttons(msg) if b["text"] in cards]
            if buttons:
                break
        else:
            return False
        team = proposed_team(msg["text"], w)
        look = _look(msg)
        waiting = [u for u in self.players if (u, msg["message_id"]) in self._hands]
        for user in waiting + [u for u in self.players if u not in waiting]:
            if self.name_of(user) not in team:
                continue
            key = (user, msg["message_id"])
            hand = self._hands.get(key)
            if hand is None:
                hand = self._hands[key] = Hand(self._card_order(user, buttons, cards))
            elif hand.look is not None and hand.look != look:
                hand.done = True  # the message changed after the press: the card went in
            if hand.done or not hand.todo:
                continue
            hand.look = look
            self._press(user, self.group, msg, hand.todo.pop(0)["data"])
            return True
        return False

    def _card_order(self, user: int, buttons: list[JSON], cards: dict[str, str]) -> list[JSON]:
        """The cards ``user`` would press, in order: first those its role card lists as its own (Evil: a
        card counting as Fail first, with ``fail_rate``), then the other cards of its side."""
        decided = self.decision(user, "play")
        if decided is not None:  # the card the policy chose first, then the others of its side
            action, view = decided
            table = view.get("table_cards") or []
            card = {id(b): table[int(_op(b))] for b in buttons if _op(b).isdigit() and int(_op(b)) < len(table)}
            chosen = [b for b in buttons if card.get(id(b)) == action.choice]
            side = cards.get(chosen[0]["text"]) if chosen else None
            return chosen + [b for b in buttons if b not in chosen and cards.get(b["text"]) == side]
        rng = self.policy.rng
        msgs = self.screen.messages(user)
        w = self.words or detect_words(msgs)
        mind = Mind.read(msgs, w)
        role_card = next((plain(m["text"]) for m in reversed(msgs) if w.you_are in plain(m["text"])), "")
        mine = [b for b in buttons if b["text"] in role_card]
        rng.shuffle(mine)
        failing = mind.evil and rng.random() < self.policy.fail_rate
        mine.sort(key=lambda b: (cards[b["text"]] == "fail") != failing)  # (stable: the shuffle stays within)
        rest = [b for b in buttons if b not in mine and (mind.evil or cards[b["text"]] != "fail")]
        return mine + rest

    # --- the Leader's team picker ------------------------------------------------------------------
    def _picker(self) -> bool:
        """The team picker is in the Leader's private chat: its newest "Propose team" keyboard there. Each
        toggle draws it again (the marks are the team so far); the Leader also remembers whom they tapped
        (``Taps``) until the keyboard changes, in case an edit is late."""
        for leader in self.players:
            w = self._w(leader)
            found = self._newest(w.propose, chat=leader)
            if found is None:
                continue
            msg, buttons, confirm = found
            taps = self.taps(leader, msg)
            key = (leader, msg["message_id"], _look(msg), tuple(taps.names))
            if key in self._dead:
                continue
            self._dead.add(key)
            quests = [b for b in buttons if b["text"].startswith((*w.quest, "🎯"))]
            toggles = [b for b in buttons if b["text"].startswith(TOGGLES)]
            count = COUNT.search(confirm["text"])
            size = int(count.group(2)) if count else 0
            chosen = taps.chosen({_label_name(b["text"]) for b in toggles if b["text"].startswith("✅")}, 0)
            rng = self.policy.rng
            decided = self.decision(leader, "propose")
            wanted = set(decided[0].targets) if decided else set()
            if quests and not any(b["text"].startswith("🎯") for b in quests):
                aimed = [b for b in quests if decided and _op(b).endswith(f"q{decided[0].quest}")]
                self._press(leader, leader, msg, (aimed or [rng.choice(quests)])[0]["data"])
            elif count and len(chosen) < size:
                free = [b for b in toggles if _label_name(b["text"]) not in chosen]
                button = next((b for b in free if _seat(b) in wanted), None) or self._team_choice(leader, free)
                taps.names.append(_label_name(button["text"]))
                self._press(leader, leader, msg, button["data"])
            elif count and len(chosen) > size:
                seat_of = {_label_name(b["text"]): _seat(b) for b in toggles}
                drop = [name for name in chosen if name != self.name_of(leader) and seat_of.get(name) not in wanted]
                drop = drop or [name for name in chosen if name != self.name_of(leader)] or sorted(chosen)
                name = rng.choice(sorted(drop))
                button = next(b for b in toggles if _label_name(b["text"]) == name)
                taps.names.append(name)
                self._press(leader, leader, msg, button["data"])
            else:
                self._press(leader, leader, msg, confirm["data"])
            return True
        return False

    def _team_choice(self, leader: int, free: list[JSON]) -> JSON:
        """The next player a Leader adds: themself first, then people they trust (Good avoids the
        Evil it knows; Evil picks at random, which hides it best)."""
        me = self.name_of(leader)
        own = next((b for b in free if _label_name(b["text"]) == me), None)
        if own is not None:
            return own
        mind = self.mind(leader)
        if mind.evil:
            return self.policy.rng.choice(free)
        trusted = [b for b in free if _label_name(b["text"]) not in mind.known_evil]
        return self.policy.rng.choice(trusted or free)


# ---------------------------------------------------------------------------------------------------
# Playing through the webhook handler against the fake Bot API server
# ---------------------------------------------------------------------------------------------------


def lambda_deliver(secret: str, fake: Any = None) -> Callable[[JSON], int]:
    """``deliver(update)`` straight into ``lambda_handler`` (with the secret header): the HTTP status.
    With ``fake`` (a FakeTelegram), the method the webhook answers with is performed, as Telegram does."""

    def deliver(update: JSON) -> int:
        import app

        response = app.lambda_handler(U.webhook_event(update, secret), None)
        if fake is not None:
            fake.perform(U.webhook_reply(response))
        return response["statusCode"]

    return deliver


class FakeTelegramScreen:
    """A :class:`Screen` over FakeTelegram; presses become callback-query updates for ``deliver``."""

    def __init__(self, fake: Any, deliver: Callable[[JSON], int], users: dict[int, JSON] | None = None) -> None:
        self.fake = fake
        self.deliver = deliver
        self.users = users if users is not None else {}

    def user(self, uid: int) -> JSON:
        return self.users.get(uid) or U.user(uid, language_code=getattr(self, "language_code", "en"))

    def messages(self, chat_id: int) -> list[JSON]:
        out = []
        for m in self.fake.messages(chat_id):
            rows = (m.get("reply_markup") or {}).get("inline_keyboard") or []
            buttons = [[{"text": b.get("text", ""), "data": b.get("callback_data"), "url": b.get("url")} for b in row]
                       for row in rows]
            out.append({"message_id": m["message_id"], "text": m.get("text", m.get("caption", "")), "buttons": buttons})
        return out

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> int:
        msg = self.fake.message(chat_id, message_id)
        return self.deliver(U.press(self.user(user_id), msg, data))


class WebhookTable(FakeTelegramScreen):
    """A Telegram group as the webhook Lambda sees it: updates are posted through ``lambda_handler``
    (with the secret header) and what the bot sent is read back from ``FakeTelegram``."""

    def __init__(self, fake: Any, secret: str, group: int = U.DEFAULT_GROUP_ID, title: str = "Avalon Test Group",
                 words: Words = ENGLISH, language_code: str | None = "en") -> None:
        super().__init__(fake, self._deliver)
        self.U = U
        self.words = words
        self.language_code = language_code  # what every test user's Telegram app is set to
        self.secret = secret
        self.group = group
        self.title = title
        self.statuses: list[int] = []
        self.last_update: JSON | None = None
        self._handler = lambda_deliver(secret, fake)

    def _deliver(self, update: JSON) -> int:
        return self.post(update)

    def post(self, update: JSON, secret: str | None = "__default__") -> int:
        import app

        self.last_update = update
        if secret == "__default__":
            status = self._handler(update)
        else:
            response = app.lambda_handler(U.webhook_event(update, secret), None)
            self.fake.perform(U.webhook_reply(response))
            status = response["statusCode"]
        self.statuses.append(status)
        return status

    def idle(self) -> bool:
        """Time passes with nobody acting, when the service's clock is one the test moves (``.now``): what
        waits in the group's outbox goes out when due, as the chat's alarm would deliver it."""
        import app

        from gamebot.storage.session import Session, chat_key

        svc = app.service()
        if not hasattr(svc.clock, "now"):
            return False  # real time: nothing to do but wait for the chat's alarm
        for _ in range(90):  # (a second at a time while a held-back view names a time already past)
            item = svc.repo.get(chat_key(self.group))
            if item is None:
                return False
            box = Session.from_body(item.body).outbox
            if not box.effects and not box.dirty:
                return False
            svc.clock.now = max(svc.clock.now, box.next_due() or svc.clock.now) + 1
            if app.run(svc.courier.deliver(svc.uow.resume(self.group))):
                return True
        return False

    def leader(self) -> int:
        """The player whose private chat holds a live team picker: the Leader now."""
        for chat in self.fake.chat_ids():
            if chat > 0 and any(self.words.propose in b["text"] for m in self.messages(chat) for row in m["buttons"]
                                for b in row):
                return chat
        raise AssertionError("nobody holds a team picker")

    def start_private(self, uid: int) -> int:
        """The user opens the bot's private chat and presses Start."""
        self.fake.start_private(self.user(uid))
        return self.post(U.start(self.user(uid)))

    def command(self, uid: int, text: str, chat: int | None = None) -> int:
        chat_id = self.group if chat is None else chat
        chat_obj = U.group(chat_id, self.title) if chat_id < 0 else U.private(self.user(uid))
        return self.post(U.command(chat_obj, self.user(uid), text))

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
        w = self.words
        host = players[0]
        for uid in players:
            self.start_private(uid)
        self.command(host, "/newgame")
        for uid in players[1:]:
            self.press_label(uid, self.group, w.join)
        if roles or options:
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
