"""Where the preview's settings come from: the command line's options, checked; the
deck's ``study:`` block (its FSRS parameters or review history included); Anki's defaults.

Library code: every wrong value is a RequestError naming its field, or a DeckError at its line.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from deckbuilder.anki.collection import SMALLER_HISTORY
from deckbuilder.anki.history import HistoryError, read_reviews
from deckbuilder.deck_options import (
    ANKI_PER_DAY_MAX,
    ANKI_RETENTION_RANGE,
    FORECAST_RETENTION_RANGE,
    SIMULATOR_MAX_DAYS,
    ParameterSyntaxError,
    default_parameters,
    parameter_problems,
    parse_parameters,
    percent_hint,
)
from deckbuilder.errors import DeckError, Problem, RequestError, plural
from deckbuilder.model import Deck, StudyOverrides, StudySettings
from deckbuilder.schedule.fit import FittedParameters, HistoryTooLong, ReviewLog, fit_log
from deckbuilder.schedule.settings import PreviewSettings

DEFAULT_DAYS = 365
DEFAULT_SEED = 42
# A parameter file holds 21 numbers, a few hundred bytes; a larger file is not one.
MAX_PARAMS_FILE_BYTES = 64 * 1024

# How the preview's origin sentence names each setting its options set.
_SET_NAMES = {
    "desired_retention": "the desired retention",
    "new_per_day": "new cards a day",
    "review_limit": "the review limit",
    "parameters": "the FSRS parameters",
}


def checked_options(
    study: StudyOverrides,
    params: str | None,
    days: int = DEFAULT_DAYS,
    seed: int = DEFAULT_SEED,
) -> tuple[float, ...] | None:
    """The FSRS parameters ``params`` gives (None: not given: the parameter list as text,
    or the name of a file holding it), once every value of the preview's options is
    checked: every one out of range is named in one RequestError, by its request field
    (``study``'s fields by their own names), with the range it must be in."""
    parameters, params_file = (None, None) if params is None else _parameters_option(params)
    problems = []
    retention = study.desired_retention
    low, high = FORECAST_RETENTION_RANGE
    if retention is not None and not low <= retention <= high:  # also refuses NaN
        problems.append(
            RequestError.about(
                "desired_retention",
                f"must be between {low} and {high}, not {retention}{percent_hint(retention)}",
            )
        )
    for name in ("new_per_day", "review_limit"):
        value = getattr(study, name)
        if value is not None and not 0 <= value <= ANKI_PER_DAY_MAX:
            problems.append(
                RequestError.about(
                    name, f"must be between 0 and {ANKI_PER_DAY_MAX} (Anki's limit), not {value}"
                )
            )
    problems += [
        RequestError.about("params", f"{params_file}: {message}" if params_file else message)
        for message in (() if parameters is None else parameter_problems(parameters))
    ]
    if not 1 <= days <= SIMULATOR_MAX_DAYS:
        problems.append(
            RequestError.about("days", f"must be between 1 and {SIMULATOR_MAX_DAYS}, not {days}")
        )
    if seed < 0:  # NumPy's generators take seeds of 0 or more
        problems.append(RequestError.about("seed", f"must be 0 or more, not {seed}"))
    if problems:
        raise RequestError(problems)
    return parameters


def retention_warning(retention: float | None) -> Problem | None:
    """A warning, of the request's field ``desired_retention`` (its ``code``), when a
    retention asked for is usable for a forecast but outside what Anki's deck options
    accept (a what-if the deck's study block could not carry)."""
    low, high = ANKI_RETENTION_RANGE
    if retention is None or low <= retention <= high:
        return None
    return Problem.warning(
        "",
        None,
        f"{retention:g} is outside {low:.2f} to {high:.2f}, the range Anki's deck options "
        "accept; Anki will not schedule with it",
        code="desired_retention",
    )


def _parameters_option(value: str) -> tuple[tuple[float, ...], str | None]:
    """The parameters a ``params`` value gives, and the file they were read from (None:
    the value itself). A value that names an existing path is read as a file."""
    if not value.strip():
        raise RequestError.single(
            "params", "empty; expected 21 comma-separated numbers or a file holding them"
        )
    path = Path(value)
    try:
        exists = path.exists()
    except (OSError, ValueError):  # e.g. 21 numbers without spaces: too long for a name
        exists = False
    if exists:
        text = _read_parameter_file(path)
        try:
            return parse_parameters(text), value
        except ParameterSyntaxError as exc:
            raise RequestError.single(
                "params", f"{value}:{exc.line}: {exc}; expected 21 comma-separated numbers"
            ) from None
    try:
        return parse_parameters(value), None
    except ParameterSyntaxError as exc:
        if len(value.split()) == 1 and "," not in value:  # one word: meant as a file?
            raise RequestError.single(
                "params",
                f"{exc.entry!r} is neither a number nor a file; expected 21 "
                "comma-separated numbers or a file holding them",
            ) from None
        raise RequestError.single("params", f"{exc}; expected 21 comma-separated numbers") from None


def _read_parameter_file(path: Path) -> str:
    """The text of a parameter file; a folder, a device, an unreadable, binary or huge
    file is a RequestError. Reads no more than the size limit."""
    if path.is_dir():
        raise RequestError.single("params", f"{path} is a folder, not a file of parameters")
    if not path.is_file():
        raise RequestError.single("params", f"{path} is not a regular file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PARAMS_FILE_BYTES + 1)
    except OSError as exc:
        raise RequestError.single("params", f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PARAMS_FILE_BYTES:
        raise RequestError.single(
            "params",
            f"{path} is larger than {MAX_PARAMS_FILE_BYTES // 1024} KB; "
            "a parameter file holds 21 numbers",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RequestError.single("params", f"{path} is not a text file (UTF-8)") from None


@dataclass(frozen=True)
class ParametersFrom:
    """Where the FSRS parameters of a preview come from: the request's ``params``
    (``given``), a review ``history`` (the request's or the study block's; its reviews,
    whether they were enough to fit, whether it could be read at all), the study block's
    ``params``, or else the defaults. ``study_block``: the block (``FILE:LINE``) when
    they are its own (its params or its history)."""

    given: bool = False
    history: Path | None = None
    reviews: int = 0
    fitted: bool = False
    readable: bool = True
    study_block: str | None = None

    def as_dict(self) -> dict[str, Any]:
        if self.given:
            return {"given": "params"}
        if self.history is not None:
            return {"history": str(self.history), "reviews": self.reviews, "fitted": self.fitted}
        if self.study_block is not None:
            return {"study_block": self.study_block}
        return {"defaults": True}


@dataclass(frozen=True)
class DeckSettings:
    """The settings one deck is previewed with, and where they come from (worded by
    :func:`origin_text`)."""

    settings: PreviewSettings
    study_block: str | None  # "FILE:LINE" of the deck's study block; None: it has none
    # What the request set, by StudySettings' names ("parameters": its params), in order.
    overridden: tuple[str, ...] = ()
    parameters_from: ParametersFrom = ParametersFrom()
    # Why the study block's history gave the defaults (too short, or not a history a
    # build can read): a warning at its line.
    warning: Problem | None = None


def settings_for(
    deck: Deck,
    study: StudyOverrides | None = None,
    parameters: tuple[float, ...] | None = None,
    history: tuple[Path, FittedParameters] | None = None,
    *,
    strict: bool = True,
) -> DeckSettings:
    """The settings a deck is previewed with: the deck's ``study:`` block, with Anki's
    defaults (:class:`StudySettings`) for what it leaves out; a deck with no study block
    gets all of Anki's defaults, the preset Anki gives it on import. The request's
    ``study`` values win over both.

    The FSRS parameters come from the first of: ``parameters`` (the request's
    ``params``), those fitted from the request's ``history`` (its path and fit), the
    study block's ``params`` or ``history``, the defaults. ``strict``: a study-block
    history that cannot be read is a DeckError at its line (the preview); otherwise a
    warning, and the defaults (build and check, for which the preview is not the point)."""
    study = study or StudyOverrides()
    where = None if deck.study is None else f"{deck.source}:{deck.study.line}"
    overridden = (*study.given(), *(("parameters",) if parameters is not None else ()))
    chosen = DeckSettings(
        PreviewSettings(study.over(deck.study or StudySettings())), where, overridden
    )
    if parameters is not None:
        return _with(chosen, parameters, ParametersFrom(given=True))
    if history is not None:
        path, fitted = history
        return _with(chosen, fitted.parameters, _fitted_from(path, fitted))
    own = _study_block_parameters(deck, strict=strict)
    return chosen if own is None else _with(chosen, *own)


def _with(
    chosen: DeckSettings,
    parameters: tuple[float, ...],
    source: ParametersFrom,
    warning: Problem | None = None,
) -> DeckSettings:
    settings = replace(chosen.settings, parameters=parameters)
    return replace(chosen, settings=settings, parameters_from=source, warning=warning)


def _fitted_from(path: Path, fitted: FittedParameters, block: str | None = None) -> ParametersFrom:
    return ParametersFrom(
        history=path, reviews=fitted.reviews, fitted=fitted.fitted, study_block=block
    )


def _study_block_parameters(
    deck: Deck, *, strict: bool = True
) -> tuple[tuple[float, ...], ParametersFrom, Problem | None] | None:
    """The parameters of the deck's study block, where they come from, and why they are
    the defaults: its ``params``, else those fitted from its ``history`` (the defaults,
    with a warning, when the history is too short to fit); None when it names neither.
    A history that cannot be read is a DeckError at its line, or with ``strict=False`` a
    warning there and the defaults."""
    study = deck.study
    if study is None:
        return None
    where = f"{deck.source}:{study.line}"
    if study.parameters is not None:
        return study.parameters, ParametersFrom(study_block=where), None
    if study.history is None:
        return None
    path = study.history

    def warning(text: str) -> Problem:
        return Problem.warning(str(deck.source), study.history_line, f"'history' {text}")

    try:
        fitted = _fit(path)
    except HistoryError as exc:
        if strict:
            raise DeckError(
                [Problem(str(deck.source), study.history_line, f"'history': {exc}")]
            ) from None
        return (
            default_parameters(),
            ParametersFrom(history=path, readable=False, study_block=where),
            warning(f"cannot be used: {exc}; the preview uses the default parameters"),
        )
    told = None if fitted.fitted else warning(f"{path}: {too_few_reviews(fitted, path)}")
    return fitted.parameters, _fitted_from(path, fitted, where), told


def study_warnings(decks: Sequence[Deck]) -> list[Problem]:
    """What ``build`` warns about the study blocks of ``decks`` (a history it cannot read
    or fit from), once per card file: ``check`` says it too."""
    found = [_study_block_parameters(deck, strict=False) for deck in decks]
    warnings = [own[2] for own in found if own is not None and own[2] is not None]
    return list(dict.fromkeys(warnings))


def origin_text(chosen: DeckSettings) -> str:
    """Where a deck's preview settings come from, in a sentence for people."""
    if chosen.study_block is not None:
        origin = f"the deck's study block ({chosen.study_block}); Anki's defaults for the rest"
    else:
        origin = "Anki's default deck options (the deck has no study block)"
    if chosen.overridden:
        given = ", ".join(_SET_NAMES[name] for name in chosen.overridden)
        origin += f", with {given} set for this preview"
    parameters = parameters_text(chosen.parameters_from)
    return f"{origin}; parameters {parameters}" if parameters else origin


def parameters_text(source: ParametersFrom) -> str:
    """Where FSRS parameters other than the defaults or the request's come from, in
    words ('' for those)."""
    if source.history is not None:
        if not source.readable:
            return f"the defaults ({source.history} cannot be read)"
        if source.fitted:
            return f"fitted from {plural(source.reviews, 'review')} in {source.history}"
        reviews, verb = plural(source.reviews, "review"), "is" if source.reviews == 1 else "are"
        return f"the defaults ({reviews} in {source.history} {verb} too few to fit)"
    if source.study_block is not None:
        return "from the study block"
    return ""


@lru_cache(maxsize=8)
def _fit(history: Path) -> FittedParameters:
    """One fit per history file in a run, however many decks (or languages) name it."""
    return fit_history(history)


def fit_history(path: Path) -> FittedParameters:
    """FSRS parameters fitted to the review log at ``path`` (a collection file or a
    package), days counted up to today in this computer's time zone, as Anki counts them
    on the computer it runs on; the defaults (``fitted=False``) when it holds too few
    reviews. Raises HistoryError when it cannot be read."""
    revlog, rollover = read_reviews(path)
    now = time.time()
    try:
        return fit_log(ReviewLog(*revlog), rollover, time.localtime(now).tm_gmtoff, now)
    except HistoryTooLong as exc:
        raise HistoryError(f"{path}: {exc}; {SMALLER_HISTORY}") from None


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
            f"only {plural(fitted.reviews, 'long-term review')}, too few for FSRS's optimizer to fit "
            "parameters (Anki keeps the defaults too)"
        )
    return text + "; the default parameters are used"
