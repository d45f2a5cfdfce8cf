"""Names for what an import writes: a deck's card file and its id, from the deck's name,
in any script (docs/importing.md, "Names").

- A name in ASCII gives both the file name and the id as today's slug: lowercase words
  joined by '-' (``Week 1: Basics`` -> ``cards/week-1-basics.yaml``, ``id: week-1-basics``).
- Any other name keeps its own letters in the file name (``머신러닝 1주차`` ->
  ``cards/머신러닝-1주차.yaml``): characters a file name cannot hold become '-'. Its id,
  which must be ASCII, is the name romanised by anyascii, slugged, with a short hash of
  the name itself after it (``meosinleoning-1jucha-5d1e``): readable, and different for
  two names that romanise alike.
"""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

from deckbuilder.cardfile.checks import deck_name_part
from deckbuilder.cardfile.fields import ID_RE, MAX_DECK_ID_CHARS, UNSTORABLE, deck_id_problem
from deckbuilder.importers.base import short_hash, slugify
from deckbuilder.invisible import without_invisible

NAME_LENGTH = 60
_ID_HASH = 4
# What no file name holds on Windows, macOS or Linux, and white space.
_NOT_IN_FILE_NAME = re.compile(r'[\\/:*?"<>|\s\x00-\x1f\x7f]+')


def clean_deck_name(name: str) -> str:
    """``name`` as a deck name that loads: control characters made spaces (Anki would drop
    them anyway), spaces joined, white space and ':' around each '::' part dropped (as
    Anki drops them), parts without text left out."""
    parts = [deck_name_part(" ".join(UNSTORABLE.sub(" ", p).split())) for p in name.split("::")]
    return "::".join(p for p in parts if p)


def file_stem(name: str) -> str:
    """The card file's name (without ``.yaml``) for a deck called ``name``; '' when the
    name has no letter or digit."""
    # Invisible characters stay out of file names: a direction override (U+202E) would
    # show the name backwards ("evil\u202egnp.yaml" reads "evilyaml.png").
    name = without_invisible(unicodedata.normalize("NFC", name))
    if name.isascii():
        return _not_a_device(slugify(name, NAME_LENGTH))
    words = _NOT_IN_FILE_NAME.sub("-", name.lower()).strip("-.")
    cut = words[:NAME_LENGTH]
    if len(words) > NAME_LENGTH and "-" in cut:
        cut = cut[: cut.rindex("-")]
    return _not_a_device(cut.strip("-.")) if any(ch.isalnum() for ch in cut) else ""


def deck_id(stem: str) -> str:
    """The deck id for a card file named ``stem``: the stem itself when it is an id, else
    its words romanised, and a hash of it; '' when it has no letter or digit."""
    stem = unicodedata.normalize("NFC", stem)
    if ID_RE.match(stem):
        return _not_a_device(stem[:MAX_DECK_ID_CHARS].rstrip("-_"))
    slug = slugify(stem, NAME_LENGTH) if stem.isascii() else slugify(anyascii(stem), NAME_LENGTH)
    if stem.isascii() or not any(ch.isalnum() for ch in stem):
        return _not_a_device(slug)
    return f"{slug or 'deck'}-{short_hash(stem, _ID_HASH)}"


def _not_a_device(stem: str) -> str:
    """``stem``, or ``<stem>-deck`` when it cannot be a deck id: Windows keeps it for a
    device (``con``, ``nul``), or Anki takes its package for a whole collection."""
    return f"{stem}-deck" if stem and deck_id_problem(stem.lower()) else stem
