"""Reading an Anki package (``.apkg``, ``.colpkg``): note types, notes, decks and media.

Anki writes three layouts: ``collection.anki2`` (schema 11) and ``collection.anki21``
with a JSON media map and plain media members, and the current ``collection.anki21b``
(schema 18), zstd-compressed, with a zstd-compressed protobuf media map and zstd-compressed
media members. A current package also holds a stub ``collection.anki2`` that says to
upgrade Anki, so the newest collection in the zip is the one read.

The source is never written: the collection is copied out of the zip into a temporary
folder and opened read-only there.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers.base import CardNote
from deckbuilder.importers.html_markdown import field_markdown, markup_losses, shown_text
from deckbuilder.importers.notes_plan import NotesImport, TypeReport, subdeck_warning
from deckbuilder.importers.own_types import OWN_TYPE_IDS, OwnLanguage, own_card_note, own_language
from deckbuilder.model import NoteKind

__all__ = ["AnkiNote", "AnkiNoteType", "AnkiPackage", "package_notes", "read_package"]

# Newest first: a current package holds a stub of each older layout too.
_COLLECTIONS = ("collection.anki21b", "collection.anki21", "collection.anki2")
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# Limits against a package that unpacks to far more than it holds.
MAX_COLLECTION_BYTES = 2 * 1024**3
MAX_MEDIA_FILE_BYTES = 100 * 1024 * 1024  # what Anki syncs (render.MAX_MEDIA_BYTES)


@dataclass(frozen=True)
class AnkiNoteType:
    id: int
    name: str
    is_cloze: bool
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str, str], ...]  # (name, front, back)
    css: str
    mod: int  # seconds since 1970


@dataclass(frozen=True)
class AnkiNote:
    id: int
    guid: str
    type_id: int
    mod: int  # seconds since 1970
    tags: tuple[str, ...]
    fields: tuple[str, ...]
    deck: str  # the deck of its first card ('' if it has none)


@dataclass
class AnkiPackage:
    note_types: dict[int, AnkiNoteType] = field(default_factory=dict)
    notes: list[AnkiNote] = field(default_factory=list)
    media: dict[str, bytes] = field(default_factory=dict)  # file name -> contents


def read_package(path: Path) -> AnkiPackage:
    """Read the package at ``path``; raise DeckError when it is not one Anki wrote."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            member = next((name for name in _COLLECTIONS if name in names), None)
            if member is None:
                raise DeckError.single(path, "not an Anki package: it holds no collection")
            with tempfile.TemporaryDirectory(prefix="deckbuilder-import-") as folder:
                db_path = Path(folder) / "collection.db"
                db_path.write_bytes(_unpacked(zf.read(member), path))
                package = _read_collection(db_path, path)
            package.media = _read_media(zf, names, path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DeckError.single(path, f"cannot read the package: {exc}") from exc
    return package


def _zstd_decompress(data: bytes, path: Path, limit: int) -> bytes:
    import zstandard

    try:
        with zstandard.ZstdDecompressor().stream_reader(data) as reader:
            out = reader.read(limit + 1)
    except zstandard.ZstdError as exc:
        raise DeckError.single(path, f"cannot read the package: {exc}") from exc
    if len(out) > limit:
        raise DeckError.single(path, f"the package unpacks to more than {limit:,} bytes")
    return out


def _unpacked(data: bytes, path: Path, limit: int = MAX_COLLECTION_BYTES) -> bytes:
    return _zstd_decompress(data, path, limit) if data.startswith(_ZSTD_MAGIC) else data


def _read_collection(db_path: Path, path: Path) -> AnkiPackage:
    conn = sqlite3.connect(f"{db_path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "notetypes" in tables:
            note_types, decks = _schema18(conn)
        else:
            note_types, decks = _schema11(conn)
        first_deck = dict(conn.execute("SELECT nid, did FROM cards ORDER BY nid, ord DESC"))
        notes = [
            AnkiNote(
                id=nid,
                guid=guid,
                type_id=mid,
                mod=mod,
                tags=tuple(tags.split()),
                fields=tuple(flds.split("\x1f")),
                deck=decks.get(first_deck.get(nid, 0), ""),
            )
            for nid, guid, mid, mod, tags, flds in conn.execute(
                "SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id"
            )
        ]
    except sqlite3.DatabaseError as exc:
        raise DeckError.single(path, f"cannot read the package's collection: {exc}") from exc
    finally:
        conn.close()
    return AnkiPackage(note_types, notes)


def _schema11(conn: sqlite3.Connection) -> tuple[dict[int, AnkiNoteType], dict[int, str]]:
    models_json, decks_json = conn.execute("SELECT models, decks FROM col").fetchone()
    note_types = {}
    for model in json.loads(models_json).values():
        fields = sorted(model["flds"], key=lambda f: f["ord"])
        templates = sorted(model["tmpls"], key=lambda t: t["ord"])
        note_types[int(model["id"])] = AnkiNoteType(
            id=int(model["id"]),
            name=model["name"],
            is_cloze=model.get("type", 0) == 1,
            fields=tuple(f["name"] for f in fields),
            templates=tuple((t["name"], t["qfmt"], t["afmt"]) for t in templates),
            css=model.get("css", ""),
            mod=int(model.get("mod", 0)),
        )
    decks = {int(d["id"]): d["name"] for d in json.loads(decks_json).values()}
    return note_types, decks


def _schema18(conn: sqlite3.Connection) -> tuple[dict[int, AnkiNoteType], dict[int, str]]:
    fields: dict[int, list[str]] = {}
    for ntid, name in conn.execute("SELECT ntid, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(ntid, []).append(name)
    templates: dict[int, list[tuple[str, str, str]]] = {}
    for ntid, name, config in conn.execute(
        "SELECT ntid, name, config FROM templates ORDER BY ntid, ord"
    ):
        values = _protobuf(config)
        front, back = _text(values, 1), _text(values, 2)  # TemplateConfig q_format, a_format
        templates.setdefault(ntid, []).append((name, front, back))
    note_types = {}
    for ntid, name, mtime, config in conn.execute(
        "SELECT id, name, mtime_secs, config FROM notetypes"
    ):
        values = _protobuf(config)
        note_types[ntid] = AnkiNoteType(
            id=ntid,
            name=name,
            is_cloze=_integer(values, 1) == 1,  # NotetypeConfig.kind: KIND_CLOZE
            fields=tuple(fields.get(ntid, ())),
            templates=tuple(templates.get(ntid, ())),
            css=_text(values, 3),  # NotetypeConfig.css
            mod=mtime,
        )
    # Schema 18 separates deck name parts with U+001F where the name shows "::".
    decks = {
        did: name.replace("\x1f", "::") for did, name in conn.execute("SELECT id, name FROM decks")
    }
    return note_types, decks


def _read_media(zf: zipfile.ZipFile, names: set[str], path: Path) -> dict[str, bytes]:
    if "media" not in names:
        return {}
    raw = zf.read("media")
    media: dict[str, bytes] = {}
    for member, name in _media_map(raw, path):
        if member not in names:
            continue  # Anki lists files it could not find; the card shows them missing
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise DeckError.single(path, f"the package names a media file '{name}' with a folder")
        info = zf.getinfo(member)
        if info.file_size > MAX_MEDIA_FILE_BYTES * 2:
            raise DeckError.single(path, f"media file '{name}' is larger than Anki syncs")
        media[name] = _unpacked(zf.read(member), path, MAX_MEDIA_FILE_BYTES)
    return media


def _media_map(raw: bytes, path: Path) -> Iterator[tuple[str, str]]:
    """(zip member, file name) pairs, from a JSON map or a protobuf MediaEntries."""
    if raw.startswith(_ZSTD_MAGIC):
        entries = _protobuf(_zstd_decompress(raw, path, MAX_COLLECTION_BYTES))
        for number, entry in enumerate(entries.get(1, [])):
            assert isinstance(entry, bytes)
            yield str(number), _text(_protobuf(entry), 1)  # MediaEntry.name
        return
    try:
        mapping = json.loads(raw.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise DeckError.single(path, f"cannot read the package's media list: {exc}") from exc
    for member, name in mapping.items():
        yield str(member), str(name)


# -- a minimal protobuf reader: the few fields above, by number --------------------------------
def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _protobuf(data: bytes) -> dict[int, list[int | bytes]]:
    """Every field of one protobuf message, by number: varints as ints, length-delimited
    fields as bytes (fixed-width fields are skipped)."""
    out: dict[int, list[int | bytes]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            continue
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _text(values: dict[int, list[int | bytes]], number: int) -> str:
    found = values.get(number)
    return found[-1].decode("utf-8") if found and isinstance(found[-1], bytes) else ""


def _integer(values: dict[int, list[int | bytes]], number: int) -> int:
    found = values.get(number)
    return found[-1] if found and isinstance(found[-1], int) else 0


# -- package -> notes ---------------------------------------------------------------------------
def package_notes(package: AnkiPackage, source: str) -> NotesImport:
    """The package's notes as card-file notes, each of a note type this tool can build as
    it was; every other note is counted in the report under its note type."""
    used: dict[int, list[AnkiNote]] = {}
    for note in package.notes:
        used.setdefault(note.type_id, []).append(note)
    result = NotesImport("Anki package", source, _main_deck(package.notes), in_place=True)
    kinds: dict[NoteKind, int] = {}  # kind -> the note type id that takes it
    taken: list[tuple[AnkiNoteType, NoteKind, list[AnkiNote]]] = []
    # The note type with the most notes takes a kind first.
    for type_id, notes in sorted(used.items(), key=lambda item: (-len(item[1]), item[0])):
        anki_type = package.note_types.get(type_id)
        name = anki_type.name if anki_type else f"note type {type_id}"
        kind = OWN_TYPE_IDS.get(type_id) or (_stock_kind(anki_type) if anki_type else None)
        if anki_type is not None and type_id not in OWN_TYPE_IDS and _types_answer(anki_type):
            result.report.append(TypeReport(name, len(notes), _TYPED_ANSWER, False))
            continue
        if kind is None:
            result.report.append(TypeReport(name, len(notes), _OTHER_TYPE, False))
            continue
        if kind in kinds:
            why = (
                f"not imported: a card file keeps one Anki note type per kind of note, and "
                f"{package.note_types[kinds[kind]].name!r} (with more notes) already takes "
                f"the {_shown(kind)} notes; export these notes from Anki as a package of "
                "their own and import that into another card file"
            )
            result.report.append(TypeReport(name, len(notes), why, False))
            continue
        kinds[kind] = type_id
        assert anki_type is not None
        taken.append((anki_type, kind, notes))
    language = own_language(
        [(kind, n.fields) for t, kind, notes in taken if t.id in OWN_TYPE_IDS for n in notes]
    )
    result.language, result.label_language = language.lang, language.label
    for anki_type, kind, notes in taken:
        if anki_type.id in OWN_TYPE_IDS:
            _add_own(result, anki_type, kind, notes, language)
            continue
        result.carried[kind] = (_spec(anki_type, kind), anki_type.mod)
        result.report.append(TypeReport(anki_type.name, len(notes), f"{_shown(kind)} notes", True))
        for note in notes:
            result.notes.append(_card_note(note, kind, result))
    result.notes.sort(key=lambda n: n.anki_id)
    result.media = package.media
    others = sum(1 for note in package.notes if note.deck and note.deck != result.deck)
    if others:
        result.warnings.append(subdeck_warning(source, others, result.deck))
    return result


def _shown(kind: NoteKind) -> str:
    return {
        NoteKind.BASIC_REVERSED: "reversed basic",
        NoteKind.BASIC_OPTIONAL_REVERSED: "basic (optional reversed card)",
    }.get(kind, str(kind))


def _add_own(
    result: NotesImport,
    anki_type: AnkiNoteType,
    kind: NoteKind,
    notes: list[AnkiNote],
    language: OwnLanguage,
) -> None:
    """Notes of one of deckbuilder's own note types: they keep its id, so the lock file
    records only the note type's modification time in the collection."""
    result.own_type_mods[kind] = anki_type.mod
    read = 0
    for note in notes:
        card_note = own_card_note(kind, note.guid, note.fields, language)
        if card_note is None:
            continue
        card_note.tags, card_note.anki_id, card_note.mod = list(note.tags), note.id, note.mod
        result.notes.append(card_note)
        result.source_fields[note.id] = note.fields
        read += 1
    if read:
        result.report.append(TypeReport(anki_type.name, read, f"{_shown(kind)} notes", True))
    if read < len(notes):
        why = "not imported: their fields are not as deckbuilder writes them"
        result.report.append(TypeReport(anki_type.name, len(notes) - read, why, False))


def _main_deck(notes: list[AnkiNote]) -> str:
    counts: dict[str, int] = {}
    for note in notes:
        if note.deck:
            counts[note.deck] = counts.get(note.deck, 0) + 1
    return max(sorted(counts), key=lambda deck: counts[deck], default="")


_OTHER_TYPE = (
    "not imported: deckbuilder builds only Basic, Basic (and reversed card), Basic "
    "(optional reversed card), Cloze and its own note types"
)
_TYPED_ANSWER = (
    "not imported: its cards ask to type the answer ({{type:...}}), and a card-file basic "
    "note cannot; the notes stay in Anki as they are"
)


def _types_answer(anki_type: AnkiNoteType) -> bool:
    return any("{{type:" in front for _, front, _ in anki_type.templates)


def _stock_kind(anki_type: AnkiNoteType) -> NoteKind | None:
    """The card-file kind of a note type shaped as Anki's stock Basic, Basic (and reversed
    card), Basic (optional reversed card) or Cloze (names and templates may be translated
    or restyled)."""
    count = len(anki_type.templates)
    if len(anki_type.fields) == 3 and count == 2 and not anki_type.is_cloze:
        # The second card is asked only when the third field is not empty.
        condition = "{{#" + anki_type.fields[2] + "}}"
        return NoteKind.BASIC_OPTIONAL_REVERSED if condition in anki_type.templates[1][1] else None
    if len(anki_type.fields) != 2:
        return None
    if anki_type.is_cloze:
        return NoteKind.CLOZE if count == 1 else None
    return {1: NoteKind.BASIC, 2: NoteKind.BASIC_REVERSED}.get(count)


def _spec(anki_type: AnkiNoteType, kind: NoteKind) -> NoteTypeSpec:
    (name, front, back), *more = anki_type.templates
    return NoteTypeSpec(
        kind=kind,
        id=anki_type.id,
        name=anki_type.name,
        fields=anki_type.fields,
        template_name=name,
        front=front,
        back=back,
        css=anki_type.css,
        more_templates=tuple(more),
    )


def _card_note(note: AnkiNote, kind: NoteKind, result: NotesImport) -> CardNote:
    cloze = kind is NoteKind.CLOZE
    keys = ("text", "extra") if cloze else ("front", "back")
    fields: dict[str, str] = {}
    label = f"note {note.guid!r}"
    for key, html in zip(keys, note.fields, strict=False):
        converted = field_markdown(html, cloze=cloze)
        fields[key] = converted.markdown
        if not converted.exact:
            lost = "; ".join(markup_losses(html)) or "markup"
            result.warnings.append(
                Problem(
                    result.source,
                    None,
                    f'warning: {label} ("{shown_text(note.fields[0])[:40]}"): its {key} has '
                    f"markup the card format cannot hold: {lost}. Anki keeps showing it as it "
                    "is now; once you change this note in the card file (even only its "
                    "tags) and build, Anki's copy loses that markup",
                )
            )
    optional = kind is NoteKind.BASIC_OPTIONAL_REVERSED
    # "Add Reverse" is kept as Anki has it: built again, the field is the same.
    add_reverse = (note.fields[2] if len(note.fields) > 2 else "") if optional else None
    return CardNote(
        kind="cloze" if cloze else "basic",
        line=0,
        label=label,
        fields=fields,
        tags=list(note.tags),
        guid=note.guid,
        reverse=kind is NoteKind.BASIC_REVERSED,
        anki_id=note.id,
        mod=note.mod,
        add_reverse=add_reverse,
    )
