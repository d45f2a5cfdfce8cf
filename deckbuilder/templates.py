"""Anki's card template language: what Anki and genanki require of a note type's card
templates, and which cards a note of a note type makes.

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
import unicodedata
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field

import chevron

from deckbuilder.invisible import is_blank

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
    typed: list[str] = field(default_factory=list)  # the fields of its {{type:...}} tags


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
    read = _Read()
    for node in _walk(_tree(text)):
        if isinstance(node, str):
            *filters, name = node.split(":")
            read.fields.add(name)
            if "cloze" in filters:
                read.cloze_fields.add(name)
            if "type" in filters:
                read.typed.append(name)
        elif not _CLOZE_CONDITIONAL.match(node[1]):
            read.fields.add(node[1])
    return read


def _named_anyway(text: str) -> set[str]:
    """The fields a template Anki cannot read names in its tags (conditionals' too)."""
    named = set()
    for kind, content in _tokens(text):
        key = content.lstrip("{").strip()
        if kind != "tag":
            continue
        if key[:1] not in ("#", "^", "/"):
            named.add(key.split(":")[-1])
        elif not _CLOZE_CONDITIONAL.match(key[1:].lstrip()):
            named.add(key[1:].lstrip())
    return named


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
    return [problem for _, problem in card_problems(fields, templates, cloze=cloze)]


def card_problems(
    fields: Sequence[str], templates: Sequence[tuple[str, str, str]], *, cloze: bool
) -> list[tuple[int, str]]:
    """:func:`template_problems`, each with the number of the card it is about (1 for the
    first), so that a card file can tell it at that card's line."""
    problems: list[tuple[int, str]] = []
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
                problems.append((number, f"the {side} of {card} {wrong}"))
        read_front, read_back = sides
        # A side Anki cannot read still names fields: they are checked with the other
        # side's, so that an unknown field is told along with the broken conditional.
        named = set().union(
            *(
                read.fields if read is not None else _named_anyway(text)
                for read, text in ((read_front, front), (read_back, back))
            )
        )
        if read_front is not None and not read_front.fields - {""}:
            problems.append(
                (number, f"the front of {card} shows no field; Anki makes no card of it")
            )
        unknown = sorted(named - known)
        if unknown:
            names = ", ".join(repr(name) for name in unknown[:3])
            problems.append(
                (
                    number,
                    f"{card} names {names}, not a field of this note type (its fields: "
                    f"{', '.join(fields)})",
                )
            )
        if read_front is None or read_back is None:
            continue
        if cloze and number == 1 and not (read_front.cloze_fields and read_back.cloze_fields):
            problems.append(
                (
                    number,
                    f"{card} of a cloze note type must show a field with {{{{cloze:...}}}} on "
                    "its front and its back",
                )
            )
        same = fronts.get(front)
        if same is not None and not _CARD_TAG.search(front):
            problems.append(
                (number, f"the front of {card} is the front of {same}; Anki refuses both")
            )
        fronts.setdefault(front, card)
    return problems


def typed_answer_warnings(templates: Sequence[tuple[str, str, str]]) -> list[tuple[int, str]]:
    """A side of a card with two ``{{type:}}`` tags, with the card's number (1 for the
    first): Anki takes such a template, but its reviewers (desktop's typeAnsQuestionFilter,
    AnkiDroid's) ask for the first tag's field alone and put that one's box or comparison
    in place of every tag, so a second field is never asked nor checked."""
    found: list[tuple[int, str]] = []
    for number, (name, front, back) in enumerate(templates, start=1):
        card = f"card {number} ({name!r})" if name else f"card {number}"
        sides: dict[str, list[str]] = {}
        for side, text in (("front", front), ("back", back)):
            try:
                typed = _read(text).typed
            except TemplateSyntaxError:
                continue  # told by card_problems
            if len(typed) > 1:
                sides[side] = typed
        if sides:
            tags = " and ".join(
                f"'{{{{type:{field}}}}}'" for field in next(iter(sides.values()))[:2]
            )
            where = " and the ".join(sides)
            found.append(
                (
                    number,
                    f"the {where} of {card} {'have' if len(sides) > 1 else 'has'} {tags}; Anki "
                    "asks for one typed answer a card, the first's, and shows its box in place "
                    "of each (make a card for each field to type)",
                )
            )
    return found


# -- which cards a note makes (rslib notetype/cardgen.rs, template.rs) ------------------------

# A field Anki counts as empty: only white space and <br> or <div> tags (template.rs,
# field_is_empty).
# Anki's [[:space:]] is ASCII white space: a no-break space is text.
_EMPTY_FIELD = re.compile(r"(?:[ \t\n\x0b\x0c\r]|</?(?:br|div) ?/?>)*\Z", re.IGNORECASE)


def field_is_empty(text: str) -> bool:
    """Whether Anki counts a field's HTML as empty (no card is made from it alone)."""
    return _EMPTY_FIELD.match(text) is not None


# A parsed template: text is left out (it never makes a card), a replacement is its tag
# with its filters ("Front", "cloze:Text"), a conditional is (True for {{#..}} / False for
# {{^..}}, field name, children).
_Node = str | tuple[bool, str, list["_Node"]]


def _tree(text: str) -> list[_Node]:
    """The replacements and conditionals of ``text``, nested, as Anki parses them;
    TemplateSyntaxError, in words for the author, for a template Anki cannot read (it
    refuses to save it, and makes no card of it)."""
    if text.lstrip().startswith(_ALT_SYNTAX):
        raise TemplateSyntaxError(
            f"uses Anki's old alternative tags ({_ALT_SYNTAX}); write it with {{{{ }}}}"
        )
    root: list[_Node] = []
    stack: list[tuple[str, list[_Node]]] = [("", root)]
    for kind, content in _tokens(text):
        if kind != "tag":
            continue
        key = content.lstrip("{").strip()
        if len(key.encode("utf-8")) >= 2 and key[0] in "#^/":
            name = key[1:].lstrip()
            if key[0] == "/":
                if len(stack) == 1:
                    raise TemplateSyntaxError(f"closes '{{{{/{name}}}}}', which is not open")
                if stack[-1][0] != name:
                    raise TemplateSyntaxError(
                        f"closes '{{{{/{name}}}}}' where '{{{{/{stack[-1][0]}}}}}' was expected"
                    )
                stack.pop()
                continue
            children: list[_Node] = []
            stack[-1][1].append((key[0] == "#", name, children))
            stack.append((name, children))
            if len(stack) > MAX_DEPTH + 1:
                raise TemplateSyntaxError(f"nests conditionals more than {MAX_DEPTH} deep")
            continue
        stack[-1][1].append(key)
    if len(stack) > 1:
        raise TemplateSyntaxError(f"opens '{{{{#{stack[-1][0]}}}}}' and never closes it")
    return root


def _walk(nodes: list[_Node]) -> Iterator[_Node]:
    """Every node, each conditional before its children."""
    for node in nodes:
        yield node
        if not isinstance(node, str):
            yield from _walk(node[2])


def _shows_something(nodes: list[_Node], nonempty: Set[str]) -> bool:
    """Whether ``nodes`` show a field of ``nonempty`` (template.rs, template_is_empty with
    negated conditionals checked)."""
    for node in nodes:
        if isinstance(node, str):
            if node.split(":")[-1] in nonempty:
                return True
            continue
        shown_if_set, name, children = node
        if (name in nonempty) == shown_if_set and _shows_something(children, nonempty):
            return True
    return False


def fields_named(text: str) -> tuple[str, ...]:
    """The fields a template names (in replacements and conditionals), in order, once
    each, Anki's special fields left out; () for a template Anki cannot read."""
    try:
        tree = _tree(text)
    except TemplateSyntaxError:
        return ()
    names = dict.fromkeys(
        node.split(":")[-1] if isinstance(node, str) else node[1] for node in _walk(tree)
    )
    return tuple(name for name in names if name and name not in SPECIAL_FIELDS)


def cloze_fields(text: str) -> frozenset[str]:
    """The fields a template shows through the cloze filter; none for a template Anki
    cannot read."""
    try:
        return frozenset(_read(text).cloze_fields)
    except TemplateSyntaxError:
        return frozenset()


def cards_made(
    fronts: Sequence[str], fields: Mapping[str, str], *, tags: bool = False
) -> tuple[int, ...]:
    """The 0-based ordinals of the cards Anki makes for a note of a standard note type
    whose card templates have these ``fronts``, with these fields' HTML (name -> text):
    a card for each template whose front shows a field that is not empty. Anki's special
    fields count as not empty (Tags only when the note has ``tags``), FrontSide never.
    A front Anki cannot read makes no card."""
    nonempty = {name for name, text in fields.items() if not field_is_empty(text)}
    nonempty |= {
        name
        for name in SPECIAL_FIELDS
        if name not in fields and name != "FrontSide" and (name != "Tags" or tags)
    }
    made = []
    for ordinal, front in enumerate(fronts):
        try:
            tree = _tree(front)
        except TemplateSyntaxError:
            continue
        if _shows_something(tree, nonempty):
            made.append(ordinal)
    return tuple(made)


# -- names of note types, fields and cards ----------------------------------------------------

_SHOWN = 60  # characters of a name quoted in a message
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# What Anki removes from a field name, anywhere and at its start (rslib fields.rs fix_name).
_NOT_IN_FIELD_NAME = ':{}"'
_NOT_FIRST_IN_FIELD_NAME = "#/^"


def shortened(text: str) -> str:
    """A name cut to fit a message: at most _SHOWN characters, '…' where it is cut."""
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def name_problems(what: str, name: str, *, field_name: bool = False) -> list[str]:
    """What Anki would refuse or change in the name of a note type, field or card."""
    if is_blank(name):
        return [f"{what} is empty; Anki refuses it"]
    shown = repr(shortened(name))
    if _CONTROL.search(name):
        return [f"{what} {shown} holds a control character"]
    removed = _NOT_IN_FIELD_NAME if field_name else '"'
    found = sorted({ch for ch in name if ch in removed})
    if found:
        return [f"{what} {shown} holds {' '.join(found)}, which Anki removes from it"]
    if field_name and (name != name.strip() or name[0] in _NOT_FIRST_IN_FIELD_NAME):
        return [
            f"{what} {shown} starts or ends with a space, or starts with # / or ^, which "
            "Anki removes"
        ]
    if unicodedata.normalize("NFC", name) != name:
        return [f"{what} {shown} is not in Unicode's composed form (NFC), as Anki writes it"]
    return []


def names_problems(what: str, names: Sequence[str], *, field_name: bool = False) -> list[str]:
    """What Anki would refuse or change in a note type's field or card names: each name,
    and two that differ only in case (Anki adds '+' to the second)."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    for number, name in enumerate(names, start=1):
        problems += name_problems(f"{what} {number}'s name", name, field_name=field_name)
        key = name.casefold()
        if key in seen:
            problems.append(
                f"{what} names {shortened(seen[key])!r} and {shortened(name)!r} are the same "
                "to Anki, which renames the second"
            )
        seen.setdefault(key, name)
    return problems


# -- text to speech ({{tts LANG:Field}}) ------------------------------------------------------

# A language as Anki's TTS tags take it: ko_KR, en_US, ja_JP (a dash is read too).
TTS_LANGUAGE = re.compile(r"[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*\Z")
# The speech language of a language code that names no region (BCP 47 "ko" -> "ko_KR"):
# the region whose voices Android and the desktop systems ship for it.
_SPEECH_REGIONS = {
    "ar": "SA", "cs": "CZ", "da": "DK", "de": "DE", "el": "GR", "en": "US", "es": "ES",
    "fi": "FI", "fr": "FR", "he": "IL", "hi": "IN", "hu": "HU", "id": "ID", "it": "IT",
    "ja": "JP", "ko": "KR", "nb": "NO", "nl": "NL", "pl": "PL", "pt": "BR", "ro": "RO",
    "ru": "RU", "sk": "SK", "sv": "SE", "th": "TH", "tr": "TR", "uk": "UA", "vi": "VN",
    "zh": "CN",
}  # fmt: skip


def speech_language(code: str) -> str:
    """The language Anki's speech is asked for, for a BCP 47 code: ``pt-BR`` ->
    ``pt_BR``, ``ko`` -> ``ko_KR``; a language of no known region as it is."""
    primary, *subtags = code.split("-")
    regions = [tag for tag in subtags if len(tag) == 2 or tag.isdigit()]  # not a script
    if "Hant" in subtags and not regions:
        regions = ["TW"]  # Traditional Chinese is spoken by Taiwan's voices
    region = regions[0] if regions else _SPEECH_REGIONS.get(primary.lower(), "")
    return f"{primary.lower()}_{region.upper()}" if region else primary.lower()


_TTS_SPEED = re.compile(r"[0-9]*\.?[0-9]+\Z")


def tts_problems(template: str, fields: Sequence[str]) -> list[str]:
    """What is wrong with the ``{{tts LANG:Field}}`` tags of ``template`` (options
    ``voices=A,B`` and ``speed=0.8``; ``{{tts LANG:cloze:Field}}`` too): a language code
    of another form, an unknown option, a speed that is not a positive number, a field
    the note type lacks."""
    problems = []
    for kind, content in _tokens(template):
        key = content.strip()
        if kind != "tag" or not key.startswith(("tts ", "tts:")):
            continue
        *filters, name = key.split(":")
        options = filters[0].split()[1:] if filters else []
        tag = "{{" + key + "}}"
        if not options or "=" in options[0]:
            problems.append(f"{tag} names no language; write it as {{{{tts ko_KR:{name}}}}}")
            continue
        lang, *settings = options
        if not TTS_LANGUAGE.match(lang):
            problems.append(f"{tag}: '{lang}' is not a language code like ko_KR or en_US")
        for setting in settings:
            option, _, value = setting.partition("=")
            if option == "voices" and value:
                continue
            if option == "speed" and _TTS_SPEED.match(value) and float(value) > 0:
                continue
            if option in ("voices", "speed"):
                problems.append(f"{tag}: '{setting}' needs a value (voices=A,B or speed=0.8)")
            else:
                problems.append(f"{tag}: unknown option '{setting}' (voices=... or speed=...)")
        if name not in fields:
            problems.append(f"{tag} speaks '{name}', not a field of this note type")
    return problems
