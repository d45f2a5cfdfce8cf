"""The keys a note imported from Anki carries: ``guid:`` (the identity Anki knows it by)
and, on a basic note, ``reverse:`` (a second card, as Anki's "Basic (and reversed card)").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Note
from ..yamlsource import YMap, YScalar, describe
from .fields import FieldReader

__all__ = ["GUID_RE", "read_flag", "read_guid", "repeated_guids"]

# What Anki writes as a GUID (base-91 text, ten characters or so): printable, no spaces.
# Anki accepts longer ones from other tools; 100 characters leave room for those.
GUID_RE = re.compile(r"[!-~]{1,100}\Z")


def read_guid(fields: FieldReader, item: YMap) -> str:
    """The note's ``guid:``, or '' when it has none (its GUID is then derived from the
    deck id and the note id)."""
    value = item.get("guid")
    if value is None:
        return ""
    if not isinstance(value, YScalar) or value.is_null:
        fields.problem(value.line, f"'guid' must be text, not {describe(value)}")
        return ""
    guid = value.raw
    if not GUID_RE.match(guid):
        fields.problem(
            value.line,
            "'guid' must be 1 to 100 printable ASCII characters without spaces, as "
            "'deckbuilder import' writes it from Anki; keep it as imported",
        )
        return ""
    return guid


def read_flag(fields: FieldReader, item: YMap, key: str) -> bool:
    """A true/false key of a note (false when absent)."""
    value = item.get(key)
    if value is None:
        return False
    if isinstance(value, YScalar) and value.kind == "bool":
        return value.raw.lower() in ("true", "yes", "on", "y")
    fields.problem(value.line, f"'{key}' must be true or false, not {describe(value)}")
    return False


def repeated_guids(fields: FieldReader, notes: Sequence[Note]) -> None:
    """Two notes with one GUID would be one note in Anki, the second overwriting the first."""
    first: dict[str, Note] = {}
    for note in notes:
        if not note.guid:
            continue
        was = first.setdefault(note.guid, note)
        if was is not note:
            fields.note_id = note.id
            fields.problem(
                note.field_line("guid"),
                f"guid '{note.guid}' is also the guid of note '{was.id}' (line {was.line}); "
                "Anki would take them for one note. A copied note needs no guid: delete "
                "this line",
            )
            fields.note_id = None
