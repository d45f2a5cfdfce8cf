"""Planning an import in memory: each note rendered once, nothing written until the plan
is written, and a media file nobody has found by the renderer itself."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import deckbuilder.importers.plan
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.importers import ImportOptions, ImportPlan, plan_import, read_text_source
from deckbuilder.importers.base import Tally
from deckbuilder.model import Deck, NoteKind
from deckbuilder.render.deck import RenderedDeck, render_deck

# One question that renders, one naming a picture nobody has, one naming a picture
# outside the project (left out), one doing both (left out too).
QUIZ = """\
1. Which one renders?
A. this one
B. that one
Answer: A

2. What is shown in ![fig](missing.png)?
A. a cat
B. a dog
Answer: B

3. What is shown in ![fig](../outside.png)?
A. a cat
B. a dog
Answer: A

4. And in ![fig](gone.png) beside ![fig](../outside.png)?
A. a cat
B. a dog
Answer: A
"""


def _plan(project: Path) -> ImportPlan:
    read = read_text_source(QUIZ, Path("q.txt"), "quiz")
    return plan_import(read, ImportOptions(out=project / "cards" / "q.yaml"))


def test_each_note_is_rendered_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Planning rendered the whole deck again after a missing picture was given a
    stand-in, and again after each note that failed was left out: the note that renders
    was rendered three times, and the Markdown of each failing note once more to find
    the media it names."""
    rendered: Counter[str] = Counter()

    def counting(
        deck: Deck, note_types: Mapping[NoteKind, NoteTypeSpec] | None = None, **flags: Any
    ) -> RenderedDeck:
        rendered.update(note.id for note in deck.notes)
        return render_deck(deck, note_types, **flags)

    monkeypatch.setattr(deckbuilder.importers.plan, "render_deck", counting)
    plan = _plan(tmp_path)
    assert [len(deck.notes) for deck in plan.decks] == [2]
    assert len(rendered) == 4 and set(rendered.values()) == {1}


def test_planning_makes_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A picture nobody has was learnt by writing an empty stand-in for it into a
    temporary folder and rendering again; the renderer now says which are missing."""

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("planning an import made a temporary folder")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", refused)
    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    monkeypatch.chdir(tmp_path)
    plan = _plan(tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert list(plan.files) == [tmp_path / "cards" / "q.yaml"]


def test_a_missing_picture_is_listed_once_and_only_for_a_note_kept(tmp_path: Path) -> None:
    """The stand-in was made for every failing note's media, so a note left out for
    another reason still put its missing picture under missing_media, with a warning."""
    plan = _plan(tmp_path)
    text = plan.files[tmp_path / "cards" / "q.yaml"].decode("utf-8")
    assert "missing_media: [missing.png]" in text
    missing = [p for p in plan.diagnostics if "is in neither the source nor" in p.message]
    assert [(p.line, "'missing.png'" in p.message) for p in missing] == [(6, True)]
    assert [s.line for s in plan.skipped] == [11, 16]
    assert all("leaves the project" in s.reason for s in plan.skipped)


def test_a_note_left_out_holds_no_media_name_against_the_others(tmp_path: Path) -> None:
    """A note left out is rendered as if it were not there: its picture's name does not
    make another note's picture, named the same but for case, a collision."""
    media = tmp_path / "media"
    media.mkdir()
    (media / "Pic.png").write_bytes(b"one picture")
    (media / "pic.png").write_bytes(b"another picture")
    quiz = (
        "1. Is ![fig](Pic.png) beside ![fig](../outside.png)?\nA. yes\nB. no\nAnswer: A\n\n"
        "2. Is ![fig](pic.png) the other?\nA. yes\nB. no\nAnswer: A\n"
    )
    read = read_text_source(quiz, Path("q.txt"), "quiz")
    plan = plan_import(read, ImportOptions(out=tmp_path / "q.yaml", media_dir=media))
    assert [note.line for note in plan.decks[0].notes] == [6]
    assert [s.line for s in plan.skipped] == [1]


def test_a_note_type_named_not_imported_is_not_taken_for_one_left_out(tmp_path: Path) -> None:
    """Note types left out were found by searching the report's lines for the words
    'not imported', which a note type's own name may hold."""
    text = "#separator:tab\n#notetype:Words not imported before\nhund\tdog\n"
    read = read_text_source(text, Path("w.txt"), "anki-text")
    plan = plan_import(read, ImportOptions(out=tmp_path / "w.yaml"))
    assert read.report == [Tally("Words not imported before", 1, "basic notes")]
    assert all(t.imported for t in read.report) and plan.decks[0].notes
