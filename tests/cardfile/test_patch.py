"""Card files changed in place (issue 43, item 3): the values a pull changes are written as
``import`` writes them, and every other byte stays (comments, key order, quoting, block
scalars, blank lines)."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.patch import CannotPatch, CardFilePatch
from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.cardfile.writer import card_file_text
from deckbuilder.invisible import is_blank
from deckbuilder.model import BasicNote, ClozeNote, Deck, McqNote, Note
from tests.cardfile.loading import load_deck

HAND_WRITTEN = """\
# Cells, written by hand.
deck: "Biology::Cells"   # quoted on purpose
id: cells
notes:
  - id: powerhouse
    question: "Which organelle makes most of a cell's ATP?"  # the classic
    choices: [Mitochondrion, Ribosome, Nucleus]
    answer: A
    explanation: |
      The mitochondrion.
      It has its own DNA.

  # A cloze note.
  - id: membrane
    text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'
    tags: [membranes, "lipids"]

  - {id: red, front: The red planet, back: Mars}

  - id: term
    front: >-
      Activation
    back: A layer's output.
"""


def _load(tmp_path: Path, text: str, name: str = "cells.yaml") -> Deck:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_deck(path)


def _note(deck: Deck, note_id: str) -> Note:
    return next(note for note in deck.notes if note.id == note_id)


def _patched(tmp_path: Path, text: str, note_id: str, **changes: object) -> tuple[str, Deck]:
    """The text with note ``note_id`` changed, parsing the whole file and only that
    note's lines (pull's way): both give the same text."""
    deck = _load(tmp_path, text)
    old = _note(deck, note_id)
    outs = []
    for lines in (None, {note.id: note.line for note in deck.notes}):
        patch = CardFilePatch(text, "cells.yaml", lines)
        patch.change_note(note_id, old, replace(old, **changes))  # type: ignore[arg-type]
        outs.append(patch.result())
    out, sliced = outs
    assert sliced == out
    return out, _load(tmp_path, out, "out.yaml")


def test_a_changed_text_replaces_only_its_value(tmp_path: Path) -> None:
    out, deck = _patched(tmp_path, HAND_WRITTEN, "powerhouse", question="Which organelle, then?")
    assert out == HAND_WRITTEN.replace(
        '"Which organelle makes most of a cell\'s ATP?"  # the classic',
        "Which organelle, then?  # the classic",
    )
    assert isinstance(_note(deck, "powerhouse"), McqNote)


def test_a_text_before_a_comment_one_space_away_stays_quoted(tmp_path: Path) -> None:
    """The loader takes a plain text followed by ' #' for text cut short; two spaces
    mark a comment."""
    text = HAND_WRITTEN.replace('ATP?"  # the classic', 'ATP?" # the classic')
    out, _ = _patched(tmp_path, text, "powerhouse", question="Which organelle, then?")
    assert '    question: "Which organelle, then?" # the classic\n' in out


def test_a_text_with_lines_becomes_a_block_and_keeps_the_comment(tmp_path: Path) -> None:
    out, deck = _patched(tmp_path, HAND_WRITTEN, "powerhouse", question="Line one\nline two")
    assert "    question: |- # the classic\n      Line one\n      line two\n    choices:" in out
    note = _note(deck, "powerhouse")
    assert isinstance(note, McqNote) and note.question == "Line one\nline two"
    rest = out.replace("    question: |- # the classic\n      Line one\n      line two\n", "")
    assert rest == HAND_WRITTEN.replace(
        '    question: "Which organelle makes most of a cell\'s ATP?"  # the classic\n', ""
    )


def test_a_block_becomes_one_line_and_the_blank_line_after_it_stays(tmp_path: Path) -> None:
    out, _ = _patched(tmp_path, HAND_WRITTEN, "powerhouse", explanation="Short now.")
    assert out == HAND_WRITTEN.replace(
        "    explanation: |\n      The mitochondrion.\n      It has its own DNA.\n",
        "    explanation: Short now.\n",
    )


def test_a_comment_after_a_block_stays_the_next_line_s_and_the_block_keeps_its_own(
    tmp_path: Path,
) -> None:
    """A comment on the line after a block (about what follows) was copied onto the new
    block's '|' line, and so written twice; the block's own comment, after its '|', was
    dropped."""
    text = HAND_WRITTEN.replace(
        "      It has its own DNA.\n",
        "      It has its own DNA.\n    # about the cloze note\n",
    )
    out, _ = _patched(tmp_path, text, "powerhouse", explanation="The mitochondrion.\nIts DNA.")
    assert out == text.replace("It has its own DNA.", "Its DNA.").replace(
        "explanation: |\n", "explanation: |-\n"
    )
    own = text.replace("explanation: |\n", "explanation: |  # two lines\n")
    out, _ = _patched(tmp_path, own, "powerhouse", explanation="The mitochondrion.\nIts DNA.")
    assert out == text.replace("It has its own DNA.", "Its DNA.").replace(
        "explanation: |\n", "explanation: |- # two lines\n"
    )


def test_one_choice_of_a_flow_list_changes_alone(tmp_path: Path) -> None:
    deck = _load(tmp_path, HAND_WRITTEN)
    old = _note(deck, "powerhouse")
    assert isinstance(old, McqNote)
    out, _ = _patched(
        tmp_path,
        HAND_WRITTEN,
        "powerhouse",
        choices=("Mitochondrion", "A ribosome, free", "Nucleus"),
    )
    assert "choices: [Mitochondrion, 'A ribosome, free', Nucleus]" in out


def test_a_new_key_goes_where_the_format_orders_it(tmp_path: Path) -> None:
    out, deck = _patched(tmp_path, HAND_WRITTEN, "membrane", extra="Also the plasma membrane.")
    assert (
        "    text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'\n"
        "    extra: Also the plasma membrane.\n"
        '    tags: [membranes, "lipids"]\n'
    ) in out
    note = _note(deck, "membrane")
    assert isinstance(note, ClozeNote) and note.extra == "Also the plasma membrane."


def test_an_emptied_text_is_removed_with_its_lines(tmp_path: Path) -> None:
    out, _ = _patched(tmp_path, HAND_WRITTEN, "powerhouse", explanation="")
    assert out == HAND_WRITTEN.replace(
        "    explanation: |\n      The mitochondrion.\n      It has its own DNA.\n", ""
    )


def test_one_tag_of_a_list_changes_alone(tmp_path: Path) -> None:
    out, _ = _patched(tmp_path, HAND_WRITTEN, "membrane", tags=("membranes", "fats"))
    assert "    tags: [membranes, fats]\n" in out
    assert out.count("\n") == HAND_WRITTEN.count("\n")


def test_a_note_written_as_a_flow_mapping_changes_in_it(tmp_path: Path) -> None:
    out, deck = _patched(tmp_path, HAND_WRITTEN, "red", back="Mars, the fourth", tags=("planets",))
    assert (
        "  - {id: red, front: The red planet, back: 'Mars, the fourth', tags: [planets]}\n" in out
    )
    note = _note(deck, "red")
    assert isinstance(note, BasicNote) and note.tags == ("planets",)


def test_a_folded_block_is_replaced_in_the_style_import_writes(tmp_path: Path) -> None:
    out, _ = _patched(tmp_path, HAND_WRITTEN, "term", front="Activation (a)")
    assert "    front: Activation (a)\n    back: A layer's output.\n" in out


def test_notes_are_added_after_the_last_one_as_the_others_are(tmp_path: Path) -> None:
    patch = CardFilePatch(HAND_WRITTEN, "cells.yaml")
    patch.add_note(BasicNote(id="ribosome", line=0, front="Ribosome", back="Makes proteins."))
    out = patch.result()
    assert out == HAND_WRITTEN + (
        "\n  - id: ribosome\n    type: basic\n    front: Ribosome\n    back: Makes proteins.\n"
    )
    assert [n.id for n in _load(tmp_path, out).notes][-1] == "ribosome"


def test_notes_added_to_a_list_without_indentation_or_blank_lines(tmp_path: Path) -> None:
    text = (
        "deck: D\nnotes:\n- id: a\n  front: x\n  back: y\n- id: b\n  front: z\n  back: w\n# end\n"
    )
    patch = CardFilePatch(text, "d.yaml")
    patch.add_note(BasicNote(id="c", line=0, front="p", back="q"))
    assert patch.result() == text.replace(
        "# end\n", "- id: c\n  type: basic\n  front: p\n  back: q\n# end\n"
    )


def test_a_note_is_removed_with_its_lines_and_one_blank_line(tmp_path: Path) -> None:
    patch = CardFilePatch(HAND_WRITTEN, "cells.yaml")
    patch.remove_note("red")
    assert patch.result() == HAND_WRITTEN.replace(
        "  - {id: red, front: The red planet, back: Mars}\n\n", ""
    )


def test_the_last_note_is_not_removed(tmp_path: Path) -> None:
    """A pull --delete of every note of a deck wrote 'notes:' with nothing under it, a
    card file every command then refused ('notes' is required)."""
    patch = CardFilePatch(HAND_WRITTEN, "cells.yaml")
    for note_id in ("powerhouse", "membrane", "red"):
        patch.remove_note(note_id)
    with pytest.raises(CannotPatch, match="it is the card file's last note"):
        patch.remove_note("term")
    assert [note.id for note in _load(tmp_path, patch.result()).notes] == ["term"]


def test_the_diff_shows_the_changed_lines_with_their_numbers(tmp_path: Path) -> None:
    deck = _load(tmp_path, HAND_WRITTEN)
    old = _note(deck, "membrane")
    patch = CardFilePatch(HAND_WRITTEN, "cells.yaml")
    patch.change_note("membrane", old, replace(old, extra="Also the plasma membrane."))  # type: ignore[arg-type]
    assert patch.diff("a/cells.yaml", "b/cells.yaml") == (
        "--- a/cells.yaml\n+++ b/cells.yaml\n@@ -13,6 +13,7 @@\n"
        "   # A cloze note.\n   - id: membrane\n"
        "     text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'\n"
        "+    extra: Also the plasma membrane.\n"
        '     tags: [membranes, "lipids"]\n \n   - {id: red, front: The red planet, back: Mars}\n'
    )


def test_yaml_anchors_and_aliases_are_refused(tmp_path: Path) -> None:
    text = (
        "deck: D\nnotes:\n  - id: a\n    front: &f shared\n    back: y\n"
        "  - id: b\n    front: *f\n    back: w\n"
    )
    deck = _load(tmp_path, text)
    for note_id in ("a", "b"):
        old = _note(deck, note_id)
        patch = CardFilePatch(text, "d.yaml")
        with pytest.raises(CannotPatch, match="YAML"):
            patch.change_note(note_id, old, replace(old, front="new"))  # type: ignore[arg-type]
        assert patch.result() == text


BILINGUAL = """\
deck: {ko: 세포, en: Cells}
id: cells
languages: [ko, en]
notes:
  - id: powerhouse
    question:
      ko: 세포의 ATP를 주로 만드는 소기관은?
      en: Which organelle makes most of a cell's ATP?
    choices:
      - {ko: 미토콘드리아, en: Mitochondrion}
      - "Ribosome"        # the same in both
    answer: A
"""


def _bilingual(tmp_path: Path, text: str = BILINGUAL) -> tuple[Deck, Deck]:
    path = tmp_path / "cells.yaml"
    path.write_text(text, encoding="utf-8")
    ko, en = load_deck_languages(path, lang="all")
    return ko, en


def test_a_language_changes_only_its_own_text(tmp_path: Path) -> None:
    ko, en = _bilingual(tmp_path)
    old = en.notes[0]
    assert isinstance(old, McqNote)
    new = replace(old, question="What makes ATP?", choices=("Mitochondria", "Ribosome"))
    patch = CardFilePatch(BILINGUAL, "cells.yaml")
    patch.change_note("powerhouse", old, new, "en", ("ko", "en"))
    out = patch.result()
    assert out == BILINGUAL.replace(
        "en: Which organelle makes most of a cell's ATP?", "en: What makes ATP?"
    ).replace("en: Mitochondrion}", "en: Mitochondria}")
    ko2, en2 = _bilingual(tmp_path, out)
    assert ko2.notes == ko.notes
    assert en2.notes[0].question == "What makes ATP?"  # type: ignore[attr-defined]


def test_a_text_all_languages_share_becomes_a_map_keeping_the_others(tmp_path: Path) -> None:
    ko, en = _bilingual(tmp_path)
    old = en.notes[0]
    assert isinstance(old, McqNote)
    patch = CardFilePatch(BILINGUAL, "cells.yaml")
    patch.change_note(
        "powerhouse", old, replace(old, choices=("Mitochondrion", "A ribosome")), "en", ("ko", "en")
    )
    out = patch.result()
    assert "      # the same in both\n      - ko: Ribosome\n        en: A ribosome\n" in out
    ko2, en2 = _bilingual(tmp_path, out)
    assert ko2.notes == ko.notes
    assert en2.notes[0].choices == ("Mitochondrion", "A ribosome")  # type: ignore[attr-defined]


def test_choices_added_in_one_language_are_refused(tmp_path: Path) -> None:
    _, en = _bilingual(tmp_path)
    old = en.notes[0]
    assert isinstance(old, McqNote)
    patch = CardFilePatch(BILINGUAL, "cells.yaml")
    with pytest.raises(CannotPatch, match="other languages"):
        patch.change_note(
            "powerhouse", old, replace(old, choices=(*old.choices, "Nucleus")), "en", ("ko", "en")
        )


# -- any note, any change -----------------------------------------------------------------

texts = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85\ufeff"),
    max_size=30,
).map(lambda text: unicodedata.normalize("NFC", text).strip()) | st.sampled_from(
    ["a\nb", "x: y", "# not a comment", "- item", "'q'", '"', "[x]"]
)
# What the loader takes for a required field: text that shows something ('\xad' alone,
# a soft hyphen, shows nothing and is refused).
required = texts.filter(lambda text: not is_blank(text))
# A deletion's answer: braces and '::' would end the deletion early or start its hint
# ('{{c1::}}}' is an empty deletion and a brace, which the loader rightly refuses).
cloze_answers = required.filter(
    lambda text: "{" not in text and "}" not in text and "::" not in text
)


@st.composite
def decks_and_changes(draw: st.DrawFn) -> tuple[Deck, dict[str, Note]]:
    notes: list[Note] = []
    for number in range(draw(st.integers(1, 4))):
        note_id = f"n{number}"
        kind = draw(st.sampled_from(["basic", "cloze", "mcq"]))
        if kind == "basic":
            notes.append(BasicNote(id=note_id, line=0, front=draw(required), back=draw(required)))
        elif kind == "cloze":
            notes.append(
                ClozeNote(
                    id=note_id,
                    line=0,
                    text="{{c1::" + draw(cloze_answers) + "}}",
                    extra=draw(texts),
                )
            )
        else:
            choices = tuple(draw(st.lists(required, min_size=2, max_size=3, unique=True)))
            notes.append(
                McqNote(
                    id=note_id,
                    line=0,
                    question=draw(required),
                    choices=choices,
                    answer=(0,),
                    explanation=draw(texts),
                )
            )
    deck = Deck("d", "D", Path("d.yaml"), tuple(notes))
    changed: dict[str, Note] = {}
    for note in notes:
        if not draw(st.booleans()):
            continue
        if isinstance(note, BasicNote):
            changed[note.id] = replace(
                note,
                back=draw(required),
                tags=tuple(draw(st.lists(st.sampled_from(["t1", "t2"]), unique=True))),
            )
        elif isinstance(note, ClozeNote):
            changed[note.id] = replace(note, extra=draw(texts))
        elif isinstance(note, McqNote):
            choices = list(note.choices)
            others = note.choices[1:]
            choices[0] = draw(required.filter(lambda t, others=others: t not in others))
            changed[note.id] = replace(note, question=draw(required), choices=tuple(choices))
    return deck, changed


def _without_lines(deck: Deck) -> list[Note]:
    return [replace(note, line=0) for note in deck.notes]


@settings(max_examples=60)
@given(decks_and_changes())
def test_any_change_reads_back_and_leaves_the_other_notes_as_they_were(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[Deck, dict[str, Note]]
) -> None:
    deck, changed = case
    folder = tmp_path_factory.mktemp("patch")
    text = card_file_text(deck)
    loaded = _load(folder, text, "d.yaml")
    lines = {note.id: note.line for note in loaded.notes} if len(changed) % 2 else None
    patch = CardFilePatch(text, "d.yaml", lines)
    for note in loaded.notes:
        if note.id in changed:
            patch.change_note(note.id, note, replace(changed[note.id], line=note.line))
    out = patch.result()
    again = _load(folder, out, "out.yaml")
    want = [replace(changed.get(note.id, note), line=0) for note in loaded.notes]
    assert _without_lines(again) == want
    # The notes not changed keep their lines, byte for byte.
    kept = [note.id for note in loaded.notes if note.id not in changed]
    for note_id in kept:
        block = _note_block(text, note_id)
        assert block in out
    if not changed:
        assert out == text
    assert _applied(text, patch.diff("a", "b")) == out


def _applied(text: str, diff: str) -> str:
    """``diff`` (unified, as CardFilePatch.diff writes it) applied to ``text``."""
    import re

    lines = text.splitlines(True)
    out: list[str] = []
    at = 0
    for line in diff.splitlines(True)[2:]:
        hunk = re.match(r"@@ -(\d+),(\d+) ", line)
        if hunk:
            start = int(hunk.group(1)) - (1 if int(hunk.group(2)) else 0)
            out += lines[at:start]
            at = start
        elif line.startswith(" "):
            assert lines[at] == line[1:]
            out.append(line[1:])
            at += 1
        elif line.startswith("-"):
            assert lines[at] == line[1:]
            at += 1
        elif line.startswith("+"):
            out.append(line[1:])
    return "".join(out + lines[at:])


def _note_block(text: str, note_id: str) -> str:
    start = text.index(f"- id: {note_id}\n")
    end = text.find("\n  - id: ", start)
    return text[start : end if end >= 0 else len(text)]
