"""The FSRS ladder (against py-fsrs) and the workload forecast (against Anki's simulator)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from deckbuilder import deck_options
from deckbuilder.deck_options import ParameterSyntaxError
from deckbuilder.model import StudyOverrides, StudySettings
from deckbuilder.schedule import (
    DEFAULT_PARAMETERS,
    LOWER_BOUNDS,
    UPPER_BOUNDS,
    PreviewSettings,
    ReviewBehaviour,
    forecast,
    ladder,
    parse_parameters,
    summarize,
)

# --- ladder -----------------------------------------------------------------------------


def py_fsrs_intervals(
    first: int, then: int, count: int, retention: float = 0.9, maximum: int = 36500
) -> list[int]:
    """Intervals from py-fsrs directly: a new card, no learning steps, fuzz off."""
    from fsrs import Card, Rating, Scheduler

    scheduler = Scheduler(
        desired_retention=retention,
        learning_steps=(),
        relearning_steps=(),
        maximum_interval=maximum,
        enable_fuzzing=False,
    )
    now = datetime(2024, 3, 1, 12, tzinfo=timezone.utc)
    card = Card()
    out = []
    rating = Rating(first)
    for _ in range(count):
        card, _ = scheduler.review_card(card, rating, now)
        out.append((card.due - now).days)
        now, rating = card.due, Rating(then)
    return out


def test_all_good_ladder_is_the_documented_fsrs_ladder() -> None:
    """py-fsrs with default parameters, fuzz off, no learning steps: 2, 11, 46, 163, 497."""
    assert ladder(PreviewSettings(), horizon=365).good == (2, 11, 46, 163, 497)


def test_first_intervals_are_the_initial_stabilities_at_90_percent() -> None:
    """At retention 0.9 an interval equals the stability (R(S) = 0.9 by definition), so the
    first interval after rating r is round(w[r-1]), at least one day."""
    lad = ladder(PreviewSettings(), horizon=365)
    w = DEFAULT_PARAMETERS
    assert lad.again_good[0] == max(1, round(w[0]))
    assert lad.hard[0] == round(w[1])
    assert lad.good[0] == round(w[2])
    assert lad.easy[0] == round(w[3])


@pytest.mark.parametrize("retention", [0.8, 0.9, 0.95])
@pytest.mark.parametrize("maximum", [36500, 100])
def test_ladder_equals_py_fsrs(retention: float, maximum: int) -> None:
    lad = ladder(
        PreviewSettings(StudySettings(desired_retention=retention, maximum_interval=maximum)),
        horizon=10_000,
        max_steps=8,
    )
    assert list(lad.good) == py_fsrs_intervals(3, 3, len(lad.good), retention, maximum)
    assert list(lad.hard) == py_fsrs_intervals(2, 2, len(lad.hard), retention, maximum)
    assert list(lad.easy) == py_fsrs_intervals(4, 4, len(lad.easy), retention, maximum)
    assert list(lad.again_good) == py_fsrs_intervals(1, 3, len(lad.again_good), retention, maximum)
    assert max(lad.good + lad.easy) <= maximum


def test_ladder_stops_at_the_first_interval_past_the_horizon() -> None:
    lad = ladder(PreviewSettings(), horizon=100)
    for pattern in (lad.good, lad.hard, lad.easy, lad.again_good):
        total = sum(pattern)
        assert total >= 100 or len(pattern) == 12
        assert sum(pattern[:-1]) < 100


def test_lower_retention_gives_longer_intervals() -> None:
    low = ladder(PreviewSettings(StudySettings(desired_retention=0.8)), horizon=365).good
    high = ladder(PreviewSettings(StudySettings(desired_retention=0.95)), horizon=365).good
    assert all(a > b for a, b in zip(low[1:], high[1:], strict=False))


# --- forecast: exact properties -----------------------------------------------------------


def test_forecast_is_deterministic_for_a_seed() -> None:
    settings = PreviewSettings(StudySettings(new_per_day=10, review_limit=None))
    assert forecast(200, settings, 120, seed=7) == forecast(200, settings, 120, seed=7)
    assert forecast(200, settings, 120, seed=7) != forecast(200, settings, 120, seed=8)


def test_new_cards_follow_the_daily_limit() -> None:
    fc = forecast(45, PreviewSettings(StudySettings(new_per_day=20, review_limit=None)), 10)
    assert fc.new == (20, 20, 5, 0, 0, 0, 0, 0, 0, 0)
    assert summarize(fc).introduced_by == 3
    assert fc.memorized[0] == pytest.approx(20)  # just learned: recalled with certainty


def test_maximum_interval_of_one_day_reviews_every_card_daily() -> None:
    fc = forecast(
        30, PreviewSettings(StudySettings(new_per_day=10, maximum_interval=1, review_limit=None)), 6
    )
    assert fc.reviews == (0, 10, 20, 30, 30, 30)


def test_review_limit_caps_reviews_and_new_cards_share_it() -> None:
    settings = PreviewSettings(StudySettings(new_per_day=50, review_limit=60))
    fc = forecast(2000, settings, 200, replicas=1)
    assert max(fc.reviews) == 60
    assert all(r + n <= 60 for r, n in zip(fc.reviews, fc.new, strict=True))
    ignoring = forecast(
        2000,
        PreviewSettings(
            StudySettings(new_per_day=50, review_limit=60), new_cards_ignore_review_limit=True
        ),
        200,
    )
    assert max(ignoring.reviews) <= 60
    assert ignoring.new[:40] == (50,) * 40


def test_no_learning_steps_costs_one_answer_per_new_card() -> None:
    """With no steps, day 1 is one first answer per card: the mean learning cost."""
    b = ReviewBehaviour()
    expected_seconds = sum(p * c for p, c in zip(b.first_rating, b.learning_costs, strict=True))
    fc = forecast(
        1000,
        PreviewSettings(
            StudySettings(
                new_per_day=1000, learning_steps=(), relearning_steps=(), review_limit=None
            )
        ),
        1,
    )
    assert fc.minutes[0] * 60 / 1000 == pytest.approx(expected_seconds, rel=0.01)
    with_steps = forecast(
        1000, PreviewSettings(StudySettings(new_per_day=1000, review_limit=None)), 1
    )
    assert with_steps.minutes[0] > fc.minutes[0] * 1.2


def test_higher_retention_costs_more_reviews() -> None:
    low = forecast(
        500, PreviewSettings(StudySettings(desired_retention=0.8, review_limit=None)), 365
    )
    high = forecast(
        500, PreviewSettings(StudySettings(desired_retention=0.95, review_limit=None)), 365
    )
    assert sum(high.reviews) > 1.5 * sum(low.reviews)
    assert high.memorized[-1] > low.memorized[-1]


def test_summary_of_a_known_forecast() -> None:
    fc = forecast(
        30, PreviewSettings(StudySettings(new_per_day=10, maximum_interval=1, review_limit=None)), 6
    )
    sm = summarize(fc)
    whole = sm.whole
    assert (whole.peak_reviews.value, whole.peak_reviews.day) == (30, 4)
    assert (sm.introduced_by, whole.total_reviews) == (3, 120)
    shown_minutes = [round(m, 1) for m in fc.minutes]
    assert whole.total_minutes == pytest.approx(sum(shown_minutes))
    assert whole.average_minutes == pytest.approx(sum(shown_minutes) / 6)
    assert whole.peak_minutes.value == max(shown_minutes)
    assert whole.peak_minutes.day == shown_minutes.index(max(shown_minutes)) + 1
    assert (sm.first_weeks.first_day, sm.first_weeks.last_day) == (1, 6)  # a 6-day forecast


# --- load balancer ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("interval", "maximum", "lower", "upper"),
    [  # the bounds Anki's own tests give (rslib/src/scheduler/states/fuzz.rs)
        (1.0, 1000, 1, 1),
        (2.49, 1000, 2, 2),
        (2.5, 1000, 2, 4),
        (6.9, 1000, 5, 9),
        (7.0, 1000, 5, 9),
        (17.0, 1000, 14, 20),
        (19.9, 1000, 17, 23),
        (20.0, 1000, 17, 23),
        (37.0, 1000, 33, 41),
        (100.0, 99, 92, 99),
    ],
)
def test_fuzz_range_is_ankis(interval: float, maximum: int, lower: int, upper: int) -> None:
    import numpy as np

    from deckbuilder.schedule.balancer import fuzz_bounds

    lo, hi = fuzz_bounds(np.asarray([interval]), maximum)  # type: ignore[arg-type]
    assert (int(lo[0]), int(hi[0])) == (lower, upper)


def balancer_with_load(per_day: int) -> Any:
    import numpy as np

    from deckbuilder.schedule.balancer import LoadBalancer

    # A deck as big as the 200,000 cards the tests below place: a day's count is held
    # in a type as wide as the deck needs.
    lb = LoadBalancer(n_rep=1, days=100, maximum=36500, cards=200_000, new_per_day=0)
    lb.due_counts.counts[0, 1:60] = per_day
    return lb, np.random.default_rng(5)


def test_balancer_weighs_days_by_interval_cubed_when_equally_loaded() -> None:
    """Interval 11 may land on days 9..13; with 50 cards due on each, day k weighs k**-3."""
    import numpy as np

    lb, rng = balancer_with_load(50)
    n = 200_000
    draw = rng.random(n)
    picks = lb.place(draw, np.zeros(n, dtype=np.int64), np.full(n, 11, dtype=np.int64), day=0)
    share = np.bincount(picks, minlength=14)[9:14] / n
    k = np.arange(9, 14, dtype=np.float64)
    assert share == pytest.approx(k**-3 / (k**-3).sum(), rel=0.03)
    assert lb.due_counts.counts[0, 9:14].sum() == 5 * 50 + n  # the placed cards are counted


def test_balancer_prefers_an_empty_day() -> None:
    import numpy as np

    lb, rng = balancer_with_load(50)
    lb.due_counts.counts[0, 12] = 0
    draw = rng.random(1000)
    picks = lb.place(draw, np.zeros(1000, dtype=np.int64), np.full(1000, 11, dtype=np.int64), 0)
    assert set(picks.tolist()) <= {9, 10, 11, 12, 13}
    assert (picks == 12).mean() > 0.99


def test_balancer_weighs_by_copy_and_by_card_alike() -> None:
    """The two ways place() weighs days give each card the same day for the same draw."""
    import numpy as np

    rng = np.random.default_rng(7)
    lb = _balancer(n_rep=40, days=200)
    lb.due_counts.counts[:, 1:300] = rng.integers(0, 4, size=(40, 299))
    for day in (0, 17, 150, 290):
        n = 500
        replica = np.sort(rng.integers(0, 40, size=n))
        ivl = rng.integers(1, 400, size=n)
        lo, hi = lb.lower[ivl], lb.upper[ivl]
        top = lb.row - 1 - day
        lo, hi = np.minimum(lo, top), np.minimum(hi, top)
        draw = rng.random(n)
        copies = np.unique(replica)
        by_copy = lb._pick_by_copy(copies, replica, lo, hi, int(hi.max()), day, draw)
        width = int((hi - lo).max()) + 1
        by_card = lb._pick_by_card(replica, lo, hi, width, day, draw)
        assert ((lo <= by_card) & (by_card <= hi)).all()
        assert (by_copy == by_card).mean() > 0.999  # ties at float rounding aside


def _balancer(n_rep: int, days: int) -> Any:
    from deckbuilder.schedule.balancer import LoadBalancer

    return LoadBalancer(n_rep=n_rep, days=days, maximum=36500, cards=10, new_per_day=0)


def test_a_small_deck_weighs_only_the_days_its_cards_may_land_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A one-card deck is simulated as 10,000 copies, and weighing all of every copy's
    days ahead each day would make its preview slow. The days weighed must stay near what
    the cards' ranges span."""
    from deckbuilder.schedule.balancer import LoadBalancer

    weighed = {"days": 0}
    original = LoadBalancer._weights

    def counting(self: Any, c: Any, ahead: Any) -> Any:
        weighed["days"] += c.size
        return original(self, c, ahead)

    monkeypatch.setattr(LoadBalancer, "_weights", counting)
    fc = forecast(1, PreviewSettings(), 365)
    answers = sum(fc.reviews) * 10_000 + 10_000  # every copy's reviews and first answers
    assert 0 < weighed["days"] < 60 * answers


def test_load_balancer_off_schedules_exact_intervals() -> None:
    """1,000 new cards all answered Easy on day 0, no steps: without the balancer all
    are due on day round(w[3]) = 8; with it, spread over Anki's fuzz range of 8, 6..10."""
    behaviour = ReviewBehaviour(first_rating=(0.0, 0.0, 0.0, 1.0))
    base = PreviewSettings(
        StudySettings(new_per_day=1000, learning_steps=(), relearning_steps=(), review_limit=None),
        behaviour=behaviour,
    )
    off = forecast(1000, replace(base, load_balancer=False), 11, replicas=1)
    on = forecast(1000, base, 11, replicas=1)
    assert off.reviews[:9] == (0,) * 8 + (1000,)
    assert on.reviews[:6] == (0,) * 6 and sum(on.reviews) > 1000
    # Five empty days, equally likely (plus, from day 7, the first lapses' relearning).
    assert all(150 < n < 300 for n in on.reviews[6:11])


def test_a_huge_maximum_interval_needs_no_huge_tables() -> None:
    """Fuzz ranges are tabled only as far as they can matter, whatever the maximum."""
    low = forecast(
        200,
        PreviewSettings(
            StudySettings(desired_retention=0.5, maximum_interval=10**12, review_limit=None)
        ),
        60,
    )
    assert sum(low.new) == 200 and low.memorized[-1] > 0


# --- forecast vs Anki's own simulator -----------------------------------------------------

WORKLOADS: list[dict[str, Any]] = [
    {"cards": 300, "new_per_day": 10},
    {"cards": 1000, "new_per_day": 20},
    {"cards": 10000, "new_per_day": 100},
    {"cards": 2000, "new_per_day": 50, "review_limit": 150},
    {"cards": 2000, "new_per_day": 40, "desired_retention": 0.95},
    {"cards": 3000, "new_per_day": 30, "desired_retention": 0.85},
    {"cards": 1000, "new_per_day": 20, "learning_steps": (), "relearning_steps": ()},
    {"cards": 1000, "new_per_day": 20, "maximum_interval": 30},
]


# Anki's simulator draws from a generator seeded with 42 every time: one run is one
# random draw of the workload (for 300 cards its total reviews vary by about 5% from draw
# to draw), while the forecast is the expected workload. Independent draws come from the
# "random" review order, which only shuffles the order a day's due cards are answered in
# (with no review limit every due card is answered either way). The forecast is checked
# against the mean of enough such runs to simulate ANKI_CARDS cards, and against Anki's
# default run (due-date order) within that run's own noise. With a review limit the order
# decides which cards wait, so that workload is checked against the default run alone.
ANKI_CARDS = 40_000
DAY_ORDER, RANDOM_ORDER = 0, 8  # anki.deck_config_pb2 ReviewCardOrder values


def anki_simulation(
    col: Any, cards: int, settings: PreviewSettings, days: int, review_order: int = DAY_ORDER
) -> Any:
    """Anki's "Simulate" of deck options: the backend's simulate_fsrs_review, with the
    collection's load balancer as set (on in a fresh collection, as in Anki)."""
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    request = SimulateFsrsReviewRequest(
        params=list(settings.parameters),
        desired_retention=settings.study.desired_retention,
        deck_size=cards,  # added on top of the searched cards: the search matches none
        days_to_simulate=days,
        new_limit=settings.study.new_per_day,
        review_limit=9_999_999
        if settings.study.review_limit is None
        else settings.study.review_limit,
        max_interval=settings.study.maximum_interval,
        search="cid:1",
        new_cards_ignore_review_limit=settings.new_cards_ignore_review_limit,
        easy_days_percentages=[1.0] * 7,
        review_order=review_order,
        historical_retention=0.9,
        learning_step_count=len(settings.study.learning_steps),
        relearning_step_count=len(settings.study.relearning_steps),
    )
    return col._backend.simulate_fsrs_review(request)


@dataclass(frozen=True)
class AnkiFigures:
    reviews: float
    memorized: float
    new: float
    seconds: float


def anki_figures(runs: list[Any]) -> AnkiFigures:
    n = len(runs)
    return AnkiFigures(
        reviews=sum(sum(r.daily_review_count) for r in runs) / n,
        memorized=sum(r.accumulated_knowledge_acquisition[-1] for r in runs) / n,
        new=sum(sum(r.daily_new_count) for r in runs) / n,
        seconds=sum(sum(r.daily_time_cost) for r in runs) / n,
    )


@pytest.mark.anki
def test_a_fresh_collection_balances_load(collection: Any) -> None:
    """The comparison below runs Anki as a fresh collection has it: load balancer on."""
    from anki.config import Config

    assert collection.get_config_bool(Config.Bool.LOAD_BALANCER_ENABLED) is True
    assert PreviewSettings().load_balancer is True


@pytest.mark.anki
@pytest.mark.parametrize(
    "workload", WORKLOADS, ids=lambda w: "-".join(f"{k}={v}" for k, v in w.items())
)
def test_forecast_agrees_with_ankis_simulator(collection: Any, workload: dict[str, Any]) -> None:
    import statistics

    values = dict(workload)
    cards = values.pop("cards")
    settings = PreviewSettings(StudySettings(**{"review_limit": None, **values}))
    ours = forecast(cards, settings, 365)
    default = anki_simulation(collection, cards, settings, 365)
    if settings.study.review_limit is None:
        runs = [
            anki_simulation(collection, cards, settings, 365, RANDOM_ORDER)
            for _ in range(-(-ANKI_CARDS // cards))
        ]
        totals = [sum(r.daily_review_count) for r in runs]
        spread = statistics.stdev(totals) / statistics.fmean(totals)
    else:
        runs, spread = [default], 0.0
    anki = anki_figures(runs)
    assert sum(ours.reviews) == pytest.approx(anki.reviews, rel=0.05)
    assert ours.memorized[-1] == pytest.approx(anki.memorized, rel=0.01)
    assert sum(ours.new) == pytest.approx(anki.new)
    assert sum(ours.minutes) * 60 == pytest.approx(anki.seconds, rel=0.06)
    # Anki's default run: one draw, so within 3 of its draw-to-draw spreads (at least 5%),
    # or no farther from it than the mean of Anki's own runs is, give or take 2%.
    default_reviews = sum(default.daily_review_count)
    own_mean_off = abs(default_reviews - anki.reviews) / default_reviews
    tolerance = max(0.05, 3 * spread, own_mean_off + 0.02)
    assert sum(ours.reviews) == pytest.approx(default_reviews, rel=tolerance)
    assert ours.memorized[-1] == pytest.approx(
        default.accumulated_knowledge_acquisition[-1], rel=0.01
    )


@pytest.mark.anki
@pytest.mark.parametrize("load_balancer", [True, False])
def test_load_balancer_as_anki_turns_it_on_and_off(collection: Any, load_balancer: bool) -> None:
    """Anki's load balancer adds about 3% reviews to 10,000 cards at 100 a day; the
    forecast follows the collection setting through ``load_balancer``."""
    from anki.config import Config

    collection.set_config_bool(Config.Bool.LOAD_BALANCER_ENABLED, load_balancer)
    settings = PreviewSettings(
        StudySettings(new_per_day=100, review_limit=None), load_balancer=load_balancer
    )
    anki = anki_simulation(collection, 10_000, settings, 365)
    ours = forecast(10_000, settings, 365)
    assert sum(ours.reviews) == pytest.approx(sum(anki.daily_review_count), rel=0.03)
    other = forecast(10_000, replace(settings, load_balancer=not load_balancer), 365)
    assert (sum(ours.reviews) > sum(other.reviews)) is load_balancer


# --- settings ------------------------------------------------------------------------------


def test_default_settings_are_valid_and_match_py_fsrs_defaults() -> None:
    from fsrs.scheduler import DEFAULT_PARAMETERS as PY_FSRS_DEFAULTS
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

    assert deck_options.parameter_problems(PreviewSettings().parameters) == []
    assert tuple(PY_FSRS_DEFAULTS) == DEFAULT_PARAMETERS
    assert tuple(LOWER_BOUNDS_PARAMETERS) == LOWER_BOUNDS
    assert tuple(UPPER_BOUNDS_PARAMETERS) == UPPER_BOUNDS


def test_defaults_and_bounds_are_py_fsrs_own_not_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies of py-fsrs's constants drift when py-fsrs changes them (issue 31): the
    settings read them from py-fsrs, so a change there is a change here."""
    from fsrs import scheduler

    shifted = (*scheduler.DEFAULT_PARAMETERS[:20], 0.2)
    monkeypatch.setattr(scheduler, "DEFAULT_PARAMETERS", shifted)
    monkeypatch.setattr(scheduler, "UPPER_BOUNDS_PARAMETERS", (*UPPER_BOUNDS[:20], 0.1))
    assert deck_options.DEFAULT_PARAMETERS == PreviewSettings().parameters == shifted
    problems = deck_options.parameter_problems(PreviewSettings().parameters)
    assert problems == ["w[20]=0.2 is outside 0.1..0.1"]


@pytest.mark.parametrize("retention", deck_options.FORECAST_RETENTION_RANGE)
@pytest.mark.parametrize("decay", [LOWER_BOUNDS[20], UPPER_BOUNDS[20]])
def test_every_allowed_retention_can_be_forecast(retention: float, decay: float) -> None:
    """The ends of the retention range, with the steepest and flattest forgetting curves
    the parameters allow: intervals stay finite (a retention of 1e-300 overflows)."""
    settings = PreviewSettings(
        StudySettings(desired_retention=retention, review_limit=None),
        parameters=(*DEFAULT_PARAMETERS[:20], decay),
    )
    assert deck_options.parameter_problems(settings.parameters) == []
    lad = ladder(settings, horizon=365)
    assert all(1 <= days <= settings.study.maximum_interval for days in lad.good + lad.again_good)
    fc = forecast(3, settings, 30, replicas=2)
    assert sum(fc.new) == 3 and all(math.isfinite(x) for x in fc.memorized)


def test_parse_parameters_as_anki_shows_them() -> None:
    shown = ", ".join(str(w) for w in DEFAULT_PARAMETERS)
    assert parse_parameters(shown) == DEFAULT_PARAMETERS
    assert parse_parameters(f"[{shown}]\n") == DEFAULT_PARAMETERS
    assert parse_parameters(shown.replace(", ", " ")) == DEFAULT_PARAMETERS
    with pytest.raises(ValueError, match="'x' is not a number"):
        parse_parameters("0.1, x")
    with pytest.raises(ValueError, match="not a finite number"):
        parse_parameters("0.1, inf")


@pytest.mark.parametrize(
    ("text", "entry", "line"),
    [
        ("0.1, x", "x", 1),
        ("[\n0.1,\n0.2,\n nan ]\n", "nan", 4),
        ("\n\n  0.1 0.2\r\n0.3 abc", "abc", 4),
        ("0.1 " + "7" * 400 + "x", "7" * 40 + "…", 1),
    ],
)
def test_parse_parameters_names_the_bad_entry_and_its_line(
    text: str, entry: str, line: int
) -> None:
    with pytest.raises(ParameterSyntaxError) as info:
        parse_parameters(text)
    assert (info.value.entry, info.value.line) == (entry, line)
    assert str(info.value).startswith(repr(entry))


def test_settings_from_a_study_block() -> None:
    """A deck's study block is the forecast's study settings; options given over it win,
    and those not given (None) keep the block's."""
    block = StudySettings(new_per_day=5, review_limit=50, learning_steps=(), maximum_interval=90)
    s = PreviewSettings(block)
    assert s.study.relearning_steps == (600.0,) and s.parameters == DEFAULT_PARAMETERS
    given = StudyOverrides(new_per_day=8).over(block)
    assert (given.new_per_day, given.review_limit, given.maximum_interval) == (8, 50, 90)
    capped = forecast(100, s, 120)
    assert max(capped.reviews) <= 50 and max(capped.new) == 5


def test_forecast_is_vectorised_not_a_loop_per_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-day work is NumPy calls on arrays: the number of retrievability calls
    does not grow with the number of cards (one per day for reviews, one for memorized)."""
    from deckbuilder.schedule.memory import MemoryModel

    calls = {"n": 0}
    original = MemoryModel.retrievability

    def counting(self: Any, elapsed: Any, s: Any) -> Any:
        calls["n"] += 1
        return original(self, elapsed, s)

    monkeypatch.setattr(MemoryModel, "retrievability", counting)
    forecast(100, PreviewSettings(StudySettings(new_per_day=50, review_limit=None)), 30, replicas=1)
    small = calls["n"]
    calls["n"] = 0
    forecast(
        5000, PreviewSettings(StudySettings(new_per_day=2500, review_limit=None)), 30, replicas=1
    )
    assert calls["n"] == small <= 2 * 30


def test_day_counts_are_per_day() -> None:
    fc = forecast(10, PreviewSettings(), 17)
    assert len(fc.reviews) == len(fc.new) == len(fc.minutes) == len(fc.memorized) == 17
    assert timedelta(days=fc.days) == timedelta(days=17)


@pytest.mark.anki
@pytest.mark.parametrize(
    "workload",
    [
        {"cards": 1000, "new_per_day": 20},
        {"cards": 10000, "new_per_day": 100},
        {"cards": 2000, "new_per_day": 40, "desired_retention": 0.95},
        {"cards": 1000, "new_per_day": 20, "maximum_interval": 30},
    ],
    ids=lambda w: "-".join(f"{k}={v}" for k, v in w.items()),
)
def test_forecast_agrees_with_ankis_default_run_strictly(
    collection: Any, workload: dict[str, Any]
) -> None:
    """The issue's bound taken literally, against Anki's one default run (fresh collection,
    default probabilities and costs, load balancer on): reviews within 5%, memorized 1%."""
    values = dict(workload)
    cards = values.pop("cards")
    settings = PreviewSettings(StudySettings(**{"review_limit": None, **values}))
    ours = forecast(cards, settings, 365)
    anki = anki_simulation(collection, cards, settings, 365)
    assert sum(ours.reviews) == pytest.approx(sum(anki.daily_review_count), rel=0.05)
    assert ours.memorized[-1] == pytest.approx(anki.accumulated_knowledge_acquisition[-1], rel=0.01)


@pytest.mark.parametrize(
    ("cards", "days", "values"),
    [
        (1, 400, {}),
        (3, 300, {"review_limit": 1, "new_per_day": 1}),
        (30, 200, {"review_limit": 4}),
        (200, 150, {"review_limit": 20, "new_cards_ignore_review_limit": True}),
    ],
)
def test_due_counts_from_due_days_balance_as_the_table_does(
    monkeypatch: pytest.MonkeyPatch, cards: int, days: int, values: dict[str, Any]
) -> None:
    """A deck in many copies counts each day's due cards from the cards' due days rather
    than a table of every copy's days (which took gigabytes); the days chosen are the same."""
    from deckbuilder.schedule import balancer

    ignore = values.get("new_cards_ignore_review_limit", False)
    given = {k: v for k, v in values.items() if k != "new_cards_ignore_review_limit"}
    study = StudySettings(**{"new_per_day": 10, "review_limit": None, **given})
    settings = PreviewSettings(study, new_cards_ignore_review_limit=ignore)
    monkeypatch.setattr(balancer, "TABLE_BYTES", 1 << 40)
    by_table = forecast(cards, settings, days)
    monkeypatch.setattr(balancer, "TABLE_BYTES", 0)
    by_due_days = forecast(cards, settings, days)
    assert by_due_days == by_table
    assert sum(by_table.reviews) > 0


@pytest.mark.parametrize(
    ("cards", "settings"),
    [
        (21, PreviewSettings()),
        (
            300,
            PreviewSettings(StudySettings(new_per_day=7, review_limit=40, desired_retention=0.85)),
        ),
    ],
)
def test_a_summary_reads_the_same_from_a_forecast_that_counts_memorized_cards_on_its_last_day(
    cards: int, settings: PreviewSettings
) -> None:
    # build's summary forecasts with memorized_every_day=False, which only skips counting
    # the cards memorized on the days before the last.
    every_day = forecast(cards, settings, 120, seed=3)
    last_day = forecast(cards, settings, 120, seed=3, memorized_every_day=False)
    assert summarize(last_day) == summarize(every_day)
    assert last_day.reviews == every_day.reviews and last_day.minutes == every_day.minutes
    assert last_day.memorized[-1] == every_day.memorized[-1]
    assert every_day.memorized[-2] > 0 and last_day.memorized[-2] == 0
