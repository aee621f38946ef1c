"""The picture of a finished game (PNG): the result, the quest track, the vote grid under it, and
what happened besides the votes, round by round, so a player can retell the whole game from it.

Drawn from the session's summary of its last finished game (``Session.last``: names and the final
public view with every role revealed), so /history needs one read and no archive. Per Leader's turn
(numbered in its round as the players saw it: "Team 3"), it shows who led, who was on the team, who
approved and who rejected, whose vote ran out of time, and a turn where no team was proposed in time.
Each round's columns sit under the circle of the quest it went for (``picture_layout``). Per quest it
shows how many cards of each kind were played: counts only, never who played which card (the public
view has no such thing). Under the grid, the notes of each round tell the rest as the text history
does (``end_text.round_lines``: Plot cards, the Lady of the Lake, Excalibur, timed-out turns...), then
the Recruitment and the assassination. Drawn during the game (``gamebot.story.votes_so_far``), a vote still
open has no result: a ring with three dots, and a grey dot for each player who has voted so far.

Pillow is imported inside :func:`render_png` only, so updates that draw nothing pay nothing for it at
a cold start. Text uses the bundled Liberation Sans (SIL OFL 1.1, ``fonts/``: Latin, Greek and
Cyrillic); characters it lacks (emoji, CJK...) are left out, and a name with nothing left is shown as
"Player N". Without the font files, Pillow's own default font is used. Marks (crown, check, cross,
cards, clock) are drawn as shapes, not glyphs, so they never depend on a font.
"""
from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.views import PublicView
from gamebot.language import texts
from gamebot.messages.table import Table
from gamebot.messages.values import quest_outcome
from gamebot.story import by_round, end_text
from gamebot.story import picture_draw as pd
from gamebot.story import picture_layout as pl
from gamebot.story.picture_draw import Fonts, Glyphs, plain

FONT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fonts")
CELL = pl.CELL
M = pl.M
NOTE_LINE = 25  # the height of a line of notes
NOTE_GAP = 10  # space before a round's notes
MIN_NOTE_COLUMN = 420  # notes go in two columns when each can be this wide

__all__ = ["CELL", "FONT_DIR", "Fonts", "Glyphs", "load_fonts", "plain", "render_png"]

_loaded: dict[str, tuple[Fonts, Glyphs]] = {}  # per font directory: parsed once per container


def load_fonts(image_font: pd.FontModule) -> Fonts:
    return pd.load_fonts(image_font, FONT_DIR)


def _by_name(card: str) -> str:
    """What a card counts as, guessed from its id (a card the engine does not know)."""
    return "fail" if "fail" in card else "success"


def _counts(cards: dict[str, int]) -> tuple[int, int, int]:
    """(success-like, fail-like, magic) cards of a quest."""
    kind: Callable[[str], str]
    try:
        from engine import cards as engine_cards  # pure module; knows what each card counts as

        kind = engine_cards.counts_as
    except Exception:  # pragma: no cover - the engine ships with the layer
        kind = _by_name
    out = {"success": 0, "fail": 0, "magic": 0}
    for card, n in cards.items():
        try:
            k = kind(card)
        except Exception:  # noqa: BLE001 - a card the engine no longer knows
            k = _by_name(card)
        out[k if k in out else "success"] += int(n)
    return out["success"], out["fail"], out["magic"]


@dataclass
class Note:
    text: str
    bold: bool = False


def notes(table: Table, pv: PublicView, rounds: list[by_round.Round]) -> list[list[Note]]:
    """What the grid and the track do not show, one block per round (then one for the end): the
    round's heading and the text history's notes (a quest under way among them); a quest's line too
    when it had cards other than Success and Fail (Rogue, Message, Magic cards: the track only counts
    them) or when its Fails alone do not say its result (a success with a Fail: two were needed)."""
    blocks = []
    for r in rounds:
        lines = []
        for kind, line in end_text.round_lines(table, pv, r):
            q = r.quest
            special = kind == end_text.QUEST and q is not None and (set(q.get("cards") or {}) - {"success", "fail"}
                                                                    or quest_outcome(q) not in ("success", "fail"))
            if kind == end_text.NOTE or special:
                lines.append(Note(plain(line).strip()))
        if lines:
            slot = r.slot + 1 if r.slot is not None else "?"
            blocks.append([Note(plain(table.t("end.round", round=r.number, quest=slot)), bold=True), *lines])
    after = end_text.end_lines(table, pv)
    if after:
        blocks.append([Note(plain(table.t("end.after")), bold=True), *(Note(plain(x).strip()) for x in after)])
    return blocks


@dataclass
class Canvas:
    draw: Any  # an ``ImageDraw``; None on the probe that only measures (it never draws)
    fonts: Fonts
    glyphs: Glyphs
    table: Table
    lay: pl.Layout
    theme: str
    magic: bool = False  # a quest had Magic cards: the legend says what the purple card is
    open_vote: bool = False  # a vote is going on: the legend says what its marks are

    def t(self, key: str, **params: object) -> str:
        return plain(self.table.t(key, **params))


def _wrapped(c: Canvas, blocks: list[list[Note]], width: float) -> list[list[tuple[Note, bool]]]:
    """Each block's lines cut to ``width`` (without what the font cannot draw, emoji included)."""
    out = []
    for block in blocks:
        lines = []
        for note in block:
            font = c.fonts.note_bold if note.bold else c.fonts.note
            prefix = "" if note.bold else "• "
            for i, part in enumerate(pd.wrap(font, prefix + c.glyphs.clean(font, note.text), width)):
                lines.append((Note(part, note.bold), i > 0 and not note.bold))  # (line, continues the one above)
        out.append(lines)
    return out


def _height(block: list[tuple[Note, bool]]) -> int:
    return len(block) * NOTE_LINE + NOTE_GAP


def _columns(blocks: list[list[tuple[Note, bool]]], count: int) -> list[list[list[tuple[Note, bool]]]]:
    """Blocks in ``count`` columns of about the same height, in order (a round is never split)."""
    total = sum(_height(b) for b in blocks)
    cols: list[list[list[tuple[Note, bool]]]] = [[] for _ in range(count)]
    i, used = 0, 0
    for block in blocks:
        if i < count - 1 and used and used + _height(block) / 2 > total / count * (i + 1):
            i += 1
        cols[i].append(block)
        used += _height(block)
    return [col for col in cols if col]


def render_png(last: dict[str, Any], lang: str, status: str | None = None) -> bytes:  # (stored JSON)
    """The PNG picture of the game summarised in ``last`` (``Session.last``), in ``lang``."""
    from PIL import Image, ImageDraw, ImageFont  # lazy: only a game's end, /history or /votes pays for it

    pv = last["view"]
    theme = str(pv.get("theme") or "avalon")
    status = status or str(last.get("status") or "ended")
    n = int(pv.get("players") or len(last.get("names") or []))
    if FONT_DIR not in _loaded:
        _loaded[FONT_DIR] = (load_fonts(ImageFont), Glyphs())
    fonts, glyphs = _loaded[FONT_DIR]
    given = list(last.get("names") or [])
    names = []
    for seat in range(n):
        name = glyphs.clean(fonts.bold, str(given[seat] if seat < len(given) else ""))
        names.append(name or plain(texts.t("seat_name", lang, theme, n=seat + 1)))
    table = Table(chat_id=0, game_id=str(last.get("game_id") or ""), lang=lang, theme=theme, names=names)
    roles = list(pv.get("roles") or [])
    role_names = [glyphs.clean(fonts.small, plain(table.role(str(r)))) for r in roles]
    name_w = max([pd.size(fonts.bold, s)[0] for s in names] + [pd.size(fonts.small, s)[0] for s in role_names] + [160])
    rounds = by_round.rounds(pv)
    results = [cell.get("result") for cell in pv.get("track") or []]
    lay = pl.plan(n, rounds, min(name_w, 300) + 24, results)

    width = lay.width
    count = 2 if (width - 2 * M - 40) / 2 >= MIN_NOTE_COLUMN else 1
    col_w = (width - 2 * M - 40 * (count - 1)) / count
    magic = any(_counts(q.get("cards") or {})[2] for q in pv.get("quests") or [] if isinstance(q, dict))
    open_vote = any(col.turn.open for col in lay.columns)
    probe = Canvas(None, fonts, glyphs, table, lay, theme, magic, open_vote)
    note_cols = _columns(_wrapped(probe, notes(table, pv, rounds), col_w), count)
    notes_top = lay.grid_bottom + 30
    notes_h = max([sum(_height(b) for b in col) for col in note_cols] + [0])
    legend_top = notes_top + notes_h + (26 if notes_h else 0)
    height = int(legend_top + _legend(probe, legend_top, draw=False))

    img = Image.new("RGB", (width, height), pd.BACKGROUND.get(theme, pd.BACKGROUND["avalon"]))
    c = Canvas(ImageDraw.Draw(img), fonts, glyphs, table, lay, theme, magic, open_vote)
    _title(c, pv, status, n)
    _track(c, pv)
    _grid(c, pv, n, names, role_names)
    for i, col in enumerate(note_cols):
        _notes(c, col, M + i * (col_w + 40), notes_top)
    _legend(c, legend_top)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)  # (zlib's fastest: Telegram re-encodes a photo anyway)
    return out.getvalue()


def _title(c: Canvas, pv: PublicView, status: str, n: int) -> None:
    width, draw, fonts = c.lay.width, c.draw, c.fonts
    game = c.t(f"theme.{c.theme}") if texts.has(f"theme.{c.theme}", c.table.lang) else c.theme
    pd.text(draw, (M, 50), pd.fit(fonts.title, c.t("picture.title", game=game, players=n), width // 2), fonts.title,
            pd.INK)
    result, side = end_text.result(c.table, pv, status)
    colour = pd.GOOD if side == "good" else pd.EVIL if side == "evil" else pd.MUTED
    shown = pd.fit(fonts.title, c.glyphs.clean(fonts.title, plain(result)), width / 2 - 2 * M)
    pd.text(draw, (width - M, 50), shown, fonts.title, colour, align="right")
    why = end_text.reason(c.table, pv) if status != "cancelled" else None
    if why:
        shown = pd.fit(fonts.text, c.glyphs.clean(fonts.text, plain(why)), width - 2 * M)
        pd.text(draw, (width - M, 92), shown, fonts.text, pd.MUTED, align="right")
    draw.line([(M, 112), (width - M, 112)], fill=pd.LINE, width=2)


def _track(c: Canvas, pv: PublicView) -> None:
    """The five quests, each circle centred over its slot of the grid."""
    draw, fonts = c.draw, c.fonts
    by_slot = {int(q["quest"]): q for q in pv.get("quests") or [] if isinstance(q, dict) and "quest" in q}
    for i, cell in enumerate(list(pv.get("track") or [])[: pl.QUESTS]):
        cx, cy = c.lay.slot_centre(i), pl.TRACK_TOP + 52
        result = cell.get("result")
        fill = pd.GOOD if result is True else pd.EVIL if result is False else pd.NEUTRAL
        draw.ellipse([cx - 42, cy - 42, cx + 42, cy + 42], fill=fill, outline=pd.INK if result is not None else pd.MUTED,
                     width=2)
        pd.text(draw, (cx, cy), str(i + 1), fonts.big, pd.WHITE if result is not None else pd.INK, align="center")
        label = pd.fit(fonts.text, c.t("picture.team_size", size=cell.get("size", "?")), c.lay.slot_w - 8)
        pd.text(draw, (cx, cy + 60), label, fonts.text, pd.INK, align="center")
        if int(cell.get("fails_needed") or 1) > 1:
            two = pd.fit(fonts.small, c.t("picture.two_fails"), c.lay.slot_w - 8)
            pd.text(draw, (cx, cy + 84), two, fonts.small, pd.MUTED, align="center")
        played = by_slot.get(i)
        if played:
            ok, ko, magic = _counts(played.get("cards") or {})
            parts = [(pd.GOOD, ok), (pd.EVIL, ko)] + ([(pd.MAGIC, magic)] if magic else [])
            total_w = sum(18 + pd.size(fonts.bold, str(n))[0] + 14 for _, n in parts) - 14
            x0, y0 = cx - total_w / 2, cy + 100
            for colour, count in parts:
                pd.card(draw, x0, y0, colour)
                pd.text(draw, (x0 + 18, y0 + 9), str(count), fonts.bold, pd.INK)
                x0 += 18 + pd.size(fonts.bold, str(count))[0] + 14


def _grid(c: Canvas, pv: PublicView, n: int, names: list[str], role_names: list[str]) -> None:
    draw, fonts, lay = c.draw, c.fonts, c.lay
    head_top, hh = lay.head_top, pl.HEAD_H
    quests = {int(q["round"]): q for q in pv.get("quests") or [] if isinstance(q, dict) and "round" in q}
    pd.text(draw, (lay.grid_x - 12, head_top + hh / 2), c.t("picture.round_row"), fonts.small, pd.MUTED, align="right")
    pd.text(draw, (lay.grid_x - 12, head_top + hh * 1.5), c.t("picture.team_row"), fonts.small, pd.MUTED, align="right")
    for band in lay.bands:
        q = quests.get(band.round.number)
        fill = (pd.GOOD if q.get("success") else pd.EVIL) if q else pd.NEUTRAL
        draw.rounded_rectangle([band.x0, head_top + 2, band.x1, head_top + hh - 4], radius=8, fill=fill)
        label = c.t("picture.round", n=band.round.number)
        if pd.size(fonts.bold, label)[0] > band.x1 - band.x0 - 8:
            label = str(band.round.number)
        pd.text(draw, ((band.x0 + band.x1) / 2, head_top + hh / 2 - 1), label, fonts.bold, pd.WHITE if q else pd.INK,
                align="center")
    for col in lay.columns:
        pd.text(draw, (col.centre, head_top + hh * 1.5), str(col.turn.number), fonts.small, pd.MUTED, align="center")
    sides = list(pv.get("sides") or [])
    row_h = CELL + pl.ROW_GAP
    for seat in range(n):
        y = lay.rows_top + seat * row_h
        if seat % 2 == 0:
            draw.rectangle([M - 8, y - 1, lay.grid_right + 8, y + CELL + 1], fill=pd.STRIPE.get(c.theme, pd.STRIPE["avalon"]))
        side = sides[seat] if seat < len(sides) else ""
        mark = pd.GOOD if side == "good" else pd.EVIL if side else pd.NEUTRAL
        draw.rectangle([M - 8, y - 1, M - 3, y + CELL + 1], fill=mark)
        pd.text(draw, (M + 4, y + 15), pd.fit(fonts.bold, names[seat], lay.name_w - 20), fonts.bold, pd.INK)
        if seat < len(role_names):
            pd.text(draw, (M + 4, y + 35), pd.fit(fonts.small, role_names[seat], lay.name_w - 20), fonts.small,
                    pd.GOOD if side == "good" else pd.EVIL)
        for col in lay.columns:
            _cell(c, col, seat, y)
    vote_y = lay.outcome_top + CELL / 2
    pd.text(draw, (lay.grid_x - 12, vote_y), c.t("picture.outcome_row"), fonts.small, pd.MUTED, align="right")
    for col in lay.columns:
        cx, cy = col.centre, vote_y
        if col.turn.skipped:
            pd.clock(draw, cx, cy, 15, pd.CLOCK)
            continue
        if col.turn.open:  # no result yet
            pd.pending(draw, cx, cy, 15)
            continue
        approved = col.turn.approved
        draw.ellipse([cx - 15, cy - 15, cx + 15, cy + 15], fill=pd.APPROVE if approved else pd.REJECT)
        (pd.check if approved else pd.cross)(draw, cx, cy, 8, pd.WHITE, 3)


def _cell(c: Canvas, col: pl.Column, seat: int, y: float) -> None:
    draw, turn, x0 = c.draw, col.turn, col.x
    box = [x0 + 3, y + 3, x0 + CELL - 3, y + CELL - 3]
    if seat in turn.team:
        draw.rounded_rectangle(box, radius=6, fill=pd.TEAM)
    else:
        draw.rounded_rectangle(box, radius=6, outline=pd.LINE, width=1)
    if seat == turn.leader:
        pd.crown(draw, x0 + 6, y + 6, 15, pd.LEADER)
        if turn.skipped:
            pd.clock(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 10, pd.CLOCK)
    votes = turn.votes
    vote = votes[seat] if seat < len(votes) else ""
    if turn.open and seat in turn.voted:  # has voted; how stays secret until every vote is in
        pd.voted(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 7)
    elif vote == "A":
        pd.check(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 9, pd.APPROVE)
    elif vote == "R":
        pd.cross(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 9, pd.REJECT)
    if any(t.get("seat") == seat and t.get("kind") == "vote" for t in turn.timeouts):
        pd.clock(draw, x0 + CELL - 11, y + 11, 6, pd.CLOCK)


def _notes(c: Canvas, blocks: list[list[tuple[Note, bool]]], x: float, top: float) -> None:
    y = top
    for block in blocks:
        y += NOTE_GAP
        for note, continued in block:
            font = c.fonts.note_bold if note.bold else c.fonts.note
            pd.text(c.draw, (x + (16 if continued else 0), y + NOTE_LINE / 2), note.text, font,
                    pd.INK)
            y += NOTE_LINE


def _legend_items(c: Canvas) -> list[tuple[str, Callable[[float, float], None]]]:
    """The legend: (label, how to draw its mark at (x, y))."""
    draw = c.draw
    magic = [(c.t("picture.legend.magic_card"), lambda x, y: pd.card(draw, x + 5, y - 8, pd.MAGIC))] if c.magic else []
    open_vote = [(c.t("picture.legend.voted"), lambda x, y: pd.voted(draw, x + 11, y, 7)),
                 (c.t("picture.legend.vote_open"), lambda x, y: pd.pending(draw, x + 11, y, 11))] if c.open_vote else []
    return [
        (c.t("picture.legend.leader"), lambda x, y: pd.crown(draw, x, y - 6, 18, pd.LEADER)),
        (c.t("picture.legend.team"), lambda x, y: draw.rounded_rectangle([x, y - 11, x + 22, y + 11], radius=5,
                                                                         fill=pd.TEAM)),
        (c.t("picture.legend.approve"), lambda x, y: pd.check(draw, x + 11, y, 9, pd.APPROVE)),
        (c.t("picture.legend.reject"), lambda x, y: pd.cross(draw, x + 11, y, 9, pd.REJECT)),
        *open_vote,
        (c.t("picture.legend.timeout"), lambda x, y: pd.clock(draw, x + 11, y, 10, pd.CLOCK)),
        (c.t("picture.legend.success"), lambda x, y: draw.ellipse([x + 1, y - 10, x + 21, y + 10], fill=pd.GOOD)),
        (c.t("picture.legend.fail"), lambda x, y: draw.ellipse([x + 1, y - 10, x + 21, y + 10], fill=pd.EVIL)),
        (c.t("picture.legend.success_card"), lambda x, y: pd.card(draw, x + 5, y - 8, pd.GOOD)),
        (c.t("picture.legend.fail_card"), lambda x, y: pd.card(draw, x + 5, y - 8, pd.EVIL)),
        *magic,
    ]


def _legend(c: Canvas, top: float, draw: bool = True) -> float:
    """Draw the legend from ``top`` (or only measure it); returns its height."""
    width = c.lay.width
    if draw:
        c.draw.line([(M, top - 14), (width - M, top - 14)], fill=pd.LINE, width=2)
    x, y = M, top + 12
    for label, mark in _legend_items(c):
        w = 30 + pd.size(c.fonts.text, label)[0] + 28
        if x + w > width - M:
            x, y = M, y + 36
        if draw:
            mark(x, y)
            pd.text(c.draw, (x + 30, y), label, c.fonts.text, pd.INK)
        x += w
    return y - top + 48
