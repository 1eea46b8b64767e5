"""The blueprint card illustrations drawn by ``blog.demo.illustrations``."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image

from blog.demo import illustrations as il

SEED_DIR = Path(__file__).resolve().parent / "seeds"  # copies of the captured pages (shared/seeds/)
SEED_FILES = [
    SEED_DIR / "blog-topic-gpu-costs.txt",
    SEED_DIR / "blog-topic-inference-performance.txt",
]
FEATURED = (
    "Blueprint schematic of an eight-GPU node accumulating session state, with a "
    "state gauge rising toward the VRAM capacity line"
)


def _card_descriptions() -> list[str]:
    found: list[str] = []
    for path in SEED_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line.startswith("Cedana. Blueprint") and line not in found:
                found.append(line)
    return found


CARDS = _card_descriptions()
ODD_INPUTS = [
    "",
    " ",
    "x" * 10_000,
    "word " * 2_000,
    "🚀🔥🧠 emoji only 🚀",
    "Cedana. Blueprint of a ring 🚀 marked 🚀🚀 émigré naïve 日本語",
    "lone surrogate \ud800 and controls \x00\x07\x1b[31m",
    "marked " * 500,
    "eight " * 300 + "circles",
    "99999999999 gpus in a ring, 0 dials, -5 leaves",
    "\n\n\t\r",
]


def _rgb_bytes(description: str, seed: str, size=(1200, 675)) -> bytes:
    return il.draw_blueprint(description, seed=seed, size=size).tobytes()


def test_seed_files_have_cards() -> None:
    assert len(CARDS) >= 19


@pytest.mark.parametrize("description", [FEATURED, *CARDS])
def test_every_card_renders(description: str) -> None:
    image = il.draw_blueprint(description, seed="card")
    assert image.mode == "RGB"
    assert image.size == (1200, 675)
    colors = image.getcolors(maxcolors=1 << 20)
    assert colors is not None and len(colors) > 20  # a drawing, not a blank page
    # it uses the blue accent somewhere
    assert any(b > 200 and r < 90 and g < 140 for _n, (r, g, b) in colors)


def test_featured_is_the_node_schematic() -> None:
    assert il.choose_motif(FEATURED) == "node"


def test_cards_use_many_motifs() -> None:
    motifs = {il.choose_motif(d) for d in CARDS}
    assert len(motifs) >= 8


def test_at_least_eight_motifs_are_registered() -> None:
    assert len(il.MOTIFS) >= 8
    assert il.choose_motif("") == il.FALLBACK_MOTIF


@pytest.mark.parametrize("name", sorted(il.MOTIFS))
def test_each_motif_keyword_selects_it(name: str) -> None:
    keywords = {
        "node": "an eight-GPU node with VRAM",
        "machines": "two machines side by side",
        "dials": "four dials with pointers",
        "roofline": "three rooflines with knees",
        "ring": "circles in a ring with a mesh",
        "tree": "a tree from root to six leaves",
        "grid": "a month as a grid of thirty squares",
        "columns": "pairs of columns on a baseline",
        "fraction": "a fraction, boxes above the line",
        "vessel": "a vessel filled to the brim",
        "conveyor": "a conveyor belt on rollers",
        "segbar": "one long grey bar with a thin blue slice",
        "steps": "a power line stepping down",
        "document": "a document with a folded corner",
        "panel": "a rounded panel with icons and a clock",
        "rows": "three rows whose bar doubles row by row",
        "chart": "a plot",
    }
    description = keywords[name]
    assert il.choose_motif(description) == name
    image = il.draw_blueprint(description, seed=name, size=(640, 360))
    assert image.size == (640, 360)


# Determinism holds at any size: drawn at a quarter of the card's area (test_every_card_renders
# draws every card at full size; a seed's effect can round away at smaller sizes, so
# test_different_seeds_differ draws at full size too).
QUARTER = (600, 338)


def test_deterministic_for_same_inputs() -> None:
    for description in [FEATURED, *CARDS[:5]]:
        a = il.render_png(description, seed="post-1", size=QUARTER)
        b = il.render_png(description, seed="post-1", size=QUARTER)
        assert a == b
        assert _rgb_bytes(description, "post-1", QUARTER) == _rgb_bytes(description, "post-1", QUARTER)


def test_does_not_touch_global_random() -> None:
    random.seed(1234)
    state = random.getstate()
    il.draw_blueprint(FEATURED, seed="global")
    assert random.getstate() == state


def test_different_seeds_differ() -> None:
    for description in [FEATURED, *CARDS]:
        a = _rgb_bytes(description, "seed-a")
        b = _rgb_bytes(description, "seed-b")
        assert a != b, description[:60]


@pytest.mark.parametrize("size", [(320, 180), (640, 360), (1200, 675), (2400, 1350), (400, 400), (1200, 300)])
def test_sizes_and_mode(size: tuple[int, int]) -> None:
    image = il.draw_blueprint(FEATURED, seed="sizes", size=size)
    assert image.size == size
    assert image.mode == "RGB"


@pytest.mark.parametrize("size", [(320, 180), (2400, 1350)])
def test_all_cards_render_at_extreme_sizes(size: tuple[int, int]) -> None:
    for description in CARDS[::3] or [FEATURED]:
        assert il.draw_blueprint(description, seed="x", size=size).size == size


def test_render_png_is_rgb_png() -> None:
    data = il.render_png(FEATURED, seed="png", size=(800, 450))
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        assert image.mode == "RGB"
        assert image.size == (800, 450)


@pytest.mark.parametrize("description", ODD_INPUTS, ids=range(len(ODD_INPUTS)))
def test_odd_inputs_render(description: str) -> None:
    image = il.draw_blueprint(description, seed="odd")
    assert image.size == (1200, 675)
    assert image.mode == "RGB"
    assert il.render_png(description, seed="🚀 odd \ud800 seed", size=(320, 180))


@pytest.mark.parametrize("size", [(0, 10), (10, 10), (100000, 100), ("a", "b"), (5,)])
def test_bad_sizes_raise_value_error(size) -> None:
    with pytest.raises(ValueError):
        il.draw_blueprint("x", seed="s", size=size)


def test_label_extraction() -> None:
    labels = il._extract_labels(
        "On the left, marked cost per token, a receipt. A line marked by a red dashed "
        "line. Columns marked tasks finished stand under the boxes."
    )
    assert labels == ["COST PER TOKEN", "TASKS FINISHED"]


# Label contrast in both themes -----------------------------------------------------------------

DARK_CSS = Path(__file__).resolve().parent.parent / "static" / "css" / "dark.css"


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (0-255 channels)."""

    def luminance(colour):
        linear = [(v / 12.92) if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in (c / 255 for c in colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def dark_theme_filter():
    """The dark theme's ``filter: invert(A) hue-rotate(Ddeg)`` on illustrations, as a function of
    one colour, computed as the Filter Effects spec's formulas in sRGB (what Chromium renders:
    GREY (128, 136, 150) came out as (115, 122, 133) on screen)."""
    import math
    import re

    match = re.search(r"filter:\s*invert\(([\d.]+)\)\s*hue-rotate\(([\d.]+)deg\)", DARK_CSS.read_text())
    assert match, "dark.css no longer inverts the illustrations this way: update this test"
    amount, angle = float(match.group(1)), math.radians(float(match.group(2)))
    cos, sin = math.cos(angle), math.sin(angle)
    matrix = [
        [0.213 + cos * 0.787 - sin * 0.213, 0.715 - cos * 0.715 - sin * 0.715, 0.072 - cos * 0.072 + sin * 0.928],
        [0.213 - cos * 0.213 + sin * 0.143, 0.715 + cos * 0.285 + sin * 0.140, 0.072 - cos * 0.072 - sin * 0.283],
        [0.213 - cos * 0.213 - sin * 0.787, 0.715 - cos * 0.715 + sin * 0.715, 0.072 + cos * 0.928 + sin * 0.072],
    ]

    def apply(colour):
        inverted = [amount * (255 - c) + (1 - amount) * c for c in colour]
        return tuple(min(255.0, max(0.0, sum(m * c for m, c in zip(row, inverted, strict=True)))) for row in matrix)

    return apply


def test_the_dark_filter_model_matches_what_chromium_rendered():
    measured = {(128, 136, 150): (115, 122, 133), (246, 249, 253): (24, 26, 29), (31, 94, 255): (106, 159, 255)}
    dark = dark_theme_filter()
    for colour, on_screen in measured.items():
        assert all(abs(a - b) <= 1.5 for a, b in zip(dark(colour), on_screen, strict=True)), colour


def test_every_label_reaches_aa_contrast_in_the_light_and_the_dark_theme(monkeypatch):
    """Issue 17: the illustrations' words (axis names, figure and sheet numbers) reach WCAG 1.4.3's
    4.5:1 on the paper as drawn and as the dark theme shows it, for every motif."""
    import json

    from PIL import ImageDraw

    used: set[tuple[int, int, int]] = set()
    real_text = ImageDraw.ImageDraw.text

    def recording_text(self, xy, text, fill=None, *args, **kwargs):
        used.add(tuple(fill))
        return real_text(self, xy, text, fill, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", recording_text)
    fixture = Path(__file__).resolve().parent.parent / "blog" / "demo" / "fixtures" / "demo_content.json"
    one_per_motif = {}
    for entry in json.loads(fixture.read_text())["articles"]:
        one_per_motif.setdefault(il.choose_motif(entry["image"]["alt_text"]), entry["image"]["alt_text"])
    assert len(one_per_motif) >= 12
    for description in one_per_motif.values():
        il.draw_blueprint(description, seed="labels")
    assert len(used) >= 3, used  # ink, blue and the grey shade at least
    dark = dark_theme_filter()
    for colour in used:
        assert contrast(colour, il.PAPER) >= 4.5, ("light", colour)
        assert contrast(dark(colour), dark(il.PAPER)) >= 4.5, ("dark", colour, dark(colour))
