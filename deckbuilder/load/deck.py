"""The deck a card file describes: its header (name, id, languages, tags) and study block.

:func:`read_deck` reads one card file, in one language, into a
:class:`~deckbuilder.model.Deck`; :func:`declared_languages` says which languages
the file can be read in.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import DeckError
from ..model import Deck, StudySettings
from ..yamlsource import YMap, YScalar, YSeq, YValue, describe
from .fields import ID_RE, FieldReader, is_null
from .notes import read_notes

__all__ = ["ALL_LANGUAGES", "DECK_KEYS", "LANG_RE", "STUDY_KEYS", "declared_languages", "read_deck"]

DECK_KEYS = ("deck", "id", "languages", "description", "tags", "study", "notes")
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
# Ranges Anki's deck options accept.
RETENTION_RANGE = (0.70, 0.99)
PER_DAY_MAX = 9999
MAX_INTERVAL = 36500
_STEP_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])\Z")
_STEP_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


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
    for item in value.items:
        code = item.raw.strip() if isinstance(item, YScalar) and not item.is_null else ""
        if not LANG_RE.match(code) or code == ALL_LANGUAGES:
            shown = code or describe(item)
            fields.problem(
                item.line, f"language '{shown}' is not a language code like ko, en or pt-BR"
            )
        elif code in out:
            fields.problem(item.line, f"language '{code}' is listed twice")
        else:
            out.append(code)
    return tuple(out)


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
    if fields.problems:
        raise DeckError(fields.problems)
    return Deck(
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
        warnings=tuple(dict.fromkeys(fields.warnings)),
    )


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
    new = _whole(fields, value, "new_per_day", defaults.new_per_day, 0, PER_DAY_MAX)
    reviews = _whole(fields, value, "review_limit", defaults.review_limit, 0, PER_DAY_MAX)
    interval = _whole(fields, value, "maximum_interval", defaults.maximum_interval, 1, MAX_INTERVAL)
    retention = defaults.desired_retention
    written = value.get("desired_retention")
    if written is not None:
        low, high = RETENTION_RANGE
        number = _number(fields, written, "desired_retention")
        if number is not None and not low <= number <= high:
            fields.problem(
                written.line,
                f"'desired_retention' is {number}; Anki allows {low:.2f} to {high:.2f}",
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


def _number(fields: FieldReader, value: YValue, key: str) -> float | None:
    if isinstance(value, YScalar) and value.kind in ("int", "float"):
        try:
            return float(value.raw.replace("_", ""))
        except ValueError:
            pass
    fields.problem(value.line, f"'{key}' must be a number, not {describe(value)}")
    return None


def _whole(fields: FieldReader, ymap: YMap, key: str, default: int, low: int, high: int) -> int:
    """The whole number at ``key`` within ``low``-``high``; ``default`` if absent or wrong."""
    value = ymap.get(key)
    if value is None:
        return default
    if not (isinstance(value, YScalar) and value.kind == "int"):
        fields.problem(value.line, f"'{key}' must be a whole number, not {describe(value)}")
        return default
    try:
        number = int(value.raw.replace("_", ""), 0)
    except ValueError:  # YAML 1.1 octal such as 010
        number = int(value.raw.replace("_", ""), 8)
    if not low <= number <= high:
        fields.problem(value.line, f"'{key}' is {number}; allowed: {low} to {high}")
        return default
    return number


def _steps(
    fields: FieldReader, ymap: YMap, key: str, default: tuple[float, ...]
) -> tuple[float, ...]:
    """Learning steps in seconds, written in Anki's notation: ``[1m, 10m, 1d]``."""
    value = ymap.get(key)
    if value is None:
        return default
    items = value.items if isinstance(value, YSeq) else [value]
    out: list[float] = []
    for item in items:
        raw = item.raw.strip() if isinstance(item, YScalar) else ""
        match = _STEP_RE.match(raw)
        if not match or float(match.group(1)) <= 0:
            fields.problem(
                item.line,
                f"'{key}' entry '{raw or describe(item)}' is not a step like 30s, 10m, 1h or 1d",
            )
            continue
        out.append(float(match.group(1)) * _STEP_SECONDS[match.group(2)])
    return tuple(out)
