"""Exam planning (issue 22): the fewest new cards a day that introduce the deck `lead`
days before the exam, and what that plan leaves remembered on exam day."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest

from deckbuilder.model import StudySettings
from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings
from deckbuilder.schedule.exam import exam_days, new_per_day_needed, plan_exam
from tests.conftest import Run

CliRun = Callable[..., Run]
START = date(2025, 1, 1)


def test_thousand_cards_in_59_days_need_20_a_day() -> None:
    exam = START + timedelta(days=58)
    assert exam_days(START, exam) == 59
    plan = plan_exam(1000, PreviewSettings(StudySettings(review_limit=None)), START, exam, lead=7)
    assert plan.new_per_day_needed == 20
    assert plan.introduced_by == 50 and plan.in_time
    assert plan.forecast.days == 59 and len(plan.reviews_last_week) == 7


def test_one_fewer_a_day_is_too_few() -> None:
    settings = PreviewSettings(StudySettings(review_limit=None))
    needed = new_per_day_needed(1000, settings, 59, 7)
    assert needed == 20
    late = plan_exam(1000, settings, START, START + timedelta(days=58), 7, new_per_day=19)
    assert not late.in_time


def test_review_limit_can_make_more_new_cards_a_day_needed_or_impossible() -> None:
    free = new_per_day_needed(2000, PreviewSettings(StudySettings(review_limit=None)), 120, 7)
    limited = new_per_day_needed(2000, PreviewSettings(StudySettings(review_limit=150)), 120, 7)
    assert free is not None and limited is not None and limited > free
    assert (
        new_per_day_needed(2000, PreviewSettings(StudySettings(review_limit=120)), 120, 7) is None
    )
    assert new_per_day_needed(100, PreviewSettings(), 5, 7) is None  # lead past the start


@pytest.mark.anki
def test_memorized_on_exam_day_agrees_with_ankis_simulator(collection: Any) -> None:
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    plan = plan_exam(
        1000, PreviewSettings(StudySettings(review_limit=None)), START, START + timedelta(58), 7
    )
    request = SimulateFsrsReviewRequest(
        params=list(DEFAULT_PARAMETERS),
        desired_retention=0.9,
        deck_size=1000,
        days_to_simulate=59,
        new_limit=plan.new_per_day,
        review_limit=9_999_999,
        max_interval=36500,
        search="cid:1",
        easy_days_percentages=[1.0] * 7,
        historical_retention=0.9,
        learning_step_count=2,
        relearning_step_count=1,
    )
    anki = collection._backend.simulate_fsrs_review(request)
    assert plan.new_per_day == 20
    assert plan.memorized_on_exam == pytest.approx(
        anki.accumulated_knowledge_acquisition[-1], rel=0.03
    )


def test_preview_exam_json(cli: CliRun, project: Any) -> None:
    run = cli("preview", "cards/", "--exam", "2025-03-01", "--start", "2025-01-02", "--json")
    assert run.code == 0, run.err
    exam = json.loads(run.out)["exam"]
    assert exam["date"] == "2025-03-01" and exam["days"] == 59
    assert exam["new_per_day_needed"] == 1
    assert len(exam["reviews_last_week"]) == 7
    assert 0 < exam["memorized_on_exam"] <= json.loads(run.out)["cards"]
    # The forecast to exam day with the plan's new cards a day, day by day.
    forecast = exam["forecast"]
    for series in ("reviews", "new", "minutes", "memorized"):
        assert len(forecast[series]) == 59, series
    assert forecast["new"][:3] == [1.0, 1.0, 1.0]  # the plan's 1 a day, not the deck's 10
    assert forecast["memorized"][-1] == exam["memorized_on_exam"]
    assert forecast["reviews"][-7:] == exam["reviews_last_week"]
    assert exam["summary"]["days"] == 59


def test_preview_exam_text_shows_the_forecast_to_exam_day(cli: CliRun, project: Any) -> None:
    """The chart and summary are those of the plan: 1 new card a day over the 59 days
    to the exam, not the deck's 10 a day over 365 days."""
    run = cli("preview", "cards/", "--exam", "2025-03-01", "--start", "2025-01-02")
    assert run.code == 0, run.err
    assert "1 new/day, review limit 100/day, 59 days to the exam" in run.out
    assert "Forecast to the exam, day 1 (2025-01-02) to day 59 (2025-03-01), 1 new/day" in run.out
    assert "in all 59 days" in run.out and "365 days" not in run.out
    assert "all cards introduced  by day 21" in run.out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--exam", "2026-03-01", "--start", "2026-02-27"),
            "every card 7 days before the exam means before the first study day, 2026-02-27; "
            "a lead of at most 2 days (--lead), or an exam on 2026-03-06 or later, makes it "
            "possible",
        ),
        (  # the exam tomorrow: one day of lead at most
            ("--exam", "2026-03-01", "--start", "2026-02-28"),
            "a lead of at most 1 day (--lead), or an exam on 2026-03-07 or later",
        ),
        (
            ("--exam", "2026-03-01", "--start", "2026-01-01", "--lead", "70"),
            "a lead of at most 59 days (--lead), or an exam on 2026-03-12 or later",
        ),
        (
            ("--exam", "2026-03-01", "--start", "2026-01-01", "--review-limit", "0"),
            "the review limit leaves too few new cards a day to introduce every card 7 days "
            "before the exam; a higher review limit (--review-limit) makes it possible",
        ),
    ],
)
def test_preview_exam_impossible_says_why_and_what_would_do(
    cli: CliRun, project: Any, args: tuple[str, ...], says: str
) -> None:
    run = cli("preview", "cards/", *args)
    assert run.code == 0, run.err
    (said,) = [line for line in run.out.splitlines() if line.startswith("  Impossible: ")]
    assert says in said
    assert "introduced by day 0" not in run.out and "by day -" not in run.out
    assert "new/day instead:" in run.out  # the forecast is not the plan
    assert "new cards a day needed" not in run.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--exam", "2025-13-01"), "--exam: '2025-13-01' is not a date"),
        (("--exam", "2025-01-01", "--start", "2025-02-01"), "is before the first study day"),
        (("--start", "2025-01-01"), "--start: only with --exam"),
        (("--lead", "7"), "--lead: only with --exam"),  # the default, but given
        (("--exam", "2025-03-01", "--lead", "-1"), "--lead: must be between 0"),
    ],
)
def test_preview_exam_bad_values(
    cli: CliRun, project: Any, args: tuple[str, ...], message: str
) -> None:
    run = cli("preview", "cards/", *args)
    assert run.code == 1
    assert message in run.err
