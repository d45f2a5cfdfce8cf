"""``source_url:`` (issue 43, item 6): each card's back links to its card file, labelled
with the note's id; off by default, it never changes a note's identity, and it names no
line, so that no build updates a note in Anki only because notes above it moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.errors import DeckError
from deckbuilder.render.deck import render_deck, strip_source_link
from tests.app_calls import build_packages
from tests.cardfile.loading import load_deck
from tests.conftest import import_package

URL = "https://github.com/me/decks/blob/main/cards"
CARD_FILE = f"""\
deck: Cells
id: cells
source_url: {URL}
notes:
  - id: powerhouse
    question: Which organelle makes most of a cell's ATP?
    choices: [Mitochondrion, Ribosome]
    answer: A
  - id: membrane
    text: The cell membrane is a {{{{c1::phospholipid}}}} bilayer.
  - id: term
    front: Activation
    back: A layer's output.
  - id: both-ways
    front: uno
    back: one
    reverse: true
  - id: nuclei
    type: typed
    question: How many nuclei does a red blood cell have?
    answer: none
"""
# The field each kind's link goes in: the one its back shows and its front does not.
BACK_FIELD = {"powerhouse": 3, "membrane": 1, "term": 1, "both-ways": 1, "nuclei": 2}


def _card_file(tmp_path: Path, text: str = CARD_FILE) -> Path:
    path = tmp_path / "cards" / "cells.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_each_back_links_to_the_card_file_labelled_with_the_note_id(tmp_path: Path) -> None:
    rd = render_deck(load_deck(_card_file(tmp_path)))
    for rn in rd.notes:
        index = BACK_FIELD[rn.note.id]
        link = f'<a href="{URL}/cells.yaml#:~:text=id%3A%20{rn.note.id}">{rn.note.id}</a></div>'
        assert rn.fields[index].endswith(link), rn.fields[index]
        assert all(link not in field for i, field in enumerate(rn.fields) if i != index)
        assert "db-source" not in "".join(strip_source_link(rn.fields))


def test_it_is_off_by_default(tmp_path: Path) -> None:
    path = _card_file(tmp_path, CARD_FILE.replace(f"source_url: {URL}\n", ""))
    rd = render_deck(load_deck(path))
    assert not any("db-source" in field for rn in rd.notes for field in rn.fields)


def test_moving_notes_changes_no_link_and_no_identity(tmp_path: Path) -> None:
    """A note's line is not in its link: notes added above it leave its fields as they
    were, and the build counts it unchanged (Anki is not asked to update it)."""
    path = _card_file(tmp_path)
    first = build_packages([path], tmp_path / "out", timestamp=1_800_000_000, media_dir=None)[0]
    moved = CARD_FILE.replace(
        "notes:\n", "notes:\n  - id: new-one\n    front: Ribosome\n    back: Makes proteins.\n"
    )
    path.write_text(moved, encoding="utf-8")
    second = build_packages([path], tmp_path / "out", timestamp=1_800_000_100, media_dir=None)[0]
    assert second.changes.added == ("new-one",)
    assert set(second.changes.unchanged) == set(BACK_FIELD)
    fields = {rn.note.id: rn.fields for rn in first.rendered.notes}
    assert all(
        fields[rn.note.id] == rn.fields for rn in second.rendered.notes if rn.note.id in fields
    )


@pytest.mark.parametrize(
    "url",
    ["ftp://example.org/cards", "https://exa mple.org", 'https://x.org/"><script>', "example.org"],
)
def test_a_source_url_that_is_no_web_address_is_refused(tmp_path: Path, url: str) -> None:
    path = _card_file(tmp_path, CARD_FILE.replace(URL, repr(url)))
    with pytest.raises(DeckError, match="'source_url' must be a web address"):
        load_deck(path)


@pytest.mark.anki
def test_anki_shows_the_link_on_the_back_only(tmp_path: Path, collection: object) -> None:
    """Checked with the real backend: the link is on every card's back, never on a front
    (the reversed card's front hides the Back field's link)."""
    path = _card_file(tmp_path)
    (result,) = build_packages([path], tmp_path / "out", timestamp=1_800_000_000, media_dir=None)
    log = import_package(collection, result.path)
    assert len(log.new) == 5  # type: ignore[attr-defined]
    col = collection
    for cid in col.find_cards("deck:Cells"):  # type: ignore[attr-defined]
        card = col.get_card(cid)  # type: ignore[attr-defined]
        question, answer = card.question(), card.answer()
        assert f"{URL}/cells.yaml" in answer
        shown_front = question.replace(
            "<style>.db-reverse .db-front .db-source { display: none; }</style>", ""
        )
        if "db-reverse" in question:  # the reversed card: its front holds Back, hidden
            assert "display: none" in question
        else:
            assert "db-source" not in shown_front
