"""deckbuilder.preview.anki_template against the real backend, for any note type (issue 41).

Each case renders one card of a note both ways, Anki's ``card.question()``/
``card.answer()`` and ``question_av_tags()``/``answer_av_tags()`` (an ephemeral card with
a custom template, or a card added to a deck for the fields that need one) and ours with
``as_client=False``, and requires the same text and the same sound and TTS tags. The only
normalisation is the ``hint:`` filter's element id: Anki's is a BLAKE3 hash, which the
standard library lacks. Hypothesis then writes random templates from the language's
pieces and random fields, and requires the same again, or, for a malformed template, our
TemplateError where Anki shows its message.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.preview import anki_template
from deckbuilder.preview.anki_template import (
    CardContext,
    RenderedCard,
    SoundTag,
    TemplateError,
    TTSTag,
    render_card,
)

pytestmark = pytest.mark.anki

_HINT_ID = re.compile(r"hint[0-9a-f]{16}")
_ISOLATES = re.compile("[\u2068\u2069]")


class Oracle:
    """A collection with one note type per set of field names, cards rendered by Anki."""

    def __init__(self, col: Any) -> None:
        self.col = col
        self.types: dict[tuple[tuple[str, ...], bool], Any] = {}

    def note_type(self, fields: Sequence[str], cloze: bool = False) -> Any:
        key = (tuple(fields), cloze)
        if key not in self.types:
            models = self.col.models
            note_type = models.new(f"Type {len(self.types) + 1}")
            note_type["type"] = 1 if cloze else 0
            note_type["css"] = ".card { color: teal; }"
            for name in fields:
                models.add_field(note_type, models.new_field(name))
            template = models.new_template("Card 1")
            first = f"{{{{cloze:{fields[0]}}}}}" if cloze else f"{{{{{fields[0]}}}}}"
            template["qfmt"] = template["afmt"] = first
            models.add_template(note_type, template)
            models.add(note_type)
            self.types[key] = models.by_name(note_type["name"])
        return self.types[key]

    def note(self, fields: Mapping[str, str], cloze: bool = False, tags: Sequence[str] = ()) -> Any:
        note = self.col.new_note(self.note_type(list(fields), cloze))
        for name, text in fields.items():
            note[name] = text
        note.tags = list(tags)
        return note

    def ephemeral(
        self,
        front: str,
        back: str,
        fields: Mapping[str, str],
        ordinal: int = 0,
        *,
        cloze: bool = False,
        tags: Sequence[str] = (),
    ) -> tuple[Any, CardContext]:
        """Anki's card (not added to the collection: deck "(Deck)", id 0), and the context
        that gives our rendering the same special fields."""
        note = self.note(fields, cloze, tags)
        template = dict(note.note_type()["tmpls"][0], qfmt=front, afmt=back)
        card = note.ephemeral_card(ordinal, custom_template=template)
        context = CardContext(
            deck="(Deck)",
            tags=tuple(tags),
            note_type=note.note_type()["name"],
            card=template["name"],
            cloze=cloze,
        )
        return card, context


@pytest.fixture(scope="module")
def anki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    from anki.collection import Collection

    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    yield Oracle(col)
    col.close()


def _av_tags(tags: Sequence[Any]) -> tuple[SoundTag | TTSTag, ...]:
    """Anki's AVTag objects as ours."""
    from anki.sound import SoundOrVideoTag

    out: list[SoundTag | TTSTag] = []
    for tag in tags:
        if isinstance(tag, SoundOrVideoTag):
            out.append(SoundTag(tag.filename))
        else:
            voices, others = tuple(tag.voices), tuple(tag.other_args)
            out.append(TTSTag(tag.field_text, tag.lang, voices, tag.speed, others))
    return tuple(out)


def assert_as_anki(card: Any, ours: RenderedCard) -> None:
    """Our card is Anki's: both sides, after the <style> block (empty when Anki shows a
    template's problem), and the sound and TTS tags of each."""
    css = "" if ours.problem else card.note_type()["css"]
    style = f"<style>{css}</style>"
    assert _HINT_ID.sub("hintID", card.question()) == _HINT_ID.sub("hintID", style + ours.question)
    assert _HINT_ID.sub("hintID", card.answer()) == _HINT_ID.sub("hintID", style + ours.answer)
    assert _av_tags(card.question_av_tags()) == ours.question_av_tags
    assert _av_tags(card.answer_av_tags()) == ours.answer_av_tags


FIELDS = {
    "Front": "日本語[にほんご] を 勉強[べんきょう]&nbsp;する[sound:a b.mp3] a[b]c[d]  x[sound:y]",
    "Back": "<b>bold</b> &amp; <i>it</i>&nbsp;<br>[sound:x.mp3]",
    "Back Extra": " <br> ",
    "한국어": "안녕하세요 <div>세계</div>",
    "Empty": "",
}

CASES = {
    # filters, chained right to left
    "text": ("{{text:Back}}", "{{FrontSide}}<hr id=answer>{{text:한국어}}"),
    "hint": ("{{hint:Back}}|{{hint:Empty}}|{{hint:Back Extra}}", "{{hint:text:한국어}}"),
    "text of a hint": ("{{text:hint:Back}}", "{{Front}}"),
    "furigana": ("{{furigana:Front}}", "{{furigana:Back}}"),
    "kanji and kana": ("{{kanji:Front}}", "{{kana:Front}}"),
    "empty filter name": ("{{:Back}}|{{text::Back}}", "{{Back}}"),
    "unknown filter ends the chain": (
        "{{nosuch:Back}}|{{text:nosuch:Back}}",
        "{{nosuch:text:Back}}",
    ),
    "filter without a field": ("{{Front}}{{nosuch:}}{{text:}}{{tts en_US:}}", "{{type:}}"),
    "type": ("{{Front}}{{type:Back}}", "{{type:Back}}"),
    "type forms": ("{{type:nc:Back}}|{{a:type:Back}}|{{type:a:Back}}", "{{type-nc:Back}}"),
    "type filtered": ("{{text:type:Back}}{{hint:type:Front}}", "{{cloze:type:Back}}x"),
    "cloze filters on a standard type": ("{{Front}}{{cloze:Back}}{{cloze-only:Back}}", "x"),
    # fields
    "names with spaces and Hangul": (
        "{{Back Extra}}|{{한국어}}|{{ 한국어 }}",
        "{{#Back Extra}}y{{/Back Extra}}",
    ),
    "braces": ("{{{Front}}}|{{Front}}}|{{Front}|}}{{", "{{ {Front} }}"),
    "comments": ("<!--{{Nosuch}}-->{{Front}}<!-- {{#A}} -->", "<!--{{FrontSide}}-->{{FrontSide}}"),
    "front side": ("{{FrontSide}}{{Front}}", "{{text:FrontSide}}|{{FrontSide}}"),
    # special fields
    "special fields": (
        "{{Tags}}|{{Type}}|{{Deck}}|{{Subdeck}}|{{Card}}|{{CardFlag}}|{{CardID}}|{{Front}}",
        "{{#Tags}}T{{/Tags}}{{^Tags}}noT{{/Tags}}{{#Deck}}D{{/Deck}}{{#CardFlag}}F{{/CardFlag}}",
    ),
    "card numbers": ("{{c1}}|{{#c1}}C1{{/c1}}{{#c2}}C2{{/c2}}{{^c2}}!C2{{/c2}}{{Front}}", "{{c1}}"),
    "a card number above": ("{{Front}}{{#c+1}}a{{/c+1}}{{#c01}}b{{/c01}}{{#c99}}c{{/c99}}", ""),
    # sections
    "sections": (
        "{{#Front}}F{{#Back}}B{{^Empty}}E{{/Empty}}{{/Back}}{{/Front}}{{^Back Extra}}X{{/Back Extra}}",
        "{{# Front }}[{{Back}}]{{/Front}}{{#Empty}}{{Front}}{{/Empty}}",
    ),
    "empty fields": (
        "{{#Back Extra}}shown{{/Back Extra}}{{^Back Extra}}hidden{{/Back Extra}}{{Front}}",
        "",
    ),
    # what Anki shows instead of the card
    "missing field": ("{{Front}}{{Nosuch}}", "{{Back}}"),
    "missing field with filters": ("{{text:hint:Nosuch}}", "{{Back}}"),
    "missing section": ("{{Front}}{{#Nosuch}}x{{/Nosuch}}", "{{Back}}"),
    "missing negated section": ("{{Front}}{{^Nosuch}}x{{/Nosuch}}", "{{Back}}"),
    "missing field in a hidden section": ("{{Front}}{{^Front}}{{Nosuch}}{{/Front}}", "{{Back}}"),
    "missing field on the back": ("{{Front}}", "{{FrontSide}}{{Nosuch}}"),
    "empty field name": ("{{Front}}{{}}", "{{Back}}"),
    "blank front": ("{{#Back}}only text{{/Back}}", "{{Nosuch}}"),
    "blank front: text and FrontSide": ("text {{FrontSide}}{{^Back}}{{Back}}{{/Back}}", "{{Back}}"),
    "blank front: an empty field": ("{{Empty}}{{Back Extra}}", "{{Back}}"),
    # sounds and text-to-speech
    "tts": (
        "{{tts ko_KR voices=Apple_Yuna,Microsoft_Heami speed=0.8:한국어}}",
        "{{tts en_US:Back}}",
    ),
    "tts options": (
        '{{tts ko_KR voices="A B":Back}}{{tts ko_KR voices=:Back}}{{tts ko_KR speed=abc:Back}}'
        "{{tts ko_KR speed=1e0:Back}}{{tts ko_KR speed=+.5:Back}}{{tts ko_KR lang=en_US:Back}}",
        "{{tts ko_KR other=1:Back}}{{tts ko_KR]x:Back}}{{tts ko_KR speed=INF:Back}}",
    ),
    "tts without a language": ("{{tts  :Front}}{{tts lang=:Front}}", "{{tts   ko_KR  foo:Back}}"),
    "sounds and tts numbered together": (
        "{{Front}}{{tts en_US:Back}}[sound:b.mp3]",
        "{{FrontSide}}<hr id=answer>{{Back}}{{tts ko_KR:한국어}}",
    ),
    "tts of ruby": ("{{tts ja_JP:kana:Front}}", "{{tts ja_JP:furigana:Front}}"),
}


@pytest.mark.parametrize(("front", "back"), CASES.values(), ids=CASES.keys())
def test_cards_render_as_in_anki(anki: Oracle, front: str, back: str) -> None:
    for tags in ((), ("b", "a::x")):
        card, context = anki.ephemeral(front, back, FIELDS, tags=tags)
        ours = render_card(front, back, FIELDS, 0, as_client=False, context=context)
        assert_as_anki(card, ours)


@pytest.mark.parametrize("back", ["{{FrontSide}}", "{{c1}}"])
def test_card_two_of_a_standard_type(anki: Oracle, back: str) -> None:
    """{{#c2}} and {{c2}} are about this card: card 2 of a standard note type is c2, and
    has no c1 (Anki's message for a missing field)."""
    front = "{{c2}}|{{#c1}}C1{{/c1}}{{#c2}}C2{{/c2}}|{{Back Extra}}"
    card, context = anki.ephemeral(front, back, FIELDS, 1)
    ours = render_card(front, back, FIELDS, 1, as_client=False, context=context)
    assert_as_anki(card, ours)
    assert bool(ours.problem) is (back == "{{c1}}")
    assert ours.problem or ours.question.startswith("1|C2|")


CLOZE = {
    "Text": "{{c1::Seoul}} is in {{c2::<b>South</b> Korea::country}}, {{c1::Seoul}} "
    "{{c3::a {{c1::b}} c::h}} [sound:s.mp3]",
    "Back Extra": "<i>extra</i>",
}
CLOZE_CASES = {
    "cloze": ("{{cloze:Text}}", "{{cloze:Text}}<br>{{Back Extra}}"),
    "cloze-only": ("{{cloze-only:Text}}", "{{FrontSide}}<hr>{{cloze-only:Text}}"),
    "typed cloze": (
        "{{cloze:Text}}{{type:cloze:Text}}",
        "{{cloze:Text}}<hr id=answer>{{type:cloze:Text}}",
    ),
    "tts of a cloze": (
        "{{cloze:Text}}{{tts en_US:cloze:Text}}",
        "{{tts en_US cloze_blank=beep speed=2 voices=Apple_Yuna:cloze:Text}}",
    ),
    "tts of cloze-only": (
        "{{cloze:Text}}{{tts en_US cloze_blank=x:cloze-only:Text}}",
        "{{tts en_US:cloze-only:Text}}",
    ),
    "this card's number": (
        "{{#c1}}C1{{/c1}}{{#c2}}C2{{/c2}}{{^c3}}not c3{{/c3}}{{#c9}}c9{{/c9}}{{cloze:Text}}",
        "{{^c1}}not c1{{/c1}}{{cloze:Text}}",
    ),
    "text filters on a cloze": ("{{text:cloze:Text}}", "{{cloze:text:Text}}"),
}


@pytest.mark.parametrize(("front", "back"), CLOZE_CASES.values(), ids=CLOZE_CASES.keys())
@pytest.mark.parametrize("ordinal", [0, 1, 2, 3])
def test_cloze_cards_render_as_in_anki(anki: Oracle, front: str, back: str, ordinal: int) -> None:
    """Card c4 has no deletion: Anki's message that no cloze was found."""
    card, context = anki.ephemeral(front, back, CLOZE, ordinal, cloze=True)
    ours = render_card(front, back, CLOZE, ordinal, as_client=False, context=context)
    assert_as_anki(card, ours)


def test_special_fields_of_a_card_in_a_deck(anki: Oracle) -> None:
    """{{Deck}}, {{Subdeck}}, {{CardID}}, {{CardFlag}}, {{Card}}, {{Type}} and {{Tags}} of
    a card added to a deck, and a note field named like a special field, which wins."""
    col = anki.col
    models = col.models
    note_type = models.new("Vocabulary")
    for name in ("Korean", "English", "Deck"):
        models.add_field(note_type, models.new_field(name))
    template = models.new_template("Recognition")
    template["qfmt"] = "{{Korean}}|{{Tags}}|{{Type}}|{{Subdeck}}|{{Card}}|{{CardFlag}}|{{CardID}}"
    template["afmt"] = "{{FrontSide}}<hr id=answer>{{English}}|{{Deck}}|{{#Deck}}has deck{{/Deck}}"
    models.add_template(note_type, template)
    models.add(note_type)
    note_type = models.by_name("Vocabulary")
    deck_id = col.decks.id("Languages::Korean::Verbs")
    note = col.new_note(note_type)
    note["Korean"], note["English"] = "가다", "to go"
    note.tags = ["verb", "TOPIK::1"]
    col.add_note(note, deck_id)
    card = note.cards()[0]
    col.set_user_flag_for_cards(3, [card.id])
    card.load()
    fields = {"Korean": "가다", "English": "to go", "Deck": ""}
    context = CardContext(
        deck=col.decks.name(card.did),
        tags=tuple(col.get_note(note.id).tags),
        note_type="Vocabulary",
        card="Recognition",
        flag=card.user_flag(),
        card_id=card.id,
    )
    ours = render_card(
        template["qfmt"], template["afmt"], fields, 0, as_client=False, context=context
    )
    assert ours.question.startswith("가다|TOPIK::1 verb|Vocabulary|Verbs|Recognition|flag3|")
    assert ours.answer.endswith("to go||")
    card.question(reload=True)
    assert_as_anki(card, ours)


# -- the page's client ----------------------------------------------------------------------


def test_typed_cloze_as_the_desktop_reviewer_shows_it(anki: Oracle) -> None:
    """{{type:cloze:Text}}: a box where the card's deletion has text; on the back, Anki's
    comparison of that text (col.extract_cloze_for_typing) with an empty answer; Anki
    desktop's warning where the field has no such deletion (here c4, from Back Extra)."""
    col = anki.col
    front = "{{cloze:Text}}{{type:cloze:Text}}"
    back = "{{cloze:Text}}<hr id=answer>{{type:cloze:Text}}"
    fields = {**CLOZE, "Back Extra": "{{c4::elsewhere}}"}
    for ordinal in range(4):
        context = CardContext(cloze=True)
        backend = render_card(front, back, fields, ordinal, as_client=False, context=context)
        ours = render_card(front, back, fields, ordinal, context=context)
        expected = col.extract_cloze_for_typing(fields["Text"], ordinal + 1)
        marker = "[[type:cloze:Text]]"
        if expected:
            assert ours.question == backend.question.replace(marker, _BOX)
            compared = "<hr id=answer>" + col.compare_answer(expected, "", True)
            assert ours.answer == backend.answer.replace("<hr id=answer>", "").replace(
                marker, compared
            )
        else:
            assert ordinal == 3
            assert ours.question == backend.question.replace(marker, "Please run Tools>Empty Cards")
            assert ours.answer == backend.answer.replace(marker, "")


_BOX = render_card("{{type:F}}", "", {"F": "x"}, 0).question


def test_tts_tags_become_speak_buttons() -> None:
    """On the page, each TTS reference is a button that speaks the tag's text in its
    language (the front's, on the back too); a sound's reference stays for the page."""
    front = "{{tts ko_KR voices=A,B speed=0.8:Korean}}[sound:a.mp3]"
    back = "{{FrontSide}}<hr id=answer>{{tts en_US:English}}"
    fields = {"Korean": "안녕 <b>하세요</b>", "English": 'Hi "there" & <i>bye</i>'}
    card = render_card(front, back, fields, 0)
    backend = render_card(front, back, fields, 0, as_client=False)
    assert backend.question == "[anki:play:q:0][anki:play:q:1]"
    assert card.question_av_tags == (
        TTSTag("안녕 하세요", "ko_KR", ("A", "B"), 0.800000011920929, ()),
        SoundTag("a.mp3"),
    )
    assert card.question_sounds == ("", "a.mp3")
    assert card.answer_av_tags == (TTSTag('Hi "there" & bye', "en_US", (), 1.0, ()),)
    button = re.match(r"<button [^>]*>&#9654;</button>", card.question)
    assert button is not None and card.question[button.end() :] == "[anki:play:q:1]"
    assert 'data-lang="ko_KR" data-voices="A,B" data-speed="0.8"' in button.group()
    assert 'data-text="안녕 하세요"' in button.group()
    assert 'title="Speak (ko_KR): 안녕 하세요"' in button.group()
    assert card.answer.startswith(button.group() + "[anki:play:q:1]<hr id=answer><button ")
    assert 'data-text="Hi &quot;there&quot; &amp; bye"' in card.answer


def test_a_hint_opens_its_own_text() -> None:
    """The link's id is the element it shows: stable, and another text gets another."""
    one = render_card("{{hint:F}}", "", {"F": "x"}, 0).question
    again = render_card("{{hint:F}}", "", {"F": "x"}, 0).question
    other = render_card("{{hint:F}}", "", {"F": "y"}, 0).question
    ids = _HINT_ID.findall(one)
    assert len(ids) == 2 and ids[0] == ids[1] and f'<div id="{ids[0]}"' in one
    assert one == again and _HINT_ID.findall(other)[0] != ids[0]


# -- random templates ---------------------------------------------------------------------

_TEMPLATE_PIECES = [
    "{{Front}}", "{{Back}}", "{{Back Extra}}", "{{#Front}}", "{{/Front}}", "{{^Back}}",
    "{{/Back}}", "{{#Back Extra}}", "{{/Back Extra}}", "{{text:", "{{hint:", "{{furigana:",
    "{{kana:", "{{kanji:", "{{cloze-only:", "{{cloze:", "{{tts en_US:", "{{nosuch:",
    "{{type:", "{{type:nc:", "Front}}", "Back}}", "Back Extra}}", "text:Back}}", "{{Tags}}",
    "{{Type}}", "{{Card}}", "{{c1}}", "{{#c1}}", "{{/c1}}", "{{^c2}}", "{{/c2}}",
    "{{FrontSide}}", "{{Nosuch}}", "<!--", "-->", "x", " ", "{{", "}}", "{", "}", ":",
    "[sound:t.mp3]", "[...]", "<br>",
]  # fmt: skip
_FIELD_PIECES = [
    "", " ", "<br>", "a", "漢字[かんじ]", " b[c]", "x[sound:s.mp3]", "<b>x</b>", "&amp;",
    "&nbsp;", "{{c1::y}}", "{{c2::z::h}}", "\n", "[", "]", "<div>", "é", "&",
    "[anki:tts lang=en_US]z[/anki:tts]", "\xa0",
]  # fmt: skip
_CLOZE_TEMPLATE_PIECES = [
    "{{cloze:Text}}", "{{cloze-only:Text}}", "{{type:cloze:Text}}", "{{tts en_US:cloze:Text}}",
    "{{text:cloze:Text}}", "{{Back Extra}}", "{{#c1}}", "{{/c1}}", "{{^c2}}", "{{/c2}}",
    "{{#Back Extra}}", "{{/Back Extra}}", "{{FrontSide}}", "{{hint:Text}}", "x", " ", "<hr>",
]  # fmt: skip
_CLOZE_FIELD_PIECES = [
    "{{c1::", "{{c2::", "{{c3::", "}}", "::", "a", "b c", "<b>", "</b>", "[sound:a.mp3]",
    "\\(", "\\)", "&nbsp;", " ", "<br>", "漢字[かんじ]",
]  # fmt: skip


def _joined(pieces: list[str], max_size: int, min_size: int = 0) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), min_size=min_size, max_size=max_size).map("".join)


def assert_renders_or_fails_as_anki(
    anki: Oracle,
    front: str,
    back: str,
    fields: dict[str, str],
    ordinal: int,
    cloze: bool,
    tags: tuple[str, ...] = (),
) -> None:
    """The same card as Anki's, or a TemplateError in Anki's words where Anki shows that
    side's problem (Anki reads the back only after a front that renders)."""
    card, context = anki.ephemeral(front, back, fields, ordinal, cloze=cloze, tags=tags)
    question = html.unescape(_ISOLATES.sub("", card.question()))
    try:
        ours = render_card(front, back, fields, ordinal, as_client=False, context=context)
    except TemplateError as error:
        side, _, problem = str(error).partition(" has a problem: ")
        if side == "Front template" or "Back template has a problem" in question:
            assert question.startswith(f"<style></style>{side} has a problem:<br>{problem}<br>")
        else:  # a front that does not render: Anki never reads the back
            assert "Front template has a problem" in question or "</div>" in question
        return
    assert_as_anki(card, ours)
    render_card(front, back, fields, ordinal, context=context)  # the client fills it in


# Well-formed templates: replacements with random filter chains, text, nested sections.
_NAMES = ["Front", "Front", "Back", "Back", "Back Extra", "Tags", "Type", "c1", "FrontSide"]
_FILTERS = [
    "text", "hint", "furigana", "kana", "kanji", "cloze-only", "cloze", "tts en_US",
    "tts ko_KR voices=A,B speed=0.5", "tts  ", "nosuch", "type", "nc", "", "type-nc",
]  # fmt: skip
_TEXT = ["x", " ", "<br>", "[sound:t.mp3]", "[...]", "<!--{{Nosuch}}-->", "{", "}}", "[", "]"]


def _section(kind: str, name: str, children: list[str]) -> str:
    return f"{{{{{kind}{name}}}}}{''.join(children)}{{{{/{name}}}}}"


_REPLACEMENT = st.builds(
    lambda filters, name: "{{" + ":".join([*filters, name]) + "}}",
    st.lists(st.sampled_from(_FILTERS), max_size=3),
    st.sampled_from(_NAMES),
)
_TEMPLATE = st.lists(
    st.recursive(
        st.one_of(_REPLACEMENT, _REPLACEMENT, st.sampled_from(_TEXT)),
        lambda inner: st.builds(
            _section,
            st.sampled_from(["#", "^"]),
            st.sampled_from(["Front", "Back", "Back Extra", "Tags", "c1", "c2"]),
            st.lists(inner, max_size=3),
        ),
        max_leaves=6,
    ),
    min_size=1,
    max_size=4,
).map("".join)
_FIELDS = st.fixed_dictionaries(
    {name: _joined(_FIELD_PIECES, 4, min_size=1) for name in ("Front", "Back", "Back Extra")}
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(_TEMPLATE, _TEMPLATE, _FIELDS, st.sampled_from([(), ("t",)]))
def test_random_templates_render_as_in_anki(
    anki: Oracle, front: str, back: str, fields: dict[str, str], tags: tuple[str, ...]
) -> None:
    assert_renders_or_fails_as_anki(anki, front, back, fields, 0, cloze=False, tags=tags)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(_joined(_TEMPLATE_PIECES, 8), _joined(_TEMPLATE_PIECES, 8), _FIELDS)
def test_random_template_pieces_render_or_fail_as_in_anki(
    anki: Oracle, front: str, back: str, fields: dict[str, str]
) -> None:
    """Pieces of tags in any order: malformed templates among them."""
    assert_renders_or_fails_as_anki(anki, front, back, fields, 0, cloze=False)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    _joined(_CLOZE_TEMPLATE_PIECES, 6),
    _joined(_CLOZE_TEMPLATE_PIECES, 6),
    _joined(_CLOZE_FIELD_PIECES, 10),
    _joined(_CLOZE_FIELD_PIECES, 3),
    st.integers(0, 3),
)
def test_random_cloze_templates_render_as_in_anki(
    anki: Oracle, front: str, back: str, text: str, extra: str, ordinal: int
) -> None:
    fields = {"Text": text, "Back Extra": extra}
    assert_renders_or_fails_as_anki(anki, front, back, fields, ordinal, cloze=True)


# -- sound and TTS tags --------------------------------------------------------------------

_AV_PIECES = [
    "[sound:", "]", "[", "a.mp3", "&amp;", "[anki:tts lang=en_US]", "[/anki:tts]", "[anki:tts]",
    "[anki:tts lang=ko_KR voices=A,B speed=.5 cloze_blank=beep other=1]",
    '[anki:tts lang="en US" speed=x]', "[anki:foo a=1]", "[/anki:foo]", "[anki:", "tts",
    "lang=x", " ", "\n", "<br>", "<b>b</b>", "[...]", "x", "[anki:play:q:0]", "/anki:tts]",
]  # fmt: skip


@settings(max_examples=400, derandomize=True, deadline=None)
@given(_joined(_AV_PIECES, 10))
def test_sound_and_tts_tags_are_read_as_anki_reads_them(anki: Oracle, text: str) -> None:
    """The backend's own extract_av_tags and strip_av_tags (rslib card_rendering)."""
    from anki.template import av_tags_to_native

    backend = anki.col._backend
    extracted = backend.extract_av_tags(text=text, question_side=True)
    ours = anki_template._extract_av_tags(text, "q")
    assert ours == (extracted.text, _av_tags(av_tags_to_native(extracted.av_tags)))
    assert anki_template._strip_av_tags(text) == backend.strip_av_tags(text)


def test_a_missing_field_is_named_in_plain_words() -> None:
    card = render_card("{{Front}}", "{{hint:Nosuch}}", {"Front": "x"}, 0)
    assert card.problem == "Found '{{hint:Nosuch}}', but there is no field called 'Nosuch'"
    assert card.question == card.answer and card.question.startswith("Back template has a problem:")
