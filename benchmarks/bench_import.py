"""How long `deckbuilder import` takes: on a large quiz, relative to loading its result;
and on Anki packages of 5,000 notes, against another checkout (main) in the same run.

Run by hand:
    PYTHONPATH=. python benchmarks/bench_import.py [QUESTIONS]
    PYTHONPATH=. python benchmarks/bench_import.py --packages [--against /work/main] [--repeat 5]

The first prints seconds and the ratio import/load (both read the same questions once).
The second writes three packages of 5,000 notes (Anki's current export with zstd and a
protobuf media list, its legacy export, and a genanki package, the layout deckbuilder
and most add-ons write; it needs the `anki` package of the bench extra), then times
reading each package alone (`read_package`), and all `deckbuilder import` does with it
but write (read the package, plan the card file, its lock file and media), in fresh
processes, alternating this checkout and the other one, and prints the best CPU time
of each (on a machine shared with other work, CPU time varies less than wall time) and
their ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deckbuilder.cardfile.reader import load_deck
from deckbuilder.importers import card_file_text, import_text


def quiz(n: int) -> str:
    parts = ["Benchmark quiz", ""]
    for i in range(1, n + 1):
        parts += [
            f"{i}. Question {i}: what does gradient checkpointing (체크포인트) trade?",
            f"   • Extra computation {i}",
            "   • Model accuracy: less",
            f"   • 디스크 공간 {i}",
            "   • Nothing ✓",
            f"해설: Activations are recomputed {i}.",
            "They are not stored.",
        ]
    return "\n".join(parts) + "\n"


ROOT = Path(__file__).resolve().parent.parent
NOTES = 5000
GENANKI = r"""
import sys, genanki
model = genanki.Model(1607392319, "Basic", fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}])
cloze = genanki.Model(1607392320, "Cloze", fields=[{"name": "Text"}, {"name": "Back Extra"}],
    templates=[{"name": "Cloze", "qfmt": "{{cloze:Text}}", "afmt": "{{cloze:Text}}<br>{{Back Extra}}"}],
    model_type=genanki.Model.CLOZE)
deck = genanki.Deck(2059400110, "Bench")
for i in range(int(sys.argv[1])):
    if i % 3 == 1:
        deck.add_note(genanki.Note(model=cloze, fields=[f"Fact {i}: {{{{c1::answer {i}}}}}", "extra"]))
    else:
        deck.add_note(genanki.Note(model=model, fields=[f"Question {i}: <b>why</b>?", f"Answer {i}"]))
genanki.Package(deck).write_to_file(sys.argv[2], timestamp=1_700_000_000)
"""
TIMED = r"""
import sys, time
from pathlib import Path
from deckbuilder.anki.package_reader import read_package
from deckbuilder.importers.notes_plan import plan_notes, read_notes_source
start = time.process_time()
read_package(Path(sys.argv[1]))
read = time.process_time()
notes = read_notes_source(Path(sys.argv[1]))
plan = plan_notes(notes, Path(sys.argv[1]), Path(sys.argv[2]), None, Path("media"))
print(read - start, time.process_time() - read, len(plan.result.notes))
"""


def anki_packages(folder: Path) -> list[Path]:
    """Anki's current and legacy exports of 5,000 notes (a third cloze) with a picture."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    col = Collection(str(folder / "collection.anki2"))
    did = col.decks.id("Bench")
    basic, cloze = col.models.by_name("Basic"), col.models.by_name("Cloze")
    picture = folder / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(20_000))
    col.media.add_file(str(picture))
    for i in range(NOTES):
        note = col.new_note(cloze if i % 3 == 1 else basic)
        if i % 3 == 1:
            note.fields[0] = f"Fact {i}: {{{{c1::answer {i}}}}} and {{{{c2::more}}}}"
        else:
            note.fields[0] = f"Question {i}: what does this <b>thing</b> do?"
            note.fields[1] = '<img src="picture.png">' if i == 0 else f"Answer {i}"
        col.add_note(note, did)
    paths = []
    for legacy, name in ((False, "anki-current.apkg"), (True, "anki-legacy.apkg")):
        options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=legacy)
        col.export_anki_package(
            out_path=str(folder / name), options=options, limit=DeckIdLimit(deck_id=did)
        )
        paths.append(folder / name)
    col.close()
    return paths


def packages(against: Path, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sources = anki_packages(folder)
        sources.append(folder / "genanki.apkg")
        subprocess.run([sys.executable, "-c", GENANKI, str(NOTES), sources[-1]], check=True)
        print(f"{NOTES} notes; best of {repeat} fresh processes, alternating")
        for source in sources:
            best = {ROOT: [float("inf")] * 2, against: [float("inf")] * 2}
            for _ in range(repeat):
                for checkout in best:
                    env = dict(os.environ, PYTHONPATH=str(checkout))
                    out = folder / "cards" / "bench.yaml"
                    proc = subprocess.run(
                        [sys.executable, "-c", TIMED, source, out],
                        env=env,
                        cwd=folder,
                        capture_output=True,
                        text=True,
                    )
                    if proc.returncode:
                        sys.exit(f"{checkout}: {proc.stderr}")
                    *seconds, notes = proc.stdout.split()
                    assert int(notes) == NOTES, proc.stdout
                    best[checkout] = [
                        min(a, float(b)) for a, b in zip(best[checkout], seconds, strict=True)
                    ]
            print(f"  {source.name} ({source.stat().st_size / 1e3:.0f} KB):")
            for i, what in enumerate(("read the package", "import (read, plan)")):
                here, there = best[ROOT][i], best[against][i]
                print(
                    f"    {what}: this checkout {here:.3f} s, {against} {there:.3f} s, "
                    f"ratio {here / there:.2f}"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("questions", nargs="?", type=int, default=5000)
    parser.add_argument("--packages", action="store_true")
    parser.add_argument("--against", type=Path, default=Path("/work/main"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.packages:
        packages(args.against, args.repeat)
        return
    n = args.questions
    text = quiz(n)
    start = time.perf_counter()
    result = import_text(text, "bench.txt", "quiz")
    parsed = time.perf_counter()
    yaml_text = card_file_text(result, "Benchmark", "bench")
    written = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(yaml_text, encoding="utf-8")
        before = time.perf_counter()
        deck = load_deck(path)
        loaded = time.perf_counter()
    assert len(deck.notes) == n
    imp = written - start
    load = loaded - before
    print(f"{n} questions, {len(text) / 1e6:.1f} MB of quiz text")
    print(f"  parse {parsed - start:.2f} s, write YAML {written - parsed:.2f} s")
    print(f"  load the card file {load:.2f} s; import/load ratio {imp / load:.2f}")


if __name__ == "__main__":
    main()
