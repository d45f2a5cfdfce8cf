"""Card files -> model: the format contract, and every problem reported with its line."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.cardfile.fields import MAX_FIELD_BYTES
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.errors import DeckError
from deckbuilder.model import BasicNote, ClozeNote, McqNote, NoteKind
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, ROOT, Run

CliRun = Callable[..., Run]


def write(tmp_path: Path, text: str, name: str = "deck.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(DeckError) as info:
        load_deck(path)
    return [str(p) for p in info.value.problems]


def test_mixed_deck_loads_every_note_type() -> None:
    deck = load_deck(DATA / "mixed.yaml")
    assert (deck.key, deck.name, deck.tags) == ("mixed", "Test::Mixed", ("test-deck",))
    single, multi, cloze, basic = deck.notes
    assert isinstance(single, McqNote) and single.answer == (1,) and single.shuffle
    assert single.tags == ("astronomy",) and single.line == 6
    assert (
        isinstance(multi, McqNote) and multi.answer == (0, 2) and not multi.shuffle and multi.multi
    )
    assert isinstance(cloze, ClozeNote) and cloze.card_count == 2
    assert isinstance(basic, BasicNote) and basic.back == "Red"
    assert deck.counts() == {NoteKind.MCQ: (2, 2), NoteKind.CLOZE: (1, 2), NoteKind.BASIC: (1, 1)}


def test_bundled_deck_has_the_seed_questions_with_answers() -> None:
    """All 8 quiz questions, each with an answer and an explanation, plus >= 4 cloze notes."""
    deck = load_deck(ROOT / "cards" / "gradient-checkpointing.yaml")
    mcqs = [n for n in deck.notes if isinstance(n, McqNote)]
    clozes = [n for n in deck.notes if isinstance(n, ClozeNote)]
    assert len(mcqs) == 8 and len(clozes) >= 4
    assert all(len(n.choices) == 4 and n.explanation.strip() for n in mcqs)
    # The right answers of the seed quiz, by question: A, B, C, D, A, B, C, D.
    assert [n.answer for n in mcqs] == [(0,), (1,), (2,), (3,), (0,), (1,), (2,), (3,)]
    pytorch = next(n for n in mcqs if n.id == "pytorch-utility")
    assert pytorch.choices[0] == "`torch.utils.checkpoint`"
    assert "torch.nn.Dropout" in pytorch.choices[2]
    text = (ROOT / "cards" / "gradient-checkpointing.yaml").read_text(encoding="utf-8")
    for damage in ("그라데이션", "토치.", "드롭아웃", "거래합니까"):
        assert damage not in text


def test_text_is_nfc_and_yaml_booleans_stay_text(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "한국어")
    path = write(
        tmp_path,
        f"deck: D\nnotes:\n  - id: a\n    question: {decomposed}\n"
        "    choices: [Yes, No, 1.10]\n    answer: c\n",
    )
    note = load_deck(path).notes[0]
    assert isinstance(note, McqNote)
    assert note.question == "한국어" and unicodedata.is_normalized("NFC", note.question)
    assert note.choices == ("Yes", "No", "1.10") and note.answer == (2,)


def test_answer_letters_field_lines_and_normalisation(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "한국어 café")
    dotless_i = "\u0131"  # its upper case is "I"
    path = write(
        tmp_path,
        f"deck: D\nnotes:\n  - {{id: a, question: {decomposed}, choices: [x, y, z, w, v, u, t, s, r],"
        f" answer: {dotless_i}, explanation: plain}}\n"
        "  - {id: b, question: q, choices: [x, y], answer: b}\n",
    )
    first, second = load_deck(path).notes
    assert isinstance(first, McqNote) and isinstance(second, McqNote)
    assert first.question == unicodedata.normalize("NFC", decomposed) != decomposed
    assert first.answer == (8,)  # I, the ninth letter
    assert second.answer == (1,)
    assert dict(first.field_lines) == {
        "id": 3,
        "question": 3,
        "choices": 3,
        "answer": 3,
        "explanation": 3,
        "answer[0]": 3,
        **{f"choices[{i}]": 3 for i in range(9)},
    }


def test_field_size_limit_is_counted_in_utf8_bytes(tmp_path: Path) -> None:
    at_limit = "é" * (MAX_FIELD_BYTES // 2)
    over = "😀" * (MAX_FIELD_BYTES // 4) + "x"
    path = write(tmp_path, f"deck: D\nnotes:\n  - id: a\n    front: {at_limit}\n    back: {over}\n")
    assert problems(path) == [
        f"{path}:5: note 'a': 'back' is {MAX_FIELD_BYTES + 1:,} bytes; the limit is {MAX_FIELD_BYTES:,}"
    ]


def test_deck_id_defaults_to_file_stem(tmp_path: Path) -> None:
    path = write(tmp_path, "deck: D\nnotes: [{id: a, front: f, back: b}]\n", "my-deck.yaml")
    assert load_deck(path).key == "my-deck"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "deck.yaml: the file is empty"),
        ("- a\n- b\n", ":1: the top level must be a mapping"),
        ("deck: D\nnotes: [\n", ":2: YAML syntax error"),
        ("deck:\nnotes:\n  - {id: a, front: f, back: b}\n", ":1: 'deck' is empty"),
        ("deck: D\nnotse: []\n", ":2: unknown key 'notse' in the deck; did you mean 'notes'?"),
        ("deck: D\nnotes: []\n", ":2: 'notes' is empty"),
        ("deck: D\nnotes: {a: 1}\n", ":2: 'notes' must be a list, not a mapping"),
        ("deck: A::::B\nnotes: [{id: a, front: f, back: b}]\n", "empty part between '::'"),
        (
            "deck: D\nid: Bad Id\nnotes: [{id: a, front: f, back: b}]\n",
            ":2: deck id 'Bad Id' must match [a-z0-9][a-z0-9_-]*; did you mean 'bad-id'?",
        ),
        ("deck: D\nnotes:\n  - {front: f, back: b}\n", ":3: 'id' is required"),
        (
            "deck: D\nnotes:\n  - {id: A!, front: f, back: b}\n",
            ":3: note 'A!': note id 'A!' must match [a-z0-9][a-z0-9_-]*; did you mean 'a'?",
        ),
        (
            "deck: D\nnotes:\n  - {id: 한국어, front: f, back: b}\n",
            ":3: note '한국어': note id '한국어' must match [a-z0-9][a-z0-9_-]*",
        ),
        (
            "deck: D\nnotes:\n  - {id: a, front: f, back: b}\n  - {id: a, front: g, back: c}\n",
            ":4: note 'a': duplicate note id (first at line 3)",
        ),
        (
            "deck: D\nnotes:\n  - {id: a, type: mcu, front: f}\n",
            "unknown note type 'mcu'; expected one of mcq, cloze, basic, typed, image-occlusion; did you mean 'mcq'?",
        ),
        ("deck: D\nnotes:\n  - {id: a, prompt: f}\n", ":3: note 'a': cannot tell the note type"),
        (
            "deck: D\nnotes:\n  - id: a\n    front: f\n    bakc: b\n",
            ":5: note 'a': unknown key 'bakc' in a basic note; did you mean 'back'?",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    front: ''\n    back: b\n",
            ":4: note 'a': 'front' is empty",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    front: [x]\n    back: b\n",
            ":4: note 'a': 'front' must be text, not a list",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    choices: [x, y]\n    answer: A\n",
            ":3: note 'a': 'question' is required",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x]\n    answer: A\n",
            ":5: note 'a': 'choices' has 1 entry; give 2 to 26",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, ' X ']\n    answer: A\n",
            "choice B repeats choice A",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, y]\n    answer: C\n",
            ":6: note 'a': answer 'C' is not one of the choices (A-B)",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, y]\n    answer: [A, A]\n",
            "answer 'A' is given twice",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, y]\n    answer: xy\n",
            "answer 'xy' is not a choice letter",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, y]\n",
            ":3: note 'a': 'answer' is required",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, y]\n    answer: A\n    shuffle: maybe\n",
            ":7: note 'a': 'shuffle' must be true or false",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    text: no gaps here\n",
            ":4: note 'a': cloze text has no deletion",
        ),
        (
            "deck: D\nnotes:\n  - id: a\n    text: '{{c1::ok}} and {{c2:broken}}'\n",
            "malformed cloze near '{{c2:broken}}'",
        ),
        (
            "deck: D\ntags: [a b]\nnotes:\n  - {id: a, front: f, back: b}\n",
            ":2: tag 'a b' contains a space",
        ),
        (
            "deck: D\ndeck: E\nnotes:\n  - {id: a, front: f, back: b}\n",
            ":2: duplicate key 'deck' (first at line 1)",
        ),
        ("deck: !!python/object:os.system echo\nnotes: []\n", "unsupported YAML tag"),
    ],
)
def test_problems_are_located(tmp_path: Path, text: str, expected: str) -> None:
    found = problems(write(tmp_path, text))
    assert any(expected in p for p in found), found
    assert all(p.startswith(str(tmp_path / "deck.yaml")) for p in found)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "deck: D\nnotes:\n"
        "  - id: one\n    question: q\n    choices: [x, y]\n    answer: Z\n"
        "  - id: two\n    text: nothing\n"
        "  - id: three\n    front: f\n",
    )
    found = problems(path)
    assert len(found) == 3
    assert ":6: note 'one'" in found[0]
    assert ":8: note 'two'" in found[1]
    assert ":9: note 'three': 'back' is required" in found[2]


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    lines.append("deck: D\nnotes: *a8")
    found = problems(write(tmp_path, "\n".join(lines) + "\n"))
    assert "aliases expand" in found[0]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_utf16_file_is_told_as_text_to_save_as_utf8(tmp_path: Path, codec: str) -> None:
    """Windows Notepad's "Unicode" is UTF-16 with a byte order mark: text, not a binary
    file, and saving it as UTF-8 is the fix."""
    text = "deck: 덱\nnotes:\n  - {id: a, front: 앞, back: 뒤}\n"
    data = text.encode(codec) if codec == "utf-16" else b"\xfe\xff" + text.encode(codec)
    (tmp_path / "notepad.yaml").write_bytes(data)
    (found,) = problems(tmp_path / "notepad.yaml")
    assert found.endswith("notepad.yaml: this is UTF-16 text; save the file as UTF-8"), found


def test_binary_and_non_utf8_files(tmp_path: Path) -> None:
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01\x02deck")
    assert "binary file" in problems(tmp_path / "bin.yaml")[0]
    (tmp_path / "latin.yaml").write_bytes("deck: caf\xe9\n".encode("latin-1"))
    assert ":1: not valid UTF-8" in problems(tmp_path / "latin.yaml")[0]


def test_two_files_with_one_deck_id(tmp_path: Path) -> None:
    write(tmp_path, "deck: D\nid: same\nnotes: [{id: a, front: f, back: b}]\n", "a.yaml")
    write(tmp_path, "deck: E\nid: same\nnotes: [{id: a, front: f, back: b}]\n", "b.yaml")
    with pytest.raises(DeckError) as info:
        load_decks([tmp_path])
    assert "deck id 'same' is also used by" in str(info.value)


def test_missing_source_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as info:
        load_decks([tmp_path / "nope.yaml", tmp_path])
    text = str(info.value)
    assert "no such file or folder" in text and "no card files" in text


def test_a_card_file_with_an_upper_case_suffix_in_a_folder_is_told(tmp_path: Path) -> None:
    """'sub/b.YAML' was left out of the folder's decks without a word; watch, the lock
    files and import --out take card files by their lower-case suffix, so it is told."""
    write(tmp_path, "deck: A\nid: a\nnotes: [{id: a, front: f, back: b}]\n", "a.yaml")
    (tmp_path / "sub").mkdir()
    write(tmp_path, "deck: B\nid: b\nnotes: [{id: a, front: f, back: b}]\n", "sub/b.YAML")
    with pytest.raises(DeckError) as info:
        load_decks([tmp_path])
    (problem,) = info.value.problems
    assert problem.file == str(tmp_path / "sub" / "b.YAML")
    assert "not read" in problem.message and "rename it b.yaml" in problem.message


def test_a_folder_leaves_out_hidden_files_and_folders(tmp_path: Path) -> None:
    """macOS leaves '._deck.yaml' (binary metadata) beside each file copied to a USB
    stick or a network share, and tools keep copies in hidden folders: none is a deck,
    as watch already takes them for none. A hidden file named is read."""
    write(tmp_path, "deck: D\nid: d\nnotes: [{id: a, front: f, back: b}]\n")
    (tmp_path / "._deck.yaml").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
    (tmp_path / ".history").mkdir()
    write(tmp_path / ".history", "deck: D\nid: d\nnotes: [{id: a, front: f, back: b}]\n")
    assert [deck.key for deck in load_decks([tmp_path])] == ["d"]
    hidden = write(tmp_path, "deck: H\nnotes: [{id: a, front: f, back: b}]\n", ".hidden.yaml")
    assert [deck.key for deck in load_decks([hidden])] == ["hidden"]


def test_an_empty_missing_media_name_is_refused(tmp_path: Path) -> None:
    """The schema takes only file names there (found by the schema-agreement property)."""
    path = tmp_path / "d.yaml"
    path.write_text("deck: D\nid: d\nmissing_media: ''\nnotes:\n  - {id: a, front: f, back: b}\n")
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert "d.yaml:3: 'missing_media' holds an empty file name" in str(caught.value)


def test_an_empty_guid_is_refused(tmp_path: Path) -> None:
    """The schema takes only a GUID there (a schema-agreement disagreement)."""
    path = tmp_path / "d.yaml"
    path.write_text("deck: D\nid: d\nnotes:\n  - id: a\n    guid: ''\n    front: f\n    back: b\n")
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert "d.yaml:5: note 'a': 'guid' is empty" in str(caught.value)


def test_a_deck_with_missing_media_keeps_its_name(tmp_path: Path, cli: CliRun) -> None:
    """The loop over 'missing_media' once reused the deck name's variable: every deck
    whose card file named a missing file (as import writes them) was built, listed and
    previewed under that file's name ("m.png" for the deck "Cells")."""
    path = tmp_path / "cells.yaml"
    path.write_text(
        "deck: Cells\nid: cells\nmissing_media: [a.png, m.png]\nnotes:\n"
        "  - {id: a, front: f, back: b}\n",
        encoding="utf-8",
    )
    deck = load_deck(path)
    assert (deck.name, deck.missing_media) == ("Cells", ("a.png", "m.png"))
    listed = cli("list", path, "--json")
    assert [d["name"] for d in json.loads(listed.out)["decks"]] == ["Cells"], listed.out


@pytest.mark.parametrize(("choices", "named"), [("[Only]", "(only A)"), ("[a, b, c]", "(A-C)")])
def test_an_answer_beyond_the_choices_names_the_letters_there_are(
    tmp_path: Path, choices: str, named: str
) -> None:
    """With one choice the letters were "(a choice letter)", which names none."""
    path = write(
        tmp_path, f"deck: D\nid: d\nnotes:\n  - id: q\n    question: Q?\n    choices: {choices}\n"
        "    answer: E\n"
    )  # fmt: skip
    found = [p for p in problems(path) if "answer 'E'" in p]
    assert found == [f"{path}:7: note 'q': answer 'E' is not one of the choices {named}"]
