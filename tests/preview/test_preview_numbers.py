"""The preview's numbers agree wherever they are shown (issue 21): each day is rounded once,
totals are the sums of the days as shown, peaks are days as shown, and the text report,
the build line, ``--json``, the page's summary and both charts name the same peak day
and value. Peak minutes a day and the first two weeks' load are part of every summary."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from html import unescape
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckbuilder.preview.report import sparkline, summary_line, summary_rows
from deckbuilder.schedule import Forecast, summarize
from tests.conftest import Run

CliRun = Callable[..., Run]
SVG = "{http://www.w3.org/2000/svg}"


def numbers(value: Any) -> list[float]:
    """Every number in a JSON value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, (int, float)):
        return [value]
    items = value.values() if isinstance(value, dict) else value
    return [n for item in items for n in numbers(item)]


def peak_of(days: Sequence[float], first_day: int = 1) -> tuple[float, int]:
    top = max(days)
    return top, (days.index(top) + first_day if top > 0 else 0)


def assert_summary_agrees_with_days(data: dict[str, Any]) -> None:
    fc, sm = data["forecast"], data["summary"]
    reviews, minutes = fc["reviews"], fc["minutes"]
    assert sm["total_reviews"] == round(sum(reviews), 1)
    assert sm["total_minutes"] == round(sum(minutes), 1)
    assert (sm["peak_reviews_per_day"], sm["peak_day"]) == peak_of(reviews)
    assert (sm["peak_minutes_per_day"], sm["peak_minutes_day"]) == peak_of(minutes)
    assert sm["average_reviews_per_day"] == round(sm["total_reviews"] / sm["days"], 1)
    assert sm["average_minutes_per_day"] == round(sm["total_minutes"] / sm["days"], 1)
    assert sm["memorized_at_end"] == fc["memorized"][-1]
    first = sm["first_two_weeks"]
    last = min(14, sm["days"])
    assert (first["first_day"], first["last_day"]) == (1, last)
    assert first["total_reviews"] == round(sum(reviews[:last]), 1)
    assert first["total_minutes"] == round(sum(minutes[:last]), 1)
    assert first["average_reviews_per_day"] == round(first["total_reviews"] / last, 1)
    assert first["average_minutes_per_day"] == round(first["total_minutes"] / last, 1)
    assert (first["peak_reviews_per_day"], first["peak_day"]) == peak_of(reviews[:last])
    assert (first["peak_minutes_per_day"], first["peak_minutes_day"]) == peak_of(minutes[:last])
    # One rounding: every figure, of a day or of the summary, has one decimal at most.
    for n in numbers(fc) + numbers(sm):
        assert round(n, 1) == n


def mark_of(day_index: int, days: int, width: int) -> int:
    """The sparkline mark that covers a day (0-based): mark i covers days
    i*days//width up to (i+1)*days//width."""
    return next(i for i in range(width) if i * days // width <= day_index < (i + 1) * days // width)


def text_summary(out: str) -> dict[str, str]:
    """The figures of the text report's summary and of its chart's notes."""
    patterns = {
        "reviews": r"^  reviews a day {9}peak (?P<peak>\S+) on day (?P<day>\d+); "
        r"average (?P<first>\S+) in days 1-(?P<last>\d+), (?P<average>\S+) in all \d+ days$",
        "minutes": r"^  minutes a day {9}peak (?P<peak>\S+) on day (?P<day>\d+); "
        r"average (?P<first>\S+) in days 1-(?P<last>\d+), (?P<average>\S+) in all \d+ days$",
        "total": r"^  total {17}(?P<reviews>\S+) reviews, (?P<minutes>\S+) minutes in \d+ days$",
        "memorized": r"^  memorized at the end  (?P<end>\S+) of \d+ cards on day \d+$",
        "chart reviews": r"^  reviews a day +\|.*\| peak (?P<peak>\S+) on day (?P<day>\d+)$",
        "chart minutes": r"^  minutes a day +\|.*\| peak (?P<peak>\S+) on day (?P<day>\d+)$",
    }
    found = {}
    for name, pattern in patterns.items():
        match = re.search(pattern, out, re.M)
        assert match is not None, (name, out)
        found.update({f"{name} {key}": value for key, value in match.groupdict().items()})
    return found


def expected_text(sm: dict[str, Any]) -> dict[str, str]:
    first = sm["first_two_weeks"]
    expected = {
        "reviews peak": f"{sm['peak_reviews_per_day']:.1f}",
        "reviews day": str(sm["peak_day"]),
        "reviews first": f"{first['average_reviews_per_day']:.1f}",
        "reviews last": str(first["last_day"]),
        "reviews average": f"{sm['average_reviews_per_day']:.1f}",
        "minutes peak": f"{sm['peak_minutes_per_day']:.1f}",
        "minutes day": str(sm["peak_minutes_day"]),
        "minutes first": f"{first['average_minutes_per_day']:.1f}",
        "minutes last": str(first["last_day"]),
        "minutes average": f"{sm['average_minutes_per_day']:.1f}",
        "total reviews": f"{sm['total_reviews']:.1f}",
        "total minutes": f"{sm['total_minutes']:.1f}",
        "memorized end": f"{sm['memorized_at_end']:.1f}",
    }
    for name in ("reviews", "minutes"):
        expected[f"chart {name} peak"] = expected[f"{name} peak"]
        expected[f"chart {name} day"] = expected[f"{name} day"]
    return expected


@pytest.fixture
def busy_deck(tmp_path: Path) -> Path:
    """600 cards, 50 new a day under a review limit of 150: the limit holds new cards
    back on some days, so a day's figures are averages with decimals."""
    notes = "".join(f"  - {{id: n{i}, front: 'q {i}', back: 'a {i}'}}\n" for i in range(600))
    path = tmp_path / "busy.yaml"
    path.write_text(
        f"deck: Busy\nid: busy\nstudy: {{new_per_day: 50, review_limit: 150}}\nnotes:\n{notes}",
        encoding="utf-8",
    )
    return path


RUNS = [
    pytest.param(["--lang", "en"], id="bundled-365-days"),
    pytest.param(["--lang", "en", "--days", "10"], id="bundled-shorter-than-two-weeks"),
    pytest.param(["--lang", "en", "--new-per-day", "5", "--retention", "0.97"], id="what-if"),
    pytest.param(["busy.yaml", "--days", "120"], id="review-limited"),
]


@pytest.mark.parametrize("args", RUNS)
def test_json_totals_peaks_and_averages_are_those_of_the_days_shown(
    project: Path, cli: CliRun, busy_deck: Path, args: list[str]
) -> None:
    if "busy.yaml" in args:
        args = [str(busy_deck), *args[1:]]
    result = cli("preview", "--json", *args)
    assert result.code == 0, result.err
    assert_summary_agrees_with_days(json.loads(result.out))


@pytest.mark.parametrize("args", RUNS)
def test_text_report_shows_the_json_figures(
    project: Path, cli: CliRun, busy_deck: Path, args: list[str]
) -> None:
    if "busy.yaml" in args:
        args = [str(busy_deck), *args[1:]]
    summary = json.loads(cli("preview", "--json", *args).out)["summary"]
    assert text_summary(cli("preview", *args).out) == expected_text(summary)


def test_the_reported_case_peak_minutes_far_above_the_average(busy_deck: Path, cli: CliRun) -> None:
    """A deck whose year-long average hides a heavy start: the summary says how heavy,
    and when."""
    sm = json.loads(cli("preview", busy_deck, "--json").out)["summary"]
    first = sm["first_two_weeks"]
    assert first["average_minutes_per_day"] > 3 * sm["average_minutes_per_day"]
    assert sm["peak_minutes_per_day"] > 3 * sm["average_minutes_per_day"]
    assert 1 <= sm["peak_minutes_day"] <= sm["days"]


def test_build_line_and_build_json_have_the_preview_summary(project: Path, cli: CliRun) -> None:
    preview = json.loads(cli("preview", "--json", "--lang", "en").out)["summary"]
    built = json.loads(cli("build", "--json", "--lang", "en").out)
    assert built["decks"][0]["preview"] == preview
    (line,) = [x for x in cli("build", "--lang", "en").out.splitlines() if x.startswith("preview")]
    first = preview["first_two_weeks"]
    assert (
        f"peak {preview['peak_reviews_per_day']:.1f} reviews a day (day {preview['peak_day']}), "
        f"{preview['peak_minutes_per_day']:.1f} minutes a day (day {preview['peak_minutes_day']})"
    ) in line
    assert (
        f"days 1-14: {first['average_reviews_per_day']:.1f} reviews, "
        f"{first['average_minutes_per_day']:.1f} minutes a day on average"
    ) in line
    assert f"{preview['average_minutes_per_day']:.1f} minutes a day over 365 days" in line


def test_page_summary_and_chart_agree_with_the_json(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--json", "--lang", "en", "--html-out", "page.html")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    sm = data["summary"]
    raw = (project / "page.html").read_text(encoding="utf-8")
    page = unescape(raw)
    # The page's summary is the text report's, row for row.
    report = cli("preview", "--lang", "en").out
    summary_block = report.split("\nSummary\n", 1)[1]
    rows = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page))
    for line in summary_block.splitlines():
        label, _, value = line.strip().partition("  ")
        if value:
            assert rows[label[0].upper() + label[1:]] == value.strip(), label
        else:
            assert f">{label}</p>" in page  # the notes: what memorized means, the rounding
    svg_text = re.search(r'<div class="chart-box">\s*(<svg .*?</svg>)\s*</div>', raw, re.S)
    assert svg_text is not None
    svg = ElementTree.fromstring(svg_text.group(1))
    peaks = {g.get("data-series"): g for g in svg.iter(f"{SVG}g") if g.get("class") == "peak"}
    assert set(peaks) == {"reviews", "minutes"}
    days = int(svg.get("data-days", "0"))
    plots = [inner for inner in svg.iter(f"{SVG}svg") if inner.get("class") == "plot"]
    for series, value, day in (
        ("reviews", sm["peak_reviews_per_day"], sm["peak_day"]),
        ("minutes", sm["peak_minutes_per_day"], sm["peak_minutes_day"]),
    ):
        mark = peaks[series]
        assert (mark.get("data-day"), mark.get("data-value")) == (str(day), f"{value:.1f}")
        assert mark.findtext(f"{SVG}text") == f"peak {value:.1f} {series} on day {day}"
        # The dot sits on the line: the line's point of that day, in the plot that holds it.
        plot = next(
            p for p in plots if p.find(f"{SVG}polyline[@data-series='{series}']") is not None
        )
        line = plot.find(f"{SVG}polyline[@data-series='{series}']")
        assert line is not None
        x, y = (float(v) for v in line.get("points", "").split()[day - 1].split(","))
        circle = mark.find(f"{SVG}circle")
        assert circle is not None
        assert float(circle.get("cx", "").rstrip("%")) == pytest.approx(100 * x / days, abs=1e-3)
        assert float(circle.get("cy", "")) == pytest.approx(float(plot.get("y", "")) + y, abs=0.01)


def test_plot_marks_the_summary_peaks(project: Path, cli: CliRun) -> None:
    sm = json.loads(cli("preview", "--json", "--lang", "en").out)["summary"]
    assert cli("preview", "--lang", "en", "--plot", "chart.svg").code == 0
    svg = (project / "chart.svg").read_text(encoding="utf-8")
    # matplotlib keeps each text as a comment beside its glyph outlines.
    assert f"<!-- peak {sm['peak_reviews_per_day']:.1f} reviews on day {sm['peak_day']} -->" in svg
    assert (
        f"<!-- peak {sm['peak_minutes_per_day']:.1f} minutes on day {sm['peak_minutes_day']} -->"
        in svg
    )
    assert "memorized: cards expected to be recalled if asked that day" in svg


def test_sparkline_never_averages_the_peak_away() -> None:
    """A one-day spike among quiet days is a full mark, the height the summary's peak
    names (averaging a mark's days drew it at a fraction of that)."""
    days = [1.0] * 365
    days[200] = 27.0
    line = sparkline(days, width=60)
    assert line.count("█") == 1
    assert line.index("█") == mark_of(200, 365, 60)
    assert set(line) - {"█"} == {"▁"}
    assert sparkline(days, width=60, top=27.0)[mark_of(200, 365, 60)] == "█"


def test_report_chart_mark_of_the_peak_day_is_full(project: Path, cli: CliRun) -> None:
    data = json.loads(cli("preview", "--json", "--lang", "en").out)
    report = cli("preview", "--lang", "en").out
    days = data["summary"]["days"]
    for label, day in (
        ("reviews a day", data["summary"]["peak_day"]),
        ("minutes a day", data["summary"]["peak_minutes_day"]),
    ):
        match = re.search(rf"^  {label} +\|(.*)\|", report, re.M)
        assert match is not None
        marks = match.group(1)
        assert marks[mark_of(day - 1, days, len(marks))] == "█", label


figures = st.floats(min_value=0, max_value=500, allow_nan=False)


@given(
    st.integers(min_value=1, max_value=40).flatmap(
        lambda n: st.tuples(*(st.lists(figures, min_size=n, max_size=n) for _ in range(4)))
    )
)
def test_any_forecast_summary_is_made_of_its_days_as_shown(
    series: tuple[list[float], list[float], list[float], list[float]],
) -> None:
    reviews, new, minutes, memorized = series
    fc = Forecast(1000, tuple(reviews), tuple(new), tuple(minutes), tuple(memorized))
    data = {"forecast": fc.as_dict(), "summary": summarize(fc).as_dict()}
    assert_summary_agrees_with_days(data)


def test_a_day_without_reviews_names_no_peak_day() -> None:
    """Day 1 of a new deck has new cards and minutes but no reviews: no "day 0" peak."""
    sm = summarize(Forecast(3, (0.0,), (3.0,), (1.24,), (3.0,)))
    line = summary_line(sm)
    assert "reviews a day (day" not in line
    assert "peak 1.2 minutes a day (day 1)" in line
    assert "day 1: 0.0 reviews, 1.2 minutes a day on average" in line
    assert dict(summary_rows(sm))["reviews a day"].startswith("no peak;")


def test_an_average_that_rounds_to_nothing_is_not_told_as_none() -> None:
    """`init`'s four-card deck was "0.0 minutes a day over 365 days" while its days add
    up to 10.2 minutes: an average under 0.05 is "under 0.1", and none is still 0.0."""
    days = 365
    minutes = (2.5, 2.0, 1.0, 0.1, 0.1) + (0.0,) * 360  # 5.7 minutes, 0.016 a day
    sm = summarize(Forecast(4, (1.0,) * days, (4.0,) + (0.0,) * 364, minutes, (3.8,) * days))
    assert "under 0.1 minutes a day over 365 days" in summary_line(sm)
    assert dict(summary_rows(sm))["minutes a day"].endswith("under 0.1 in all 365 days")
    idle = summarize(Forecast(4, (0.0,) * days, (0.0,) * days, (0.0,) * days, (0.0,) * days))
    assert "; 0.0 minutes a day over 365 days" in summary_line(idle)
