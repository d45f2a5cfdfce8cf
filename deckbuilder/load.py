"""Card files (YAML) -> :class:`~deckbuilder.model.Deck`, with every problem located.

Validation happens here, once, where file and line are known. Nothing is printed;
all problems of all files are gathered into one :class:`~deckbuilder.errors.DeckError`.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from pathlib import Path

from .errors import DeckError, Problem
from .model import (
    CLOZE_RE,
    BasicNote,
    ClozeNote,
    Deck,
    McqNote,
    Note,
    NoteKind,
    StudySettings,
    cloze_ordinals,
    letter,
)
from .yamlsource import YMap, YScalar, YSeq, YValue, describe, parse_yaml

__all__ = [
    "ALL_LANGUAGES",
    "ID_RE",
    "LANG_RE",
    "decks_from_tree",
    "find_sources",
    "load_deck",
    "load_deck_languages",
    "load_decks",
]

ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
SOURCE_SUFFIXES = (".yaml", ".yml")
MAX_CHOICES = 26
# Limits against absurd input (documented in README, "Limits").
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FIELD_BYTES = 1024 * 1024
MAX_NOTES = 100_000

DECK_KEYS = ("deck", "id", "languages", "description", "tags", "study", "notes")
# A language code (BCP 47 shape, lowercase primary subtag): ko, en, pt-BR, zh-Hant.
LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*\Z")
ALL_LANGUAGES = "all"  # load_decks(lang=...): one Deck per declared language
# Fields that may be a map from language code to text (choices: each entry).
LOCALIZED_KEYS = frozenset(
    ("deck", "description", "question", "choices", "explanation", "text", "extra", "front", "back")
)
STUDY_KEYS = (
    "new_per_day",
    "review_limit",
    "desired_retention",
    "learning_steps",
    "relearning_steps",
    "maximum_interval",
)
# Ranges Anki's deck options accept.
RETENTION_RANGE = (0.70, 0.99)
PER_DAY_MAX = 9999
MAX_INTERVAL = 36500
_STEP_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])\Z")
_STEP_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
COMMON_NOTE_KEYS = ("id", "type", "tags")
NOTE_KEYS: dict[NoteKind, tuple[str, ...]] = {
    NoteKind.MCQ: ("question", "choices", "answer", "explanation", "shuffle"),
    NoteKind.CLOZE: ("text", "extra"),
    NoteKind.BASIC: ("front", "back"),
}
ALL_NOTE_KEYS = COMMON_NOTE_KEYS + tuple(k for keys in NOTE_KEYS.values() for k in keys)

# Precomputed for the per-note hot path of _DeckReader (the same answers, less work).
_NULL_TAG = "tag:yaml.org,2002:null"
# Text this short cannot pass MAX_FIELD_BYTES: UTF-8 takes at most 4 bytes per character.
_SURELY_SMALL = MAX_FIELD_BYTES // 4
_KINDS = {kind.value: kind for kind in NoteKind}
_KIND_KEYS = tuple((kind, frozenset(keys)) for kind, keys in NOTE_KEYS.items())
_ALLOWED_NOTE_KEYS = {kind: frozenset(COMMON_NOTE_KEYS + keys) for kind, keys in NOTE_KEYS.items()}
_LETTERS = {letter(i): i for i in range(MAX_CHOICES)} | {
    letter(i).lower(): i for i in range(MAX_CHOICES)
}
_CHOICE_KEYS = tuple(f"choices[{i}]" for i in range(MAX_CHOICES + 1))
_ANSWER_SPLIT = re.compile(r"[\s,]+")
_BAD_CLOZE = re.compile(r"\{\{\s*c\d+\s*:(?!:)|\{\{c\d+::")


def find_sources(paths: Sequence[Path]) -> list[Path]:
    """Expand folders into their card files (sorted, recursive); keep files as given."""
    found: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        if path.is_dir():
            files = sorted(
                p for p in path.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()
            )
            if not files:
                problems.append(
                    Problem(str(path), None, "no card files (*.yaml, *.yml) in this folder")
                )
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            problems.append(Problem(str(path), None, "no such file or folder"))
    if problems:
        raise DeckError(problems)
    unique: list[Path] = []
    seen: set[Path] = set()
    for p in found:
        if p.resolve() not in seen:
            seen.add(p.resolve())
            unique.append(p)
    return unique


def load_decks(
    paths: Sequence[Path],
    media_dir: Path | None = None,
    *,
    lang: str | None = None,
    fallback: bool = False,
    loaded: Mapping[Path, Sequence[Deck]] | None = None,
) -> list[Deck]:
    """Load every card file under ``paths``; raise one DeckError listing all problems.

    ``lang`` picks the language of files that declare ``languages:`` (see
    :func:`load_deck_languages`); files without it load as they are. ``loaded``: decks
    already read from some of the files (used as they are, and checked with the rest)."""
    decks: list[Deck] = []
    problems: list[Problem] = []
    for source in find_sources(paths):
        if loaded and source in loaded:
            decks.extend(loaded[source])
            continue
        try:
            decks.extend(
                load_deck_languages(source, media_dir=media_dir, lang=lang, fallback=fallback)
            )
        except DeckError as exc:
            problems.extend(exc.problems)
    first_file: dict[str, Deck] = {}
    for deck in decks:
        if deck.key in first_file:
            other = first_file[deck.key].source
            problems.append(
                Problem(
                    str(deck.source),
                    None,
                    f"deck id '{deck.key}' is also used by {other}; "
                    "both would be written to the same package (set a different 'id:')",
                )
            )
        else:
            first_file[deck.key] = deck
    if problems:
        raise DeckError(problems)
    return decks


def read_text(path: Path) -> str:
    """Read a UTF-8 text file (BOM allowed), refusing binary and oversized files."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise DeckError.single(name, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
        data = path.read_bytes()
    except OSError as exc:
        raise DeckError.single(name, f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise DeckError.single(name, "this is a binary file, not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DeckError.single(
            name, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8", line
        ) from None
    return text.replace("\r\n", "\n")


def load_deck(
    path: Path, media_dir: Path | None = None, *, lang: str | None = None, fallback: bool = False
) -> Deck:
    """Load and validate one card file, in one language: ``lang``, or the file's default
    (first) language when ``lang`` is None. A file without ``languages:`` ignores ``lang``."""
    if lang == ALL_LANGUAGES:
        raise ValueError("load_deck gives one language; use load_deck_languages for 'all'")
    (deck,) = load_deck_languages(path, media_dir, lang=lang, fallback=fallback)
    return deck


def load_deck_languages(
    path: Path, media_dir: Path | None = None, *, lang: str | None = None, fallback: bool = False
) -> list[Deck]:
    """Load one card file as one Deck per wanted language.

    ``lang``: None for the default (first declared) language, ``"all"`` for every declared
    language, or a code the file declares. A file without ``languages:`` gives one Deck
    whatever ``lang`` says. With ``fallback``, a field missing the language uses the
    default language's text and the Deck carries a warning; without it that is an error."""
    return decks_from_tree(path, parse_yaml(read_text(path), str(path)), media_dir, lang, fallback)


def decks_from_tree(
    path: Path,
    tree: YValue | None,
    media_dir: Path | None = None,
    lang: str | None = None,
    fallback: bool = False,
) -> list[Deck]:
    """:func:`load_deck_languages` of the file ``path`` already parsed into ``tree``."""
    file = str(path)
    probe = _DeckReader(path, media_dir)
    languages = probe.declared_languages(tree) if isinstance(tree, YMap) else ()
    if probe.problems:
        raise DeckError(probe.problems)
    if not languages:
        return [_DeckReader(path, media_dir).read(tree)]
    assert isinstance(tree, YMap)
    if lang is None:
        wanted = languages[:1]
    elif lang == ALL_LANGUAGES:
        wanted = languages
    elif lang in languages:
        wanted = (lang,)
    else:
        raise DeckError.single(
            file,
            f"no language '{lang}' in this deck; it declares {', '.join(languages)} "
            f"(or use --lang {ALL_LANGUAGES})",
            tree.key_line("languages"),
        )
    decks: list[Deck] = []
    problems: list[Problem] = []
    for code in wanted:
        try:
            decks.append(_DeckReader(path, media_dir, languages, code, fallback).read(tree))
        except DeckError as exc:
            problems.extend(exc.problems)
    if problems:
        # A mistake outside the language maps shows once, not once per language.
        raise DeckError(list(dict.fromkeys(problems)))
    return decks


_line_of = attrgetter("line")


def _lines(item: YMap) -> dict[str, int]:
    """Where each key of a note starts; choices by entry (``choices[0]``)."""
    entries = item.entries
    lines = {key: hit[0] for key, hit in entries.items()}
    choices = entries.get("choices")
    if choices is not None and isinstance(choices[1], YSeq):
        items = choices[1].items
        n = len(items)
        keys = _CHOICE_KEYS if n <= len(_CHOICE_KEYS) else [f"choices[{i}]" for i in range(n)]
        # zip stops at the last choice; the lines are read in C (attrgetter), not in a list.
        lines.update(zip(keys, map(_line_of, items), strict=False))
    return lines


def _choice_key(i: int) -> str:
    """The key of choice ``i`` in messages and field lines: ``choices[0]``."""
    return _CHOICE_KEYS[i] if i < len(_CHOICE_KEYS) else f"choices[{i}]"


def _has_cloze(text: str) -> bool:
    """``bool(cloze_ordinals(text))``, stopping at the first numbered deletion.

    The deletions of ``CLOZE_RE.finditer``, found one search at a time: each search starts
    where the last deletion ended, as finditer's do (a deletion is never empty), without
    the iterator and a generator around it (the first deletion usually answers)."""
    search = CLOZE_RE.search
    match = search(text)
    while match is not None:
        if int(match.group(1)) > 0:
            return True
        match = search(text, match.end())
    return False


def _suggest(key: str, allowed: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class _DeckReader:
    """Walks the located YAML tree, collecting problems instead of stopping at the first."""

    def __init__(
        self,
        path: Path,
        media_dir: Path | None,
        languages: tuple[str, ...] = (),
        lang: str = "",
        fallback: bool = False,
    ) -> None:
        self.path = path
        self.file = str(path)
        self.media_dir = media_dir
        self.languages = languages  # declared, default first; () for a one-language file
        self.lang = lang  # the language being read
        self.fallback = fallback
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.note_id: str | None = None  # the note being read, for messages

    # -- reporting -------------------------------------------------------------------------
    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(self.file, line, message, self.note_id))

    # -- typed accessors ---------------------------------------------------------------------
    def text(self, ymap: YMap, key: str, *, required: bool = False) -> str:
        hit = ymap.entries.get(key)
        value = hit[1] if hit is not None else None
        if value is None or (isinstance(value, YScalar) and value.is_null):
            if required:
                line = ymap.key_line(key) if key in ymap.entries else ymap.line
                self.problem(line, f"'{key}' is required")
            return ""
        return self.as_text(value, key, required=required)

    def as_text(self, value: YValue, what: str, *, required: bool = False) -> str:
        if type(value) is YScalar and value.tag != _NULL_TAG and len(value.raw) <= _SURELY_SMALL:
            raw = value.raw  # the common case, as below: short text, no problem to report
            out = raw if raw.isascii() else unicodedata.normalize("NFC", raw)
            if required and not out.strip():
                self.problem(value.line, f"'{what}' is empty")
            return out
        if isinstance(value, YMap) and what.split("[")[0] in LOCALIZED_KEYS:
            picked = self.pick_language(value, what)
            if picked is None:
                return ""
            value = picked
        if not isinstance(value, YScalar) or value.is_null:
            self.problem(value.line, f"'{what}' must be text, not {describe(value)}")
            return ""
        size = len(value.raw.encode("utf-8", "surrogatepass"))
        if size > MAX_FIELD_BYTES:
            self.problem(
                value.line, f"'{what}' is {size:,} bytes; the limit is {MAX_FIELD_BYTES:,}"
            )
            return ""
        out = unicodedata.normalize("NFC", value.raw)
        if required and not out.strip():
            self.problem(value.line, f"'{what}' is empty")
        return out

    def pick_language(self, value: YMap, what: str) -> YValue | None:
        """The text of ``self.lang`` in a language map (``{ko: ..., en: ...}``)."""
        if not self.languages:
            codes = ", ".join(value.entries) or "ko, en"
            self.problem(
                value.line,
                f"'{what}' is a language map; declare the deck's languages first, "
                f"e.g. 'languages: [{codes}]' (the first is the default)",
            )
            return None
        declared = ", ".join(self.languages)
        for code, (line, _) in value.entries.items():
            if code not in self.languages:
                self.problem(
                    line,
                    f"'{what}' has text in '{code}', a language the deck does not declare "
                    f"(languages: [{declared}]){_suggest(code, self.languages)}",
                )
        hit = value.get(self.lang)
        default = self.languages[0]
        if hit is None and self.fallback and value.get(default) is not None:
            self.warnings.append(
                Problem(
                    self.file,
                    value.line,
                    f"warning: '{what}' has no '{self.lang}' text; using the '{default}' text",
                    self.note_id,
                )
            )
            hit = value.get(default)
        if hit is None:
            hint = " or build with --fallback" if value.get(default) is not None else ""
            self.problem(
                value.line,
                f"'{what}' has no '{self.lang}' text (languages: [{declared}]); "
                f"add '{self.lang}:'{hint}",
            )
            return None
        if isinstance(hit, YMap):
            self.problem(hit.line, f"'{what}' in '{self.lang}' must be text, not a mapping")
            return None
        return hit

    def same_clozes(self, value: YValue | None) -> None:
        """Every language of a cloze text must number its deletions alike, so that each
        language's deck has the same cards (a translation slip otherwise goes unnoticed)."""
        if not isinstance(value, YMap) or not self.languages:
            return
        numbers = {
            code: cloze_ordinals(text.raw)
            for code, (_, text) in value.entries.items()
            if code in self.languages and isinstance(text, YScalar) and not text.is_null
        }
        if len(set(numbers.values())) > 1:
            shown = "; ".join(
                f"{code}: {', '.join(f'c{n}' for n in ords) or 'none'}"
                for code, ords in numbers.items()
            )
            self.problem(
                value.line,
                f"the languages of 'text' number their deletions differently ({shown}); "
                "give every language the same {{cN::...}} numbers",
            )

    def declared_languages(self, tree: YMap) -> tuple[str, ...]:
        """The declared ``languages:`` (validated), or () when the file has none."""
        value = tree.get("languages")
        if value is None:
            return ()
        if not isinstance(value, YSeq) or not value.items:
            self.problem(
                value.line,
                "'languages' must be a list of language codes, e.g. [ko, en] "
                f"(the first is the default), not {describe(value) if not isinstance(value, YSeq) else 'an empty list'}",
            )
            return ()
        out: list[str] = []
        for item in value.items:
            code = item.raw.strip() if isinstance(item, YScalar) and not item.is_null else ""
            if not LANG_RE.match(code) or code == ALL_LANGUAGES:
                shown = code or describe(item)
                self.problem(
                    item.line,
                    f"language '{shown}' is not a language code like ko, en or pt-BR",
                )
            elif code in out:
                self.problem(item.line, f"language '{code}' is listed twice")
            else:
                out.append(code)
        return tuple(out)

    def tags(self, ymap: YMap) -> tuple[str, ...]:
        hit = ymap.entries.get("tags")
        if hit is None:
            return ()
        value = hit[1]
        if isinstance(value, YScalar) and value.is_null:
            return ()
        items = value.items if isinstance(value, YSeq) else [value]
        out: list[str] = []
        for item in items:
            tag = self.as_text(item, "tags", required=True).strip()
            if not tag:
                continue
            if any(ch.isspace() for ch in tag):
                self.problem(
                    item.line, f"tag '{tag}' contains a space; Anki tags cannot (use '_' or '-')"
                )
            elif tag not in out:
                out.append(tag)
        return tuple(out)

    def unknown_keys(self, ymap: YMap, allowed: Sequence[str], where: str) -> None:
        for key, (line, _) in ymap.entries.items():
            if key not in allowed:
                self.problem(line, f"unknown key '{key}' in {where}{_suggest(key, allowed)}")

    # -- the deck ----------------------------------------------------------------------------
    def read(self, tree: YValue | None) -> Deck:
        if tree is None:
            raise DeckError(
                [Problem(self.file, None, "the file is empty; expected a deck (deck:, notes:)")]
            )
        if not isinstance(tree, YMap):
            raise DeckError(
                [
                    Problem(
                        self.file,
                        tree.line,
                        f"the top level must be a mapping (deck:, notes:), not {describe(tree)}",
                    )
                ]
            )
        self.unknown_keys(tree, DECK_KEYS, "the deck")
        name = self.text(tree, "deck", required=True).strip()
        name_map = tree.get("deck")
        if self.lang and not (isinstance(name_map, YMap) and name_map.get(self.lang) is not None):
            # One name for several languages: suffix it, so the decks differ in Anki.
            name = f"{name} ({self.lang})" if name else name
        if name and any(not part.strip() for part in name.split("::")):
            self.problem(
                tree.key_line("deck"), f"deck name '{name}' has an empty part between '::'"
            )
        key = self.deck_key(tree)
        if self.lang and key:
            key = f"{key}.{self.lang}"
        description = self.text(tree, "description")
        tags = self.tags(tree)
        study = self.study(tree)
        notes = self.notes(tree)
        if self.problems:
            raise DeckError(self.problems)
        media_dirs = tuple(d for d in (self.media_dir, self.path.parent) if d is not None)
        return Deck(
            key=key,
            name=name,
            source=self.path,
            notes=tuple(notes),
            description=description,
            tags=tags,
            media_dirs=media_dirs,
            study=study,
            lang=self.lang,
            languages=self.languages,
            warnings=tuple(dict.fromkeys(self.warnings)),
        )

    def deck_key(self, tree: YMap) -> str:
        if "id" in tree.entries:
            key = self.text(tree, "id", required=True).strip()
            if key and not ID_RE.match(key):
                self.problem(tree.key_line("id"), f"deck id '{key}' must match [a-z0-9][a-z0-9_-]*")
            return key
        key = self.path.stem
        if not ID_RE.match(key):
            self.problem(
                tree.line,
                f"the file name '{key}' is not a valid deck id; add 'id:' with lowercase letters, "
                "digits, '-' and '_' (for example id: "
                f"{re.sub(r'[^a-z0-9_-]+', '-', key.lower()).strip('-_') or 'my-deck'})",
            )
        return key

    def study(self, tree: YMap) -> StudySettings | None:
        value = tree.get("study")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            return None
        if not isinstance(value, YMap):
            self.problem(
                value.line, f"'study' must be a mapping (new_per_day:, ...), not {describe(value)}"
            )
            return None
        self.unknown_keys(value, STUDY_KEYS, "'study'")
        defaults = StudySettings()
        new = self.whole(value, "new_per_day", defaults.new_per_day, 0, PER_DAY_MAX)
        reviews = self.whole(value, "review_limit", defaults.review_limit, 0, PER_DAY_MAX)
        interval = self.whole(value, "maximum_interval", defaults.maximum_interval, 1, MAX_INTERVAL)
        retention = defaults.desired_retention
        raw = value.get("desired_retention")
        if raw is not None:
            low, high = RETENTION_RANGE
            number = self.number(raw, "desired_retention")
            if number is not None and not low <= number <= high:
                self.problem(
                    raw.line,
                    f"'desired_retention' is {number}; Anki allows {low:.2f} to {high:.2f}",
                )
            elif number is not None:
                retention = number
        return StudySettings(
            new_per_day=new,
            review_limit=reviews,
            desired_retention=retention,
            learning_steps=self.steps(value, "learning_steps", defaults.learning_steps),
            relearning_steps=self.steps(value, "relearning_steps", defaults.relearning_steps),
            maximum_interval=interval,
            line=tree.key_line("study"),
        )

    def number(self, value: YValue, key: str) -> float | None:
        if isinstance(value, YScalar) and value.kind in ("int", "float"):
            try:
                return float(value.raw.replace("_", ""))
            except ValueError:
                pass
        self.problem(value.line, f"'{key}' must be a number, not {describe(value)}")
        return None

    def whole(self, ymap: YMap, key: str, default: int, low: int, high: int) -> int:
        value = ymap.get(key)
        if value is None:
            return default
        if not (isinstance(value, YScalar) and value.kind == "int"):
            self.problem(value.line, f"'{key}' must be a whole number, not {describe(value)}")
            return default
        try:
            number = int(value.raw.replace("_", ""), 0)
        except ValueError:  # YAML 1.1 octal such as 010
            number = int(value.raw.replace("_", ""), 8)
        if not low <= number <= high:
            self.problem(value.line, f"'{key}' is {number}; allowed: {low} to {high}")
            return default
        return number

    def steps(self, ymap: YMap, key: str, default: tuple[float, ...]) -> tuple[float, ...]:
        value = ymap.get(key)
        if value is None:
            return default
        items = value.items if isinstance(value, YSeq) else [value]
        out: list[float] = []
        for item in items:
            raw = item.raw.strip() if isinstance(item, YScalar) else ""
            match = _STEP_RE.match(raw)
            if not match or float(match.group(1)) <= 0:
                self.problem(
                    item.line,
                    f"'{key}' entry '{raw or describe(item)}' is not a step like 30s, 10m, 1h or 1d",
                )
                continue
            out.append(float(match.group(1)) * _STEP_SECONDS[match.group(2)])
        return tuple(out)

    def notes(self, tree: YMap) -> list[Note]:
        value = tree.get("notes")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            line = tree.key_line("notes") if "notes" in tree.entries else tree.line
            self.problem(line, "'notes' is required: a list of notes")
            return []
        if not isinstance(value, YSeq):
            self.problem(value.line, f"'notes' must be a list, not {describe(value)}")
            return []
        if not value.items:
            self.problem(value.line, "'notes' is empty; add at least one note")
        if len(value.items) > MAX_NOTES:
            self.problem(
                value.line,
                f"'notes' has {len(value.items):,} notes; the limit is {MAX_NOTES:,} per file "
                "(split the deck into several files)",
            )
            return []
        notes: list[Note] = []
        seen: dict[str, int] = {}
        for item in value.items:
            note = self.note(item, seen)
            if note is not None:
                notes.append(note)
        return notes

    # -- one note ---------------------------------------------------------------------------
    def note(self, item: YValue, seen: dict[str, int]) -> Note | None:
        self.note_id = None
        if not isinstance(item, YMap):
            self.problem(
                item.line, f"each note must be a mapping (id:, type:, ...), not {describe(item)}"
            )
            return None
        before = len(self.problems)
        note_id = self.text(item, "id", required=True).strip()
        if note_id:
            self.note_id = note_id
            if not ID_RE.match(note_id):
                self.problem(
                    item.key_line("id"), f"note id '{note_id}' must match [a-z0-9][a-z0-9_-]*"
                )
            elif note_id in seen:
                self.problem(
                    item.key_line("id"), f"duplicate note id (first at line {seen[note_id]})"
                )
            else:
                seen[note_id] = item.line
        kind = self.kind(item)
        if kind is None:
            self.unknown_keys(item, ALL_NOTE_KEYS, "a note")
            self.note_id = None
            return None
        if not _ALLOWED_NOTE_KEYS[kind].issuperset(item.entries):  # else nothing to report
            self.unknown_keys(item, COMMON_NOTE_KEYS + NOTE_KEYS[kind], f"a {kind} note")
        tags = self.tags(item)
        common = {"id": note_id, "line": item.line, "tags": tags, "field_lines": _lines(item)}
        note: Note
        if kind is NoteKind.MCQ:
            note = self.mcq(item, common)
        elif kind is NoteKind.CLOZE:
            note = self.cloze(item, common)
        else:
            note = BasicNote(
                **common,  # type: ignore[arg-type]
                front=self.text(item, "front", required=True),
                back=self.text(item, "back", required=True),
            )
        self.note_id = None
        return note if len(self.problems) == before else None

    def kind(self, item: YMap) -> NoteKind | None:
        hit = item.entries.get("type")
        if hit is not None:
            value = hit[1]
            raw = self.as_text(value, "type").strip()
            known = _KINDS.get(raw)  # NoteKind(raw), without the enum machinery
            if known is not None:
                return known
            try:
                return NoteKind(raw)
            except ValueError:
                names = [k.value for k in NoteKind]
                self.problem(
                    value.line,
                    f"unknown note type '{raw}'; expected one of {', '.join(names)}{_suggest(raw, names)}",
                )
                return None
        for kind, keys in _KIND_KEYS:
            if not keys.isdisjoint(item.entries):
                return kind
        self.problem(
            item.line, "cannot tell the note type; add 'type: mcq', 'type: cloze' or 'type: basic'"
        )
        return None

    def mcq(self, item: YMap, common: dict[str, object]) -> McqNote:
        question = self.text(item, "question", required=True)
        choices = self.choices(item)
        answer = self.answer(item, len(choices))
        shuffle = True
        hit = item.entries.get("shuffle")
        if hit is not None:
            value = hit[1]
            if isinstance(value, YScalar) and value.kind == "bool":
                shuffle = value.raw.lower() in ("true", "yes", "on", "y")
            else:
                self.problem(value.line, f"'shuffle' must be true or false, not {describe(value)}")
        return McqNote(
            **common,  # type: ignore[arg-type]
            question=question,
            choices=tuple(choices),
            answer=answer,
            explanation=self.text(item, "explanation"),
            shuffle=shuffle,
        )

    def choices(self, item: YMap) -> list[str]:
        value = item.get("choices")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            line = item.key_line("choices") if "choices" in item.entries else item.line
            self.problem(line, "'choices' is required: a list of 2 to 26 answers")
            return []
        if not isinstance(value, YSeq):
            self.problem(value.line, f"'choices' must be a list, not {describe(value)}")
            return []
        if not 2 <= len(value.items) <= MAX_CHOICES:
            self.problem(
                value.line, f"'choices' has {len(value.items)} entries; give 2 to {MAX_CHOICES}"
            )
        out: list[str] = []
        first: dict[str, int] = {}
        for i, entry in enumerate(value.items):
            text = self.as_text(entry, _choice_key(i), required=True)
            norm = " ".join(text.split()).casefold()
            if norm and norm in first:
                self.problem(
                    entry.line,
                    f"choice {letter(i) if i < MAX_CHOICES else i + 1} repeats choice {letter(first[norm])}",
                )
            elif norm:
                first[norm] = i
            out.append(text)
        return out

    def answer(self, item: YMap, n_choices: int) -> tuple[int, ...]:
        value = item.get("answer")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            line = item.key_line("answer") if "answer" in item.entries else item.line
            self.problem(line, "'answer' is required: a letter (A) or a list of letters ([A, C])")
            return ()
        if type(value) is YScalar:  # not null: that was answered above
            # The common case, answered as below: one letter naming one of the choices.
            index = _LETTERS.get(value.raw.strip(), MAX_CHOICES)
            if index < MAX_CHOICES and (not n_choices or index < n_choices):
                return (index,)
        entries = value.items if isinstance(value, YSeq) else [value]
        if not entries:
            self.problem(value.line, "'answer' is empty; give at least one letter")
        valid = (
            f"A-{letter(min(n_choices, MAX_CHOICES) - 1)}" if n_choices >= 2 else "a choice letter"
        )
        picked: list[int] = []
        for entry in entries:
            if not isinstance(entry, YScalar) or entry.is_null:
                self.problem(
                    entry.line,
                    f"'answer' must be a letter or a list of letters, not {describe(entry)}",
                )
                continue
            raw = entry.raw.strip()
            parts = [p for p in _ANSWER_SPLIT.split(raw) if p] if len(entries) == 1 else [raw]
            for part in parts:
                up = part.upper()
                if len(up) != 1 or not "A" <= up <= "Z":
                    self.problem(entry.line, f"answer '{part}' is not a choice letter ({valid})")
                    continue
                index = ord(up) - ord("A")
                if n_choices and index >= n_choices:
                    self.problem(entry.line, f"answer '{up}' is not one of the choices ({valid})")
                elif index in picked:
                    self.problem(entry.line, f"answer '{up}' is given twice")
                else:
                    picked.append(index)
        return tuple(sorted(picked))

    def cloze(self, item: YMap, common: dict[str, object]) -> ClozeNote:
        text = self.text(item, "text", required=True)
        if self.languages:  # else one text, nothing to compare (and no call per note)
            self.same_clozes(item.get("text"))
        if text.strip():
            if not _has_cloze(text):
                line = item.key_line("text")
                self.problem(
                    line,
                    "cloze text has no deletion; mark answers as {{c1::answer}} or {{c1::answer::hint}}",
                )
            # Anki would show a broken '{{c1:' literally; catch the common slips.
            stripped = CLOZE_RE.sub("", text)
            bad = _BAD_CLOZE.search(stripped)
            if bad:
                self.problem(
                    item.key_line("text"),
                    f"malformed cloze near '{stripped[bad.start() : bad.start() + 20]}'; "
                    "write {{c1::answer}} with two colons and closing '}}'",
                )
        return ClozeNote(**common, text=text, extra=self.text(item, "extra"))  # type: ignore[arg-type]
