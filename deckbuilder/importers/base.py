"""What every importer shares: the intermediate result, stable ids, and the checks
that make an imported file load cleanly.

An importer turns source text into an :class:`Imported`: questions with their source
line numbers, the questions it had to skip, and what the deck should be called. It
never prints; every problem is a :class:`~deckbuilder.errors.Problem` with its line.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.cardfile.fields import MAX_FIELD_BYTES, unstorable_problem
from deckbuilder.errors import DeckError, Problem, RequestError, TargetExists
from deckbuilder.model import letter

__all__ = [
    "MAX_CHOICES",
    "Imported",
    "Question",
    "Skipped",
    "assign_ids",
    "check_target",
    "choice_problems",
    "field_problem",
    "field_refusal",
    "size_problem",
    "slugify",
]

MAX_CHOICES = 26
SLUG_LENGTH = 40
HASH_LENGTH = 6


@dataclass
class Question:
    """One multiple-choice question as found in the source."""

    line: int
    question: str
    choices: list[str]
    answer: list[int] = field(default_factory=list)  # 0-based, sorted; empty: none marked
    explanation: str = ""
    tags: list[str] = field(default_factory=list)
    shuffle: bool = True
    category: tuple[str, ...] = ()  # GIFT $CATEGORY path, e.g. ("Physics", "Week 1")
    label: str = "question"  # how messages name it: 'question 3'
    # Each choice's feedback, '' where it has none; empty when no choice has any.
    feedback: list[str] = field(default_factory=list)
    # A typed-answer question (no choices): its accepted answers as the card file writes
    # them, {"text": ...}, {"number": ..., "tolerance": ...} or {"min": ..., "max": ...}
    # (numbers as written in the source); None for a multiple-choice question.
    typed: list[dict[str, str]] | None = None
    name: str = ""  # the source's own name for the question (GIFT ::name::), for its id


@dataclass
class CardNote:
    """One note read from an Anki package, Anki's text export or a spreadsheet, before it
    becomes a card-file note: its kind ('basic', 'cloze', 'mcq') and Markdown fields by
    card-file key (front/back, text/extra, question/explanation)."""

    kind: str
    line: int  # where the source has it (its row; 0 for a package)
    label: str  # how messages name it: "row 4", "note 'hola'"
    fields: dict[str, str]
    choices: list[str] = field(default_factory=list)
    answer: list[int] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    guid: str = ""  # kept from Anki: the note's identity there
    reverse: bool = False
    anki_id: int = 0  # from a package: the note's id and modification time there
    mod: int = 0
    # A note of deckbuilder's own multiple-choice or typed-answer type (from a package):
    # per-choice feedback ('' where none; [] when no choice has any), pinned choices,
    # shuffle; a typed note's answers as the card file writes them (see
    # Question.typed) and match_case.
    feedback: list[str] = field(default_factory=list)
    pinned: list[int] = field(default_factory=list)
    shuffle: bool = True
    typed: list[dict[str, str]] | None = None
    match_case: bool = False
    # A note of Anki's "Basic (optional reversed card)": its "Add Reverse" field as Anki
    # has it (None for other notes).
    add_reverse: str | None = None


@dataclass(frozen=True)
class Skipped:
    """A question the card format cannot hold (numeric, matching, essay...)."""

    line: int
    kind: str
    reason: str


@dataclass
class Imported:
    """The result of reading one source file, before it becomes a card file."""

    format: str
    source: str  # the file name, for messages and the header comment
    questions: list[Question] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    deck: str = ""  # deck name found in the source (title line, $CATEGORY); may be empty
    description: str = ""
    # Worth telling the author, not worth refusing the import ("warning: ..." messages).
    warnings: list[Problem] = field(default_factory=list)
    # The format's own words for questions without an answer (Aiken reports them where
    # the next question starts, as Moodle does); none: the general message.
    missing_answer_messages: list[Problem] = field(default_factory=list)

    @property
    def missing_answers(self) -> list[Question]:
        return [q for q in self.questions if not (q.typed if q.typed is not None else q.answer)]


def skipped_summary(skipped: list[Skipped]) -> str:
    """'0 skipped', or '3 skipped (2 essay, 1 description)': how many of each kind."""
    if not skipped:
        return "0 skipped"
    kinds: dict[str, int] = {}
    for s in skipped:
        kinds[s.kind] = kinds.get(s.kind, 0) + 1
    return f"{len(skipped)} skipped ({', '.join(f'{n} {kind}' for kind, n in kinds.items())})"


def slugify(text: str, limit: int = SLUG_LENGTH) -> str:
    """ASCII letters and digits of ``text``, lowercase, words joined by '-', at most
    ``limit`` characters (cut at a word boundary when possible)."""
    ascii_text = (
        unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    )
    words = re.findall(r"[a-z0-9]+", ascii_text)
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > limit:
            if not out:
                out = word[:limit]
            break
        out = candidate
    return out


def _hash(text: str) -> str:
    # Whitespace is normalised so that re-wrapping a question keeps its id.
    norm = " ".join(unicodedata.normalize("NFC", text).split())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def note_id_for(text: str) -> str:
    """A stable note id from a question's text: readable slug plus a short hash of the
    whole text, so questions without ASCII words (Korean-only) get distinct ids too."""
    slug = slugify(text)
    return f"{slug}-{_hash(text)}" if slug else f"q-{_hash(text)}"


def assign_ids(questions: list[Question]) -> list[str]:
    """Ids for ``questions`` in source order; repeated texts get -2, -3, ..."""
    return distinct_ids([slugify(q.name) or note_id_for(q.question) for q in questions])


def distinct_ids(bases: list[str]) -> list[str]:
    """``bases`` made distinct in order: a repeated one gets -2, -3, ..."""
    ids: list[str] = []
    seen: set[str] = set()
    for base in bases:
        nid, n = base, 1
        while nid in seen:
            n += 1
            nid = f"{base}-{n}"
        seen.add(nid)
        ids.append(nid)
    return ids


def choice_problems(file: str, line: int, what: str, choices: list[str]) -> list[Problem]:
    """The checks the card loader makes on choices, reported at the source line."""
    problems: list[Problem] = []
    if not 2 <= len(choices) <= MAX_CHOICES:
        problems.append(
            Problem(
                file, line, f"{what} has {len(choices)} choices; a card needs 2 to {MAX_CHOICES}"
            )
        )
    first: dict[str, int] = {}
    for i, choice in enumerate(choices):
        norm = " ".join(unicodedata.normalize("NFC", choice).split()).casefold()
        label = letter(i) if i < MAX_CHOICES else str(i + 1)
        if not norm:
            problems.append(Problem(file, line, f"{what}: choice {label} is empty"))
        elif norm in first:
            problems.append(
                Problem(file, line, f"{what}: choice {label} repeats choice {letter(first[norm])}")
            )
        else:
            first[norm] = i
    return problems


def question_problems(file: str, q: Question, what: str) -> list[Problem]:
    problems: list[Problem] = []
    if not q.question.strip():
        problems.append(Problem(file, q.line, f"{what} has no text"))
    if q.typed is None:
        problems.extend(choice_problems(file, q.line, what, q.choices))
    return problems


def size_problem(text: str) -> str | None:
    """Why the card loader would refuse ``text`` as too long, in words that follow the
    field's name; None if its size is fine."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FIELD_BYTES:
        return f"is {size:,} bytes; a card field holds at most {MAX_FIELD_BYTES:,}"
    return None


def field_problem(text: str) -> str | None:
    """Why the card loader would refuse ``text`` as a field (too long, or holding
    characters Anki cannot store), in words that follow the field's name; None if it
    takes it."""
    return size_problem(text) or unstorable_problem(text)


def field_refusal(q: Question) -> str | None:
    """Why ``q`` cannot become a note the card loader takes, or None when it can."""
    parts = [
        ("the question", q.question),
        *((f"choice {letter(i)}", choice) for i, choice in enumerate(q.choices)),
        *((f"the feedback of choice {letter(i)}", said) for i, said in enumerate(q.feedback)),
        ("the explanation", q.explanation),
        *((f"tag {i + 1}", tag) for i, tag in enumerate(q.tags)),
        *((f"accepted answer {i + 1}", a.get("text", "")) for i, a in enumerate(q.typed or [])),
    ]
    for what, text in parts:
        problem = field_problem(text)
        if problem:
            return f"{what} {problem}"
    return None


def check_target(path: Path, source: Path, *, force: bool, example: str) -> None:
    """Refuse to write ``path`` when it is the file being imported, a folder (``example``
    names a file to give instead), or, without ``force``, a file that exists."""
    if path.exists() and source.exists() and path.resolve() == source.resolve():
        raise RequestError.single("out", f"{path} is the file being imported; choose another")
    if path.is_dir():
        raise RequestError.single("out", f"{path} is a folder; give a file name such as {example}")
    if path.exists() and not force:
        raise TargetExists(path)


def raise_if(problems: list[Problem]) -> None:
    if problems:
        raise DeckError(sorted(problems, key=lambda p: (p.line or 0, p.message)))


_ANSWER_ITEM_WITH_TEXT = re.compile(r"([A-Za-z]|\d{1,3})[.)]\s+\S")


def parse_answer(
    value: str, n_choices: int, file: str, line: int, *, numbers: bool = True
) -> tuple[list[int], list[Problem]]:
    """Read 'B', 'A, C', '1, 3' (1-based) or 'B) the choice text' into 0-based indexes."""
    value = value.strip()
    if _ANSWER_ITEM_WITH_TEXT.match(value):  # 'B) Extra computation': the letter counts
        value = re.split(r"[.)]", value, maxsplit=1)[0]
    tokens = [t for t in re.split(r"[\s,;/&+]+|\band\b", value) if t]
    valid = f"A-{letter(n_choices - 1)}" if 2 <= n_choices <= MAX_CHOICES else "a choice letter"
    picked: list[int] = []
    problems: list[Problem] = []
    for raw in tokens:
        token = raw.strip("().[]*")
        if len(token) == 1 and token.isascii() and token.isalpha():
            index = ord(token.upper()) - ord("A")
        elif numbers and len(token) == 1 and "\u2460" <= token <= "\u2473":  # ① .. ⑳
            index = ord(token) - 0x2460
        elif numbers and token.isascii() and token.isdigit():
            index = int(token) - 1
        else:
            hint = "letters (B) or numbers from 1" if numbers else "a letter (B)"
            problems.append(Problem(file, line, f"cannot read answer '{raw}'; write {hint}"))
            continue
        if not 0 <= index < n_choices:
            problems.append(
                Problem(file, line, f"answer '{raw}' is not one of the choices ({valid})")
            )
        elif index in picked:
            problems.append(Problem(file, line, f"answer '{raw}' is given twice"))
        else:
            picked.append(index)
    return sorted(picked), problems
