"""Existing quizzes -> card files: the numbered quiz format, Moodle's Aiken and GIFT.

``import_file`` reads a source into an :class:`Imported` (questions with their source
lines, and what was skipped); ``card_file_text`` turns that into the YAML of a card
file; ``write_card_file`` writes it atomically. Nothing here prints.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deckbuilder.cardfile.fields import UNSTORABLE
from deckbuilder.cardfile.reader import ID_RE, MAX_FILE_BYTES, MAX_NOTES, SOURCE_SUFFIXES, read_text
from deckbuilder.cardfile.records_writer import to_yaml
from deckbuilder.errors import DeckError, Problem, RequestError
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.importers.aiken import looks_like_aiken, parse_aiken
from deckbuilder.importers.base import (
    Imported,
    Question,
    Skipped,
    assign_ids,
    check_target,
    field_refusal,
    raise_if,
    slugify,
)
from deckbuilder.importers.gift import looks_like_gift, parse_gift
from deckbuilder.importers.quiz import looks_like_quiz, parse_quiz

__all__ = [
    "FORMATS",
    "ImportPlan",
    "Imported",
    "Question",
    "Skipped",
    "card_file_text",
    "default_out",
    "detect_format",
    "import_file",
    "import_text",
    "plan_import",
    "write_card_file",
]

PARSERS: dict[str, Callable[[str, str], Imported]] = {
    "quiz": parse_quiz,
    "aiken": parse_aiken,
    "gift": parse_gift,
}
FORMATS = ("auto", *PARSERS)
SUFFIXES = {".gift": "gift", ".aiken": "aiken"}
MISSING_HINT = {
    "quiz": "put ✓ after the right choice or add a line 'ANSWER: B'",
    "aiken": "add a line 'ANSWER: B' after the choices",
    "gift": "mark the right choice with '=' (or a positive weight '~%50%')",
}


def detect_format(text: str, file: str, suffix: str = "") -> str:
    """Which format ``text`` is in: the file suffix first (.gift, .aiken), then its shape."""
    if suffix.lower() in SUFFIXES:
        return SUFFIXES[suffix.lower()]
    lines = text.split("\n")
    if looks_like_gift(lines):
        return "gift"
    if looks_like_quiz(lines):
        return "quiz"
    if looks_like_aiken(lines):
        return "aiken"
    raise DeckError.single(
        file,
        "cannot tell the format: no numbered questions (quiz), 'ANSWER:' lines (Aiken) or "
        "answer blocks in braces (GIFT); give --format quiz, aiken or gift",
    )


def _apply_categories(result: Imported, deck_given: bool) -> None:
    """GIFT categories: the path all questions share names the deck (unless --deck
    names it); what differs between questions becomes a tag ('Week_1::Basics')."""
    paths = [q.category for q in result.questions]
    if not any(paths):
        return
    prefix: tuple[str, ...] = ()
    if not deck_given:
        first = paths[0]
        n = 0
        while n < len(first) and all(len(p) > n and p[n] == first[n] for p in paths):
            n += 1
        prefix = first[:n]
        if prefix:
            result.deck = "::".join(prefix)
    for q in result.questions:
        rest = q.category[len(prefix) :]
        if rest:
            q.tags.append("::".join(re.sub(r"\s+", "_", part) for part in rest))


def import_text(
    text: str,
    file: str,
    fmt: str = "auto",
    *,
    deck_given: bool = False,
    allow_missing_answers: bool = False,
    suffix: str = "",
) -> Imported:
    """Parse ``text`` (already decoded) in format ``fmt``; raise DeckError on bad input."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if fmt == "auto":
        fmt = detect_format(text, file, suffix)
    if fmt not in PARSERS:
        raise RequestError.single("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    result = PARSERS[fmt](text, file)
    _apply_categories(result, deck_given)
    _skip_refused(result)
    if len(result.questions) > MAX_NOTES:
        raise DeckError.single(
            file,
            f"more than {MAX_NOTES:,} questions; a card file holds at most {MAX_NOTES:,} notes "
            "(split the file, and import each part)",
            result.questions[MAX_NOTES].line,
        )
    if not result.questions:
        skipped = ", ".join(f"{s.kind} at line {s.line}" for s in result.skipped)
        raise DeckError.single(
            file,
            "no questions to import" + (f" (skipped: {skipped})" if skipped else ""),
            1 if not skipped else result.skipped[0].line,
        )
    if not allow_missing_answers:
        raise_if(missing_answer_problems(result, file))
    return result


def missing_answer_problems(result: Imported, file: str) -> list[Problem]:
    """The questions without a marked answer, in the format's own words if it has them."""
    if result.missing_answer_messages:
        return list(result.missing_answer_messages)
    return [
        Problem(
            file,
            q.line,
            f"{q.label} has no marked answer; {MISSING_HINT[result.format]} "
            "(or import with --allow-missing-answers and fill it in later)",
        )
        for q in result.missing_answers
    ]


def _skip_refused(result: Imported) -> None:
    """Questions the card loader would refuse (a field too long, or characters Anki
    cannot store) are skipped, as questions the card format cannot hold are."""
    kept: list[Question] = []
    for q in result.questions:
        reason = field_refusal(q)
        if reason is None:
            kept.append(q)
        else:
            kind = "typed-answer" if q.typed is not None else "multiple-choice"
            result.skipped.append(Skipped(q.line, kind, reason))
    if len(kept) < len(result.questions):
        result.questions = kept
        result.skipped.sort(key=lambda s: s.line)


def import_file(
    path: Path,
    fmt: str = "auto",
    *,
    deck_given: bool = False,
    allow_missing_answers: bool = False,
) -> Imported:
    """Read and parse ``path`` (UTF-8 with or without BOM, LF or CRLF)."""
    text = read_text(path)
    return import_text(
        text,
        str(path),
        fmt,
        deck_given=deck_given,
        allow_missing_answers=allow_missing_answers,
        suffix=path.suffix,
    )


def _deck_name(name: str) -> str:
    # A name with empty '::' parts would not load; keep the parts that have text. Control
    # characters become spaces: Anki would drop them from a deck name anyway.
    parts = [" ".join(UNSTORABLE.sub(" ", p).split()) for p in name.split("::")]
    return "::".join(p for p in parts if p)


def default_out(result: Imported, source: Path, deck: str | None) -> Path:
    """cards/<slug of the deck name, or of the input file's stem>.yaml"""
    slug = slugify(deck or result.deck, 60) or slugify(_file_name(source), 60) or "imported"
    return Path("cards") / f"{slug}.yaml"


def _file_name(source: Path) -> str:
    """The input file's name for a deck: ``unit2.aiken.txt`` is unit2, as ``unit2.txt``."""
    stem = Path(source.stem)
    return stem.stem if stem.suffix.lower() in (".aiken", ".gift", ".quiz") else stem.name


def _deck_id(out: Path) -> str:
    stem = unicodedata.normalize("NFC", out.stem)
    if ID_RE.match(stem):
        return stem
    return slugify(stem, 60) or "imported"


@dataclass(frozen=True)
class ImportPlan:
    """What ``deckbuilder import`` will write, and where."""

    result: Imported
    out: Path
    deck_name: str
    deck_id: str
    text: str


def card_file_text(result: Imported, deck_name: str, deck_id: str) -> str:
    return to_yaml(result, deck_name, deck_id)


def plan_import(
    source: Path,
    fmt: str = "auto",
    *,
    out: Path | None = None,
    deck: str | None = None,
    allow_missing_answers: bool = False,
) -> ImportPlan:
    """Read ``source`` and prepare the card file; write nothing."""
    if out is not None and out.suffix not in SOURCE_SUFFIXES:
        raise RequestError.single(
            "out", f"must name a .yaml file (build and check look for *.yaml), not {out}"
        )
    result = import_file(source, fmt, deck_given=bool(deck), allow_missing_answers=True)
    result.source = source.name
    deck_name = _deck_name(deck or result.deck) or _deck_name(_file_name(source)) or "Imported"
    target = out or default_out(result, source, deck)
    if out is None:  # cards/ is not the user's choice; a file named with --out is
        refuse_links_out([target], "nothing is written through it; make it a folder")
    deck_id = _deck_id(target)
    text = card_file_text(result, deck_name, deck_id)
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise DeckError.single(
            source,
            f"the card file would be {size:,} bytes; the limit is {MAX_FILE_BYTES:,} "
            "(split the file, and import each part)",
        )
    # Every problem in one pass: unmarked answers, and what `check` would say of the card
    # file (a missing image...), at the lines of the source.
    problems = [] if allow_missing_answers else missing_answer_problems(result, str(source))
    problems += _card_file_problems(result, text, target, source)
    raise_if(problems)
    return ImportPlan(result, target, deck_name, deck_id, text)


def _card_file_problems(result: Imported, text: str, target: Path, source: Path) -> list[Problem]:
    """What checking the planned card file finds (with the default media folder), each at
    the line of the question it comes from. An answer left empty on purpose
    (--allow-missing-answers) is not one of them."""
    from deckbuilder.cardfile.reader import decks_from_tree
    from deckbuilder.cardfile.yaml_tree import parse_yaml
    from deckbuilder.render.deck import render_deck

    found: list[Problem] = []
    try:
        decks = decks_from_tree(target, parse_yaml(text, str(target)), Path("media"), "all")
    except DeckError as exc:
        found += exc.problems
        decks = list(exc.partial)
    for deck in decks:
        try:
            render_deck(deck)
        except DeckError as exc:
            found += exc.problems
    by_id = dict(zip(assign_ids(result.questions), result.questions, strict=True))
    unanswered = {id(q) for q in result.missing_answers}
    problems: list[Problem] = []
    for problem in dict.fromkeys(found):
        q = by_id.get(problem.note or "")
        if q is None:
            problems.append(Problem(str(source), None, problem.message))
        elif id(q) not in unanswered or "answer" not in problem.message:
            problems.append(Problem(str(source), q.line, f"{q.label}: {problem.message}"))
    return problems


def write_card_file(
    plan: ImportPlan, source: Path, *, force: bool = False, replaced: list[Path] | None = None
) -> Path:
    """Write the planned card file atomically; refuse to replace a file unless ``force``.
    ``replaced``: see :meth:`deckbuilder.files.atomic.Staging.commit`."""
    from deckbuilder.files.atomic import atomic_write_bytes

    target = plan.out
    check_target(target, source, force=force, example=f"{target}/quiz.yaml")
    data = plan.text.encode("utf-8")
    atomic_write_bytes(target, data, replaced=replaced)
    return target
