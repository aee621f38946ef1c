"""The story of a game as data, from its public view only: rounds, the Leaders' turns in each round
(numbered as the players saw them: "team 3 of 5"), and where each timed-out turn belongs.

Used by the end's text history (``gamebot.story.end_text``) and the picture (``gamebot.story.picture``), so both
tell the same story. Nothing here reads a secret: the public view of a finished game holds every
role, every vote, the quest card counts (never who played which card), the plug-ins' public records
(``lady.uses``, ``excalibur.uses``, ``plot.played``...) and the timed-out turns (``timeouts``: the
engine lists hidden decisions there only once the game is over).

A Leader's turn is a proposal, or a team not proposed in time (a timed-out ``propose``): both move
the vote track, so both are numbered. Timeouts are placed by what the engine recorded (``when`` in
the round and how many teams had been proposed so far, see ``engine.timeouts``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.view_types import ProposalView, PublicView, QuestView, TimeoutRecord


@dataclass
class Turn:
    """One Leader's turn: ``Team {number}`` of its round."""

    number: int
    leader: int
    proposal: ProposalView | None  # None: no team was proposed in time
    before: list[TimeoutRecord] = field(default_factory=list)  # timed out earlier in this turn (Plot cards...)
    timeouts: list[TimeoutRecord] = field(default_factory=list)  # timed out about this team (votes...)
    voted: list[int] = field(default_factory=list)  # an open vote: who has voted so far (never how)

    @property
    def skipped(self) -> bool:
        return self.proposal is None

    @property
    def team(self) -> list[int]:
        return list(self.proposal.get("team") or []) if self.proposal else []

    @property
    def votes(self) -> str:
        return str(self.proposal.get("votes") or "") if self.proposal else ""

    @property
    def approved(self) -> bool:
        return bool(self.proposal.get("approved")) if self.proposal else False

    @property
    def open(self) -> bool:
        """The vote on this team is still going on: it has no result yet (only the game's last team can)."""
        return self.proposal is not None and self.proposal.get("approved") is None


@dataclass
class Round:
    number: int
    slot: int | None  # the quest slot the round went for (0..4), None if unknown
    turns: list[Turn] = field(default_factory=list)
    quest: QuestView | None = None  # the quest record, if the team went
    quest_timeouts: list[TimeoutRecord] = field(default_factory=list)  # while the team was on its quest
    after: list[TimeoutRecord] = field(default_factory=list)  # after the quest (the Lady of the Lake...)
    underway: bool = False  # its approved team is on its quest now: no result yet
    played: int | None = None  # while the cards are being played: how many are in (never which)

    @property
    def team(self) -> list[int]:
        """The team on its quest now (``underway``), else the one that went."""
        went = self.quest.get("team") if self.quest else None
        return list(went or (self.turns[-1].team if self.turns else []))


def _int(value: object, default: int = -1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def timeouts(pv: PublicView) -> list[TimeoutRecord]:
    return [t for t in pv.get("timeouts") or [] if isinstance(t, dict) and _int(t.get("seat")) >= 0]


def end_timeouts(pv: PublicView) -> list[TimeoutRecord]:
    """Turns that ran out of time after the rounds (the Recruitment, the Assassination)."""
    return [t for t in timeouts(pv) if t.get("when") == "end"]


def _slot(props: list[ProposalView], quest: QuestView | None) -> int | None:
    if quest is not None and _int(quest.get("quest")) >= 0:
        return _int(quest.get("quest"))
    if props and _int(props[-1].get("quest")) >= 0:
        return _int(props[-1].get("quest"))
    return None


def rounds(pv: PublicView) -> list[Round]:
    """Every round of the game, in order, with its turns numbered from 1."""
    proposals = [p for p in pv.get("proposals") or [] if isinstance(p, dict)]
    quests = {_int(q.get("round")): q for q in pv.get("quests") or [] if isinstance(q, dict)}
    timed = [t for t in timeouts(pv) if t.get("when") != "end"]
    numbers = sorted({_int(p.get("round")) for p in proposals} | set(quests) | {_int(t.get("round")) for t in timed})
    out = []
    for rnd in (r for r in numbers if r >= 1):
        indexed = [(i, p) for i, p in enumerate(proposals) if _int(p.get("round")) == rnd]
        mine = [t for t in timed if _int(t.get("round")) == rnd]
        r = Round(rnd, _slot([p for _, p in indexed], quests.get(rnd)), quest=quests.get(rnd))
        r.turns, left = _turns(indexed, [t for t in mine if t.get("when") in ("turn", "proposal")])
        r.quest_timeouts = left + [t for t in mine if t.get("when") == "quest"]
        r.after = [t for t in mine if t.get("when") not in ("turn", "proposal", "quest")]
        if r.turns or r.quest is not None or mine:
            out.append(r)
    _mark_current(pv, out)
    return out


def _mark_current(pv: PublicView, rounds_: list[Round]) -> None:
    """What is still going on in the last round: an open vote (who has voted so far: ``voted`` in the
    public view), or a quest under way (how many cards are in: ``played``)."""
    if not rounds_ or not rounds_[-1].turns or pv.get("winner") or pv.get("stage") in ("game_end", "ended"):
        return
    last = rounds_[-1]
    turn = last.turns[-1]
    if turn.open:
        turn.voted = sorted(s for s in pv.get("voted") or [] if _int(s) >= 0)
    elif turn.approved and last.quest is None:
        last.underway = True
        if pv.get("stage") == "quest":
            last.played = len(pv.get("played") or [])


def _turns(indexed: list[tuple[int, ProposalView]],
           timed: list[TimeoutRecord]) -> tuple[list[Turn], list[TimeoutRecord]]:
    """The round's turns in order: its proposals (``indexed``: their index among the game's proposals)
    merged with its timeouts (in the order they happened: each says how many teams had been proposed
    then), plus the timeouts no turn followed (the game ended)."""
    turns: list[Turn] = []
    waiting: list[TimeoutRecord] = []  # timed out in a turn whose team comes next
    queue = list(indexed)

    def flush(before: int | None) -> None:
        """Start the turns of the proposals made before ``before`` teams existed (None: all)."""
        nonlocal waiting
        while queue and (before is None or queue[0][0] < before):
            _, p = queue.pop(0)
            turns.append(Turn(len(turns) + 1, _int(p.get("leader")), p, before=waiting))
            waiting = []

    for t in timed:
        flush(_int(t.get("proposals"), 0))
        if t.get("when") == "proposal" and turns and not turns[-1].skipped:
            turns[-1].timeouts.append(t)  # about the team just proposed (a vote, Excalibur's gift...)
        elif t.get("kind") == "propose":
            turns.append(Turn(len(turns) + 1, _int(t.get("seat")), None, before=waiting))
            waiting = []
        else:
            waiting.append(t)
    flush(None)
    return turns, waiting
