"""The notes of a card file: which kind each note is, and the fields of each kind.

Multiple-choice (``question``, ``choices``, ``answer``), cloze (``text`` with
``{{c1::...}}`` deletions) and basic (``front``, ``back``) notes; a note without
``type:`` is the kind whose keys it uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import TypedDict, TypeGuard

import yaml

from deckbuilder import cloze
from deckbuilder.cardfile.checks import ANKI_EMPTY, Spellings, note_problems, text_problem
from deckbuilder.cardfile.declared import (
    DeclaredTypes,
    read_declared_note_fields,
    unknown_note_fields,
)
from deckbuilder.cardfile.fields import UNSTORABLE, FieldReader, is_null, shown, suggest, trimmed
from deckbuilder.cardfile.keys import (
    CHOICE,
    MAX_NOTES,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPES,
    SPOKEN,
    Key,
    Shape,
    key_names,
    keyed,
    note_keys,
    note_type_named,
)
from deckbuilder.cardfile.occlusion import read_image_occlusion
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.cardfile.typed import read_typed
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.model import (
    MAX_CHOICES,
    BasicNote,
    ClozeNote,
    FieldsNote,
    McqNote,
    Note,
    NoteKind,
    choice_letters,
    letter,
)
from deckbuilder.note_types import NoteType

COMMON_NOTE_KEYS = key_names(NOTE_FIRST + NOTE_LAST)
NOTE_KEYS: dict[NoteKind, tuple[str, ...]] = {t.kind: key_names(t.keys) for t in NOTE_TYPES}
ALL_NOTE_KEYS = tuple(dict.fromkeys(k for t in NOTE_TYPES for k in key_names(note_keys(t.kind))))
_KIND_NAMES = {kind.value: kind for kind in NOTE_KEYS}  # what `type:` may say
CHOICE_KEYS = key_names(CHOICE)  # a choice written as a mapping
# Each kind's keys by name, for reading them by their declaration.
_KEYS = {t.kind: keyed(note_keys(t.kind)) for t in NOTE_TYPES}
_COMMON = keyed(NOTE_FIRST + NOTE_LAST)

_ANSWER_SPLIT = re.compile(r"[\s,]+")


class _CommonFields(TypedDict):
    """What every kind of note has (see :class:`deckbuilder.model.Note`)."""

    id: str
    line: int
    tags: tuple[str, ...]
    field_lines: dict[str, int]
    text_lines: dict[str, tuple[tuple[int, int], ...]]
    guid: str
    lint_ignored: tuple[str, ...]


def read_notes(
    fields: FieldReader,
    tree: YMap,
    tags: Spellings | None = None,
    declared: DeclaredTypes | None = None,
    speak: tuple[str, ...] = (),
) -> list[Note]:
    """The deck's ``notes:`` list, each note checked (:mod:`.checks`); a note with a
    problem is left out (and reported), unless its problems leave its content sound (an
    id or GUID another note has too). ``tags``: the spellings of the deck's own tags;
    ``declared``: the note types of the author's own that notes may name; ``speak``: the
    deck's ``speak:`` keys, for the notes that give none."""
    value = tree.get("notes")
    if value is None or is_null(value):
        fields.problem(tree.key_line("notes"), "'notes' is required: a list of notes")
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
    unread: list[Collection[str]] = []
    misread: list[bool] = []  # whether the note's structure had a problem
    for item in value.items:
        before = len(fields.problems)
        note = _read_note(fields, item, declared, speak)
        if note is not None:
            notes.append(note)
            unread.append(fields.unread or ())
            misread.append(len(fields.problems) > before)
    kept: list[Note] = []
    sound: list[bool] = []
    found = note_problems(notes, fields.file, unread, tags, sound)
    for note, wrong, problems, renderable in zip(notes, misread, found, sound, strict=True):
        fields.problems.extend(problems)
        # A note whose problems leave its content sound (an id another note has too) is
        # checked further (its media, its math), so that they hide none of its others.
        if not wrong and renderable:
            kept.append(note)
    return kept


def _read_note(
    fields: FieldReader,
    item: YValue,
    declared: DeclaredTypes | None,
    deck_speak: tuple[str, ...] = (),
) -> Note | None:
    """The note ``item`` describes, as well as it can be read (its problems reported);
    None when not even its type can be told."""
    fields.note_id = None
    fields.unread = set()
    fields.text_lines = {}
    if not isinstance(item, YMap):
        fields.problem(
            item.line, f"each note must be a mapping (id:, type:, ...), not {describe(item)}"
        )
        return None
    note_id = trimmed(fields.text(item, "id", required=True))
    if note_id and UNSTORABLE.search(note_id) is None:  # never a control character in a message
        fields.note_id = note_id
    kind = _note_kind(fields, item, declared)
    if kind is NoteKind.MCQ and _typed_without_saying(item):
        # Read as the fix makes it, so that its other problems are told in this run.
        fields.problem(
            item.line,
            "this note has a 'question' and an 'answer' but no 'choices': for an answer the "
            "learner types, add 'type: typed' to it (a multiple-choice note lists 'choices' "
            "and answers with their letters)",
        )
        kind = NoteKind.TYPED
    if kind is None:
        fields.unknown_keys(item, (*ALL_NOTE_KEYS, "fields"), "a note")
        fields.note_id = None
        return None
    if isinstance(kind, NoteType):
        allowed = (*COMMON_NOTE_KEYS, "fields")
        fields.unknown_keys(item, allowed, f"a note of note type '{kind.key}'")
    else:
        fields.unknown_keys(item, COMMON_NOTE_KEYS + NOTE_KEYS[kind], f"a {kind.value} note")
    tags = fields.read(item, _COMMON["tags"])
    lint = read_lint_opt_outs(fields, item)
    lines = _field_lines(item)
    for name, found in (("tags", tags), ("lint", lint)) if tags or lint else ():
        lines.update((f"{name}[{i}]", line) for i, (_, line) in enumerate(found))
    common = _CommonFields(
        id=note_id,
        line=item.line,
        tags=tuple(tag for tag, _ in tags),
        field_lines=lines,
        text_lines=fields.text_lines,
        guid=read_guid(fields, item),
        lint_ignored=tuple(code for code, _ in lint),
    )
    spoken = _read_speak(fields, item, kind, deck_speak)
    note: Note
    if isinstance(kind, NoteType):
        texts, field_lines = read_declared_note_fields(fields, item, kind)
        common["field_lines"].update(field_lines)
        note = FieldsNote(**common, note_type=kind, fields=texts)
    else:
        note = _READERS[kind](fields, item, common)
    fields.note_id = None
    return replace(note, speak=spoken) if spoken else note


def _read_speak(
    fields: FieldReader, item: YMap, kind: NoteKind | NoteType, deck_speak: tuple[str, ...]
) -> tuple[str, ...]:
    """The keys of the texts the note's cards speak: its own ``speak:`` (each a text it
    has), else those of the deck's it has."""
    spoken = SPOKEN.get(kind, ()) if isinstance(kind, NoteKind) else ()
    if "speak" not in item.entries:
        return tuple(key for key in deck_speak if key in spoken)
    found = []
    for key, line in fields.read(item, _COMMON["speak"]):
        if isinstance(kind, NoteType):
            fields.problem(
                line,
                f"a note of note type '{kind.key}' speaks through its templates: write "
                "{{tts ko_KR:Field}} in a card's front or back",
                "speak",
            )
        elif key not in spoken:
            fields.problem(line, _not_spoken(key, kind, spoken), "speak")
        else:
            found.append(key)
    return tuple(found)


def _not_spoken(key: str, kind: NoteKind, spoken: tuple[str, ...]) -> str:
    if kind is NoteKind.CLOZE and key == "text":
        return (
            "a cloze note's 'text' cannot be spoken: the front would say the answer; speak "
            "'extra', or use a note type of your own with {{tts ko_KR:cloze-only:Text}}"
        )
    return (
        f"'speak' names '{shown(key)}', not a text a {kind.value} note can speak "
        f"({', '.join(spoken)}){suggest(key, spoken)}"
    )


def _note_kind(
    fields: FieldReader, item: YMap, declared: DeclaredTypes | None
) -> NoteKind | NoteType | None:
    """The note's ``type:`` (one of deckbuilder's kinds, or a note type of the author's
    own), or without one the kind whose keys the note uses."""
    value = item.get("type")
    if value is not None:
        before = len(fields.problems)
        written = trimmed(fields.as_text(value, "type"))
        wrong = text_problem("type", written)
        if wrong:
            fields.problem(value.line, wrong)
        kind = _KIND_NAMES.get(written)
        own = declared.get(written) if kind is None and declared is not None else None
        if own is not None:
            return own
        refused = declared is not None and written in declared.refused
        if declared is not None and written in declared.refused_fields:
            unknown_note_fields(fields, item, written, declared.refused_fields[written])
        if kind is None and len(fields.problems) == before and not refused:
            names = [*_KIND_NAMES, *(declared.known() if declared is not None else ())]
            meant = note_type_named(written)
            hint = f"; did you mean '{meant.kind}'?" if meant else suggest(written, names)
            fields.problem(
                value.line,
                f"unknown note type '{shown(written)}'; expected one of {', '.join(names)}{hint}",
            )
        return kind
    for kind, keys in NOTE_KEYS.items():
        if not item.entries.keys().isdisjoint(keys):
            return kind
    if "fields" in item.entries:
        fields.problem(
            item.line,
            "a note with 'fields:' is of a note type of your own: name it with 'type: <key>'",
        )
        return None
    fields.problem(
        item.line, "cannot tell the note type; add 'type: mcq', 'type: cloze' or 'type: basic'"
    )
    return None


def _typed_without_saying(item: YMap) -> bool:
    """A note without 'type:' that asks a question and gives an answer that is not choice
    letters, with no choices: meant to be typed (a typed note needs 'type: typed')."""
    if "type" in item.entries or "choices" in item.entries or "question" not in item.entries:
        return False
    answer = item.get("answer")
    if answer is None or is_null(answer):
        return False
    entries = answer.items if isinstance(answer, YSeq) else [answer]
    letters = [
        part
        for entry in entries
        if isinstance(entry, YScalar)
        for part in _ANSWER_SPLIT.split(entry.raw.strip())
        if part
    ]
    return not letters or not all(len(part) == 1 and part.isalpha() for part in letters)


def _field_lines(item: YMap) -> dict[str, int]:
    """Where each key of a note starts; choices by entry (``choices[0]``)."""
    lines = dict(item.lines)
    choices = item.get("choices")
    if isinstance(choices, YSeq):
        written = item.key_line("choices")
        for i, entry in enumerate(choices.items):
            lines[f"choices[{i}]"] = entry.line
            if _is_choice_map(entry) and "text" in entry.entries:
                lines[f"choices[{i}]"] = entry.key_line("text")
            if _is_choice_map(entry) and "feedback" in entry.entries:
                lines[f"choices[{i}].feedback"] = entry.key_line("feedback")
        # A YAML alias (choices: *ch) repeats a value anchored above, in another note: its
        # lines are that note's, so this note's choices are told at its own 'choices:'.
        for key, line in lines.items():
            if key.startswith("choices[") and line < written:
                lines[key] = written
    return lines


# -- multiple choice ---------------------------------------------------------------------------
def _read_cloze(fields: FieldReader, item: YMap, common: _CommonFields) -> ClozeNote:
    keys = _KEYS[NoteKind.CLOZE]
    note = ClozeNote(
        **common,
        text=fields.read(item, keys["text"]),
        extra=fields.read(item, keys["extra"]),
    )
    _check_same_deletions(fields, item.get("text"))
    return note


def _read_basic(fields: FieldReader, item: YMap, common: _CommonFields) -> BasicNote:
    keys = _KEYS[NoteKind.BASIC]
    reverse, add_reverse = read_reverse(fields, item, keys["reverse"])
    return BasicNote(
        **common,
        front=fields.read(item, keys["front"]),
        back=fields.read(item, keys["back"]),
        reverse=reverse,
        add_reverse=add_reverse,
    )


def _read_mcq(fields: FieldReader, item: YMap, common: _CommonFields) -> McqNote:
    keys = _KEYS[NoteKind.MCQ]
    question = fields.read(item, keys["question"])
    choices, feedback = _read_choices(fields, item)
    answer = _read_answer(fields, item, choices)
    common["field_lines"].update((f"answer[{i}]", line) for i, (_, line) in enumerate(answer))
    shuffle = fields.read(item, keys["shuffle"])
    return McqNote(
        **common,
        question=question,
        choices=tuple(choices),
        answer=tuple(index for index, _ in answer),
        explanation=fields.read(item, keys["explanation"]),
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
        return fields.as_text(entry, what), ""
    fields.unknown_keys(entry, CHOICE_KEYS, f"'{what}'")
    text = entry.get("text")
    if text is None:
        given = "'feedback'" if "feedback" in entry.entries else "'pin'"
        fields.problem(entry.line, f"'{what}' has {given} but no 'text' (the choice itself)", what)
        choice = ""
    else:
        choice = fields.as_text(text, what)
    feedback = entry.get("feedback")
    if feedback is None or is_null(feedback):
        return choice, ""
    return choice, fields.as_text(feedback, f"{what}.feedback")


def _read_choices(fields: FieldReader, item: YMap) -> tuple[list[str], list[str]]:
    """The choices' texts and their feedback ('' where a choice has none)."""
    value = item.get("choices")
    if value is None or is_null(value):
        line = item.key_line("choices")
        fields.problem(line, "'choices' is required: a list of 2 to 26 answers", "choices")
        return [], []
    if isinstance(value, YMap) and fields.languages and fields.is_language_map(value):
        # A list per language would let the languages' letters, and so the answer, differ.
        example = ", ".join(f"{code}: ..." for code in fields.languages)
        fields.problem(
            value.line,
            "'choices' is one list for every language, as the answer letters are; give each "
            f"choice its own language map: choices: [{{{example}}}, {{{example}}}]",
            "choices",
        )
        return [], []
    if not isinstance(value, YSeq):
        fields.problem(
            value.line,
            f"'choices' must be a list, not {describe(value)}{_as_list(value)}",
            "choices",
        )
        return [], []
    read = [_read_choice(fields, entry, i) for i, entry in enumerate(value.items)]
    return [text for text, _ in read], [said for _, said in read]


def _as_list(value: YValue) -> str:
    """For choices written as one text of comma-separated answers (``choices: Ramipril,
    Losartan``), the line that lists them: ``; write choices: [Ramipril, Losartan]``."""
    if not isinstance(value, YScalar) or value.is_null or "," not in value.raw:
        return "; write the choices in brackets, choices: [first, second], or one per line"
    items = [part.strip() for part in value.raw.split(",")]
    if not all(items):
        return "; write the choices in brackets, choices: [first, second], or one per line"
    listed = yaml.safe_dump(items, default_flow_style=True, allow_unicode=True, width=1 << 30)
    return f"; write choices: {listed.strip()}"


def _read_answer(fields: FieldReader, item: YMap, choices: list[str]) -> list[tuple[int, int]]:
    """The right choices' indexes, each with its line, sorted: ``answer: B``, ``answer:
    [A, C]`` or ``'A, C'``. A letter given twice is kept twice (the checks say so)."""
    value = item.get("answer")
    if value is None or is_null(value):
        line = item.key_line("answer")
        fields.problem(
            line, "'answer' is required: a letter (A) or a list of letters ([A, C])", "answer"
        )
        return []
    entries = value.items if isinstance(value, YSeq) else [value]
    count = len(choices)
    valid = choice_letters(count)
    picked: list[tuple[int, int]] = []
    for entry in entries:
        if not isinstance(entry, YScalar) or entry.is_null:
            fields.problem(
                entry.line,
                f"'answer' must be a letter or a list of letters, not {describe(entry)}",
                "answer",
            )
            continue
        raw = entry.raw.strip()
        meant = _choice_named(raw, choices)
        if meant is not None:
            fields.problem(
                entry.line,
                f"answer '{shown(raw)}' is not a choice letter ({valid}); it is the text "
                f"of choice {letter(meant)}: did you mean {letter(meant)}?",
                "answer",
            )
            continue
        parts = [p for p in _ANSWER_SPLIT.split(raw) if p] if len(entries) == 1 else [raw]
        for part in parts:
            up = part.upper()
            if len(up) != 1 or not "A" <= up <= "Z":
                fields.problem(
                    entry.line,
                    f"answer '{shown(part)}' is not a choice letter ({valid})",
                    "answer",
                )
                continue
            picked.append((ord(up) - ord("A"), entry.line))
    return sorted(picked)


def _choice_named(written: str, choices: list[str]) -> int | None:
    """The index of the choice whose text an answer gives instead of its letter (compared
    as the choices are: white space joined, case ignored), or None."""
    loose = " ".join(written.split()).casefold()
    if len(loose) <= 1:
        return None  # a letter, or nothing
    for i, choice in enumerate(choices[:MAX_CHOICES]):
        if " ".join(choice.split()).casefold() == loose:
            return i
    return None


# -- cloze -------------------------------------------------------------------------------------
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


# How each built-in note type's notes are read, by kind: their keys are their own.
_READERS: dict[NoteKind, Callable[[FieldReader, YMap, _CommonFields], Note]] = {
    NoteKind.MCQ: _read_mcq,
    NoteKind.CLOZE: _read_cloze,
    NoteKind.BASIC: _read_basic,
    NoteKind.TYPED: read_typed,
    NoteKind.IMAGE_OCCLUSION: read_image_occlusion,
}


# Two keys an author writes for something lint would otherwise question: a choice that
# keeps its place while the others shuffle (`{text: None of the above, pin: true}`), and
# a note's opt-outs from lint rules (`lint: [longest-correct]`).
def read_pins(fields: FieldReader, item: YMap) -> tuple[int, ...]:
    """The indexes of the note's choices written with ``pin: true``, sorted."""
    choices = item.get("choices")
    if not isinstance(choices, YSeq):
        return ()
    pinned: list[int] = []
    for i, entry in enumerate(choices.items):
        if isinstance(entry, YMap) and fields.flag(
            entry, "pin", default=False, what=f"choices[{i}].pin"
        ):
            pinned.append(i)
    return tuple(pinned)


def read_lint_opt_outs(fields: FieldReader, item: YMap) -> list[tuple[str, int]]:
    """The rule codes of the note's ``lint:`` (one code or a list), each once, with its
    line; whether each is a rule is for :mod:`.checks`."""
    value = item.get("lint")
    if value is None or is_null(value):
        return []
    entries = value.items if isinstance(value, YSeq) else [value]
    codes: dict[str, int] = {}
    for entry in entries:
        if not isinstance(entry, YScalar) or entry.is_null:
            fields.problem(
                entry.line,
                f"'lint' must be {SHAPES[Shape.LINT].phrase}, not {describe(entry)}",
                "lint",
            )
            continue
        codes.setdefault(entry.raw.strip(), entry.line)
    return list(codes.items())


# The keys a note imported from Anki carries: `guid:` (the identity Anki knows it by)
# and, on a basic note, `reverse:` (a second card, as Anki's "Basic (and reversed card)")
# or `add_reverse:` (the "Add Reverse" field of Anki's "Basic (optional reversed card)":
# a second card when it is not empty).
def read_guid(fields: FieldReader, item: YMap) -> str:
    """The note's ``guid:`` as written, or '' when it has none (its GUID is then derived
    from the deck id and the note id)."""
    value = item.get("guid")
    if value is None:
        return ""
    if not isinstance(value, YScalar) or value.is_null:
        fields.problem(value.line, f"'guid' must be text, not {describe(value)}", "guid")
        return ""
    if not value.raw:  # as the schema says: a GUID is never empty
        fields.problem(value.line, "'guid' is empty; delete the line to derive one", "guid")
    return value.raw


def read_reverse(fields: FieldReader, item: YMap, reverse: Key) -> tuple[bool, str | None]:
    """A basic note's (second card?, ``add_reverse:`` text or None); ``reverse`` is the
    declaration of its 'reverse' key."""
    value = item.get("add_reverse")
    if value is None:
        return fields.read(item, reverse), None
    if item.get("reverse") is not None:
        fields.problem(
            value.line,
            "give 'reverse' or 'add_reverse', not both: 'add_reverse' is the \"Add Reverse\" "
            'field of Anki\'s "Basic (optional reversed card)", and the second card is made '
            "when it is not empty",
            "add_reverse",
        )
    if not isinstance(value, YScalar):
        fields.problem(
            value.line, f"'add_reverse' must be text, not {describe(value)}", "add_reverse"
        )
        return False, None
    text = "" if value.is_null else value.raw
    return not ANKI_EMPTY.match(text), text
