"""The picture of a finished game (PNG): the quest track and the vote-history grid.

Drawn from the session's summary of its last finished game (``Session.last``: names and the final
public view with every role revealed), so /history needs one read and no archive. It shows, per
team proposal, who led, who was on the team, who approved and who rejected, and for each quest how
many cards of each kind were played: counts only, never who played which card (the public view has
no such thing).

Pillow is imported inside :func:`render_png` only, so updates that draw nothing pay nothing for it at
a cold start. Text uses the bundled Liberation Sans (SIL OFL 1.1, ``fonts/``: Latin, Greek and
Cyrillic); characters it lacks (emoji, CJK...) are left out of names, and a name with nothing left is
shown as "Player N". Without the font files, Pillow's own default font is used. Marks (crown, check,
cross, cards) are drawn as shapes, not glyphs, so they never depend on a font.
"""
from __future__ import annotations

import html
import io
import os
import re
from dataclasses import dataclass
from typing import Any

from . import texts

FONT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fonts")
REGULAR, BOLD = "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"

# Colours: parchment for Avalon, cool grey for The Resistance; blue for Good / success, red for Evil / fail.
INK = (33, 37, 45)
MUTED = (96, 104, 118)
GOOD = (43, 108, 176)
EVIL = (197, 48, 48)
NEUTRAL = (190, 196, 204)
APPROVE = (39, 133, 78)
REJECT = (197, 48, 48)
TEAM = (249, 219, 120)
LEADER = (150, 110, 20)
MAGIC = (128, 90, 213)
LINE = (214, 208, 196)
BACKGROUND = {"avalon": (251, 248, 240), "resistance": (243, 245, 248)}
STRIPE = {"avalon": (243, 237, 224), "resistance": (232, 236, 241)}

M = 36  # outer margin
CELL = 46  # a grid cell (one player x one team proposal)
GAP = 14  # space between rounds
ROW_GAP = 4


@dataclass
class Fonts:
    title: Any
    big: Any
    text: Any
    bold: Any
    small: Any


_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """A catalog text without its Telegram HTML (tags, entities)."""
    return html.unescape(_TAG.sub("", text))


def _font(image_font: Any, name: str, size: int) -> Any:
    path = os.path.join(FONT_DIR, name)
    try:
        return image_font.truetype(path, size, layout_engine=image_font.Layout.BASIC)
    except OSError:
        try:
            return image_font.load_default(size)  # Pillow's bundled font (FreeType builds)
        except (TypeError, OSError, AttributeError):  # pragma: no cover - very old or minimal Pillow
            return image_font.load_default()


_loaded: dict[str, tuple[Fonts, Glyphs]] = {}  # per font directory: parsed once per container


def load_fonts(image_font: Any) -> Fonts:
    return Fonts(
        title=_font(image_font, BOLD, 34),
        big=_font(image_font, BOLD, 30),
        text=_font(image_font, REGULAR, 20),
        bold=_font(image_font, BOLD, 20),
        small=_font(image_font, REGULAR, 16),
    )


class Glyphs:
    """Which characters a font can draw: a glyph that renders like an unassigned code point is the
    font's "missing glyph" box. Cached per font and character."""

    PROBE = "\U0010fffd"  # a private-use code point no font maps

    def __init__(self) -> None:
        self._missing: dict[int, bytes] = {}
        self._known: dict[tuple[int, str], bool] = {}

    @staticmethod
    def _shape(font: Any, ch: str) -> bytes:
        try:
            mask = font.getmask(ch)
        except Exception:  # noqa: BLE001 - a font that cannot encode the character at all
            return b"?"
        return repr(mask.size).encode() + bytes(mask)

    def has(self, font: Any, ch: str) -> bool:
        if ch.isspace() or ord(ch) < 128:
            return ord(ch) >= 32 or ch == " "
        key = (id(font), ch)
        if key not in self._known:
            fid = id(font)
            if fid not in self._missing:
                self._missing[fid] = self._shape(font, self.PROBE)
            shape = self._shape(font, ch)
            self._known[key] = shape != b"?" and shape != self._missing[fid]
        return self._known[key]

    def clean(self, font: Any, text: str) -> str:
        """``text`` without the characters ``font`` cannot draw (and without doubled spaces)."""
        kept = "".join(ch for ch in text if self.has(font, ch) and ch not in "\u200d\ufe0f")
        return " ".join(kept.split())


def _size(font: Any, text: str) -> tuple[int, int]:
    if not text:
        return 0, 0
    left, top, right, bottom = font.getbbox(text)
    return right - left, bottom - top


def _fit(font: Any, text: str, width: int) -> str:
    if _size(font, text)[0] <= width:
        return text
    while text and _size(font, text + "…")[0] > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _text(draw: Any, xy: tuple[float, float], text: str, font: Any, fill: tuple[int, int, int],
          align: str = "left", valign: str = "middle") -> None:
    """Draw ``text`` with its box placed by ``align`` (left/center/right of x) and ``valign``
    (top/middle of y), whatever the font type (no anchors: they need FreeType)."""
    if not text:
        return
    left, top, right, bottom = font.getbbox(text)
    w, h = right - left, bottom - top
    x, y = xy
    if align == "center":
        x -= w / 2
    elif align == "right":
        x -= w
    if valign == "middle":
        y -= h / 2
    draw.text((x - left, y - top), text, font=font, fill=fill)


def _check(draw: Any, cx: float, cy: float, r: float, fill: tuple[int, int, int], width: int = 4) -> None:
    draw.line([(cx - r, cy), (cx - r * 0.3, cy + r * 0.7), (cx + r, cy - r * 0.7)], fill=fill, width=width,
              joint="curve")


def _cross(draw: Any, cx: float, cy: float, r: float, fill: tuple[int, int, int], width: int = 4) -> None:
    r *= 0.8
    draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=fill, width=width)
    draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=fill, width=width)


def _crown(draw: Any, x: float, y: float, w: float, fill: tuple[int, int, int]) -> None:
    """A small crown whose box starts at (x, y), ``w`` wide and ``0.7 w`` high."""
    h = w * 0.7
    points = [(x, y + h), (x, y + h * 0.25), (x + w * 0.25, y + h * 0.55), (x + w * 0.5, y),
              (x + w * 0.75, y + h * 0.55), (x + w, y + h * 0.25), (x + w, y + h)]
    draw.polygon(points, fill=fill)


def _card(draw: Any, x: float, y: float, fill: tuple[int, int, int]) -> None:
    draw.rounded_rectangle([x, y, x + 12, y + 17], radius=2, fill=fill)


@dataclass
class Column:
    round: int
    quest: int
    attempt: int
    leader: int
    team: list[int]
    votes: str
    approved: bool


def _columns(pv: dict[str, Any]) -> list[Column]:
    cols, attempts = [], {}
    for p in pv.get("proposals") or []:
        rnd = int(p.get("round", 0))
        attempts[rnd] = attempts.get(rnd, 0) + 1
        cols.append(Column(rnd, int(p.get("quest") or 0), attempts[rnd], int(p.get("leader", -1)),
                           list(p.get("team") or []), str(p.get("votes") or ""), bool(p.get("approved"))))
    return cols


def _counts(cards: dict[str, int]) -> tuple[int, int, int]:
    """(success-like, fail-like, magic) cards of a quest."""
    try:
        from engine import cards as engine_cards  # pure module; knows what each card counts as

        kind = engine_cards.counts_as
    except Exception:  # pragma: no cover - the engine ships with the layer
        def kind(c: str) -> str:
            return "fail" if "fail" in c else "success"
    out = {"success": 0, "fail": 0, "magic": 0}
    for card, n in cards.items():
        try:
            k = kind(card)
        except Exception:  # noqa: BLE001 - a card the engine no longer knows
            k = "fail" if "fail" in card else "success"
        out[k if k in out else "success"] += int(n)
    return out["success"], out["fail"], out["magic"]


def render_png(last: dict[str, Any], lang: str, status: str | None = None) -> bytes:
    """The PNG picture of the game summarised in ``last`` (``Session.last``), in ``lang``."""
    from PIL import Image, ImageDraw, ImageFont  # lazy: only a game's end or /history pays for it

    pv = last["view"]
    theme = str(pv.get("theme") or "avalon")
    status = status or str(last.get("status") or "ended")
    n = int(pv.get("players") or len(last.get("names") or []))

    def t(key: str, **params: Any) -> str:
        return plain(texts.t(key, lang, theme, **params))

    if FONT_DIR not in _loaded:
        _loaded[FONT_DIR] = (load_fonts(ImageFont), Glyphs())
    fonts, glyphs = _loaded[FONT_DIR]
    roles = list(pv.get("roles") or [])
    sides = list(pv.get("sides") or [])
    names = []
    for seat in range(n):
        raw = (last.get("names") or [])[seat] if seat < len(last.get("names") or []) else ""
        name = glyphs.clean(fonts.bold, str(raw))
        names.append(name or t("seat_name", n=seat + 1))
    role_names = [glyphs.clean(fonts.small, plain(texts.name_of("role", r, lang, theme))) for r in roles]
    cols = _columns(pv)
    rounds: list[tuple[int, list[int]]] = []  # round -> column indexes
    for i, c in enumerate(cols):
        if rounds and rounds[-1][0] == c.round:
            rounds[-1][1].append(i)
        else:
            rounds.append((c.round, [i]))
    quests = {int(q["round"]): q for q in pv.get("quests") or []}

    # --- geometry -------------------------------------------------------------------------------
    name_w = max([_size(fonts.bold, s)[0] for s in names] + [_size(fonts.small, s)[0] for s in role_names] + [160])
    name_w = min(name_w, 300) + 24
    grid_x = M + name_w
    col_x: list[int] = []
    x = grid_x
    for r, (_, idxs) in enumerate(rounds):
        if r:
            x += GAP
        for _ in idxs:
            col_x.append(x)
            x += CELL
    grid_w = max(x - grid_x, CELL)
    width = max(grid_x + grid_w + M, 980)
    track_top = 130
    track_h = 170
    head_top = track_top + track_h + 18
    head_h = 34
    rows_top = head_top + 2 * head_h + 6
    row_h = CELL + ROW_GAP
    outcome_top = rows_top + n * row_h + 4
    legend_top = outcome_top + CELL + 26
    height = legend_top + 96

    img = Image.new("RGB", (width, height), BACKGROUND.get(theme, BACKGROUND["avalon"]))
    draw = ImageDraw.Draw(img)

    # --- title ----------------------------------------------------------------------------------
    game = t(f"theme.{theme}") if texts.has(f"theme.{theme}", lang) else theme
    _text(draw, (M, 50), _fit(fonts.title, t("picture.title", game=game, players=n), width // 2), fonts.title, INK)
    winner = pv.get("winner")
    if status == "cancelled":
        result, colour = t("picture.result.cancelled"), MUTED
    elif winner in ("good", "evil"):
        result, colour = t(f"picture.result.{winner}"), GOOD if winner == "good" else EVIL
    else:
        result, colour = t("picture.result.none"), MUTED
    _text(draw, (width - M, 50), result, fonts.title, colour, align="right")
    reason = pv.get("win_reason")
    if reason and status != "cancelled" and texts.has(f"end.reason.{reason}", lang):
        _text(draw, (width - M, 92), t(f"end.reason.{reason}"), fonts.text, MUTED, align="right")
    draw.line([(M, 112), (width - M, 112)], fill=LINE, width=2)

    # --- quest track ----------------------------------------------------------------------------
    track = list(pv.get("track") or [])
    slot_w = (width - 2 * M) / max(len(track), 1)
    by_slot = {int(q["quest"]): q for q in pv.get("quests") or []}
    for i, cell in enumerate(track):
        cx = M + slot_w * (i + 0.5)
        cy = track_top + 52
        result_ = cell.get("result")
        fill = GOOD if result_ is True else EVIL if result_ is False else NEUTRAL
        draw.ellipse([cx - 42, cy - 42, cx + 42, cy + 42], fill=fill, outline=INK if result_ is not None else MUTED,
                     width=2)
        _text(draw, (cx, cy), str(i + 1), fonts.big, (255, 255, 255) if result_ is not None else INK, align="center")
        _text(draw, (cx, cy + 60), t("picture.team_size", size=cell.get("size", "?")), fonts.text, INK, align="center")
        if int(cell.get("fails_needed") or 1) > 1:
            _text(draw, (cx, cy + 84), t("picture.two_fails"), fonts.small, MUTED, align="center")
        played = by_slot.get(i)
        if played:
            ok, ko, magic = _counts(played.get("cards") or {})
            parts = [(GOOD, ok), (EVIL, ko)] + ([(MAGIC, magic)] if magic else [])
            total_w = sum(18 + _size(fonts.bold, str(c))[0] + 14 for _, c in parts) - 14
            x0 = cx - total_w / 2
            y0 = cy + 100
            for colour_, count in parts:
                _card(draw, x0, y0, colour_)
                _text(draw, (x0 + 18, y0 + 9), str(count), fonts.bold, INK)
                x0 += 18 + _size(fonts.bold, str(count))[0] + 14

    # --- grid headers: the quest each round went for, then the team attempt ----------------------
    _text(draw, (grid_x - 12, head_top + head_h / 2), t("picture.quest_row"), fonts.small, MUTED, align="right")
    _text(draw, (grid_x - 12, head_top + head_h * 1.5), t("picture.team_row"), fonts.small, MUTED, align="right")
    for rnd, idxs in rounds:
        x0, x1 = col_x[idxs[0]], col_x[idxs[-1]] + CELL
        q = quests.get(rnd)
        fill = (GOOD if q["success"] else EVIL) if q else NEUTRAL
        draw.rounded_rectangle([x0 + 2, head_top + 2, x1 - 2, head_top + head_h - 4], radius=8, fill=fill)
        slot = cols[idxs[-1]].quest + 1
        label = t("picture.quest", n=slot)
        if _size(fonts.bold, label)[0] > x1 - x0 - 8:
            label = str(slot)
        _text(draw, ((x0 + x1) / 2, head_top + head_h / 2 - 1), label, fonts.bold,
              (255, 255, 255) if q else INK, align="center")
        for i in idxs:
            _text(draw, (col_x[i] + CELL / 2, head_top + head_h * 1.5), str(cols[i].attempt), fonts.small, MUTED,
                  align="center")

    # --- grid rows: one per player --------------------------------------------------------------
    for seat in range(n):
        y = rows_top + seat * row_h
        if seat % 2 == 0:
            draw.rectangle([M - 8, y - 1, grid_x + grid_w + 8, y + CELL + 1], fill=STRIPE.get(theme, STRIPE["avalon"]))
        side = sides[seat] if seat < len(sides) else ""
        draw.rectangle([M - 8, y - 1, M - 3, y + CELL + 1], fill=GOOD if side == "good" else EVIL if side else NEUTRAL)
        _text(draw, (M + 4, y + 15), _fit(fonts.bold, names[seat], name_w - 20), fonts.bold, INK)
        if seat < len(role_names):
            _text(draw, (M + 4, y + 35), _fit(fonts.small, role_names[seat], name_w - 20), fonts.small,
                  GOOD if side == "good" else EVIL)
        for i, c in enumerate(cols):
            x0 = col_x[i]
            box = [x0 + 3, y + 3, x0 + CELL - 3, y + CELL - 3]
            if seat in c.team:
                draw.rounded_rectangle(box, radius=6, fill=TEAM)
            else:
                draw.rounded_rectangle(box, radius=6, outline=LINE, width=1)
            if seat == c.leader:
                _crown(draw, x0 + 6, y + 6, 15, LEADER)
            vote = c.votes[seat] if seat < len(c.votes) else ""
            if vote == "A":
                _check(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 9, APPROVE)
            elif vote == "R":
                _cross(draw, x0 + CELL / 2 + 3, y + CELL / 2 + 4, 9, REJECT)

    # --- the outcome of each vote ----------------------------------------------------------------
    _text(draw, (grid_x - 12, outcome_top + CELL / 2), t("picture.outcome_row"), fonts.small, MUTED, align="right")
    for i, c in enumerate(cols):
        cx, cy = col_x[i] + CELL / 2, outcome_top + CELL / 2
        draw.ellipse([cx - 15, cy - 15, cx + 15, cy + 15], fill=APPROVE if c.approved else REJECT)
        (_check if c.approved else _cross)(draw, cx, cy, 8, (255, 255, 255), 3)

    # --- legend --------------------------------------------------------------------------------
    draw.line([(M, legend_top - 14), (width - M, legend_top - 14)], fill=LINE, width=2)
    items: list[tuple[str, Any]] = [
        (t("picture.legend.leader"), lambda x, y: _crown(draw, x, y - 6, 18, LEADER)),
        (t("picture.legend.team"), lambda x, y: draw.rounded_rectangle([x, y - 11, x + 22, y + 11], radius=5,
                                                                       fill=TEAM)),
        (t("picture.legend.approve"), lambda x, y: _check(draw, x + 11, y, 9, APPROVE)),
        (t("picture.legend.reject"), lambda x, y: _cross(draw, x + 11, y, 9, REJECT)),
        (t("picture.legend.success"), lambda x, y: draw.ellipse([x + 1, y - 10, x + 21, y + 10], fill=GOOD)),
        (t("picture.legend.fail"), lambda x, y: draw.ellipse([x + 1, y - 10, x + 21, y + 10], fill=EVIL)),
        (t("picture.legend.success_card"), lambda x, y: _card(draw, x + 5, y - 8, GOOD)),
        (t("picture.legend.fail_card"), lambda x, y: _card(draw, x + 5, y - 8, EVIL)),
    ]
    x, y = M, legend_top + 12
    for label, mark in items:
        w = 30 + _size(fonts.text, label)[0] + 28
        if x + w > width - M:
            x, y = M, y + 36
        mark(x, y)
        _text(draw, (x + 30, y), label, fonts.text, INK)
        x += w

    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()
