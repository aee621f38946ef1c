"""Effects as data: what a committed step sends, kept in the chat's session until it is delivered.

A step's decision produces Bot API operations (``gamebot.botapi.telegram_io.Out``). The unit of work
(``gamebot.outbox.uow``) sorts them before it writes the session:

* **Essential** operations (prompts, results, the end of the game, the messages whose ids the game
  needs) become :class:`Effect` entries of the session's **outbox**, written in the same
  version-checked write as the state, each with its sequence number. They are delivered after the
  write and removed by one more write (the ack) once delivered, with the message ids they produced.
  What is not delivered (the function died, Telegram said wait) stays and is delivered later: on a
  redelivery of the update, on the chat's next update, or when the chat's alarm wakes it
  (``gamebot.timing.alarm``). Within a chat the outbox
  keeps the order; different chats are independent.
* **Progress** operations (who has voted, cards played, the board's latest state) are edits of
  messages the game already knows: delivered after the write if the group's budget allows, else
  dropped, the latest state going out with a later edit. They are never stored, so an ordinary vote
  or quest card costs one read and one write. What Telegram refuses anyway (429) is held back, not
  lost: a group view is marked dirty, another edit waits in the outbox; and progress for a chat where
  something waits joins it there, so that it never overtakes an older edit.
* **Statistics** (``op == "stats"``, chat 0: outside every chat's order and the group's budget): the
  end of a game stores its outcome; the delivery counts it in the statistics and ratings items (one
  read, one transaction, next to the Bot API calls) and the ack removes it like a sent message. Each
  item remembers the games it counted, so a delivery repeated after a death counts nothing twice.
  The game's timeouts reach the group's idle record the same way (``op == "idle"``, ``idle_record``).
* **The /nextgame notices** (``op == "nextgame"``, chat 0): one entry for a lobby that opened, however
  many subscribers wait. Each delivery tells a bounded batch of them (``handlers.nextgame``), taking each
  one told out of the subscribers' own items at once; while some wait, the entry waits a moment
  (``not_before``) and the chat's alarm or its next update delivers the next batch. Once none waits, or
  the lobby is no longer open (the others are told when the next one opens), the ack removes it.
* **Closing edits** in private chats (a prompt turned into "Done: ...", the Leader's picker turned
  into the proposed team, dead buttons taken away) are sent like progress, without an ack, and kept
  in ``replay`` (the last few steps): a redelivery of the update sends them again (an edit done twice
  changes nothing), so that a function that died after the commit loses none.

The group's budget follows Telegram's limit of about 20 messages and edits per minute in a group:
the session keeps the times of the group operations of the last minute (``group_ops``, each as late as
the call may reach Telegram: ``SEND_MARGIN``, so that no sliding minute ever holds more). An essential
operation over the budget waits in the outbox until a slot frees (``not_before``); progress is only
sent while there is room left for the essential ones.

A **lease** marks the outbox entries a running delivery owns (the update that wrote them, until a
deadline longer than the function may run): other updates leave them alone meanwhile, and take them
over once the lease has expired (the function died) or when the update is redelivered.

**What a death repeats**: the ack records, in one write, what a delivery sent; nothing is written
between its calls. A delivery that dies before its ack is taken over by the redelivered update, the
chat's next update once the lease has run out, or the chat's alarm: its entries go out again, so the
messages it had sent before dying arrive a second time (at most what one update sends: the start's
role cards, the end's result, history and picture) and nothing is lost. Edits repeat harmlessly
(doing one again changes nothing).
"""
from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

log = logging.getLogger("gamebot.storage.effects")

GROUP_LIMIT = 20  # group messages + edits per minute (Telegram: about 20 per minute in a group)
PROGRESS_SHARE = 0.65  # progress only while fewer group operations than this share of the limit ran
PROGRESS_GAP = 2.0  # seconds between two progress edits of the same message (the board, the vote)
WINDOW = 60.0  # seconds
SEND_MARGIN = 1.0  # seconds an admitted call may take to reach Telegram (the write, then the request): its slot
# is kept as if the call arrived that much later, so that a slot never frees before the call it stands for
# has left Telegram's minute
RACE_WINDOW = 3.0  # seconds within which a progress edit let out by one function may still reach Telegram after
# a closing edit of the same message decided by another (both sent right after their commits)
LEASE_SECONDS = 30.0  # longer than the webhook function may run (its timeout is 25 s)
MAX_OUTBOX = 200  # with this many entries waiting, new progress is refused (essential entries are never dropped)


class Budget(BaseModel):
    """The group's budget: ``limit`` operations a minute (0: none), progress within ``progress`` of them,
    ``gap`` seconds at least between two progress edits of one message."""

    limit: int = GROUP_LIMIT
    progress: int = round(GROUP_LIMIT * PROGRESS_SHARE)
    gap: float = PROGRESS_GAP

    @classmethod
    def per_minute(cls, limit: int) -> Budget:
        return cls(limit=limit, progress=round(limit * PROGRESS_SHARE), gap=PROGRESS_GAP if limit else 0.0)


UNLIMITED = Budget(limit=0, progress=0, gap=0.0)


EffectOp = Literal["send", "edit", "markup", "pin", "unpin", "photo", "delete", "stats", "idle", "nextgame"]
"""Every operation an outbox entry was ever stored with (a stored item must still load): the essential Bot API
calls (``gamebot.botapi.telegram_io.OutOp`` but ``answer``, which is never stored), and the entries that are
no Bot API call: ``stats``, ``idle``, ``nextgame``."""


class Effect(BaseModel):
    """One stored Bot API operation (an essential ``Out``), waiting to be delivered."""

    seq: int
    op: EffectOp
    chat: int
    text: str | None = None
    keyboard: list[list[dict[str, str]]] | None = None  # rows of {"text", "data"} or {"text", "url"}
    message_id: int | None = None
    user_id: int | None = None  # a private recipient (403: the player is unreachable)
    remember: str | None = None  # the session field that keeps the sent message's id
    live: int | None = None  # the decision whose buttons this message carries
    fallback_send: bool = False
    tag: str = ""
    picture: str | None = None  # op "photo": the last game's picture in this language, drawn at delivery
    stats: dict[str, Any] | None = None  # op "stats": a finished game's outcome, counted at delivery (no Bot API
    # call: the statistics and ratings items are updated, idempotently by game id; ``handlers.statistics``)
    data: dict[str, Any] | None = None  # op "idle": a game's timeouts, added to the group's record once
    # (``idle_record``); op "nextgame": the lobby whose opening the /nextgame subscribers are told, a batch
    # per delivery (``handlers.nextgame``). Neither is a Bot API call of its own
    not_before: float | None = None  # epoch seconds: waiting for the budget or Telegram's flood control
    attempts: int = 0
    step: int | None = None  # the entries of one step share it: the group gets them together (None: alone)
    expires_with: str | None = None  # a reminder: the time limit it is about (``Out.expires_with``)
    progress: bool | None = None  # progress that waits here (behind its chat, held back by Telegram): with the
    # outbox full it is refused (``MAX_OUTBOX``); an essential entry is never dropped
    at: int | None = None  # epoch seconds: when it was first stored (``Outbox.stamp``: how long it has waited)


class Lease(BaseModel):
    owner: int  # the update id delivering (0: the chat's alarm)
    until: float  # epoch seconds


REPLAY_STEPS = 2  # the closing edits of the last steps kept for a redelivery (``Outbox.replay``): Telegram
# redelivers within seconds, while few other steps of the chat close private prompts; each kept step is
# written with every update of the chat (a third of a typical item with 6)


class Replay(BaseModel):
    """A step's closing edits in private chats (a prompt's "Done", the Leader's proposed team): sent
    without an ack, kept so that a redelivery of the step's update sends them again."""

    owner: int  # the update id
    effects: list[Effect] = Field(default_factory=list)


class Outbox(BaseModel):
    """The session's part that this module manages (a field of ``Session``)."""

    effects: list[Effect] = Field(default_factory=list)
    next_seq: int = 1
    lease: Lease | None = None
    group_ops: list[float] = Field(default_factory=list)  # times of the group's operations, last minute
    progress: dict[str, float] = Field(default_factory=dict)  # view ("board", "vote") -> last progress edit
    dirty: list[str] = Field(default_factory=list)  # views whose latest state is not shown yet
    dirty_at: float | None = None  # when the dirty views may go out (the progress gap, the budget)
    replay: list[Replay] = Field(default_factory=list)  # the last steps' closing edits, for redeliveries
    refused: int = Field(default=0, exclude=True)  # progress refused by this copy (full): counted, never stored
    # A closing edit can be overtaken by an older progress edit another function let out a moment before
    # it (both are sent after their commits, in parallel): ``racing`` keeps when a progress edit carrying
    # buttons was let out, per message ("chat:message"), for ``RACE_WINDOW``; a closing edit of such a
    # message is sent again once that window has passed (``repeats``: ``closes``, ``due_repeats``), by
    # the chat's next update or wake-up (any press of a button that came back is one).
    racing: dict[str, float] = Field(default_factory=dict)
    repeats: list[Effect] = Field(default_factory=list)

    # --- a closed message never comes back ---------------------------------------------------------
    def raced(self, chat: int, message_id: int, now: float) -> None:
        """A progress edit with buttons of ``message_id`` goes out now: any closing edit decided within
        ``RACE_WINDOW`` may be overtaken by it (and a repeat of an older closing edit is out of date)."""
        self.racing[f"{chat}:{message_id}"] = round(now, 2)
        self.repeats = [r for r in self.repeats if (r.chat, r.message_id) != (chat, message_id)]

    def closes(self, effect: Effect, now: float) -> None:
        """``effect`` closes (or replaces the buttons of) its message: sent now, and once more when every
        progress edit let out before it has certainly arrived, if one was let out within the window."""
        key = f"{effect.chat}:{effect.message_id}"
        self.racing = {k: t for k, t in self.racing.items() if t > now - RACE_WINDOW}
        self.repeats = [r for r in self.repeats if (r.chat, r.message_id) != (effect.chat, effect.message_id)]
        if key in self.racing:
            self.repeats.append(effect.model_copy(update={"seq": 0, "tag": "repeat", "step": None, "progress": None,
                                                          "not_before": self.racing[key] + RACE_WINDOW}))

    def drop_repeats(self, outs: Any) -> None:
        """The repeats of messages that ``outs`` edit now: out of date (the edit is newer)."""
        edited = {(o.chat_id, o.message_id) for o in outs if o.op in ("edit", "markup") and o.message_id}
        if edited:
            self.repeats = [r for r in self.repeats if (r.chat, r.message_id) not in edited]

    def due_repeats(self, now: float) -> list[Effect]:
        """The repeats whose window has passed (taken out): sent again like progress by whatever runs next
        for the chat (an update, the alarm), never stored, so that they cost no write of their own."""
        due = [r for r in self.repeats if (r.not_before or 0) <= now]
        self.repeats = [r for r in self.repeats if r not in due]
        return due

    def keep_for_replay(self, owner: int, effects: list[Effect]) -> None:
        """Keep ``effects`` (edits: doing them twice changes nothing) for a redelivery of ``owner``."""
        if owner and effects:
            self.replay = [r for r in self.replay if r.owner != owner][-(REPLAY_STEPS - 1):]
            self.replay.append(Replay(owner=owner, effects=effects))

    def replayed(self, owner: int) -> list[Effect]:
        return next((r.effects for r in self.replay if r.owner == owner), [])

    # --- adding ------------------------------------------------------------------------------------
    def add(self, effect: Effect) -> Effect:
        """Append ``effect`` with the next sequence number. An edit of a message that already waits for
        an edit replaces that one (the latest text is what counts): coalescing under the budget."""
        if effect.op == "send" and effect.tag == "announce" and effect.keyboard is None:
            # (past a waiting edit of the board: the step's own board edit replaces it, or the board is the
            # same after that step, so the board still never says more than the news above it)
            last = next((e for e in reversed(self.effects) if e.chat == effect.chat
                         and not (e.op == "edit" and e.tag == "board" and self.waiting(e))), None)
            if (last is not None and last.op == "send" and last.tag == "announce" and last.keyboard is None
                    and self.waiting(last) and len(last.text or "") + len(effect.text or "") < 3500):
                # waiting for the group's budget: the news goes out together, as one message
                last.text = f"{last.text}\n{effect.text}"
                return last
        effect.seq = self.next_seq
        self.next_seq += 1
        if effect.op in ("edit", "markup") and effect.message_id is not None:
            for old in list(self.effects):
                if (old.op in ("edit", "markup") and (old.chat, old.message_id) == (effect.chat, effect.message_id)
                        and (old.attempts == 0 or old.tag == "repeat")):
                    self.effects.remove(old)
                    effect.progress = (effect.progress and old.progress) or None  # (carrying an essential's state)
                    if old.tag == "repeat" and effect.tag != "repeat":  # a newer edit: nothing to repeat, no wait
                        continue
                    if effect.op == "markup" and old.op == "edit":  # keep the text, take the buttons away
                        effect = effect.model_copy(update={"op": "edit", "text": old.text})
                    if old.not_before is not None and (effect.not_before or 0) < old.not_before:
                        effect.not_before = old.not_before  # the chat still has to wait as long
        if effect.progress and len(self.effects) >= MAX_OUTBOX:  # full: new progress is refused, never an essential
            log.warning("outbox of chat %s full: progress %s (%s) not kept", effect.chat, effect.op, effect.tag)
            self.refused += 1
            return effect
        self.effects.append(effect)
        return effect

    def stamp(self, now: float) -> None:
        """The entries about to be stored for the first time are stored at ``now``."""
        for e in self.effects:
            if e.at is None:
                e.at = int(now)

    def oldest(self, now: float) -> float | None:
        """How long the oldest entry has waited, in seconds (None: none says)."""
        times = [e.at for e in self.effects if e.at is not None]
        return now - min(times) if times else None

    def waiting(self, effect: Effect) -> bool:
        """Is ``effect`` held back (the budget, flood control), itself or behind an earlier entry of its
        chat? Then no delivery is sending it."""
        return any(e.chat == effect.chat and e.seq <= effect.seq and e.not_before is not None for e in self.effects)

    # --- the budget ----------------------------------------------------------------------------------
    def recent_ops(self, now: float) -> list[float]:
        self.group_ops = [t for t in self.group_ops if t > now - WINDOW]
        return self.group_ops

    def admit(self, now: float, essential: bool, budget: Budget, count: int = 1) -> float | None:
        """Take ``count`` slots of the group's budget now (all or none): None if taken, else when that
        many are free."""
        ops = self.recent_ops(now)
        limit = budget.limit if essential else budget.progress
        count = max(1, min(count, limit)) if budget.limit else count
        if not budget.limit or len(ops) + count <= limit:
            ops.extend([math.ceil((now + SEND_MARGIN) * 100) / 100] * count)  # (to 1/100 s, never earlier)
            return None
        return sorted(ops)[len(ops) + count - 1 - limit] + WINDOW

    def admit_progress(self, now: float, view: str | None, group_busy: bool, budget: Budget) -> float | None:
        """May a progress edit of ``view`` go now? None if it may (its slot taken), else when to try
        again (the view is then marked dirty: its latest state goes out later)."""
        last = self.progress.get(view, 0.0) if view else 0.0
        retry = None
        if group_busy:
            retry = now + max(budget.gap, 1.0)
        elif view and budget.gap and now - last < budget.gap:
            retry = last + budget.gap
        else:
            retry = self.admit(now, False, budget)
        if retry is None:
            self.shown(view, now)
        elif view:
            self.hold(view, retry, now)
        return retry

    def hold(self, view: str, at: float, now: float) -> None:
        """``view``'s latest state is not shown: it goes out at ``at`` (the alarm) or with a later edit."""
        if view not in self.dirty:
            self.dirty.append(view)
        self.dirty_at = at if self.dirty_at is None or self.dirty_at <= now else min(self.dirty_at, at)

    def shown(self, view: str | None, now: float) -> None:
        """``view``'s latest state went out (by progress or by an essential edit)."""
        if view:
            self.progress[view] = round(now, 2)
            if view in self.dirty:
                self.dirty.remove(view)
            if not self.dirty:
                self.dirty_at = None

    def group_waiting(self, group: int) -> bool:
        """Does an essential group operation wait (so that nothing may overtake it in that chat)?"""
        return any(e.chat == group and e.not_before is not None for e in self.effects)

    # --- delivery ----------------------------------------------------------------------------------
    def deliverable(self, now: float, owner: int) -> list[Effect]:
        """The entries this delivery may send now, in order: those not waiting, of chats where nothing
        earlier waits; none while another delivery's lease runs."""
        if self.lease is not None and self.lease.owner != owner and self.lease.until > now:
            return []
        out, blocked = [], set()
        for e in sorted(self.effects, key=lambda e: e.seq):
            if e.chat in blocked:
                continue
            if e.not_before is not None and e.not_before > now:
                if e.chat:  # (chat 0, no chat's message, holds back only itself)
                    blocked.add(e.chat)
                continue
            out.append(e)
        return out

    def next_due(self) -> float | None:
        """When the earliest waiting entry may go."""
        times = [e.not_before for e in self.effects if e.not_before is not None]
        if self.lease is not None and self.effects:
            times.append(self.lease.until)
        if self.dirty and self.dirty_at is not None:
            times.append(self.dirty_at)
        return min(times) if times else None

    def done(self, seqs: Iterable[int]) -> None:
        gone = set(seqs)
        self.effects = [e for e in self.effects if e.seq not in gone]

    def tries(self, seq: int) -> int:
        """How many times the entry ``seq`` was tried and must wait (0: never, or not in the outbox)."""
        return next((e.attempts for e in self.effects if e.seq == seq), 0)

    def wait(self, seq: int, until: float) -> None:
        """Telegram said wait: this entry and the later ones of its chat wait until ``until``."""
        chat = next((e.chat for e in self.effects if e.seq == seq), None)
        for e in self.effects:
            if e.chat == chat and (e.seq == seq or (chat and e.seq > seq)):  # (chat 0: only itself)
                e.not_before = max(e.not_before or 0.0, until)
                if e.seq == seq:
                    e.attempts += 1


def keyboard_data(keyboard: Any) -> list[list[dict[str, str]]] | None:
    """Buttons (``botapi.telegram_io.Btn``) as stored data."""
    if keyboard is None:
        return None
    rows = []
    for row in keyboard:
        rows.append([{k: v for k, v in (("text", b.text), ("data", b.data), ("url", b.url)) if v is not None}
                     for b in row])
    return rows
