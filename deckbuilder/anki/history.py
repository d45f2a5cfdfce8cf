"""A learner's own FSRS parameters, fitted from the review log of an Anki collection.

PATH may be a collection file (``collection.anki2`` in an Anki profile folder), a
``.colpkg`` backup or an ``.apkg`` exported with scheduling. A collection file is copied
(with its write-ahead log) to a temporary folder and read there: Anki may have it open,
and the original is never written. A package is a zip holding the collection as
``collection.anki21b`` (zstd-compressed SQLite, Anki 2.1.50 and later), else
``collection.anki21`` or ``collection.anki2``; newer packages also hold a stub
``collection.anki2`` that only asks for a newer Anki, so the newest form is read first.

Reviews become training items as Anki's optimizer builds them (rslib
``scheduler/fsrs/params.rs``): each card's answers from the first of its last run of
learning answers on (a card reset to new starts again there), without manual, rescheduled
and cram entries, grouped into days that start at the collection's rollover hour in this
computer's time zone (as Anki counts them); one item per answer on a later day than the
one before (a long-term review), holding every answer up to it. The items go to the
optimizer in the order they were answered, because it weights recent items more, and
with the training settings Anki uses. The fit itself is fsrs-rs's (``fsrs-rs-python``),
the optimizer Anki runs.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from deckbuilder.schedule.settings import DEFAULT_PARAMETERS

__all__ = [
    "MIN_REVIEWS",
    "FittedParameters",
    "HistoryError",
    "Review",
    "fit_history",
    "read_reviews",
    "too_few_reviews",
    "training_items",
]

# Below some amount of history the fsrs-rs optimizer gives back the default parameters
# unchanged (about 20 long-term reviews; where exactly depends on which reviews), and
# Anki's deck options keep the defaults then. A fit is told apart by its result, and no
# fit is tried on fewer reviews than this.
MIN_REVIEWS = 8
_PACKAGE_MEMBERS = ("collection.anki21b", "collection.anki21", "collection.anki2")
_DEFAULT_ROLLOVER = 4  # hour a new day starts, Anki's default
# revlog types
_LEARNING, _FILTERED, _MANUAL, _RESCHEDULED = 0, 3, 4, 5
# Anki trains eight passes over the items (its compute_params); fsrs-rs-python's default is five.
_TRAINING_EPOCHS = 8
_MAX_MEMBER_BYTES = 4 * 1024**3  # a collection larger than this is not one to read here


class HistoryError(ValueError):
    """A review history that cannot be read: not a collection or package, or no revlog."""


@dataclass(frozen=True)
class Review:
    """One answer in the review log."""

    card: int
    millis: int  # when it was answered (the revlog id)
    rating: int  # 1..4: Again, Hard, Good, Easy; 0 for an entry no button made
    kind: int  # 0 learning, 1 review, 2 relearning, 3 filtered, 4 manual, 5 rescheduled
    factor: int = 2500  # ease factor in permille; 0 on a filtered entry: cramming


@contextmanager
def _collection_copy(path: Path) -> Iterator[Path]:
    """A private copy of the collection at ``path`` (from a package, or the file with its
    write-ahead log), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="deckbuilder-history-") as folder:
        target = Path(folder) / "collection.sqlite"
        if zipfile.is_zipfile(path):
            _extract_collection(path, target)
        else:
            shutil.copyfile(path, target)
            wal = path.with_name(path.name + "-wal")
            if wal.is_file():
                shutil.copyfile(wal, target.with_name(target.name + "-wal"))
        yield target


def _extract_collection(package: Path, target: Path) -> None:
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        member = next((m for m in _PACKAGE_MEMBERS if m in names), None)
        if member is None:
            raise HistoryError(f"{package} is a zip file without an Anki collection in it")
        if archive.getinfo(member).file_size > _MAX_MEMBER_BYTES:
            raise HistoryError(f"{package}: the collection inside is too large to read")
        with archive.open(member) as source, target.open("wb") as out:
            if member.endswith("b"):
                import zstandard  # only the newer packages are compressed

                reader = zstandard.ZstdDecompressor().stream_reader(source)
                written = 0
                while chunk := reader.read(1 << 20):
                    written += len(chunk)
                    if written > _MAX_MEMBER_BYTES:
                        raise HistoryError(f"{package}: the collection inside is too large")
                    out.write(chunk)
            else:
                shutil.copyfileobj(source, out)


def read_reviews(path: Path) -> tuple[list[Review], int]:
    """Every entry in the review log at ``path``, by card then time, and the hour the
    collection's days start. Raises HistoryError for anything that is not a readable
    collection or package."""
    if path.is_dir():
        raise HistoryError(f"{path} is a folder; name the collection file or package in it")
    if not path.is_file():
        raise HistoryError(f"{path} is not a file")
    try:
        with _collection_copy(path) as copy:
            db = sqlite3.connect(copy)
            try:
                rows = db.execute(
                    "SELECT cid, id, ease, type, factor FROM revlog ORDER BY cid, id"
                ).fetchall()
                rollover = _rollover(db)
            finally:
                db.close()
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{path} is not an Anki collection ({exc})") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise HistoryError(f"cannot read {path}: {exc}") from None
    reviews = [
        Review(int(card), int(millis), int(ease), int(kind), int(factor or 0))
        for card, millis, ease, kind, factor in rows
    ]
    return reviews, rollover


def _rollover(db: sqlite3.Connection) -> int:
    """The collection's "next day starts at" hour: the config table (schema 15 and
    later) or the col row's JSON (older), else Anki's default."""
    import json

    try:
        row = db.execute("SELECT val FROM config WHERE KEY = 'rollover'").fetchone()
        if row is not None:
            return int(json.loads(row[0]))
    except (sqlite3.DatabaseError, ValueError, TypeError):
        pass
    try:
        row = db.execute("SELECT conf FROM col").fetchone()
        if row is not None:
            return int(json.loads(row[0]).get("rollover", _DEFAULT_ROLLOVER))
    except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError):
        pass
    return _DEFAULT_ROLLOVER


def training_items(
    reviews: Sequence[Review], rollover: int = _DEFAULT_ROLLOVER, utc_offset: int = 0
) -> list[list[tuple[int, int]]]:
    """Training items as (rating, days since the previous answer) lists, in the order
    their last answers were given: per card, from its last run of learning answers, one
    item per long-term review with all answers up to it. Days start at ``rollover``
    o'clock in the time zone ``utc_offset`` seconds east of UTC."""
    return _training_set(reviews, rollover, utc_offset)[0]


def _training_set(
    reviews: Sequence[Review], rollover: int, utc_offset: int
) -> tuple[list[list[tuple[int, int]]], list[int]]:
    """The training items in answer order and the card each comes from (the optimizer
    weights later items more, and keeps a card's items together)."""
    day_start = rollover * 3600 - utc_offset
    found: list[tuple[int, int, list[tuple[int, int]]]] = []
    start = 0
    while start < len(reviews):
        end = start
        while end < len(reviews) and reviews[end].card == reviews[start].card:
            end += 1
        found.extend(_card_items(reviews[start:end], day_start))
        start = end
    found.sort(key=lambda item: item[0])
    return [item for _, _, item in found], [card for _, card, _ in found]


def _card_items(
    entries: Sequence[Review], day_start: int
) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """One card's items, each with the time of its last answer and the card."""
    first = _last_learning_start(entries)
    if first is None:  # no learning in the log: the card's first rating is unknown
        return []
    answers = [r for r in entries[first:] if _is_graded_answer(r)]
    # Anki counts days back from the next day's start: an answer at the very second a
    # day starts belongs to the day before.
    days = [-((day_start - r.millis // 1000) // 86400) for r in answers]
    history: list[tuple[int, int]] = []
    out: list[tuple[int, int, list[tuple[int, int]]]] = []
    for i, review in enumerate(answers):
        elapsed = days[i] - days[i - 1] if i else 0
        history.append((review.rating, elapsed))
        if i and elapsed > 0:
            out.append((review.millis, review.card, list(history)))
    return out


def _last_learning_start(entries: Sequence[Review]) -> int | None:
    """Where the card's last run of learning answers begins; None when it has none, or
    when it was reset to new after them (its history then starts over unseen)."""
    first = None
    for i in range(len(entries) - 1, -1, -1):
        entry = entries[i]
        if _is_cramming(entry):
            continue
        if entry.kind == _LEARNING and 1 <= entry.rating <= 4:
            first = i
        elif first is not None:
            break
        elif entry.kind == _MANUAL and entry.factor == 0:  # "reset" / "forget"
            return None
    return first


def _is_cramming(entry: Review) -> bool:
    return entry.kind == _FILTERED and entry.factor == 0


def _is_graded_answer(entry: Review) -> bool:
    """An answer that moved the card's schedule: not a manual change (set due date,
    reset), a rescheduling or cramming in a filtered deck."""
    return (
        1 <= entry.rating <= 4
        and entry.kind not in (_MANUAL, _RESCHEDULED)
        and not _is_cramming(entry)
    )


@dataclass(frozen=True)
class FittedParameters:
    parameters: tuple[float, ...]
    reviews: int  # long-term reviews the fit used
    fitted: bool  # False: too few reviews, the defaults are kept
    logged: int = 0  # entries in the review log, whether they could be used or not


def fit_history(path: Path, utc_offset: int | None = None) -> FittedParameters:
    """FSRS parameters fitted from the review log at ``path``; the defaults (with
    ``fitted=False``) when it holds too few long-term reviews for the optimizer.

    Days are counted in the time zone ``utc_offset`` seconds east of UTC; by default
    this computer's, as Anki counts them on the computer it runs on."""
    if utc_offset is None:
        utc_offset = time.localtime().tm_gmtoff
    reviews, rollover = read_reviews(path)
    items, cards = _training_set(reviews, rollover, utc_offset)
    parameters = fit_items(items, cards) if len(items) >= MIN_REVIEWS else DEFAULT_PARAMETERS
    fitted = any(abs(a - b) > 1e-4 for a, b in zip(parameters, DEFAULT_PARAMETERS, strict=True))
    return FittedParameters(
        parameters if fitted else DEFAULT_PARAMETERS, len(items), fitted, len(reviews)
    )


def too_few_reviews(fitted: FittedParameters, path: Path) -> str:
    """Why no parameters were fitted from the history at ``path``, and what is used
    instead, in words (the caller names the file). A package exported without
    scheduling holds no review log at all; Anki's export dialog names the box that
    puts it in."""
    if fitted.logged == 0:
        if path.suffix.lower() == ".apkg":
            text = (
                "the package holds no review history; export the deck again with "
                '"Include scheduling information" checked'
            )
        else:
            text = "no review history in it"
    else:
        text = (
            f"only {fitted.reviews} long-term reviews, too few for FSRS's optimizer to fit "
            "parameters (Anki keeps the defaults too)"
        )
    return text + "; the default parameters are used"


def fit_items(
    items: Sequence[Sequence[tuple[int, int]]], cards: Sequence[int] | None = None
) -> tuple[float, ...]:
    """The fsrs-rs optimizer's parameters for training ``items`` (from ``cards``), given
    in the order they were answered, trained as Anki trains them."""
    try:
        import fsrs_rs_python as fsrs_rs
    except ImportError:  # pragma: no cover - a declared dependency
        raise HistoryError(
            "fitting a review history needs the fsrs-rs-python package (pip install fsrs-rs-python)"
        ) from None
    model = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS))
    batch = [fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, t) for r, t in item]) for item in items]
    fitted = model.compute_parameters(
        batch,
        card_ids=list(cards) if cards else None,
        training_config=fsrs_rs.TrainingConfig(num_epochs=_TRAINING_EPOCHS),
    )
    return tuple(round(float(w), 4) for w in fitted)
