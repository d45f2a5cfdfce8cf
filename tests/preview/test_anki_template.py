"""deckbuilder.preview.anki_template: Anki's template language, checked against the real backend.

The oracle: build packages, import them into a fresh collection, and compare every
card's card.question()/card.answer() with our rendering of the same fields. The only
normalisation is the ``<style>...</style>`` block Anki puts before each side, which is
compared separately with the note type's CSS. Hypothesis then feeds random field text
(clozes, hints, nesting, entities, HTML, math, sounds) through Anki's stock Cloze and Basic
note types (ephemeral cards, custom templates) and ours, and requires the same output.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.anki.identity import note_guid
from deckbuilder.cloze import cloze_numbers
from deckbuilder.model import BasicNote, ClozeNote
from deckbuilder.preview.anki_template import (
    TemplateError,
    encode_attribute,
    field_is_empty,
    render_card,
    reveal_cloze,
    strip_html,
)
from tests.app_calls import build_packages
from tests.conftest import DATA, ROOT, copied, import_package

# (source, media folder): the bundled deck and the test decks the issue names.
DECKS = [
    (ROOT / "cards", ROOT / "media"),
    (DATA / "mixed.yaml", DATA / "media"),
    (DATA / "rich", DATA / "rich" / "media"),
    (DATA / "mcq", ROOT / "media"),
]


@pytest.mark.anki
@pytest.mark.parametrize(("source", "media"), DECKS, ids=lambda p: Path(p).name)
def test_rendering_matches_the_anki_backend(
    source: Path, media: Path, tmp_path: Path, collection: Any
) -> None:
    results = build_packages(
        [copied(source, tmp_path)], tmp_path / "out", timestamp=1_700_000_000, media_dir=media
    )
    ours: dict[tuple[str, int], tuple[str, str, str]] = {}
    for result in results:
        import_package(collection, result.path)
        rd = result.rendered
        for rn in rd.notes:
            fields = dict(zip(rn.spec.fields, rn.fields, strict=True))
            for ordinal in rn.note.card_ordinals:
                card = render_card(rn.spec.front, rn.spec.back, fields, ordinal)
                key = (note_guid(rd.deck.key, rn.note.id), ordinal)
                ours[key] = (card.question, card.answer, rn.spec.css)
    cids = collection.find_cards("")
    assert len(cids) == len(ours) == collection.card_count() > 0
    for cid in cids:
        card = collection.get_card(cid)
        question, answer, css = ours.pop((card.note().guid, card.ord))
        style = f"<style>{css}</style>"
        assert card.question() == style + question
        assert card.answer() == style + answer
    assert ours == {}


def test_fields_filters_and_sections() -> None:
    front = "{{Front}}|{{text:Back}}|{{#Back}}has {{Back}}{{/Back}}{{^Extra}}no extra{{/Extra}}"
    back = "{{FrontSide}}<hr>{{ Back }}<!-- {{Nope}} -->"
    fields = {"Front": "<b>F</b>", "Back": "a &lt; <i>b</i>&nbsp;c", "Extra": " <br> "}
    card = render_card(front, back, fields, 0)
    assert card.question == "<b>F</b>|a < b c|has a &lt; <i>b</i>&nbsp;cno extra"
    assert card.answer == card.question + "<hr>a &lt; <i>b</i>&nbsp;c<!-- {{Nope}} -->"


def test_cloze_question_and_answer() -> None:
    text = "{{c1::Seoul}} is in {{c2::South Korea::country}}."
    assert reveal_cloze(text, 1, question=True) == (
        '<span class="cloze" data-cloze="Seoul" data-ordinal="1">[...]</span> is in '
        '<span class="cloze-inactive" data-ordinal="2">South Korea</span>.'
    )
    assert reveal_cloze(text, 2, question=True).endswith(
        'data-cloze="South&#x20;Korea" data-ordinal="2">[country]</span>.'
    )
    assert reveal_cloze(text, 2, question=False).endswith(
        '<span class="cloze" data-ordinal="2">South Korea</span>.'
    )
    assert reveal_cloze(text, 3, question=True) == ""


def test_nested_and_unclosed_clozes() -> None:
    text = "{{c1::a {{c2::b}} c}} }} {{c3::lost"
    assert cloze_numbers(text) == {1, 2}
    assert reveal_cloze(text, 2, question=True) == (
        '<span class="cloze-inactive" data-ordinal="1">a '
        '<span class="cloze" data-cloze="b" data-ordinal="2">[...]</span> c</span> }} '
    )
    assert cloze_numbers("{{c0::x}} {{c::y}} {{c2::z}}") == {2}


def test_html_inside_math_is_stripped_in_clozes() -> None:
    assert reveal_cloze(r"\(x {{c1::<b>y</b>}}\)", 1, question=False) == (r"\(x y\)")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"No", he said.', "&quot;No&quot;&#x2C;&#x20;he&#x20;said&#x2E;"),
        ("a'b<c>&\n", "a&#x27;b&lt;c&gt;&amp;&#x0A;"),
        ("é서울", "&#xE9;서울"),
    ],
)
def test_encode_attribute(text: str, expected: str) -> None:
    assert encode_attribute(text) == expected


def test_text_filter_and_empty_fields() -> None:
    assert strip_html("<p>A, <b>C</b></p><script>x()</script>") == "A, C"
    assert strip_html("a &amp; b") == "a & b"
    assert strip_html("a & b &amp;") == "a & b &amp;"  # malformed: left as it is
    assert field_is_empty(" <div> <br/> </div>\n") and not field_is_empty("<p></p>")


def test_card_ordinals() -> None:
    assert ClozeNote(id="c", line=1, text="{{c2::a}} {{c5::b}}").card_ordinals == (1, 4)
    assert BasicNote(id="b", line=1, front="x").card_ordinals == (0,)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{#Front}}never closed", "Missing '{{/Front}}'"),
        ("{{/Front}}", "Found '{{/Front}}', but missing '{{#Front}}' or '{{^Front}}'"),
        ("{{#Front}}{{/Back}}", "Found '{{/Back}}', but expected '{{/Front}}'"),
        ("{{=<% %>=}}<%Front%>", "the legacy {{=<% %>=}} template syntax is not supported"),
    ],
)
def test_broken_or_legacy_templates_fail_loudly(template: str, message: str) -> None:
    """In Anki's words: Anki refuses to save such a template, and shows its message."""
    with pytest.raises(TemplateError, match=re.escape(f"Front template has a problem: {message}")):
        render_card(template, "", {"Front": "x"}, 0)
    with pytest.raises(TemplateError, match=r"^Back template"):
        render_card("{{Front}}", template, {"Front": "x"}, 0)


# -- randomised comparison with the backend ------------------------------------------------

_PIECES = [
    "{{c1::", "{{c2::", "{{c3::", "{{c0::", "{{c::", "}}", "::", "}", "{", ":", "a", "b c",
    "<b>", "</b>", "<br>", "<div>", "</div>", "\\(", "\\)", "\\[", "\\]", "&amp;", "&",
    "&nbsp;", "&lt;", "&#x41;", "\"", "'", "é", "서울", "\n", " ", "<!--", "-->",
    "[sound:a b.mp3]", "<script>x</script>",
]  # fmt: skip


@pytest.fixture(scope="module")
def anki_col(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from anki.collection import Collection

    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    yield col
    col.close()


def _anki_sides(card: Any) -> tuple[str, str]:
    style = f"<style>{card.note_type()['css']}</style>"
    question, answer = card.question(), card.answer()
    assert question.startswith(style) and answer.startswith(style)
    return question[len(style) :], answer[len(style) :]


@pytest.mark.anki
@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_random_clozes_render_as_in_anki(anki_col: Any, text: str) -> None:
    note = anki_col.new_note(anki_col.models.by_name("Cloze"))
    note["Text"] = text
    numbers = anki_col._backend.cloze_numbers_in_note(note._to_backend_note())
    assert cloze_numbers(text) == set(numbers)
    front, back = "{{cloze:Text}}", "{{cloze:Text}}<br>\n{{Back Extra}}"
    fields = {"Text": text, "Back Extra": ""}
    for ordinal in ClozeNote(id="n", line=1, text=text).card_ordinals:
        ours = render_card(front, back, fields, ordinal)
        assert _anki_sides(note.ephemeral_card(ordinal)) == (ours.question, ours.answer)


@pytest.mark.anki
@settings(max_examples=150, derandomize=True, deadline=None)
@given(
    # A basic note's front is required (the loader refuses an empty one).
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda text: not field_is_empty(text)),
    st.lists(st.sampled_from(_PIECES), max_size=8).map("".join),
)
def test_random_fields_render_as_in_anki(anki_col: Any, front_text: str, back_text: str) -> None:
    note_type = anki_col.models.by_name("Basic")
    template = dict(note_type["tmpls"][0])
    template["qfmt"] = "{{Front}}|{{text:Front}}|{{#Back}}y{{/Back}}{{^Back}}n{{/Back}}"
    template["afmt"] = "{{FrontSide}}<hr id=answer>{{text:Back}}<!-- {{Back}} -->{{Back}}"
    note = anki_col.new_note(note_type)
    note["Front"], note["Back"] = front_text, back_text
    fields = {"Front": front_text, "Back": back_text}
    for ordinal in BasicNote(id="n", line=1, front=front_text, back=back_text).card_ordinals:
        card = note.ephemeral_card(ordinal, custom_template=template)
        ours = render_card(template["qfmt"], template["afmt"], fields, ordinal)
        assert _anki_sides(card) == (ours.question, ours.answer)


@pytest.mark.anki
@settings(max_examples=150, derandomize=True, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4)
    .map("".join)
    .filter(lambda text: not field_is_empty(text)),
    st.lists(st.sampled_from(_PIECES), max_size=10).map("".join),
)
def test_type_answer_fields_render_as_in_anki_then_as_a_client(
    anki_col: Any, front_text: str, back_text: str
) -> None:
    """{{type:Back}} as in Anki's stock "Basic (type in the answer)": the backend leaves
    [[type:Back]]; the page fills it as Anki desktop's reviewer does when nothing is typed,
    a box on the question (none for an empty field) and the backend's own comparison
    for an empty answer (col.compare_answer) on the back, after the <hr id=answer>."""
    template = dict(anki_col.models.by_name("Basic")["tmpls"][0])
    template["qfmt"] = "{{Front}}\n\n{{type:Back}}"
    template["afmt"] = "{{Front}}\n\n<hr id=answer>\n\n{{type:Back}}"
    note = anki_col.new_note(anki_col.models.by_name("Basic"))
    note["Front"], note["Back"] = front_text, back_text
    fields = {"Front": front_text, "Back": back_text}
    question, answer = _anki_sides(note.ephemeral_card(0, custom_template=template))
    backend = render_card(template["qfmt"], template["afmt"], fields, 0, as_client=False)
    assert (backend.question, backend.answer) == (question, answer)
    ours = render_card(template["qfmt"], template["afmt"], fields, 0)
    assert ("<input" in ours.question) is (back_text != "")
    if back_text:
        compared = "<hr id=answer>" + anki_col.compare_answer(back_text, "", True)
        expected = answer.replace("<hr id=answer>", "").replace("[[type:Back]]", compared)
    else:  # no box was shown: the marker goes, the rest stays
        expected = answer.replace("[[type:Back]]", "")
    assert ours.answer == expected


def test_type_answer_filters() -> None:
    assert render_card("{{type:nc:F}}", "", {"F": "x"}, 0, as_client=False).question == (
        "[[type:nc:F]]"
    )
    assert "<input" in render_card("{{type:nc:F}}", "", {"F": "x"}, 0).question
    typed_cloze = render_card("{{type:cloze:F}}", "{{type:cloze:F}}", {"F": "{{c1::x}}"}, 0)
    assert "<input" in typed_cloze.question
    assert typed_cloze.answer == "<code id=typeans>x</code>"
