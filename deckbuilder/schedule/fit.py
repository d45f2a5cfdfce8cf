"""A learner's own FSRS parameters, fitted to their review log as Anki fits them.

Pure: a review log (columns of numbers) in, parameters out; no files, no text. Reading
the log out of an Anki collection is :mod:`deckbuilder.anki.history`'s job.

Reviews become training items as Anki's optimizer builds them (rslib
``scheduler/fsrs/params.rs``): each card's answers from the first of its last run of
learning answers on (a card reset to new starts again there), without manual, rescheduled
and cram entries, grouped into days that start at the collection's rollover hour in the
learner's time zone; one item per answer on a later day than the one before (a
long-term review), holding every answer up to it. The items go to the optimizer in the
order they were answered, because it weights recent items more, and with the training
settings Anki uses. The fit itself is fsrs-rs's (``fsrs-rs-python``), the optimizer Anki
runs.

An item holds a card's whole history up to it, so a card answered n times gives items of
n(n+1)/2 answers in all. The optimizer trains only on items of at most ``max_seq_len``
answers (256), after weighting them by their place in the list; a longer item counts
for its place, its first answer, its first long-term review and its last answer, and
for nothing else. Such an item is built as a stand-in holding just those and enough
answers to stay longer than the limit, which the optimizer treats exactly as the whole
one, so the items of a card cost time and memory linear in its answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import fsrs_rs_python as fsrs_rs

from deckbuilder.deck_options import default_parameters

# Below some amount of history the fsrs-rs optimizer gives back the default parameters
# unchanged (about 20 long-term reviews; where exactly depends on which reviews), and
# Anki's deck options keep the defaults then. A fit is told apart by its result, and no
# fit is tried on fewer reviews than this.
MIN_REVIEWS = 8
# revlog types
_LEARNING, _FILTERED, _MANUAL, _RESCHEDULED = 0, 3, 4, 5
# Anki trains eight passes over the items (its compute_params); fsrs-rs-python's default is five.
_TRAINING_EPOCHS = 8
# fsrs-rs's TrainingConfig.max_seq_len, the default Anki trains with.
_MAX_SEQ_LEN = 256
# The most answers all training items may hold together. The fit takes about 20 bytes
# and 0.3 microseconds of CPU per answer (the items, then fsrs-rs's own copies): this
# many is about 400 MB and 15 seconds. A history of 40,000 cards reviewed 20 times each
# makes 8 million; 1,000 cards answered 1,000 times each make 224 million (a 27 MB
# collection that took 5.8 GB and over a minute).
MAX_TRAINING_ANSWERS = 20_000_000


class HistoryTooLong(ValueError):
    """A review log whose training items would hold more than MAX_TRAINING_ANSWERS."""


class Review(NamedTuple):
    """One answer in the review log."""

    card: int
    millis: int  # when it was answered (the revlog id)
    rating: int  # 1..4: Again, Hard, Good, Easy; 0 for an entry no button made
    kind: int  # 0 learning, 1 review, 2 relearning, 3 filtered, 4 manual, 5 rescheduled
    factor: int = 2500  # ease factor in permille; 0 on a filtered entry: cramming


@dataclass(frozen=True)
class ReviewLog:
    """A review log as columns, entry i in position i of each, ordered by card and then
    by time (the revlog table sorted by cid, id)."""

    cards: Sequence[int]
    millis: Sequence[int]
    ratings: Sequence[int]
    kinds: Sequence[int]
    factors: Sequence[int]

    def __len__(self) -> int:
        return len(self.cards)

    @classmethod
    def of(cls, reviews: Iterable[Review]) -> ReviewLog:
        """The log of ``reviews``, given in card and time order."""
        rows = list(reviews)
        return cls(*(tuple(column) for column in zip(*rows, strict=True))) if rows else _EMPTY


_EMPTY = ReviewLog((), (), (), (), ())


@dataclass(frozen=True)
class FittedParameters:
    parameters: tuple[float, ...]
    reviews: int  # long-term reviews the fit used
    fitted: bool  # False: too few reviews, the defaults are kept
    logged: int = 0  # entries in the review log, whether they could be used or not


Item = list[tuple[int, int]]  # (rating, days since the previous answer), oldest first
_I = TypeVar("_I")


def training_items(
    log: ReviewLog, rollover: int, utc_offset: int = 0, now: float | None = None
) -> list[Item]:
    """Training items in the order their last answers were given: per card, from its
    last run of learning answers, one item per long-term review with all answers up to
    it (a stand-in for one longer than the optimizer trains on). Days start at
    ``rollover`` o'clock in the time zone ``utc_offset`` seconds east of UTC; an answer
    dated after ``now`` (seconds since 1970; default: none is) counts as answered today.
    Raises HistoryTooLong past MAX_TRAINING_ANSWERS."""
    return _training_set(log, rollover, utc_offset, now, list)[0]


def fit_log(log: ReviewLog, rollover: int, utc_offset: int, now: float) -> FittedParameters:
    """FSRS parameters fitted to ``log``; the defaults (with ``fitted=False``) when it
    holds too few long-term reviews for the optimizer. Days start at ``rollover``
    o'clock in the time zone ``utc_offset`` seconds east of UTC; an answer dated after
    ``now`` (seconds since 1970) counts as answered today. Raises HistoryTooLong past
    MAX_TRAINING_ANSWERS."""
    batch, cards = _training_set(log, rollover, utc_offset, now, _Batch().item)
    defaults = default_parameters()
    parameters = _fit_batch(batch, cards) if len(batch) >= MIN_REVIEWS else defaults
    fitted = any(abs(a - b) > 1e-4 for a, b in zip(parameters, defaults, strict=True))
    return FittedParameters(parameters if fitted else defaults, len(batch), fitted, len(log))


def fit_items(items: Sequence[Item], cards: Sequence[int] | None = None) -> tuple[float, ...]:
    """The fsrs-rs optimizer's parameters for training ``items`` (from ``cards``), given
    in the order they were answered, trained as Anki trains them."""
    make = _Batch().item
    return _fit_batch([make(item) for item in items], cards)


class _Batch:
    """Training items as fsrs-rs takes them, made one by one (a log's items are not held
    twice), each distinct answer one object."""

    def __init__(self) -> None:
        self.reviews: dict[tuple[int, int], Any] = {}

    def item(self, answers: Item) -> Any:
        reviews = self.reviews
        return fsrs_rs.FSRSItem(
            [reviews.get(r) or reviews.setdefault(r, fsrs_rs.FSRSReview(*r)) for r in answers]
        )


def _fit_batch(batch: Sequence[Any], cards: Sequence[int] | None) -> tuple[float, ...]:
    model = fsrs_rs.FSRS(list(default_parameters()))
    config = fsrs_rs.TrainingConfig(num_epochs=_TRAINING_EPOCHS, max_seq_len=_MAX_SEQ_LEN)
    fitted = model.compute_parameters(
        list(batch), card_ids=list(cards) if cards else None, training_config=config
    )
    return tuple(round(float(w), 4) for w in fitted)


def _training_set(
    log: ReviewLog,
    rollover: int,
    utc_offset: int,
    now: float | None,
    make: Callable[[Item], _I],
) -> tuple[list[_I], list[int]]:
    """The training items in answer order, each made by ``make``, and the card each comes
    from (the optimizer weights later items more, and keeps a card's items together).
    The answers they would hold are counted first: past MAX_TRAINING_ANSWERS, none is
    made."""
    day_start = rollover * 3600 - utc_offset
    # Anki counts the days since an answer from the start of tomorrow, and never fewer
    # than none: an answer dated in the future (a device whose clock ran ahead) was
    # given today, like every later one.
    today = None if now is None else int(now - day_start) // 86400 + 1
    cards = _cards(log)
    answers = sum(_items_size(_card_answers(log, a, b, day_start, today)[1]) for a, b in cards)
    if answers > MAX_TRAINING_ANSWERS:
        raise HistoryTooLong(
            f"its {len(log):,} review log entries make {answers:,} answers to train on, "
            f"over the {MAX_TRAINING_ANSWERS:,} a fit takes (its memory and time grow "
            "with them)"
        )
    found: list[tuple[int, int, _I]] = []
    for a, b in cards:
        found.extend(_card_items(log, a, b, day_start, today, make))
    found.sort(key=lambda item: item[0])
    return [item for _, _, item in found], [card for _, card, _ in found]


def _cards(log: ReviewLog) -> list[tuple[int, int]]:
    """Where each card's entries start and end in ``log``."""
    spans = []
    start, total = 0, len(log)
    while start < total:
        end = start
        while end < total and log.cards[end] == log.cards[start]:
            end += 1
        spans.append((start, end))
        start = end
    return spans


def _card_answers(
    log: ReviewLog, start: int, end: int, day_start: int, today: int | None
) -> tuple[list[int], list[int]]:
    """The entries of the card's answers that train (from its last run of learning
    answers on), and the day of each (``today`` at the latest); none when it has no
    learning answers."""
    first = _last_learning_start(log, start, end)
    if first is None:  # no learning in the log: the card's first rating is unknown
        return [], []
    answers = [i for i in range(first, end) if _is_graded_answer(log, i)]
    # Anki counts days back from the next day's start: an answer at the very second a
    # day starts belongs to the day before.
    days = [-((day_start - log.millis[i] // 1000) // 86400) for i in answers]
    return answers, days if today is None else [min(day, today) for day in days]


def _items_size(days: Sequence[int]) -> int:
    """The answers the items of a card answered on ``days`` hold, at most."""
    return sum(min(n + 1, _MAX_SEQ_LEN + 2) for n in range(1, len(days)) if days[n] > days[n - 1])


def _card_items(
    log: ReviewLog,
    start: int,
    end: int,
    day_start: int,
    today: int | None,
    make: Callable[[Item], _I],
) -> list[tuple[int, int, _I]]:
    """The items of the card whose entries are ``start:end`` in ``log``, each with the
    time of its last answer and the card."""
    answers, days = _card_answers(log, start, end, day_start, today)
    history: Item = []
    first_long_term = 0  # where the card's first long-term review is in history
    out: list[tuple[int, int, _I]] = []
    for n, i in enumerate(answers):
        elapsed = days[n] - days[n - 1] if n else 0
        history.append((log.ratings[i], elapsed))
        if not n or elapsed <= 0:
            continue
        first_long_term = first_long_term or n
        if n < _MAX_SEQ_LEN:
            item = history[:]
        else:  # a stand-in: see the module's docstring
            item = history[:_MAX_SEQ_LEN]
            if _MAX_SEQ_LEN <= first_long_term < n:
                item.append(history[first_long_term])
            item.append(history[n])
        out.append((log.millis[i], log.cards[i], make(item)))
    return out


def _last_learning_start(log: ReviewLog, start: int, end: int) -> int | None:
    """Where the card's last run of learning answers begins; None when it has none, or
    when it was reset to new after them (its history then starts over unseen)."""
    first = None
    for i in range(end - 1, start - 1, -1):
        if _is_cramming(log, i):
            continue
        if log.kinds[i] == _LEARNING and 1 <= log.ratings[i] <= 4:
            first = i
        elif first is not None:
            break
        elif log.kinds[i] == _MANUAL and log.factors[i] == 0:  # "reset" / "forget"
            return None
    return first


def _is_cramming(log: ReviewLog, i: int) -> bool:
    return log.kinds[i] == _FILTERED and log.factors[i] == 0


def _is_graded_answer(log: ReviewLog, i: int) -> bool:
    """An answer that moved the card's schedule: not a manual change (set due date,
    reset), a rescheduling or cramming in a filtered deck."""
    return (
        1 <= log.ratings[i] <= 4
        and log.kinds[i] not in (_MANUAL, _RESCHEDULED)
        and not _is_cramming(log, i)
    )
