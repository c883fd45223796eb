"""``index.html``: every table and figure of the report on one static page, checked by parsing
it (no browser): images that exist, every figure on the page, tables as the report's, nothing
fetched from elsewhere, every inserted text escaped."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from gcbench.report import report
from gcbench.report.html_page import png_size, sort_key
from gcbench.report.tables import result_sections, summary_sections

HOSTILE_GRAPH = "gen:<b>bold</b>&amp;x"  # as in conftest's hostile_report
HOSTILE_ERROR = "<script>alert(1)</script> & <img src=x onerror=alert(2)>"


class Page(HTMLParser):
    """What the checks need from a page: tags with their attributes, the tables (title,
    headers, rows of cells) and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[dict] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "table":
            self.tables.append({"title": attributes.get("data-title"), "head": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            table = self.tables[-1]
            cell = "".join(self._cell)
            (table["head"] if tag == "th" else table["rows"][-1]).append(cell)
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def page(hostile_report):
    """The report of :func:`hostile_report` and its page: (Report, directory, the page's
    text, the parsed page)."""
    rep, out = hostile_report
    text = (out / "index.html").read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(text)
    parsed.close()
    return rep, out, text, parsed


def test_index_html_is_written_and_listed(page):
    rep, out, text, _ = page
    assert out / "index.html" in rep.written
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def test_every_figure_is_on_the_page_and_every_image_exists(page):
    rep, out, _, parsed = page
    sources = [a["src"] for tag, a in parsed.tags if tag == "img"]
    links = [a["href"] for tag, a in parsed.tags if tag == "a" and a.get("href")]
    assert sources and all((out / src).is_file() for src in sources)
    assert all(src.endswith(".png") for src in sources)  # PNG shown, the SVG linked
    for tag, a in parsed.tags:  # at their size in inches (20 dpi here), not pixel for pixel
        if tag == "img":
            assert int(a["width"]) == round(png_size(out / a["src"])[0] * 96 / 20), a
    local = [h for h in links if not h.startswith("#")]
    assert all((out / h).is_file() for h in local)
    figures = {p.name for p in rep.written if p.suffix in (".png", ".svg", ".pdf")}
    assert figures and figures <= set(sources) | set(local)
    anchors = {a.get("id") for _, a in parsed.tags}
    assert {h[1:] for h in links if h.startswith("#")} <= anchors  # the contents resolve


def test_tables_match_the_report(page):
    rep, _, _, parsed = page
    expected = [*summary_sections(rep, labels=True), *result_sections(rep.summary)]
    by_title = {t["title"]: t for t in parsed.tables}
    assert len(parsed.tables) == len(expected) == len(by_title)
    for section in expected:
        table = by_title[section.title]
        assert table["head"] == list(section.frame.columns), section.title
        body = table["rows"][1:]  # the first row is the header's
        assert len(body) == len(section.frame), section.title
        assert body == [list(map(str, row)) for row in section.frame.itertuples(index=False)]
    (graphs,) = [t for title, t in by_title.items() if title.startswith("Graphs")]
    assert graphs["head"][:2] == ["figure label", "graph"] and parsed.tables[0] is graphs


def test_nothing_is_fetched_from_elsewhere(page):
    _, _, text, parsed = page
    assert "http://" not in text and "https://" not in text
    for tag, attributes in parsed.tags:
        assert tag not in ("link", "iframe", "object", "embed", "base"), tag
        assert not (tag == "script" and "src" in attributes)
        for name in ("src", "href"):
            value = attributes.get(name) or ""
            assert ":" not in value and not value.startswith("/"), (tag, value)
    assert "@import" not in text and "url(" not in text


def test_hostile_names_are_escaped(page):
    _, _, text, parsed = page
    for raw in ("<b>", "<script>alert", "<img src=x", "<algo>"):
        assert raw not in text, raw
    assert "&lt;b&gt;bold&lt;/b&gt;&amp;amp;x" in text  # also the & of &amp; in the name
    shown = "".join(parsed.text)
    assert HOSTILE_GRAPH in shown and "bad<algo>" in shown
    assert HOSTILE_ERROR[:40] in shown  # the error in the failed group's note
    scripts = [a for tag, a in parsed.tags if tag == "script"]
    assert len(scripts) == 1  # only the page's own sorting script
    assert {tag for tag, _ in parsed.tags} <= {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p",
        "code", "nav", "a", "main", "div", "table", "thead", "tbody", "tr", "th", "td", "ul",
        "li", "figure", "img", "figcaption", "script",
    }  # fmt: skip


def test_numeric_cells_sort_by_their_leading_number():
    assert [sort_key(t) for t in ("≈ 12.3†", "1,234", "3/5", "+2", "0 ✓", "-1 !", "1.00–1.30",
                                  "5 (χ)", "0.0042", "inf")] == [
        12.3, 1234, 3, 2, 0, -1, 1.0, 5, 0.0042, float("inf")
    ]  # fmt: skip
    assert sort_key("—") is None and sort_key("") is None


def test_a_page_without_figures_or_speedups(tmp_path, write_csv, reps):
    rows = [*reps("g1", "gm-async", [None], status="error", error="x")]
    rep = report([write_csv(rows)], out=tmp_path / "o")
    names = {p.name for p in rep.written}
    assert names == {"summary.csv", "summary.md", "index.html"}
    text = (tmp_path / "o" / "index.html").read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(text)
    assert not [t for t, _ in parsed.tags if t == "img"]
    assert "no figures of time, colors or performance profiles" in text
    assert "no speedups (no baseline)" in text and "GPU" not in text and "cusparse" not in text
