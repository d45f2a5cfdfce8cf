"""Training items and the fit (schedule/fit.py): built from a review log as Anki's
optimizer builds them (checked against Anki itself in tests/anki/test_history.py), and
linear in a card's reviews however long its history."""

from __future__ import annotations

import random

import pytest

from deckbuilder.schedule.fit import Review, ReviewLog, fit_items, training_items

ROLLOVER = 4  # days start at 4 am, Anki's default
DAY = 86_400_000
MORNING = 5 * 3_600_000  # an hour after the day starts (4 am)


def test_items_start_at_the_first_learning_answer_and_end_on_a_later_day() -> None:
    reviews = [
        Review(1, MORNING + 1000, 3, 1),  # before learning: an imported review, skipped
        Review(1, MORNING + 2000, 1, 0),
        Review(1, MORNING + 3000, 3, 0),  # same day: no item of its own
        Review(1, MORNING + 2 * DAY, 3, 1),
        Review(2, MORNING + 5 * DAY, 3, 1),  # no learning answer: no items
    ]
    assert training_items(ReviewLog.of(reviews), ROLLOVER) == [[(1, 0), (3, 0), (3, 2)]]


def test_items_come_in_the_order_they_were_answered_not_by_card() -> None:
    """The optimizer gives later items more weight: card 2's review on day 3 comes
    between card 1's reviews on days 2 and 9."""
    reviews = [
        Review(1, MORNING, 3, 0),
        Review(1, MORNING + 2 * DAY, 3, 1),
        Review(1, MORNING + 9 * DAY, 4, 1),
        Review(2, MORNING + DAY, 2, 0),
        Review(2, MORNING + 3 * DAY, 3, 1),
    ]
    assert training_items(ReviewLog.of(reviews), ROLLOVER) == [
        [(3, 0), (3, 2)],
        [(2, 0), (3, 2)],
        [(3, 0), (3, 2), (4, 7)],
    ]


def test_a_reset_card_starts_again_at_its_last_learning_and_cram_or_manual_entries_drop() -> None:
    reviews = [
        Review(1, MORNING, 3, 0),
        Review(1, MORNING + DAY, 3, 1),
        Review(1, MORNING + 2 * DAY, 0, 4, factor=0),  # reset to new
        Review(1, MORNING + 3 * DAY, 1, 0),  # learned again
        Review(1, MORNING + 4 * DAY, 3, 3, factor=0),  # cramming: no schedule change
        Review(1, MORNING + 5 * DAY, 0, 4),  # set due date
        Review(1, MORNING + 5 * DAY + 1, 0, 5),  # rescheduled
        Review(1, MORNING + 6 * DAY, 3, 3),  # a filtered deck that reschedules: counts
        Review(2, MORNING, 3, 0),
        Review(2, MORNING + DAY, 3, 1),
        Review(2, MORNING + 2 * DAY, 0, 4, factor=0),  # reset, not studied since
    ]
    assert training_items(ReviewLog.of(reviews), ROLLOVER) == [[(1, 0), (3, 3)]]


def test_an_answer_in_the_first_second_of_a_day_counts_for_the_day_before() -> None:
    """Anki counts days back from the next day's start, so 04:00:00 is still the
    previous day; 04:00:01 is the new one."""
    start = 4 * 3_600_000
    for millis, elapsed in [(start + 999, 1), (start + 1000, 2)]:
        reviews = [Review(1, 12 * 3_600_000 - DAY, 3, 0), Review(1, millis + DAY, 3, 1)]
        assert training_items(ReviewLog.of(reviews), ROLLOVER) == [[(3, 0), (3, elapsed)]]


@pytest.mark.parametrize(
    ("utc_offset", "elapsed"),
    [(0, 1), (9 * 3600, 0), (-6 * 3600, 0)],
)
def test_days_start_at_the_rollover_hour_in_the_given_time_zone(
    utc_offset: int, elapsed: int
) -> None:
    """Answers at 03:00 and 05:00 UTC: a day apart where 4 am is 04:00 UTC; the same day
    at 4 am in Tokyo (13:00 UTC) or Chicago (10:00 UTC), reviewed 3 days later."""
    reviews = [
        Review(1, 3 * 3_600_000, 3, 0),
        Review(1, 5 * 3_600_000, 3, 1),
        Review(1, 5 * 3_600_000 + 3 * DAY, 3, 1),
    ]
    items = training_items(ReviewLog.of(reviews), ROLLOVER, utc_offset=utc_offset)
    assert items[-1] == [(3, 0), (3, elapsed), (3, 3)]


def _full_items(
    histories: dict[int, list[tuple[int, int, int]]],
) -> tuple[list[list[tuple[int, int]]], list[int]]:
    """Anki's items for cards answered once in learning and then on later days only:
    every prefix of a card's answers that ends in a review, in answer order."""
    found = []
    for card, answers in histories.items():
        pairs = [(rating, elapsed) for _, rating, elapsed in answers]
        found += [(answers[n][0], card, pairs[: n + 1]) for n in range(1, len(answers))]
    found.sort()
    return [item for _, _, item in found], [card for _, card, _ in found]


def test_a_long_history_gives_the_optimizer_stand_ins_it_fits_exactly_as_the_whole() -> None:
    """A card answered 12,000 times took 48 s and 1.8 GB: each item held the card's whole
    history up to it. The optimizer trains only on items of at most 256 answers; a longer
    one counts only for its place, first answer, first long-term review and last answer,
    so the stand-ins give the very parameters the whole items give, and cost at most 258
    answers each."""
    rng = random.Random(3)
    histories: dict[int, list[tuple[int, int, int]]] = {}
    reviews = []
    for card in range(1, 301):
        millis = 12 * 3_600_000 + card * 1000
        answers = [(millis, rng.choice([1, 3]), 0)]
        reviews.append(Review(card, millis, answers[0][1], 0))
        for _ in range(300 if card % 10 == 0 else rng.randrange(3, 12)):
            gap = rng.randrange(1, 4)
            millis += gap * DAY
            rating = rng.choice([1, 2, 3, 3, 3, 4])
            answers.append((millis, rating, gap))
            reviews.append(Review(card, millis, rating, 1))
        histories[card] = answers
    full, cards = _full_items(histories)
    items = training_items(ReviewLog.of(reviews), ROLLOVER)
    assert len(items) == len(full) and max(map(len, full)) == 301
    assert max(map(len, items)) == 257
    assert [item for item in items if len(item) <= 256] == [f for f in full if len(f) <= 256]
    assert fit_items(items, cards) == fit_items(full, cards)
    # the stand-ins are not whole items cut short: those would be trained on
    cut = [item[:255] + item[-1:] if len(item) > 256 else item for item in full]
    assert fit_items(cut, cards) != fit_items(full, cards)


def test_a_stand_in_keeps_a_first_long_term_review_that_comes_late() -> None:
    """A card relearned 300 times on its first day: its first long-term review comes
    after answer 256, and the stand-in keeps it, so the optimizer's outlier filter sees
    the same first interval."""
    reviews = [Review(1, MORNING + k, 1, 0) for k in range(300)]
    reviews += [Review(1, MORNING + 2 * DAY, 3, 1), Review(1, MORNING + 5 * DAY, 3, 1)]
    first, second = training_items(ReviewLog.of(reviews), ROLLOVER)
    assert len(first) == 257 and first[-1] == (3, 2)
    assert len(second) == 258 and second[-2:] == [(3, 2), (3, 3)]


def test_an_empty_log_gives_no_items() -> None:
    assert training_items(ReviewLog.of([]), ROLLOVER) == []
