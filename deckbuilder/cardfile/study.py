"""The study block of a card file (``study:``): Anki's deck options for the deck, and the
FSRS parameters or review history its preview uses.

:func:`read_study` reads it into :class:`~deckbuilder.model.StudySettings`, reporting
every wrong value at its line; :func:`quoted` quotes a value for such a message.
"""

from __future__ import annotations

import os
import re
import stat
from decimal import Decimal
from pathlib import Path

from deckbuilder import deck_options
from deckbuilder.cardfile.fields import FieldReader, is_null
from deckbuilder.cardfile.keys import STUDY, Shape, key_names
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.deck_options import (
    ANKI_RETENTION_RANGE,
    ANKI_STEP_MAX_SECONDS,
    ParameterSyntaxError,
    parameter_problems,
    parse_parameters,
    percent_hint,
)
from deckbuilder.files.bounds import link_out_of_project, project_folder
from deckbuilder.files.reading import file_kind
from deckbuilder.model import StudySettings

STUDY_KEYS = key_names(STUDY)
_KEYS = {key.name: key for key in STUDY}
_STEP_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([smhd])\Z")
_STEP_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# YAML's spellings of the floats that are not finite numbers.
_NOT_FINITE = {".nan": "nan", ".inf": "inf", "+.inf": "inf", "-.inf": "-inf"}
_SHOWN_VALUE = 40  # characters of a wrong value quoted in a message
_SHOWN_PATH = 400  # characters of a path named in a message
_DECIMAL_RE = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_STEP_DIGITS, _STEP_DECIMALS = 12, 9  # enough for any step Anki takes, to the second
_LONGEST_EXACT = 18  # digits of a whole number converted exactly; longer ones are huge


def read_study(fields: FieldReader, tree: YMap) -> StudySettings | None:
    """The deck's ``study:`` options (Anki's deck options), or None when it has none."""
    value = tree.get("study")
    if value is None or is_null(value):
        return None
    if not isinstance(value, YMap):
        fields.problem(
            value.line, f"'study' must be {SHAPES[Shape.STUDY].phrase}, not {describe(value)}"
        )
        return None
    fields.unknown_keys(value, STUDY_KEYS, "'study'")
    defaults = StudySettings()
    new = _whole(fields, value, "new_per_day")
    reviews = _whole(fields, value, "review_limit")
    interval = _whole(fields, value, "maximum_interval")
    retention = defaults.desired_retention
    written = value.get("desired_retention")
    if written is not None:
        low, high = ANKI_RETENTION_RANGE
        number = _number(fields, written, "desired_retention")
        if number is not None and not low <= number <= high:  # also refuses NaN
            fields.problem(
                written.line,
                f"'desired_retention' is {_raw(written)}; Anki allows {low:.2f} to {high:.2f}"
                f"{percent_hint(number)}",
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
        parameters=_parameters(fields, value.get("params")),
        history=_history(fields, value.get("history")),
        history_line=value.lines.get("history", 0),
    )


def _parameters(fields: FieldReader, value: YValue | None) -> tuple[float, ...] | None:
    """The FSRS parameters ``params:`` gives, as a list or as Anki's deck options show
    them ("0.212, 1.2931, ..."); None when absent or wrong (with a problem)."""
    if value is None or is_null(value):
        return None
    if isinstance(value, YSeq):
        numbers = [_number(fields, item, "params") for item in value.items]
        if any(n is None for n in numbers):
            return None
        parameters = tuple(n for n in numbers if n is not None)
    elif isinstance(value, YScalar) and value.kind == "str":
        try:
            parameters = parse_parameters(value.raw)
        except ParameterSyntaxError as exc:
            fields.problem(value.line, f"'params' entry {exc}; expected 21 numbers")
            return None
    else:
        fields.problem(value.line, f"'params' must be a list of 21 numbers, not {_shown(value)}")
        return None
    # py-fsrs's bounds, asked for only when a deck gives parameters (see deck_options)
    lower, upper = deck_options.LOWER_BOUNDS, deck_options.UPPER_BOUNDS
    if isinstance(value, YSeq) and len(parameters) == len(lower):
        # Each value out of bounds at its own line (a list may span several).
        bad = [
            (item, i, number)
            for i, (item, number) in enumerate(zip(value.items, parameters, strict=True))
            if not lower[i] <= number <= upper[i]  # also refuses NaN
        ]
        for item, i, number in bad:
            fields.problem(
                item.line,
                f"'params': w[{i}]={number:g} is outside {lower[i]:g}..{upper[i]:g}",
            )
        return None if bad else parameters
    problems = parameter_problems(parameters)
    for problem in problems:
        fields.problem(value.line, f"'params': {problem}")
    return None if problems else parameters


def _history(fields: FieldReader, value: YValue | None) -> Path | None:
    """The review history ``history:`` names, relative to the card file's folder; None
    when absent, or (with a problem) when it names no file in the project."""
    if value is None or is_null(value):
        return None
    text = value.raw.strip() if isinstance(value, YScalar) and value.kind == "str" else ""
    if not text:
        fields.problem(
            value.line,
            f"'history' must be the path of a review history (collection.anki2, .colpkg "
            f"or .apkg) relative to the card file, not {_shown(value)}",
        )
        return None
    path = fields.path.parent / text
    shown = repr(str(path)[:_SHOWN_PATH])
    if "\0" in text:  # no file name holds one, and the system refuses to look one up
        fields.problem(value.line, f"'history' {shown} holds a NUL character; no file is named so")
        return None
    wrong = _outside_project(fields.path, path, shown) or _not_a_history_file(path, shown)
    if wrong:
        fields.problem(value.line, wrong)
        return None
    return path


def _outside_project(card_file: Path, path: Path, shown: str) -> str | None:
    """Why ``path`` may not be read on the card file's account: it leads out of the
    card file's project, by a link or by its own path. A history elsewhere is the user's
    to name on the command line, where a shared card file cannot name it for them."""
    root = project_folder(card_file)
    advice = (
        "a card file reads a review history only inside its project: copy the history "
        "into the project, or delete 'history' and name the file with preview --history"
    )
    link = link_out_of_project(path, root)
    if link is not None:
        via, real = link
        return (
            f"'history' {shown} goes through '{via}', a link to '{real}', outside the "
            f"project; {advice}"
        )
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(root)):
        return f"'history' {shown} is outside the project ({root}); {advice}"
    return None


def _not_a_history_file(path: Path, shown: str) -> str | None:
    """Why ``path`` cannot be a review history: missing, a folder, or no regular file (a
    named pipe would block the preview that reads it). Told without opening it."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return f"'history' file {shown} not found (paths are relative to the card file's folder)"
    if stat.S_ISDIR(mode):
        return (
            f"'history' {shown} is a folder; name the review history in it "
            "(collection.anki2, .colpkg or .apkg)"
        )
    if not stat.S_ISREG(mode):
        return f"'history' {shown} is {file_kind(mode)}, not a file; only regular files are read"
    return None


def _raw(value: YValue) -> str:
    """A scalar's text as written (long ones cut), for messages."""
    raw = value.raw if isinstance(value, YScalar) else ""
    return raw if len(raw) <= _SHOWN_VALUE else raw[:_SHOWN_VALUE] + "…"


def quoted(text: str) -> str:
    """``text`` quoted for a message, long ones cut; repr shows a control character as an
    escape instead of sending it to the terminal."""
    return repr(text if len(text) <= _SHOWN_VALUE else text[:_SHOWN_VALUE] + "…")


def _shown(value: YValue) -> str:
    """A wrong value for messages: a scalar's text, quoted, else its shape ('a list')."""
    if isinstance(value, YScalar) and not value.is_null:
        return quoted(value.raw)
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
    fields.problem(
        value.line, f"'{key}' must be {SHAPES[Shape.NUMBER].phrase}, not {_shown(value)}"
    )
    return None


def _whole(fields: FieldReader, ymap: YMap, key: str) -> int:
    """The whole number at ``key`` within the range its declaration gives; its default
    if absent or wrong."""
    declared = _KEYS[key]
    default, low, high = int(declared.default), int(declared.low or 0), int(declared.high or 0)
    value = ymap.get(key)
    if value is None:
        return default
    number = _yaml_int(value.raw) if isinstance(value, YScalar) and value.kind == "int" else None
    if number is None:
        fields.problem(
            value.line, f"'{key}' must be {SHAPES[Shape.WHOLE].phrase}, not {_shown(value)}"
        )
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
