"""Exam planning (issue 22): the fewest new cards a day that introduce the deck `lead`
days before the exam, and what that plan leaves remembered on exam day."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest

from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings
from deckbuilder.schedule.exam import exam_days, new_per_day_needed, plan_exam

from .conftest import Run

CliRun = Callable[..., Run]
START = date(2025, 1, 1)


def test_thousand_cards_in_59_days_need_20_a_day() -> None:
    exam = START + timedelta(days=58)
    assert exam_days(START, exam) == 59
    plan = plan_exam(1000, PreviewSettings(review_limit=None), START, exam, lead=7)
    assert plan.new_per_day_needed == 20
    assert plan.introduced_by == 50 and plan.in_time
    assert plan.forecast.days == 59 and len(plan.reviews_last_week) == 7


def test_one_fewer_a_day_is_too_few() -> None:
    settings = PreviewSettings(review_limit=None)
    needed = new_per_day_needed(1000, settings, 59, 7)
    assert needed == 20
    late = plan_exam(1000, settings, START, START + timedelta(days=58), 7, new_per_day=19)
    assert not late.in_time


def test_review_limit_can_make_more_new_cards_a_day_needed_or_impossible() -> None:
    free = new_per_day_needed(2000, PreviewSettings(review_limit=None), 120, 7)
    limited = new_per_day_needed(2000, PreviewSettings(review_limit=150), 120, 7)
    assert free is not None and limited is not None and limited > free
    assert new_per_day_needed(2000, PreviewSettings(review_limit=120), 120, 7) is None
    assert new_per_day_needed(100, PreviewSettings(), 5, 7) is None  # lead past the start


@pytest.mark.anki
def test_memorized_on_exam_day_agrees_with_ankis_simulator(collection: Any) -> None:
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    plan = plan_exam(1000, PreviewSettings(review_limit=None), START, START + timedelta(58), 7)
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


def test_preview_exam_impossible_is_said_plainly(cli: CliRun, project: Any) -> None:
    run = cli("preview", "cards/", "--exam", "2025-01-05", "--start", "2025-01-02")
    assert run.code == 0, run.err
    assert "Impossible: no number of new cards a day" in run.out
    assert "too few days before the exam" in run.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--exam", "2025-13-01"), "--exam: '2025-13-01' is not a date"),
        (("--exam", "2025-01-01", "--start", "2025-02-01"), "is before the first study day"),
        (("--start", "2025-01-01"), "--start: only with --exam"),
        (("--exam", "2025-03-01", "--lead", "-1"), "--lead: must be between 0"),
    ],
)
def test_preview_exam_bad_values(
    cli: CliRun, project: Any, args: tuple[str, ...], message: str
) -> None:
    run = cli("preview", "cards/", *args)
    assert run.code == 1
    assert message in run.err
