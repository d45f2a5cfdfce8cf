"""The keys table of the documentation is made from the declaration of the card format,
and every example of docs/card-format.md loads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    CHOICE,
    DECK,
    FIELDS,
    NOTE_TYPE_DECLARATION,
    NOTE_TYPES,
    NUMBER,
    STUDY,
)
from deckbuilder.cardfile.reader import load_deck_languages
from tests.cardfile.keys_table import MARKERS, keys_table
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "card-format.md"


def table_in(text: str) -> str | None:
    """The text between the keys table's markers, or None when there are none."""
    start, end = MARKERS
    if start not in text:
        return None
    return text.split(start, 1)[1].split(end, 1)[0].strip("\n") + "\n"


@pytest.mark.parametrize(
    ("page", "full"), [(PAGE, True), (ROOT / "README.md", False)], ids=["card-format.md", "README"]
)
def test_the_keys_table_is_the_one_made_from_the_declaration(page: Path, full: bool) -> None:
    """Requirement (issue 31, item 5; issue 32, item 5): a key added to the declaration
    shows in the docs. The card-format page holds the whole table, the README the keys of
    decks and notes."""
    found = table_in(page.read_text(encoding="utf-8"))
    assert found == keys_table(full=full), (
        "run: python -c 'from tests.cardfile.keys_table import keys_table; print(keys_table())'"
    )


def test_the_table_names_every_declared_key() -> None:
    table = keys_table()
    groups = (
        DECK, STUDY, CHOICE, NUMBER, NOTE_TYPE_DECLARATION, CARD_TEMPLATE, (FIELDS,),
        *(t.keys for t in NOTE_TYPES),
    )  # fmt: skip
    for key in (key for keys in groups for key in keys):
        assert f"`{key.name}`" in table


@pytest.mark.parametrize(
    "example",
    [
        m.group(1)
        for m in re.finditer(
            r"```yaml\n(deck:.*?)\n```\n", PAGE.read_text(encoding="utf-8"), re.DOTALL
        )
    ],
)
def test_every_card_file_on_the_page_loads(tmp_path: Path, example: str) -> None:
    """The page's examples are card files that check passes."""
    path = tmp_path / "example.yaml"
    path.write_text(example + "\n", encoding="utf-8")
    assert load_deck_languages(path, lang="all")
