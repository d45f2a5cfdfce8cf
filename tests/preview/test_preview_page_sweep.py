"""The retention sweep on the preview page (issue 22): workload against retention, the
current and optimal retention marked, drawn in headless Chromium day and night at a
phone's 390 px."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.model import StudyOverrides
from deckbuilder.preview.page import preview_page
from deckbuilder.preview.page_chart import axis_label, sweep_svg
from deckbuilder.preview.report import DeckPreview, Questions, preview_deck
from deckbuilder.preview.settings import settings_for
from deckbuilder.schedule.sweep import SWEEP_RETENTIONS
from tests.app_calls import check_decks
from tests.browser import Context
from tests.conftest import DATA, copied

PHONE = {"width": 390, "height": 844}
DAYS = 60


def _preview(source: Path, sweep: bool, retention: float | None = None) -> tuple[Any, DeckPreview]:
    (rd,) = check_decks([source], media_dir=DATA / "media")
    chosen = settings_for(rd.deck, StudyOverrides(desired_retention=retention))
    return rd, preview_deck(rd.deck, chosen, DAYS, 42, Questions(sweep=sweep))


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copied(DATA / "phone", tmp_path_factory.mktemp("sweep"))


Swept = Callable[..., tuple[Any, DeckPreview]]


@pytest.fixture(scope="module")
def swept(deck: Path) -> Swept:
    """The deck's preview with a sweep, by desired retention (None: the deck's own), each
    swept once in the module: several tests read the same preview, and none changes it."""

    @cache
    def run(retention: float | None = None) -> tuple[Any, DeckPreview]:
        return _preview(deck, sweep=True, retention=retention)

    return run


@pytest.fixture(scope="module")
def page(swept: Swept, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "sweep.html"
    out.write_text(preview_page(*swept()), encoding="utf-8")
    return out


def test_the_page_has_a_sweep_chart_only_when_the_sweep_is_asked_for(
    deck: Path, swept: Swept
) -> None:
    rd, plain = _preview(deck, sweep=False)
    assert sweep_svg(plain) == ""
    assert 'class="chart sweep"' not in preview_page(rd, plain)
    _, with_sweep = swept()
    text = preview_page(rd, with_sweep)
    assert text.count('class="chart sweep"') == 1
    assert text == preview_page(rd, with_sweep)  # deterministic


def _across(svg: str, mark: str) -> float:
    """How far across its chart (percent) a mark's line stands."""
    found = re.search(rf'data-mark="{mark}"[^>]*><line x1="([0-9.]+)%"', svg)
    assert found is not None, mark
    return float(found.group(1))


def test_marks_sit_at_the_current_and_optimal_retention(swept: Swept) -> None:
    _, p = swept(0.85)
    assert p.sweep is not None
    svg = sweep_svg(p)
    marks = dict(re.findall(r'data-mark="(\w+)" data-retention="([0-9.]+)"', svg))
    assert marks == {"current": "0.85", "optimal": f"{p.sweep.optimal_retention:.2f}"}
    line = re.search(r'data-series="minutes" points="([^"]+)"', svg)
    assert line is not None
    columns = [float(pt.split(",")[0]) for pt in line.group(1).split()]
    assert len(columns) == len(SWEEP_RETENTIONS)
    # Each retention's point is in the middle of its column, the mark at the same place.
    across = [100 * x / len(SWEEP_RETENTIONS) for x in columns]
    assert _across(svg, "current") == pytest.approx(across[SWEEP_RETENTIONS.index(0.85)], abs=0.01)
    optimal_index = SWEEP_RETENTIONS.index(round(p.sweep.optimal_retention, 2))
    assert _across(svg, "optimal") == pytest.approx(across[optimal_index], abs=0.01)


def test_a_mark_at_the_first_retention_stands_clear_of_the_axis(swept: Swept) -> None:
    """The optimum is often 0.70, the first retention: drawn on the panel's left edge,
    where the grid lines start, it could not be seen. It stands half a column in."""
    _, p = swept(0.7)
    svg = sweep_svg(p)
    assert _across(svg, "current") == pytest.approx(50 / len(SWEEP_RETENTIONS), abs=0.01)


def test_a_retention_between_two_steps_is_marked_where_it_lies(swept: Swept) -> None:
    _, p = swept(0.855)
    svg = sweep_svg(p)
    assert 'data-mark="current" data-retention="0.855"' in svg
    assert "current 0.855</text>" in svg


def test_a_what_if_retention_outside_the_sweep_has_no_mark(swept: Swept) -> None:
    _, p = swept(0.5)
    assert 'data-mark="current"' not in sweep_svg(p)
    assert 'data-mark="optimal"' in sweep_svg(p)


@pytest.fixture(params=[False, True], ids=["day", "night"])
def phone(request: pytest.FixtureRequest, browser: Any, page: Path) -> Iterator[Any]:
    context = Context(browser, viewport=PHONE)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(page.resolve().as_uri(), wait_until="load")
    if request.param:
        tab.click("#night")
    yield tab
    assert errors == []
    context.close()


@pytest.mark.browser
def test_sweep_chart_fits_a_phone_and_follows_night_mode(
    phone: Any, request: pytest.FixtureRequest
) -> None:
    box = phone.locator("svg.sweep").bounding_box()
    assert box is not None and box["width"] > 300
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    for series in ("minutes", "memorized"):
        n = phone.eval_on_selector(
            f'svg.sweep polyline[data-series="{series}"]', "e => e.points.numberOfItems"
        )
        assert n == len(SWEEP_RETENTIONS), series
    assert phone.locator("svg.sweep g.mark").count() == 4  # two marks on two panels
    night = "night" in (phone.get_attribute("body", "class") or "")
    assert night == (request.node.callspec.id == "night")
    # The charts take the page's colours: light text on a dark panel at night.
    colours = phone.eval_on_selector_all(
        "svg.chart text.title",
        "els => els.map(e => getComputedStyle(e).fill)",
    )
    assert len(set(colours)) == 1
    red, green, blue = (int(c) for c in re.findall(r"\d+", colours[0])[:3])
    assert (red + green + blue > 3 * 128) == night


# Every label of both charts, as drawn: its box against its chart's, and in the page.
_LABEL_BOXES = """els => els.map(t => {
  const own = t.getBoundingClientRect(), svg = t.closest('svg.chart');
  const chart = svg.getBoundingClientRect();
  return {text: t.textContent, chart: svg.getAttribute('class'),
          left: own.left - chart.left, right: chart.right - own.right,
          top: own.top - chart.top, bottom: chart.bottom - own.bottom, height: own.height,
          box: [own.left, own.top, own.right, own.bottom]};
})"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.browser
@pytest.mark.parametrize("retention", [0.99, 0.7, 0.75])
@pytest.mark.parametrize("width", [390, 1200])
def test_chart_labels_are_readable_inside_their_chart_and_apart(
    browser: Any, swept: Swept, tmp_path: Path, width: int, retention: float
) -> None:
    """Every label of every chart is at least 11 px tall at any width (a phone drew them
    at 7 to 8 px when the charts were scaled down whole); none runs past its chart or over
    another, even a mark at the last retention or the current retention at (or next to)
    the optimal one."""
    rd, p = swept(retention)  # the same page at both widths
    page = tmp_path / "edge.html"
    page.write_text(preview_page(rd, p), encoding="utf-8")
    context = Context(browser, viewport={"width": width, "height": 900})
    tab = context.new_page()
    tab.goto(page.resolve().as_uri(), wait_until="load")
    labels = tab.eval_on_selector_all("svg.chart text", _LABEL_BOXES)
    sizes = tab.eval_on_selector_all(
        "svg.chart text", "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"
    )
    context.close()
    assert len(labels) > 25 and any(label["text"] == f"current {retention:.2f}" for label in labels)
    assert min(sizes) >= 11
    for label in labels:
        assert label["height"] >= 11, label
        assert min(label["left"], label["right"], label["top"], label["bottom"]) >= 0, label
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            assert a["chart"] != b["chart"] or not _overlap(a["box"], b["box"]), (a, b)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.5, "0.5"), (5, "5"), (2500, "2500"), (5000, "5000"), (10000, "10k"), (25000, "25k"),
     (200000, "200k"), (5000000, "5000k"), (10000000, "10M"), (50000000, "50M")],
)  # fmt: skip
def test_axis_values_are_short(value: float, shown: str) -> None:
    """An axis value stays a few characters long beside the lines it labels."""
    assert axis_label(value) == shown
