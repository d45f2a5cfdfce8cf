"""The notes of a card file: which kind each note is, and the fields of each kind.

Multiple-choice (``question``, ``choices``, ``answer``), cloze (``text`` with
``{{c1::...}}`` deletions) and basic (``front``, ``back``) notes; a note without
``type:`` is the kind whose keys it uses.
"""

from __future__ import annotations

import re
from typing import TypedDict, TypeGuard

from deckbuilder import cloze
from deckbuilder.cardfile.fields import ID_RE, FieldReader, id_problem, is_null, suggest, visible
from deckbuilder.cardfile.imported import read_guid, read_reverse, repeated_guids
from deckbuilder.cardfile.optouts import read_lint_opt_outs, read_pins
from deckbuilder.cardfile.typed import TYPED_KEYS, read_typed
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.model import BasicNote, ClozeNote, McqNote, Note, NoteKind, letter

__all__ = [
    "ALL_NOTE_KEYS",
    "CHOICE_KEYS",
    "COMMON_NOTE_KEYS",
    "MAX_CHOICES",
    "MAX_NOTES",
    "NOTE_KEYS",
    "read_notes",
]

MAX_CHOICES = 26  # one letter each
# Limit against absurd input (documented in README, "Limits").
MAX_NOTES = 100_000
COMMON_NOTE_KEYS = ("id", "type", "tags", "guid", "lint")
NOTE_KEYS: dict[NoteKind, tuple[str, ...]] = {
    NoteKind.MCQ: ("question", "choices", "answer", "explanation", "shuffle"),
    NoteKind.CLOZE: ("text", "extra"),
    NoteKind.BASIC: ("front", "back", "reverse", "add_reverse"),
    NoteKind.TYPED: TYPED_KEYS,  # needs 'type: typed': its keys are also a question's
}
ALL_NOTE_KEYS = COMMON_NOTE_KEYS + tuple(k for keys in NOTE_KEYS.values() for k in keys)
_KIND_NAMES = {kind.value: kind for kind in NOTE_KEYS}  # what `type:` may say
CHOICE_KEYS = ("text", "feedback", "pin")  # a choice written as a mapping

_ANSWER_SPLIT = re.compile(r"[\s,]+")
# A well-formed deletion, removed before looking for malformed ones.
_OPENING = re.compile(r"\{\{c\d+::")
_BAD_CLOZE = re.compile(r"\{\{\s*c\d+\s*:(?!:)|\{\{c\d+::")


class _CommonFields(TypedDict):
    """What every kind of note has (see :class:`deckbuilder.model.Note`)."""

    id: str
    line: int
    tags: tuple[str, ...]
    field_lines: dict[str, int]
    guid: str
    lint_ignored: tuple[str, ...]


def read_notes(fields: FieldReader, tree: YMap) -> list[Note]:
    """The deck's ``notes:`` list; a note with a problem is left out (and reported)."""
    value = tree.get("notes")
    if value is None or is_null(value):
        line = tree.key_line("notes") if "notes" in tree.entries else tree.line
        fields.problem(line, "'notes' is required: a list of notes")
        return []
    if not isinstance(value, YSeq):
        fields.problem(value.line, f"'notes' must be a list, not {describe(value)}")
        return []
    if not value.items and not value.unread:
        fields.problem(value.line, "'notes' is empty; add at least one note")
    if len(value.items) > MAX_NOTES:
        fields.problem(
            value.line,
            f"'notes' has {len(value.items):,} notes; the limit is {MAX_NOTES:,} per file "
            "(split the deck into several files)",
        )
        return []
    notes: list[Note] = []
    first_line: dict[str, int] = {}  # note id -> line of its note
    for item in value.items:
        note = _read_note(fields, item, first_line)
        if note is not None:
            notes.append(note)
    repeated_guids(fields, notes)
    return notes


def _read_note(fields: FieldReader, item: YValue, first_line: dict[str, int]) -> Note | None:
    fields.note_id = None
    if not isinstance(item, YMap):
        fields.problem(
            item.line, f"each note must be a mapping (id:, type:, ...), not {describe(item)}"
        )
        return None
    before = len(fields.problems)
    note_id = fields.text(item, "id", required=True).strip()
    if note_id:
        fields.note_id = note_id
        if not ID_RE.match(note_id):
            fields.problem(item.key_line("id"), id_problem("note id", note_id))
        elif note_id in first_line:
            fields.problem(
                item.key_line("id"), f"duplicate note id (first at line {first_line[note_id]})"
            )
        else:
            first_line[note_id] = item.line
    kind = _note_kind(fields, item)
    if kind is None:
        fields.unknown_keys(item, ALL_NOTE_KEYS, "a note")
        fields.note_id = None
        return None
    fields.unknown_keys(item, COMMON_NOTE_KEYS + NOTE_KEYS[kind], f"a {kind.value} note")
    common = _CommonFields(
        id=note_id,
        line=item.line,
        tags=fields.tags(item),
        field_lines=_field_lines(item),
        guid=read_guid(fields, item),
        lint_ignored=read_lint_opt_outs(fields, item),
    )
    note: Note
    if kind is NoteKind.MCQ:
        note = _read_mcq(fields, item, common)
    elif kind is NoteKind.CLOZE:
        note = _read_cloze(fields, item, common)
    elif kind is NoteKind.TYPED:
        note = read_typed(fields, item, common)
    else:
        reverse, add_reverse = read_reverse(fields, item)
        note = BasicNote(
            **common,
            front=fields.text(item, "front", required=True),
            back=fields.text(item, "back", required=True),
            reverse=reverse,
            add_reverse=add_reverse,
        )
    fields.note_id = None
    return note if len(fields.problems) == before else None


def _note_kind(fields: FieldReader, item: YMap) -> NoteKind | None:
    """The note's ``type:``, or without one the kind whose keys the note uses."""
    value = item.get("type")
    if value is not None:
        before = len(fields.problems)
        written = fields.as_text(value, "type").strip()
        kind = _KIND_NAMES.get(written)
        if kind is None and len(fields.problems) == before:
            names = list(_KIND_NAMES)
            fields.problem(
                value.line,
                f"unknown note type '{written}'; expected one of {', '.join(names)}"
                f"{suggest(written, names)}",
            )
        return kind
    for kind, keys in NOTE_KEYS.items():
        if not item.entries.keys().isdisjoint(keys):
            return kind
    fields.problem(
        item.line, "cannot tell the note type; add 'type: mcq', 'type: cloze' or 'type: basic'"
    )
    return None


def _field_lines(item: YMap) -> dict[str, int]:
    """Where each key of a note starts; choices by entry (``choices[0]``)."""
    lines = dict(item.lines)
    choices = item.get("choices")
    if isinstance(choices, YSeq):
        for i, entry in enumerate(choices.items):
            lines[f"choices[{i}]"] = entry.line
            if _is_choice_map(entry) and "text" in entry.entries:
                lines[f"choices[{i}]"] = entry.key_line("text")
            if _is_choice_map(entry) and "feedback" in entry.entries:
                lines[f"choices[{i}].feedback"] = entry.key_line("feedback")
    return lines


# -- multiple choice ---------------------------------------------------------------------------
def _read_mcq(fields: FieldReader, item: YMap, common: _CommonFields) -> McqNote:
    question = fields.text(item, "question", required=True)
    choices, feedback = _read_choices(fields, item)
    answer = _read_answer(fields, item, len(choices))
    shuffle = fields.flag(item, "shuffle", default=True)
    return McqNote(
        **common,
        question=question,
        choices=tuple(choices),
        answer=answer,
        explanation=fields.text(item, "explanation"),
        shuffle=shuffle,
        feedback=tuple(feedback) if any(feedback) else (),
        pinned=read_pins(fields, item),
    )


def _is_choice_map(entry: YValue) -> TypeGuard[YMap]:
    """A choice written as ``{text: ..., feedback: ...}``. Neither key can be a language
    code, so it is never taken for a language map ({ko: ..., en: ...})."""
    return isinstance(entry, YMap) and not entry.entries.keys().isdisjoint(CHOICE_KEYS)


def _read_choice(fields: FieldReader, entry: YValue, i: int) -> tuple[str, str]:
    """One choice's text and feedback: plain text, a language map, or a mapping with
    ``text:`` and ``feedback:`` (each of them plain text or a language map)."""
    what = f"choices[{i}]"
    if not _is_choice_map(entry):
        return fields.as_text(entry, what, required=True), ""
    fields.unknown_keys(entry, CHOICE_KEYS, f"'{what}'")
    text = entry.get("text")
    if text is None:
        given = "'feedback'" if "feedback" in entry.entries else "'pin'"
        fields.problem(entry.line, f"'{what}' has {given} but no 'text' (the choice itself)")
        choice = ""
    else:
        choice = fields.as_text(text, what, required=True)
    feedback = entry.get("feedback")
    if feedback is None or is_null(feedback):
        return choice, ""
    return choice, fields.as_text(feedback, f"{what}.feedback")


def _read_choices(fields: FieldReader, item: YMap) -> tuple[list[str], list[str]]:
    """The choices' texts and their feedback ('' where a choice has none)."""
    value = item.get("choices")
    if value is None or is_null(value):
        line = item.key_line("choices") if "choices" in item.entries else item.line
        fields.problem(line, "'choices' is required: a list of 2 to 26 answers")
        return [], []
    if not isinstance(value, YSeq):
        fields.problem(value.line, f"'choices' must be a list, not {describe(value)}")
        return [], []
    if not 2 <= len(value.items) <= MAX_CHOICES:
        fields.problem(
            value.line, f"'choices' has {len(value.items)} entries; give 2 to {MAX_CHOICES}"
        )
    out: list[str] = []
    feedback: list[str] = []
    first: dict[str, int] = {}  # a choice compared loosely -> its index
    for i, entry in enumerate(value.items):
        text, said = _read_choice(fields, entry, i)
        feedback.append(said)
        loose = " ".join(text.split()).casefold()
        if loose and loose in first:
            fields.problem(
                entry.line,
                f"choice {letter(i) if i < MAX_CHOICES else i + 1} repeats choice "
                f"{letter(first[loose])}",
            )
        elif loose:
            first[loose] = i
        out.append(text)
    return out, feedback


def _read_answer(fields: FieldReader, item: YMap, n_choices: int) -> tuple[int, ...]:
    """The right choices' indexes, sorted: ``answer: B``, ``answer: [A, C]`` or ``'A, C'``."""
    value = item.get("answer")
    if value is None or is_null(value):
        line = item.key_line("answer") if "answer" in item.entries else item.line
        fields.problem(line, "'answer' is required: a letter (A) or a list of letters ([A, C])")
        return ()
    entries = value.items if isinstance(value, YSeq) else [value]
    if not entries:
        fields.problem(value.line, "'answer' is empty; give at least one letter")
    valid = f"A-{letter(min(n_choices, MAX_CHOICES) - 1)}" if n_choices >= 2 else "a choice letter"
    picked: list[int] = []
    for entry in entries:
        if not isinstance(entry, YScalar) or entry.is_null:
            fields.problem(
                entry.line,
                f"'answer' must be a letter or a list of letters, not {describe(entry)}",
            )
            continue
        raw = entry.raw.strip()
        parts = [p for p in _ANSWER_SPLIT.split(raw) if p] if len(entries) == 1 else [raw]
        for part in parts:
            up = part.upper()
            if len(up) != 1 or not "A" <= up <= "Z":
                fields.problem(
                    entry.line, f"answer '{visible(part)}' is not a choice letter ({valid})"
                )
                continue
            index = ord(up) - ord("A")
            if n_choices and index >= n_choices:
                fields.problem(entry.line, f"answer '{up}' is not one of the choices ({valid})")
            elif index in picked:
                fields.problem(entry.line, f"answer '{up}' is given twice")
            else:
                picked.append(index)
    return tuple(sorted(picked))


# -- cloze -------------------------------------------------------------------------------------
def _read_cloze(fields: FieldReader, item: YMap, common: _CommonFields) -> ClozeNote:
    text = fields.text(item, "text", required=True)
    _check_same_deletions(fields, item.get("text"))
    deletions = cloze.read_deletions(text)
    if text.strip():
        if not deletions.numbers:
            fields.problem(
                item.key_line("text"),
                "cloze text has no deletion; mark answers as {{c1::answer}} or {{c1::answer::hint}}",
            )
        # Anki would show a broken '{{c1:' literally; catch the common slips.
        stripped = _without_deletions(text)
        bad = _BAD_CLOZE.search(stripped)
        if bad:
            fields.problem(
                item.key_line("text"),
                f"malformed cloze near '{stripped[bad.start() : bad.start() + 20]}'; "
                "write {{c1::answer}} with two colons and closing '}}'",
            )
    extra = fields.text(item, "extra")
    # Anki makes cards from the deletions of every field, the extra one too.
    for key, found in (("text", deletions), ("extra", cloze.read_deletions(extra))):
        for message in found.problems:
            fields.problem(item.key_line(key), message)
    return ClozeNote(**common, text=text, extra=extra)


def _check_same_deletions(fields: FieldReader, value: YValue | None) -> None:
    """Every language of a cloze text must number its deletions alike, so that each
    language's deck has the same cards (a translation slip otherwise goes unnoticed)."""
    if not isinstance(value, YMap) or not fields.languages:
        return
    ordinals = {
        code: cloze.card_ordinals(text.raw)
        for code, text in value.entries.items()
        if code in fields.languages and isinstance(text, YScalar) and not text.is_null
    }
    if len(set(ordinals.values())) > 1:
        shown = "; ".join(
            f"{code}: {', '.join(f'c{n + 1}' for n in ords) or 'none'}"
            for code, ords in ordinals.items()
        )
        fields.problem(
            value.line,
            f"the languages of 'text' number their deletions differently ({shown}); "
            "give every language the same {{cN::...}} numbers",
        )


def _without_deletions(text: str) -> str:
    """``text`` less its well-formed deletions (``{{cN::...}}``), so that what remains shows
    the malformed ones. One pass: each opening's closing ``}}`` is searched once."""
    out: list[str] = []
    kept = 0
    while (opening := _OPENING.search(text, kept)) is not None:
        close = text.find("}}", opening.end())
        if close < 0:
            break  # no later opening has a '}}' after it either
        out.append(text[kept : opening.start()])
        kept = close + 2
    out.append(text[kept:])
    return "".join(out)
