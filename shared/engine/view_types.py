"""What a view holds, key by key (``engine.views``): ``PublicView`` for the whole table, ``SeatView`` for
one seat (``you``: its own secrets). Each plug-in's entry is declared here, present only when the plug-in
is in play; a plug-in not listed may add a key of its own (read back as ``object``, shown through its
``view_entry`` declaration). The records inside an entry are the plug-in's own (``mods``), copied.
"""
from __future__ import annotations

from typing import NotRequired, TypedDict

from .event_types import JsonValue


class TrackCell(TypedDict):
    quest: int
    size: int
    fails_needed: int
    result: bool | None
    closed: NotRequired[bool]  # (targeting: the 5th quest cannot be chosen yet)


class ProposalView(TypedDict):  # a ``Proposal``'s dump
    round: int
    quest: int
    leader: int
    team: list[int]
    votes: str
    approved: bool | None
    note: str | None


class QuestView(TypedDict):  # a ``QuestRecord``'s dump
    round: int
    quest: int
    leader: int
    team: list[int]
    cards: dict[str, int]
    fails: int
    fails_needed: int
    success: bool


class SeatUse(TypedDict):  # one use of the Lady of the Lake or Excalibur
    round: int
    quest: int | None
    holder: int
    target: int


class SeatAt(TypedDict):  # a seat named in a round: the Rogue's watch, a member the Trapper set aside
    round: int
    quest: int | None
    seat: int


class LadyView(TypedDict):
    holder: int
    held: list[int]
    uses: list[SeatUse]


class ExcaliburView(TypedDict):
    holder: int | None
    uses: list[SeatUse]


class RogueView(TypedDict):
    watch: int | None
    watch_in_use: bool
    watches: list[SeatAt]
    tokens: list[dict[str, int]]  # round, quest and how many Rogue cards of each kind
    solo: int | None
    partial: list[int]


class MessengersView(TypedDict):
    tokens: list[dict[str, int]]  # round, quest and how many Message cards of each kind
    good_messages: int
    evil_messages: int
    backup: dict[str, JsonValue] | None  # how the backup rule applied (good, evil, applied)


class AssassinationView(TypedDict):
    assassin: int
    kind: str | None
    named: list[int]
    hit: NotRequired[bool | None]
    announced: NotRequired[bool]


class TrapperView(TypedDict):
    discarded: list[SeatAt]


class PlotWindow(TypedDict):  # a Plot card asking the table now
    kind: str
    seat: int
    card: str | None


class PlotView(TypedDict):
    deck: int
    discard: list[str]
    hands: list[list[str]]
    drawn: list[str]
    resolving: dict[str, JsonValue] | None
    face_up: list[int]
    shown: list[dict[str, JsonValue]]  # round, quest, seat, card
    checked: list[int]
    open_votes: dict[str, str]  # seat (as text) -> its open vote
    lead_locked: bool
    played: list[dict[str, JsonValue]]  # round, card, seat and what the card did (its own fields)
    asking: PlotWindow | None
    names: dict[str, str]


class LancelotView(TypedDict):
    variant: str
    cards: list[str] | list[dict[str, JsonValue]]  # the row dealt face down, or those drawn (round, card)
    deck_left: NotRequired[int]


class Revealed(TypedDict):
    seat: int
    role: str
    side: str


class RecruitmentView(TypedDict):
    assassin: int
    target: int
    recruited: bool


class TimeoutRecord(TypedDict):
    round: int
    when: str
    proposals: int
    seat: int
    kind: str
    hidden: bool


class Waiting(TypedDict):  # who the table waits for, as the public may know it (``queries.waiting_for``)
    kind: str | None
    seats: list[int]  # (none while the decision is hidden)
    hidden: NotRequired[bool]


class PublicView(TypedDict):
    """What the whole table may see. The plug-ins' entries (below the base keys) are there only when the
    plug-in is in play; a plug-in not listed here may add its own key (a declared ``view_entry``)."""

    players: int
    theme: str
    roles_in_play: list[str]
    options: dict[str, JsonValue]
    stage: str
    round: int
    leader: int
    quest: int | None
    quest_choices: list[int]
    team: list[int]
    team_size: int | None
    vote_track: int
    track: list[TrackCell]
    voted: list[int]
    played: list[int]
    table_cards: list[str]
    proposals: list[ProposalView]
    quests: list[QuestView]
    waiting: Waiting
    winner: str | None
    win_reason: str | None
    winners: list[int]
    roles: NotRequired[list[str]]  # once the game is over
    sides: NotRequired[list[str]]
    lady: NotRequired[LadyView]
    excalibur: NotRequired[ExcaliburView]
    rogue: NotRequired[RogueView]
    messengers: NotRequired[MessengersView]
    assassination: NotRequired[AssassinationView]
    trapper: NotRequired[TrapperView]
    plot: NotRequired[PlotView]
    lancelot: NotRequired[LancelotView]
    revealed: NotRequired[list[Revealed]]
    recruitment: NotRequired[RecruitmentView]
    timeouts: NotRequired[list[TimeoutRecord]]


class KnowledgeView(TypedDict):  # a ``Knowledge``'s dump
    seat: int | None
    label: str
    source: str
    quest: int | None


class PromptView(TypedDict):  # a ``Prompt``'s dump
    kind: str
    seat: int
    pick: int
    targets: list[int]
    choices: list[str]
    quests: list[int]
    optional: bool
    info: dict[str, JsonValue]


class You(TypedDict):
    seat: int
    role: str
    side: str
    knowledge: list[KnowledgeView]
    vote: str | None
    card: str | None
    cards: list[str]
    prompts: list[PromptView]
    good_messages_left: NotRequired[int]  # (the Messengers)
    evil_messages_left: NotRequired[int]
    messenger_rank: NotRequired[str]
    assassinates: NotRequired[list[str]]  # (the designated assassin: what may be assassinated)


class SeatView(PublicView):
    """What one seat may know: the public view and its own ``you``."""

    you: You

