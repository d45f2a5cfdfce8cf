"""The keys a note imported from Anki carries: ``guid:`` (the identity Anki knows it by)
and, on a basic note, ``reverse:`` (a second card, as Anki's "Basic (and reversed card)")
or ``add_reverse:`` (the "Add Reverse" field of Anki's "Basic (optional reversed card)":
a second card when it is not empty).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deckbuilder.cardfile.fields import FieldReader
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, describe
from deckbuilder.model import Note

__all__ = ["GUID_RE", "read_guid", "read_reverse", "repeated_guids"]

# What Anki writes as a GUID (base-91 text, ten characters or so): printable, no spaces.
# Anki accepts longer ones from other tools; 100 characters leave room for those.
GUID_RE = re.compile(r"[!-~]{1,100}\Z")
# A field Anki counts as empty when it decides which cards a note has (rslib's
# field_is_empty): nothing but white space and line-break or div tags.
_ANKI_EMPTY = re.compile(r"(?:\s|</?(?:br|div) ?/?>)*\Z", re.IGNORECASE)


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


def read_reverse(fields: FieldReader, item: YMap) -> tuple[bool, str | None]:
    """A basic note's (second card?, ``add_reverse:`` text or None)."""
    value = item.get("add_reverse")
    if value is None:
        return fields.flag(item, "reverse", default=False), None
    if item.get("reverse") is not None:
        fields.problem(
            value.line,
            "give 'reverse' or 'add_reverse', not both: 'add_reverse' is the \"Add Reverse\" "
            'field of Anki\'s "Basic (optional reversed card)", and the second card is made '
            "when it is not empty",
        )
    if not isinstance(value, YScalar):
        fields.problem(value.line, f"'add_reverse' must be text, not {describe(value)}")
        return False, None
    text = "" if value.is_null else value.raw
    return not _ANKI_EMPTY.match(text), text


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
