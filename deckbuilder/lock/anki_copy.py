"""What a note looks like in Anki, as one hash: the lock file's ANKI-HASH.

A build writes it for the field values and tags it gives Anki, and ``pull`` for the ones
it takes from Anki; the next ``pull`` compares Anki's copy with it to tell whether the
note was edited in Anki since. Anki keeps the field values a package gives it byte for
byte, but not its tags: it sorts them, and spells a tag the collection already has
in another case as the collection does (measured with the backend, anki 26.9.3). So
tags count as a set, compared without case, as Anki compares them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

_HASH_CHARS = 16  # as the content hash (deckbuilder.lock.manifest)


def anki_copy_hash(fields: Sequence[str], tags: Iterable[str]) -> str:
    """The hash of a note's field values, in order, and of its tags."""
    digest = hashlib.sha256()
    for value in fields:
        digest.update(value.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")  # Anki's own field separator: no field holds it
    digest.update(b"\x1e")
    for tag in sorted({tag.casefold() for tag in tags}):
        digest.update(tag.encode("utf-8", "surrogatepass"))
        digest.update(b" ")  # no tag holds a space
    return digest.hexdigest()[:_HASH_CHARS]
