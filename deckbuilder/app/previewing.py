"""``preview``: the FSRS workload of each deck, its chart and its preview page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from deckbuilder.anki.history import HistoryError
from deckbuilder.app.checking import render_selection
from deckbuilder.app.requests import PreviewRequest
from deckbuilder.errors import DeckError, OutputError, Problem, RequestError
from deckbuilder.files.atomic import atomic_write_bytes
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.lint import lint_decks
from deckbuilder.lock.manifest import lock_path, read_manifest, update_manifest
from deckbuilder.model import StudyOverrides
from deckbuilder.preview.chart import FORMATS, write_chart
from deckbuilder.preview.page import LintNotes, Removed, preview_page
from deckbuilder.preview.questions import questions_for
from deckbuilder.preview.report import DeckPreview, preview_deck, report, to_json
from deckbuilder.preview.settings import (
    checked_options,
    fit_history,
    retention_warning,
    settings_for,
    too_few_reviews,
)
from deckbuilder.progress import reporting
from deckbuilder.render.deck import RenderedDeck
from deckbuilder.schedule.fit import FittedParameters

_PAGE_SUFFIXES = (".html", ".htm")
# A request's own warnings name its field (the study overrides' by their own names).
_REQUEST_FIELDS = frozenset(f.name for f in (*fields(PreviewRequest), *fields(StudyOverrides)))


@dataclass(frozen=True)
class PreviewResult:
    previews: tuple[DeckPreview, ...]
    charts: tuple[Path, ...]  # written with ``plot``
    pages: tuple[Path, ...]  # written with ``html`` or ``html_out``
    # First what is said of the request's values, each with the request field as its
    # ``code`` (a history too short to fit from, a retention Anki would not take); then
    # of the decks, in the order found: their study blocks, then what the pages cannot
    # show as Anki does (math they cannot typeset).
    diagnostics: tuple[Problem, ...]

    @property
    def request_warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.diagnostics if p.code in _REQUEST_FIELDS)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """What is said of the decks."""
        return tuple(p for p in self.diagnostics if p.code not in _REQUEST_FIELDS)

    def report(self) -> str:
        """The text preview of every deck."""
        return "\n\n".join(report(p) for p in self.previews)

    def as_json(self) -> dict[str, Any]:
        """One deck: its preview object. Several: ``{"decks": [...]}``."""
        return to_json(self.previews)


def preview(request: PreviewRequest) -> PreviewResult:
    """Forecast each deck (one language is enough: by default each deck's first), and
    write the charts and pages asked for."""
    with reporting(request.progress):
        return _preview(request)


def _preview(request: PreviewRequest) -> PreviewResult:
    parameters = checked_options(request.study, request.params, request.days, request.seed)
    questions = questions_for(
        request.sweep,
        request.exam,
        request.start or request.today,
        request.lead,
        request.study.new_per_day,
    )
    told: list[Problem] = []
    fitted = None  # the history and the parameters fitted from it
    if request.history is not None and request.params is None:  # given parameters win
        fit, problem = _history_parameters(request.history)
        fitted = (request.history, fit)
        if problem is not None:
            told.append(problem)
    retention = retention_warning(request.study.desired_retention)
    if retention is not None:
        told.append(retention)
    if request.plot is not None and request.plot.suffix.lower() not in FORMATS:
        raise RequestError.single(
            "plot", f"the file name must end in .svg or .png, not {request.plot.name!r}"
        )
    if request.html_out is not None and request.html_out.suffix.lower() not in _PAGE_SUFFIXES:
        raise RequestError.single(
            "html_out", f"the file name must end in .html, not {request.html_out.name!r}"
        )
    rendered = render_selection(request.selection)
    previews = []
    study: dict[Problem, None] = {}  # the languages of a deck share its study block
    for deck in [rd.deck for rd in rendered]:
        chosen = settings_for(deck, request.study, parameters, fitted)
        if chosen.warning is not None:
            study[chosen.warning] = None
        previews.append(preview_deck(deck, chosen, request.days, request.seed, questions))
    warnings = list(study)
    charts = []
    if request.plot is not None:
        for p in previews:
            plot = request.plot
            target = plot if len(previews) == 1 else plot.with_stem(f"{plot.stem}-{p.deck.key}")
            write_chart(p, _file_target("plot", target), replaced=request.written)
            charts.append(target)
    pages: list[Path] = []
    if request.html or request.html_out is not None:
        pages = _write_pages(rendered, previews, request, warnings)
    return PreviewResult(tuple(previews), tuple(charts), tuple(pages), (*told, *warnings))


def removed_notes(rd: RenderedDeck) -> list[Removed]:
    """The notes of the deck's lock file that the card file no longer has: what its next
    build drops (nothing when the lock file cannot be read: the build says why)."""
    try:
        update = update_manifest(read_manifest(lock_path(rd.deck)), rd, 0)
    except DeckError:
        return []
    return [(entry.id, entry.anki_id) for entry in update.changes.removed]


def _write_pages(
    rendered: Sequence[RenderedDeck],
    previews: Sequence[DeckPreview],
    request: PreviewRequest,
    warnings: list[Problem],
) -> list[Path]:
    """Write each deck's preview page: html_out (FILE-<deck id>.html for several decks) or
    <out_dir>/<deck id>.html; what a page cannot show as Anki does joins ``warnings``."""
    written = []
    field = "html_out" if request.html_out is not None else "html"
    if request.html_out is None:  # a file named on the command line is the user's choice
        refuse_links_out([request.out_dir / "-"], "no page is written through it")
    lint = lint_by_note(rendered)
    for rd, p in zip(rendered, previews, strict=True):
        if request.html_out is None:
            target = request.out_dir / f"{rd.deck.key}.html"
        elif len(rendered) == 1:
            target = request.html_out
        else:
            target = request.html_out.with_stem(f"{request.html_out.stem}-{rd.deck.key}")
        found: list[Problem] = []  # what the page cannot show as Anki does (math)
        notes = lint.get(str(rd.deck.source), {})
        data = preview_page(rd, p, found, notes, removed_notes(rd)).encode("utf-8")
        try:
            atomic_write_bytes(_file_target(field, target), data, replaced=request.written)
        except OutputError as exc:
            raise RequestError.single(field, str(exc)) from None
        warnings.extend(found)
        written.append(target)
    return written


def _history_parameters(path: Path) -> tuple[FittedParameters, Problem | None]:
    """The parameters fitted from the review history at ``path``, and a warning when it
    holds too few reviews to fit (the defaults are used then)."""
    try:
        fitted = fit_history(path)
    except HistoryError as exc:
        raise RequestError.single("history", str(exc)) from None
    if fitted.fitted:
        return fitted, None
    told = too_few_reviews(fitted, path)
    return fitted, Problem.warning(str(path), None, told, code="history")


def lint_by_note(rendered: Sequence[RenderedDeck]) -> dict[str, LintNotes]:
    """Each card file's lint warnings, by note id, as the pages show them."""
    found: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for warning in lint_decks([rd.deck for rd in rendered]):
        notes = found.setdefault(warning.file, {})
        notes.setdefault(warning.note, []).append(
            (warning.code, f"{warning.problem}; {warning.fix}")
        )
    return dict(found)


def _file_target(field: str, target: Path) -> Path:
    """``target``, unless a folder has that name: a file must not take a folder's place."""
    try:
        is_dir = target.is_dir()
    except OSError as exc:  # a name too long for the file system, for one
        raise RequestError.single(field, f"cannot write {target}: {exc.strerror or exc}") from None
    if is_dir:
        raise RequestError.single(field, f"{target} is a folder; give the name of a file to write")
    return target
