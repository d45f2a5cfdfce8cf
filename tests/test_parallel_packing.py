"""What a forked reader sends (deckbuilder.parallel._Packed) rebuilds, in the parent, the
very notes reading in one piece gives: every attribute, field_lines with its keys in order,
tags, media, keys, counts, both languages, every note kind; and Deck.counted."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from deckbuilder import parallel
from deckbuilder.load import read_text
from deckbuilder.model import BasicNote, ClozeNote, Deck, McqNote, NoteCounts, NoteKind
from deckbuilder.notetypes import note_type
from deckbuilder.render import RenderedNote

from .test_parallel import PNG, in_one_piece, in_parts, write

# Notes of every kind and shape: with and without tags, type:, explanation, extra, media,
# language maps; choices from 2 to 5; a cloze with two deletions (two cards).
NOTES = [
    """\
  - id: q{i}
    question: {{ko: "질문 **{i}**", en: "Question **{i}**"}}
    choices: [One {i}, Two {i}]
    answer: B
""",
    """\
  - id: r{i}
    type: mcq
    tags: [hard, t{i}]
    question: Which of {i}?
    choices:
      - A *{i}*
      - B
      - C
      - D
      - E {i}
    answer: [A, E]
    explanation: {{ko: 설명 {i}, en: "Because {i}"}}
    shuffle: false
""",
    """\
  - id: c{i}
    text: "Fact {i}: {{{{c1::one}}}} and {{{{c2::two {i}}}}}"
""",
    """\
  - id: d{i}
    tags: [cloze]
    text: {{ko: "{{{{c1::하나 {i}}}}}", en: "{{{{c1::one {i}}}}}"}}
    extra: Remember ![pic](a.png)
""",
    """\
  - id: b{i}
    front: "![pic](b.png) Term {i}"
    back: Definition {i}
""",
    """\
  - id: e{i}
    type: basic
    tags: [plain]
    front: {{ko: 앞 {i}, en: Front {i}}}
    back: Back
""",
]


def deck_file(tmp_path: Path, notes: int = 60) -> Path:
    body = "".join(NOTES[i % len(NOTES)].format(i=i) for i in range(notes))
    text = (
        "deck: {ko: 카드, en: Cards}\nid: packed\nlanguages: [ko, en]\ntags: [deck]\n"
        f"notes:\n{body}"
    )
    path = write(tmp_path, text)
    (tmp_path / "media" / "a.png").write_bytes(PNG)
    (tmp_path / "media" / "b.png").write_bytes(PNG + b"b")
    return path


def parts_of(path: Path, lang: str | None, keys: bool) -> list[parallel._PartResult]:
    """Every part but the first, read as a forked reader reads it."""
    text = read_text(path)
    plan = parallel.plan_parts(text, 4, 3)
    assert plan is not None and len(plan.bounds) >= 4
    reader = parallel._PartReader(path, text, plan, path.parent.parent / "media", lang, False, keys)
    return [reader(i) for i in range(1, len(plan.bounds))]


def sent(part: parallel._PartDeck) -> parallel._PartDeck:
    packed = pickle.dumps(parallel._Packed.pack(part), protocol=pickle.HIGHEST_PROTOCOL)
    got = pickle.loads(packed)
    assert isinstance(got, parallel._Packed)
    return got.unpack()


@pytest.mark.parametrize("keys", [True, False])
@pytest.mark.parametrize("lang", [None, "en", "all"])
def test_a_sent_part_is_the_part(tmp_path: Path, lang: str | None, keys: bool) -> None:
    path = deck_file(tmp_path)
    parts = parts_of(path, lang, keys)
    assert {len(part) for part in parts} == {2 if lang == "all" else 1}
    for part in parts:
        for share in part:
            got = sent(share)
            assert len(got.notes) == len(share.notes) > 0
            for new, old in zip(got.notes, share.notes, strict=True):
                assert type(new) is RenderedNote and type(new.note) is type(old.note)
                assert new == old
                # Equality leaves out field_lines; vars() has it, with its keys in order.
                assert list(vars(new.note).items()) == list(vars(old.note).items())
                assert list(new.note.field_lines.items()) == list(old.note.field_lines.items())
                assert list(vars(new).items()) == list(vars(old).items())
                assert new.spec is note_type(new.note.kind)  # this process's note types
            assert got.sources == tuple(rn.note for rn in got.notes) == share.sources
            assert all(a is rn.note for a, rn in zip(got.sources, got.notes, strict=True))
            assert got.ids == share.ids == {note.id for note in share.sources}
            assert got.media == share.media and list(got.media) == list(share.media)
            assert got.counts == share.counts and list(got.counts) == list(share.counts)
            if keys:
                assert share.keys is not None and got.keys is not None
                assert got.keys == share.keys and got.keys.notes is got.notes
            else:
                assert got.keys is None
    # The deck has every kind, tags, media and several shapes of each kind.
    shares = [share for part in parts for share in part]
    notes = [rn for share in shares for rn in share.notes]
    assert {type(rn.note) for rn in notes} == {McqNote, ClozeNote, BasicNote}
    assert any(rn.media for rn in notes) and any(rn.note.tags for rn in notes)


def test_every_rendered_note_attribute_is_sent() -> None:
    """A new RenderedNote field must be carried by _Packed, or this fails."""
    names = tuple(field.name for field in dataclasses.fields(RenderedNote))
    assert names == parallel._RENDERED_NOTE_FIELDS


@dataclasses.dataclass(frozen=True)
class _TaggedBasic(BasicNote):
    source_hint: str = ""


def test_note_attributes_are_sent_whatever_they_are(tmp_path: Path) -> None:
    """Notes are sent by their attributes, so a note class with one more still arrives whole."""
    path = deck_file(tmp_path, 30)
    share = parts_of(path, None, True)[0][0]
    notes = tuple(
        dataclasses.replace(
            rn,
            note=_TaggedBasic(**vars(rn.note), source_hint=f"hint {i}"),
        )
        if isinstance(rn.note, BasicNote)
        else rn
        for i, rn in enumerate(share.notes)
    )
    changed = dataclasses.replace(share, notes=notes, sources=tuple(rn.note for rn in notes))
    got = sent(changed)
    assert got.notes == notes
    hints = [rn.note.source_hint for rn in got.notes if isinstance(rn.note, _TaggedBasic)]
    assert hints and hints == [
        rn.note.source_hint for rn in notes if isinstance(rn.note, _TaggedBasic)
    ]


def test_a_note_type_other_than_the_usual_is_not_sent(tmp_path: Path) -> None:
    """The parent rebuilds note types as note_type(kind): any other means one piece."""
    path = deck_file(tmp_path, 30)
    share = parts_of(path, None, False)[0][0]
    odd = dataclasses.replace(note_type(NoteKind.BASIC), css="/* other */")
    notes = tuple(
        dataclasses.replace(rn, spec=odd) if rn.note.kind is NoteKind.BASIC else rn
        for rn in share.notes
    )
    with pytest.raises(parallel._NotSplittable):
        parallel._Packed.pack(dataclasses.replace(share, notes=notes))


@pytest.mark.parametrize("lang", [None, "all"])
def test_counts_from_the_parts_are_the_counts(tmp_path: Path, lang: str | None) -> None:
    path = deck_file(tmp_path)
    got = in_parts(path, 3, lang)
    assert got is not None
    wanted = in_one_piece(path, lang)
    for rd, whole in zip(got, wanted, strict=True):
        counted = rd.deck.counted
        assert counted is not None and counted.notes is rd.deck.notes
        assert whole.deck.counted is None
        assert rd.deck.counts() == whole.deck.counts()
        assert list(rd.deck.counts()) == list(whole.deck.counts())
        assert rd.deck.card_count == whole.deck.card_count
        assert rd.deck.card_count > len(rd.deck.notes)  # two-deletion clozes count twice


def _deck(*notes: BasicNote | ClozeNote) -> Deck:
    return Deck("d", "D", Path("d.yaml"), notes=tuple(notes))


def test_deck_uses_counts_given_for_its_notes_only() -> None:
    notes = (BasicNote("a", 1, front="x", back="y"), ClozeNote("b", 2, text="{{c1::x}} {{c2::y}}"))
    counted = _deck(*notes)
    assert counted.counts() == {NoteKind.CLOZE: (1, 2), NoteKind.BASIC: (1, 1)}
    # Counts given for these very notes are used as given (here, deliberately not the
    # notes' counts, to show they are not recounted)...
    given = {NoteKind.MCQ: (7, 9)}
    deck = dataclasses.replace(counted, counted=NoteCounts(given, counted.notes))
    assert deck.counts() == given and deck.card_count == 9
    assert deck == counted  # not part of what the deck is
    # ...but not for other notes, even equal ones or the same number of them.
    for other in (notes[:1], tuple(reversed(notes)), tuple(dataclasses.replace(n) for n in notes)):
        again = dataclasses.replace(deck, notes=other)
        assert again.counted is deck.counted
        assert again.counts() == dataclasses.replace(again, counted=None).counts()
        assert again.counts() != given
