"""Where the preview's settings come from: the command line's options, checked; the
deck's ``study:`` block (its FSRS parameters or review history included); Anki's defaults.

Library code: every wrong value is a RequestError naming its field, or a DeckError at its line.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from deckbuilder.anki.collection import SMALLER_HISTORY
from deckbuilder.anki.history import HistoryError, read_reviews
from deckbuilder.deck_options import (
    ANKI_RETENTION_RANGE,
    ParameterSyntaxError,
    default_parameters,
    parse_parameters,
)
from deckbuilder.errors import DeckError, Problem, RequestError, Severity
from deckbuilder.model import Deck, StudySettings
from deckbuilder.schedule.fit import FittedParameters, HistoryTooLong, ReviewLog, fit_log
from deckbuilder.schedule.settings import PreviewSettings

DEFAULT_DAYS = 365
DEFAULT_SEED = 42
# Anki's simulator offers 1 to 3650 days (see deckbuilder.deck_options for the source). The
# forecast's memory grows with days times simulated cards: a longer horizon for a small
# deck could exhaust a laptop's memory, for a plan no learner makes.
MAX_DAYS = 3650
# A parameter file holds 21 numbers, a few hundred bytes; a larger file is not one.
MAX_PARAMS_FILE_BYTES = 64 * 1024

# The request field that sets each PreviewSettings field (for error messages), and how
# the preview's origin sentence names what was set.
FIELD_NAMES = {
    "desired_retention": "retention",
    "new_per_day": "new_per_day",
    "review_limit": "review_limit",
    "parameters": "params",
}
_SET_NAMES = {
    "desired_retention": "the desired retention",
    "new_per_day": "new cards a day",
    "review_limit": "the review limit",
    "parameters": "the FSRS parameters",
}


def settings_from_options(
    retention: float | None,
    new_per_day: int | None,
    review_limit: int | None,
    params: str | None,
    days: int = DEFAULT_DAYS,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """The preview command's option values that were given, as settings overrides.

    Every value out of range is named in one RequestError, with its field and the
    allowed range. ``params`` is the parameter list as text, or the name of a file
    holding it; ``days`` and ``seed`` are checked too.
    """
    parameters, params_file = (None, None) if params is None else _parameters_option(params)
    overrides = {
        "desired_retention": retention,
        "new_per_day": new_per_day,
        "review_limit": review_limit,
        "parameters": parameters,
    }
    overrides = {k: v for k, v in overrides.items() if v is not None}
    problems = [
        (
            FIELD_NAMES.get(p.code or "", p.code or ""),
            f"{params_file}: {p.message}" if p.code == "parameters" and params_file else p.message,
        )
        for p in PreviewSettings().with_values(**overrides).problems()
    ]
    problems += _run_problems(days, seed)
    if problems:
        raise RequestError(problems)
    return overrides


def retention_warning(retention: float | None) -> Problem | None:
    """A warning, of the request's field ``retention`` (its ``code``), when a retention
    asked for is usable for a forecast but outside what Anki's deck options accept (a
    what-if the deck's study block could not carry)."""
    low, high = ANKI_RETENTION_RANGE
    if retention is None or low <= retention <= high:
        return None
    return Problem(
        "",
        None,
        f"{retention:g} is outside {low:.2f} to {high:.2f}, the range Anki's deck options "
        "accept; Anki will not schedule with it",
        severity=Severity.WARNING,
        code="retention",
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


def _run_problems(days: int, seed: int) -> list[tuple[str, str]]:
    problems = []
    if not 1 <= days <= MAX_DAYS:
        problems.append(("days", f"must be between 1 and {MAX_DAYS}, not {days}"))
    if seed < 0:  # NumPy's generators take seeds of 0 or more
        problems.append(("seed", f"must be 0 or more, not {seed}"))
    return problems


def deck_settings(
    deck: Deck, overrides: dict[str, Any] | None = None, *, study_parameters: bool = True
) -> tuple[PreviewSettings, str]:
    """The settings a deck is previewed with, and a sentence saying where they come from
    (see :func:`settings_for`); ``study_parameters=False`` leaves out the study block's
    ``params``/``history``."""
    chosen = settings_for(deck, overrides, use_study_parameters=study_parameters)
    return chosen.settings, chosen.origin


@dataclass(frozen=True)
class StudyParameters:
    """The FSRS parameters a deck's study block names, and where they come from."""

    parameters: tuple[float, ...]
    origin: str  # for people: "from the study block", "fitted from 812 reviews in ..."
    source: dict[str, Any]  # for --json: the history, its reviews, whether it was fitted
    # Why the block's history gave the defaults (too short, or not a history build can
    # read): a warning at its line.
    warning: Problem | None = None


@dataclass(frozen=True)
class DeckSettings:
    """The settings one deck is previewed with, and where they come from."""

    settings: PreviewSettings
    origin: str  # a sentence for people
    parameters_from: dict[str, Any]  # for --json: where the FSRS parameters come from
    study: StudyParameters | None = None  # the study block's, when they are the ones used

    @property
    def warnings(self) -> tuple[Problem, ...]:
        warning = self.study.warning if self.study is not None else None
        return () if warning is None else (warning,)


def settings_for(
    deck: Deck,
    overrides: dict[str, Any] | None = None,
    history: tuple[Path, FittedParameters] | None = None,
    *,
    use_study_parameters: bool = True,
    strict: bool = True,
) -> DeckSettings:
    """The settings a deck is previewed with: the deck's ``study:`` block, with Anki's
    defaults (:class:`StudySettings`) for what it leaves out; a deck with no study block
    gets all of Anki's defaults, the preset Anki gives it on import. Options given on
    the command line win over both.

    The FSRS parameters come from the first of: ``--params`` (in ``overrides``), the
    parameters fitted from ``--history`` (its path and fit), the study block's
    ``params`` or ``history`` (unless ``use_study_parameters`` is False), the defaults.
    ``strict``: a study-block history that cannot be read is a DeckError at its line
    (the preview); otherwise a warning, and the defaults (build and check, for which
    the preview is not the point)."""
    overrides = overrides or {}
    if deck.study is not None:
        study = deck.study
        origin = (
            f"the deck's study block ({deck.source}:{study.line}); Anki's defaults for the rest"
        )
    else:
        study = StudySettings()
        origin = "Anki's default deck options (the deck has no study block)"
    if overrides:
        given = ", ".join(_SET_NAMES.get(k, k) for k in overrides)
        origin += f", with {given} set for this preview"
    settings = PreviewSettings.from_study(study, **overrides)
    if "parameters" in overrides:
        return DeckSettings(settings, origin, {"given": "params"})
    if history is not None:
        path, fitted = history
        source = {"history": str(path), "reviews": fitted.reviews, "fitted": fitted.fitted}
        settings = settings.with_values(parameters=fitted.parameters)
        return DeckSettings(settings, f"{origin}; parameters {fitted_text(fitted, path)}", source)
    own = study_block_parameters(deck, strict=strict) if use_study_parameters else None
    if own is None:
        return DeckSettings(settings, origin, {"defaults": True})
    settings = settings.with_values(parameters=own.parameters)
    return DeckSettings(settings, f"{origin}; parameters {own.origin}", own.source, own)


def study_block_parameters(deck: Deck, *, strict: bool = True) -> StudyParameters | None:
    """The parameters of the deck's study block: its ``params``, else those fitted from
    its ``history`` (the defaults, with a warning, when the history is too short to
    fit); None when it names neither. A history that cannot be read is a DeckError at
    its line, or with ``strict=False`` a warning there and the defaults."""
    study = deck.study
    if study is None:
        return None
    if study.parameters is not None:
        where = f"{deck.source}:{study.line}"
        return StudyParameters(study.parameters, "from the study block", {"study_block": where})
    if study.history is None:
        return None
    path = study.history

    def warning(text: str) -> Problem:
        return Problem(
            str(deck.source), study.history_line, f"'history' {text}", severity=Severity.WARNING
        )

    try:
        fitted = _fit(path)
    except HistoryError as exc:
        if strict:
            raise DeckError(
                [Problem(str(deck.source), study.history_line, f"'history': {exc}")]
            ) from None
        return StudyParameters(
            default_parameters(),
            f"the defaults ({path} cannot be read)",
            {"history": str(path), "reviews": 0, "fitted": False},
            warning(f"cannot be used: {exc}; the preview uses the default parameters"),
        )
    source = {"history": str(path), "reviews": fitted.reviews, "fitted": fitted.fitted}
    told = None if fitted.fitted else warning(f"{path}: {too_few_reviews(fitted, path)}")
    return StudyParameters(fitted.parameters, fitted_text(fitted, path), source, told)


def study_warnings(decks: Sequence[Deck]) -> list[Problem]:
    """What ``build`` warns about the study blocks of ``decks`` (a history it cannot read
    or fit from), once per card file: ``check`` says it too."""
    found = [study_block_parameters(deck, strict=False) for deck in decks]
    warnings = [own.warning for own in found if own is not None and own.warning is not None]
    return list(dict.fromkeys(warnings))


def fitted_text(fitted: FittedParameters, history: Path) -> str:
    """Where fitted parameters come from, in words."""
    if fitted.fitted:
        return f"fitted from {fitted.reviews} reviews in {history}"
    return f"the defaults ({fitted.reviews} reviews in {history} are too few to fit)"


@lru_cache(maxsize=8)
def _fit(history: Path) -> FittedParameters:
    """One fit per history file in a run, however many decks (or languages) name it."""
    return fit_history(history)


def fit_history(path: Path) -> FittedParameters:
    """FSRS parameters fitted to the review log at ``path`` (a collection file or a
    package), days counted in this computer's time zone as Anki counts them on the
    computer it runs on; the defaults (``fitted=False``) when it holds too few reviews.
    Raises HistoryError when it cannot be read."""
    revlog, rollover = read_reviews(path)
    try:
        return fit_log(ReviewLog(*revlog), rollover, time.localtime().tm_gmtoff)
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
            f"only {fitted.reviews} long-term reviews, too few for FSRS's optimizer to fit "
            "parameters (Anki keeps the defaults too)"
        )
    return text + "; the default parameters are used"
