"""Where things go in the game picture: pure geometry, no Pillow, so it can be checked on its own.

The picture is a grid under the quest track. Right of the players' names, the width is cut into five
equal slots, one per quest: the quest's circle is centred in its slot, and under it, the round that
went for that quest, one column per Leader's turn ("Team 1", "Team 2"...). With Targeting the rounds
do not go in quest order, so a round's columns are under the quest it went for, not in round order.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gamebot.story.by_round import Round, Turn

QUESTS = 5
M = 36  # outer margin
CELL = 46  # a grid cell (one player x one Leader's turn)
PAD = 10  # room inside a slot on each side of its columns
MIN_SLOT = 150  # a slot is at least this wide: the circle, "2 fails needed", the card counts
MIN_WIDTH = 980
ROW_GAP = 4
TRACK_TOP = 130
TRACK_H = 170
HEAD_H = 34


@dataclass
class Column:
    """One Leader's turn in the grid."""

    round: int
    slot: int
    turn: Turn
    x: float  # left edge

    @property
    def centre(self) -> float:
        return self.x + CELL / 2


@dataclass
class Band:
    """A round's header over the slot of the quest it went for."""

    round: Round
    slot: int
    x0: float
    x1: float


@dataclass
class Layout:
    width: int
    name_w: int
    grid_x: int
    slot_w: float
    columns: list[Column] = field(default_factory=list)
    bands: list[Band] = field(default_factory=list)
    head_top: int = TRACK_TOP + TRACK_H + 18
    rows_top: int = 0
    outcome_top: int = 0
    grid_bottom: int = 0

    def slot_left(self, slot: int) -> float:
        return self.grid_x + self.slot_w * slot

    def slot_centre(self, slot: int) -> float:
        return self.slot_left(slot) + self.slot_w / 2

    @property
    def grid_right(self) -> float:
        return self.grid_x + self.slot_w * QUESTS


def slots(rounds: list[Round], results: list[bool | None] | None = None) -> dict[int, int]:
    """Round number -> the quest slot its columns go under: the quest it went for, else (no team went,
    the game ended) the first quest not yet played and not taken by another round."""
    out: dict[int, int] = {}
    for r in rounds:
        if r.slot is not None and 0 <= r.slot < QUESTS:
            out[r.number] = r.slot
    taken = set(out.values())
    played = {i for i, res in enumerate(results or []) if res is not None}
    for r in rounds:
        if r.number not in out:
            free = [s for s in range(QUESTS) if s not in taken and s not in played] or [QUESTS - 1]
            out[r.number] = free[0]
            taken.add(free[0])
    return out


def plan(players: int, rounds: list[Round], name_w: int, results: list[bool | None] | None = None) -> Layout:
    """The geometry of the track and the grid for ``players`` rows and these rounds."""
    where = slots(rounds, results)
    per_slot: dict[int, list[Round]] = {}
    for r in rounds:
        per_slot.setdefault(where[r.number], []).append(r)
    widest = max([sum(len(r.turns) for r in rs) for rs in per_slot.values()] + [1])
    grid_x = M + name_w
    slot_w = max(MIN_SLOT, widest * CELL + 2 * PAD)
    width = max(MIN_WIDTH, int(grid_x + QUESTS * slot_w + M))
    layout = Layout(width=width, name_w=name_w, grid_x=grid_x, slot_w=(width - M - grid_x) / QUESTS)
    for slot, rs in sorted(per_slot.items()):
        turns = [(r, t) for r in rs for t in r.turns]
        x = layout.slot_left(slot) + (layout.slot_w - len(turns) * CELL) / 2
        for r, turn in turns:
            layout.columns.append(Column(r.number, slot, turn, x))
            x += CELL
        for r in rs:  # the whole slot; a slot shared by two rounds (never in a real game): each its columns
            mine = [c.x for c in layout.columns if c.round == r.number and c.slot == slot]
            if len(rs) == 1 or not mine:
                x0, x1 = layout.slot_left(slot) + 6, layout.slot_left(slot) + layout.slot_w - 6
            else:
                x0, x1 = min(mine) + 2, max(mine) + CELL - 2
            layout.bands.append(Band(r, slot, x0, x1))
    layout.columns.sort(key=lambda c: (c.round, c.turn.number))
    layout.rows_top = layout.head_top + 2 * HEAD_H + 6
    layout.outcome_top = layout.rows_top + players * (CELL + ROW_GAP) + 4
    layout.grid_bottom = layout.outcome_top + CELL
    return layout
