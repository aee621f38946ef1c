"""Drawing helpers of the game picture: colours, fonts, which characters a font can draw, text boxes
and the marks (crown, check, cross, card, clock) drawn as shapes so they never depend on a font.

Nothing here imports Pillow: the callers pass its modules (``ImageFont``) or objects (a font, an
``ImageDraw``), so importing this module costs nothing at a cold start.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gamebot.language import markup

if TYPE_CHECKING:  # (types only: Pillow is imported by ``picture.render_png``, when a picture is drawn)
    from typing import Protocol

    from PIL.ImageDraw import ImageDraw
    from PIL.ImageFont import FreeTypeFont, ImageFont
    from PIL.ImageFont import Layout as FontLayout

    Font = FreeTypeFont | ImageFont  # a TrueType font, or Pillow's bitmap default

    class FontModule(Protocol):
        """``PIL.ImageFont`` itself, the module, as the caller passes it."""

        Layout: type[FontLayout]

        def truetype(self, font: str, size: float = ..., index: int = ..., encoding: str = ...,
                     layout_engine: FontLayout | None = ...) -> FreeTypeFont: ...

        def load_default(self, size: float | None = ...) -> Font: ...

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
CLOCK = (214, 120, 20)
LINE = (214, 208, 196)
WHITE = (255, 255, 255)
BACKGROUND = {"avalon": (251, 248, 240), "resistance": (243, 245, 248)}
STRIPE = {"avalon": (243, 237, 224), "resistance": (232, 236, 241)}

Colour = tuple[int, int, int]

def plain(text: str) -> str:
    """What Telegram would show of a text (``markup.plain``: markup without its tags, its entities read;
    a name, plain text, as it is)."""
    return markup.plain(text)


@dataclass
class Fonts:
    title: Font
    big: Font
    text: Font
    bold: Font
    small: Font
    note: Font
    note_bold: Font


def font(image_font: FontModule, font_dir: str, name: str, size: int) -> Font:
    path = os.path.join(font_dir, name)
    try:
        return image_font.truetype(path, size, layout_engine=image_font.Layout.BASIC)
    except OSError:
        try:
            return image_font.load_default(size)  # Pillow's bundled font (FreeType builds)
        except (TypeError, OSError, AttributeError):  # pragma: no cover - very old or minimal Pillow
            return image_font.load_default()


def load_fonts(image_font: FontModule, font_dir: str) -> Fonts:
    return Fonts(
        title=font(image_font, font_dir, BOLD, 34),
        big=font(image_font, font_dir, BOLD, 30),
        text=font(image_font, font_dir, REGULAR, 20),
        bold=font(image_font, font_dir, BOLD, 20),
        small=font(image_font, font_dir, REGULAR, 16),
        note=font(image_font, font_dir, REGULAR, 18),
        note_bold=font(image_font, font_dir, BOLD, 18),
    )


class Glyphs:
    """Which characters a font can draw: a glyph that renders like an unassigned code point is the
    font's "missing glyph" box. Cached per font and character."""

    PROBE = "\U0010fffd"  # a private-use code point no font maps

    def __init__(self) -> None:
        self._missing: dict[int, bytes] = {}
        self._known: dict[tuple[int, str], bool] = {}

    @staticmethod
    def _shape(font: Font, ch: str) -> bytes:
        try:
            mask = font.getmask(ch)
        except Exception:  # noqa: BLE001 - a font that cannot encode the character at all
            return b"?"
        return repr(mask.size).encode() + bytes(mask)

    def has(self, font: Font, ch: str) -> bool:
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

    def clean(self, font: Font, text: str) -> str:
        """``text`` without the characters ``font`` cannot draw (and without doubled spaces)."""
        kept = "".join(ch for ch in text if self.has(font, ch) and ch not in "\u200d\ufe0f")
        return " ".join(kept.split())


def size(font: Font, text: str) -> tuple[int, int]:
    if not text:
        return 0, 0
    left, top, right, bottom = font.getbbox(text)  # (whole pixels, though typed as floats)
    return int(right - left), int(bottom - top)


def fit(font: Font, text: str, width: float) -> str:
    """``text``, cut with an ellipsis if it is wider than ``width``."""
    if size(font, text)[0] <= width:
        return text
    while text and size(font, text + "…")[0] > width:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(font: Font, text: str, width: float) -> list[str]:
    """``text`` cut into lines no wider than ``width``, between words (a single too-long word is cut)."""
    words = text.split()
    if size(font, " ".join(words))[0] <= width:  # (most notes: one measure, not one per word)
        return [" ".join(words)] if words else []
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if size(font, candidate)[0] <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return [fit(font, line, width) for line in lines]


def text(draw: ImageDraw, xy: tuple[float, float], value: str, font: Font, fill: Colour, align: str = "left",
         valign: str = "middle") -> None:
    """Draw ``value`` with its box placed by ``align`` (left/center/right of x) and ``valign``
    (top/middle of y), whatever the font type (no anchors: they need FreeType)."""
    if not value:
        return
    left, top, right, bottom = font.getbbox(value)
    w, h = right - left, bottom - top
    x, y = xy
    if align == "center":
        x -= w / 2
    elif align == "right":
        x -= w
    if valign == "middle":
        y -= h / 2
    draw.text((x - left, y - top), value, font=font, fill=fill)


def check(draw: ImageDraw, cx: float, cy: float, r: float, fill: Colour, width: int = 4) -> None:
    draw.line([(cx - r, cy), (cx - r * 0.3, cy + r * 0.7), (cx + r, cy - r * 0.7)], fill=fill, width=width,
              joint="curve")


def cross(draw: ImageDraw, cx: float, cy: float, r: float, fill: Colour, width: int = 4) -> None:
    r *= 0.8
    draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=fill, width=width)
    draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=fill, width=width)


def crown(draw: ImageDraw, x: float, y: float, w: float, fill: Colour) -> None:
    """A small crown whose box starts at (x, y), ``w`` wide and ``0.7 w`` high."""
    h = w * 0.7
    points = [(x, y + h), (x, y + h * 0.25), (x + w * 0.25, y + h * 0.55), (x + w * 0.5, y),
              (x + w * 0.75, y + h * 0.55), (x + w, y + h * 0.25), (x + w, y + h)]
    draw.polygon(points, fill=fill)


def card(draw: ImageDraw, x: float, y: float, fill: Colour) -> None:
    draw.rounded_rectangle([x, y, x + 12, y + 17], radius=2, fill=fill)


def voted(draw: ImageDraw, cx: float, cy: float, r: float) -> None:
    """Has voted, in a vote still open: a grey dot (how they voted is not known yet)."""
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=MUTED)


def pending(draw: ImageDraw, cx: float, cy: float, r: float) -> None:
    """A vote still open: a ring with three dots, no result."""
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=WHITE, outline=MUTED, width=2)
    dot = max(1.5, r / 7)
    for dx in (-r / 2.4, 0, r / 2.4):
        draw.ellipse([cx + dx - dot, cy - dot, cx + dx + dot, cy + dot], fill=MUTED)


def clock(draw: ImageDraw, cx: float, cy: float, r: float, fill: Colour, hands: Colour = WHITE) -> None:
    """A clock face: a turn that ran out of time."""
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill)
    width = max(2, round(r / 4))
    draw.line([(cx, cy), (cx, cy - r * 0.65)], fill=hands, width=width)
    draw.line([(cx, cy), (cx + r * 0.5, cy)], fill=hands, width=width)
