"""The content rules of notes, as one function over the model: :func:`deck_problems`.

The loader reads a card file's structure (known keys, the shape of each value) and then
runs these checks on the notes it built; an importer runs the same checks on the notes
it builds in memory. Each problem is located by the note's lines (``note.line``,
``note.field_lines``) in ``deck.source``, so that it points into whatever file the
notes came from.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Sequence
from typing import Any

from deckbuilder import cloze
from deckbuilder.cardfile.fields import (
    ID_RE,
    MAX_FIELD_BYTES,
    UNSTORABLE,
    id_problem,
    shown,
    suggest,
    unstorable_problem,
)
from deckbuilder.cardfile.keys import (
    GUID_PATTERN,
    MAX_ANSWERS,
    NOTE_LAST,
    NOTE_TYPES,
)
from deckbuilder.errors import Problem, plural
from deckbuilder.invisible import is_blank, without_invisible
from deckbuilder.model import (
    MAX_CHOICES,
    BasicNote,
    ClozeNote,
    FieldsNote,
    ImageOcclusionNote,
    McqNote,
    Note,
    NoteKind,
    TypedAnswer,
    TypedNote,
    choice_letters,
    letter,
)
from deckbuilder.note_types import BUILT_IN
from deckbuilder.templates import cloze_fields, fields_named

GUID_RE = re.compile(f"(?:{GUID_PATTERN})\\Z")
# The keys of each note type whose text must not be empty.
# Anki builds a card from a Basic note whose Back is empty: only its front must have text.
_REQUIRED = {
    t.kind: frozenset(k.name for k in t.keys if k.required)
    - ({"back"} if t.kind is NoteKind.BASIC else set())
    for t in NOTE_TYPES
}
_LINT_CODES = next(key for key in NOTE_LAST if key.name == "lint").values
# A well-formed deletion, removed before looking for malformed ones.
_OPENING = re.compile(r"\{\{c\d+::")
_BAD_CLOZE = re.compile(r"\{\{\s*c\d+\s*:(?!:)|\{\{c\d+::")
# A deletion's opening as written in Markdown (a backslash before it shows the braces).
_CLOZE_MARK_WRITTEN = re.compile(r"(?<!\\)\{\{c(\d+)::")
_BACKTICKS = re.compile(r"`+")
# A field Anki counts as empty when it decides which cards a note has (rslib's
# field_is_empty): nothing but white space and line-break or div tags.
ANKI_EMPTY = re.compile(r"(?:\s|</?(?:br|div) ?/?>)*\Z", re.IGNORECASE)


_NONE: tuple[Problem, ...] = ()


def note_problems(
    notes: Sequence[Note],
    file: str,
    unread: Sequence[Collection[str]] = (),
    tags: Spellings | None = None,
    renderable: list[bool] | None = None,
) -> list[Sequence[Problem]]:
    """The problems of each note, in the order of ``notes``. ``unread``: for each note,
    the keys the loader could not read (a problem already said why), whose content is
    not checked again. ``tags``: the tags' spellings so far (the deck's own tags).
    ``renderable`` gets, for each note, whether its content is sound despite its problems
    (an id or GUID another note has too, a deletion outside a cloze note), so that it can
    be checked further."""
    first_id: dict[str, Note] = {}
    first_guid: dict[str, Note] = {}
    spellings = tags if tags is not None else Spellings("tag")
    out: list[Sequence[Problem]] = []
    for i, note in enumerate(notes):
        check = _NoteCheck(file, note, unread[i] if unread else ())
        check.identity(first_id, first_guid, spellings)
        check.texts()
        shape_checks = _SHAPE_CHECKS.get(note.kind)
        if shape_checks is not None:
            shape_checks(check, note)
        own = BUILT_IN.get(note.kind.value)
        if own is not None and not own.is_cloze:
            # (a declared note type's templates say what it shows)
            check.cloze_marks()
        out.append(check.problems or _NONE)
        if renderable is not None:
            renderable.append(len(check.problems) == check.renderable_problems)
    return out


def text_problem(what: str, text: str, *, required: bool = False) -> str | None:
    """What is wrong with the text of field ``what``: too long, characters Anki cannot
    store, or (``required``) nothing but white space; None when nothing is."""
    short = len(text) * 4 <= MAX_FIELD_BYTES  # a character is at most 4 bytes
    filled = not required or not is_blank(text)
    if short and filled and UNSTORABLE.search(text) is None:
        return None  # most text, told apart at the cost of one search
    size = 0 if short else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FIELD_BYTES:
        return f"'{what}' is {size:,} bytes; the limit is {MAX_FIELD_BYTES:,}"
    unstorable = unstorable_problem(text)
    if unstorable:
        return f"'{what}' {unstorable}"
    if not filled:
        if not text or text.isspace():
            return f"'{what}' is empty"
        return (
            f"'{what}' shows nothing: it holds only invisible characters (such as U+200B), "
            "white space or line breaks"
        )
    return None


def tag_problem(tag: str) -> str | None:
    """What is wrong with one tag of a deck or note, None when nothing is: Anki stores a
    tag as it is unless it holds a space (two tags then) or a part between '::' with no
    text (named 'blank' then: ``x::`` becomes ``x::blank``)."""
    problem = text_problem("tags", tag, required=True)
    if problem is None and any(ch.isspace() for ch in tag):
        return f"tag '{shown(tag)}' contains a space; Anki tags cannot (use '_' or '-')"
    if problem is None and "::" in tag:
        parts = tag.split("::")
        if any(is_blank(part) for part in parts):
            kept = "::".join(part for part in parts if not is_blank(part))
            fix = f": write '{shown(kept)}'" if kept else ""
            if all(parts):  # Anki keeps a part of invisible characters, which shows nothing
                return f"tag '{shown(tag)}' has a part between '::' that shows nothing{fix}"
            anki = "::".join(part or "blank" for part in parts)
            return (
                f"tag '{shown(tag)}' has an empty part between '::'; Anki would name it "
                f"'blank' ({shown(anki)}){fix}"
            )
    return problem


# What Anki trims from each part of a deck name: white space and ':' (rslib decks/name.rs).
_TRIMMED_IN_DECK_NAMES = ":" + "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


def deck_name_part(part: str) -> str:
    """A part of a deck name (between '::') as Anki keeps it: without white space or ':'
    around it; '' for a part that shows nothing (Anki would call it 'blank')."""
    kept = part.strip(_TRIMMED_IN_DECK_NAMES)
    return "" if is_blank(kept) else kept


def deck_name_problem(name: str) -> str | None:
    """Why Anki would not keep the deck name ``name`` as it is (a part with no text, or
    white space or ':' around a part: ``Biology :: Cells``, ``a:::b``), with the name it
    would keep; None when it keeps it."""
    parts = name.split("::")
    kept = [deck_name_part(part) for part in parts]
    if kept == parts and all(kept):
        return None
    fix = "::".join(part for part in kept if part)
    advice = f": write '{shown(fix)}'" if fix else ""
    if not all(kept):
        return (
            f"deck name '{shown(name)}' has an empty part between '::' (Anki would name it "
            f"'blank'){advice}"
        )
    anki = "::".join(kept)
    return (
        f"deck name '{shown(name)}' would be renamed '{shown(anki)}' by Anki, which drops "
        f"spaces and ':' around '::'{advice}"
    )


class Spellings:
    """The spelling a name has first, for names Anki matches without case (tags, deck
    names), part by part along '::': Anki gives ``foo`` the spelling of an earlier ``Foo``,
    and ``foo::b`` that of ``Foo::a``'s parent. Names that differ only by invisible
    characters are two names in Anki that look like one: refused too."""

    def __init__(self, what: str) -> None:
        self.what = what  # 'tag', 'deck name'
        # casefolded part without invisible characters -> (its first spelling, where it
        # is, the parts below it)
        self._first: dict[str, tuple[str, str, dict[str, Any]]] = {}

    def problem(self, name: str, where: str) -> str | None:
        """Why ``name`` would not reach Anki as it is spelt here, given the names before
        it; None when it would. ``where`` says where it is ('line 4'), for the message
        about a later name."""
        level = self._first
        spelt: list[str] = []
        parts = name.split("::")
        for depth, part in enumerate(parts):
            key = without_invisible(part).casefold()
            first, first_where, below = level.setdefault(key, (part, where, {}))
            if first != part:
                other = "::".join([*spelt, first])
                at = f" ({first_where})" if first_where else ""
                if part.casefold() == first.casefold():
                    fix = "::".join([*spelt, first, *parts[depth + 1 :]])
                    return (
                        f"{self.what} '{shown(name)}' and '{shown(other)}'{at} differ only in "
                        f"case; Anki spells them alike: write '{shown(fix)}'"
                    )
                return (
                    f"{self.what} '{shown(name)}' and '{shown(other)}'{at} differ only by "
                    "invisible characters: Anki keeps them apart, and they look the same; "
                    "delete the invisible characters"
                )
            spelt.append(part)
            level = below
        return None

    def spelling(self, name: str) -> str:
        """``name`` spelt as Anki would spell it after the names before it (each part as
        the first like it was), and kept as a name before the next."""
        level = self._first
        spelt: list[str] = []
        for part in name.split("::"):
            key = without_invisible(part).casefold()
            first, _, below = level.setdefault(key, (part, "", {}))
            spelt.append(first)
            level = below
        return "::".join(spelt)


class _NoteCheck:
    """The checks of one note, collecting its problems."""

    __slots__ = ("failed", "file", "note", "problems", "renderable_problems", "unread")

    def __init__(self, file: str, note: Note, unread: Collection[str]) -> None:
        self.file = file
        self.note = note
        self.unread = unread
        self.problems: list[Problem] = []
        # Fields with a problem of their own: their content is not judged further.
        self.failed: set[str] = set()
        # Problems that leave the note's content sound (its id or GUID is another note's
        # too, a deletion it cannot hide): it is checked further (rendered), so that they
        # hide nothing else.
        self.renderable_problems = 0

    def problem(self, key: str, message: str, line: int | None = None) -> None:
        """A problem of the field ``key``, told on its line (or on ``line``)."""
        # Messages name the note by its id, unless that id could carry a control
        # character to the terminal.
        note_id = self.note.id
        who = note_id if note_id and UNSTORABLE.search(note_id) is None else None
        where = self.note.field_line(key) if line is None else line
        self.problems.append(Problem(self.file, where, message, who))

    def identity(
        self, first_id: dict[str, Note], first_guid: dict[str, Note], tags: Spellings
    ) -> None:
        note = self.note
        if "id" not in self.unread:
            wrong = text_problem("id", note.id, required=True)
            if wrong is None and not ID_RE.match(note.id):
                wrong = id_problem("note id", note.id)
            elif wrong is None and note.id in first_id:
                wrong = f"duplicate note id (first at line {first_id[note.id].line})"
                self.renderable_problems += 1
            if wrong:
                self.problem("id", wrong)
            else:
                first_id[note.id] = note
        for i, tag in enumerate(note.tags):
            key = f"tags[{i}]"
            line = note.field_line(key)
            wrong = tag_problem(tag) or tags.problem(tag, f"line {line}" if line else "")
            if wrong:
                self.problem(key, wrong)
        for i, code in enumerate(note.lint_ignored):
            if code not in _LINT_CODES:
                self.problem(
                    f"lint[{i}]",
                    f"unknown lint rule '{shown(code)}' in 'lint'{suggest(code, _LINT_CODES)}; "
                    f"the rules are {', '.join(_LINT_CODES)}",
                )
        if not note.guid:
            return
        if not GUID_RE.match(note.guid):
            self.problem(
                "guid",
                "'guid' must be 1 to 100 printable ASCII characters without spaces, as "
                "'deckbuilder import' writes it from Anki; keep it as imported",
            )
            return
        was = first_guid.setdefault(note.guid, note)
        if was is not note:
            self.renderable_problems += 1
            self.problem(
                "guid",
                f"guid '{note.guid}' is also the guid of note '{was.id}' (line {was.line}); "
                "Anki would take them for one note. A copied note needs no guid: delete "
                "this line",
            )

    def texts(self) -> None:
        """Every text field: its size, its characters, and not empty where required."""
        required = _REQUIRED.get(self.note.kind, frozenset())
        for key, text in self.note.texts().items():
            what = self.name(key)
            if self.unread and (key in self.unread or what in self.unread):
                continue
            # 'choices[2]' is required as choices are; 'choices[2].feedback' is not.
            base = key if key[-1] != "]" else key[: key.index("[")]
            wrong = text_problem(what, text, required=base in required)
            if wrong:
                self.problem(key, wrong)
                self.failed.add(key)

    def name(self, key: str) -> str:
        """How a message names the field ``key`` of :meth:`Note.texts`: a typed-answer
        note's only answer is 'answer', as it is written."""
        if key == "answer[0]" and isinstance(self.note, TypedNote) and len(self.note.answers) == 1:
            return "answer"
        return key

    def declared(self, note: FieldsNote) -> None:
        """A note of a declared note type makes a card (Anki's "empty card" otherwise), and
        its deletions are in fields its note type shows through ``{{cloze:}}``."""
        self.deletions_shown_as_typed(note)
        if note.card_ordinals or any(key.split(".")[0] == "fields" for key in self.unread):
            return  # a field that could not be read has its own message
        note_type = note.note_type
        if note_type.is_cloze:
            message = (
                f"this note makes no card: a note of the cloze note type '{note_type.key}' "
                "needs a deletion such as {{c1::...}} in a field"
            )
        else:
            named = dict.fromkeys(n for t in note_type.templates for n in fields_named(t.front))
            fill = " or ".join(f"'{name}'" for name in named or note_type.fields[:1])
            message = (
                f"this note makes no card: no card of note type '{note_type.key}' shows "
                f"a field it fills; fill {fill} (Anki would make an empty card)"
            )
        self.problem("fields", message)

    def deletions_shown_as_typed(self, note: FieldsNote) -> None:
        """A deletion in a field no template shows through ``{{cloze:}}``: Anki shows it
        braces and all, and a cloze note type still makes a card of its number (a blank
        front where no field shown as cloze has that number)."""
        note_type = note.note_type
        as_cloze: set[str] = set()
        for template in note_type.templates:
            as_cloze |= cloze_fields(template.front) | cloze_fields(template.back)
        for name, text in zip(note_type.fields, note.fields, strict=True):
            key = f"fields.{name}"
            if name in as_cloze or key in self.failed or key in self.unread:
                continue
            found = _CLOZE_MARK_WRITTEN.search(_without_code(text))
            if found is None or not cloze.read_deletions(text).numbers:
                continue
            close = text.find("}}", found.end())
            deletion = text[found.start() : close + 2] if close >= 0 else found.group()
            if note_type.is_cloze:
                cloze_names = " or ".join(f"'{n}'" for n in note_type.fields if n in as_cloze)
                does = (
                    f", and still makes card {found.group(1)} of it, blank where no field it "
                    "shows with {{cloze:...}} has that number"
                )
                instead = f"put the deletion in {cloze_names}"
            else:
                does = ""
                instead = (
                    "use a note type of kind: cloze; to show the braces on purpose, write "
                    f"\\{{{{c{found.group(1)}::"
                )
            self.problem(
                key,
                f"field '{name}' holds the cloze deletion '{shown(deletion, 40)}', but note "
                f"type '{note_type.key}' shows '{name}' without {{{{cloze:...}}}}: Anki shows "
                f"it as typed, braces and all{does}. To hide it, {instead}",
                note.line_in(key, found.start()),
            )

    def mcq(self, note: McqNote) -> None:
        count = len(note.choices)
        if "choices" not in self.unread:
            if not 2 <= count <= MAX_CHOICES:
                self.problem(
                    "choices",
                    f"'choices' has {plural(count, 'entry', 'entries')}; give 2 to {MAX_CHOICES}",
                )
            first: dict[str, int] = {}  # a choice compared loosely -> its index
            for i, text in enumerate(note.choices):
                loose = _as_it_looks(text)
                if loose and loose in first and f"choices[{i}]" not in self.failed:
                    # (a choice the loader could not read is '', never a repeat)
                    shown = letter(i) if i < MAX_CHOICES else str(i + 1)
                    self.problem(
                        f"choices[{i}]", f"choice {shown} repeats choice {letter(first[loose])}"
                    )
                elif loose:
                    first.setdefault(loose, i)
            for pin in note.pinned:
                if not 0 <= pin < count:
                    self.problem(
                        "choices", f"a pinned choice ({pin + 1}) is not one of the choices"
                    )
            if len(note.feedback) > count:
                self.problem("choices", "there is more feedback than choices")
        if "answer" in self.unread:
            return
        if not note.answer:
            self.problem("answer", "'answer' is empty; give at least one letter")
        valid = choice_letters(count)
        for position, index in enumerate(note.answer):
            key = f"answer[{position}]"
            if index < 0 or (count and "choices" not in self.unread and index >= count):
                self.problem(key, f"answer '{letter(index)}' is not one of the choices ({valid})")
            elif index in note.answer[:position]:
                self.problem(key, f"answer '{letter(index)}' is given twice")

    def cloze(self, note: ClozeNote) -> None:
        if "text" in self.failed or "text" in self.unread:
            return
        text = note.text
        deletions = cloze.read_deletions(text)
        if text.strip():
            # Anki would show a broken '{{c1:' literally; catch the common slips. One
            # message for one slip: a text whose only deletion is broken has none.
            stripped = _without_deletions(text)
            bad = _BAD_CLOZE.search(stripped)
            if bad:
                near = stripped[bad.start() : bad.start() + 20].split("\n")[0]
                self.problem(
                    "text",
                    f"malformed cloze near '{near}'; write {{{{c1::answer}}}} with two colons "
                    "and closing '}}'",
                    self.note.line_of("text", near),
                )
            elif not deletions.numbers:
                self.problem(
                    "text",
                    "cloze text has no deletion; mark answers as {{c1::answer}} or "
                    "{{c1::answer::hint}}",
                )
        # Anki makes cards from the deletions of every field, the extra one too.
        for key, found in (("text", deletions), ("extra", cloze.read_deletions(note.extra))):
            if key not in self.failed and key not in self.unread:
                for message in found.problems:
                    self.problem(key, message)

    def occlusion(self, note: ImageOcclusionNote) -> None:
        """Anki makes a card for each deletion number in any field of the note: a
        deletion in the header or the back would be a card with no mask."""
        for key in ("header", "back_extra", "comments"):
            if key not in self.unread and cloze.read_deletions(note.texts()[key]).numbers:
                self.problem(
                    key,
                    f"'{key}' has a cloze deletion ({{{{c1::...}}}}): Anki would make a card "
                    "of it that hides no part of the picture; the masks are the cards",
                )

    def cloze_marks(self) -> None:
        """A cloze deletion written in a note of another type: Anki shows it as typed,
        braces and all (only a cloze note type hides it). One problem per field."""
        note = self.note
        for key, text in note.texts().items():
            if "{{c" not in text or key in self.failed or key in self.unread:
                continue
            answer = isinstance(note, TypedNote) and key.startswith("answer[")
            # (an accepted answer is plain text, compared as typed: no code, no escapes)
            found = _CLOZE_MARK_WRITTEN.search(text if answer else _without_code(text))
            if found is None:
                continue
            close = text.find("}}", found.end())
            deletion = text[found.start() : close + 2] if close >= 0 else found.group()
            where = f"'{key}'" if key[-1] != "]" else key
            instead = (
                "write the text under 'text:' (and the back under 'extra:')"
                if isinstance(note, BasicNote)
                else "write it as a cloze note, with 'text:'"
            )
            self.renderable_problems += 1
            if answer:
                message = (
                    f"{self.name(key)} holds the cloze deletion '{shown(deletion, 40)}', "
                    "which the learner would have to type, braces and all: to hide a part of "
                    "a text, write it as a cloze note, with 'text:'; an accepted answer is the "
                    "text as it is typed"
                )
            else:
                message = (
                    f"{where} holds the cloze deletion '{shown(deletion, 40)}', which a "
                    f"{note.kind.value} note shows as typed, braces and all: to hide it, "
                    f"{instead}; to show the braces on purpose, write \\{{{{c{found.group(1)}::"
                )
            self.problem(key, message, note.line_in(key, found.start()))

    def basic(self, note: BasicNote) -> None:
        if note.add_reverse is None or "add_reverse" in self.unread:
            return
        wrong = text_problem("add_reverse", note.add_reverse)
        if wrong:
            self.problem("add_reverse", wrong)
        elif note.reverse == bool(ANKI_EMPTY.match(note.add_reverse)):
            self.problem(
                "add_reverse",
                "'reverse' must be whether 'add_reverse' has text: Anki makes the second "
                "card exactly then",
            )

    def typed(self, note: TypedNote) -> None:
        if "answer" in self.unread:
            return
        count = len(note.answers)
        if not count:
            if not any(key.startswith("answer[") for key in self.unread):
                self.problem("answer", "'answer' is empty; give at least one accepted answer")
            return
        if count > MAX_ANSWERS:
            self.problem("answer", f"'answer' has {count} entries; the limit is {MAX_ANSWERS}")
            return
        seen: dict[str, int] = {}
        for i, answer in enumerate(note.answers):
            key = f"answer[{i}]"
            if key in self.failed or self.name(key) in self.unread or key in self.unread:
                continue
            wrong = _typed_answer_problem(self.name(key), answer)
            if wrong:
                self.problem(key, wrong)
                continue
            loose = answer.shown if answer.is_number else _as_it_looks(answer.text)
            if loose in seen:
                self.problem(key, f"{self.name(key)} repeats answer[{seen[loose]}]")
            else:
                seen[loose] = i


# The checks of each kind of note's own shape (choices and answers, deletions, masks...).
_SHAPE_CHECKS: dict[NoteKind, Callable[[_NoteCheck, Any], None]] = {
    NoteKind.MCQ: _NoteCheck.mcq,
    NoteKind.CLOZE: _NoteCheck.cloze,
    NoteKind.BASIC: _NoteCheck.basic,
    NoteKind.TYPED: _NoteCheck.typed,
    NoteKind.IMAGE_OCCLUSION: _NoteCheck.occlusion,
    NoteKind.DECLARED: _NoteCheck.declared,
}


def _as_it_looks(text: str) -> str:
    """``text`` as a reader tells it from another: case, runs of white space and
    invisible characters make no difference."""
    return " ".join(without_invisible(text).split()).casefold()


def _typed_answer_problem(what: str, answer: TypedAnswer) -> str | None:
    if not answer.is_number:
        if "\n" in answer.text.strip():
            return f"'{what}' must be one line: the learner types it in one box"
        return None
    low, high = answer.low, answer.high
    if low is not None and high is not None and math.inf in (abs(low), abs(high)):
        return (
            f"'{what}' is too large a number for the card to compare (more than 308 digits "
            "before the point)"
        )
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return f"'{what}' must be a number or a range of two numbers"
    if low > high:
        return f"'{what}': 'min' ({low:g}) is above 'max' ({high:g})"
    return None


def _without_code(text: str) -> str:
    """``text`` with its code blanked (each character a space, so that offsets stay):
    from a run of backticks to the next run as long, as Markdown pairs them (a fenced
    block's fences too). Each run is looked at once."""
    if "`" not in text:
        return text
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    out, kept, i = [], 0, 0
    while i < len(runs):
        start, end = runs[i]
        same = by_length[end - start]
        after = bisect_right(same, i)
        if after == len(same):
            i += 1  # no closing run: the backticks are text
            continue
        closing = same[after]
        out += [text[kept:start], " " * (runs[closing][1] - start)]
        kept, i = runs[closing][1], closing + 1
    return "".join([*out, text[kept:]])


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
