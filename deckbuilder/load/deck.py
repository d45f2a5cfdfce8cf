"""The deck a card file describes: its header (name, id, languages, tags), its label
language and its study block.

:func:`read_deck` reads one card file, in one language, into a
:class:`~deckbuilder.model.Deck`; :func:`declared_languages` says which languages
the file can be read in; :func:`detected_label_language` which language a deck without
``languages:`` shows its multiple-choice labels in.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from ..errors import DeckError
from ..model import Deck, Note, StudySettings
from ..schedule.settings import (
    ANKI_MAX_INTERVAL,
    ANKI_PER_DAY_MAX,
    ANKI_RETENTION_RANGE,
    ANKI_STEP_MAX_SECONDS,
)
from ..yamlsource import YMap, YScalar, YSeq, YValue, describe
from .fields import ID_RE, FieldReader, is_null
from .notes import read_notes

__all__ = [
    "ALL_LANGUAGES",
    "DECK_KEYS",
    "LABEL_LANGUAGES",
    "LANG_RE",
    "STUDY_KEYS",
    "declared_languages",
    "detected_label_language",
    "read_deck",
]

DECK_KEYS = ("deck", "id", "languages", "label_language", "description", "tags", "study", "notes")
# The languages the multiple-choice template has labels in (LABELS in notetypes/mcq/mcq.js).
LABEL_LANGUAGES = {"en": "English", "ko": "Korean"}
# A language code (BCP 47 shape, lowercase primary subtag): ko, en, pt-BR, zh-Hant.
LANG_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*\Z")
ALL_LANGUAGES = "all"  # load_decks(lang=...): one Deck per declared language
STUDY_KEYS = (
    "new_per_day",
    "review_limit",
    "desired_retention",
    "learning_steps",
    "relearning_steps",
    "maximum_interval",
)
_STEP_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([smhd])\Z")
_STEP_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# YAML's spellings of the floats that are not finite numbers.
_NOT_FINITE = {".nan": "nan", ".inf": "inf", "+.inf": "inf", "-.inf": "-inf"}
_SHOWN_VALUE = 40  # characters of a wrong value quoted in a message
_DECIMAL_RE = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_STEP_DIGITS, _STEP_DECIMALS = 12, 9  # enough for any step Anki takes, to the second
_LONGEST_EXACT = 18  # digits of a whole number converted exactly; longer ones are huge


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
        return f"language {_quoted(code)} is listed twice"
    if same is not None:
        # Each language gets <id>.<lang>.apkg and a lock file: names that differ only in
        # case are one file on macOS and Windows.
        return (
            f"languages {_quoted(same)} and {_quoted(code)} differ only in case; their "
            "packages would be the same file on macOS and Windows"
        )
    if LANG_RE.match(code) and code != ALL_LANGUAGES:
        return None
    primary, _, rest = code.partition("-")
    lowered = f"{primary.lower()}-{rest}" if rest else primary.lower()
    usable = lowered != code and lowered != ALL_LANGUAGES and LANG_RE.match(lowered)
    hint = f" (write '{lowered}')" if usable else ""
    return f"language {_quoted(code)} is not a language code like ko, en or pt-BR{hint}"


def read_deck(
    path: Path,
    tree: YValue | None,
    media_dir: Path | None = None,
    languages: tuple[str, ...] = (),
    lang: str = "",
    fallback: bool = False,
) -> Deck:
    """The deck in the card file ``path``, parsed into ``tree``, read in ``lang`` (one of
    the declared ``languages``; '' for a file without them). Raises a DeckError listing
    every problem."""
    file = str(path)
    if tree is None:
        raise DeckError.single(file, "the file is empty; expected a deck (deck:, notes:)")
    if not isinstance(tree, YMap):
        raise DeckError.single(
            file,
            f"the top level must be a mapping (deck:, notes:), not {describe(tree)}",
            tree.line,
        )
    fields = FieldReader(path, languages, lang, fallback)
    fields.unknown_keys(tree, DECK_KEYS, "the deck")
    name = _deck_name(fields, tree)
    key = _deck_key(fields, tree)
    if lang and key:
        key = f"{key}.{lang}"
    description = fields.text(tree, "description")
    tags = fields.tags(tree)
    study = _read_study(fields, tree)
    notes = read_notes(fields, tree)
    label_language = _label_language(fields, tree, notes)
    deck = Deck(
        key=key,
        name=name,
        source=path,
        notes=tuple(notes),
        description=description,
        tags=tags,
        media_dirs=tuple(d for d in (media_dir, path.parent) if d is not None),
        study=study,
        lang=lang,
        languages=languages,
        label_language=label_language,
        warnings=tuple(dict.fromkeys(fields.warnings)),
    )
    if fields.problems:
        # The notes without problems go on, to be checked further (their media).
        raise DeckError(fields.problems, partial=[deck])
    return deck


def _deck_name(fields: FieldReader, tree: YMap) -> str:
    name = fields.text(tree, "deck", required=True).strip()
    written = tree.get("deck")
    if fields.lang and not (isinstance(written, YMap) and written.get(fields.lang) is not None):
        # One name for several languages: suffix it, so the decks differ in Anki.
        name = f"{name} ({fields.lang})" if name else name
    if name and any(not part.strip() for part in name.split("::")):
        fields.problem(tree.key_line("deck"), f"deck name '{name}' has an empty part between '::'")
    return name


def _deck_key(fields: FieldReader, tree: YMap) -> str:
    """The deck's ``id:``, or the file name when it has none."""
    if "id" in tree.entries:
        key = fields.text(tree, "id", required=True).strip()
        if key and not ID_RE.match(key):
            fields.problem(tree.key_line("id"), f"deck id '{key}' must match [a-z0-9][a-z0-9_-]*")
        return key
    key = fields.path.stem
    if not ID_RE.match(key):
        example = re.sub(r"[^a-z0-9_-]+", "-", key.lower()).strip("-_") or "my-deck"
        fields.problem(
            tree.line,
            f"the file name '{key}' is not a valid deck id; add 'id:' with lowercase letters, "
            f"digits, '-' and '_' (for example id: {example})",
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
    r"```.*?```|`[^`\n]*`|\\\(.*?\\\)|\\\[.*?\\\]|\{\{c\d+::|\]\([^)]*\)|\[sound:[^\]]*\]"
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
    before = len(fields.problems)
    written = fields.as_text(value, "label_language").strip()
    if len(fields.problems) > before:
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
            f"'label_language' is {_quoted(written)}; the cards have labels in {known}{hint}",
        )
        return ""
    return written


# -- the study block ---------------------------------------------------------------------------
def _read_study(fields: FieldReader, tree: YMap) -> StudySettings | None:
    """The deck's ``study:`` options (Anki's deck options), or None when it has none."""
    value = tree.get("study")
    if value is None or is_null(value):
        return None
    if not isinstance(value, YMap):
        fields.problem(
            value.line, f"'study' must be a mapping (new_per_day:, ...), not {describe(value)}"
        )
        return None
    fields.unknown_keys(value, STUDY_KEYS, "'study'")
    defaults = StudySettings()
    new = _whole(fields, value, "new_per_day", defaults.new_per_day, 0, ANKI_PER_DAY_MAX)
    reviews = _whole(fields, value, "review_limit", defaults.review_limit, 0, ANKI_PER_DAY_MAX)
    interval = _whole(
        fields, value, "maximum_interval", defaults.maximum_interval, 1, ANKI_MAX_INTERVAL
    )
    retention = defaults.desired_retention
    written = value.get("desired_retention")
    if written is not None:
        low, high = ANKI_RETENTION_RANGE
        number = _number(fields, written, "desired_retention")
        if number is not None and not low <= number <= high:  # also refuses NaN
            fields.problem(
                written.line,
                f"'desired_retention' is {_raw(written)}; Anki allows {low:.2f} to {high:.2f}",
            )
        elif number is not None:
            retention = number
    return StudySettings(
        new_per_day=new,
        review_limit=reviews,
        desired_retention=retention,
        learning_steps=_steps(fields, value, "learning_steps", defaults.learning_steps),
        relearning_steps=_steps(fields, value, "relearning_steps", defaults.relearning_steps),
        maximum_interval=interval,
        line=tree.key_line("study"),
    )


def _raw(value: YValue) -> str:
    """A scalar's text as written (long ones cut), for messages."""
    raw = value.raw if isinstance(value, YScalar) else ""
    return raw if len(raw) <= _SHOWN_VALUE else raw[:_SHOWN_VALUE] + "…"


def _quoted(text: str) -> str:
    """``text`` quoted for a message, long ones cut; repr shows a control character as an
    escape instead of sending it to the terminal."""
    return repr(text if len(text) <= _SHOWN_VALUE else text[:_SHOWN_VALUE] + "…")


def _shown(value: YValue) -> str:
    """A wrong value for messages: a scalar's text, quoted, else its shape ('a list')."""
    if isinstance(value, YScalar) and not value.is_null:
        return _quoted(value.raw)
    return describe(value)


def _number(fields: FieldReader, value: YValue, key: str) -> float | None:
    """The number at ``key`` (NaN and infinities included, for the caller's range check);
    None, with a problem, for anything else."""
    if isinstance(value, YScalar) and value.kind in ("int", "float"):
        text = value.raw.replace("_", "")
        try:
            return float(_NOT_FINITE.get(text.lower(), text))
        except ValueError:  # YAML 1.1 forms such as 0x1 or 1:30.5
            pass
    fields.problem(value.line, f"'{key}' must be a number like 0.9, not {_shown(value)}")
    return None


def _whole(fields: FieldReader, ymap: YMap, key: str, default: int, low: int, high: int) -> int:
    """The whole number at ``key`` within ``low``-``high``; ``default`` if absent or wrong."""
    value = ymap.get(key)
    if value is None:
        return default
    number = _yaml_int(value.raw) if isinstance(value, YScalar) and value.kind == "int" else None
    if number is None:
        fields.problem(value.line, f"'{key}' must be a whole number like 20, not {_shown(value)}")
        return default
    if not low <= number <= high:
        fields.problem(value.line, f"'{key}' is {_raw(value)}; allowed: {low} to {high}")
        return default
    return int(number)


def _yaml_int(raw: str) -> int | float | None:
    """A YAML 1.1 integer's value: decimal, 0x hex, 0b binary or 0-prefixed octal; None
    for the sexagesimal form (1:30). A decimal number of over 18 digits comes back as a
    float, beyond every range checked here: converting it exactly takes time that grows
    with the square of its length (and Python refuses over 4300 digits)."""
    text = raw.replace("_", "")
    if _DECIMAL_RE.match(text):
        return int(text) if len(text.lstrip("+-")) <= _LONGEST_EXACT else float(text)
    for base in (0, 8):  # base 0 refuses a leading zero, which YAML 1.1 reads as octal
        try:
            return int(text, base)
        except ValueError:
            continue
    return None


def _steps(
    fields: FieldReader, ymap: YMap, key: str, default: tuple[float, ...]
) -> tuple[float, ...]:
    """Learning steps in seconds, written in Anki's notation: ``[1m, 10m, 1d]``.

    Each step is a whole number of seconds (Anki's scheduler counts steps in seconds; a
    step of 1.5s is 1s there) from 1 second to Anki's longest step."""
    value = ymap.get(key)
    if value is None:
        return default
    items = value.items if isinstance(value, YSeq) else [value]
    out: list[float] = []
    for item in items:
        raw = item.raw.strip() if isinstance(item, YScalar) else ""
        match = _STEP_RE.match(raw)
        whole, _, fraction = match.group(1).partition(".") if match else ("", "", "")
        whole, fraction = whole.lstrip("0"), fraction.rstrip("0")
        if not match or not (whole or fraction):
            fields.problem(
                item.line,
                f"'{key}' entry {_shown(item)} is not a step like 30s, 10m, 1h or 1d",
            )
            continue
        # Over 12 digits is past Anki's longest step, and over 9 decimals is never a whole
        # second; both are told apart before the exact arithmetic (0.1m is 6 seconds, not
        # 6.000000000000001), which a number of a million digits would overflow.
        seconds = (
            Decimal(f"{whole or 0}.{fraction or 0}") * _STEP_SECONDS[match.group(2)]
            if len(whole) <= _STEP_DIGITS and len(fraction) <= _STEP_DECIMALS
            else None
        )
        if len(whole) > _STEP_DIGITS or (seconds is not None and seconds > ANKI_STEP_MAX_SECONDS):
            fields.problem(
                item.line,
                f"'{key}' entry {_shown(item)} is longer than Anki's longest step, "
                f"{ANKI_STEP_MAX_SECONDS // 86400} days ({ANKI_STEP_MAX_SECONDS} seconds)",
            )
        elif seconds is None or seconds != seconds.to_integral_value():
            fields.problem(
                item.line,
                f"'{key}' entry {_shown(item)} is not a whole number of seconds; Anki "
                "schedules steps in whole seconds",
            )
        else:
            out.append(float(seconds))
    return tuple(out)
