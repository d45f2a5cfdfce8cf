"""``reverse: true`` on a basic note makes a second card asking the back, as Anki's
"Basic (and reversed card)" does, with a note type of its own: deckbuilder's Basic keeps
its id, its one template and its notes' identities."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.anki.notetypes import note_type
from deckbuilder.model import BasicNote, NoteKind
from deckbuilder.render.deck import render_deck
from tests.app_calls import build_packages
from tests.cardfile.loading import load_deck
from tests.conftest import import_package

CARD_FILE = """\
deck: Words
id: words
notes:
  - id: one
    front: uno
    back: one
  - id: both
    front: dos
    back: two
    reverse: true
"""


def _deck(tmp_path: Path) -> Path:
    path = tmp_path / "words.yaml"
    path.write_text(CARD_FILE, encoding="utf-8")
    return path


def test_reverse_makes_two_cards_with_their_own_note_type(tmp_path: Path) -> None:
    deck = load_deck(_deck(tmp_path))
    one, both = deck.notes
    assert isinstance(both, BasicNote) and both.reverse and both.card_ordinals == (0, 1)
    assert one.card_ordinals == (0,)
    rd = render_deck(deck)
    assert rd.notes[0].spec is note_type(NoteKind.BASIC)
    assert rd.notes[1].spec.kind is NoteKind.BASIC_REVERSED
    assert rd.notes[1].spec.id != note_type(NoteKind.BASIC).id
    assert deck.card_count == 3


def test_basic_note_type_keeps_its_id_and_one_template() -> None:
    spec = note_type(NoteKind.BASIC)
    assert spec.id == 2152878658763882 and spec.more_templates == ()


def test_reverse_must_be_true_or_false(tmp_path: Path) -> None:
    from deckbuilder.errors import DeckError

    path = _deck(tmp_path)
    path.write_text(CARD_FILE.replace("reverse: true", "reverse: sometimes"), encoding="utf-8")
    with pytest.raises(DeckError, match="'reverse' must be true or false"):
        load_deck(path)


@pytest.mark.anki
def test_anki_makes_both_cards(tmp_path: Path, collection: object) -> None:
    (result,) = build_packages([_deck(tmp_path)], tmp_path / "out", timestamp=1_700_000_000)
    import_package(collection, result.path)
    col = collection
    (nid,) = col.find_notes("dos")  # type: ignore[attr-defined]
    cards = col.get_note(nid).cards()  # type: ignore[attr-defined]
    assert [card.ord for card in cards] == [0, 1]
    assert "two" in cards[1].question() and "dos" not in cards[1].question()
    assert len(col.find_cards("")) == 3  # type: ignore[attr-defined]


@pytest.mark.anki
def test_preview_page_shows_each_card_as_anki_does(tmp_path: Path, collection: object) -> None:
    """The page's side documents of every card hold what Anki renders for it: the
    reversed card asks the back."""
    from deckbuilder.preview.page import preview_page
    from deckbuilder.preview.report import preview_deck
    from deckbuilder.preview.settings import settings_for
    from tests.preview.pages import side_contents

    (result,) = build_packages([_deck(tmp_path)], tmp_path / "out", timestamp=1_700_000_000)
    import_package(collection, result.path)
    col = collection
    anki = {}
    for cid in col.find_cards(""):  # type: ignore[attr-defined]
        card = col.get_card(cid)  # type: ignore[attr-defined]
        style = f"<style>{card.note_type()['css']}</style>"
        anki[(card.note()["Front"], card.ord)] = (
            card.question().removeprefix(style),
            card.answer().removeprefix(style),
        )
    rd = render_deck(load_deck(_deck(tmp_path)))
    deck = rd.deck
    chosen = settings_for(deck)
    text = preview_page(rd, preview_deck(deck, chosen, 30, 0))
    fronts = {rn.note.id: rn.fields[0] for rn in rd.notes}
    shown = {(fronts[note], o): (front, back) for note, o, front, back in side_contents(text)}
    assert shown.keys() == anki.keys()
    for key, sides in anki.items():
        assert shown[key] == sides, key


def test_the_preview_page_labels_the_reversed_card(tmp_path: Path) -> None:
    """Issue 44: the page labelled a reversed card "basic", with no "card 2 (reverse)"."""
    from deckbuilder.preview.page import preview_page
    from deckbuilder.preview.report import preview_deck
    from deckbuilder.preview.settings import settings_for
    from tests.preview.pages import page_data

    rd = render_deck(load_deck(_deck(tmp_path)))
    chosen = settings_for(rd.deck)
    data = page_data(preview_page(rd, preview_deck(rd.deck, chosen, 30, 0)))
    labels = {(data["notes"][card[0]][0], card[1]): card[2] for card in data["cards"]}
    assert labels == {("one", 0): "", ("both", 0): "", ("both", 1): "card 2 (reverse)"}
