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
from dataclasses import dataclass
from pathlib import Path

from .deckconfig import apply_study
from .errors import OutputError
from .identity import deck_anki_id, note_guid
from .notetypes import NoteTypeSpec
from .render import RenderedDeck

__all__ = ["PackageInfo", "atomic_write", "write_package"]

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


def _write_collection(
    rd: RenderedDeck, db_path: Path, timestamp: int, note_mod: Mapping[str, int]
) -> None:
    import genanki

    deck = rd.deck
    models = {spec.id: _genanki_model(spec) for spec in rd.note_types}
    gdeck = genanki.Deck(deck_anki_id(deck.key), deck.name, description=rd.description)
    for rn in rd.notes:
        gdeck.add_note(
            genanki.Note(
                model=models[rn.spec.id],
                fields=list(rn.fields),
                tags=list(rn.tags),
                guid=note_guid(deck.key, rn.note.id),
            )
        )
    conn = sqlite3.connect(db_path)
    try:
        cursor = conn.cursor()
        # Ids only need to be unique inside the package (Anki matches notes by GUID);
        # deriving them from the timestamp keeps the database reproducible.
        ids = itertools.count(timestamp * 1000)
        genanki.Package(gdeck).write_to_db(cursor, timestamp, ids)
        apply_study(conn, deck, deck_anki_id(deck.key), timestamp)
        if note_mod:
            cursor.executemany(
                "UPDATE notes SET mod = ? WHERE guid = ?",
                [(mod, note_guid(deck.key, nid)) for nid, mod in note_mod.items()],
            )
        conn.commit()
    finally:
        conn.close()


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
    note_mod: Mapping[str, int] | None = None,
) -> PackageInfo:
    """Write ``rd`` to ``target`` (an .apkg). ``timestamp`` (seconds since the epoch) is
    the modification time given to notes and note types unless ``note_mod`` (note id ->
    seconds) says otherwise for a note."""
    with tempfile.TemporaryDirectory(prefix="deckbuilder-") as tmpdir:
        db_path = Path(tmpdir) / "collection.anki2"
        _write_collection(rd, db_path, timestamp, note_mod or {})
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
