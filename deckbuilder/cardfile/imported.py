"""The keys a note imported from Anki carries: ``guid:`` (the identity Anki knows it by)
and, on a basic note, ``reverse:`` (a second card, as Anki's "Basic (and reversed card)")
or ``add_reverse:`` (the "Add Reverse" field of Anki's "Basic (optional reversed card)":
a second card when it is not empty).
"""

from __future__ import annotations

from deckbuilder.cardfile.checks import ANKI_EMPTY
from deckbuilder.cardfile.fields import FieldReader
from deckbuilder.cardfile.keys import Key
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, describe


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
