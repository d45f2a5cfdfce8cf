"""Card files (YAML) -> :class:`~deckbuilder.model.Deck`, with every problem located.

Validation happens here, once, where file and line are known. Nothing is printed;
all problems of all files are gathered into one :class:`~deckbuilder.errors.DeckError`.

The modules: :mod:`.fields` reads one field (text in a language, tags, sizes),
:mod:`.notes` the notes of each kind, :mod:`.deck` the deck's header, :mod:`.study` its
study block; this one finds the card files and reads them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from deckbuilder.cardfile.checks import Spellings
from deckbuilder.cardfile.deck import ALL_LANGUAGES, declared_languages, read_deck
from deckbuilder.cardfile.declared import shared_name_problems, shared_note_type
from deckbuilder.cardfile.fields import (
    LOCALIZED_KEYS,
    FieldReader,
)
from deckbuilder.cardfile.yaml_hints import look_alike_spaces
from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.cardfile.yaml_tree import MAX_FILE_BYTES, YMap, YValue
from deckbuilder.errors import DeckError, Problem, Severity
from deckbuilder.files.bounds import folder_link_outside, real_path_outside
from deckbuilder.files.reading import read_regular
from deckbuilder.model import Deck
from deckbuilder.note_types import NoteType

SOURCE_SUFFIXES = (".yaml", ".yml")


def find_sources(paths: Sequence[Path]) -> list[Path]:
    """Expand folders into their card files (sorted, recursive); keep files as given.

    A card file must really be inside the folder it was found in (a file given by name:
    its own folder), and a folder must not be a link out of the folder holding it; the
    walk does not enter linked folders."""
    found: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        if path.is_dir():
            outside = folder_link_outside(path)
            if outside is not None:
                problems.append(Problem(str(path), None, _link_out("this folder", outside)))
                continue
            # Hidden names are no decks: macOS's '._deck.yaml' beside each file copied to a
            # USB stick, a tool's copies in '.history/' (watch takes none for card files).
            walked = sorted(
                p
                for p in path.rglob("*")
                if p.suffix.lower() in SOURCE_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
                and p.is_file()
            )
            files = [p for p in walked if p.suffix in SOURCE_SUFFIXES]
            # 'deck.YAML' is no card file to watch, the lock files or import --out, which
            # take the suffixes in lower case: told, so that its deck is not left out unseen.
            problems += [
                Problem(
                    str(p),
                    None,
                    f"not read: a card file's name ends in .yaml or .yml, in lower case; "
                    f"rename it {p.with_suffix(p.suffix.lower()).name}",
                )
                for p in walked
                if p.suffix not in SOURCE_SUFFIXES
            ]
            if not walked:
                problems.append(
                    Problem(str(path), None, "no card files (*.yaml, *.yml) in this folder")
                )
            real_folder = [os.path.realpath(path)]
            for file in files:
                outside = real_path_outside(file, real_folder)
                if outside is None:
                    found.append(file)
                else:
                    problems.append(Problem(str(file), None, _link_out("card file", outside)))
        elif path.is_file():
            folder = path.parent
            outside = folder_link_outside(folder) or real_path_outside(
                path, [os.path.realpath(folder)]
            )
            if outside is None:
                found.append(path)
            else:
                problems.append(Problem(str(path), None, _link_out("card file", outside)))
        elif path == Path("cards"):  # the default: not in a project folder
            problems.append(
                Problem(
                    str(path),
                    None,
                    "no such folder: run deckbuilder in a project folder (the one holding "
                    "cards/), start one with 'deckbuilder init', or name the card files",
                )
            )
        else:
            problems.append(Problem(str(path), None, "no such file or folder"))
    if problems:
        raise DeckError(problems)
    unique: dict[Path, Path] = {}  # the first path given to each file
    for p in found:
        unique.setdefault(p.resolve(), p)
    return list(unique.values())


def _link_out(what: str, target: Path) -> str:
    return (
        f"{what} is a link to '{target}', outside the folder it is in; it is not read"
        " (name the real place itself if you trust it)"
    )


def load_decks(
    paths: Sequence[Path],
    media_dir: Path | None = None,
    *,
    lang: str | None = None,
    fallback: bool = False,
    alongside: Sequence[Deck] = (),
) -> list[Deck]:
    """Load every card file under ``paths``; raise one DeckError listing all problems.

    ``lang`` picks the language of files that declare ``languages:`` (see
    :func:`load_deck_languages`); files without it load as they are. ``alongside``: the
    decks of the project's other card files, read apart (see :func:`deck_id_problems`)."""
    decks: list[Deck] = []
    problems: list[Problem] = []
    for source in find_sources(paths):
        try:
            decks.extend(
                load_deck_languages(source, media_dir=media_dir, lang=lang, fallback=fallback)
            )
        except DeckError as exc:
            problems.extend(exc.problems)
            decks.extend(exc.partial)
    problems.extend(deck_id_problems(decks, alongside))
    names = Spellings("deck name")  # Anki matches deck names without case
    # Tags too, across the collection the decks are imported into: one file's spelling
    # of a tag is checked with its own, here against the other files'.
    tags = Spellings("tag")
    for deck in decks:
        wrong = names.problem(deck.name, str(deck.source)) if deck.name else None
        if wrong:
            problems.append(Problem(str(deck.source), None, wrong))
        if deck.lang and deck.lang != deck.languages[0]:
            continue  # a bilingual file's other languages have the same tags
        own = dict.fromkeys([*deck.tags, *(tag for note in deck.notes for tag in note.tags)])
        for tag in own:
            wrong = tags.problem(tag, str(deck.source))
            if wrong:
                problems.append(Problem(str(deck.source), None, wrong))
    declared = {(t.source, t.key): t for deck in decks for t in deck.note_types}
    problems += shared_name_problems(declared.values())
    if problems:
        raise DeckError(problems, partial=decks)
    return decks


def deck_id_problems(decks: Sequence[Deck], alongside: Sequence[Deck] = ()) -> list[Problem]:
    """A problem for each deck whose id a deck of another card file has: both would be
    written to one package, with one lock file's ids and one set of GUIDs. ``alongside``:
    the decks of the project's other card files when they are read apart (watch reads
    each card file alone); they come first, and only ``decks`` are told."""
    first_file: dict[str, Deck] = {}
    for deck in alongside:
        first_file.setdefault(deck.key, deck)
    problems = []
    for deck in decks:
        first = first_file.setdefault(deck.key, deck)
        if first.source != deck.source:
            problems.append(
                Problem(
                    str(deck.source),
                    None,
                    f"deck id '{deck.key}' is also used by {first.source}; "
                    "both would be written to the same package (set a different 'id:')",
                )
            )
    return problems


def read_text(path: Path) -> str:
    """Read a UTF-8 text file (BOM allowed), refusing binary and oversized files, and
    anything but a regular file (a named pipe would block the read)."""
    return _decoded(path, read_regular(path, MAX_FILE_BYTES))


def source_digest(data: bytes) -> str:
    """What tells one version of a card file's bytes from another (see
    :attr:`deckbuilder.model.Deck.source_digest`)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def digest_now(path: Path) -> str:
    """:func:`source_digest` of the card file ``path`` as it is now ('' when it cannot be
    read, or is no longer a regular file)."""
    try:
        return source_digest(read_regular(path, MAX_FILE_BYTES))
    except DeckError:
        return ""


def _decoded(path: Path, data: bytes) -> str:
    """The text of the card file ``path`` that holds ``data`` (see :func:`read_text`)."""
    name = str(path)
    # Windows Notepad's "Unicode" (UTF-16 with a byte order mark) is text to save again.
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DeckError.single(name, "this is UTF-16 text; save the file as UTF-8")
    if b"\x00" in data:
        raise DeckError.single(name, "this is a binary file, not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DeckError.single(
            name, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8", line
        ) from None
    text = text.replace("\r\n", "\n")
    _refuse_other_line_breaks(name, text)
    return text


# Characters YAML reads as line breaks that editors show within a line: with one in the
# file, the YAML reader's line numbers and the editor's disagree from there on, and YAML
# turns it into a line break (or a space) inside text.
_BREAK_NAMES = {"\u0085": "NEXT LINE", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}


def _refuse_other_line_breaks(name: str, text: str) -> None:
    at = [i for i in (text.find(c) for c in _BREAK_NAMES) if i >= 0]
    if not at:
        return
    first = min(at)
    char = text[first]
    code = f"U+{ord(char):04X}"
    line = text.count("\n", 0, first) + 1
    more = sum(text.count(c) for c in _BREAK_NAMES) - 1
    others = f" ({more:,} more after it)" if more else ""
    raise DeckError.single(
        name,
        f"{code} ({_BREAK_NAMES[char]}){others}: YAML reads it as a line break, so the text "
        "around it would change and the lines after it would be numbered wrongly; replace "
        f"it with a line break or a space (or write \\u{ord(char):04x} inside double quotes)",
        line,
    )


def read_note_type_file(path: Path) -> YValue | None:
    """A ``note-types/<key>.yaml`` file's located tree, read with the card files' rules
    (size, encoding, YAML safety); DeckError naming every problem of it."""
    text = read_text(path)
    tree, problems = read_yaml(text, str(path))
    if problems:
        raise DeckError(problems)
    return tree


def load_note_type(root: Path, key: str) -> NoteType | None:
    """The note type ``key`` of the project at ``root`` (``note-types/<key>.yaml``), None
    when it has none; DeckError naming every problem of its file."""
    found, problems, _ = shared_note_type(root, key, read_note_type_file)
    errors = [problem for problem in problems if problem.severity is Severity.ERROR]
    if errors:
        raise DeckError(errors)
    return found


def load_deck_languages(
    path: Path, media_dir: Path | None = None, *, lang: str | None = None, fallback: bool = False
) -> list[Deck]:
    """Load one card file as one Deck per wanted language.

    ``lang``: None for the default (first declared) language, ``"all"`` for every declared
    language, or a code the file declares. A file without ``languages:`` gives one Deck
    whatever ``lang`` says. With ``fallback``, a field missing the language uses the
    default language's text and the Deck carries a warning; without it that is an error.

    A YAML mistake does not stop the checks: every one is reported with the problems of
    the notes that could still be read (see :mod:`.yaml_recovery`)."""
    data = read_regular(path, MAX_FILE_BYTES)
    text = _decoded(path, data)
    digest = source_digest(data)
    try:
        return _decks(path, text, media_dir, lang, fallback, digest)
    except DeckError:
        # A no-break or ideographic space where YAML needs a space (the indentation, after
        # a key's colon) is text to YAML: the file fails far from it, or for another cause.
        # Each is named at its line, and the file read again with plain spaces there. The
        # same spaces in a file that loads are text the author meant.
        mended, slips = look_alike_spaces(text)
        if not slips:
            raise
        found = [Problem(str(path), line, message) for line, message in slips]
        try:
            decks = _decks(path, mended, media_dir, lang, fallback, digest)
        except DeckError as again:
            problems = sorted([*found, *again.problems], key=lambda p: (p.line is None, p.line))
            raise DeckError(dict.fromkeys(problems), partial=again.partial) from None
        raise DeckError(found, partial=decks) from None


def _decks(
    path: Path,
    text: str,
    media_dir: Path | None,
    lang: str | None,
    fallback: bool,
    digest: str,
) -> list[Deck]:
    """:func:`load_deck_languages` of ``text``, the file's text (whose bytes have
    ``digest``)."""
    tree, problems = read_yaml(text, str(path), LOCALIZED_KEYS)
    decks: list[Deck] = []
    try:
        if tree is not None or not problems:
            decks = decks_from_tree(path, tree, media_dir, lang, fallback, source=text)
    except DeckError as exc:
        partial = [replace(deck, source_digest=digest) for deck in exc.partial]
        raise DeckError([*problems, *exc.problems], partial=partial) from None
    decks = [replace(deck, source_digest=digest) for deck in decks]
    if problems:
        raise DeckError(problems, partial=decks)
    return decks


def decks_from_tree(
    path: Path,
    tree: YValue | None,
    media_dir: Path | None = None,
    lang: str | None = None,
    fallback: bool = False,
    *,
    source: str = "",
) -> list[Deck]:
    """:func:`load_deck_languages` of the file ``path`` already parsed into ``tree``;
    ``source``, the file's text, lets advice show a line rewritten."""
    header = FieldReader(path)
    languages = declared_languages(header, tree) if isinstance(tree, YMap) else ()
    if header.problems:
        raise DeckError(header.problems)
    if not languages:
        return [read_deck(path, tree, media_dir, source=source, read_file=read_note_type_file)]
    assert isinstance(tree, YMap)
    if lang is None:
        wanted = languages[:1]
    elif lang == ALL_LANGUAGES:
        wanted = languages
    elif lang in languages:
        wanted = (lang,)
    else:
        raise DeckError.single(
            path,
            f"no language '{lang}' in this deck; it declares {', '.join(languages)} "
            f"(or use --lang {ALL_LANGUAGES})",
            tree.key_line("languages"),
        )
    decks: list[Deck] = []
    problems: list[Problem] = []
    for code in wanted:
        try:
            decks.append(
                read_deck(
                    path, tree, media_dir, languages, code, fallback, source, read_note_type_file
                )
            )
        except DeckError as exc:
            problems.extend(exc.problems)
            decks.extend(exc.partial)
    if problems:
        # A mistake outside the language maps shows once, not once per language.
        raise DeckError(list(dict.fromkeys(problems)), partial=decks)
    return decks
