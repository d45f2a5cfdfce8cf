"""The deck a card file describes: its header (name, id, languages, tags), its label
language and its study block (read by :mod:`.study`).

:func:`read_deck` reads one card file, in one language, into a
:class:`~deckbuilder.model.Deck`; :func:`declared_languages` says which languages
the file can be read in; :func:`detected_label_language` which language a deck without
``languages:`` shows its multiple-choice labels in.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from anyascii import anyascii

from deckbuilder.cardfile.checks import Spellings, deck_name_problem, tag_problem, text_problem
from deckbuilder.cardfile.declared import DeclaredTypes, ReadFile
from deckbuilder.cardfile.fields import (
    ID_RE,
    LANG_RE,
    MAX_DECK_ID_CHARS,
    MAX_LANGUAGE_CHARS,
    FieldReader,
    deck_id_problem,
    id_problem,
    is_null,
    shown,
    suggest,
    trimmed,
)
from deckbuilder.cardfile.keys import DECK, LABEL_LANGUAGES, SPOKEN, URL_PATTERN, key_names, keyed
from deckbuilder.cardfile.notes import read_notes
from deckbuilder.cardfile.study import quoted, read_study
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.errors import DeckError
from deckbuilder.model import Deck, Note
from deckbuilder.templates import TTS_LANGUAGE, speech_language

DECK_KEYS = key_names(DECK)
_KEYS = keyed(DECK)
ALL_LANGUAGES = "all"  # load_decks(lang=...): one Deck per declared language
# Each language of a card file is a deck of its own, built, checked and previewed: the
# limit keeps a small file from asking for hundreds of packages (docs/card-format.md).
MAX_LANGUAGES = 32
_URL = re.compile(URL_PATTERN)


def declared_languages(fields: FieldReader, tree: YMap) -> tuple[str, ...]:
    """The file's ``languages:`` (checked, default first), or () when it declares none."""
    value = tree.get("languages")
    if value is None:
        return ()
    if not isinstance(value, YSeq) or not value.items:
        shape = describe(value) if not isinstance(value, YSeq) else "an empty list"
        fields.problem(
            value.line,
            "'languages' must be a list of language codes, e.g. [ko, en] "
            f"(the first is the default), not {shape}",
        )
        return ()
    if len(value.items) > MAX_LANGUAGES:
        fields.problem(
            value.line,
            f"'languages' lists {len(value.items):,} languages; a card file declares at most "
            f"{MAX_LANGUAGES} (each builds a package of its own): split the file",
        )
        return ()
    out: list[str] = []
    folded: dict[str, str] = {}  # casefolded code -> the code as written
    for item in value.items:
        code = item.raw.strip() if isinstance(item, YScalar) and not item.is_null else ""
        problem = _language_problem(code or describe(item), folded)
        if problem:
            fields.problem(item.line, problem)
        else:
            out.append(code)
            folded[code.casefold()] = code
    return tuple(out)


def _language_problem(code: str, folded: dict[str, str]) -> str | None:
    """What is wrong with a ``languages:`` entry, given the codes before it (casefolded)."""
    same = folded.get(code.casefold())
    if same == code:
        return f"language {quoted(code)} is listed twice"
    if same is not None:
        # Each language gets <id>.<lang>.apkg and a lock file: names that differ only in
        # case are one file on macOS and Windows.
        return (
            f"languages {quoted(same)} and {quoted(code)} differ only in case; their "
            "packages would be the same file on macOS and Windows"
        )
    if len(code) > MAX_LANGUAGE_CHARS:
        return (
            f"language {quoted(code)} is {len(code):,} characters long; a language code "
            f"has at most {MAX_LANGUAGE_CHARS}"
        )
    if LANG_RE.match(code) and code != ALL_LANGUAGES:
        return None
    meant = language_meant(code)
    hint = f" (write '{meant}')" if meant else ""
    return f"language {quoted(code)} is not a language code like ko, en or pt-BR{hint}"


def language_meant(code: str) -> str | None:
    """The language code ``code`` means when it is written in another case or with '_'
    (EN: en, pt_BR: pt-BR), None when it means none."""
    # Locale names (pt_BR, as Anki's speech and many systems write them) join with '_'.
    primary, _, rest = code.replace("_", "-").partition("-")
    lowered = f"{primary.lower()}-{rest}" if rest else primary.lower()
    usable = lowered != code and lowered != ALL_LANGUAGES and LANG_RE.match(lowered)
    return lowered if usable else None


def read_deck(
    path: Path,
    tree: YValue | None,
    media_dir: Path | None = None,
    languages: tuple[str, ...] = (),
    lang: str = "",
    fallback: bool = False,
    source: str = "",
    read_file: ReadFile | None = None,
) -> Deck:
    """The deck in the card file ``path``, parsed into ``tree``, read in ``lang`` (one of
    the declared ``languages``; '' for a file without them). Raises a DeckError listing
    every problem, in order of line. ``source``: the file's text, for advice that shows
    a line rewritten; ``read_file`` reads the project's note-types/ files."""
    file = str(path)
    if tree is None:
        raise DeckError.single(file, "the file is empty; expected a deck (deck:, notes:)")
    if not isinstance(tree, YMap):
        raise DeckError.single(
            file,
            f"the top level must be a mapping (deck:, notes:), not {describe(tree)}",
            tree.line,
        )
    fields = FieldReader(path, languages, lang, fallback, source)
    fields.unknown_keys(tree, DECK_KEYS, "the deck")
    name = _deck_name(fields, tree)
    key = _deck_key(fields, tree)
    declared = DeclaredTypes(fields, tree, key, read_file)
    if lang and key:
        key = f"{key}.{lang}"
    description = _checked(fields, tree, "description")
    tags = []
    spellings = Spellings("tag")
    for tag, line in fields.read(tree, _KEYS["tags"]):
        wrong = tag_problem(tag) or spellings.problem(tag, f"line {line}")
        if wrong:
            fields.problem(line, wrong)
        else:
            tags.append(tag)
    missing_media = []
    for file_name, line in fields.read(tree, _KEYS["missing_media"]):
        if file_name.strip():
            missing_media.append(file_name)
        else:  # as the schema says: a file name, never an empty one
            fields.problem(
                line, "'missing_media' holds an empty file name; write the name or delete it"
            )
    source_url = _source_url(fields, tree)
    study = read_study(fields, tree)
    deck_speak = _deck_speak(fields, tree)
    notes = read_notes(fields, tree, spellings, declared, deck_speak)
    label_language = _label_language(fields, tree, notes)
    speak_language = _speak_language(fields, tree, notes, lang or label_language)
    deck = Deck(
        key=key,
        name=name,
        source=path,
        notes=tuple(notes),
        description=description,
        tags=tuple(tags),
        missing_media=tuple(missing_media),
        media_dirs=tuple(d for d in (media_dir, path.parent) if d is not None),
        study=study,
        lang=lang,
        languages=languages,
        label_language=label_language,
        note_types=tuple(declared.used.values()),
        kept_types=tuple(declared.kept.values()),
        speak_language=speak_language,
        source_url=source_url,
        warnings=tuple(dict.fromkeys(fields.warnings)),
    )
    if fields.problems:
        # The notes without problems go on, to be checked further (their media).
        raise DeckError(sorted(fields.problems, key=lambda p: p.line or 0), partial=[deck])
    return deck


def _deck_speak(fields: FieldReader, tree: YMap) -> tuple[str, ...]:
    """The deck's ``speak:`` keys, each a text some kind of note can speak."""
    every = tuple(dict.fromkeys(key for keys in SPOKEN.values() for key in keys))
    found = []
    for key, line in fields.read(tree, _KEYS["speak"]):
        if key in every:
            found.append(key)
        else:
            why = " (a cloze note's text would say the answer)" if key == "text" else ""
            fields.problem(
                line,
                f"'speak' names '{shown(key)}', not a text a card can speak{why}; the texts "
                f"are {', '.join(every)}{suggest(key, every)}",
            )
    return tuple(found)


def _speak_language(fields: FieldReader, tree: YMap, notes: list[Note], lang: str) -> str:
    """The language spoken texts are spoken in: ``speak_language:``, else the deck's
    language (or label language) as Anki's speech names it; '' when no note speaks."""
    written = _checked(fields, tree, "speak_language").strip()
    if written and not TTS_LANGUAGE.match(written):
        fields.problem(
            tree.key_line("speak_language"),
            f"'speak_language' must be a speech language like ko_KR or en_US, not "
            f"'{shown(written)}'",
        )
        return ""
    if not any(note.speak for note in notes):
        return ""
    return written or speech_language(lang or "en")


def _source_url(fields: FieldReader, tree: YMap) -> str:
    """``source_url:``, a web address the cards link to ('' when there is none)."""
    written = _checked(fields, tree, "source_url").strip()
    if written and not _URL.fullmatch(written):
        fields.problem(
            tree.key_line("source_url"),
            f"'source_url' must be a web address starting with https:// or http://, without "
            f"spaces, quotes or angle brackets, not '{shown(written)}'",
        )
        return ""
    return written


def _checked(fields: FieldReader, tree: YMap, key: str, *, required: bool = False) -> str:
    """The text of the header's ``key``, judged by the rules of a note's text ('' when it
    breaks one, with a problem)."""
    text = fields.text(tree, key, required=required)
    if key in fields.unread:
        return ""
    wrong = text_problem(key, text, required=required)
    if wrong is None and key == "deck" and any(ch in text.strip() for ch in "\t\n"):
        wrong = (
            "'deck' must be one line without tabs (Anki removes line breaks and tabs from "
            "deck names)"
        )
    if wrong:
        value = tree.get(key)
        fields.problem(tree.key_line(key) if value is None else _text_line(value, fields), wrong)
        return ""
    return text


def _text_line(value: YValue, fields: FieldReader) -> int:
    """The line of the text read from ``value`` (a language map's entry, when it is one)."""
    if isinstance(value, YMap):
        picked = value.get(fields.lang) or value.get(
            fields.languages[0] if fields.languages else ""
        )
        return picked.line if picked is not None else value.line
    return value.line


def _deck_name(fields: FieldReader, tree: YMap) -> str:
    written = tree.get("deck")
    if written is None:
        return _name_from_folders(fields)
    if is_null(written):
        fields.problem(
            tree.key_line("deck"),
            "'deck' is empty: write the deck's name, or leave 'deck' out to name the deck "
            f"after the card file's folders and name ({_name_from_path(fields.path)})",
        )
        return ""
    name = trimmed(_checked(fields, tree, "deck", required=True))
    if fields.lang and not (isinstance(written, YMap) and written.get(fields.lang) is not None):
        # One name for several languages: suffix it, so the decks differ in Anki.
        name = f"{name} ({fields.lang})" if name else name
    wrong = deck_name_problem(name) if name else None
    if wrong:
        fields.problem(tree.key_line("deck"), wrong)
    return name


# The folder card files are kept in: a card file without 'deck:' is named after the
# folders it is in below it.
CARDS_FOLDER = "cards"
_NOT_IN_ID = re.compile(r"[^a-z0-9_-]+")


def _name_from_path(path: Path) -> str:
    """The deck name a card file without ``deck:`` takes: its folders below ``cards/``
    and its name, joined with '::' (``cards/Biology/Cells.yaml``: ``Biology::Cells``); a
    card file outside a ``cards`` folder, its name alone."""
    parts = Path(os.path.abspath(path)).parts[:-1]
    below = len(parts) - parts[::-1].index(CARDS_FOLDER) if CARDS_FOLDER in parts else len(parts)
    return "::".join([*parts[below:], unicodedata.normalize("NFC", path.stem)])


def _name_from_folders(fields: FieldReader) -> str:
    """The deck name from the card file's folders and name, as :func:`_name_from_path`
    makes it (with the language after it, as one written name gets it); '' with a
    problem when Anki would not keep it."""
    name = _name_from_path(fields.path)
    wrong = text_problem("deck", name) or deck_name_problem(name)
    if wrong:
        fields.problem(
            1,
            f"the deck is named after the card file's folders and name, "
            f"'{shown(name)}', which cannot be a deck name ({wrong}); add 'deck:' with its "
            "name, or rename the folder or file",
        )
        return ""
    return f"{name} ({fields.lang})" if fields.lang else name


def deck_id_from_file_name(stem: str) -> str:
    """The deck id a card file without ``id:`` takes: its name made an id (``Cells``:
    ``cells``; ``Cell Biology``: ``cell-biology``; other scripts romanised, ``세포``:
    ``sepo``); '' when nothing of it is left."""
    written = unicodedata.normalize("NFC", stem)
    if not written.isascii():
        written = anyascii(written)
    key = _NOT_IN_ID.sub("-", written.lower()).strip("-_")
    return key[:MAX_DECK_ID_CHARS].rstrip("-_")


def _deck_key(fields: FieldReader, tree: YMap) -> str:
    """The deck's ``id:``, or the file name made an id when it has none."""
    if "id" in tree.entries:
        key = trimmed(_checked(fields, tree, "id", required=True))
        if key:
            wrong = deck_id_problem(key) if ID_RE.match(key) else id_problem("deck id", key)
            if wrong:
                fields.problem(tree.key_line("id"), wrong)
        return key
    stem = fields.path.stem
    key = deck_id_from_file_name(stem)
    wrong = deck_id_problem(key) if ID_RE.match(key) else None
    if not ID_RE.match(key) or wrong:
        why = "gives no deck id" if wrong is None else f"cannot be the deck id ({wrong})"
        fields.problem(
            tree.line,
            f"the file name '{shown(stem)}' {why}; add 'id:' with lowercase letters, "
            "digits, '-' and '_' (for example id: my-deck)",
        )
    return key


# -- the label language ------------------------------------------------------------------------
# Words in Hangul and in Latin letters, counted in a note's prose: code, math, cloze
# markers, link and media targets and HTML tags are left out, since they are Latin letters
# in a Korean note too.
_HANGUL_WORD = re.compile(r"[\u1100-\u11ff\u3131-\u318e\uac00-\ud7a3]+")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_SAMPLE = 1000  # characters of a note read to tell its language
# Notes read to tell a deck's language: a larger deck is read at evenly spaced notes, which
# gives its majority language as well as reading every note does.
_SAMPLED_NOTES = 1000
_NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\\\(.*?\\\)|\\\[.*?\\\]|\$\$?(?! )[^$\n]+(?<! )\$\$?|\{\{c\d+::"
    r"|\]\([^)]*\)|\[sound:[^\]]*\]"
    r"|<[^>]*>",
    re.DOTALL,
)


def detected_label_language(notes: list[Note]) -> str:
    """The labels of a deck without ``languages:``, chosen once for all its cards: Korean
    when more of its notes are written in Korean than in English, else English. A note
    is Korean when at least as many of its words are Korean as are in Latin letters
    (a particle on an English term, 'PyTorch에서', makes a Korean word)."""
    korean = english = 0
    for note in notes[:: max(1, len(notes) // _SAMPLED_NOTES)]:
        # A sample is enough to tell the language, and keeps the lazy patterns above from
        # rescanning a long field once per unclosed opening.
        prose = _NOT_PROSE.sub(" ", "\n".join(note.texts().values())[:_SAMPLE])
        hangul, latin = len(_HANGUL_WORD.findall(prose)), len(_LATIN_WORD.findall(prose))
        if hangul and hangul >= latin:
            korean += 1
        elif latin:
            english += 1
    return "ko" if korean > english else "en"


def _label_language(fields: FieldReader, tree: YMap, notes: list[Note]) -> str:
    """The deck's ``label_language:``, or the one its text suggests; '' in a deck with
    ``languages:``, whose cards take each language's own labels."""
    value = tree.get("label_language")
    if value is None or is_null(value):
        return "" if fields.languages else detected_label_language(notes)
    written = fields.as_text(value, "label_language").strip()
    if "label_language" in fields.unread:
        return ""
    if fields.languages:
        fields.problem(
            tree.key_line("label_language"),
            "'label_language' is for a deck without 'languages'; the cards of each "
            "language already show that language's labels",
        )
        return ""
    if written not in LABEL_LANGUAGES:
        known = " and ".join(f"{code} ({name})" for code, name in LABEL_LANGUAGES.items())
        hint = f" (write '{written.lower()}')" if written.lower() in LABEL_LANGUAGES else ""
        fields.problem(
            value.line,
            f"'label_language' is {quoted(written)}; the cards have labels in {known}{hint}",
        )
        return ""
    return written
