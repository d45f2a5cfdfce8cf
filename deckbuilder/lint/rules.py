"""The item-writing rules: each looks at one note (or, for answer positions, one deck)
and says what is wrong and how to fix it. docs/lint.md gives each rule's reason and
source; their codes are the model's (:data:`deckbuilder.model.LINT_RULES`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from deckbuilder.cloze import read_deletions
from deckbuilder.lint.normalise import normalised, plain
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    Deck,
    FieldsNote,
    McqNote,
    Note,
    NoteKind,
    TypedNote,
    letter,
)

# longest-correct: the right choice is this many times as long as the longest other
# choice, and this many characters longer (so that "12" beside "4" is no flaw).
LONGER = 1.5
LONGER_BY = 10
# cloze-hides-all: one deletion number hides this share of the text's characters.
COVERED = 0.8
# answer-position: judged on at least this many single-answer notes with shuffling off,
# warned when chance alone would pile that many answers on one letter less often.
MIN_UNSHUFFLED = 5
CHANCE = 0.01
_MAX_NAMED = 6  # notes an answer-position warning names

_ABOVE = re.compile(
    r"\b(?:all|none|both|neither|any|either)\s+(?:of\s+)?(?:the\s+)?"
    r"(?:above|preceding|previous|foregoing)\b"
    r"|\b(?:all|none)\s+of\s+(?:these|those|them|the\s+(?:others?|choices|options|answers))\b"
    r"|\b(?:all|none)\s+(?:are|is)\s+(?:correct|true|right)\b"
    r"|위의?\s*(?:모든|모두|것\s*모두|보기\s*모두|어느|항목|보기|답)"
    r"|(?:보기|위)\s*(?:전부|모두)"
    r"|모두\s*(?:정답|맞음|맞다|옳음|옳다|틀림|틀리다|아님|아니다|해당)"
    r"|(?:해당|정답|답)\s*(?:없음|없다|사항\s*없음)"
    r"|^\s*없음\s*$",
    re.IGNORECASE,
)
# The words every branch of _ABOVE, and of _REFERENCE, holds one of, looked for first in
# the text folded (_folded): one pattern of plain words is searched several times faster
# than the patterns themselves, which most choices do not match.
_ABOVE_WORD = re.compile(
    "above|preceding|previous|foregoing|these|those|them|other|choices|options|answers"
    "|correct|true|right|위|보기|모두|없"
)
_REFERENCE_WORD = re.compile(
    "and|or|&|,|와|과|및|option|choice|answer|alternative|but|except|first|last|previous|next|보기"
)
# Ignoring case, the patterns take two letters that str.casefold does not fold to ASCII:
# DOTLESS I as 'i', and I WITH DOT ABOVE, which casefold writes 'i' and a combining dot.
# Full-width letters and spaces (typed with a Chinese or Japanese input method) are read
# as the ASCII they stand for: "none of the above" in U+FF4E, U+FF4F...
_FOLD_AS_PATTERNS = str.maketrans(
    {"\u0131": "i", "\u0307": None, "\u3000": " "}
    | {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
)


def _folded(text: str) -> str:
    return text.casefold().translate(_FOLD_AS_PATTERNS)


# Letters naming choices: "Both A and B", "A, B and C", "(a) and (c)", "option 2",
# "all but C", "ㄱ, ㄴ", "①과 ②", "1번과 3번". Bare numbers are left alone: "2 and 4"
# is more often an answer than a reference.
# Korean particles follow a letter directly (A와 B), so the edges are ASCII word characters.
_EDGE = r"A-Za-z0-9_'\u2019"
_LETTER = rf"(?:\([A-Za-z1-9]\)|[A-Z](?![{_EDGE}]))"
_REFERENCE = re.compile(
    rf"(?<![{_EDGE}]){_LETTER}\s*(?:,\s*{_LETTER}\s*)*,?\s*(?:and|or|&|와|과|및|,)\s*{_LETTER}"
    r"|(?i:\b(?:options?|choices?|answers?|alternatives?))\s+"
    rf"(?:\([A-Za-z1-9]\)|[A-Z1-9](?![{_EDGE}]))"
    rf"|(?i:\b(?:all|any)\s+(?:but|except))\s+\(?[A-Z]\)?(?![{_EDGE}])"
    r"|(?i:\bthe\s+(?:first|last|previous|next)\s+(?:two|three|four|choice|option|answer)s?\b)"
    r"|[ㄱ-ㅎ]\s*(?:,|와|과|및)\s*[ㄱ-ㅎ]"
    r"|[①-⑳]\s*(?:,|와|과|및)\s*[①-⑳]"
    r"|[1-9]\s*번\s*(?:,|와|과|및)\s*[1-9]\s*번"
    rf"|보기\s*[A-Za-z1-9ㄱ-ㅎ①-⑳](?![{_EDGE}])"
)
_REFERENCE_WORDS = 8  # longer choices are sentences, where "A and B" names things
# Words after which letters name choices ("Both A and B", "only A"); after another word
# they name things ("Vitamins A and D").
_REFERRING_WORDS = frozenset(
    [
        "both",
        "either",
        "neither",
        "only",
        "all",
        "any",
        "but",
        "except",
        "and",
        "or",
        "nor",
        "not",
        "just",
        "options",
        "option",
        "choices",
        "choice",
        "answers",
        "answer",
    ]
)
_CHOICE_LETTER = re.compile(r"(?<![A-Za-z])[A-Z](?![A-Za-z])")
_NEGATIVE = re.compile(
    r"\b(?:not|except|least|cannot|never)\b|\b\w+n['\u2019]t\b"
    r"|\b(?:is|are|was|were)\s+(?:false|incorrect|untrue|wrong)\b"
    r"|(?:옳지|맞지)\s*않[은는]?|아닌|않은|않는|틀린|잘못된|거리가\s*먼|관계(?:가)?\s*없는"
    r"|관련(?:이)?\s*없는",
    re.IGNORECASE,
)
# Phrases with those words that ask nothing in the negative.
_NOT_NEGATIVE = re.compile(
    r"\bat\s+least\b|\bleast\s+(?:squares?|common|significant|recently)\b|\bnot\s+only\b",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(
    r"\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"
    r"|(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)"
    r"|<(b|strong|em|i|u|mark)\b[^>]*>(.+?)</\5\s*>",
    re.S | re.IGNORECASE,
)
# A fenced code block first: read as inline code, its fence would be an empty `` and its
# lines prose. Unclosed, it runs to the end of the text, as Markdown shows it.
_CODE_OR_MATH = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[^\n]*(?:\n.*?^[ \t]*\1[ \t]*$|.*)"
    r"|`[^`\n]*`|\\\(.*?\\\)|\\\[.*?\\\]|\$\$[^$]+\$\$|(?<![\\$])\$(?! )[^$\n]+(?<! )\$",
    re.S | re.M,
)

# What a question holds that the learner does not read: a link's address or an image's
# file, '](...)', and a tag with its attributes, '<span title="...">'. No match crosses
# a bracket or '<', so that a field of 30,000 unclosed '](' is read in linear time.
_UNREAD = re.compile(r"\]\([^)\n\[\]]*\)|</?[A-Za-z][^<>]*>")

# A Markdown picture, which no match crosses a '[' of (linear time, as in normalise).
_PICTURE = re.compile(r"!\[[^\[\]\n]*\]\([^)\n\[]*\)")


@dataclass(frozen=True)
class Finding:
    """A rule's verdict on one note, before it is placed in a file."""

    note: Note
    key: str  # the field it concerns (its line is looked up), '' for the note's line
    code: str
    problem: str
    fix: str


def note_findings(note: Note) -> Iterator[Finding]:
    """Every per-note rule's findings for ``note`` (other kinds of note: none)."""
    rules = _NOTE_RULES.get(note.kind)
    return rules(note) if rules is not None else iter(())


def _mcq_findings(note: McqNote) -> Iterator[Finding]:
    shown = [plain(choice) for choice in note.choices]
    above = [_speaks_of_above(text) for text in shown]
    named = [_names_other_choices(text, note.question) for text in shown]
    names_others = [letters is not None for letters in named]
    yield from _above_choice(note, above)
    yield from _choice_reference(note, named)
    # A choice that speaks of the others is judged by its own rule; its length is no cue.
    # A picture's file name and description are not shown: only the words beside it count.
    measured = [
        plain(_PICTURE.sub(" ", choice)) if "![" in choice else text
        for choice, text in zip(note.choices, shown, strict=True)
    ]
    yield from _longest_correct(
        note, measured, [a or n for a, n in zip(above, names_others, strict=True)]
    )
    yield from _negative_stem(note)


def _typed_findings(note: TypedNote) -> Iterator[Finding]:
    yield from _negative_stem(note)
    yield from _number_unit(note)


# number-unit: a unit after a number (500 mg, 37 °C, 5 %, 120 km/h, 10 mg/kg), or asked
# for in parentheses: "(in mg)". Units are the common ones, spelt as written (case
# matters: 'at', 'in' and 'a' after a number are words); a unit ends where no letter or
# '/' follows, so the order of the alternatives does not matter, or where Hangul does: a
# Korean particle joins the word before it ('500mg입니다', '500 mg을').
_ONE_UNIT = (
    "mg|g|kg|µg|μg|mcg|ng|t|lb|lbs|oz|mL|ml|L|l|dL|dl|cL|µL|μL|mol|mmol|µmol|μmol|mEq|IU"
    "|m|cm|mm|km|µm|μm|nm|ft|mi|yd|s|ms|µs|μs|ns|min|h|hr|hrs|d"
    "|Hz|kHz|MHz|GHz|W|kW|MW|mW|V|mV|kV|A|mA|J|kJ|MJ|cal|kcal|Pa|kPa|MPa|hPa|mmHg|atm|bar"
    "|K|°C|°F|℃|℉|%|‰|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|bit|bits|byte|bytes|px|dpi|rpm|bpm|mph"
)
_UNIT = rf"(?:(?:{_ONE_UNIT})(?:/(?:{_ONE_UNIT}))*|° ?[CF])(?:(?![\w/])|(?=[가-힣]))"
_ASKED_UNIT = re.compile(rf"\(\s*in\s+({_UNIT})\s*\)")


def _number_unit(note: TypedNote) -> Iterator[Finding]:
    """A number answer without ``unit:`` whose note writes that number with a unit
    ('500 mg' in the question or explanation), or asks for one ('(in mg)'): a learner
    who types the unit is marked wrong."""
    text = f"{plain(note.question)}\n{plain(note.explanation)}"
    asked = _ASKED_UNIT.search(text)
    for i, answer in enumerate(note.answers):
        if not answer.is_number or answer.unit:
            continue
        numbers = [part for part in re.split(r" [\u00b1\u2013] ", answer.shown) if part]
        written = None
        for number in numbers:
            # Not the end of a larger number: '1,500 mg' writes no 500 mg.
            found = re.search(rf"(?<![\w.])(?<!\d,){re.escape(number)}\s?({_UNIT})", text)
            if found:
                written = (
                    found.group(),
                    found.group(1),
                    f"writes it with a unit ('{found.group()}')",
                )
                break
        if written is None and asked is not None:
            # Only the unit is written ('(in mg)'): quoted as it stands, not as a number
            # with the unit that the author would look for in vain.
            unit = asked.group(1)
            written = (f"{numbers[0]} {unit}", unit, f"asks for it in {unit} ('{asked.group()}')")
        if written is None:
            continue
        example, unit, how = written
        yield Finding(
            note,
            f"answer[{i}]",
            "number-unit",
            f"the card accepts the number alone, but the note {how}: a learner who types "
            f"'{example}' is marked wrong",
            f"add unit: {unit} to the answer, which then takes the number with the unit or "
            "without it",
        )


def _quote(text: str, limit: int = 40) -> str:
    shown = plain(text)
    return f"'{shown if len(shown) <= limit else shown[: limit - 3] + '...'}'"


def speaks_of_choices_above(choice: str) -> bool:
    """Whether a choice says "all/none of the above" (or a Korean phrasing of it): one
    that must stay last, pinned, when the choices shuffle. Importers may pin such a
    choice."""
    return _speaks_of_above(plain(choice))


def _speaks_of_above(shown: str) -> bool:
    """:func:`speaks_of_choices_above` of a choice's visible text."""
    folded = _folded(shown)
    return _ABOVE_WORD.search(folded) is not None and _ABOVE.search(folded) is not None


def _above_choice(note: McqNote, above: Sequence[bool]) -> Iterator[Finding]:
    """``above``: whether each choice speaks of the choices above it."""
    last = len(note.choices) - 1
    for i, choice in enumerate(note.choices):
        if not above[i]:
            continue
        name = f"choice {letter(i)} {_quote(choice)}"
        if i != last:
            problem = f"{name} speaks of the choices above it but is not the last choice"
            fix = "move it to the end of the choices"
            fix += " and pin it (pin: true)" if note.shuffle else ""
        elif note.shuffle and i not in note.pinned:
            problem = f"{name} speaks of the choices above it, but the choices are shuffled"
            fix = "pin it in place ({text: ..., pin: true}) or set shuffle: false"
        else:
            continue
        yield Finding(note, f"choices[{i}]", "above-choice", problem, fix)


def _names_other_choices(text: str, question: str) -> list[str] | None:
    """The letters by which a choice's visible ``text`` names other choices ([] when it
    names them by position: "the first two"), None when it names none. Not when the
    letters name things: after a noun ("Vitamins A and D", "Hepatitis B and C"), or
    letters the question itself uses ("Let A and B be vectors")."""
    if len(text.split()) > _REFERENCE_WORDS:
        return None  # a sentence, where "A and B" names things
    if _REFERENCE_WORD.search(_folded(text)) is None:
        return None
    named: list[str] | None = None
    for match in _REFERENCE.finditer(text):
        before = text[: match.start()].split()
        if before and before[-1].isalpha() and before[-1].lower() not in _REFERRING_WORDS:
            continue
        letters = set(_CHOICE_LETTER.findall(match.group()))
        if letters and letters <= set(plain(question).split()):
            continue
        named = sorted({*(named or ()), *letters})
    return named


def _choice_reference(note: McqNote, named: Sequence[Sequence[str] | None]) -> Iterator[Finding]:
    """``named``: the letters of the other choices each choice names (None: it names
    none)."""
    if not note.shuffle:
        return
    for i, choice in enumerate(note.choices):
        letters = named[i]
        if letters is None:
            continue
        # The multiple-answer question the fix suggests has the letters the choice names; one
        # named by position ("the first two") has none to name.
        answer = (
            f"[{', '.join(letters)}]"
            if letters
            else "[...] with the letters of the choices it names"
        )
        yield Finding(
            note,
            f"choices[{i}]",
            "choice-reference",
            f"choice {letter(i)} {_quote(choice)} names other choices by letter or position, "
            "which change when the choices are shuffled (the card shows no letters)",
            f"say what those choices say, or ask a multiple-answer question (answer: {answer})",
        )


def _longest_correct(
    note: McqNote, texts: Sequence[str], speaks_of_others: Sequence[bool]
) -> Iterator[Finding]:
    judged = [i for i in range(len(texts)) if not speaks_of_others[i]]
    right = [len(texts[i]) for i in judged if i in note.answer]
    others = [len(texts[i]) for i in judged if i not in note.answer]
    if len(others) < 2 or not right:
        return
    shortest_right, longest_other = min(right), max(others)
    if shortest_right < LONGER * longest_other or shortest_right - longest_other < LONGER_BY:
        return
    which = "right choice" if len(right) == 1 else "right choices"
    names = ", ".join(letter(i) for i in judged if i in note.answer)
    times = shortest_right / max(longest_other, 1)
    yield Finding(
        note,
        f"choices[{next(i for i in judged if i in note.answer)}]",
        "longest-correct",
        f"the {which} ({names}) {'is' if len(right) == 1 else 'are'} {times:.1f} times as long "
        "as the longest other choice, which gives the answer away",
        "make the other choices as long and as specific, or the right one shorter",
    )


def _negative_stem(note: McqNote | TypedNote) -> Iterator[Finding]:
    text = note.question
    if "`" in text or "~" in text or "\\" in text:
        text = _CODE_OR_MATH.sub(lambda m: " " * len(m.group()), text)
    # Blanked, not removed: the emphasis around a word is found at the same places in
    # the text with its tags.
    read = (
        _UNREAD.sub(lambda m: " " * len(m.group()), text) if "](" in text or "<" in text else text
    )
    negatives = list(_NEGATIVE.finditer(read))
    if not negatives:
        return
    phrases = [m.span() for m in _NOT_NEGATIVE.finditer(read)]
    negatives = [
        m
        for m in negatives
        if not any(start <= m.start() and m.end() <= end for start, end in phrases)
    ]
    emphasised = [m.span() for m in _EMPHASIS.finditer(text)]
    for match in negatives:
        word = match.group()
        if any(start <= match.start() and match.end() <= end for start, end in emphasised):
            continue
        letters = [ch for ch in word if ch.isalpha() and ch.isascii()]
        if letters and all(ch.isupper() for ch in letters):
            continue
        written = " ".join(word.split())
        shown = f"**{written.upper()}**" if written.isascii() else f"**{written}**"
        yield Finding(
            note,
            "question",
            "negative-stem",
            f"the question asks in the negative ('{written}') without emphasis, "
            "which a quick reader misses",
            f"write it in bold or capitals ({shown}), or ask the question positively",
        )
        return


def _cloze_hides_all(note: ClozeNote) -> Iterator[Finding]:
    _, _, revealed, hidden = read_deletions(note.text)
    total = len(plain(revealed))
    if not total:
        return
    for number in sorted(hidden):
        # Visible text is never longer than its source: a short deletion needs no reading.
        if not number or len(hidden[number]) < COVERED * total:
            continue
        share = len(plain(hidden[number])) / total
        if share >= COVERED:
            yield Finding(
                note,
                "text",
                "cloze-hides-all",
                f"deletion c{number} hides {share:.0%} of the text, so the card gives no "
                "context to recall it from",
                "hide only the key term or fact and keep the rest of the sentence visible",
            )


def _front_equals_back(note: BasicNote) -> Iterator[Finding]:
    front = normalised(note.front)
    if front and front == normalised(note.back):
        yield Finding(
            note,
            "back",
            "front-equals-back",
            "the back says what the front says, so the card asks nothing",
            "put the question on the front and its answer on the back",
        )


def answer_position(deck: Deck) -> Iterator[Finding]:
    """Right answers piling up on one letter among the deck's single-answer notes with
    shuffling off (notes that opt out left out): a letter is the answer of so many that
    answers placed at random would do it less than one time in 1/:data:`CHANCE`."""
    counted = [
        n
        for n in deck.notes
        if isinstance(n, McqNote)
        and not n.shuffle
        and len(n.answer) == 1
        and "answer-position" not in n.lint_ignored
    ]
    if len(counted) < MIN_UNSHUFFLED:
        return
    for index in sorted({n.answer[0] for n in counted}):
        hits = [n for n in counted if n.answer[0] == index]
        # Each note's chance of having its answer here (0 if it has fewer choices),
        # averaged: a binomial with the mean chance spreads no less than the real one.
        p = sum(1 / len(n.choices) for n in counted if index < len(n.choices)) / len(counted)
        if _at_least(len(hits), len(counted), p) >= CHANCE:
            continue
        named = ", ".join(n.id for n in hits[:_MAX_NAMED]) + (
            ", ..." if len(hits) > _MAX_NAMED else ""
        )
        yield Finding(
            hits[0],
            "answer",
            "answer-position",
            f"the right answer is {letter(index)} in {len(hits)} of the {len(counted)} "
            f"single-answer notes with shuffling off ({named}); answers placed at random "
            f"would do that less than once in {round(1 / CHANCE)} decks",
            "vary where the right choice stands, or let the choices shuffle",
        )


def _at_least(hits: int, n: int, p: float) -> float:
    """P(X >= hits) for X ~ Binomial(n, p)."""
    if p <= 0:
        return 0.0 if hits > 0 else 1.0
    if p >= 1:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for k in range(hits, n + 1):
        log_term = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        total += math.exp(log_term + k * log_p + (n - k) * log_q)
    return min(total, 1.0)


def duplicate_sources(note: Note) -> Sequence[tuple[str, str]]:
    """The question texts of a note that :mod:`.duplicates` compares, by field key."""
    sources = _DUPLICATE_SOURCES.get(note.kind)
    return sources(note) if sources is not None else []


def _declared_sources(note: FieldsNote) -> Sequence[tuple[str, str]]:
    if not note.fields:
        return []
    # The first field, which Anki's own duplicate check compares.
    first = note.fields[0]
    text = read_deletions(first).revealed if note.note_type.is_cloze else first
    return [(f"fields.{note.note_type.fields[0]}", text)]


# What the rules look at in each kind of note: its own rules, and its question texts.
_NOTE_RULES: dict[NoteKind, Callable[[Any], Iterator[Finding]]] = {
    NoteKind.MCQ: _mcq_findings,
    NoteKind.CLOZE: _cloze_hides_all,
    NoteKind.BASIC: _front_equals_back,
    NoteKind.TYPED: _typed_findings,
}
_DUPLICATE_SOURCES: dict[NoteKind, Callable[[Any], Sequence[tuple[str, str]]]] = {
    NoteKind.MCQ: lambda note: [("question", note.question)],
    NoteKind.TYPED: lambda note: [("question", note.question)],
    NoteKind.BASIC: lambda note: [("front", note.front)],
    NoteKind.CLOZE: lambda note: [("text", read_deletions(note.text).revealed)],
    NoteKind.DECLARED: _declared_sources,
}
