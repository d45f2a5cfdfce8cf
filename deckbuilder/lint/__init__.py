"""Item-writing lint: flaws that make a card test the wrong thing, found in loaded decks.

Lint reads the model only (no rendering, no media) and never fails a build: it returns
warnings, each naming its note and ``FILE:LINE``. A note's ``lint: [code, ...]`` opts it
out of those rules; the rules' codes are the model's (:data:`deckbuilder.model.LINT_RULES`),
since the card loader checks opt-outs without loading the rules. The modules:
:mod:`.rules` (the rules), :mod:`.normalise` (text as the learner reads it),
:mod:`.duplicates` (repeated questions across files). A warning reads
``FILE:LINE: note 'id': warning [code]: what is wrong; how to fix it``, the shape of the
loader's errors, so editors jump to the line alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deckbuilder.errors import Problem, Severity
from deckbuilder.lint.duplicates import Question, find_repeats
from deckbuilder.lint.normalise import normalised
from deckbuilder.lint.rules import Finding, answer_position, duplicate_sources, note_findings
from deckbuilder.model import Deck, Note


@dataclass(frozen=True, order=True)
class LintWarning(Problem):
    """One flaw in one note: a problem of severity warning whose ``code`` is the rule's.
    Its message says what is wrong (``problem``), in which languages of a bilingual file
    it shows (``languages``, the message quoting the first; () for a file without
    languages), and how to fix it (``fix``). Made by :meth:`found`."""

    note: str = ""  # every flaw is of a note
    severity: Severity = Severity.WARNING
    code: str = ""
    problem: str = ""
    fix: str = ""
    languages: tuple[str, ...] = ()
    # The field the flaw is in ('choices[3]'): choices written on one line share it.
    field: str = ""

    @classmethod
    def found(
        cls,
        file: str,
        line: int,
        note: str,
        code: str,
        problem: str,
        fix: str,
        languages: tuple[str, ...] = (),
        field: str = "",
    ) -> LintWarning:
        where = f" (in {', '.join(languages)})" if languages else ""
        return cls(
            file,
            line,
            f"{problem}{where}; {fix}",
            note,
            code=code,
            problem=problem,
            fix=fix,
            languages=languages,
            field=field,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "note": self.note,
            "code": self.code,
            "message": f"{self.problem}; {self.fix}",
            "languages": list(self.languages),
            "severity": self.severity.value,
        }


def collect(
    found: Iterable[tuple[LintWarning, str]], file_order: Sequence[str]
) -> list[LintWarning]:
    """The warnings found in every language of every deck, each flaw once: the languages
    of one file share its lines, so the same code on the same note, line and field is
    one warning listing the languages it shows in. Sorted by file (in reading order),
    line, code."""
    merged: dict[tuple[str, int | None, str, str, str], LintWarning] = {}
    for warning, lang in found:
        key = (warning.file, warning.line, warning.note, warning.code, warning.field)
        first = merged.get(key)
        if first is None:
            merged[key] = _with_languages(warning, (lang,) if lang else ())
        elif lang and lang not in first.languages:
            merged[key] = _with_languages(first, (*first.languages, lang))
    rank = {file: i for i, file in reversed(list(enumerate(file_order)))}
    return sorted(
        merged.values(),
        key=lambda w: (rank.get(w.file, len(rank)), w.file, w.line or 0, w.code),
    )


def _with_languages(warning: LintWarning, languages: tuple[str, ...]) -> LintWarning:
    return LintWarning.found(
        warning.file,
        warning.line or 0,
        warning.note,
        warning.code,
        warning.problem,
        warning.fix,
        languages,
        warning.field,
    )


def lint_decks(decks: Sequence[Deck]) -> list[LintWarning]:
    """Every warning for ``decks`` (all languages of a bilingual file: each flaw once),
    less the ones their notes opt out of, in reading order."""
    found: list[tuple[LintWarning, str]] = []
    questions: list[Question] = []
    notes: dict[tuple[str, str], Note] = {}  # (file, note id) -> note
    for deck in decks:
        for note in deck.notes:
            found.extend(_placed(deck, note_findings(note)))
            # Read right after the note's rules, which have just read the same texts.
            owner = (str(deck.source), note.id)
            notes[owner] = note
            for key, text in duplicate_sources(note):
                questions.append(Question(owner, note.field_line(key), normalised(text), deck.lang))
        found.extend(_placed(deck, answer_position(deck)))
    found.extend(_repeats(questions, notes))
    return collect(found, [str(deck.source) for deck in decks])


def _placed(deck: Deck, findings: Iterator[Finding]) -> Iterator[tuple[LintWarning, str]]:
    for f in findings:
        if f.code in f.note.lint_ignored:
            continue
        line = f.note.field_line(f.key) if f.key else f.note.line
        warning = LintWarning.found(
            str(deck.source), line, f.note.id, f.code, f.problem, f.fix, field=f.key
        )
        yield warning, deck.lang


def _repeats(
    questions: Sequence[Question], notes: Mapping[tuple[str, str], Note]
) -> Iterator[tuple[LintWarning, str]]:
    for repeat in find_repeats(questions):
        file, note_id = repeat.later.owner
        if "duplicate-question" in notes[repeat.later.owner].lint_ignored:
            continue
        other_file, other_id = repeat.earlier.owner
        where = f"{other_file}:{repeat.earlier.line}"
        how = (
            "the same question"
            if repeat.shared == 1
            else (f"nearly the same question ({repeat.shared:.0%} of its words)")
        )
        yield (
            LintWarning.found(
                file,
                repeat.later.line,
                note_id,
                "duplicate-question",
                f"asks {how} as note '{other_id}' ({where})",
                "merge the two notes, or make each ask something of its own",
            ),
            repeat.later.lang,
        )
