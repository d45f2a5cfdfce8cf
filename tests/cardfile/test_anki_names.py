"""Tag and deck names reach Anki as written, or check refuses them with the fix.

Anki's rules, from rslib: ``decks/name.rs`` (``normalized_deck_name_component``: white
space and ':' trimmed from each part between '::', an empty part named 'blank'),
``tags/register.rs`` (``normalized_tag_name_component``: an empty part named 'blank';
a tag matching a registered one without case takes its spelling, its parents too) and
``tags/mod.rs`` (a space separates two tags). Each rule here is measured with the real
backend: what the loader accepts, Anki keeps; what Anki would change, the loader refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.cardfile.reader import load_decks
from deckbuilder.errors import DeckError
from tests.cardfile.loading import load_deck

DECK_NAMES = [
    "Biology::Cells",
    "Biology :: Cells",
    "a:::b",
    "A::::B",
    "x::",
    "::y",
    "a::\u3000::b",
    "x\u00a0::y",
    'say "hi"',
    "a: :b",
    "Space::Planets",
]
TAGS = ["x::", "::y", "a::::b", "a::b", "x::y::", "a:b", 'a"b', "ß", "tag_1", "a::\u200b::b"]


def _problems(path: Path) -> list[str]:
    try:
        load_deck(path)
    except DeckError as exc:
        return [p.message for p in exc.problems]
    return []


def _card_file(tmp_path: Path, name: str = "deck.yaml", **header: Any) -> Path:
    text = "".join(f"{key}: {json.dumps(value)}\n" for key, value in header.items())
    path = tmp_path / name
    path.write_text(f"{text}notes:\n  - {{id: a, front: f, back: b}}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", DECK_NAMES)
def test_a_deck_name_check_accepts_is_the_name_anki_keeps(
    tmp_path: Path, collection: Any, name: str
) -> None:
    """Deck names 'Biology :: Cells' and 'a:::b' passed check and Anki renamed them
    ('Biology::Cells', 'a::b'); 'A::::B' became 'A::blank::B' (issue 37, item 7)."""
    kept = collection.decks.name(collection.decks.id(name))
    found = _problems(_card_file(tmp_path, deck=name))
    if kept == name:
        assert found == []
    else:
        assert len(found) == 1 and "deck name" in found[0], found
        assert "write '" in found[0] or "empty part" in found[0]


@pytest.mark.parametrize("tag", TAGS)
def test_a_tag_check_accepts_is_the_tag_anki_keeps(
    tmp_path: Path, collection: Any, tag: str
) -> None:
    """Tags 'x::', '::y' and 'a::::b' passed check and Anki stored 'x::blank',
    'blank::y' and 'a::blank::b' (issue 37, item 7): refused with the tag to write."""
    note = collection.new_note(collection.models.by_name("Basic"))
    note["Front"] = "f"
    note.tags = [tag]
    collection.add_note(note, 1)
    (kept,) = collection.get_note(note.id).tags
    found = _problems(_card_file(tmp_path, deck="D", tags=[tag]))
    if "\u200b" in tag:  # kept by Anki, and shows an empty part: refused all the same
        assert kept == tag and len(found) == 1 and "shows nothing: write 'a::b'" in found[0]
    elif kept == tag:
        assert found == []
    else:
        assert len(found) == 1 and "'blank'" in found[0] and "write '" in found[0], found


@pytest.mark.parametrize(
    ("first", "second"), [("Foo", "foo"), ("ß", "SS"), ("A::x", "a::y"), ("tag", "ta\u200bg")]
)
def test_tags_anki_takes_for_one_are_refused(
    tmp_path: Path, collection: Any, first: str, second: str
) -> None:
    """Tags 'Foo' and 'foo' passed as two and Anki made them one (it matches tags without
    case, with full case folding: 'ß' is 'SS'); two that differ by a zero-width space
    stay two in Anki and look one. The second is refused, naming the first and its line."""
    for tag in (first, second):
        note = collection.new_note(collection.models.by_name("Basic"))
        note["Front"] = "f"
        note.tags = [tag]
        collection.add_note(note, 1)
    if "\u200b" not in second and "::" not in first:
        assert collection.tags.all() == [first]
    path = tmp_path / "deck.yaml"
    path.write_text(
        f"deck: D\ntags: [{json.dumps(first)}]\nnotes:\n"
        f"  - {{id: a, front: f, back: b, tags: [{json.dumps(second)}]}}\n",
        encoding="utf-8",
    )
    (found,) = _problems(path)
    assert "(line 2)" in found and ("differ only in case" in found or "invisible" in found)


def test_deck_names_anki_takes_for_one_are_refused(tmp_path: Path, collection: Any) -> None:
    """Two card files with decks 'Bio' and 'bio' built two packages that Anki imports
    into one deck (it matches deck names without case)."""
    assert collection.decks.id("Bio") == collection.decks.id("bio")
    _card_file(tmp_path, "one.yaml", deck="Bio")
    _card_file(tmp_path, "two.yaml", deck="bio::Cells")
    with pytest.raises(DeckError) as info:
        load_decks([tmp_path])
    (problem,) = info.value.problems
    assert problem.message == (
        f"deck name 'bio::Cells' and 'Bio' ({tmp_path / 'one.yaml'}) differ only in case; "
        "Anki spells them alike: write 'Bio::Cells'"
    )


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"deck": "D", "id": "con"}, "deck id 'con' is the name of a device on Windows"),
        ({"deck": "D", "id": "lpt1"}, "deck id 'lpt1' is the name of a device on Windows"),
        ({"deck": "D", "id": "a" * 101}, "is 101 characters long; the limit is 100"),
        ({"deck": "D", "id": "collection"}, "Anki desktop takes for a whole collection"),
        ({"deck": "D", "id": "backup-2026"}, "Anki desktop takes for a whole collection"),
    ],
)
def test_deck_ids_that_name_no_file_everywhere_are_refused(
    tmp_path: Path, header: dict[str, str], expected: str
) -> None:
    """A deck id 'con' wrote con.apkg (a device on Windows), and one too long for a file
    name gave a raw OS error at build (issue 37, item 7): refused with the limit. Anki
    desktop (aqt/importing.py) offers to replace the whole collection with a package named
    collection.apkg or backup-*.apkg."""
    (found,) = _problems(_card_file(tmp_path, **header))
    assert expected in found


def test_a_file_named_for_a_device_needs_an_id(tmp_path: Path) -> None:
    """A card file 'nul.yaml' without 'id:' would take the deck id 'nul'."""
    (found,) = _problems(_card_file(tmp_path, "nul.yaml", deck="D"))
    assert found.startswith("the file name 'nul' cannot be the deck id (deck id 'nul' is the")
    assert "for example id: my-deck" in found


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        ('{id: a, front: "\\u200b\\ufeff", back: b}', "'front' shows nothing"),
        ('{id: a, front: "&#8203;<br>", back: b}', "'front' shows nothing"),
        (
            '{id: a, question: q, choices: [Mars, "Ma\\u200brs"], answer: A}',
            "choice B repeats choice A",
        ),
        ('{id: a, text: "{{c1::\\u200b}} x"}', "c1"),
    ],
)
def test_invisible_characters_count_as_nothing(tmp_path: Path, note: str, expected: str) -> None:
    """A front of only U+200B and U+FEFF passed as not empty, and two choices that differ
    by a zero-width space passed as different (issue 37, item 7)."""
    path = tmp_path / "deck.yaml"
    path.write_text(f"deck: D\nnotes:\n  - {note}\n", encoding="utf-8")
    found = _problems(path)
    assert any(expected in p for p in found), found


def test_names_in_messages_are_shortened_and_show_invisible_characters(tmp_path: Path) -> None:
    """A 5,000-character tag was echoed whole; invisible characters in a quoted name
    showed as nothing."""
    (found,) = _problems(_card_file(tmp_path, deck="D", tags=["x" * 5000 + " y"]))
    assert "… (5,002 characters)" in found and len(found) < 200
    (found,) = _problems(_card_file(tmp_path, deck="D", tags=["a\u200b b"]))
    assert "'a<U+200B> b'" in found


def test_a_long_note_id_is_shortened_in_every_message(tmp_path: Path) -> None:
    """A 5,000-character note id was printed whole before each of its problems."""
    path = tmp_path / "deck.yaml"
    path.write_text(f"deck: D\nnotes:\n  - {{id: {'a' * 5000}, front: '', back: b}}\n")
    with pytest.raises(DeckError) as info:
        load_deck(path)
    (shown,) = (str(p) for p in info.value.problems)
    assert f"note '{'a' * 60}… (5,000 characters)': 'front' is empty" in shown
    assert len(shown) < 300


def test_tags_that_differ_only_in_case_across_card_files_are_refused(tmp_path: Path) -> None:
    """Anki's tag register is the whole collection's (rslib tags/register.rs): a tag 'ML'
    in one deck and 'ml' in another, imported into one collection, come out spelt alike,
    so the second deck's cards do not show the tag as written (issue 37, item 7)."""
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "a.yaml").write_text(
        "deck: A\ntags: [ML]\nnotes:\n  - {id: a, front: f, back: b}\n", encoding="utf-8"
    )
    (cards / "b.yaml").write_text(
        "deck: B\nnotes:\n  - {id: b, front: f, back: b, tags: [ml]}\n", encoding="utf-8"
    )
    with pytest.raises(DeckError) as caught:
        load_decks([cards])
    (problem,) = caught.value.problems
    assert problem.file == str(cards / "b.yaml")
    assert "tag 'ml' and 'ML'" in problem.message and "differ only in case" in problem.message
