"""Charts of pasted CSV/TSV data, drawn on the server as accessible SVG (no JavaScript).

``parse_chart`` reads and checks a chart block's data (``ChartProblem`` names the field to fix);
``render_svg`` draws it; ``chart_summary`` writes the text summary; ``csv_data_uri`` is the
download link's target.

Our own renderer, not a library: pygal (the maintained server-side SVG chart library on PyPI,
3.1.3) writes a ``<style>`` element and tooltip ``<script>`` into every chart with its colours
fixed inside, which our Content-Security-Policy (``style-src 'self'``, scripts only with a nonce)
blocks, and which ``static/css/dark.css`` and print styles cannot restyle. Here every mark
carries classes styled by ``static/css/site.css`` from the theme's custom properties (so dark
mode and print follow), with presentation attributes as the fallback where no CSS applies (feed
readers). The SVG has ``role="img"``, a ``<title>`` and a ``<desc>``.
"""

import csv
import io
import math
from dataclasses import dataclass
from urllib.parse import quote

from django.utils.html import escape

# At most this many plotted values (rows x series). Each value is one SVG element and one table
# cell, so 2000 keeps a chart under about 200 KB of markup and its table readable; more points
# than that are more than a 640-unit-wide chart can show apart. Our own editorial figure.
MAX_POINTS = 2000
# Pasted data longer than this is refused before parsing (2000 values of ~20 characters each,
# with labels, fit well within it).
MAX_DATA_LENGTH = 100_000

# What ``render_svg`` writes: its elements and attributes (the feeds keep exactly these: blog.feeds).
SVG_ELEMENTS = frozenset({"svg", "title", "desc", "line", "text", "rect", "circle", "polyline"})
SVG_ATTRIBUTES = frozenset(
    {
        *("xmlns", "class", "role", "viewBox", "width", "height", "x", "y", "x1", "x2", "y1", "y2"),
        *("cx", "cy", "r", "points", "fill", "stroke", "stroke-width", "stroke-dasharray"),
        *("text-anchor", "dominant-baseline", "font-size", "transform"),
    }
)
MAX_COLUMNS = 13  # a label column and up to 12 series, like TABLE_MAX_COLUMNS
MAX_SERIES_SHOWN = 4  # more colours than this cannot be told apart in print

CHART_KINDS = [
    ("bar", "Bar"),
    ("grouped_bar", "Grouped bar"),
    ("line", "Line"),
    ("scatter", "Scatter"),
]
_KIND_LABELS = dict(CHART_KINDS)

# Fallback colours (the light theme's --blue, --red, --muted and --ink); the
# stylesheet's .chart__s0 ... .chart__s3 rules override them with the theme's custom properties.
_SERIES_COLOURS = ["#1f5eff", "#c8333a", "#5b6475", "#14171f"]

WIDTH, HEIGHT = 640, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 16, 56


class ChartProblem(ValueError):
    """Data a chart cannot show. ``field`` is the block's child to mark ("data" or "series")."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass
class Chart:
    """Parsed chart data. ``labels`` are the first column as text; ``x`` the same as numbers for
    line and scatter charts (else None); ``series`` ``[(column name, [float, ...]), ...]`` in the
    order shown, each as long as ``labels``; ``header`` and ``rows`` the table as pasted."""

    kind: str
    header: list[str]
    rows: list[list[str]]
    labels: list[str]
    x: list[float] | None
    series: list[tuple[str, list[float]]]


def parse_number(text: str) -> float | None:
    """``text`` as a finite number ("12", "-0.5", "1e6", " 3 "), or None. Thousands separators
    and units are not numbers here: they belong in the column name or the axis unit."""
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def read_table(data: str) -> tuple[list[str], list[list[str]]]:
    """Pasted CSV or TSV (tab-separated when the first line has a tab, as spreadsheets copy) as
    ``(header, rows)`` of stripped cells; blank lines are skipped. Raises ChartProblem("data")."""
    if len(data) > MAX_DATA_LENGTH:
        raise ChartProblem("data", f"Paste at most {MAX_DATA_LENGTH:,} characters of data; link to larger data sets.")
    lines = [line for line in data.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    if not lines:
        raise ChartProblem("data", "Paste the data: a header row with the column names, then one row per point.")
    delimiter = "\t" if "\t" in lines[0] else ","
    try:
        table = [[cell.strip() for cell in row] for row in csv.reader(lines, delimiter=delimiter, strict=True)]
    except csv.Error as error:
        raise ChartProblem("data", f"The data could not be read as CSV ({error}); check the quotes.") from error
    header, rows = table[0], table[1:]
    if len(header) < 2:
        raise ChartProblem(
            "data", "The header row needs at least two columns (labels, then values), separated by commas or tabs."
        )
    if len(header) > MAX_COLUMNS:
        raise ChartProblem("data", f"Use at most {MAX_COLUMNS} columns: a label column and {MAX_COLUMNS - 1} series.")
    if not all(header):
        raise ChartProblem("data", "Every column needs a name in the header row.")
    if len(set(header)) != len(header):
        raise ChartProblem("data", "Two columns have the same name; give each column its own name.")
    if not rows:
        raise ChartProblem("data", "Add at least one row of values under the header.")
    for number, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise ChartProblem(
                "data", f"Line {number} has {len(row)} values but the header has {len(header)} columns."
            )
    return header, rows


def parse_chart(kind: str, data: str, series: str = "") -> Chart:
    """Read a chart block's ``data`` (CSV/TSV text) for ``kind`` (a ``CHART_KINDS`` value),
    showing the comma-separated column names in ``series`` (blank: every column after the first).

    Rules: consistent column counts; the shown series' cells are numbers, and so is the first
    column of a line or scatter chart (the x axis); at least one series; a bar chart shows one
    series; at most MAX_POINTS values and MAX_SERIES_SHOWN series. Raises ChartProblem.
    """
    header, rows = read_table(data)
    names = [name.strip() for name in (series or "").split(",") if name.strip()]
    if not names:
        names = header[1:]
    unknown = [name for name in names if name not in header[1:]]
    if unknown:
        raise ChartProblem(
            "series", f"No column named “{unknown[0]}”; the value columns are: {', '.join(header[1:])}."
        )
    if len(set(names)) != len(names):
        raise ChartProblem("series", "Name each series once.")
    if len(names) > MAX_SERIES_SHOWN:
        raise ChartProblem("series", f"Show at most {MAX_SERIES_SHOWN} series; name the ones to show.")
    if kind == "bar" and len(names) > 1:
        raise ChartProblem("series", "A bar chart shows one series: name one column here, or choose “Grouped bar”.")
    if len(rows) * len(names) > MAX_POINTS:
        raise ChartProblem(
            "data",
            f"{len(rows) * len(names):,} values is more than a chart shows legibly (at most {MAX_POINTS:,}); "
            "summarise the data or show fewer series.",
        )
    x = None
    if kind in {"line", "scatter"}:
        x = []
        for number, row in enumerate(rows, start=2):
            value = parse_number(row[0])
            if value is None:
                raise ChartProblem(
                    "data",
                    f"Line {number}: “{row[0]}” in “{header[0]}” is not a number; a {_KIND_LABELS[kind].lower()} "
                    "chart needs numbers in the first column (the x axis).",
                )
            x.append(value)
    plotted = []
    for name in names:
        column = header.index(name)
        values = []
        for number, row in enumerate(rows, start=2):
            value = parse_number(row[column])
            if value is None:
                raise ChartProblem("data", f"Line {number}: “{row[column]}” in “{name}” is not a number.")
            values.append(value)
        plotted.append((name, values))
    return Chart(kind=kind, header=header, rows=rows, labels=[row[0] for row in rows], x=x, series=plotted)


def format_number(value: float) -> str:
    """A number as a tick label or in the summary: integers without a decimal point, others with
    up to 4 significant decimals ("0.25", "1250", "-3.5")."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}" if abs(value) < 1e-3 or abs(value) >= 1e6 else f"{value:.4f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``..``high`` (steps of 1, 2 or 5 times a power of ten)."""
    if high == low:
        high, low = high + 1, low - (1 if low else 0)
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(multiple * power for multiple in (1, 2, 5, 10) if multiple * power >= raw)
    start = math.floor(low / step) * step
    # The last tick is the first at or above ``high``, so the tallest mark stays inside the axis;
    # each tick is start + n steps (no running sum, whose rounding errors add up).
    ticks = [round(start, 12)]
    while ticks[-1] < high - step * 1e-9:
        ticks.append(round(start + step * len(ticks), 12))
    return ticks


def _axis_title(title: str, unit: str) -> str:
    return f"{title} ({unit})" if title and unit else title or (f"({unit})" if unit else "")


def chart_summary(chart: Chart, *, x_title="", x_unit="", y_title="", y_unit="") -> str:
    """A sentence or two describing the chart for readers who cannot see it: the kind, the
    series, the number of points and each series' range with where its extremes are."""
    kind = _KIND_LABELS[chart.kind]
    unit = f" {y_unit}" if y_unit else ""
    parts = [
        f"{kind} chart of {len(chart.labels)} "
        f"{'points' if chart.x is not None else 'categories'}"
        + (f" ({_axis_title(x_title, x_unit)})" if x_title or x_unit else "")
        + f", {len(chart.series)} series"
        + (f" of {_axis_title(y_title, y_unit)}" if y_title or y_unit else "")
        + "."
    ]
    for name, values in chart.series:
        low, high = min(values), max(values)
        parts.append(
            f"{name}: from {format_number(low)}{unit} ({chart.labels[values.index(low)]}) "
            f"to {format_number(high)}{unit} ({chart.labels[values.index(high)]})."
        )
    return " ".join(parts)


def csv_text(chart: Chart) -> str:
    """The chart's table as CSV (comma-separated, quoted where needed), header first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(chart.header)
    writer.writerows(chart.rows)
    return out.getvalue()


def csv_data_uri(chart: Chart) -> str:
    """A ``data:text/csv`` URI of ``csv_text``: the download works from the cached page, needs no
    view or URL of its own and stays the data of this revision (at most MAX_DATA_LENGTH)."""
    return "data:text/csv;charset=utf-8," + quote(csv_text(chart), safe="")


def _attrs(**attributes) -> str:
    return " ".join(f'{name.rstrip("_").replace("_", "-")}="{escape(value)}"' for name, value in attributes.items())


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def render_svg(chart: Chart, *, title: str, description: str, x_title="", x_unit="", y_title="", y_unit="") -> str:
    """The chart as an inline SVG string (viewBox 640 x 360, scaled by CSS).

    Every plotted value is one element with class ``chart__mark`` and a ``<title>`` naming its
    label, series and value (a tooltip without script). Series have classes ``chart__s0`` ...;
    lines of a line chart ``chart__line``; axes, grid and text ``chart__axis``/``chart__grid``/
    ``chart__text``. All text is escaped.
    """
    legend = len(chart.series) > 1
    bottom = _BOTTOM + (22 if legend else 0)
    plot_left, plot_right, plot_top, plot_bottom = _LEFT, WIDTH - _RIGHT, _TOP, HEIGHT - bottom
    values = [value for _name, column in chart.series for value in column]
    low, high = min(values), max(values)
    if chart.kind in {"bar", "grouped_bar"}:
        low, high = min(low, 0.0), max(high, 0.0)
    y_ticks = nice_ticks(low, high)
    y_low, y_high = y_ticks[0], y_ticks[-1]

    def y_at(value: float) -> float:
        return plot_bottom - (value - y_low) / (y_high - y_low) * (plot_bottom - plot_top)

    unit = f" {y_unit}" if y_unit else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart__svg" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(description)}</desc>",
    ]
    for tick in y_ticks:
        y = _n(y_at(tick))
        out.append(
            f'<line class="chart__grid" x1="{plot_left}" x2="{plot_right}" y1="{y}" y2="{y}" stroke="#d9dfea" '
            'stroke-dasharray="2 3"/>'
        )
        out.append(
            f'<text class="chart__text" x="{plot_left - 6}" y="{y}" text-anchor="end" dominant-baseline="middle" '
            f'font-size="11" fill="#5b6475">{escape(format_number(tick))}</text>'
        )
    marks = []
    if chart.x is None:
        count = len(chart.labels)
        band = (plot_right - plot_left) / count
        group = band * 0.8
        bar = group / len(chart.series)
        zero = y_at(max(y_low, min(0.0, y_high)))
        label_every = max(1, math.ceil(count / 16))
        for index, label in enumerate(chart.labels):
            left = plot_left + index * band + (band - group) / 2
            for number, (name, column) in enumerate(chart.series):
                value = column[index]
                top, height = min(y_at(value), zero), abs(y_at(value) - zero)
                marks.append(
                    f'<rect class="chart__mark chart__s{number}" {_attrs(x=_n(left + number * bar), y=_n(top))} '
                    f'width="{_n(max(bar - 1, 1))}" height="{_n(height)}" fill="{_SERIES_COLOURS[number]}">'
                    f"<title>{escape(f'{label}, {name}: {format_number(value)}{unit}')}</title></rect>"
                )
            if index % label_every == 0:
                out.append(
                    f'<text class="chart__text" x="{_n(plot_left + (index + 0.5) * band)}" y="{plot_bottom + 16}" '
                    f'text-anchor="middle" font-size="11" fill="#5b6475">{escape(label[:14])}</text>'
                )
    else:
        x_ticks = nice_ticks(min(chart.x), max(chart.x))
        x_low, x_high = x_ticks[0], x_ticks[-1]

        def x_at(value: float) -> float:
            return plot_left + (value - x_low) / (x_high - x_low) * (plot_right - plot_left)

        for tick in x_ticks:
            out.append(
                f'<text class="chart__text" x="{_n(x_at(tick))}" y="{plot_bottom + 16}" text-anchor="middle" '
                f'font-size="11" fill="#5b6475">{escape(format_number(tick))}</text>'
            )
        for number, (name, column) in enumerate(chart.series):
            points = sorted(zip(chart.x, column, chart.labels, strict=True))
            colour = _SERIES_COLOURS[number]
            if chart.kind == "line":
                path = " ".join(f"{_n(x_at(x))},{_n(y_at(y))}" for x, y, _label in points)
                marks.append(
                    f'<polyline class="chart__line chart__s{number}" points="{path}" fill="none" '
                    f'stroke="{colour}" stroke-width="2"/>'
                )
            for x, y, label in points:
                tip = escape(f"{name}: {label}, {format_number(y)}{unit}")
                cx, cy = _n(x_at(x)), _n(y_at(y))
                if number % 2:  # every other series as squares, so series differ without colour
                    marks.append(
                        f'<rect class="chart__mark chart__s{number}" x="{_n(x_at(x) - 3.5)}" y="{_n(y_at(y) - 3.5)}" '
                        f'width="7" height="7" fill="{colour}"><title>{tip}</title></rect>'
                    )
                else:
                    marks.append(
                        f'<circle class="chart__mark chart__s{number}" cx="{cx}" cy="{cy}" r="3.5" '
                        f'fill="{colour}"><title>{tip}</title></circle>'
                    )
    out.extend(marks)
    out.append(
        f'<line class="chart__axis" x1="{plot_left}" x2="{plot_right}" y1="{plot_bottom}" y2="{plot_bottom}" '
        'stroke="#3b4252"/>'
    )
    out.append(
        f'<line class="chart__axis" x1="{plot_left}" x2="{plot_left}" y1="{plot_top}" y2="{plot_bottom}" '
        'stroke="#3b4252"/>'
    )
    if x_text := _axis_title(x_title, x_unit):
        out.append(
            f'<text class="chart__text chart__axis-title" x="{_n((plot_left + plot_right) / 2)}" '
            f'y="{plot_bottom + 36}" text-anchor="middle" font-size="12" fill="#3b4252">{escape(x_text)}</text>'
        )
    if y_text := _axis_title(y_title, y_unit):
        middle = _n((plot_top + plot_bottom) / 2)
        out.append(
            f'<text class="chart__text chart__axis-title" x="14" y="{middle}" text-anchor="middle" font-size="12" '
            f'fill="#3b4252" transform="rotate(-90 14 {middle})">{escape(y_text)}</text>'
        )
    if legend:
        x = plot_left
        for number, (name, _column) in enumerate(chart.series):
            y = HEIGHT - 14
            out.append(
                f'<rect class="chart__swatch chart__s{number}" x="{x}" y="{y - 9}" width="10" height="10" '
                f'fill="{_SERIES_COLOURS[number]}"/>'
            )
            out.append(
                f'<text class="chart__text" x="{x + 14}" y="{y}" font-size="11" fill="#3b4252">'
                f"{escape(name[:24])}</text>"
            )
            x += 28 + 7 * min(len(name), 24)
    out.append("</svg>")
    return "".join(out)
