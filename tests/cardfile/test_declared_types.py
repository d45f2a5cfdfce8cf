"""Note types of the author's own (issue 41): ``note_types:`` in a card file and
``note-types/<key>.yaml``, notes with ``type: <key>`` and ``fields:``, and what check
refuses in them, each at its line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder import app
from deckbuilder.errors import DeckError
from tests.conftest import Run

# The issue's exact shape.
VOCAB = """\
deck: Korean::Vocabulary
id: ko-vocab
note_types:
  vocab:
    name: Korean vocabulary          # Anki's name; default: the key
    fields: [Korean, Romanization, English, Example]
    sort_field: English              # default: the first field
    css: ".card { font-size: 24px; }"
    cards:
      - name: Recognition
        front: "{{Korean}}{{tts ko_KR:Korean}}"
        back: "{{FrontSide}}<hr id=answer>{{English}}{{#Example}}<br>{{Example}}{{/Example}}"
      - name: Production
        front: "{{English}}"
        back: "{{FrontSide}}<hr id=answer>{{Korean}}"
notes:
  - id: hello
    type: vocab
    fields:
      Korean: 안녕하세요
      Romanization: annyeonghaseyo
      English: hello
"""


def _check(tmp_path: Path, text: str, name: str = "deck.yaml") -> app.CheckResult:
    cards = tmp_path / "cards"
    cards.mkdir(exist_ok=True)
    (cards / name).write_text(text, encoding="utf-8")
    return app.check(app.CheckRequest(app.Selection(sources=(cards,), media_dir=None), lint=False))


def _problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(DeckError) as caught:
        _check(tmp_path, text)
    return [str(p) for p in caught.value.problems]


def test_the_issues_shape_loads(tmp_path: Path) -> None:
    result = _check(tmp_path, VOCAB)
    (deck,) = (rd.deck for rd in result.decks)
    (note,) = deck.notes
    assert note.type_key == "vocab"
    assert note.card_ordinals == (0, 1)
    assert deck.counts() == {"vocab": (1, 2)}
    (note_type,) = deck.note_types
    assert note_type.name == "Korean vocabulary" and note_type.sort_field == 2


def test_a_note_type_of_the_project_is_found_in_note_types_folder(tmp_path: Path) -> None:
    folder = tmp_path / "note-types"
    folder.mkdir()
    declaration = VOCAB.split("  vocab:\n", 1)[1].split("notes:", 1)[0]
    lines = [line[4:] for line in declaration.splitlines()]
    (folder / "vocab.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = "deck: A\nid: a\nnotes:\n" + VOCAB.split("notes:\n", 1)[1]
    (deck,) = (rd.deck for rd in _check(tmp_path, text).decks)
    assert deck.notes[0].card_ordinals == (0, 1)
    assert deck.note_types[0].scope == ""  # shared by the project's decks


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ('front: "{{English}}"', 'front: "{{Englsh}}"'),
            "note type 'vocab': card 2 ('Production') names 'Englsh', not a field",
        ),
        (
            ('back: "{{FrontSide}}<hr id=answer>{{Korean}}"', 'back: "{{#Korean}}x"'),
            "opens '{{#Korean}}' and never closes it",
        ),
        (("      English: hello\n", "      Englsh: hello\n"), "has no field 'Englsh'"),
        (
            ("      Korean: 안녕하세요\n", "      Korean: ''\n"),
            None,  # Production still has English: a card is made
        ),
        (
            ("    sort_field: English ", "    sort_field: Meaning "),
            "sort_field 'Meaning' is not one of its fields",
        ),
        (("{{tts ko_KR:Korean}}", "{{tts Korean:Korean}}"), "'Korean' is not a language code"),
        (("  vocab:\n", "  mcq:\n"), "'mcq' is the name of one of deckbuilder's own note types"),
        (("    type: vocab\n", "    type: vocabb\n"), "unknown note type 'vocabb'"),
    ],
)
def test_check_names_what_is_wrong_at_its_line(
    tmp_path: Path, change: tuple[str, str], expected: str | None
) -> None:
    old, new = change
    assert old in VOCAB
    text = VOCAB.replace(old, new)
    if expected is None:
        _check(tmp_path, text)
        return
    problems = _problems(tmp_path, text)
    assert any(expected in p for p in problems), problems
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if new.strip() in row)
    # Template problems are told at their card's line ('- name: ...'); every other at
    # its own line.
    rows = text.splitlines()
    cards = [i for i in range(1, line + 1) if rows[i - 1].startswith("      - name:")]
    card_line = cards[-1] if cards else 0
    assert any(f":{line}:" in p or f":{card_line}:" in p for p in problems), problems


def test_a_note_that_makes_no_card_says_which_field_to_fill(tmp_path: Path) -> None:
    text = VOCAB.replace("      Korean: 안녕하세요\n", "").replace("      English: hello\n", "")
    (problem,) = _problems(tmp_path, text)
    assert "this note makes no card" in problem and "fill 'Korean' or 'English'" in problem
    assert ":19: note 'hello'" in problem  # the line of its fields


def test_two_note_types_with_one_anki_name_are_refused(tmp_path: Path) -> None:
    _check(tmp_path, VOCAB, "a.yaml")
    other = VOCAB.replace("id: ko-vocab", "id: other").replace("Korean::Vocabulary", "Other")
    problems = _problems(tmp_path, other.replace("id: hello", "id: hi"))
    assert any("has the Anki name 'Korean vocabulary' of note type 'vocab'" in p for p in problems)


def test_a_cloze_note_type_makes_a_card_per_deletion(tmp_path: Path) -> None:
    text = """\
deck: C
id: c
note_types:
  type-in:
    kind: cloze
    fields: [Text, Source]
    cards:
      - front: "{{cloze:Text}}{{type:cloze:Text}}"
        back: "{{cloze:Text}}<br>{{type:cloze:Text}}<br>{{Source}}"
notes:
  - id: n
    type: type-in
    fields: {Text: "{{c1::Seoul}} is in {{c2::Korea}}", Source: atlas}
"""
    (deck,) = (rd.deck for rd in _check(tmp_path, text).decks)
    assert deck.notes[0].card_ordinals == (0, 1)
    problems = _problems(tmp_path, text.replace("{{c1::Seoul}} is in {{c2::Korea}}", "plain"))
    assert any("needs a deletion such as {{c1::...}}" in p for p in problems)


def test_a_deletion_in_a_field_shown_without_the_cloze_filter_is_refused(
    tmp_path: Path,
) -> None:
    """Anki shows it braces and all; in a cloze note type it still makes a card of its
    number, with a blank front where the cloze field has none (measured: c5 in Source)."""
    text = """\
deck: C
id: c
note_types:
  cl:
    kind: cloze
    fields: [Text, Source]
    cards:
      - front: "{{cloze:Text}}"
        back: "{{cloze:Text}}<br>{{Source}}"
notes:
  - id: n
    type: cl
    fields: {Text: "{{c1::Seoul}} is a city", Source: "see {{c5::atlas}}"}
"""
    (problem,) = _problems(tmp_path, text)
    assert ":13: note 'n': field 'Source' holds the cloze deletion '{{c5::atlas}}'" in problem
    assert "still makes card 5 of it" in problem and "put the deletion in 'Text'" in problem
    # In a note type of the standard kind: shown as typed, and written so on purpose.
    problems = _problems(tmp_path, VOCAB.replace("English: hello", "English: '{{c1::hello}}'"))
    assert any("field 'English' holds the cloze deletion '{{c1::hello}}'" in p for p in problems)
    _check(tmp_path, VOCAB.replace("English: hello", "English: '\\{{c1::hello}}'"))


def test_fields_may_be_per_language(tmp_path: Path) -> None:
    text = VOCAB.replace("id: ko-vocab\n", "id: ko-vocab\nlanguages: [en, ko]\n").replace(
        "      English: hello\n", "      English: {en: hello, ko: 안녕}\n"
    )
    text = text.replace("deck: Korean::Vocabulary", "deck: {en: Vocabulary, ko: 어휘}")
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "deck.yaml").write_text(text, encoding="utf-8")
    request = app.CheckRequest(app.Selection(sources=(cards,), media_dir=None, lang="all"))
    decks = [rd.deck for rd in app.check(request).decks]
    english = {d.lang: d.notes[0].fields[2] for d in decks}  # type: ignore[attr-defined]
    assert english == {"en": "hello", "ko": "안녕"}


def test_check_and_list_through_the_cli(tmp_path: Path, cli: Callable[..., Run]) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "vocab.yaml").write_text(VOCAB, encoding="utf-8")
    result = cli("check", cards)
    assert result.code == 0 and "2 cards" in result.out
    listed = cli("list", cards, "--json")
    assert '"vocab"' in listed.out


def test_the_schema_takes_the_issues_shape_and_refuses_a_misspelt_key() -> None:
    """Editors check card files with `deckbuilder schema`: the declaration and `fields:`
    are in it."""
    import jsonschema
    import yaml

    validator = jsonschema.Draft7Validator(app.schema())
    document = yaml.safe_load(VOCAB)
    assert list(validator.iter_errors(document)) == []
    document["note_types"]["vocab"]["cardz"] = []
    assert not validator.is_valid(document)
    document = yaml.safe_load(VOCAB)
    del document["notes"][0]["fields"]
    assert not validator.is_valid(document)


def test_a_misspelt_field_is_one_message(tmp_path: Path) -> None:
    """The note then fills no field, but it is told once: the misspelling."""
    text = VOCAB.replace("      Korean: 안녕하세요\n", "      Koreann: 안녕하세요\n")
    text = text.replace("      English: hello\n", "")
    (problem,) = _problems(tmp_path, text)
    assert "has no field 'Koreann'" in problem and "did you mean 'Korean'?" in problem


def test_a_note_of_a_note_type_with_problems_is_not_told_its_type_is_unknown(
    tmp_path: Path,
) -> None:
    """A declaration with a problem (here a field named twice) was left out, and then each
    of its notes was told "unknown note type 'vocab'; expected one of mcq, cloze, ...",
    though the file declares it: the declaration's problems are the whole story."""
    text = VOCAB.replace("[Korean, Romanization, English, Example]", "[Korean, English, English]")
    problems = _problems(tmp_path, text)
    assert not any("unknown note type" in p for p in problems), problems
    assert any("field names 'English' and 'English' are the same" in p for p in problems)


def test_a_note_of_a_broken_note_type_of_the_project_is_not_told_its_type_is_unknown(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "note-types"
    folder.mkdir()
    (folder / "vocab.yaml").write_text("fields: [Korean]\n", encoding="utf-8")
    text = "deck: A\nid: a\nnotes:\n  - id: n\n    type: vocab\n    fields: {Korean: x}\n"
    problems = _problems(tmp_path, text)
    assert not any("unknown note type" in p for p in problems), problems
    assert any("note type 'vocab': 'cards' is required" in p for p in problems), problems


def test_a_declarations_template_problems_are_told_with_its_other_problems(
    tmp_path: Path,
) -> None:
    """All problems at once: a template naming a field the note type lacks was told only
    once every other problem of the declaration (here a sort field it lacks) was fixed."""
    text = VOCAB.replace("sort_field: English", "sort_field: Meaning").replace(
        'front: "{{English}}"', 'front: "{{Englsh}}"'
    )
    problems = _problems(tmp_path, text)
    assert any("sort_field 'Meaning' is not one of its fields" in p for p in problems), problems
    assert any("names 'Englsh', not a field" in p for p in problems), problems


def test_a_templates_problem_is_told_at_its_card(tmp_path: Path) -> None:
    """Each card's problem at the line of that card, not all at the line of 'cards:': an
    editor then jumps to the template to fix."""
    text = VOCAB.replace("{{tts ko_KR:Korean}}", "{{tts korean:Korean}}").replace(
        'front: "{{English}}"', 'front: "{{Englsh}}"'
    )
    problems = _problems(tmp_path, text)
    lines = VOCAB.splitlines()
    recognition = lines.index("      - name: Recognition") + 1
    production = lines.index("      - name: Production") + 1
    assert [p.split(": note type")[0].rsplit(":", 1)[1] for p in problems] == [
        str(recognition),
        str(production),
    ], problems
    assert "'Englsh'" in problems[1]


def test_an_empty_list_of_cards_is_told_as_empty(tmp_path: Path) -> None:
    """`cards: []` was told "'cards' must be a list of cards ..., not a list"."""
    text = (
        VOCAB.split("    cards:\n", 1)[0] + "    cards: []\nnotes:\n" + VOCAB.split("notes:\n")[1]
    )
    (problem,) = _problems(tmp_path, text)
    assert "note type 'vocab': 'cards' is empty" in problem and "not a list" not in problem


def test_a_field_unknown_on_one_side_is_told_with_the_others_unclosed_conditional(
    tmp_path: Path,
) -> None:
    """A front Anki cannot read (a conditional never closed) hid the back's unknown field
    until the front was fixed: every problem of a card is told at once."""
    text = VOCAB.replace('front: "{{English}}"', 'front: "{{#English}}{{English}}"').replace(
        '{{FrontSide}}<hr id=answer>{{Korean}}"', '{{FrontSide}}<hr id=answer>{{Koran}}"'
    )
    problems = _problems(tmp_path, text)
    assert any("opens '{{#English}}' and never closes it" in p for p in problems), problems
    assert any("names 'Koran', not a field" in p for p in problems), problems


def test_a_notes_misspelt_field_is_told_with_its_note_types_template_problem(
    tmp_path: Path,
) -> None:
    """A note type refused for a template left its notes unread: a note's misspelt field
    was told only once the template was fixed. Its fields are right, so it is told now."""
    text = VOCAB.replace('front: "{{English}}"', 'front: "{{#English}}{{English}}"').replace(
        "      English: hello\n", "      Englsh: hello\n"
    )
    problems = _problems(tmp_path, text)
    assert any("opens '{{#English}}' and never closes it" in p for p in problems), problems
    assert any(
        "note 'hello': note type 'vocab' has no field 'Englsh'" in p
        and "did you mean 'English'?" in p
        for p in problems
    ), problems
    assert not any("unknown note type" in p for p in problems), problems


def test_a_notes_misspelt_field_is_told_with_its_shared_note_types_problem(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "note-types"
    folder.mkdir()
    (folder / "vocab.yaml").write_text(
        'fields: [Korean, English]\ncards:\n  - {front: "{{#Korean}}{{Korean}}", '
        'back: "{{English}}"}\n',
        encoding="utf-8",
    )
    text = "deck: A\nid: a\nnotes:\n  - id: n\n    type: vocab\n    fields: {Koran: x}\n"
    problems = _problems(tmp_path, text)
    assert any("never closes it" in p for p in problems), problems
    assert any("has no field 'Koran'" in p for p in problems), problems


def test_two_typed_answers_on_one_side_are_a_warning_at_the_card(tmp_path: Path) -> None:
    """Anki renders '{{type:A}} {{type:B}}' as [[type:A]] [[type:B]], and its reviewers
    (desktop's typeAnsQuestionFilter, AnkiDroid's) ask for A alone and put A's box in place
    of both: B is never checked. It passed check without a word; it is not refused, as
    Anki takes such a note type (an imported one carries it)."""
    text = VOCAB.replace(
        'front: "{{English}}"', 'front: "{{English}} {{type:Korean}} {{type:Example}}"'
    )
    production = VOCAB.splitlines().index("      - name: Production") + 1
    warnings = _check(tmp_path, text).warnings
    assert [w.code for w in warnings] == ["typed-answers"]
    assert [str(w) for w in warnings] == [
        f"{tmp_path / 'cards' / 'deck.yaml'}:{production}: note type "
        "'vocab': the front of card 2 ('Production') has '{{type:Korean}}' and "
        "'{{type:Example}}'; Anki asks for one typed answer a card, the first's, and shows its "
        "box in place of each (make a card for each field to type)"
    ]


def test_two_typed_answers_in_a_note_type_of_the_project_are_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "note-types"
    folder.mkdir()
    (folder / "pair.yaml").write_text(
        "fields: [A, B]\ncards:\n  - name: Both\n"
        '    front: "{{type:A}}{{type:B}}"\n    back: "{{type:A}}{{type:B}}"\n',
        encoding="utf-8",
    )
    text = "deck: P\nid: p\nnotes:\n  - {id: a, type: pair, fields: {A: x, B: y}}\n"
    result = _check(tmp_path, text)
    (warning,) = result.warnings
    assert (warning.file, warning.line) == (str(folder / "pair.yaml"), 3)
    assert "the front and the back of card 1 ('Both') have '{{type:A}}' and" in warning.message
