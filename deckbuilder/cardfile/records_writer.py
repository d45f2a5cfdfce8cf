"""The importers' own records (:class:`~deckbuilder.importers.base.Imported`,
:class:`~deckbuilder.importers.base.CardNote`) -> card-file YAML, line by line.

Kept until the importers build model notes and write them with
:func:`deckbuilder.cardfile.writer.card_file_text`; then this module goes.
"""

from __future__ import annotations

from deckbuilder.cardfile.typed_writer import answer_lines, typed_note_lines
from deckbuilder.cardfile.writer import format_scalar
from deckbuilder.importers.base import CardNote, Imported, assign_ids
from deckbuilder.model import letter

__all__ = ["notes_yaml", "to_yaml"]


def _comment(text: str) -> str:
    return " ".join(text.split())


def to_yaml(result: Imported, deck_name: str, deck_id: str) -> str:
    """The card file for ``result``, with deck name ``deck_name`` and ``id: deck_id``."""
    out: list[str] = [
        f"# Imported by 'deckbuilder import' from {_comment(result.source)} "
        f"({result.format} format).",
        "# The notes' ids identify them in Anki: keep them when you edit the text.",
        f"deck: {format_scalar(deck_name, 2)}",
        f"id: {format_scalar(deck_id, 2)}",
    ]
    if result.description.strip():
        out.append(f"description: {format_scalar(result.description, 2)}")
    out.append("notes:")
    ids = assign_ids(result.questions)
    for i, (nid, q) in enumerate(zip(ids, result.questions, strict=True)):
        if i:
            out.append("")
        if q.typed is not None:
            out.extend(typed_note_lines(q, nid, result.source))
            continue
        out.append(f"  - id: {format_scalar(nid, 6)}")
        out.append("    type: mcq")
        out.append(f"    question: {format_scalar(q.question, 6)}")
        out.append("    choices:")
        for i, choice in enumerate(q.choices):
            said = q.feedback[i] if i < len(q.feedback) else ""
            if said:
                out.append(f"      - text: {format_scalar(choice, 10)}")
                out.append(f"        feedback: {format_scalar(said, 10)}")
            else:
                out.append(f"      - {format_scalar(choice, 8)}")
        if not q.answer:
            out.append(
                f"    answer:  # no answer is marked in {_comment(result.source)} "
                f"(line {q.line}); write the letter(s) here"
            )
        elif len(q.answer) == 1:
            out.append(f"    answer: {letter(q.answer[0])}")
        else:
            out.append(f"    answer: [{', '.join(letter(a) for a in q.answer)}]")
        if q.explanation.strip():
            out.append(f"    explanation: {format_scalar(q.explanation, 6)}")
        if not q.shuffle:
            out.append("    shuffle: false")
        if q.tags:
            out.append("    tags:")
            out.extend(f"      - {format_scalar(t, 8)}" for t in q.tags)
    return "\n".join(out) + "\n"


def notes_yaml(
    header: list[str],
    deck_name: str,
    deck_id: str,
    notes: list[tuple[str, CardNote]],
    *,
    language: str = "",
    label_language: str = "",
) -> str:
    """A card file of basic, cloze, multiple-choice and typed-answer notes (from an Anki
    package, Anki's text export or a spreadsheet), each under its id; ``header``: comment
    lines. ``language``: the one language of a deck built from a bilingual card file
    (``languages: [en]``, so that its fields build as they were); ``label_language``: the
    multiple-choice labels of a deck without languages."""
    out = [f"# {_comment(line)}" for line in header]
    if language:
        out += ["deck:", f"  {language}: {format_scalar(deck_name, 4)}"]
    else:
        out.append(f"deck: {format_scalar(deck_name, 2)}")
    out.append(f"id: {format_scalar(deck_id, 2)}")
    if language:
        out.append(f"languages: [{language}]")
    elif label_language:
        out.append(f"label_language: {format_scalar(label_language, 2)}")
    out.append("notes:")
    for i, (nid, note) in enumerate(notes):
        if i:
            out.append("")
        out.append(f"  - id: {format_scalar(nid, 6)}")
        if note.guid:
            out.append(f"    guid: {format_scalar(note.guid, 6)}")
        out.append(f"    type: {note.kind}")
        keys: tuple[str, ...]
        if note.kind == "mcq":
            out.append(f"    question: {format_scalar(note.fields['question'], 6)}")
            out.append("    choices:")
            out.extend(_choice_lines(note))
            letters = [letter(a) for a in note.answer]
            out.append(
                f"    answer: {letters[0]}"
                if len(letters) == 1
                else f"    answer: [{', '.join(letters)}]"
            )
            keys = ("explanation",)
        elif note.kind == "typed":
            out.append(f"    question: {format_scalar(note.fields['question'], 6)}")
            out.extend(answer_lines(note.typed or []))
            keys = ("explanation",)
        else:
            keys = ("front", "back") if note.kind == "basic" else ("text", "extra")
            keys = tuple(k for k in keys if k in ("front", "back", "text") or note.fields.get(k))
        for key in keys:
            if note.fields.get(key, "") or key in ("front", "back", "text"):
                out.append(f"    {key}: {format_scalar(note.fields.get(key, ''), 6)}")
        if note.kind == "mcq" and not note.shuffle:
            out.append("    shuffle: false")
        if note.kind == "typed" and note.match_case:
            out.append("    match_case: true")
        if note.add_reverse is not None:
            out.append(f"    add_reverse: {format_scalar(note.add_reverse, 6)}")
        elif note.reverse:
            out.append("    reverse: true")
        if note.tags:
            out.append("    tags:")
            out.extend(f"      - {format_scalar(t, 8)}" for t in note.tags)
    return "\n".join(out) + "\n"


def _choice_lines(note: CardNote) -> list[str]:
    """A choice is plain text, or ``text:`` with its ``feedback:`` and ``pin: true``."""
    out = []
    for i, choice in enumerate(note.choices):
        said = note.feedback[i] if i < len(note.feedback) else ""
        if not said and i not in note.pinned:
            out.append(f"      - {format_scalar(choice, 8)}")
            continue
        out.append(f"      - text: {format_scalar(choice, 10)}")
        if said:
            out.append(f"        feedback: {format_scalar(said, 10)}")
        if i in note.pinned:
            out.append("        pin: true")
    return out
