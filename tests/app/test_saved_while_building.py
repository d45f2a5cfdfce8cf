"""A card file saved while a build reads it (issue "Hostile input, round 3", 6): an editor
that truncates the file and writes it again in place can be caught halfway. 14 of 71
builds run during such saves exited 0 on the half-written file, dropped 50 notes from the
lock file and printed the Anki search to delete them. A build now writes nothing when a
card file is not what it was when the build began."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder import app
from deckbuilder.errors import DeckError

DECK = "deck: Saved\nid: saved\nnotes:\n" + "".join(
    f"  - id: n{i}\n    front: Question {i}\n    back: Answer {i}\n" for i in range(600)
)


def _request(project: Path, progress: app.requests.Progress | None = None) -> app.BuildRequest:
    return app.BuildRequest(
        timestamp=1_800_000_000,
        selection=app.Selection(sources=(project / "cards",), media_dir=None),
        out_dir=project / "output",
        preview=False,
        lint=False,
        progress=progress,
    )


def test_a_card_file_saved_during_the_build_stops_it(tmp_path: Path) -> None:
    card = tmp_path / "cards" / "saved.yaml"
    card.parent.mkdir()
    card.write_text(DECK, encoding="utf-8")
    app.build(_request(tmp_path))
    lock = (tmp_path / "cards" / "saved.lock").read_bytes()
    package = (tmp_path / "output" / "saved.apkg").read_bytes()

    def save_halfway(stage: str, done: int, total: int) -> None:
        # The editor's save lands while the notes are being rendered: half the file.
        if stage == "rendering" and done >= 256:
            card.write_text(DECK[: len(DECK) // 2].rsplit("\n  - id:", 1)[0] + "\n", "utf-8")

    with pytest.raises(DeckError) as caught:
        app.build(_request(tmp_path, save_halfway))
    (problem,) = caught.value.problems
    assert problem.file == str(card)
    assert problem.message.startswith("changed while it was being read")
    assert (tmp_path / "cards" / "saved.lock").read_bytes() == lock
    assert (tmp_path / "output" / "saved.apkg").read_bytes() == package
