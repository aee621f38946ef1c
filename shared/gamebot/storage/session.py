"""The per-chat game session (item ``chat#<chat_id>``) and the per-user record (``user#<user_id>``).

A group has at most one active session: a lobby (players joining, host choosing settings) or a game
(the engine ``GameState`` as JSON). The session also keeps the ids of the group messages the bot edits
without a button press on them (the lobby, later turned into the board, and the vote/quest progress
message), the selection a player is building with toggle buttons, and the last update ids applied
(so that a redelivered update is applied once, recorded in the same conditional write).

Every vote rewrites the chat's item (DynamoDB charges a write unit per KB and refuses items over 400 KB),
so nothing in it grows with the group's history; each field has a bound:

* one value each: ``chat_id``, ``title`` (Telegram's, at most 128 characters), ``lang``, ``game_id``,
  ``status``, ``host``, the message ids (``lobby_msg``, ``board_msg``, ``vote_msg``, ``settings_msg``,
  ``pinned``, ``again_msg``), ``vote_serial``, ``vote_intro`` (one message's news), ``pin_hint``,
  ``deadline``, ``alarm``, ``rematch_of``, ``again_game``, ``idle_counted``, ``ai_seat_turn``, ``practice``;
* ``players``: at most 10 (``gamebot.compose.context.MAX_PLAYERS``; a name at most 40 characters); ``invited``:
  the last game's players (at most 10); ``unreachable``, ``idle``, ``idle_hidden``: players of this game;
  ``sel``: one selection per seat (its private prompt) and one for the Leader's team picker (``"g"``, in
  the Leader's private chat);
* ``settings``: each character at most as often as the panel allows, one value per option and per phase;
* ``state``: one game's engine state (five quests of at most five proposals: ``scripts/bench_state_size.py``
  measures the longest); ``last``: one finished game's summary;
* ``keyboards``: ``MAX_LIVE_KEYBOARDS``; ``reminders``: ``MAX_REMINDERS``; ``seen``: ``SEEN_MAX`` update ids;
* ``outbox`` (``gamebot.storage.effects``): ``effects``, what steps decided and is not delivered yet, a few entries
  a step (each at most one Telegram message; a lobby's /nextgame notices are one entry whatever the number
  of subscribers, a game's timeouts one entry), the backlog capped by ``MAX_OUTBOX`` (``gamebot.storage.effects``),
  ``group_ops`` the group's operations of the last minute (at most the budget's limit; with the budget
  off, ``GROUP_MESSAGES_PER_MINUTE=0``, what one minute sent), ``progress`` and ``dirty``
  one entry per group view, ``replay`` the closing edits of ``REPLAY_STEPS`` steps.

What does grow with the history lives in items of its own, read only when needed: the /nextgame
subscribers (``gamebot.storage.subscribers``: read when a lobby opens), the idle record of all games
(``gamebot.storage.idle_record``: read by /idles, written when a game with a timeout is over), the statistics
(``gamebot.scores.stats``) and the finished games (``archive_key``). Items written by earlier versions kept the
first two here (``next_game``, ``idle_totals``, ``idle_names``): those fields are read from such items only,
and the first write moves them out (``recovery.move_out``).
"""
from __future__ import annotations

import secrets
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from engine import GameConfig, GameState, Theme
from gamebot.storage import state_cache
from gamebot.storage.effects import Outbox
from gamebot.storage.seats import AiSeatTurn

SEEN_MAX = 100
USER_SEEN_MAX = 10
LOBBY, PLAYING, ENDED, CANCELLED = "lobby", "playing", "ended", "cancelled"
ACTIVE = (LOBBY, PLAYING)


MOVED_OUT = ("next_game", "idle_totals", "idle_names")  # fields of earlier versions, moved to their own items


def keeps_moved_out(body: dict[str, object]) -> bool:
    """Does a stored chat item still keep what now lives in items of its own (``recovery.move_out``)?"""
    return any(body.get(name) for name in MOVED_OUT)


class DamagedSession(ValueError):
    """A stored chat item that does not load (damaged, or written by another version): ``/cancel`` from
    the host or a group admin closes it with what can still be read (``gamebot.storage.recovery``)."""

    def __init__(self, chat_id: object) -> None:
        super().__init__(f"the stored session of chat {str(chat_id)[:40]} does not load")
        self.chat_id = chat_id


def update_ids(value: object) -> object:
    """Recorded update ids, without any that is not an integer (an older version stored whatever id an
    update carried; one bad entry must not make the whole item unreadable: it only serves to spot a
    redelivery)."""
    if isinstance(value, list):
        return [v for v in value if type(v) is int]
    return value


def chat_key(chat_id: int) -> str:
    return f"chat#{chat_id}"


def user_key(user_id: int) -> str:
    return f"user#{user_id}"


def archive_key(chat_id: int, game_id: str) -> str:
    """A finished game, kept whole (seed + log replay it) until DynamoDB's TTL deletes it."""
    return f"game#{chat_id}#{game_id}"


def new_game_id() -> str:
    return secrets.token_hex(3)  # 6 hex characters


class Player(BaseModel):
    id: int
    name: str
    lang: str = ""  # their own language (chosen in private, else their app's) if a catalog speaks it; "": the group's
    bot: bool | None = None  # a bot account (Telegram's ``is_bot``): not a human, for the statistics


class TimerSettings(BaseModel):
    """The group's time limits (``gamebot.handlers.timekeeper``): seconds per phase, 0 = off; absent = the default."""

    limits: dict[str, int] = Field(default_factory=dict)
    vote: str = "approve"  # what a vote not cast in time counts as ("approve" or "reject")


class Deadline(BaseModel):
    """The running time limit: bound to the decision (``serial`` + ``step``) or, in the lobby, to a
    counter that /extend and settings changes bump. Timers that fire for another one are stale."""

    phase: str
    serial: int
    step: str = ""
    due: int  # epoch seconds
    remind_at: int | None = None
    reminded: bool = False
    limit: int = 0
    extensions: int = 0  # lobby only: how often /extend was used


class Alarm(BaseModel):
    """The chat's next wake-up (``gamebot.timing.alarm``): the timer function is invoked at ``at`` (epoch
    seconds) with the payload named ``name``, by a message of the wake-up queue delayed to that second
    (``queued``: it cannot be taken back, and finds nothing due if the alarm moved meanwhile) or by an
    EventBridge Scheduler schedule of that name (deleted when the alarm moves). ``n`` counts the alarms the
    chat has set, so that every one has a name of its own (a late delete never hits a newer alarm)."""

    at: float
    name: str
    n: int = 0
    queued: bool = False


class Settings(BaseModel):
    theme: str = "avalon"
    roles: list[str] = Field(default_factory=lambda: ["merlin", "assassin"])
    options: dict[str, Any] = Field(default_factory=dict)
    assassin: str | None = None
    preset: str | None = None
    timers: TimerSettings = Field(default_factory=TimerSettings)

    def switch_theme(self, theme: str) -> None:
        """Play ``theme``: characters and options that belong only to the other game are dropped (each
        plug-in declares its games, ``Plugin.themes``); a preset or a designated Assassin is cleared."""
        from engine import ROLES
        from engine.plugin import option_owners

        if theme == self.theme:
            return
        th = Theme(theme)
        self.theme = th.value
        self.roles = [r for r in self.roles if r in ROLES and th in ROLES[r].themes]
        if th is Theme.AVALON and not self.roles:
            self.roles = ["merlin", "assassin"]
        owners = option_owners()
        self.options = {k: v for k, v in self.options.items() if k in owners and th in owners[k].themes}
        self.preset, self.assassin = None, None

    def config(self, players: int) -> GameConfig:
        return GameConfig(
            theme=Theme(self.theme),
            players=players,
            roles=tuple(self.roles),
            options=dict(self.options),
            assassin=self.assassin,
        )


class LiveKeyboard(BaseModel):
    """A message carrying the buttons of a decision (team picker, vote, private prompt): its buttons
    are taken away once the game moves past that decision (``serial``)."""

    chat: int
    msg: int
    serial: int


def with_keyboard(keyboards: list[LiveKeyboard], chat: int, msg: int, serial_: int | None) -> list[LiveKeyboard]:
    """``keyboards`` once ``msg`` shows the buttons of decision ``serial_`` (None: none any more)."""
    kept = [k for k in keyboards if (k.chat, k.msg) != (chat, msg)]
    return [*kept, LiveKeyboard(chat=chat, msg=msg, serial=serial_)][-MAX_LIVE_KEYBOARDS:] if serial_ is not None else kept


def split_ended(keyboards: list[LiveKeyboard], current: int | None) -> tuple[list[LiveKeyboard], list[LiveKeyboard]]:
    """The keyboards of the decision awaited now, and of those ended (all when ``current`` is None)."""
    return [k for k in keyboards if k.serial == current], [k for k in keyboards if k.serial != current]


MAX_LIVE_KEYBOARDS = 40


class Reminder(BaseModel):
    """A reminder the bot sent (``gamebot.handlers.timekeeper``) of the time limit ``key``
    (``gamebot.timing.policy.key``): it is deleted once that decision is over, so that no reminder is left
    below newer messages."""

    chat: int
    msg: int
    key: str


MAX_REMINDERS = 30


class Selection(BaseModel):
    """What a player has toggled so far on a multi-step prompt (team picker, pick-N prompts)."""

    serial: int
    kind: str
    targets: list[int] = Field(default_factory=list)
    quest: int | None = None
    choice: str | None = None


class Session(BaseModel):
    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)  # (aliases below)
    chat_id: int
    title: str = ""
    lang: str = "en"  # the group's language (/language, the settings panel): group messages use it
    game_id: str | None = None
    status: str = "none"
    host: int | None = None
    players: list[Player] = Field(default_factory=list)
    settings: Settings = Field(default_factory=Settings)
    state: str | None = None  # engine GameState JSON
    lobby_msg: int | None = None  # the lobby message; becomes the board at the start
    board_msg: int | None = None
    vote_msg: int | None = None  # vote progress, then quest progress
    vote_serial: int | None = None  # the decision point vote_msg belongs to
    vote_intro: str | None = None  # the news that came with the vote message, kept atop its every edit
    settings_msg: int | None = None  # the host's private settings panel
    sel: dict[str, Selection] = Field(default_factory=dict)  # "g": the Leader's team picker; str(seat): a prompt
    unreachable: list[int] = Field(default_factory=list)  # user ids we could not message
    keyboards: list[LiveKeyboard] = Field(default_factory=list)  # decision buttons still on screen
    reminders: list[Reminder] = Field(default_factory=list)  # reminders on screen (deleted once their decision is over)
    pin_hint: bool = False  # the group was told how to let the bot pin the board (it could not)
    pinned: int | None = None  # the board the bot pinned (unpinned when the group's next lobby opens)
    outbox: Outbox = Field(default_factory=Outbox)  # what was decided and is not delivered yet (effects)
    seen: list[int] = Field(default_factory=list)
    # The summary of the last finished game (its final public view, every role revealed): kept in the
    # chat item for good, while the whole game moves to an archive item that expires (archive_key).
    last: dict[str, Any] | None = None
    deadline: Deadline | None = None  # the time limit running now (gamebot.handlers.timekeeper)
    alarm: Alarm | None = None  # the chat's pending wake-up: the next moment something is due (gamebot.handlers.timekeeper)
    # Turns that ran out of time in this game, per user id (as a string; reset at /newgame). Timeouts of
    # hidden decisions wait in idle_hidden until the game ends, so that nobody learns who held them. Once
    # the game is over they go to the group's record of all games (gamebot.storage.idle_record), once:
    # idle_counted names the game whose timeouts are on their way there.
    idle: dict[str, int] = Field(default_factory=dict)
    idle_hidden: dict[str, int] = Field(default_factory=dict)
    idle_counted: str | None = None
    # Kept here by earlier versions (the record of all games, the /nextgame subscribers): read from their
    # items only, and moved to items of their own by the first write (recovery.move_out).
    idle_totals: dict[str, int] = Field(default_factory=dict)
    idle_names: dict[str, str] = Field(default_factory=dict)
    # A lobby opened by "Play again": the game it follows, and that game's players, listed as invited
    # until they join (one tap on Join, or on "Play again" again).
    rematch_of: str | None = None
    invited: list[Player] = Field(default_factory=list)
    next_game: list[Player] = Field(default_factory=list)  # earlier versions' /nextgame subscribers (above)
    # The game-over message carrying "Play again" (its id, learned once sent) and the game it ended: its
    # button stays while it can do something (open the rematch, join a lobby), and goes once a game runs.
    again_msg: int | None = None
    again_game: str | None = None
    # The AI seats' next move (``gamebot.storage.seats``; made when the chat's alarm wakes it), stored by the name
    # deployed versions wrote and read (read by either name); whether this is a /practice game (nothing counts).
    ai_seat_turn: AiSeatTurn | None = Field(default=None, alias="bot_turn")
    practice: bool = False
    _game: tuple[str, GameState] | None = PrivateAttr(default=None)

    @field_validator("seen", mode="before")
    @classmethod
    def _integer_ids(cls, value: object) -> object:
        return update_ids(value)

    # --- helpers ---------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def seat_of(self, user_id: int) -> int | None:
        for i, p in enumerate(self.players):
            if p.id == user_id:
                return i
        return None

    def speak(self, lang: str) -> None:
        """The table's language becomes ``lang``; at a /practice table (one chat) every seat speaks it."""
        self.lang = lang
        for player in self.players if self.practice else ():
            player.lang = lang

    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def game(self) -> GameState | None:
        """The engine state, parsed once per ``state`` text (the engine never mutates a state it is given)."""
        if not self.state:
            return None
        cached = self._game
        if cached is None or cached[0] is not self.state:
            try:
                parsed = state_cache.game_state(self.state)
            except ValueError as exc:  # damaged, or from an engine that stored games differently
                raise DamagedSession(self.chat_id) from exc
            cached = self._game = (self.state, parsed)
        return cached[1]

    def set_game(self, state: GameState) -> None:
        """Store a new engine state (and keep it parsed, so ``game()`` does not parse it again)."""
        self.state = state.to_json()
        self._game = (self.state, state)
        state_cache.remember_state(self.state, state)

    def mark_seen(self, update_id: int | None) -> None:
        if update_id is None:
            return
        self.seen.append(update_id)
        if len(self.seen) > SEEN_MAX:
            del self.seen[: len(self.seen) - SEEN_MAX]

    def body(self) -> dict[str, Any]:
        body = self.model_dump(mode="json", exclude_none=True)
        for name in MOVED_OUT:  # (empty: not written at all)
            if not body.get(name):
                body.pop(name, None)
        return body

    @classmethod
    def from_body(cls, body: dict[str, object]) -> Session:
        try:
            return cls.model_validate(body)
        except ValidationError as exc:
            raise DamagedSession(body.get("chat_id") if isinstance(body, dict) else None) from exc


class UserRecord(BaseModel):
    id: int
    name: str = ""
    lang: str = "en"
    chosen_lang: str = ""  # chosen with /language in private: all they are sent in private ("": app, else group)
    started: bool = False  # the user opened a private chat with the bot
    blocked: bool = False  # the user blocked the bot (403)
    chat: int | None = None  # the group of the active game they are in
    game_id: str | None = None
    seen: list[int] = Field(default_factory=list)  # last private updates applied (a redelivery is ignored)
    votes_at: int | None = None  # when they were last sent a vote history (epoch seconds: once a minute)

    @field_validator("seen", mode="before")
    @classmethod
    def _integer_ids(cls, value: object) -> object:
        return update_ids(value)

    @property
    def reachable(self) -> bool:
        return self.started and not self.blocked

    def mark_seen(self, update_id: int) -> None:
        self.seen = [*self.seen, update_id][-USER_SEEN_MAX:]

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def serial(state: GameState) -> int:
    """The decision point now: the number of actions before it. Stable while a vote or quest collects
    answers from several players (votes and cards are subtracted); changes once the game moves on."""
    n = len(state.log)
    if state.stage in ("team_proposed", "vote"):
        n -= len(state.votes)
    elif state.stage == "quest" and not state.pending:
        n -= len(state.cards)
    return n


def collecting(before: GameState | None, after: GameState) -> bool:
    """``after`` is the same decision point as ``before``, still collecting answers from several seats at
    once: a vote or a quest card that was not the last (the same serial, both in the vote or both in the
    quest stage; an Opinion Maker's open vote, before the others vote, is not). Nobody has a new
    decision, and the board is the same (``tests/property/test_decision_point_properties.py``)."""
    return (before is not None and before.stage == after.stage and after.stage in ("vote", "quest")
            and serial(before) == serial(after))


def kind_tag(kind: str) -> str:
    """Two characters naming a prompt kind inside callback data (a button answers only its kind)."""
    import zlib

    value = zlib.crc32(kind.encode()) % 1296
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    return digits[value // 36] + digits[value % 36]
