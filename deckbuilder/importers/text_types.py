"""Note types a text file's notes come in onto when they have more than two fields.

Anki's text export names each note's note type (``#notetype:NAME`` or a note type
column) but does not carry it: its fields, cards and styling stay in the collection. A
note type the card format has no short form for is declared from the columns instead:
its fields named by ``#columns:`` (or a spreadsheet's header row) where those name them,
else ``Field 1`` .. ``Field N``, and one card that asks the first field and shows the
others on the back (a cloze card when every note's first field has a deletion). A note
type of the project (``note-types/<key>.yaml``) can be chosen instead, for a file that
names none; its fields take the columns by name where the column names match them, else
in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deckbuilder.importers.any_type import declared_type, type_key
from deckbuilder.note_types import CardTemplate, NoteType, TypeKind
from deckbuilder.templates import name_problems

_CLOZE = re.compile(r"\{\{c\d+::")


def field_names(labels: Sequence[str], width: int) -> tuple[str, ...]:
    """``width`` field names: each column's label where Anki would keep it as a field
    name (and no other field has it), else ``Field N``."""
    names: list[str] = []
    seen: set[str] = set()
    for number in range(1, width + 1):
        label = labels[number - 1].strip() if number <= len(labels) else ""
        candidates = [label] if label and not name_problems("", label, field_name=True) else []
        candidates += [f"Field {number}", *(f"Field {number}-{n}" for n in range(2, width + 2))]
        name = next(c for c in candidates if c.casefold() not in seen)
        seen.add(name.casefold())
        names.append(name)
    return tuple(names)


def columns_type(
    name: str,
    labels: Sequence[str],
    notes: Sequence[Sequence[str]],
    taken: set[str],
    *,
    key: str = "",
) -> NoteType | str:
    """A note type named ``name`` for ``notes`` (each note's fields' HTML, column by
    column), its fields named from ``labels``; or why Anki would refuse it. Its key
    (``key``, else a slug of its name not in ``taken``) is added to ``taken``."""
    width = max((len(fields) for fields in notes), default=0)
    fields = field_names(labels, width)
    cloze = bool(notes) and all(fields and _CLOZE.search(fields[0]) for fields in notes)
    first, others = fields[0], fields[1:]
    shown = "<br>\n".join(f"{{{{{field}}}}}" for field in others)
    if cloze:
        front = f"{{{{cloze:{first}}}}}"
        back = front + (f"<br>\n{shown}" if shown else "")
    else:
        front = f"{{{{{first}}}}}"
        back = "{{FrontSide}}\n\n<hr id=answer>\n\n" + shown
    key = key or type_key(name, taken)
    found = declared_type(
        NoteType(
            key=key,
            name=name.strip() or key,
            fields=fields,
            templates=(CardTemplate("Card 1", front, back),),
            kind=TypeKind.CLOZE if cloze else TypeKind.STANDARD,
        ),
        notes,
    )
    if isinstance(found, NoteType):
        taken.add(key)
    return found
