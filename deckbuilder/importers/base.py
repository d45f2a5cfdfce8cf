"""What every importer gives: :class:`SourceNotes`, the model's notes found in one source file
(each with its source line), grouped by the deck they belong to, with what could not be
carried and why. Helpers shared by the readers: stable note ids, answer letters.

An importer never prints and never writes; :mod:`deckbuilder.importers.plan` checks the
notes in memory and turns them into files.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.anki.notetypes.active_content import Found
from deckbuilder.errors import Problem, shown
from deckbuilder.model import ClozeNote, FieldsNote, Note, NoteKind, choice_letters

SLUG_LENGTH = 40
HASH_LENGTH = 6


@dataclass(frozen=True)
class Skipped:
    """Something in the source that does not become a note, and why. ``kind`` groups it
    in the summary ('essay', 'description'; '' for a note with a problem)."""

    line: int | None
    reason: str
    kind: str = ""
    who: str = ""  # how a note without a line is named: "note 'Ab1Cd2'"


@dataclass(frozen=True)
class Tally:
    """What became of the notes of one note type of the source (or of a spreadsheet's
    rows): ``outcome`` is what they became ("basic notes"), or why they stay out."""

    name: str  # as the source names it ("Basic"), or "FILE rows"
    notes: int
    outcome: str
    imported: bool = True


@dataclass
class SourceDeck:
    """The notes of one deck of the source, in source order. ``name`` is the deck's name
    as the source gives it ('' when it gives none)."""

    name: str
    notes: list[Note] = field(default_factory=list)
    description: str = ""
    # Names of the decks the notes came from, beside the main one (subdecks): each held
    # in this deck's card file.
    subdecks: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class AnkiIdentity:
    """What keeps a note from a package the note Anki has: its note id and modification
    time there (written to the lock file)."""

    note_id: int
    mod: int


@dataclass(frozen=True)
class ActiveContent:
    """What a note type kept from a package runs or fetches when Anki shows a card
    (:mod:`deckbuilder.anki.notetypes.active_content`): removed from the card file's copy
    of its templates and CSS, or ``kept`` there as the user asked, by its name."""

    note_type: str
    found: tuple[Found, ...]
    kept: bool


@dataclass
class PackageParts:
    """What an Anki package brings beside its notes."""

    # Note types kept as they were (with their modification time), and the modification
    # times of deckbuilder's own note types in the collection.
    carried: dict[NoteKind, tuple[NoteTypeSpec, int]] = field(default_factory=dict)
    # What the carried note types run or fetch, and each one as the collection has it
    # where the card file's copy is without that (the lock file records the collection's,
    # so that the first build updates the note type in Anki).
    # By note type key (a NoteKind's value, or a declared note type's key).
    active: dict[str, ActiveContent] = field(default_factory=dict)
    in_collection: dict[str, NoteTypeSpec] = field(default_factory=dict)
    own_type_mods: dict[NoteKind, int] = field(default_factory=dict)
    # The modification times of the note types that come in declared, by key.
    declared_mods: dict[str, int] = field(default_factory=dict)
    media: dict[str, bytes] = field(default_factory=dict)
    missing_media: tuple[str, ...] = ()  # named in the media list, absent from the zip
    identities: dict[str, AnkiIdentity] = field(default_factory=dict)  # by GUID
    # Fields of own-type notes as the package has them, by GUID: the card file must
    # build them back the same.
    source_fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Own-type notes built for one language of a bilingual card file ('' for none), else
    # the multiple-choice labels' language.
    language: str = ""
    label_language: str = ""
    speak_language: str = ""  # the language own-type notes speak in ('' when none does)


@dataclass
class SourceNotes:
    """Everything one importer read from one source file."""

    format: str  # "quiz", "aiken", "gift", "spreadsheet", "Anki text", "Anki package"
    source: Path
    decks: list[SourceDeck] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    # Whether the source names its decks (a package, Anki text with a deck column): then
    # a requested deck name chooses among them instead of naming the one deck.
    named_decks: bool = False
    # What became of each source note type's notes (3 of Basic became basic notes).
    report: list[Tally] = field(default_factory=list)
    # What is told besides, neither an error nor a warning (severity note).
    notes_after: list[Problem] = field(default_factory=list)
    # Warnings that --strict refuses.
    strict_refusals: list[Problem] = field(default_factory=list)
    # Note lines whose answer is missing -> the format's own words for it, where it says
    # them (Aiken: where the next question starts, as Moodle does).
    unanswered: dict[int, Problem] = field(default_factory=dict)
    package: PackageParts | None = None

    @property
    def notes(self) -> list[Note]:
        return [note for deck in self.decks for note in deck.notes]


def decks_of(notes: list[tuple[str, Note]]) -> list[SourceDeck]:
    """Notes with the names of the decks they are in -> one deck per top-level deck, in
    order of first note. Each is named by the deepest deck all its notes share (every
    note in 'A::B' makes the deck 'A::B'); notes in decks below that are its subdecks'."""
    groups: dict[str, list[tuple[str, Note]]] = {}
    for path_name, note in notes:
        groups.setdefault(path_name.split("::")[0].strip(), []).append((path_name, note))
    out: list[SourceDeck] = []
    for group in groups.values():
        paths = [path_name.split("::") for path_name, _ in group]
        shared = paths[0]
        for path in paths[1:]:
            n = 0
            while n < min(len(shared), len(path)) and shared[n] == path[n]:
                n += 1
            shared = shared[:n]
        name = "::".join(shared)
        source_deck = SourceDeck(name, [note for _, note in group])
        for path_name, _ in group:
            if path_name != name:
                source_deck.subdecks[path_name] = source_deck.subdecks.get(path_name, 0) + 1
        out.append(source_deck)
    return out


def slugify(text: str, limit: int = SLUG_LENGTH) -> str:
    """ASCII letters and digits of ``text``, lowercase, words joined by '-', at most
    ``limit`` characters (cut at a word boundary when possible)."""
    ascii_text = (
        unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    )
    words = re.findall(r"[a-z0-9]+", ascii_text)
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > limit:
            if not out:
                out = word[:limit]
            break
        out = candidate
    return out


def short_hash(text: str, length: int = HASH_LENGTH) -> str:
    """A short hex hash of ``text`` with its white space normalised (re-wrapping a line
    keeps it)."""
    norm = " ".join(unicodedata.normalize("NFC", text).split())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:length]


def note_id_for(text: str) -> str:
    """A stable note id from a question's text: readable slug plus a short hash of the
    whole text, so questions without ASCII words (Korean-only) get distinct ids too."""
    slug = slugify(text)
    return f"{slug}-{short_hash(text)}" if slug else f"q-{short_hash(text)}"


# What a note shows, less its markup: HTML tags, pictures and sounds, cloze marks (the
# hidden text stays, a hint goes), Markdown emphasis and escapes.
_TAGS = re.compile(r"<[^>]*>|!\[[^\]]*\]\([^)]*\)|\[sound:[^\]]*\]")
_CLOZE = re.compile(r"\{\{c\d+::(.*?)(?:::[^}]*)?\}\}", re.DOTALL)
_MARKS = re.compile(r"\\(?=[^\w\s])|[*_`]+")


def id_text(note: Note) -> str:
    """The text a note's id is made from: its first field (a declared note type's sort
    field) as it shows, so that the id (and the GUID derived from it) does not change
    with markup."""
    text = next(iter(note.texts().values()), "")
    if isinstance(note, FieldsNote) and note.fields:
        # The field Anki's browser sorts by, which its author chose to name the note.
        text = note.fields[note.note_type.sort_field] or next(filter(None, note.fields), "")
    if isinstance(note, ClozeNote) or (isinstance(note, FieldsNote) and note.note_type.is_cloze):
        text = _CLOZE.sub(r"\1", text)
    return _MARKS.sub("", _TAGS.sub(" ", text))


def distinct_ids(bases: list[str]) -> list[str]:
    """``bases`` made distinct in order: a repeated one gets -2, -3, ... (the lowest number
    not yet taken). Each base goes on counting from the number it reached last, so 12,000
    equal rows take linear time, not 12,000 tries each."""
    ids: list[str] = []
    seen: set[str] = set()
    reached: dict[str, int] = {}  # base -> the last number tried for it
    for base in bases:
        nid, n = base, reached.get(base, 1)
        if n > 1:
            nid = f"{base}-{n}"
        while nid in seen:
            n += 1
            nid = f"{base}-{n}"
        reached[base] = n
        seen.add(nid)
        ids.append(nid)
    return ids


def with_ids(notes: list[Note]) -> list[Note]:
    """``notes`` with their ids: a name the source gave (already in ``id``, made an id),
    else one from the text; repeated ones get -2, -3, ..."""
    bases = [slugify(note.id) or note_id_for(id_text(note)) for note in notes]
    return [replace(note, id=nid) for note, nid in zip(notes, distinct_ids(bases), strict=True)]


_ANSWER_ITEM_WITH_TEXT = re.compile(r"([A-Za-z]|\d{1,3})[.)]\s+\S")


def parse_answer(
    value: str, n_choices: int, file: str, line: int, *, numbers: bool = True
) -> tuple[list[int], list[Problem]]:
    """Read 'B', 'A, C', '1, 3' (1-based) or 'B) the choice text' into 0-based indexes."""
    value = value.strip()
    if _ANSWER_ITEM_WITH_TEXT.match(value):  # 'B) Extra computation': the letter counts
        value = re.split(r"[.)]", value, maxsplit=1)[0]
    tokens = [t for t in re.split(r"[\s,;/&+]+|\band\b", value) if t]
    valid = choice_letters(n_choices)
    picked: list[int] = []
    problems: list[Problem] = []
    for raw in tokens:
        token = raw.strip("().[]*")
        if len(token) == 1 and token.isascii() and token.isalpha():
            index = ord(token.upper()) - ord("A")
        elif numbers and len(token) == 1 and "\u2460" <= token <= "\u2473":  # ① .. ⑳
            index = ord(token) - 0x2460
        elif numbers and token.isascii() and token.isdigit():
            # A number longer than any choice count is none of them (and int() refuses
            # one of over 4,300 digits).
            index = int(token) - 1 if len(token.lstrip("0")) <= 3 else n_choices
        else:
            hint = "letters (B) or numbers from 1" if numbers else "a letter (B)"
            problems.append(Problem(file, line, f"cannot read answer {shown(raw)}; write {hint}"))
            continue
        if not 0 <= index < n_choices:
            problems.append(
                Problem(file, line, f"answer {shown(raw)} is not one of the choices ({valid})")
            )
        elif index in picked:
            problems.append(Problem(file, line, f"answer {shown(raw)} is given twice"))
        else:
            picked.append(index)
    return sorted(picked), problems
