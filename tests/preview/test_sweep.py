"""The retention sweep (issue 22): the forecast at every retention Anki's workload graph
shows, checked against Anki's simulate_fsrs_workload, and the optimal retention checked
against fsrs-rs's optimal_retention and the least cost per card of Anki's own figures."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.model import StudySettings
from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings
from deckbuilder.schedule.sweep import OPTIMAL_RANGE, SWEEP_RETENTIONS, Sweep, sweep
from tests.conftest import Run
from tests.schedule.test_schedule import RANDOM_ORDER

CliRun = Callable[..., Run]


def test_sweep_covers_ankis_retentions_and_reviews_grow_with_retention() -> None:
    result = sweep(300, PreviewSettings(StudySettings(new_per_day=10, review_limit=None)), 365)
    assert [p.retention for p in result.points] == list(SWEEP_RETENTIONS)
    assert SWEEP_RETENTIONS[0] == 0.70 and SWEEP_RETENTIONS[-1] == 0.99
    reviews = [p.reviews for p in result.points]
    assert reviews == sorted(reviews)
    memorized = [p.memorized for p in result.points]
    assert memorized[-1] > memorized[0]


def test_optimal_retention_is_the_least_time_per_card_remembered() -> None:
    result = sweep(1000, PreviewSettings(StudySettings(new_per_day=20, review_limit=None)), 365)
    searched = [p for p in result.points if p.retention <= OPTIMAL_RANGE[1] + 1e-9]
    best = min(searched, key=lambda p: p.minutes_per_card)
    assert result.optimal_retention == pytest.approx(best.retention, abs=0.02)


def workload_request(cards: int, new_per_day: int, days: int = 365) -> Any:
    """Anki's workload simulation for ``cards`` new cards at ``new_per_day`` a day, with
    Anki's defaults."""
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    return SimulateFsrsReviewRequest(
        params=list(DEFAULT_PARAMETERS),
        desired_retention=0.9,
        deck_size=cards,
        days_to_simulate=days,
        new_limit=new_per_day,
        review_limit=9_999_999,
        max_interval=36500,
        search="cid:1",  # matches no card: the deck is deck_size new cards
        easy_days_percentages=[1.0] * 7,
        historical_retention=0.9,
        learning_step_count=2,
        relearning_step_count=1,
    )


@pytest.fixture(scope="module")
def anki_col(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Anki collection for the module: its simulations read none of its cards."""
    from anki.collection import Collection

    col = Collection(str(Path(tmp_path_factory.mktemp("anki")) / "collection.anki2"))
    yield col
    col.close()


@pytest.fixture(scope="module")
def ankis_default_run(anki_col: Any) -> Callable[[int, int], Any]:
    """Anki's workload figures (its default run) by deck size and new cards a day, each
    simulated once in the module: two tests compare with 10,000 cards at 100 a day."""

    @cache
    def run(cards: int, new_per_day: int) -> Any:
        return anki_col._backend.simulate_fsrs_workload(workload_request(cards, new_per_day))

    return run


@cache
def our_sweep(cards: int, new_per_day: int) -> Sweep:
    """The preview's sweep over a year with no review limit, computed once: two tests
    compare 10,000 cards at 100 a day."""
    return sweep(
        cards, PreviewSettings(StudySettings(new_per_day=new_per_day, review_limit=None)), 365
    )


@pytest.mark.anki
@pytest.mark.parametrize(("cards", "new_per_day"), [(10_000, 100), (3000, 30)])
def test_sweep_agrees_with_ankis_workload(
    anki_col: Any, ankis_default_run: Callable[[int, int], Any], cards: int, new_per_day: int
) -> None:
    """Each retention of Anki's graph is one random run; 1,000 cards draw reviews up to 8%
    from their expectation at some retentions, so larger decks are compared, and Anki's
    figures are the mean of its runs up to 20,000 simulated cards (its default run, then
    runs in random review order, which draw anew), as the forecast is compared with them."""
    request = workload_request(cards, new_per_day)
    request.review_order = RANDOM_ORDER
    runs = [ankis_default_run(cards, new_per_day)] + [
        anki_col._backend.simulate_fsrs_workload(request) for _ in range(-(-20_000 // cards) - 1)
    ]

    def anki(figure: str, percent: int) -> float:
        return sum(getattr(run, figure)[percent] for run in runs) / len(runs)

    ours = our_sweep(cards, new_per_day)
    for point in ours.points:
        percent = round(point.retention * 100)
        assert point.reviews == pytest.approx(anki("review_count", percent), rel=0.07), percent
        assert point.memorized == pytest.approx(anki("memorized", percent), rel=0.02), percent
        assert point.minutes * 60 == pytest.approx(anki("cost", percent), rel=0.07), percent


@pytest.mark.anki
def test_optimal_retention_is_ankis_least_cost_per_memorized(
    ankis_default_run: Callable[[int, int], Any],
) -> None:
    """fsrs-rs's target (seconds per card memorized at the end) on Anki's own workload
    figures has its least value where ours is found."""
    anki = ankis_default_run(10_000, 100)
    least = min(range(70, 96), key=lambda r: anki.cost[r] / anki.memorized[r]) / 100
    ours = our_sweep(10_000, 100)
    assert ours.optimal_retention == pytest.approx(least, abs=0.02 + 1e-9)


@pytest.mark.anki
def test_ankis_compute_optimal_retention_answers_the_same_whatever_the_workload(
    anki_col: Any,
) -> None:
    """Anki 26.9.3's compute_optimal_retention answers 0.9367321 for every fresh workload,
    however fully the request is filled (measured: deck sizes 300 to 10,000, 30 to 3,650
    days, review limits, parameters, review orders, easy days). Anki builds the new cards
    with the request's desired retention on each card, and fsrs-rs simulates a card at its
    own retention, so the retention the search tries never reaches the simulation: the
    target is constant and Brent's method walks to where it stops. The preview's optimum
    is checked against Anki's workload figures and fsrs-rs's own search instead."""
    request = workload_request(1000, 20)
    request.new_cards_ignore_review_limit = False
    request.suspend_after_lapse_count = 8
    anki = anki_col._backend.compute_optimal_retention(request)
    assert anki == pytest.approx(0.9367321, abs=1e-6)
    request.deck_size, request.days_to_simulate, request.review_limit = 300, 60, 50
    assert anki_col._backend.compute_optimal_retention(request) == pytest.approx(anki)


def _fsrs_rs_cards(fsrs_rs: Any, cards: int, per_day: int, retention: float) -> list[Any]:
    """New cards as Anki's simulate_request_to_config builds them: each with its own
    desired retention."""
    out = []
    for i in range(cards):
        card = fsrs_rs.Card()
        card.id, card.difficulty, card.stability = -i, float("-inf"), 1e-8
        card.last_date, card.due, card.interval = float("-inf"), float(i // per_day), float("-inf")
        card.lapses, card.desired_retention = 0, retention
        card.parameters = list(DEFAULT_PARAMETERS)
        out.append(card)
    return out


def test_fsrs_rs_optimal_retention_agrees_and_ignores_it_when_cards_carry_one() -> None:
    """fsrs-rs's own search (the reference Anki calls) finds the same optimum as ours for
    1,000 cards at 20 a day; handed cards that carry a retention, as Anki hands them, it
    answers the same whatever retention they carry (the end of its search on a constant
    target)."""
    fsrs_rs = pytest.importorskip("fsrs_rs_python")
    config = fsrs_rs.default_simulator_config()
    config.deck_size, config.learn_limit, config.learn_span = 1000, 20, 365
    w = list(DEFAULT_PARAMETERS)
    reference = fsrs_rs.optimal_retention(config, w)
    ours = sweep(1000, PreviewSettings(StudySettings(new_per_day=20, review_limit=None)), 365)
    assert ours.optimal_retention == pytest.approx(reference, abs=0.02 + 1e-9)
    answers = [
        fsrs_rs.optimal_retention(config, w, _fsrs_rs_cards(fsrs_rs, 1000, 20, carried))
        for carried in (0.8, 0.9)
    ]
    assert answers[0] == pytest.approx(answers[1], abs=1e-6)
    assert answers[0] == pytest.approx(0.93673, abs=1e-4)


def test_preview_sweep_json_and_text(cli: CliRun, project: Any) -> None:
    run = cli("preview", "cards/", "--sweep", "--json", "--days", "60")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [p["retention"] for p in data["sweep"]] == list(SWEEP_RETENTIONS)
    assert set(data["sweep"][0]) == {"retention", "reviews", "minutes", "memorized"}
    assert OPTIMAL_RANGE[0] <= data["optimal_retention"] <= OPTIMAL_RANGE[1]
    text = cli("preview", "cards/", "--sweep", "--days", "60")
    assert text.code == 0
    assert "Retention sweep:" in text.out and "<- current" in text.out
    assert "Optimal retention 0.70: the least study time per card remembered" in text.out


@pytest.mark.parametrize("limit", ["--new-per-day", "--review-limit"])
def test_a_sweep_where_no_card_is_studied_names_no_optimal_retention(
    cli: CliRun, project: Any, tmp_path: Path, limit: str
) -> None:
    """With no new cards a day (or no reviews, which new cards share), no retention
    remembers a card: the report named 0.70 "the least study time per card remembered",
    and "a lower one may cost even less", of 0.0 minutes for 0.0 cards."""
    args = ("preview", "cards/", "--lang", "en", "--sweep", limit, "0", "--days", "30")
    run = cli(*args, "--json", "--html-out", tmp_path / "p.html", "--plot", tmp_path / "p.svg")
    assert run.code == 0, run.err
    assert json.loads(run.out)["optimal_retention"] is None
    assert 'data-mark="optimal"' not in (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "sweep-optimal" not in (tmp_path / "p.svg").read_text(encoding="utf-8")
    text = cli(*args).out
    assert "Optimal retention" not in text and "<- optimal" not in text
    assert "No optimal retention: no card is remembered on day 30 at any retention" in text


def test_preview_without_questions_has_no_sweep(cli: CliRun, project: Any) -> None:
    data = json.loads(cli("preview", "cards/", "--json", "--days", "30").out)
    assert "sweep" not in data and "exam" not in data
    assert data["parameters_from"] == {"defaults": True}


def test_a_retention_between_two_steps_marks_the_nearest_row(cli: CliRun, project: Any) -> None:
    run = cli("preview", "cards/", "--sweep", "--retention", "0.955", "--days", "30")
    assert run.code == 0, run.err
    marked = [line for line in run.out.splitlines() if "nearest to the current 0.955" in line]
    assert len(marked) == 1 and marked[0].split()[0] in ("0.95", "0.96")
    outside = cli("preview", "cards/", "--sweep", "--retention", "0.5", "--days", "30")
    assert "current" not in outside.out.split("Retention sweep:")[1]


def test_a_sweep_is_one_run_of_ten_thousand_cards_per_retention(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Thirty-odd forecasts of 10,000 simulated cards each made the sweep of a 21-card
    deck take 10 seconds; the sweep is one run of every retention, a small deck in about
    10,000 simulated cards per retention, a large deck whole."""
    from deckbuilder.schedule import sweep as sweeping
    from deckbuilder.schedule.sweep import MIN_SWEEP_CARDS

    runs: list[tuple[int, int]] = []
    real = sweeping.simulate

    def counting(cards: int, copies: int, *rest: Any, **named: Any) -> Any:
        retentions = named.get("retentions", rest[3] if len(rest) > 3 else None)
        runs.append((cards * copies, len(retentions)))
        return real(cards, copies, *rest, **named)

    monkeypatch.setattr(sweeping, "simulate", counting)
    sweep(21, PreviewSettings(StudySettings(new_per_day=10, review_limit=None)), 30)
    assert len(runs) == 1 and MIN_SWEEP_CARDS <= runs[0][0] < MIN_SWEEP_CARDS + 21
    assert runs[0][1] == len(SWEEP_RETENTIONS)
    runs.clear()
    sweep(12_000, PreviewSettings(StudySettings(new_per_day=100, review_limit=None)), 2)
    assert runs == [(12_000, len(SWEEP_RETENTIONS))]


def test_reviews_and_memorized_grow_with_retention_for_a_small_deck() -> None:
    """Simulated in one run, each retention drawing its own random numbers, the curve
    zigzagged: a higher retention could show fewer reviews. The same card draws the same
    numbers at every retention, so the curve rises as the workload does."""
    result = sweep(21, PreviewSettings(StudySettings(new_per_day=10, review_limit=100)), 365)
    reviews = [p.reviews for p in result.points]
    memorized = [p.memorized for p in result.points]
    assert reviews == sorted(reviews) and memorized == sorted(memorized)


# -- the words of the sweep (issue 44) -----------------------------------------------------
def _swept(optimal: float, current: float, **at_current: float) -> Sweep:
    """A sweep whose points are 0.70..0.99, with ``at_current`` figures at ``current``."""
    from deckbuilder.schedule.sweep import SweepPoint

    points = tuple(
        SweepPoint(r, **at_current)
        if abs(r - current) < 1e-9
        else SweepPoint(r, reviews=100 * r, minutes=50 * r, memorized=20 * r)
        for r in SWEEP_RETENTIONS
    )
    return Sweep(points, optimal, current, 10_000)


def _forecast_of(cards: int) -> tuple[Any, Any]:
    from deckbuilder.schedule import forecast, summarize

    fc = forecast(
        cards, PreviewSettings(StudySettings(new_per_day=10, review_limit=None)), 365, seed=42
    ).as_shown()
    return fc, summarize(fc)


def test_chance_is_named_only_for_figures_that_differ() -> None:
    """Issue 44: a footnote about chance for a difference of zero ("186.3 against 186.3")."""
    from deckbuilder.preview.plan_report import sweep_agreement
    from deckbuilder.schedule.workload import shown

    fc, summary = _forecast_of(21)
    same = {
        "reviews": summary.whole.total_reviews + shown(sum(fc.new)),
        "minutes": summary.whole.total_minutes,
        "memorized": summary.memorized_end,
    }
    (line,) = sweep_agreement(_swept(0.85, 0.90, **same), summary, fc, 10)
    assert "chance" not in line and "against" not in line
    (line,) = sweep_agreement(_swept(0.85, 0.90, **{**same, "memorized": 1.0}), summary, fc, 10)
    assert (
        f"The difference in cards memorized (1.0 against {shown(summary.memorized_end):.1f}) is chance"
        in line
    )
    assert "minutes (" not in line and "reviews (" not in line


def test_an_optimum_at_the_edge_of_the_range_is_said_plainly_with_its_cost() -> None:
    """Issue 44: it recommended 0.70 without saying that it sits at the edge of the
    range searched, or what it costs (cards memorized 45.6 -> 40.0)."""
    from deckbuilder.preview.plan_report import recommendation

    current = {"reviews": 300.0, "minutes": 186.3, "memorized": 45.6}
    lines = recommendation(_swept(0.70, 0.90, **current), 365)
    assert lines == [
        "Optimal retention 0.70: the least study time per card remembered.",
        "0.70 is the lowest retention searched (0.70 to 0.95, the range Anki's optimizer "
        "searches), so a lower one may cost even less per card remembered.",
        "At 0.70, 14.0 cards are memorized on day 365 instead of 45.6 at the current 0.90, "
        "for 35.0 study minutes instead of 186.3.",
    ]
    inside = recommendation(_swept(0.85, 0.90, **current), 365)
    assert len(inside) == 2 and "searched" not in " ".join(inside)
    assert "highest retention searched" in recommendation(_swept(0.95, 0.90, **current), 365)[1]
    assert recommendation(_swept(0.90, 0.90, **current), 365) == [
        "Optimal retention 0.90: the least study time per card remembered."
    ]


def test_the_text_ladder_says_why_its_rows_differ_in_length(cli: CliRun, project: Any) -> None:
    """Issue 44: rows of different lengths, and nothing said why."""
    run = cli("preview", "cards/", "--days", "30")
    assert "  Each row ends with the first interval that reaches day 30, or at 12 intervals.\n" in (
        run.out
    )
