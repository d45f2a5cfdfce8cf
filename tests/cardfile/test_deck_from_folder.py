"""The deck from the folder (issue 44, item 4): a card file without ``deck:`` is named
after its folders below ``cards/`` and its own name, and without ``id:`` takes its file
name made an id."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.cardfile.reader import load_decks
from deckbuilder.errors import DeckError
from tests.cardfile.loading import load_deck

NOTES = "notes:\n  - id: a\n    front: f\n    back: b\n"


def _card_file(root: Path, relative: str, header: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + NOTES, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("relative", "name", "key"),
    [
        ("cards/Biology/Cells.yaml", "Biology::Cells", "cells"),
        ("cards/Cells.yaml", "Cells", "cells"),
        (
            "cards/Medicine/Cardiology/Heart Failure.yaml",
            "Medicine::Cardiology::Heart Failure",
            "heart-failure",
        ),
        ("cards/생물/세포.yaml", "생물::세포", "sepo"),
        (
            "project/cards/ML Systems/gradient_checkpointing.yml",
            "ML Systems::gradient_checkpointing",
            "gradient_checkpointing",
        ),
        ("elsewhere/Cells.yaml", "Cells", "cells"),  # outside a cards folder: its name
    ],
)
def test_a_card_file_without_deck_or_id_takes_them_from_where_it_is(
    tmp_path: Path, relative: str, name: str, key: str
) -> None:
    deck = load_deck(_card_file(tmp_path, relative))
    assert (deck.name, deck.key) == (name, key)


def test_a_relative_path_inside_cards_is_named_from_the_whole_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _card_file(tmp_path, "cards/Biology/Cells.yaml")
    monkeypatch.chdir(tmp_path / "cards")
    assert load_deck(Path("Biology/Cells.yaml")).name == "Biology::Cells"


def test_what_the_file_says_wins(tmp_path: Path) -> None:
    deck = load_deck(_card_file(tmp_path, "cards/Biology/Cells.yaml", "deck: Mine\nid: own\n"))
    assert (deck.name, deck.key) == ("Mine", "own")


def test_each_language_gets_the_folder_name_with_its_code(tmp_path: Path) -> None:
    path = _card_file(tmp_path, "cards/Biology/Cells.yaml", "languages: [ko, en]\n")
    decks = load_decks([path], lang="all")
    assert [(d.name, d.key) for d in decks] == [
        ("Biology::Cells (ko)", "cells.ko"),
        ("Biology::Cells (en)", "cells.en"),
    ]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("cards/ Biology /Cells.yaml", "which cannot be a deck name"),
        ("cards/Biology/con.yaml", "the file name 'con' cannot be the deck id"),
        ("cards/Biology/###.yaml", "the file name '###' gives no deck id; add 'id:'"),
    ],
)
def test_a_name_anki_would_not_keep_asks_for_deck_or_id(
    tmp_path: Path, relative: str, expected: str
) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(_card_file(tmp_path, relative))
    (problem,) = info.value.problems
    assert expected in problem.message, problem


def test_an_empty_deck_key_says_it_may_be_left_out(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(_card_file(tmp_path, "cards/Biology/Cells.yaml", "deck:\n"))
    (problem,) = info.value.problems
    assert problem.line == 1
    assert problem.message == (
        "'deck' is empty: write the deck's name, or leave 'deck' out to name the deck after "
        "the card file's folders and name (Biology::Cells)"
    )


def test_two_files_of_one_name_in_two_folders_are_told_to_differ(tmp_path: Path) -> None:
    one = _card_file(tmp_path, "cards/Biology/Cells.yaml")
    _card_file(tmp_path, "cards/Histology/Cells.yaml")
    with pytest.raises(DeckError) as info:
        load_decks([tmp_path / "cards"])
    (problem,) = info.value.problems
    assert "deck id 'cells' is also used by" in problem.message and str(one) in problem.message
