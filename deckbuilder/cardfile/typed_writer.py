"""An imported typed-answer question -> its note in the card file (``type: typed``), for
the importers' own writer (:mod:`.records_writer`), which goes with it once the importers
write model notes with :func:`.writer.card_file_text`."""

from __future__ import annotations

from deckbuilder.cardfile.writer import format_scalar
from deckbuilder.importers.base import Question

__all__ = ["answer_lines", "typed_note_lines"]


def _answer(entry: dict[str, str], indent: int) -> str:
    if "text" in entry:
        return format_scalar(entry["text"], indent)
    # Numbers are written as the source wrote them (checked to be numbers on import).
    return "{" + ", ".join(f"{key}: {value}" for key, value in entry.items()) + "}"


def typed_note_lines(q: Question, note_id: str, source: str) -> list[str]:
    """The lines of one note, from ``  - id:`` on (no blank line before it)."""
    assert q.typed is not None
    out = [
        f"  - id: {format_scalar(note_id, 6)}",
        "    type: typed",
        f"    question: {format_scalar(q.question, 6)}",
    ]
    if not q.typed:
        where = " ".join(f"{source} (line {q.line})".split())
        out.append(f"    answer:  # no full-credit answer in {where}; write the answer here")
    else:
        out.extend(answer_lines(q.typed))
    if q.explanation.strip():
        out.append(f"    explanation: {format_scalar(q.explanation, 6)}")
    if q.tags:
        out.append("    tags:")
        out.extend(f"      - {format_scalar(t, 8)}" for t in q.tags)
    return out


def answer_lines(answers: list[dict[str, str]]) -> list[str]:
    """The ``answer:`` key of a typed note with at least one accepted answer."""
    if len(answers) == 1:
        return [f"    answer: {_answer(answers[0], 6)}"]
    return ["    answer:", *(f"      - {_answer(entry, 8)}" for entry in answers)]
