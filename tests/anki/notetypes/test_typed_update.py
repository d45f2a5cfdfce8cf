"""Learners who have typed-answer notes get the {{type:Answers}} templates (issue 36) on a
normal import: measured with the real Anki backend.

The note type keeps its id and its fields; only its templates and CSS change. Anki replaces
a note type's templates in place when the package's note type is newer (the import
dialog's "Update note types: if newer", its default) without "Merge note types", and the
notes, their GUIDs, ids, cards and reviews stay as they were.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import deckbuilder.anki.notetypes.carried
from deckbuilder.anki.notetypes import NoteTypeSpec, note_type
from deckbuilder.model import NoteKind
from tests.app_calls import build_packages
from tests.conftest import DATA, answer_good, copied, import_package

pytestmark = pytest.mark.anki

T0 = 1_700_000_000  # built with the templates learners have
T1 = T0 + 86_400  # rebuilt with {{type:Answers}}

# The typed note type as it was built before issue 36 (its script left out): its own
# <input data-typed> on the front, the answer judged from what that input stored.
OLD_FRONT = (
    '<div class="db db-typed" data-db-side="front" data-db-case="{{text:Match case}}">\n'
    '<div class="db-question">{{Question}}</div>\n'
    '<input class="db-typed-input" data-typed type="text" autocomplete="off">\n</div>\n'
)
OLD_BACK = (
    '<div class="db db-typed" data-db-side="back" data-db-case="{{text:Match case}}">\n'
    '<div class="db-question">{{Question}}</div>\n'
    '<div class="db-verdict" data-verdict="unanswered"></div>\n'
    '<div class="db-extra db-accepts">{{Answers}}</div>\n</div>\n'
)


def _identities(col: Any) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """GUID -> (note id, note type id, card ids) of every note in the collection."""
    out = {}
    for nid in col.find_notes(""):
        note = col.get_note(nid)
        out[note.guid] = (nid, note.mid, tuple(sorted(c.id for c in note.cards())))
    return out


def test_the_type_answer_templates_replace_the_old_ones_in_place(
    tmp_path: Path, collection: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = copied(DATA / "typed", tmp_path)
    out = tmp_path / "out"
    current = note_type(NoteKind.TYPED)
    old = dataclasses.replace(current, front=OLD_FRONT, back=OLD_BACK)

    def before_issue_36(kind: NoteKind) -> NoteTypeSpec:
        return old if kind is NoteKind.TYPED else note_type(kind)

    with monkeypatch.context() as patch:
        patch.setattr(deckbuilder.anki.notetypes.carried, "note_type", before_issue_36)
        for result in build_packages([source], out, timestamp=T0):
            log = import_package(collection, result.path, merge_notetypes=False)
            assert log.new and not log.conflicting  # type: ignore[attr-defined]
    before = _identities(collection)
    reviewed = next(cid for _, _, cids in before.values() for cid in cids)
    answer_good(collection, reviewed)
    review = collection.get_card(reviewed)
    kept = (review.reps, review.due, review.ivl, review.queue)

    results = build_packages([source], out, timestamp=T1)
    for result in results:
        assert [spec.id for spec in result.changes.note_types_changed] == [current.id]
        assert result.changes.changed == () and result.changes.added == ()
        assert result.rendered.warnings == ()  # nothing the learner must do
        log = import_package(collection, result.path, merge_notetypes=False)
        assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]

    collection.models._clear_cache()  # the importer bypasses the cache
    model = collection.models.get(current.id)
    assert model["mod"] == T1
    assert [f["name"] for f in model["flds"]] == list(current.fields)
    ((_, front, back),) = current.templates
    assert (model["tmpls"][0]["qfmt"], model["tmpls"][0]["afmt"]) == (front, back)
    assert "deckbuilder Typed Answer+" not in {
        m.name for m in collection.models.all_names_and_ids()
    }
    assert _identities(collection) == before
    review = collection.get_card(reviewed)
    assert (review.reps, review.due, review.ivl, review.queue) == kept
    assert "[[type:Answers]]" in review.question()
