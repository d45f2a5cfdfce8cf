"""How long `deckbuilder pull` takes: a 5,000-note deck with 100 notes edited in Anki
(issue 43's budget: at most 2 s).

Run by hand (not a test; needs the `anki` package, as the bench extra installs it):
    PYTHONPATH=. python benchmarks/bench_pull.py [--notes 5000] [--edits 100] [--repeat 3]

It generates the mixed deck of benchmarks/bench_build.py, builds it, imports the package
into a fresh collection with the real Anki backend, edits `--edits` notes there (a word of
the question, text or back of notes spread over the deck) and exports the deck as Anki's
File > Export does. Then it times, each in a fresh process from the same project state,
`deckbuilder pull` of the export and of the closed collection.anki2 itself, and prints
wall and CPU seconds (best of `--repeat`). Setting up takes a minute; only the pulls are
timed. Compare figures from one run, not across runs or machines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_build import generate_deck, timed

ROOT = Path(__file__).resolve().parent.parent


def setup(folder: Path, notes: int, edits: int) -> Path:
    """The project in ``folder`` (built an hour ago) and its collection with ``edits``
    notes edited; returns the export."""
    from anki.collection import (
        Collection,
        DeckIdLimit,
        ExportAnkiPackageOptions,
        ImportAnkiPackageOptions,
        ImportAnkiPackageRequest,
    )

    (folder / "cards").mkdir()
    (folder / "media").mkdir()
    generate_deck(notes, folder / "cards" / "bench.yaml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": str(int(time.time()) - 3600)}
    timed([sys.executable, "-m", "deckbuilder", "-q", "build", "--no-preview"], folder, env)
    (folder / "anki").mkdir()
    col = Collection(str(folder / "anki" / "collection.anki2"))
    try:
        options = ImportAnkiPackageOptions(
            merge_notetypes=False, with_scheduling=False, with_deck_configs=False
        )
        package = str((folder / "output" / "bench.apkg").resolve())
        col.import_anki_package(ImportAnkiPackageRequest(package_path=package, options=options))
        nids = sorted(col.find_notes('"deck:Bench::Generated"'))
        step = max(1, len(nids) // edits)
        for nid in nids[::step][:edits]:
            note = col.get_note(nid)
            note.fields[0] = note.fields[0].replace("number", "No.", 1).replace("says", "states", 1)
            note.fields[0] = note.fields[0].replace("What does", "What, then, does", 1)
            col.update_note(note)
        did = col.decks.id_for_name("Bench::Generated")
        export = folder / "edited.apkg"
        col.export_anki_package(
            out_path=str(export.resolve()),
            options=ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False),
            limit=DeckIdLimit(did),
        )
    finally:
        col.close()
    return export


def time_pull(
    folder: Path, source: Path, repeat: int, saved: dict[Path, bytes]
) -> tuple[float, float, str]:
    """Best wall and CPU seconds of `deckbuilder pull SOURCE`, each from the state before
    any pull (``saved``), and the summary line of the last run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    best: tuple[float, float] | None = None
    summary = ""
    for _ in range(repeat):
        for path, data in saved.items():
            path.write_bytes(data)
        wall, cpu, _ = timed(
            [sys.executable, "-m", "deckbuilder", "pull", str(source)], folder, env
        )
        best = (wall, cpu) if best is None or wall < best[0] else best
    for path, data in saved.items():
        path.write_bytes(data)
    out = subprocess.run(
        [sys.executable, "-m", "deckbuilder", "pull", str(source)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    summary = next(line.strip() for line in out.splitlines() if "since last build" in line)
    assert best is not None
    return best[0], best[1], summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pull-") as tmp:
        folder = Path(tmp)
        export = setup(folder, args.notes, args.edits)
        saved = {p: p.read_bytes() for p in (folder / "cards").iterdir()}
        python = timed([sys.executable, "-c", "pass"], folder)[0]
        print(f"{args.notes} notes, {args.edits} edited in Anki; python -c pass {python:.2f} s")
        for label, source in (
            ("pull edited.apkg", export),
            ("pull collection.anki2", folder / "anki" / "collection.anki2"),
        ):
            wall, cpu, summary = time_pull(folder, source, args.repeat, saved)
            print(f"  {label:<24} {wall:5.2f} s wall, {cpu:5.2f} s CPU   ({summary})")
        shutil.rmtree(folder / "anki")


if __name__ == "__main__":
    main()
