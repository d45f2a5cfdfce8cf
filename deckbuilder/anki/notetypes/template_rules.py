"""What Anki and genanki require of a note type's card templates.

Anki reads a template as text, ``{{...}}`` tags and ``<!-- -->`` comments (rslib,
``template.rs``): a tag is ``{{Field}}`` or ``{{filter:Field}}``, a conditional
``{{#Field}}...{{/Field}}`` or ``{{^Field}}...{{/Field}}``; its note type editor refuses
a template with a conditional never closed (or closed without being opened), a front that
shows no field, a field the note type does not have, two cards with the same front, and a
cloze note type without ``{{cloze:...}}`` on both sides. A package carrying such a
template imports, and its cards show an error instead of the note.

genanki, which writes the package, reads templates with chevron (a Mustache reader), tags
inside comments included, to find each card's required fields: a ``{{`` never closed, an
empty tag or a section chevron cannot close stops it, and ``{{>name}}`` makes it read a
file. :func:`template_problems` says every way a note type's templates break either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import chevron

__all__ = ["MAX_DEPTH", "SPECIAL_FIELDS", "template_problems", "token_spans"]

# Fields Anki fills itself (rslib notetype/mod.rs SPECIAL_FIELDS).
SPECIAL_FIELDS = frozenset(
    {"FrontSide", "Card", "CardFlag", "Deck", "Subdeck", "Tags", "Type", "CardID"}
)
# Conditionals nested deeper than this are refused: real templates nest two or three, and
# chevron's time grows with the cube of the depth.
MAX_DEPTH = 20
_ALT_SYNTAX = "{{=<% %>=}}"
_CARD_TAG = re.compile(r"\{\{\s*Card\s*\}\}")
_CLOZE_CONDITIONAL = re.compile(r"c[0-9]+\Z")


class TemplateSyntaxError(ValueError):
    """A template Anki or genanki cannot read."""


@dataclass
class _Read:
    """What a template shows: the fields it names, and those it shows through the cloze
    filter."""

    fields: set[str] = field(default_factory=set)
    cloze_fields: set[str] = field(default_factory=set)


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Anki's tokens of ``text`` as (kind, start, end), each span with its delimiters:
    "text", "comment" (``<!-- -->``) or "tag" (``{{...}}``). A ``{{`` with no ``}}``
    after it, and a ``<!--`` with no ``-->``, are text, as in Anki; the next tag and the
    next comment are each looked for once, not from every position (and, once there is
    none, never again)."""
    out: list[tuple[str, int, int]] = []
    pos = 0
    tag = comment = -1
    while pos < len(text):
        if tag < pos:
            tag = text.find("{{", pos)
            if tag < 0 or text.find("}}", tag + 2) < 0:
                tag = len(text)  # no tag closes after it, so none later either
        if comment < pos:
            comment = text.find("<!--", pos)
            if comment < 0 or text.find("-->", comment + 4) < 0:
                comment = len(text)
        starts = [at for at in (tag, comment) if 0 <= at < len(text)]
        if not starts:
            out.append(("text", pos, len(text)))
            break
        start = min(starts)
        if start > pos:
            out.append(("text", pos, start))
        if start == tag:
            pos = text.index("}}", start + 2) + 2
            out.append(("tag", start, pos))
        else:
            pos = text.index("-->", start + 4) + 3
            out.append(("comment", start, pos))
    return out


def _tokens(text: str) -> list[tuple[str, str]]:
    """Anki's tokens of ``text``: ("text", ...), ("comment", ...) or ("tag", content),
    a comment's and a tag's content without their delimiters."""
    inner = {"text": (0, 0), "comment": (4, 3), "tag": (2, 2)}
    return [
        (kind, text[start + inner[kind][0] : end - inner[kind][1]])
        for kind, start, end in token_spans(text)
    ]


def _read(text: str) -> _Read:
    """The fields ``text`` names, read as Anki reads it; TemplateSyntaxError for what it
    refuses."""
    if text.lstrip().startswith(_ALT_SYNTAX):
        raise TemplateSyntaxError(
            f"uses Anki's old alternative tags ({_ALT_SYNTAX}); write it with {{{{ }}}}"
        )
    read = _Read()
    open_: list[str] = []
    for kind, content in _tokens(text):
        if kind != "tag":
            continue
        key = content.lstrip("{").strip()
        if len(key.encode("utf-8")) >= 2 and key[0] in "#^/":
            name = key[1:].lstrip()
            if key[0] == "/":
                if not open_:
                    raise TemplateSyntaxError(f"closes '{{{{/{name}}}}}', which is not open")
                if open_[-1] != name:
                    raise TemplateSyntaxError(
                        f"closes '{{{{/{name}}}}}' where '{{{{/{open_[-1]}}}}}' was expected"
                    )
                open_.pop()
                continue
            open_.append(name)
            if len(open_) > MAX_DEPTH:
                raise TemplateSyntaxError(f"nests conditionals more than {MAX_DEPTH} deep")
            if not _CLOZE_CONDITIONAL.match(name):
                read.fields.add(name)
            continue
        *filters, name = key.split(":")
        read.fields.add(name)
        if "cloze" in filters:
            read.cloze_fields.add(name)
    if open_:
        raise TemplateSyntaxError(f"opens '{{{{#{open_[-1]}}}}}' and never closes it")
    return read


def _genanki_problem(text: str) -> str | None:
    """Why genanki cannot read ``text`` (with chevron, as it computes the required fields),
    None when it can."""
    depth = 0
    try:
        for kind, key in chevron.tokenizer.tokenize(text):
            if kind == "partial":
                return f"has '{{{{>{key}}}}}', which genanki reads as a file to include"
            depth += {"section": 1, "inverted section": 1, "end": -1}.get(kind, 0)
            if depth > MAX_DEPTH:
                return f"nests sections more than {MAX_DEPTH} deep"
    except chevron.ChevronError as exc:
        return f"cannot be read by genanki, which writes the package: {' '.join(str(exc).split())}"
    except IndexError:  # chevron's own stumble on an empty tag
        return "has an empty tag '{{}}'"
    return None


def template_problems(
    fields: Sequence[str], templates: Sequence[tuple[str, str, str]], *, cloze: bool
) -> list[str]:
    """Why Anki or genanki would refuse these templates (``(name, front, back)`` each) of a
    note type with ``fields``: each message names the card and side, ready to follow a
    note type's name."""
    problems: list[str] = []
    known = set(fields) | SPECIAL_FIELDS | {""}
    fronts: dict[str, str] = {}
    for number, (name, front, back) in enumerate(templates, start=1):
        card = f"card {number} ({name!r})" if name else f"card {number}"
        sides: list[_Read | None] = []
        for side, text in (("front", front), ("back", back)):
            wrong = _genanki_problem(text)
            try:
                sides.append(_read(text))
            except TemplateSyntaxError as exc:
                sides.append(None)
                wrong = str(exc)
            if wrong:
                problems.append(f"the {side} of {card} {wrong}")
        read_front, read_back = sides
        if read_front is None or read_back is None:
            continue
        if not read_front.fields - {""}:
            problems.append(f"the front of {card} shows no field; Anki makes no card of it")
        unknown = sorted((read_front.fields | read_back.fields) - known)
        if unknown:
            names = ", ".join(repr(name) for name in unknown[:3])
            problems.append(
                f"{card} names {names}, not a field of this note type (its fields: "
                f"{', '.join(fields)})"
            )
        if cloze and number == 1 and not (read_front.cloze_fields and read_back.cloze_fields):
            problems.append(
                f"{card} of a cloze note type must show a field with {{{{cloze:...}}}} on "
                "its front and its back"
            )
        same = fronts.get(front)
        if same is not None and not _CARD_TAG.search(front):
            problems.append(f"the front of {card} is the front of {same}; Anki refuses both")
        fronts.setdefault(front, card)
    return problems
