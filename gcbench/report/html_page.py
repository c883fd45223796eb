"""``index.html``: the whole report on one static page (docs/report.md, "Output").

Every table of the report and every figure written beside it, with no server and no network:
CSS and the script that sorts a table by a clicked column are inline, images are named by
their file names (relative to the page), and every text inserted is escaped (graph names and
error messages may hold ``<`` and ``&``).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from gcbench.report.aggregate import CASE, with_problem
from gcbench.report.defaults import DPI
from gcbench.report.tables import (
    MISSING,
    TEXT_HEADERS,
    Section,
    result_sections,
    summary_sections,
)

if TYPE_CHECKING:
    from gcbench.report import Report

SHOWN_FORMATS = (".png", ".svg")  # shown as images, in this order of preference
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CSS_DPI = 96  # CSS pixels to the inch
# A display string's leading number: "≈ 12.3†", "+2", "0 ✓", "1,234", "3/5", "1.00–1.30".
NUMBER = re.compile(r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 0 auto; padding: 1em 2em 4em; max-width: 1800px; color: #1d1d1f; }
h1 { margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { margin: 1.6em 0 .4em; font-size: 1.05em; word-break: break-all; }
header p { margin: .2em 0; color: #444; }
code { font-size: .95em; background: #f3f3f3; padding: 0 .25em; border-radius: 3px; }
nav { columns: 3 18em; font-size: .92em; background: #f7f7f9; padding: .6em 1em;
      border-radius: 6px; margin: 1em 0; }
nav a { display: block; text-decoration: none; overflow: hidden; text-overflow: ellipsis;
        white-space: nowrap; }
nav .group { font-weight: 600; margin-top: .3em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .92em; margin: .3em 0; }
th, td { padding: .2em .6em; border-bottom: 1px solid #e4e4e4; vertical-align: top; }
th { background: #f0f0f3; position: sticky; top: 0; cursor: pointer; user-select: none;
     white-space: nowrap; }
th[aria-sort=ascending]::after { content: " ▲"; font-size: .75em; }
th[aria-sort=descending]::after { content: " ▼"; font-size: .75em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 40em; overflow-wrap: break-word; }
td.text:first-child { white-space: nowrap; }
tbody tr:hover { background: #f6f8ff; }
p.legend { margin: .2em 0 0; font-size: .85em; color: #555; font-style: italic; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .85em; color: #555; }
ul.notes li { margin: .2em 0; }
"""

# Click a header to sort its table by that column (again: the other way). Numeric cells carry
# their value in data-sort; cells without one (a dash) stay last either way.
SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    var down = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
    var numeric = th.classList.contains("num"), sign = down ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      var cell = row.cells[col], text = cell ? cell.textContent : "";
      var key = numeric ? cell && cell.dataset.sort : (text === "\u2014" ? undefined : text);
      return { row: row, key: numeric && key !== undefined ? Number(key) : key, i: i };
    });
    rows.sort(function (a, b) {
      if (a.key === undefined || b.key === undefined) {
        return (a.key === undefined) - (b.key === undefined) || a.i - b.i;
      }
      var c = numeric ? a.key - b.key
                      : a.key.localeCompare(b.key, undefined, { numeric: true });
      return sign * c || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  });
});
"""


def sort_key(text: str) -> float | None:
    """The number a numeric cell sorts by: its leading number (``≈ 12.3†`` → 12.3,
    ``1,234`` → 1234, ``3/5`` → 3), None for a dash or no number."""
    found = NUMBER.search(THOUSANDS.sub("", text))
    if text.strip() == MISSING or found is None:
        return None
    return float(found.group().replace("−", "-"))


def _cell(value: str, numeric: bool) -> str:
    if not numeric:
        return f'<td class="text">{escape(value)}</td>'
    key = sort_key(value)
    if key is None:
        return f'<td class="num">{escape(value)}</td>'
    shown = "Infinity" if math.isinf(key) and key > 0 else repr(key)
    return f'<td class="num" data-sort="{shown}">{escape(value)}</td>'


def table(section: Section, caption: Sequence[str], anchor: str) -> str:
    """A section as a sortable HTML table (``data-title`` its title), its caption lines
    under it."""
    headers = list(section.frame.columns)
    numeric = [h not in TEXT_HEADERS for h in headers]
    head = "".join(
        f'<th class="{"num" if n else "text"}" scope="col">{escape(h)}</th>'
        for h, n in zip(headers, numeric, strict=True)
    )
    body = "\n".join(
        "<tr>" + "".join(_cell(str(v), n) for v, n in zip(row, numeric, strict=True)) + "</tr>"
        for row in section.frame.itertuples(index=False)
    )
    legend = "".join(f'<p class="legend">{escape(line)}</p>' for line in caption)
    return (
        f'<div class="scroll"><table class="sortable" id="{anchor}" '
        f'data-title="{escape(section.title)}"><thead><tr>{head}</tr></thead>\n'
        f"<tbody>\n{body}\n</tbody></table></div>{legend}"
    )


def png_size(path: Path) -> tuple[int, int] | None:
    """A PNG's width and height in pixels (its IHDR chunk), or None if it is not one."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(24)
    except OSError:
        return None
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def figures(
    images: Sequence[str], directory: Path | None = None, dpi: int = DPI
) -> list[tuple[str, str]]:
    """(stem, HTML) per figure: its PNG (else SVG) shown, linked to itself, and its other
    formats linked; a figure only in PDF is a link. A PNG in ``directory`` is shown at its
    size in inches (``dpi`` pixels to the inch, CSS's 96 px to the inch), as an SVG is, not
    at one pixel per pixel, which would draw a 200 dpi figure's text twice its size."""
    stems: dict[str, list[str]] = {}
    for name in images:
        stems.setdefault(name.rsplit(".", 1)[0], []).append(name)
    out = []
    for stem, names in stems.items():
        shown = next((n for suffix in SHOWN_FORMATS for n in names if n.endswith(suffix)), None)
        links = ", ".join(
            f'<a href="{escape(quote(n))}">{escape(n)}</a>' for n in names if n != shown
        )
        if shown is None:
            out.append((stem, f'<p id="fig-{escape(stem)}">{escape(stem)}: {links}</p>'))
            continue
        src = escape(quote(shown))
        caption = escape(shown) + (f" (also {links})" if links else "")
        size = png_size(directory / shown) if directory and shown.endswith(".png") else None
        width = f' width="{round(size[0] * CSS_DPI / dpi)}"' if size else ""
        out.append((stem, (
            f'<figure id="fig-{escape(stem)}"><a href="{src}"><img src="{src}"{width} '
            f'alt="{escape(stem)} figure" loading="lazy"></a>'
            f"<figcaption>{caption}</figcaption></figure>"
        )))  # fmt: skip
    return out


def page(
    rep: Report, images: Sequence[str] = (), directory: Path | None = None, dpi: int = DPI
) -> str:
    """The report as one HTML page: where and when it was measured, the graphs and their
    figure labels, the figures (``images``, file names in ``directory``, beside the page;
    PNGs at ``dpi``) and why any main figure is left out, the tables across graphs, a table
    per case (graph and problem), the notes."""
    across = summary_sections(rep, labels=True)
    per_graph = result_sections(rep.summary)
    nav: list[str] = []
    parts: list[str] = []

    def add(title: str, anchor: str, html: str, level: int = 2, short: str = "") -> None:
        kind = ' class="group"' if level == 2 else ""
        nav.append(f'<a href="#h-{anchor}"{kind}>{escape(short or title)}</a>')
        parts.append(f'<h{level} id="h-{anchor}">{escape(title)}</h{level}>\n{html}')

    graphs = [s for s in across if s.title.startswith("Graphs")]
    others = [s for s in across if not s.title.startswith("Graphs")]
    for i, section in enumerate(graphs):
        add(section.title, f"graphs-{i}", table(section, (rep.timing, *section.legend), "t-g"))
    shown = figures(images, directory, dpi)
    if shown or rep.plot_notes:
        left_out = "".join(f"<li>{escape(n)}</li>" for n in rep.plot_notes)
        add("Figures", "figures",
            (f'<ul class="notes">{left_out}</ul>' if left_out else "")
            + "\n".join(html for _, html in shown))  # fmt: skip
    parts.append('<h2 id="h-across">Across graphs</h2>')
    nav.append('<a href="#h-across" class="group">Across graphs</a>')
    for i, section in enumerate(others):
        add(section.title, f"across-{i}",
            table(section, (rep.timing, *section.legend), f"t-a{i}"), level=3)  # fmt: skip
    parts.append('<h2 id="h-per-graph">Per graph</h2>')
    nav.append('<a href="#h-per-graph" class="group">Per graph</a>')
    cases = rep.summary[CASE].drop_duplicates()  # in the order of result_sections
    names = [with_problem(str(g), str(p)) for g, p in zip(cases["graph"], cases["problem"],
                                                          strict=True)]  # fmt: skip
    for i, (name, section) in enumerate(zip(names, per_graph, strict=True)):
        add(section.title, f"graph-{i}", table(section, (rep.timing, *section.legend),
            f"t-p{i}"), level=3, short=name)  # fmt: skip
    if rep.notes:
        add("Notes", "notes",
            '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in rep.notes)
            + "</ul>")  # fmt: skip
    sources = ", ".join(f"<code>{escape(str(p))}</code>" for p in rep.sources)
    where = f"Measured on {escape(rep.where)}; " if rep.where else ""
    label = rep.baseline_label
    baseline = f"speedups over {escape(label)}" if label else "no speedups (no baseline)"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gcbench report</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>gcbench report</h1>
<p>{len(rep.sources)} results file(s): {sources}</p>
<p>{where}{escape(rep.timing)}; {baseline}. Click a column header to sort its table.</p>
</header>
<nav>{"".join(nav)}</nav>
<main>
{chr(10).join(parts)}
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""


__all__ = ["page", "sort_key", "table"]
