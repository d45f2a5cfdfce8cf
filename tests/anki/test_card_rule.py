"""The card rule (``Note.card_ordinals``) against Anki itself.

Each case below is built into a package through the one build path and imported with the
real Anki backend. Anki's importer keeps the cards the package lists, so it cannot tell a
wrong rule from a right one (a package may even list cards Anki would never make); what
decides is the cards Anki makes for the same fields when it adds the note itself. Both
must equal the rule, and the deck's card count must equal Anki's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from deckbuilder.anki.identity import note_guid
from deckbuilder.app import PackageResult
from deckbuilder.errors import DeckError
from tests.app_calls import build_packages
from tests.conftest import DATA, import_package

pytestmark = pytest.mark.anki

FENCE = "```"

# note id -> the note's fields as written in a card file. Cloze notes unless they say
# otherwise; every case is a note the loader accepts.
CASES: dict[str, dict[str, Any]] = {
    "two-numbers": {"text": "{{c1::Seoul}} is the capital of {{c2::South Korea}}."},
    "one-number-twice": {"text": "{{c1::a}} and {{c1::b}} and {{c2::c}}"},
    "numbers-with-gaps": {"text": "{{c3::a}} {{c7::b}}"},
    "numbers-out-of-order": {"text": "{{c2::a}} {{c1::b}}"},
    "c0-beside-c2": {"text": "{{c0::zero}} {{c2::two}}"},
    "c02-is-c2": {"text": "{{c02::a}} {{c2::b}}"},
    "c10": {"text": "{{c10::ten}} {{c1::one}}"},
    "twenty-four-numbers": {"text": " ".join(f"{{{{c{n}::w{n}}}}}" for n in range(1, 25))},
    "nested": {"text": "{{c1::outer {{c2::inner}} text}}"},
    "nested-same-number": {"text": "{{c1::{{c1::a}}}} {{c3::b}}"},
    "nested-in-c0": {"text": "{{c0::hidden {{c3::inner}} }} {{c1::x}}"},
    "hints": {"text": "{{c1::Paris::city}} {{c2::France::country::more colons}}"},
    "inline-code": {"text": "`{{c1::x}}` and {{c2::`code`}}"},
    "code-with-markers-in-a-deletion": {"text": "{{c1::`a::b}}c`}} {{c2::z}}"},
    "fenced-code": {
        "text": f"Code:\n\n{FENCE}python\nx = {{{{c1::42}}}}\ny = {{{{c2::'a'::a string}}}}\n{FENCE}\n"
    },
    "fenced-code-without-language": {
        "text": f"{FENCE}\n{{{{c3::plain}}}}\n{FENCE}\n\n{{{{c1::after}}}}"
    },
    "fenced-code-nested": {"text": f"{FENCE}python\nx = {{{{c1::a {{{{c2::b}}}} c}}}}\n{FENCE}\n"},
    "math": {"text": "\\( x^2 = {{c1::4}} \\) and \\[ {{c2::y}} \\]"},
    "math-with-markers-in-a-deletion": {"text": "{{c1::\\( a::b }} \\)}} {{c2::k}}"},
    "multi-line": {"text": "first {{c1::line\nsecond}} line\n\n{{c2::para\n\ngraph}}"},
    "unclosed-beside-closed": {"text": "{{c1::closed}} {{c2::open {{c3::inner}}"},
    "lists-quotes-tables": {
        "text": "- {{c1::one}}\n- {{c2::two}}\n\n> {{c3::quote}}\n\n| a |\n|---|\n| {{c4::cell}} |"
    },
    "emphasis-and-html": {"text": "**{{c1::bold}}** <i>{{c2::it}}</i> {{c3::**in**}}"},
    "stray-braces": {"text": "{{c1::a}} {{{c2::b}}} }}{{c3::c}}"},
    "image-alt": {"text": "![{{c2::alt}}](square.png) {{c1::x}}"},
    "korean": {"text": "{{c1::서울}}은 {{c2::대한민국}}의 수도"},
    "escaped-braces": {"text": "{{c1::x}} \\{\\{c2::y}}"},
    "entity-braces": {"text": "{{c1::x}} &#123;&#123;c3::y}} {{&#99;4::z}}"},
    "escaped-braces-in-extra": {"text": "{{c1::x}}", "extra": "\\{\\{c2::y}} &#123;&#123;c3::z}}"},
    "c499-and-c500": {"text": "{{c499::a}} {{c500::b}}"},
    "c65536-is-text": {"text": "{{c1::a}} {{c65536::b}}"},
    # A deletion in another note type's field is shown as typed (written escaped: unescaped,
    # check refuses it since issue 44), and makes no card of its own.
    "mcq": {"question": "Which \\{{c1::x}}?", "choices": ["a", "b"], "answer": "A"},
    "basic": {"front": "Front \\{{c1::x}}", "back": "Back"},
    "deletion-in-extra": {"text": "{{c1::a}}", "extra": "see {{c3::c}}"},
    # The reversed card asks the back: Anki makes it only when the back is not empty.
    "reverse": {"front": "Front", "back": "Back", "reverse": True},
    "reverse-with-an-empty-back": {"front": "Front", "back": "", "reverse": True},
    "reverse-with-a-break-for-back": {"front": "Front", "back": "<br>", "reverse": True},
    "add-reverse-with-an-empty-back": {"front": "Front", "back": " ", "add_reverse": "y"},
}

# Cases where Anki makes other cards than the rule says, and what must change (outside
# deckbuilder/cloze.py) for them to agree: the rule, the rendering, or the loader refusing
# the note. Each is a strict xfail: it fails loudly once settled, and the mark must go.
DISAGREE: dict[str, tuple[dict[str, Any], str]] = {}

ALL_CASES = {**CASES, **{name: fields for name, (fields, _) in DISAGREE.items()}}


@dataclass(frozen=True)
class Seen:
    rule: tuple[int, ...]  # note.card_ordinals
    imported: tuple[int, ...]  # the cards the import created
    made: tuple[int, ...]  # the cards Anki makes when it adds a note with these fields


def _write_deck(path: Path, deck_id: str, notes: dict[str, dict[str, Any]]) -> None:
    deck = {
        "deck": f"Card rule::{deck_id}",
        "id": deck_id,
        "notes": [{"id": name, **fields} for name, fields in notes.items()],
    }
    path.write_text(yaml.safe_dump(deck, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _anki_collection(folder: Path) -> Any:
    from anki.collection import Collection

    folder.mkdir()
    return Collection(str(folder / "collection.anki2"))


def _ords(cards: Any) -> tuple[int, ...]:
    return tuple(sorted(card.ord for card in cards))


def _seen(col: Any, result: PackageResult) -> dict[str, Seen]:
    """The cards each imported note has, and those Anki makes when it adds a note with
    the same fields itself (into its default deck)."""
    notes = {col.get_note(nid).guid: col.get_note(nid) for nid in col.find_notes("")}
    seen = {}
    for rn in result.rendered.notes:
        imported = notes[note_guid(result.rendered.deck.key, rn.note.id)]
        again = col.new_note(imported.note_type())
        again.fields = list(imported.fields)
        col.add_note(again, 1)
        seen[rn.note.id] = Seen(
            rn.note.card_ordinals, _ords(imported.cards()), _ords(again.cards())
        )
    return seen


@dataclass
class AnkiView:
    seen: dict[str, Seen]
    card_counts: tuple[int, int]  # the "agree" deck's card_count, and Anki's
    refused: set[str]  # cases the loader refuses (then Anki never sees them)


@pytest.fixture(scope="module")
def anki_view(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnkiView]:
    """The cases in CASES built as one deck, each case in DISAGREE as a deck of its own,
    and all imported into one fresh collection."""
    root = tmp_path_factory.mktemp("card-rule")
    (root / "cards").mkdir()
    col = _anki_collection(root / "anki")
    try:
        source = root / "cards" / "agree.yaml"
        _write_deck(source, "agree", CASES)
        (result,) = build_packages(
            [source], root / "out", timestamp=1_700_000_000, media_dir=DATA / "media"
        )
        import_package(col, result.path)
        card_counts = (result.rendered.deck.card_count, col.card_count())
        view = AnkiView(_seen(col, result), card_counts, set())
        for name, (fields, _) in DISAGREE.items():
            source = root / "cards" / f"{name}.yaml"
            _write_deck(source, name, {name: fields})
            try:
                (result,) = build_packages([source], root / "out", timestamp=1_700_000_000)
            except DeckError:
                view.refused.add(name)
                continue
            import_package(col, result.path)
            view.seen |= _seen(col, result)
        yield view
    finally:
        col.close()


def _case_params() -> list[Any]:
    params = [pytest.param(name, id=name) for name in CASES]
    for name, (_, reason) in DISAGREE.items():
        params.append(
            pytest.param(name, id=name, marks=pytest.mark.xfail(reason=reason, strict=True))
        )
    return params


@pytest.mark.parametrize("name", _case_params())
def test_anki_makes_the_cards_the_rule_says(anki_view: AnkiView, name: str) -> None:
    if name in anki_view.refused:
        return  # refusing the note settles the disagreement too
    seen = anki_view.seen[name]
    assert seen.rule, "every note makes a card"
    assert seen.made == seen.rule, ALL_CASES[name]
    assert seen.imported == seen.rule


def test_deck_card_count_is_ankis(anki_view: AnkiView) -> None:
    card_count, anki_count = anki_view.card_counts
    assert card_count == anki_count == sum(len(anki_view.seen[name].rule) for name in CASES)


def test_unclosed_deletion_alone_is_refused(tmp_path: Path) -> None:
    """Anki would make one empty card for it: the loader stops the build instead."""
    source = tmp_path / "unclosed.yaml"
    _write_deck(source, "unclosed", {"open": {"text": "{{c1::closed}} {{c2::never closed"}})
    with pytest.raises(DeckError, match="malformed cloze"):
        build_packages([source], tmp_path / "out", timestamp=1_700_000_000)


@pytest.mark.parametrize(
    "text",
    [
        "{{c1::x}} {{c600::a}} {{c700::b}}",
        "{{c1::a}} {{c501::b}}",
        "{{c1::a}} {{c65535::b}}",  # the highest number Anki reads
    ],
)
def test_numbers_above_500_are_refused(tmp_path: Path, text: str) -> None:
    """Anki gives every number above 500 card 500, so two of them make two cards with one
    ordinal (and one alone is not the card its number says): the loader refuses them."""
    source = tmp_path / "many.yaml"
    _write_deck(source, "many", {"big": {"text": text}})
    with pytest.raises(DeckError, match=r"above c500"):
        build_packages([source], tmp_path / "out", timestamp=1_700_000_000)


def test_a_deletion_anki_would_not_see_as_written_is_an_error(tmp_path: Path) -> None:
    """Inside a link address Markdown percent-encodes the braces: Anki would see no c2, so
    the card count would be wrong; check refuses it with its line."""
    from deckbuilder.errors import DeckError
    from tests.app_calls import check_decks

    path = tmp_path / "link.yaml"
    _write_deck(path, "link", {"a": {"text": "[{{c1::x}}](https://e.com/{{c2::y}}) {{c3::z}}"}})
    with pytest.raises(DeckError) as raised:
        check_decks([path])
    (problem,) = raised.value.problems
    assert problem.note == "a" and problem.line is not None


def test_a_deletion_in_extra_is_a_warning_as_anki_shows_it(tmp_path: Path) -> None:
    """Anki makes a card of a deletion written in 'extra', but the cloze note type shows
    Extra without {{cloze:}}: the back shows the braces as typed, and card 3's front hides
    nothing (no c3 in the text). It passed check without a word."""
    source = tmp_path / "extra.yaml"
    _write_deck(
        source,
        "extra",
        {
            "in-extra": {"text": "{{c1::a}} b", "extra": "see {{c3::c}}"},
            "escaped": {"text": "{{c1::a}}", "extra": "\\{\\{c2::y}}"},
            # c0 is no deletion number: the message quotes the deletion that is one.
            "after-c0": {"text": "{{c1::a}} {{c4::d}}", "extra": "{{c0::zero}} and {{c4::d}}"},
        },
    )
    (result,) = build_packages([source], tmp_path / "out", timestamp=1_700_000_000)
    warnings = [w for w in result.rendered.warnings if w.code == "deletion-in-extra"]
    assert [(w.note, w.line) for w in warnings] == [("in-extra", 6), ("after-c0", 12)]
    assert "'{{c3::c}}'" in warnings[0].message
    assert "card 3 hides nothing" in warnings[0].message
    assert "the cloze deletion '{{c4::d}}'" in warnings[1].message
    assert "hides nothing" not in warnings[1].message
    col = _anki_collection(tmp_path / "anki")
    try:
        import_package(col, result.path)
        guid = note_guid("extra", "in-extra")
        (note,) = [n for n in map(col.get_note, col.find_notes("")) if n.guid == guid]
        third = next(card for card in note.cards() if card.ord == 2)
        assert "[...]" not in third.question()  # card 3 hides nothing
        assert "{{c3::c}}" in third.answer()  # Extra shown braces and all
    finally:
        col.close()
