"""RenderedDeck -> ``.apkg``, written atomically and reproducibly.

genanki fills the collection database; we write the zip ourselves so that entry order
and entry times are fixed (the same input gives the same bytes), and we write it to a
temporary file beside the target that replaces the target only once complete.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .deckconfig import apply_study
from .errors import OutputError
from .identity import deck_anki_id, note_guid
from .notetypes import NoteTypeSpec
from .progress import step
from .render import RenderedDeck

__all__ = ["PackageInfo", "Stamps", "atomic_write", "write_package"]

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class PackageInfo:
    path: Path
    size: int
    media: int


def _genanki_model(spec: NoteTypeSpec):  # type: ignore[no-untyped-def]
    import genanki

    return genanki.Model(
        spec.id,
        spec.name,
        fields=[{"name": name} for name in spec.fields],
        templates=[{"name": spec.template_name, "qfmt": spec.front, "afmt": spec.back}],
        css=spec.css,
        model_type=genanki.Model.CLOZE if spec.is_cloze else genanki.Model.FRONT_BACK,
    )


@dataclass(frozen=True)
class Stamps:
    """Ids and modification times to give the package instead of ones derived from the
    build time (see :mod:`deckbuilder.manifest`). Missing entries fall back to the build
    time, and ids to a sequence counted from it."""

    note_ids: Mapping[str, int] = field(default_factory=dict)  # note id -> Anki note id
    note_mod: Mapping[str, int] = field(default_factory=dict)  # note id -> seconds
    note_type_mod: Mapping[int, int] = field(default_factory=dict)  # note type id -> seconds


def _write_collection(rd: RenderedDeck, db_path: Path, timestamp: int, stamps: Stamps) -> None:
    import genanki

    deck = rd.deck
    models = {spec.id: _genanki_model(spec) for spec in rd.note_types}
    gdeck = genanki.Deck(deck_anki_id(deck.key), deck.name, description=rd.description)
    total = len(rd.notes)
    written = itertools.count(1)

    class Note(genanki.Note):  # type: ignore[misc]
        """A genanki note that reports progress as genanki writes it."""

        def write_to_db(self, *args: Any, **kwargs: Any) -> None:
            super().write_to_db(*args, **kwargs)
            done = next(written)
            if not done & 255:
                step("writing", done, total)

    for rn in rd.notes:
        gdeck.add_note(
            Note(
                model=models[rn.spec.id],
                fields=list(rn.fields),
                tags=list(rn.tags),
                guid=note_guid(deck.key, rn.note.id),
            )
        )
    conn = sqlite3.connect(db_path)
    try:
        cursor = conn.cursor()
        # genanki numbers rows 1, 2, 3, ...; they are renumbered below. Ids only need to be
        # unique inside the package (Anki matches notes by GUID and keeps a free id), but
        # Anki shows them as creation times, and a note id that stays put is searchable.
        genanki.Package(gdeck).write_to_db(cursor, timestamp, itertools.count(1))
        _stamp(cursor, rd, timestamp, stamps)
        # A deterministic preset time: Anki inserts presets it lacks and ignores the rest.
        apply_study(
            conn, deck, deck_anki_id(deck.key), max(stamps.note_mod.values(), default=timestamp)
        )
        conn.commit()
        cursor.execute("VACUUM")
    finally:
        conn.close()


def _stamp(cursor: sqlite3.Cursor, rd: RenderedDeck, timestamp: int, stamps: Stamps) -> None:
    """Give notes, cards and note types their fixed ids and modification times."""
    key = rd.deck.key
    fallback = itertools.count(timestamp * 1000)
    new_nid: dict[int, int] = {}
    note_mod: dict[int, int] = {}
    # One query for all rows: 'notes.guid' has no index, so a lookup per note is quadratic.
    row_of_guid = dict(cursor.execute("SELECT guid, id FROM notes"))
    for rn in rd.notes:
        old = row_of_guid[note_guid(key, rn.note.id)]
        nid = stamps.note_ids.get(rn.note.id)
        new_nid[old] = next(fallback) if nid is None else nid
        note_mod[old] = stamps.note_mod.get(rn.note.id, timestamp)
    cursor.executemany(
        "UPDATE notes SET id = ?, mod = ? WHERE id = ?",
        [(new_nid[old], note_mod[old], old) for old in new_nid],
    )
    # Card ids follow their note's id (Anki shows a card id as the day it was added):
    # in note order, each card takes its note's id or the next id after the previous card.
    cards = cursor.execute("SELECT id, nid, ord FROM cards").fetchall()
    cards.sort(key=lambda c: (new_nid[c[1]], c[2]))
    updates = []
    cid = 0
    for old_cid, old_nid, _ord in cards:
        cid = max(new_nid[old_nid], cid + 1)
        updates.append((cid, new_nid[old_nid], note_mod[old_nid], old_cid))
    cursor.executemany("UPDATE cards SET id = ?, nid = ?, mod = ? WHERE id = ?", updates)
    (models_json,) = cursor.execute("SELECT models FROM col").fetchone()
    models = json.loads(models_json)
    for spec in rd.note_types:
        models[str(spec.id)]["mod"] = stamps.note_type_mod.get(spec.id, timestamp)
    cursor.execute("UPDATE col SET models = ?", (json.dumps(models),))


def atomic_write(target: Path, write: object) -> None:
    """Call ``write(tmp_path)`` on a temporary file beside ``target``, then rename it
    into place. On any failure (or Ctrl-C) the previous ``target`` is left untouched."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)  # type: ignore[operator]
        # mkstemp makes the file private; give it the mode an ordinary new file gets.
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {target}: {reason}; the previous file was kept") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _zip_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def write_package(
    rd: RenderedDeck,
    target: Path,
    *,
    timestamp: int,
    stamps: Stamps | None = None,
) -> PackageInfo:
    """Write ``rd`` to ``target`` (an .apkg). ``timestamp`` (seconds since the epoch) is
    the modification time given to notes and note types, and the start of their ids,
    unless ``stamps`` says otherwise. The same input gives the same bytes."""
    with tempfile.TemporaryDirectory(prefix="deckbuilder-") as tmpdir:
        db_path = Path(tmpdir) / "collection.anki2"
        _write_collection(rd, db_path, timestamp, stamps or Stamps())
        media_names = list(rd.media)

        def write_zip(tmp: Path) -> None:
            with zipfile.ZipFile(tmp, "w") as zf:
                zf.writestr(_zip_entry("collection.anki2"), db_path.read_bytes())
                media_map = {str(i): name for i, name in enumerate(media_names)}
                zf.writestr(_zip_entry("media"), json.dumps(media_map, ensure_ascii=False))
                for i, name in enumerate(media_names):
                    zf.writestr(_zip_entry(str(i)), rd.media[name].read_bytes())

        atomic_write(target, write_zip)
    return PackageInfo(target, target.stat().st_size, len(media_names))
