"""Blueprint-style card illustrations for the Cedana engineering blog.

Each card on the blog carries an alt text such as ``"Cedana. Blueprint of two
fractions. On the left, marked cost per token, ..."``.  This module turns such a
description into a clean technical line drawing: off-white, faintly gridded
paper; near-black ink and grey outlines; blue accents; the occasional red dashed
or hatched detail; and a small ``CEDANA`` title block in the bottom-right corner
as on an engineering drawing.

The composition ("motif") is picked from keywords in the description; the
details (counts, heights, angles, which element is highlighted) come from a
private :class:`random.Random` seeded with the SHA-256 of ``seed``, so the same
``(description, seed, size)`` always produces the same pixels.  All geometry is
laid out in a 1200 x 675 design space and scaled uniformly (centred) onto the
requested canvas, drawn at 2x and downsampled with LANCZOS for smooth strokes.

Only Pillow is required.  Text uses :func:`PIL.ImageFont.load_default` (the
bundled scalable font on Pillow >= 10.1, the bitmap font otherwise), drawn on a
fixed character pitch so that labels read as monospaced.

Public API: :func:`draw_blueprint`, :func:`render_png`, :data:`MOTIFS`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import itertools
import logging
import math
import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

__all__ = ["MOTIFS", "choose_motif", "draw_blueprint", "render_png"]

log = logging.getLogger(__name__)

Point = tuple[float, float]
RGB = tuple[int, int, int]

# --------------------------------------------------------------------------
# Palette and constants
# --------------------------------------------------------------------------

PAPER: RGB = (246, 249, 253)
GRID_MINOR: RGB = (229, 236, 247)
GRID_MAJOR: RGB = (211, 223, 242)
INK: RGB = (27, 31, 42)
GREY: RGB = (128, 136, 150)
GREY_LIGHT: RGB = (190, 197, 208)
GREY_FILL: RGB = (229, 232, 238)
BLUE: RGB = (31, 94, 255)
BLUE_MID: RGB = (120, 158, 255)
BLUE_TINT: RGB = (183, 203, 255)
BLUE_PALE: RGB = (222, 231, 255)
RED: RGB = (222, 64, 56)
# Labels are text, so they need WCAG 1.4.3's 4.5:1 on PAPER, and on the dark theme's inverted
# paper too (static/css/dark.css): GREY (3.4:1) and RED (4.1:1) are fine for lines but too
# light for words, so ``_Pen.text`` writes them in these darker shades of the same hue.
GREY_TEXT: RGB = (92, 100, 114)
RED_TEXT: RGB = (190, 38, 32)
LABEL_SHADES: dict[RGB, RGB] = {GREY: GREY_TEXT, GREY_LIGHT: GREY_TEXT, RED: RED_TEXT}

DESIGN_W = 1200.0
DESIGN_H = 675.0
SUPERSAMPLE = 2
GRID_STEP = 24.0  # design units between minor grid lines
MIN_TEXT_PX = 6.5  # labels smaller than this (in output pixels) are omitted
MAX_DESCRIPTION = 4000  # characters of the description that are analysed
MIN_SIDE = 16
MAX_SIDE = 8192

STROKE = 2.2
THIN = 1.4
HEAVY = 3.6

# --------------------------------------------------------------------------
# Fonts and text helpers
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return Pillow's bundled font at ``px`` pixels, or the bitmap fallback."""
    try:
        return ImageFont.load_default(size=max(1, px))
    except (TypeError, ValueError, OSError, AttributeError, ImportError):
        return ImageFont.load_default()


_LABEL_ALLOWED = re.compile(r"[^A-Z0-9 $%/+\-.:'&#=<>]")


def _clean_label(text: str, limit: int = 30) -> str:
    """Upper-case ASCII version of ``text``, cut at a word boundary."""
    text = unicodedata.normalize("NFKD", text)
    text = text.encode("ascii", "ignore").decode("ascii").upper()
    text = _LABEL_ALLOWED.sub(" ", text)
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[: limit + 1].rsplit(" ", 1)[0]
        text = cut if len(cut) >= limit // 2 else text[:limit]
    return text.strip(" -/.")


_LABEL_RE = re.compile(
    r"\b(?:marked|labell?ed|the words|named|reading)\s+(?!by\b|with\b|as\b|in\b|out\b)"
    r"([^,.;:()\[\]\n]{2,80})",
    re.IGNORECASE,
)


_LABEL_STOP = re.compile(
    r"\s+(?:with|stands?|sits?|that|which|where|while|is|are|runs?|rises?|under|above|below|"
    r"beneath|before|after|inside|holding|carrying)\b.*$",
    re.IGNORECASE | re.DOTALL,
)


def _extract_labels(text: str) -> list[str]:
    """Short phrases that follow "marked", "the words", ... in ``text``."""
    out: list[str] = []
    for match in _LABEL_RE.finditer(text):
        label = _clean_label(_LABEL_STOP.sub("", match.group(1)))
        if label and label not in out:
            out.append(label)
    return out[:12]


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_NUMBER_WORDS = {word: i for i, word in enumerate(_UNITS)}
_NUMBER_WORDS.update(_TENS)
_NUMBER_WORDS.update({"single": 1, "pair": 2, "dozen": 12})


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _number_at(tokens: Sequence[str], i: int) -> tuple[int | None, int]:
    """Parse a number (digits or words, e.g. "twenty four") at ``tokens[i]``."""
    tok = tokens[i]
    if tok.isdigit() and len(tok) <= 4:
        return int(tok), i + 1
    if tok in _TENS and i + 1 < len(tokens):
        nxt = _NUMBER_WORDS.get(tokens[i + 1])
        if nxt is not None and 0 < nxt < 10:
            return _TENS[tok] + nxt, i + 2
    if tok in _NUMBER_WORDS:
        return _NUMBER_WORDS[tok], i + 1
    return None, i + 1


# --------------------------------------------------------------------------
# Pen: drawing primitives in design units
# --------------------------------------------------------------------------


class _Pen:
    """Draws onto a supersampled RGB image using 1200x675 design coordinates."""

    def __init__(self, image: Image.Image, out_scale: float, ox: float, oy: float):
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.out_scale = out_scale  # output px per design unit
        self.k = out_scale * SUPERSAMPLE  # canvas px per design unit
        self.ox = ox
        self.oy = oy
        width, height = image.size
        # visible extent of the canvas in design units
        self.x_min = -ox / self.k
        self.y_min = -oy / self.k
        self.x_max = (width - ox) / self.k
        self.y_max = (height - oy) / self.k

    # -- conversion -------------------------------------------------------
    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x * self.k, self.oy + y * self.k)

    def w(self, width: float) -> int:
        return max(1, round(width * self.k))

    # -- lines ----------------------------------------------------------
    def line(
        self,
        pts: Sequence[Point],
        color: RGB = INK,
        width: float = STROKE,
        dash: tuple[float, float] | None = None,
        caps: bool = True,
    ) -> None:
        if len(pts) < 2:
            return
        if dash:
            for seg in _dash_polyline(pts, dash):
                self._polyline(seg, color, width, caps)
        else:
            self._polyline(pts, color, width, caps)

    def _polyline(self, pts: Sequence[Point], color: RGB, width: float, caps: bool):
        px = [self.p(x, y) for x, y in pts]
        wpx = self.w(width)
        self.draw.line(px, fill=color, width=wpx, joint="curve")
        if caps and wpx >= 3:
            r = wpx / 2.0
            for x, y in (px[0], px[-1]):
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=color)

    def curve(
        self,
        p0: Point,
        c1: Point,
        c2: Point,
        p1: Point,
        color: RGB = INK,
        width: float = STROKE,
        dash: tuple[float, float] | None = None,
        arrow: float = 0.0,
    ) -> None:
        pts = _bezier(p0, c1, c2, p1, 48)
        if arrow:
            pts = _trim_end(pts, arrow * 0.8)
            self.line(pts, color, width, dash)
            self._head(pts[-1], p1, color, arrow)
        else:
            self.line(pts, color, width, dash)

    def arrow(
        self,
        a: Point,
        b: Point,
        color: RGB = INK,
        width: float = STROKE,
        head: float = 13.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        length = math.dist(a, b)
        if length < 1e-6:
            return
        t = max(0.0, (length - head * 0.8) / length)
        tail_end = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        self.line([a, tail_end], color, width, dash)
        self._head(a, b, color, head)

    def _head(self, a: Point, b: Point, color: RGB, head: float) -> None:
        ang = math.atan2(b[1] - a[1], b[0] - a[0])
        spread = 0.42
        left = (
            b[0] - head * math.cos(ang - spread),
            b[1] - head * math.sin(ang - spread),
        )
        right = (
            b[0] - head * math.cos(ang + spread),
            b[1] - head * math.sin(ang + spread),
        )
        self.draw.polygon([self.p(*b), self.p(*left), self.p(*right)], fill=color)

    # -- shapes ---------------------------------------------------------
    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        outline: RGB | None = INK,
        fill: RGB | None = None,
        width: float = STROKE,
        radius: float = 0.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        x0, x1 = min(x0, x1), max(x0, x1)
        y0, y1 = min(y0, y1), max(y0, y1)
        box = (*self.p(x0, y0), *self.p(x1, y1))
        if box[2] - box[0] < 1 or box[3] - box[1] < 1:
            box = (box[0], box[1], max(box[2], box[0] + 1), max(box[3], box[1] + 1))
        if dash and outline is not None:
            if fill is not None:
                self.draw.rectangle(box, fill=fill)
            pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
            self.line(pts, outline, width, dash, caps=False)
            return
        wpx = self.w(width) if outline is not None else 0
        if radius > 0:
            rpx = min(radius * self.k, (box[2] - box[0]) / 2, (box[3] - box[1]) / 2)
            self.draw.rounded_rectangle(box, rpx, fill=fill, outline=outline, width=wpx)
        else:
            self.draw.rectangle(box, fill=fill, outline=outline, width=wpx)

    def circle(
        self,
        cx: float,
        cy: float,
        r: float,
        outline: RGB | None = INK,
        fill: RGB | None = None,
        width: float = STROKE,
        dash: tuple[float, float] | None = None,
    ) -> None:
        box = (*self.p(cx - r, cy - r), *self.p(cx + r, cy + r))
        if box[2] - box[0] < 1:
            return
        if dash and outline is not None:
            if fill is not None:
                self.draw.ellipse(box, fill=fill)
            circumference = 2 * math.pi * r
            n = max(4, int(circumference / (dash[0] + dash[1])))
            step = 360.0 / n
            on = step * dash[0] / (dash[0] + dash[1])
            for i in range(n):
                start = i * step
                self.draw.arc(box, start, start + on, fill=outline, width=self.w(width))
            return
        wpx = self.w(width) if outline is not None else 0
        self.draw.ellipse(box, fill=fill, outline=outline, width=wpx)

    def dot(self, cx: float, cy: float, r: float, color: RGB) -> None:
        self.circle(cx, cy, r, outline=None, fill=color)

    def polygon(
        self,
        pts: Sequence[Point],
        outline: RGB | None = INK,
        fill: RGB | None = None,
        width: float = STROKE,
    ) -> None:
        px = [self.p(x, y) for x, y in pts]
        if fill is not None:
            self.draw.polygon(px, fill=fill)
        if outline is not None:
            self.line([*pts, pts[0]], outline, width)

    def hatch(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        color: RGB = GREY,
        gap: float = 8.0,
        width: float = 1.1,
        flip: bool = False,
    ) -> None:
        """45-degree hatching clipped exactly to the rectangle."""
        x0, x1 = min(x0, x1), max(x0, x1)
        y0, y1 = min(y0, y1), max(y0, y1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            return
        if not flip:
            # lines x + y = c
            c = x0 + y0 + gap / 2
            while c < x1 + y1:
                xa = max(x0, c - y1)
                xb = min(x1, c - y0)
                if xb > xa:
                    self.line([(xa, c - xa), (xb, c - xb)], color, width, caps=False)
                c += gap
        else:
            # lines y - x = c
            c = y0 - x1 + gap / 2
            while c < y1 - x0:
                xa = max(x0, y0 - c)
                xb = min(x1, y1 - c)
                if xb > xa:
                    self.line([(xa, xa + c), (xb, xb + c)], color, width, caps=False)
                c += gap

    def hatch_circle(self, cx: float, cy: float, r: float, color: RGB = GREY, gap: float = 7.0) -> None:
        c = -r * math.sqrt(2) + gap / 2
        while c < r * math.sqrt(2):
            # chord of x + y = c (relative to centre); distance from centre = |c|/sqrt2
            d = abs(c) / math.sqrt(2)
            if d < r:
                half = math.sqrt(r * r - d * d)
                mx, my = c / 2, c / 2
                dx, dy = half / math.sqrt(2), -half / math.sqrt(2)
                a = (cx + mx - dx, cy + my - dy)
                b = (cx + mx + dx, cy + my + dy)
                self.line([a, b], color, 1.1, caps=False)
            c += gap

    # -- text -------------------------------------------------------------
    def text(
        self,
        x: float,
        y: float,
        text: str,
        color: RGB = INK,
        size: float = 12.0,
        align: str = "left",
        max_width: float | None = None,
        track: float = 0.12,
        bold: bool = False,
    ) -> float:
        """Monospaced label with its vertical centre at ``y``; returns its width. ``color`` is
        the label's hue: grey and red are drawn in their legible shades (``LABEL_SHADES``)."""
        color = LABEL_SHADES.get(color, color)
        text = _clean_label(text, 80) if text else ""
        if not text:
            return 0.0
        out_px = size * self.out_scale
        if out_px < MIN_TEXT_PX:
            return 0.0
        font = _font(max(1, round(size * self.k)))
        try:
            cell = font.getlength("M") * (1.0 + track)
            bbox = font.getbbox("H")
        except (AttributeError, OSError, TypeError, ValueError):  # exotic fonts
            return 0.0
        if cell <= 0:
            return 0.0
        if max_width is not None:
            max_chars = int(max_width * self.k / cell)
            if max_chars < 3:
                return 0.0
            if len(text) > max_chars:
                text = _clean_label(text, max_chars)
        total = cell * len(text)
        px, py = self.p(x, y)
        if align == "center":
            px -= total / 2
        elif align == "right":
            px -= total
        top = py - (bbox[1] + bbox[3]) / 2
        for i, ch in enumerate(text):
            if ch == " ":
                continue
            cw = font.getlength(ch)
            cx = px + i * cell + (cell - cw) / 2
            self.draw.text((cx, top), ch, font=font, fill=color)
            if bold:
                self.draw.text((cx + max(1, self.k * 0.5), top), ch, font=font, fill=color)
        return total / self.k


def _bezier(p0: Point, c1: Point, c2: Point, p1: Point, n: int) -> list[Point]:
    pts = []
    for i in range(n + 1):
        t = i / n
        u = 1 - t
        x = u**3 * p0[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t**3 * p1[0]
        y = u**3 * p0[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t**3 * p1[1]
        pts.append((x, y))
    return pts


def _trim_end(pts: list[Point], length: float) -> list[Point]:
    """Drop ``length`` units from the end of a polyline."""
    out = list(pts)
    while len(out) >= 2 and length > 0:
        seg = math.dist(out[-2], out[-1])
        if seg > length:
            t = (seg - length) / seg
            a, b = out[-2], out[-1]
            out[-1] = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            return out
        length -= seg
        out.pop()
    return out


def _dash_polyline(pts: Sequence[Point], dash: tuple[float, float]) -> list[list[Point]]:
    """Split a polyline into dash segments (lengths in design units)."""
    on, off = max(0.5, dash[0]), max(0.5, dash[1])
    segments: list[list[Point]] = []
    current: list[Point] = [pts[0]]
    drawing = True
    remaining = on
    for a, b in itertools.pairwise(pts):
        seg = math.dist(a, b)
        pos = 0.0
        while seg - pos > remaining:
            pos += remaining
            t = pos / seg
            q = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            if drawing:
                current.append(q)
                segments.append(current)
            current = [q]
            drawing = not drawing
            remaining = on if drawing else off
        remaining -= seg - pos
        if drawing:
            current.append(b)
        else:
            current = [b]
    if drawing and len(current) >= 2:
        segments.append(current)
    return segments


# --------------------------------------------------------------------------
# Drawing context handed to motifs
# --------------------------------------------------------------------------


class _Ctx:
    def __init__(self, pen: _Pen, rng: random.Random, description: str):
        self.pen = pen
        self.rng = rng
        self.raw = description
        self.text = description.lower()
        self.tokens = _tokens(description)
        self.labels = _extract_labels(description)
        self._label_i = 0

    def has(self, *words: str) -> bool:
        return any(re.search(rf"\b{re.escape(w)}", self.text) for w in words)

    def label(self, default: str | None = None) -> str | None:
        """Next phrase from the description (in order), else ``default``."""
        if self._label_i < len(self.labels):
            self._label_i += 1
            return self.labels[self._label_i - 1]
        return default

    def count(self, nouns: Iterable[str], default: int, lo: int, hi: int) -> int:
        """Number written just before one of ``nouns`` (e.g. "eight circles")."""
        nouns = tuple(nouns)
        toks = self.tokens
        i = 0
        while i < len(toks):
            value, nxt = _number_at(toks, i)
            if value is not None:
                for tok in toks[nxt : nxt + 3]:
                    if tok.startswith(nouns):
                        return max(lo, min(hi, value))
            i = nxt
        return max(lo, min(hi, default))


# --------------------------------------------------------------------------
# Icons (centred at cx, cy; r is the half-size)
# --------------------------------------------------------------------------


def _icon(pen: _Pen, kind: str, cx: float, cy: float, r: float, color: RGB = INK) -> None:
    w = STROKE
    if kind == "receipt":
        top, bot = cy - r, cy + r * 0.85
        left, right = cx - r * 0.7, cx + r * 0.7
        teeth = 5
        pts: list[Point] = [(left, bot), (left, top), (right, top), (right, bot)]
        step = (right - left) / teeth
        for i in range(teeth):
            x = right - step * (i + 0.5)
            pts.append((x, bot - r * 0.18))
            pts.append((right - step * (i + 1), bot))
        pen.polygon(pts, color, PAPER, w)
        for i, frac in enumerate((0.75, 0.55, 0.75)):
            y = top + r * (0.45 + 0.35 * i)
            pen.line([(left + r * 0.25, y), (left + r * 0.25 + r * frac, y)], GREY, THIN)
    elif kind == "bolt":
        s = r
        pts = [
            (cx + 0.15 * s, cy - s),
            (cx - 0.55 * s, cy + 0.12 * s),
            (cx - 0.02 * s, cy + 0.12 * s),
            (cx - 0.2 * s, cy + s),
            (cx + 0.58 * s, cy - 0.18 * s),
            (cx + 0.05 * s, cy - 0.18 * s),
        ]
        pen.polygon(pts, color, BLUE_PALE if color == BLUE else PAPER, w)
    elif kind == "clock":
        pen.circle(cx, cy, r, color, PAPER, w)
        for i in range(12):
            a = i * math.pi / 6
            pen.line(
                [
                    (cx + math.cos(a) * r * 0.78, cy + math.sin(a) * r * 0.78),
                    (cx + math.cos(a) * r * 0.9, cy + math.sin(a) * r * 0.9),
                ],
                color,
                THIN,
                caps=False,
            )
        pen.line([(cx, cy), (cx, cy - r * 0.6)], color, w)
        pen.line([(cx, cy), (cx + r * 0.42, cy + r * 0.18)], color, w)
    elif kind == "cross":
        d = r * 0.7
        pen.line([(cx - d, cy - d), (cx + d, cy + d)], color, HEAVY)
        pen.line([(cx - d, cy + d), (cx + d, cy - d)], color, HEAVY)
    elif kind == "pin":
        head_r = r * 0.55
        hy = cy - r * 0.35
        pen.polygon(
            [
                (cx - head_r * 0.75, hy + head_r * 0.6),
                (cx, cy + r),
                (cx + head_r * 0.75, hy + head_r * 0.6),
            ],
            color,
            PAPER,
            w,
        )
        pen.circle(cx, hy, head_r, color, PAPER, w)
        pen.circle(cx, hy, head_r * 0.35, color, None, THIN)
    elif kind == "coins":
        for i in range(3):
            y = cy + r * 0.55 - i * r * 0.42
            pen.rect(
                cx - r * 0.6,
                y - r * 0.2,
                cx + r * 0.6,
                y + r * 0.2,
                color,
                PAPER,
                THIN,
                r * 0.2,
            )
    elif kind == "pulse":
        pts = [
            (cx - r, cy),
            (cx - r * 0.4, cy),
            (cx - r * 0.2, cy - r * 0.7),
            (cx + r * 0.05, cy + r * 0.6),
            (cx + r * 0.3, cy - r * 0.2),
            (cx + r * 0.45, cy),
            (cx + r, cy),
        ]
        pen.line(pts, color, w)
    elif kind == "bars":
        for i in range(3):
            y = cy - r * 0.6 + i * r * 0.6
            pen.rect(
                cx - r * 0.8,
                y - r * 0.16,
                cx + r * 0.8,
                y + r * 0.16,
                color,
                BLUE_PALE,
                THIN,
            )
    elif kind == "page":
        pen.polygon(
            [
                (cx - r * 0.65, cy - r),
                (cx + r * 0.35, cy - r),
                (cx + r * 0.65, cy - r * 0.7),
                (cx + r * 0.65, cy + r),
                (cx - r * 0.65, cy + r),
            ],
            color,
            PAPER,
            THIN,
        )
        pen.line(
            [
                (cx - r * 0.35, cy + r * 0.05),
                (cx - r * 0.05, cy + r * 0.4),
                (cx + r * 0.4, cy - r * 0.35),
            ],
            BLUE,
            w,
        )
    elif kind == "save":
        pen.rect(cx - r, cy - r, cx + r, cy + r, color, PAPER, w, r * 0.12)
        pen.rect(cx - r * 0.55, cy - r, cx + r * 0.45, cy - r * 0.35, color, None, THIN)
        pen.rect(
            cx - r * 0.6,
            cy + r * 0.1,
            cx + r * 0.6,
            cy + r * 0.75,
            color,
            BLUE_PALE,
            THIN,
        )
    elif kind == "cycle":
        pts = [(cx + math.cos(a) * r * 0.7, cy + math.sin(a) * r * 0.7) for a in _frange(-2.6, 2.2, 24)]
        pen.line(pts, color, w)
        pen._head(pts[-3], pts[-1], color, r * 0.45)
    elif kind == "cloud":
        _cloud(pen, cx, cy, r, color)
    elif kind == "chip":
        pen.rect(
            cx - r * 0.6,
            cy - r * 0.6,
            cx + r * 0.6,
            cy + r * 0.6,
            color,
            PAPER,
            w,
            r * 0.08,
        )
        for i in range(4):
            off = -r * 0.39 + i * r * 0.26
            for sx in (-1, 1):
                pen.line(
                    [(cx + sx * r * 0.6, cy + off), (cx + sx * r * 0.85, cy + off)],
                    color,
                    THIN,
                    caps=False,
                )
                pen.line(
                    [(cx + off, cy + sx * r * 0.6), (cx + off, cy + sx * r * 0.85)],
                    color,
                    THIN,
                    caps=False,
                )
    else:  # generic square glyph
        pen.rect(cx - r * 0.7, cy - r * 0.7, cx + r * 0.7, cy + r * 0.7, color, PAPER, w)


def _frange(a: float, b: float, n: int) -> list[float]:
    return [a + (b - a) * i / max(1, n - 1) for i in range(n)]


def _cloud(pen: _Pen, cx: float, cy: float, r: float, color: RGB) -> None:
    """Cloud outline: union of circles over a flat base (outer edge only)."""
    lobes = [
        (-0.58, 0.22, 0.33),
        (-0.18, -0.12, 0.5),
        (0.28, -0.22, 0.42),
        (0.6, 0.17, 0.38),
    ]
    base_y = cy + r * 0.55
    for dx, dy, rr in lobes:
        pen.circle(cx + dx * r, cy + dy * r, rr * r, color, None, STROKE)
    pen.line([(cx - r * 0.58, base_y), (cx + r * 0.6, base_y)], color, STROKE, caps=False)
    inset = STROKE * 0.55
    for dx, dy, rr in lobes:
        pen.circle(cx + dx * r, cy + dy * r, rr * r - inset, None, PAPER)
    pen.rect(cx - r * 0.58, cy - r * 0.1, cx + r * 0.6, base_y - inset, None, PAPER)


_ICON_WORDS = [
    ("receipt", "receipt"),
    ("lightning", "bolt"),
    ("bolt", "bolt"),
    ("clock", "clock"),
    ("cross", "cross"),
    ("pin", "pin"),
    ("coin", "coins"),
    ("heartbeat", "pulse"),
    ("stacked bars", "bars"),
    ("page", "page"),
    ("saved-state", "save"),
    ("circular arrow", "cycle"),
    ("cloud", "cloud"),
]


def _icons_in(text: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for word, kind in _ICON_WORDS:
        m = re.search(rf"\b{re.escape(word)}", text)
        if m and kind not in [k for _, k in found]:
            found.append((m.start(), kind))
    return [k for _, k in sorted(found)]


# --------------------------------------------------------------------------
# Motifs
# --------------------------------------------------------------------------


def _m_columns(c: _Ctx) -> None:
    """Pairs of columns on a baseline: grey base, blue extension, dashed guide."""
    p, rng = c.pen, c.rng
    groups = c.count(("pair", "group"), rng.randint(2, 3), 1, 5)
    base_y, x0, x1 = 500.0, 200.0, 980.0
    p.line([(x0 - 60, 100), (x0 - 60, base_y), (x1 + 60, base_y)], INK, STROKE)
    for i in range(1, 7):
        y = base_y - i * 60
        p.line([(x0 - 68, y), (x0 - 60, y)], INK, THIN, caps=False)
    base_h = rng.uniform(100, 130)
    p.line(
        [(x0 - 60, base_y - base_h), (x1 + 60, base_y - base_h)],
        GREY,
        THIN,
        dash=(8, 6),
    )
    slot = (x1 - x0) / groups
    col_w = min(96.0, slot * 0.27)
    first_ext = base_h * rng.uniform(2.2, 2.7)
    exts = [first_ext * (1 - i / max(1, groups - 1) * rng.uniform(0.8, 0.88)) for i in range(groups)]
    exts[-1] = max(exts[-1], base_h * 0.22)
    for i in range(groups):
        gx = x0 + slot * (i + 0.5)
        lx0, lx1 = gx - col_w - 10, gx - 10
        rx0, rx1 = gx + 10, gx + 10 + col_w
        p.rect(lx0, base_y - base_h, lx1, base_y, None, GREY_FILL)
        p.hatch(lx0, base_y - base_h, lx1, base_y, GREY_LIGHT, 9)
        p.rect(lx0, base_y - base_h, lx1, base_y, GREY, None, STROKE)
        p.rect(rx0, base_y - base_h, rx1, base_y, None, GREY_FILL)
        p.hatch(rx0, base_y - base_h, rx1, base_y, GREY_LIGHT, 9)
        p.rect(rx0, base_y - base_h, rx1, base_y, GREY, None, STROKE)
        top = base_y - base_h - exts[i]
        p.rect(rx0, top, rx1, base_y - base_h, BLUE, BLUE_PALE, STROKE)
        p.line([(rx0, top), (rx1, top)], BLUE, HEAVY)
        if i == 0:
            dim_x = rx1 + 26
            p.line([(rx1 + 6, top), (dim_x + 8, top)], GREY, THIN)
            p.arrow((dim_x, base_y - base_h - exts[i] / 2), (dim_x, top), GREY, THIN, 9)
            p.arrow(
                (dim_x, base_y - base_h - exts[i] / 2),
                (dim_x, base_y - base_h),
                GREY,
                THIN,
                9,
            )
            p.text(
                dim_x + 12,
                base_y - base_h - exts[i] / 2,
                f"{exts[i] / base_h:.1f}X",
                BLUE,
                12,
            )
        if i == groups - 1:
            p.dot((rx0 + rx1) / 2, top - 20, 8, INK)
        name = c.label(f"{chr(65 + i)}")
        p.text(gx, base_y + 26, name or "", GREY, 12, "center", slot * 0.9)


def _m_grid(c: _Ctx) -> None:
    """Calendar-like grid of outlined squares with blue blocks of varying height."""
    p, rng = c.pen, c.rng
    n = c.count(("square", "box", "day", "cell", "tile"), 30, 4, 60)
    ax0, ay0, ax1, ay1 = 150.0, 120.0, 1050.0, 530.0
    best = (0.0, 1)
    for cols in range(1, n + 1):
        rows = math.ceil(n / cols)
        size = min((ax1 - ax0) / cols, (ay1 - ay0) / rows)
        if size > best[0] + 0.5:
            best = (size, cols)
    cell, cols = best
    rows = math.ceil(n / cols)
    gap = cell * 0.14
    gx0 = (ax0 + ax1) / 2 - cols * cell / 2
    gy0 = (ay0 + ay1) / 2 - rows * cell / 2 + 10
    hatched = c.has("hatch")
    title = c.label("BILLED DAYS")
    p.text(gx0 + gap / 2, gy0 - 26, title or "", INK, 13, max_width=cols * cell * 0.6)
    p.text(gx0 + cols * cell - gap / 2, gy0 - 26, f"N = {n}", GREY, 12, "right")
    for i in range(n):
        r_, k = divmod(i, cols)
        x0 = gx0 + k * cell + gap / 2
        y0 = gy0 + r_ * cell + gap / 2
        x1, y1 = x0 + cell - gap, y0 + cell - gap
        roll = rng.random()
        inner = 5.0
        if roll < 0.12:
            pass  # empty day
        elif hatched and roll < 0.22:
            p.hatch(x0, y0, x1, y1, GREY_LIGHT, 8)
        else:
            h = (y1 - y0 - 2 * inner) * rng.uniform(0.18, 1.0)
            p.rect(
                x0 + inner,
                y1 - inner - h,
                x1 - inner,
                y1 - inner,
                None,
                BLUE_PALE if h < 0.6 * cell else BLUE_TINT,
            )
            p.line(
                [(x0 + inner, y1 - inner - h), (x1 - inner, y1 - inner - h)],
                BLUE,
                STROKE,
                caps=False,
            )
        p.rect(x0, y0, x1, y1, INK, None, THIN)
        p.text(x0 + 4, y0 + 9, str(i + 1), GREY, 8, max_width=cell)


def _m_ring(c: _Ctx) -> None:
    """Circles on a ring, every pair joined by a blue line (all-to-all mesh)."""
    p, rng = c.pen, c.rng
    n = c.count(("circle", "node", "gpu", "peer", "expert"), rng.choice((6, 8, 8, 10)), 3, 16)
    cx, cy, radius = 600.0, 312.0, 196.0
    small = max(14.0, min(36.0, math.pi * radius / n * 0.55))
    phase = -math.pi / 2 + rng.uniform(-0.25, 0.25)
    pts = [
        (
            cx + radius * math.cos(phase + 2 * math.pi * i / n),
            cy + radius * math.sin(phase + 2 * math.pi * i / n),
        )
        for i in range(n)
    ]
    p.circle(cx, cy, radius + small + 18, GREY_LIGHT, None, THIN, dash=(6, 6))
    p.line([(cx - 12, cy), (cx + 12, cy)], GREY, THIN)
    p.line([(cx, cy - 12), (cx, cy + 12)], GREY, THIN)
    for i in range(n):
        for j in range(i + 1, n):
            p.line([pts[i], pts[j]], BLUE, 1.3, caps=False)
    for x, y in pts:
        p.circle(x, y, small, INK, PAPER, STROKE)
        s = small * 0.42
        p.rect(x - s, y - s, x + s, y + s, GREY, None, THIN)
    edges = n * (n - 1) // 2
    label = c.label(f"{n} PEERS / {edges} LINKS")
    p.text(cx + radius + small + 40, cy - radius + 10, label or "", GREY, 12, max_width=260)


def _m_tree(c: _Ctx) -> None:
    """Tree of circles from one root to leaves; one blue path, one missing leaf."""
    p, rng = c.pen, c.rng
    leaves = c.count(("leaf", "leave", "leaves"), rng.choice((6, 6, 8)), 2, 12)
    if leaves <= 2:
        sizes = [1, leaves]
    elif leaves <= 6:
        sizes = [1, 2, leaves]
    else:
        sizes = [1, 2, 4, leaves]
    y_top, y_bot = 105.0, 505.0
    levels: list[list[Point]] = []
    for li, n in enumerate(sizes):
        y = y_top + (y_bot - y_top) * li / (len(sizes) - 1)
        span = 760.0 * (0.35 + 0.65 * li / (len(sizes) - 1)) if li else 0
        xs = [600.0] if n == 1 else [600 - span / 2 + span * j / (n - 1) for j in range(n)]
        levels.append([(x, y) for x in xs])

    def parent(li: int, j: int) -> int:
        return min(sizes[li - 1] - 1, j * sizes[li - 1] // sizes[li])

    missing = leaves - 1
    chosen = rng.randrange(0, max(1, leaves - 1))
    path = {(len(sizes) - 1, chosen)}
    j = chosen
    for li in range(len(sizes) - 1, 0, -1):
        j = parent(li, j)
        path.add((li - 1, j))
    r = 22.0
    for li in range(1, len(sizes)):
        for j, pt in enumerate(levels[li]):
            pj = parent(li, j)
            a, b = levels[li - 1][pj], pt
            on_path = (li, j) in path and (li - 1, pj) in path
            is_missing = li == len(sizes) - 1 and j == missing
            if on_path:
                p.line([a, b], BLUE, 5.0)
            elif is_missing:
                p.line([a, b], GREY, STROKE, dash=(8, 7))
            else:
                p.line([a, b], INK, STROKE)
    for li, row in enumerate(levels):
        for j, (x, y) in enumerate(row):
            if li == len(sizes) - 1 and j == missing:
                p.circle(x, y, r, GREY, PAPER, STROKE, dash=(7, 6))
            elif (li, j) in path:
                p.circle(x, y, r, BLUE, BLUE_TINT, 3.2)
            else:
                p.circle(x, y, r, INK, PAPER, STROKE)
    mx, my = levels[-1][missing]
    p.curve(
        (1110, my - 150),
        (1110, my - 40),
        (mx + 90, my),
        (mx + r + 6, my),
        BLUE,
        STROKE,
        (9, 6),
        14,
    )
    label = c.label("MISSING LEAF")
    p.text(1105, my - 168, label or "", BLUE, 12, "right", 260)
    root_label = c.label()
    if root_label:
        p.text(600 + r + 16, y_top, root_label, GREY, 12, max_width=300)


def _m_dials(c: _Ctx) -> None:
    """Round dials in a row, pointers linked by a blue rod through their tips."""
    p, rng = c.pen, c.rng
    n = c.count(("dial", "gauge", "meter"), rng.choice((3, 4, 4)), 1, 6)
    slot = 900.0 / n
    radius = min(112.0, slot * 0.38)
    cy = 290.0
    tips: list[Point] = []
    base_angle = rng.uniform(140, 160)
    for i in range(n):
        cx = 150 + slot * (i + 0.5)
        p.circle(cx, cy, radius, INK, PAPER, 2.6)
        p.circle(cx, cy, radius - 9, GREY_LIGHT, None, THIN)
        for t in range(21):
            a = math.radians(225 - 270 * t / 20)
            major = t % 5 == 0
            r0 = radius - (24 if major else 18)
            r1 = radius - 12
            p.line(
                [
                    (cx + r0 * math.cos(a), cy - r0 * math.sin(a)),
                    (cx + r1 * math.cos(a), cy - r1 * math.sin(a)),
                ],
                INK if major else GREY,
                STROKE if major else THIN,
                caps=False,
            )
        a = math.radians(base_angle - (i * 95 / max(1, n - 1)) + rng.uniform(-18, 18))
        length = radius * 0.74
        tip = (cx + length * math.cos(a), cy - length * math.sin(a))
        tail = (cx - 14 * math.cos(a), cy + 14 * math.sin(a))
        p.line([tail, tip], INK, 3.0)
        p.circle(cx, cy, 8, INK, INK)
        p.dot(cx, cy, 3, PAPER)
        tips.append(tip)
        by = cy + radius + 26
        p.line([(cx - radius * 0.55, by), (cx + radius * 0.55, by)], INK, HEAVY)
        p.line([(cx - radius * 0.25, cy + radius), (cx - radius * 0.3, by)], INK, STROKE)
        p.line([(cx + radius * 0.25, cy + radius), (cx + radius * 0.3, by)], INK, STROKE)
        p.text(cx, by + 28, c.label(f"D{i + 1}") or "", GREY, 12, "center", slot * 0.9)
    if n > 1:
        p.line(tips, BLUE, HEAVY)
    for x, y in tips:
        p.dot(x, y, 7, BLUE)


def _m_roofline(c: _Ctx) -> None:
    """Roofline chart: three roofs with ringed knees and a low point on the slope."""
    p, rng = c.pen, c.rng
    ox, oy = 180.0, 510.0
    p.arrow((ox, oy), (ox, 85), INK, STROKE, 14)
    p.arrow((ox, oy), (1075, oy), INK, STROKE, 14)
    for i in range(1, 12):
        x = ox + i * 75
        p.line([(x, oy), (x, oy + 7)], INK, THIN, caps=False)
    for i in range(1, 6):
        y = oy - i * 75
        p.line([(ox - 7, y), (ox, y)], INK, THIN, caps=False)
    slope = rng.uniform(0.95, 1.2)
    h_ink = rng.uniform(220, 250)
    h_blue = h_ink + rng.uniform(95, 120)
    x_end = 1040.0
    roofs = [
        (h_ink, slope * rng.uniform(1.7, 2.1), GREY, (10, 7), STROKE),
        (h_ink, slope, INK, None, STROKE + 0.6),
        (h_blue, slope * 0.8, BLUE, None, HEAVY),
    ]
    for h, s, color, dash, width in roofs:
        knee = (ox + h / s, oy - h)
        p.line([(ox, oy), knee, (x_end, oy - h)], color, width, dash)
    for h, s, color, _dash, _w in roofs:
        knee = (ox + h / s, oy - h)
        p.circle(knee[0], knee[1], 15, color, None, STROKE)
    gx = ox + 62
    p.line([(gx, oy), (gx, 160)], GREY, THIN, dash=(6, 6))
    p.dot(gx, oy - (gx - ox) * slope, 7, INK)
    p.text(ox + 14, 95, c.label("PERF / S") or "", GREY, 12)
    p.text(1060, oy + 30, c.label("ARITHMETIC INTENSITY") or "", GREY, 12, "right")
    kx = ox + h_blue / (slope * 0.8)
    p.text(kx + 26, oy - h_blue - 22, c.label("RIDGE") or "", BLUE, 12, max_width=1040 - kx)


def _fraction_bar(p: _Pen, cx: float, y: float, half: float) -> None:
    p.line([(cx - half, y), (cx + half, y)], INK, HEAVY)


def _dot_row(p: _Pen, cx: float, y: float, n: int, width: float, color: RGB = BLUE) -> tuple[float, float]:
    step = width / max(1, n)
    r = min(8.0, step * 0.32)
    x0 = cx - step * n / 2 + step / 2
    for i in range(n):
        p.dot(x0 + i * step, y, r, color)
    return x0, x0 + step * (n - 1)


def _m_fraction(c: _Ctx) -> None:
    """One fraction (boxes over a line, blue results under it) or two linked ones."""
    p, rng = c.pen, c.rng
    icons = _icons_in(c.text)
    if c.has("two fractions") or c.count(("fraction",), 1, 1, 2) == 2:
        n = c.count(("dot",), 12, 3, 24)
        top_icon = icons[0] if icons else "receipt"
        bot_icon = icons[1] if len(icons) > 1 else "bolt"
        left, right = 330.0, 870.0
        half = 185.0
        line_y = 315.0
        p.text(left, 95, c.label("NUMERATOR") or "", INK, 13, "center", 2 * half)
        p.text(right, 95, c.label("DENOMINATOR") or "", INK, 13, "center", 2 * half)
        _icon(p, top_icon, left, 215, 58, INK)
        _fraction_bar(p, left, line_y, half)
        l0, l1 = _dot_row(p, left, 410, n, 2 * half - 20)
        _dot_row(p, right, 220, n, 2 * half - 20)
        _fraction_bar(p, right, line_y, half)
        _icon(p, bot_icon, right, 420, 58, BLUE if bot_icon == "bolt" else INK)
        r0 = right - (l1 - l0) / 2
        p.curve(
            (l1 + 14, 410),
            (l1 + 170, 410),
            (r0 - 170, 220),
            (r0 - 16, 220),
            BLUE,
            STROKE,
            (10, 7),
            14,
        )
        p.text(600, 506, c.label("TOKENS") or "", BLUE, 12, "center", 300)
        return
    n = c.count(("box", "square", "hour", "cell"), 24, 4, 40)
    x0, x1 = 140.0, 1060.0
    line_y = 320.0
    step = (x1 - x0) / n
    bw = step * 0.72
    bh = min(80.0, bw * 2.2)
    head = max(1, round(n / 3))
    tail = max(1, round(n / 6))
    middle = list(range(head, n - tail))
    capped = set(rng.sample(middle, min(2, len(middle)))) if middle else set()
    label_y = line_y - 26 - bh - 30
    p.text(x0, label_y, c.label("BILLED") or "", INK, 13, max_width=560)
    p.text(x1, label_y, f"{n} X", GREY, 12, "right", 200)
    for i in range(n):
        bx = x0 + step * i + (step - bw) / 2
        top = line_y - 26 - bh
        if i < head or i >= n - tail:
            p.hatch(bx, top, bx + bw, line_y - 26, GREY_LIGHT, 7)
            p.rect(bx, top, bx + bw, line_y - 26, GREY, None, THIN)
        else:
            p.rect(bx, top, bx + bw, line_y - 26, INK, PAPER, THIN)
            if i in capped:
                p.rect(bx, top, bx + bw, top + bh * 0.22, None, INK)
    _fraction_bar(p, (x0 + x1) / 2, line_y, (x1 - x0) / 2 + 10)
    for i in middle:
        bx = x0 + step * i + (step - bw) / 2
        k = rng.randint(1, 4)
        for j in range(k):
            top = line_y + 26 + j * (bw + 6)
            p.rect(bx, top, bx + bw, top + bw, BLUE, BLUE_PALE, THIN)
            s = bw
            p.line(
                [
                    (bx + s * 0.22, top + s * 0.52),
                    (bx + s * 0.42, top + s * 0.72),
                    (bx + s * 0.78, top + s * 0.3),
                ],
                BLUE,
                STROKE * min(1.0, bw / 26),
            )
    first_mid = x0 + step * middle[0] if middle else 600.0
    p.text(
        first_mid - 20,
        line_y + 26 + bw / 2,
        c.label("DONE") or "",
        BLUE,
        12,
        "right",
        first_mid - x0 - 20,
    )


def _m_vessel(c: _Ctx) -> None:
    """Open vessel filled with slabs to a red brim; a pipe narrowing into it."""
    p, rng = c.pen, c.rng
    k = c.count(("slab", "layer", "block"), 5, 1, 10)
    vx0, vx1, v_top, v_bot = 660.0, 880.0, 170.0, 530.0
    brim = v_top + 22
    dark_top = v_bot - 62
    slab_h = (dark_top - brim) / k
    # pipe: wide section then a neck into the vessel
    py = dark_top + 10
    wide_half, neck_half = 52.0, 14.0
    px0, px1, neck0 = 120.0, 430.0, 510.0
    upper = [
        (px0, py - wide_half),
        (px1, py - wide_half),
        (neck0, py - neck_half),
        (vx0, py - neck_half),
    ]
    lower = [
        (px0, py + wide_half),
        (px1, py + wide_half),
        (neck0, py + neck_half),
        (vx0, py + neck_half),
    ]
    p.line(upper, INK, STROKE)
    p.line(lower, INK, STROKE)
    p.line([(px0, py - wide_half - 10), (px0, py + wide_half + 10)], INK, STROKE)
    qs = 62.0
    for i in range(4):
        qx = px1 - 30 - (i + 1) * (qs + 10)
        p.rect(qx, py - qs / 2, qx + qs, py + qs / 2, None, GREY_FILL)
        p.hatch(qx, py - qs / 2, qx + qs, py + qs / 2, GREY_LIGHT, 8)
        p.rect(qx, py - qs / 2, qx + qs, py + qs / 2, GREY, None, STROKE)
    nx = (neck0 + vx0) / 2
    p.rect(nx - 10, py - 10, nx + 10, py + 10, None, BLUE)
    # vessel body
    p.rect(vx0 + 4, dark_top, vx1 - 4, v_bot - 4, None, INK)
    for i in range(k):
        y1 = dark_top - 4 - i * slab_h
        y0 = y1 - slab_h + 6
        shade = BLUE_PALE if i % 2 == 0 else BLUE_TINT
        p.rect(vx0 + 14, y0, vx1 - 14, y1, BLUE, shade, STROKE)
    p.line(
        [
            (vx0 - 14, v_top),
            (vx0, v_top),
            (vx0, v_bot),
            (vx1, v_bot),
            (vx1, v_top),
            (vx1 + 14, v_top),
        ],
        INK,
        HEAVY,
    )
    p.line([(vx0 - 46, brim), (vx1 + 56, brim)], RED, STROKE, dash=(10, 7))
    fy = v_top - 40 - slab_h
    p.rect(vx0 + 14, fy, vx1 - 14, fy + slab_h - 6, RED, None, STROKE, dash=(9, 6))
    p.arrow(
        ((vx0 + vx1) / 2, fy + slab_h),
        ((vx0 + vx1) / 2, brim - 6),
        RED,
        THIN,
        9,
        (5, 4),
    )
    p.text(vx1 + 62, brim, c.label("CAPACITY") or "", RED, 12, max_width=1150 - vx1 - 62)
    p.text(px0, py - wide_half - 30, c.label("QUEUE") or "", GREY, 12, max_width=300)
    # scale ticks on the vessel
    for i in range(k + 1):
        y = dark_top - 4 - i * slab_h
        p.line(
            [(vx1 + 10, y), (vx1 + 20 if i % k else vx1 + 28, y)],
            GREY,
            THIN,
            caps=False,
        )
    del rng


def _m_conveyor(c: _Ctx) -> None:
    """Conveyor belt on rollers from a cloud to a rack, carrying glyph crates."""
    p, rng = c.pen, c.rng
    n = c.count(("crate", "box", "package", "parcel"), 4, 1, 7)
    bx0, bx1, by0, by1 = 250.0, 880.0, 404.0, 436.0
    r_end = (by1 - by0) / 2
    p.line([(bx0, by0), (bx1, by0)], INK, STROKE)
    p.line([(bx0, by1), (bx1, by1)], INK, STROKE)
    p.circle(bx0, by0 + r_end, r_end, INK, None, STROKE)
    p.circle(bx1, by0 + r_end, r_end, INK, None, STROKE)
    p.rect(bx0 + 1, by0 + 2, bx1 - 1, by1 - 2, None, PAPER)
    roll_n = 11
    for i in range(roll_n):
        x = bx0 + (bx1 - bx0) * i / (roll_n - 1)
        p.circle(x, by0 + r_end, r_end - 5, GREY, PAPER, THIN)
        p.dot(x, by0 + r_end, 2.5, GREY)
    for x in (bx0 + 40, (bx0 + bx1) / 2, bx1 - 40):
        p.line([(x - 12, by1), (x - 22, 520)], INK, STROKE)
        p.line([(x + 12, by1), (x + 22, 520)], INK, STROKE)
    p.line([(120, 520), (1090, 520)], INK, STROKE)
    p.hatch(120, 520, 1090, 534, GREY_LIGHT, 9)
    _cloud(p, 150, 330, 92, INK)
    # rack
    rx0, rx1, ry0 = 950.0, 1070.0, 120.0
    p.rect(rx0, ry0, rx1, 520, INK, PAPER, HEAVY)
    units = 10
    uh = (520 - ry0 - 24) / units
    for i in range(units):
        y = ry0 + 12 + i * uh
        p.rect(rx0 + 12, y + 3, rx1 - 12, y + uh - 3, GREY, None, THIN)
        p.dot(rx1 - 24, y + uh / 2, 3.2, BLUE if rng.random() < 0.6 else GREY_LIGHT)
    # crates
    glyphs = [g for g in _icons_in(c.text) if g not in ("cloud",)] or [
        "pulse",
        "bars",
        "coins",
        "page",
    ]
    cw, ch = 92.0, 82.0
    span = bx1 - bx0 - 60
    for i in range(n):
        cx = bx0 + 30 + span * (i + 0.5) / n
        x0, y1 = cx - cw / 2, by0 - 2
        y0 = y1 - ch
        p.rect(x0, y0, x0 + cw, y1, INK, PAPER, STROKE)
        p.line([(x0, y0 + 14), (x0 + cw, y0 + 14)], INK, THIN)
        _icon(p, glyphs[i % len(glyphs)], cx, y0 + 14 + (ch - 14) / 2, 22, INK)
        if i < n - 1:
            tx = x0 + cw * 0.62
            p.line([(tx - 8, y0), (tx, y0 - 14)], GREY, THIN)
            p.rect(tx - 2, y0 - 30, tx + 26, y0 - 14, GREY, GREY_FILL, THIN, 3)
    p.arrow((bx0 + 40, 230), (rx0 - 30, 230), GREY, STROKE, 15, (11, 8))
    p.text(bx0 + 40, 205, c.label("INTAKE") or "", GREY, 12, max_width=500)


def _gpu_card(p: _Pen, x0: float, y0: float, x1: float, y1: float, fill_frac: float, slabs: int) -> None:
    p.rect(x0, y0, x1, y1, INK, PAPER, STROKE, 6)
    fin_y1 = y0 + (y1 - y0) * 0.22
    for k in range(9):
        x = x0 + 10 + (x1 - x0 - 20) * k / 8
        p.line([(x, y0 + 8), (x, fin_y1)], GREY, THIN, caps=False)
    chip = min((x1 - x0) * 0.38, (y1 - y0) * 0.38)
    ccx = x0 + (x1 - x0) * 0.36
    ccy = fin_y1 + (y1 - fin_y1) * 0.5
    _icon(p, "chip", ccx, ccy, chip * 0.75, INK)
    # memory column with stacked session-state slabs
    mx0, mx1 = x1 - (x1 - x0) * 0.26, x1 - 10
    my0, my1 = fin_y1 + 8, y1 - 10
    p.rect(mx0, my0, mx1, my1, GREY, None, THIN)
    avail = (my1 - my0 - 4) * fill_frac
    sh = avail / max(1, slabs)
    for s in range(slabs):
        sy1 = my1 - 2 - s * sh
        p.rect(
            mx0 + 3,
            sy1 - sh + 1.5,
            mx1 - 3,
            sy1,
            None,
            BLUE if s == slabs - 1 else BLUE_TINT,
        )
    cap_y = my0 + (my1 - my0) * 0.08
    p.line([(mx0 - 4, cap_y), (mx1 + 4, cap_y)], RED, THIN, dash=(3, 2.5), caps=False)


def _m_node(c: _Ctx) -> None:
    """GPU node schematic accumulating state, with a gauge rising to a capacity line."""
    p, rng = c.pen, c.rng
    n = c.count(("gpu", "card", "accelerator", "device"), 8, 1, 16)
    rows = 1 if n <= 4 else 2
    cols = math.ceil(n / rows)
    nx0, nx1, ny0, ny1 = 130.0, 790.0, 118.0, 512.0
    p.rect(nx0, ny0, nx1, ny1, INK, PAPER, HEAVY, 12)
    p.line([(nx0, ny0 + 40), (nx1, ny0 + 40)], INK, STROKE)
    for i in range(3):
        p.circle(nx0 + 24 + i * 20, ny0 + 20, 5, INK, BLUE if i == 0 else None, THIN)
    p.text(nx1 - 18, ny0 + 20, c.label(f"NODE 0 / {n} X GPU") or "", GREY, 12, "right", 400)
    gx0, gy0, gx1, gy1 = nx0 + 22, ny0 + 60, nx1 - 22, ny1 - 46
    gap = 18.0
    cw = (gx1 - gx0 - gap * (cols - 1)) / cols
    chh = (gy1 - gy0 - gap * (rows - 1)) / rows
    base = rng.uniform(0.45, 0.6)
    for i in range(n):
        r_, k = divmod(i, cols)
        x0 = gx0 + k * (cw + gap)
        y0 = gy0 + r_ * (chh + gap)
        frac = min(0.9, base + rng.uniform(0.0, 0.32))
        _gpu_card(p, x0, y0, x0 + cw, y0 + chh, frac, rng.randint(3, 6))
        if k < cols - 1:
            ly = y0 + chh * 0.78
            p.line([(x0 + cw, ly), (x0 + cw + gap, ly)], BLUE, STROKE, caps=False)
    bus_y = ny1 - 24
    p.line([(gx0, bus_y), (gx1, bus_y)], GREY, STROKE)
    for k in range(cols):
        x = gx0 + k * (cw + gap) + cw * 0.36
        p.line([(x, gy1 + 2), (x, bus_y)], GREY, THIN)
    # state gauge
    tx0, tx1, ty0, ty1 = 905.0, 965.0, 110.0, 512.0
    cap_y = ty0 + 46
    level = cap_y + (ty1 - cap_y) * rng.uniform(0.1, 0.2)
    p.line([(nx1, bus_y), (870, bus_y), (870, ty1 - 20), (tx0, ty1 - 20)], GREY, STROKE)
    p.rect(tx0, ty0, tx1, ty1, INK, PAPER, STROKE, 10)
    p.rect(tx0 + 8, level, tx1 - 8, ty1 - 8, None, BLUE_PALE)
    steps = 7
    for s in range(steps):
        sy1 = ty1 - 8 - (ty1 - 8 - level) * s / steps
        sy0 = ty1 - 8 - (ty1 - 8 - level) * (s + 1) / steps
        p.rect(
            tx0 + 12,
            sy0 + 2,
            tx1 - 12,
            sy1 - 2,
            None,
            BLUE_TINT if s < steps - 1 else BLUE,
        )
    for t in range(11):
        y = ty1 - 8 - (ty1 - 8 - ty0 - 8) * t / 10
        p.line([(tx1 + 6, y), (tx1 + (20 if t % 5 == 0 else 13), y)], INK, THIN, caps=False)
    p.arrow((tx0 - 22, ty1 - 90), (tx0 - 22, level + 6), BLUE, STROKE, 12)
    p.line([(840, cap_y), (1120, cap_y)], RED, STROKE, dash=(10, 7))
    cap_label = c.label("VRAM CAPACITY" if c.has("vram") else "CAPACITY")
    p.text(1120, cap_y - 22, cap_label or "", RED, 12, "right", 300)
    p.text(
        935,
        ty1 + 26,
        c.label("SESSION STATE" if c.has("state") else "STATE") or "",
        BLUE,
        12,
        "center",
        260,
    )


def _m_machines(c: _Ctx) -> None:
    """Two machines: state moves from a full one to an empty one along a blue arrow."""
    p, rng = c.pen, c.rng
    boxes = ((130.0, 470.0), (730.0, 1030.0))
    y0, y1 = 150.0, 490.0
    for i, (x0, x1) in enumerate(boxes):
        p.rect(x0, y0, x1, y1, INK, PAPER, HEAVY, 12)
        p.line([(x0, y0 + 38), (x1, y0 + 38)], INK, STROKE)
        p.text(
            x0 + 18,
            y0 + 19,
            c.label(("SOURCE", "TARGET")[i]) or "",
            GREY,
            12,
            max_width=x1 - x0 - 36,
        )
        for g in range(2):
            gx = x1 - 96 + g * 44
            p.rect(gx, y0 + 64, gx + 26, y1 - 28, INK, None, STROKE, 5)
            full = (g == 0) == (i == 0)
            level = 0.96 if full else rng.uniform(0.06, 0.12)
            top = (y1 - 32) - (y1 - 32 - (y0 + 68)) * level
            p.rect(gx + 4, top, gx + 22, y1 - 32, None, BLUE if full else BLUE_TINT)
    x0 = boxes[0][0]
    sq, gp = 30.0, 10.0
    for i in range(20):
        r_, k = divmod(i, 5)
        sx = x0 + 30 + k * (sq + gp)
        sy = y0 + 70 + r_ * (sq + gp)
        p.rect(sx, sy, sx + sq, sy + sq, GREY, GREY_FILL, THIN)
    bx0 = boxes[1][0]
    p.rect(bx0 + 30, y0 + 70, bx0 + 30 + sq, y0 + 70 + sq, GREY, GREY_FILL, THIN)
    p.arrow((boxes[0][1] + 20, 320), (boxes[1][0] - 20, 320), BLUE, HEAVY, 18)
    mid = (boxes[0][1] + boxes[1][0]) / 2
    for j in range(3):
        by = 268 + j * 12
        p.rect(mid - 44, by, mid + 44, by + 6, BLUE, BLUE_PALE, THIN)
    for j in range(3):
        sx = boxes[1][1] + 22 + j * 40
        p.rect(sx, 300, sx + 22, 322, GREY if j else INK, None, STROKE)


def _segments_from(text: str) -> list[str]:
    pattern = re.compile(
        r"red[- ]hatched|hatched grey|grey hatched|hatched|dashed empty|dashed|dark sliver|"
        r"\bdark\b|solid blue|\bblue\b|\bgrey\b|\bgray\b"
    )
    kinds: list[str] = []
    for m in pattern.finditer(text):
        tok = m.group(0)
        if tok.startswith("red"):
            kind = "red"
        elif "hatched" in tok:
            kind = "hatch"
        elif "dashed" in tok:
            kind = "dash"
        elif "dark" in tok:
            kind = "dark"
        elif "blue" in tok:
            kind = "blue"
        else:
            kind = "grey"
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def _m_segbar(c: _Ctx) -> None:
    """One long segmented bar (blue / grey / hatched / red-hatched / dashed)."""
    p, rng = c.pen, c.rng
    x0, x1 = 130.0, 1070.0
    tall = c.has("wide rectangle", "rectangle")
    y0, y1 = (215.0, 385.0) if tall else (300.0, 372.0)
    if c.has("slice"):
        kinds = ["blue", "grey"]
        widths = [0.035, 0.965]
    else:
        kinds = _segments_from(c.text)
        if len(kinds) < 3:
            kinds = ["blue", "grey", "hatch", "dash"]
        widths = []
        for i, kind in enumerate(kinds):
            if kind in ("dark", "red") and c.has("sliver"):
                widths.append(rng.uniform(0.035, 0.06))
            elif i == 0 and c.has("half"):
                widths.append(0.5)
            elif i == 0 and c.has("two fifths"):
                widths.append(0.4)
            else:
                widths.append(rng.uniform(0.12, 0.22))
        fixed = widths[0] if c.has("half", "two fifths") else 0.0
        rest = sum(widths[1:]) if fixed else sum(widths)
        scale = (1 - fixed) / rest if fixed else 1 / rest
        widths = [widths[0]] + [w * scale for w in widths[1:]] if fixed else [w * scale for w in widths]
    span = x1 - x0
    x = x0
    bounds: list[tuple[float, float, str]] = []
    for kind, frac in zip(kinds, widths, strict=False):
        bounds.append((x, x + span * frac, kind))
        x += span * frac
    for a, b, kind in bounds:
        if kind == "blue":
            p.rect(a, y0, b, y1, None, BLUE)
        elif kind == "grey":
            p.rect(a, y0, b, y1, None, GREY_FILL)
        elif kind == "hatch":
            p.rect(a, y0, b, y1, None, GREY_FILL)
            p.hatch(a, y0, b, y1, GREY, 9)
        elif kind == "red":
            p.hatch(a, y0, b, y1, RED, 7, 1.3)
        elif kind == "dark":
            p.rect(a, y0, b, y1, None, INK)
        elif kind == "dash":
            p.line([(a, y0), (b, y0)], GREY, STROKE, dash=(8, 6))
            p.line([(a, y1), (b, y1)], GREY, STROKE, dash=(8, 6))
            p.line([(b, y0), (b, y1)], GREY, STROKE, dash=(8, 6))
    solid_end = bounds[-1][1] if bounds[-1][2] != "dash" else bounds[-1][0]
    p.rect(x0, y0, solid_end, y1, INK, None, STROKE)
    for a, _b, _k in bounds[1:]:
        p.line([(a, y0), (a, y1)], INK, THIN, caps=False)
    if c.has("dots") and bounds[0][2] == "blue":
        a, b, _ = bounds[0]
        cols = max(1, int((b - a) / 26))
        for k in range(cols):
            xx = a + (b - a) * (k + 0.5) / cols
            for j in range(rng.randint(2, 7)):
                p.dot(xx, y0 - 18 - j * 18, 4.5, BLUE)
    if c.has("bracket"):
        by = y0 - 190 if c.has("dots") else y0 - 40
        p.line([(x0, by + 14), (x0, by), (x1, by), (x1, by + 14)], INK, STROKE)
        p.line([((x0 + x1) / 2, by), ((x0 + x1) / 2, by - 12)], INK, STROKE)
        p.text((x0 + x1) / 2, by - 30, c.label("ALLOCATED") or "", GREY, 12, "center", 500)
    if c.has("rate line", "ruled", "rate"):
        ry = y1 + 46
        p.line([(x0, ry), (x1, ry)], INK, STROKE)
        for k in range(25):
            xx = x0 + (x1 - x0) * k / 24
            p.line([(xx, ry), (xx, ry + (12 if k % 4 == 0 else 6))], INK, THIN, caps=False)
    # leader from the first segment down to its caption
    a, b, _kind = bounds[0]
    lx = (a + b) / 2
    if c.has("leader", "slice", "words"):
        p.text(x1, y0 - 26, c.label() or "", GREY, 12, "right", 500)
        ly = y1 + 110
        p.line([(lx, y1 + 6), (lx, ly), (lx + 40, ly)], INK, THIN)
        p.dot(lx, y1 + 6, 4, INK)
        p.text(lx + 52, ly, c.label("SHARE") or "", INK, 14, max_width=700)
        sub = re.search(r"beneath them ([^.,;]+)", c.text)
        if sub:
            p.text(lx + 52, ly + 30, sub.group(1), BLUE, 12, max_width=700)
    else:
        for a, b, kind in bounds:
            if b - a > 70:
                share = f"{(b - a) / span * 100:.0f}%"
                p.text(
                    (a + b) / 2,
                    y1 + 22,
                    share,
                    BLUE if kind == "blue" else GREY,
                    11,
                    "center",
                    b - a,
                )


def _m_steps(c: _Ctx) -> None:
    """Power line stepping down at a signal and back; work bars pause, state saved."""
    p, rng = c.pen, c.rng
    x0, x1 = 130.0, 1070.0
    xa = rng.uniform(400, 450)
    xb = rng.uniform(760, 800)
    hi, lo = 175.0, rng.uniform(245, 265)
    p.rect(xa, hi, xb, lo, None, (252, 236, 235))
    p.hatch(xa, hi, xb, lo, RED, 8, 1.2)
    p.line([(xa, hi), (xb, hi)], GREY, THIN, dash=(7, 6))
    p.line([(x0, hi), (xa, hi), (xa, lo), (xb, lo), (xb, hi), (x1, hi)], INK, HEAVY)
    _icon(p, "bolt", xa, 110, 30, BLUE)
    for gx in (xa, xb):
        p.line([(gx, lo + 14 if gx == xa else hi + 14), (gx, 520)], GREY, THIN, dash=(5, 6))
    p.text(x0, hi - 24, c.label("POWER") or "", GREY, 12)
    p.text(xb + 14, hi - 24, c.label("RETURN") or "", GREY, 12)
    p.rect(x0, 320, x1, 346, GREY, GREY_FILL, THIN)
    for k in range(3):
        y = 392 + k * 46
        p.rect(x0, y - 9, xa - 14, y + 9, None, BLUE)
        p.rect(xb + 14, y - 9, x1, y + 9, None, BLUE)
        _icon(p, "save", xa + (xb - xa) * (k + 1) / 4, y, 15, INK)


def _m_document(c: _Ctx) -> None:
    """Document with rows; one row (a small fraction) ringed, a chart points at it."""
    p, rng = c.pen, c.rng
    n = c.count(("row", "line"), 7, 3, 12)
    x0, y0, x1, y1 = 240.0, 90.0, 600.0, 545.0
    fold = 52.0
    p.polygon(
        [(x0, y0), (x1 - fold, y0), (x1, y0 + fold), (x1, y1), (x0, y1)],
        INK,
        PAPER,
        STROKE,
    )
    p.polygon(
        [(x1 - fold, y0), (x1 - fold, y0 + fold), (x1, y0 + fold)],
        INK,
        GREY_FILL,
        STROKE,
    )
    step = (y1 - y0 - 120) / (n - 1)
    ring_row = min(n - 1, 3)
    ring_at: Point = (0.0, 0.0)
    for i in range(n):
        y = y0 + 70 + i * step
        if i == 0:
            p.rect(x0 + 36, y - 10, x1 - 96, y + 10, None, INK)
            p.line([(x0 + 26, y + 1), (x1 - 80, y - 3)], GREY, STROKE)
        elif i == ring_row:
            fx = x0 + 100
            ring_r = min(64.0, step * 0.82)
            bar_w = ring_r * 0.5
            p.rect(fx - bar_w, y - ring_r * 0.36, fx + bar_w, y - ring_r * 0.16, None, GREY)
            p.line([(fx - bar_w * 1.3, y), (fx + bar_w * 1.3, y)], INK, STROKE)
            p.rect(fx - bar_w, y + ring_r * 0.16, fx + bar_w, y + ring_r * 0.36, None, GREY)
            p.circle(fx, y, ring_r, BLUE, None, HEAVY)
            ring_at = (fx + ring_r, y)
        else:
            length = rng.uniform(0.55, 0.95) * (x1 - x0 - 72)
            p.rect(x0 + 36, y - 5, x0 + 36 + length, y + 5, None, GREY_LIGHT)
    cx0, cy0, cx1, cy1 = 745.0, 150.0, 1045.0, 350.0
    p.rect(cx0, cy0, cx1, cy1, INK, PAPER, STROKE, 6)
    p.line([(cx0 + 24, cy0 + 20), (cx0 + 24, cy1 - 22), (cx1 - 20, cy1 - 22)], GREY, THIN)
    pts = []
    val = 0.1
    m = 14
    for k in range(m):
        val = min(0.95, max(0.05, val + rng.uniform(-0.08, 0.15)))
        pts.append(
            (
                cx0 + 36 + (cx1 - cx0 - 66) * k / (m - 1),
                cy1 - 30 - val * (cy1 - cy0 - 60),
            )
        )
    p.line(pts, INK, STROKE)
    start = (cx0 - 8, (cy0 + cy1) / 2 + 40)
    p.curve(
        start,
        (start[0] - 90, start[1] + 40),
        (ring_at[0] + 120, ring_at[1]),
        (ring_at[0] + 10, ring_at[1]),
        BLUE,
        STROKE,
        None,
        16,
    )
    p.text(cx0, cy0 - 22, c.label("BENCHMARK") or "", GREY, 12, max_width=cx1 - cx0)


def _m_panel(c: _Ctx) -> None:
    """Rounded panel with a rise-then-flat chart; named icons in a row beneath."""
    p, rng = c.pen, c.rng
    x0, y0, x1, y1 = 190.0, 80.0, 1010.0, 370.0
    p.rect(x0, y0, x1, y1, INK, PAPER, STROKE, 26)
    ax, ay = x0 + 60, y1 - 44
    p.line([(ax, y0 + 34), (ax, ay), (x1 - 40, ay)], GREY, THIN)
    flat_y = y0 + 92 + rng.uniform(-10, 10)
    knee_x = ax + rng.uniform(220, 300)
    p.curve(
        (ax, ay - 6),
        (ax + 130, ay - 20),
        (knee_x - 120, flat_y),
        (knee_x, flat_y),
        INK,
        HEAVY,
    )
    p.line([(knee_x, flat_y), (x1 - 60, flat_y)], INK, HEAVY)
    dx = knee_x + (x1 - 60 - knee_x) * rng.uniform(0.45, 0.6)
    p.dot(dx, flat_y, 10, BLUE)
    p.text(dx, flat_y - 30, c.label("STEADY STATE") or "", BLUE, 12, "center", 300)
    icons = [k for k in _icons_in(c.text) if k in ("clock", "cross", "pin", "bolt", "cycle", "save")]
    if len(icons) < 2:
        icons = ["clock", "cross", "pin"]
    n = len(icons)
    for i, kind in enumerate(icons):
        cx = x0 + (x1 - x0) * (i + 0.5) / n
        color = RED if kind == "cross" else GREY if kind in ("clock", "pin") else INK
        _icon(p, kind, cx, 455, 32, color)
        p.text(
            cx,
            520,
            c.label(kind.upper()) or "",
            INK if color != RED else RED,
            12,
            "center",
            (x1 - x0) / n,
        )


def _m_rows(c: _Ctx) -> None:
    """Rows of squares with doubling blue bars, or one long row ending in a blue frame."""
    p, rng = c.pen, c.rng
    n = c.count(("row",), 3, 1, 6)
    if n == 1:
        y = 300.0
        for i in range(18):
            x = 130 + i * 13
            p.line([(x, y - 10), (x, y + 10)], GREY_LIGHT, STROKE)
        for i in range(9):
            x = 380 + i * 30
            p.rect(x, y - 10, x + 20, y + 10, GREY_LIGHT, GREY_FILL, THIN)
        fx0, fx1 = 680.0, 1060.0
        p.rect(fx0, y - 46, fx1, y + 46, BLUE, None, STROKE, 14)
        k = 6
        side = 44.0
        gap = (fx1 - fx0 - 40 - k * side) / (k - 1)
        for i in range(k):
            x = fx0 + 20 + i * (side + gap)
            p.rect(x, y - side / 2, x + side, y + side / 2, None, BLUE)
        p.arrow((fx0 + 120, y - 80), (fx1 - 120, y - 80), BLUE, STROKE, 14)
        bx = (fx0 + fx1) / 2
        p.line([(bx, y + 46), (bx, y + 92)], GREY, THIN, dash=(5, 5))
        p.rect(bx - 42, y + 92, bx + 42, y + 176, INK, PAPER, STROKE, 6)
        _icon(p, "cycle", bx, y + 134, 34, INK)
        p.text(130, y - 60, c.label("OLDER") or "", GREY, 12)
        p.text((fx0 + fx1) / 2, y - 106, c.label("RECENT") or "", BLUE, 12, "center", 400)
        return
    top, bottom = 130.0, 500.0
    step_y = (bottom - top) / max(1, n - 1)
    bar0 = rng.uniform(85, 100)
    for i in range(n):
        y = top + i * step_y if n > 1 else 300
        count = max(1, 16 >> i)
        for k in range(count):
            x = 120 + k * 21
            p.rect(x, y - 8, x + 15, y + 8, GREY, GREY_FILL, THIN)
        bx = 480.0
        length = min(bar0 * (2**i), 1030 - 60 - bx)
        p.rect(bx, y - 11, bx + length, y + 11, None, BLUE)
        p.line([(bx - 14, y - 20), (bx - 14, y + 20)], GREY, THIN)
        cx = 1040.0
        if i == 0:
            p.circle(cx, y, 20, INK, INK)
        else:
            p.circle(cx, y, 20, GREY, None, STROKE, dash=(6, 5))
        p.line([(bx + length + 14, y), (cx - 30, y)], GREY_LIGHT, THIN, dash=(3, 6))
        p.text(120, y - 30, c.label(f"{count} X") or "", GREY, 11, max_width=330)


def _m_chart(c: _Ctx) -> None:
    """Generic line chart panel used for "chart"/"curve"/"line" descriptions."""
    p, rng = c.pen, c.rng
    ox, oy = 180.0, 500.0
    p.arrow((ox, oy), (ox, 95), INK, STROKE, 14)
    p.arrow((ox, oy), (1070, oy), INK, STROKE, 14)
    pts = []
    val = 0.1
    for k in range(40):
        val = min(0.95, max(0.03, val + rng.uniform(-0.05, 0.07)))
        pts.append((ox + 20 + 850 * k / 39, oy - 20 - val * 360))
    p.line(pts, BLUE, HEAVY)
    limit = oy - 20 - 0.9 * 360
    p.line([(ox, limit), (1060, limit)], RED, STROKE, dash=(10, 7))
    p.text(1060, limit - 22, c.label("LIMIT") or "", RED, 12, "right", 400)


MotifFn = Callable[[_Ctx], None]

#: Motif name -> (drawing function, {keyword regex: weight}).
MOTIFS: dict[str, tuple[MotifFn, dict[str, int]]] = {
    "node": (
        _m_node,
        {
            r"\bgpus?\b": 2,
            r"\bnode": 2,
            r"\brack\b": 1,
            r"\bvram\b": 3,
            r"session state": 2,
            r"\bschematic": 1,
            r"\bserver": 2,
        },
    ),
    "machines": (
        _m_machines,
        {r"\bmachines\b": 4, r"two machines": 3, r"\bcrosses to\b": 1},
    ),
    "dials": (
        _m_dials,
        {r"\bdials?\b": 3, r"\bpointers?\b": 2, r"\bneedle": 2, r"\bgauges?\b": 1},
    ),
    "roofline": (
        _m_roofline,
        {r"\broofline": 4, r"\bknees?\b": 3, r"\bridge point": 3, r"\baxes\b": 1},
    ),
    "ring": (
        _m_ring,
        {r"\bring\b": 2, r"\bmesh\b": 3, r"every other": 2, r"all-to-all": 3},
    ),
    "tree": (
        _m_tree,
        {r"\btree\b": 3, r"\bleaf\b|\bleaves\b": 2, r"\broot\b": 2, r"\bbranch": 2},
    ),
    "grid": (
        _m_grid,
        {
            r"\bgrid\b": 2,
            r"\bcalendar": 3,
            r"\bmonth\b": 1,
            r"\bsquares\b": 1,
            r"\bthirty\b": 1,
            r"\bboxes\b": 1,
        },
    ),
    "columns": (
        _m_columns,
        {
            r"\bcolumns?\b": 2,
            r"\bbaseline\b": 2,
            r"bar chart": 3,
            r"histogram": 3,
            r"\bpairs?\b": 1,
        },
    ),
    "fraction": (
        _m_fraction,
        {
            r"\bfractions?\b": 3,
            r"above the line": 2,
            r"below the line": 2,
            r"over a line": 2,
        },
    ),
    "vessel": (
        _m_vessel,
        {
            r"\bvessel": 4,
            r"\bbrim\b": 3,
            r"\bslabs?\b": 2,
            r"\bbucket": 3,
            r"\btank\b": 3,
        },
    ),
    "conveyor": (
        _m_conveyor,
        {
            r"\bconveyor": 4,
            r"\bbelt\b": 3,
            r"\brollers?\b": 2,
            r"\bcrates?\b": 2,
            r"\bpipe": 1,
        },
    ),
    "segbar": (
        _m_segbar,
        {
            r"\blong (?:\w+ ){0,2}bar\b": 3,
            r"wide rectangle": 3,
            r"\bbracket": 2,
            r"\bslice\b": 2,
            r"\bsliver": 2,
            r"\bsegment": 2,
            r"\bbill\b": 1,
        },
    ),
    "steps": (
        _m_steps,
        {r"power line": 4, r"\bstepping\b": 3, r"demand response": 3, r"\bsignal\b": 1},
    ),
    "document": (
        _m_document,
        {r"\bdocument\b": 4, r"folded corner": 3, r"\bpage\b": 1},
    ),
    "panel": (
        _m_panel,
        {r"\bpanel\b": 3, r"\bicons\b": 1, r"steady state": 1, r"\bclock\b": 1},
    ),
    "rows": (
        _m_rows,
        {r"\brows\b": 2, r"long row": 3, r"row by row": 2, r"\bdoubles\b": 2},
    ),
    "chart": (_m_chart, {r"\bchart\b": 1, r"\bcurve\b": 1, r"\bplot\b": 2}),
}

FALLBACK_MOTIF = "node"


def choose_motif(description: str) -> str:
    """Name of the motif (a key of :data:`MOTIFS`) chosen for ``description``.

    The description (any string) is matched case-insensitively against each
    motif's weighted keyword patterns; the highest total wins, ties go to the
    earlier motif, and a description with no matches gets the node schematic.
    """
    text = _coerce(description).lower()
    best, best_score = FALLBACK_MOTIF, 0
    for name, (_fn, keywords) in MOTIFS.items():
        score = sum(weight for pattern, weight in keywords.items() if re.search(pattern, text))
        if score > best_score:
            best, best_score = name, score
    return best


# --------------------------------------------------------------------------
# Frame: paper, grid, border, title block
# --------------------------------------------------------------------------


def _paper(pen: _Pen) -> None:
    img_w, img_h = pen.image.size
    step = GRID_STEP * pen.k
    if step >= 3:
        width = max(1, round(SUPERSAMPLE * 0.6))
        start_i = math.floor(-pen.ox / step)
        i = start_i
        while pen.ox + i * step <= img_w:
            x = pen.ox + i * step
            color = GRID_MAJOR if i % 5 == 0 else GRID_MINOR
            pen.draw.line([(x, 0), (x, img_h)], fill=color, width=width)
            i += 1
        i = math.floor(-pen.oy / step)
        while pen.oy + i * step <= img_h:
            y = pen.oy + i * step
            color = GRID_MAJOR if i % 5 == 0 else GRID_MINOR
            pen.draw.line([(0, y), (img_w, y)], fill=color, width=width)
            i += 1


def _border(pen: _Pen, rng: random.Random) -> None:
    inset = 16.0
    x0, y0 = pen.x_min + inset, pen.y_min + inset
    x1, y1 = pen.x_max - inset, pen.y_max - inset
    pen.rect(x0, y0, x1, y1, INK, None, 1.6)
    # zone ticks along the border, as on a drawing sheet
    for k in range(1, 6):
        x = x0 + (x1 - x0) * k / 6
        pen.line([(x, y0), (x, y0 + 7)], INK, 1.2, caps=False)
        pen.line([(x, y1), (x, y1 - 7)], INK, 1.2, caps=False)
    for k in range(1, 4):
        y = y0 + (y1 - y0) * k / 4
        pen.line([(x0, y), (x0 + 7, y)], INK, 1.2, caps=False)
        pen.line([(x1, y), (x1 - 7, y)], INK, 1.2, caps=False)
    # title block, bottom-right
    tw, th = 262.0, 58.0
    tx1, ty1 = x1, y1
    tx0, ty0 = tx1 - tw, ty1 - th
    pen.rect(tx0, ty0, tx1, ty1, INK, PAPER, 1.6)
    split = tx0 + 160
    pen.line([(split, ty0), (split, ty1)], INK, 1.2)
    pen.line([(split, ty0 + th / 2), (tx1, ty0 + th / 2)], INK, 1.2)
    fig = f"FIG. {rng.randint(1, 99):02d}"
    sheet = f"REV {'ABCDE'[rng.randrange(5)]}"
    if pen.text(tx0 + 80, ty0 + th / 2, "CEDANA", INK, 17, "center", track=0.32, bold=True) == 0:
        pen.rect(tx0 + 30, ty0 + th / 2 - 5, split - 30, ty0 + th / 2 + 5, None, INK)
    if pen.text((split + tx1) / 2, ty0 + th / 4, fig, GREY, 10, "center") == 0:
        pen.line([(split + 22, ty0 + th / 4), (tx1 - 22, ty0 + th / 4)], GREY_LIGHT, 3)
    if pen.text((split + tx1) / 2, ty0 + 3 * th / 4, sheet, GREY, 10, "center") == 0:
        pen.line(
            [(split + 22, ty0 + 3 * th / 4), (tx1 - 32, ty0 + 3 * th / 4)],
            GREY_LIGHT,
            3,
        )
    pen.rect(tx0, ty0 + th - 4, split, ty1, None, BLUE)


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def _coerce(description: object) -> str:
    if description is None:
        return ""
    text = description if isinstance(description, str) else str(description)
    return text[:MAX_DESCRIPTION]


def _seed_int(seed: object) -> int:
    data = str(seed).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


def _check_size(size: Sequence[int]) -> tuple[int, int]:
    try:
        w, h = (int(size[0]), int(size[1]))
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"size must be a (width, height) pair, got {size!r}") from exc
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise ValueError(f"size sides must be within {MIN_SIDE}..{MAX_SIDE} px, got {w}x{h}")
    return w, h


def _render(description: str, seed: object, w: int, h: int, motif: str) -> Image.Image:
    rng = random.Random(_seed_int(seed))
    out_scale = min(w / DESIGN_W, h / DESIGN_H)
    cw, ch = w * SUPERSAMPLE, h * SUPERSAMPLE
    k = out_scale * SUPERSAMPLE
    ox = (cw - DESIGN_W * k) / 2
    oy = (ch - DESIGN_H * k) / 2
    image = Image.new("RGB", (cw, ch), PAPER)
    pen = _Pen(image, out_scale, ox, oy)
    _paper(pen)
    # motif and frame draw from separate streams so they never shift each other
    frame_rng = random.Random(rng.getrandbits(64))
    ctx = _Ctx(pen, rng, description)
    MOTIFS[motif][0](ctx)
    _border(pen, frame_rng)
    return image.resize((w, h), Image.Resampling.LANCZOS)


def draw_blueprint(description: str, *, seed: str, size: tuple[int, int] = (1200, 675)) -> Image.Image:
    """Draw a blueprint-style card illustration for ``description``.

    Args:
        description: the card's alt text (any string; e.g. "Cedana. Blueprint of
            four round dials in a row ..."). Keywords choose the motif, counts
            such as "eight circles" and phrases after "marked" feed the drawing.
            Only the first 4000 characters are analysed; empty, unicode or
            otherwise odd text is fine and never raises.
        seed: any string; its SHA-256 seeds the private random generator that
            varies the details (never the global ``random`` module).
        size: ``(width, height)`` of the result in pixels; each side must be
            16..8192 (designed for 320x180 up to 2400x1350). The 1200x675 design
            space is scaled uniformly and centred, so other aspect ratios work.

    Returns:
        A new ``PIL.Image.Image`` in mode ``"RGB"`` of exactly ``size`` pixels.
        The same ``(description, seed, size)`` always gives identical pixels.

    Raises:
        ValueError: only if ``size`` is malformed or out of range.
    """
    w, h = _check_size(size)
    text = _coerce(description)
    motif = choose_motif(text)
    try:
        return _render(text, seed, w, h, motif)
    except Exception:  # pragma: no cover - safety net, never expected
        log.exception("illustration motif %r failed; using the fallback", motif)
        return _render("", seed, w, h, FALLBACK_MOTIF)


def render_png(description: str, *, seed: str, size: tuple[int, int] = (1200, 675)) -> bytes:
    """Render :func:`draw_blueprint` output as PNG-encoded bytes.

    Args:
        description: card alt text, as for :func:`draw_blueprint`.
        seed: string seed, as for :func:`draw_blueprint`.
        size: ``(width, height)`` in pixels, as for :func:`draw_blueprint`.

    Returns:
        The bytes of an RGB (8 bits per channel) PNG of exactly ``size``
        pixels, encoded with ``optimize=True``; deterministic for equal inputs.
    """
    image = draw_blueprint(description, seed=seed, size=size)
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=True)
    return buf.getvalue()
