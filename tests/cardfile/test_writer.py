"""The writer: a model deck -> card-file text that loads back into the same deck."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.writer import card_file_text
from deckbuilder.model import BasicNote, Deck, McqNote, StudySettings, TypedAnswer, TypedNote
from tests.cardfile.decks import decks, without_lines
from tests.cardfile.loading import deck_problems, load_deck
from tests.conftest import DATA, ROOT

# In a folder of this process's own: a fixed name was shared by every run on the machine.
SOURCE = Path(tempfile.mkdtemp(prefix="deckbuilder-writer-test-")) / "deck.yaml"
atexit.register(shutil.rmtree, SOURCE.parent, True)


def reloaded(deck: Deck, header: tuple[str, ...] = ()) -> Deck:
    deck.source.parent.mkdir(parents=True, exist_ok=True)
    deck.source.write_text(card_file_text(deck, header), encoding="utf-8")
    return load_deck(deck.source, lang=deck.lang or None)


def assert_same(written: Deck, read: Deck) -> None:
    assert without_lines(read) == without_lines(written)
    assert [n.lint_ignored for n in read.notes] == [n.lint_ignored for n in written.notes]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=decks(SOURCE), header=st.lists(st.text(max_size=20), max_size=2).map(tuple))
def test_a_written_deck_loads_back_equal_and_passes_the_checks(
    deck: Deck, header: tuple[str, ...]
) -> None:
    """Requirement (issue 31, item 5): card_file_text(deck) loads back into the deck it
    was written from (fields, kinds, ids, guids, tags, lint opt-outs, study settings;
    line numbers aside), and what loads passes deck_problems."""
    assert deck_problems(deck) == []
    read = reloaded(deck, header)
    assert_same(deck, read)
    assert deck_problems(read) == []


def test_the_bundled_and_test_decks_survive_a_round_trip(tmp_path: Path) -> None:
    """Real decks, in each language they have: loaded, written (one language, which the
    written file then declares alone), loaded again: equal."""
    for source in (ROOT / "cards" / "gradient-checkpointing.yaml", DATA / "mixed.yaml"):
        for lang in ("ko", "en") if "gradient" in source.name else (None,):
            deck = load_deck(source, lang=lang)
            copy = replace(deck, source=tmp_path / source.name, languages=(lang,) if lang else ())
            assert_same(copy, reloaded(copy))


def test_the_file_reads_like_one_written_by_hand() -> None:
    """Keys in the declared order, defaults left out, a blank line between notes, the
    header as comments, multi-line text as a block, numbers without quotes."""
    deck = Deck(
        key="planets",
        name="Space::Planets",
        source=SOURCE,
        label_language="en",
        study=StudySettings(new_per_day=5, learning_steps=(60.0, 86400.0)),
        notes=(
            McqNote(
                id="red",
                line=0,
                question="Which planet is red?",
                choices=("Mars", "Venus", "None of the above"),
                answer=(0,),
                feedback=("Iron oxide.", "", ""),
                pinned=(2,),
                tags=("easy",),
                guid="a#b:c",
            ),
            BasicNote(id="sun", line=0, front="The Sun", back="A star,\nquite near.", reverse=True),
            TypedNote(
                id="pi",
                line=0,
                question="Pi?",
                answers=(TypedAnswer(low=3.1411, high=3.1421, shown="3.1416 ± 0.0005"),),
            ),
        ),
    )
    assert card_file_text(deck, ["Made by hand.", "Keep the ids."]) == (
        "# Made by hand.\n"
        "# Keep the ids.\n"
        "deck: Space::Planets\n"
        "id: planets\n"
        "label_language: en\n"
        "study:\n"
        "  new_per_day: 5\n"
        "  learning_steps: [1m, 1d]\n"
        "notes:\n"
        "  - id: red\n"
        "    guid: a#b:c\n"
        "    type: mcq\n"
        "    question: Which planet is red?\n"
        "    choices:\n"
        "    - text: Mars\n"
        "      feedback: Iron oxide.\n"
        "    - Venus\n"
        "    - text: None of the above\n"
        "      pin: true\n"
        "    answer: A\n"
        "    tags: [easy]\n"
        "\n"
        "  - id: sun\n"
        "    type: basic\n"
        "    front: The Sun\n"
        "    back: |-\n"
        "      A star,\n"
        "      quite near.\n"
        "    reverse: true\n"
        "\n"
        "  - id: pi\n"
        "    type: typed\n"
        "    question: Pi?\n"
        "    answer: {number: 3.1416, tolerance: 0.0005}\n"
    )
