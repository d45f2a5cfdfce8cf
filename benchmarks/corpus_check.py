"""Import a folder of real files with Anki and with deckbuilder, side by side.

Run by hand:  PYTHONPATH=. python benchmarks/corpus_check.py FOLDER [--jobs N]

The files are other people's decks and quizzes (Anki's and AnkiDroid's test fixtures,
genanki's test packages, Moodle's GIFT and Aiken fixtures, decks shared on GitHub); they
are not kept in this repository, whose licence is not theirs. For every file:

1. The oracle counts the notes the file holds:
   - ``.apkg``: Anki imports it into a new collection (the import dialog's defaults);
     ``.colpkg``: Anki restores it as a collection. The count is the collection's notes.
   - ``.txt``, ``.csv``, ``.tsv``: Anki's CSV importer, with the metadata Anki itself
     reads from the file (``get_csv_metadata``), into a new collection. A text export
     names its note types (``#notetype:NAME`` or a note type column) but does not carry
     them, and Anki leaves out the rows of a note type the collection lacks; so the new
     collection first gets each note type the file names that it lacks, as the
     collection the file came from had it: as many fields as the file gives its rows
     (named by ``#columns:`` where that names them), one card. The count without them
     is shown beside.
   - GIFT and Aiken, which Anki does not read: the number of questions Moodle imports,
     from a file beside the input: ``NAME.expected`` holding the number (taken from
     Moodle's own tests), or the GIFT grammar project's ``NAME.json`` (its parse of the
     file: every question but ``Category`` entries); else, for GIFT, Moodle's own split
     of the file into questions (blocks between blank lines, comments and category lines
     left out), which agrees with all of those. ``.json`` and ``.expected`` files are
     never inputs themselves. A GIFT question deckbuilder reads must give notes or a
     reason: the lines of the notes and reasons read must number at least the questions.
2. ``deckbuilder import FILE`` runs in a new project. Every note the oracle counts must
   come in or be named with a reason: ``imported + named >= oracle``, where ``named``
   counts the notes the report leaves out (``N notes -> not imported: why``) and the
   ``skipped`` of each card file. A spreadsheet whose first row names its columns has one
   note fewer than Anki counts (Anki imports the header row as a note).
3. Exit status 3 or a traceback is a crash.
4. ``deckbuilder check`` and ``deckbuilder build`` run on what was written; both must
   succeed, and ``check`` must count the notes ``import`` reported.
5. The built decks are imported into the collection that holds Anki's own import of
   the file: no field of a note there may change, and, for a package or a text file
   with a GUID column, no note may be new (text without GUIDs comes in again, as
   ``import`` warns).

Prints one line per file and a summary per kind; exits 1 when any file fails.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import html
import io
import json
import multiprocessing
import os
import re
import sys
import tempfile
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from anki._backend import RustBackend
from anki.collection import (
    Collection,
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
    ImportCsvRequest,
)

from deckbuilder.cli import main as deckbuilder_main
from deckbuilder.errors import DeckError
from deckbuilder.importers import read_source

PACKAGES = {".apkg", ".colpkg"}
TEXT = {".txt", ".csv", ".tsv"}
QUIZ = {".gift", ".aiken"}
SIDECARS = {".json", ".expected"}
NOT_INPUTS = {"MANIFEST.txt", "README.txt"}  # where the corpus says where its files came from

# Counts as the CLI prints them, with thousands separators ("1,298 notes"): see _count.
WROTE = re.compile(
    r"^wrote (?P<file>\S.*?\.yaml): (?P<n>[\d,]+) (?:notes?|questions?) imported"
    r"(?:, (?P<skipped>[\d,]+) skipped)?(?: \([^)]*\))? \((?P<kind>[^,]+),"
)
NOT_IMPORTED = re.compile(r"([\d,]+) notes? -> not imported")
LOCATED = re.compile(r"^.+:\d+: (?!warning:)")  # a refusal's reason for one line's note
MISSING_AT_IMPORT = re.compile(r"warning: media file '(.+?)' is in neither the source")
MISSING_AT_CHECK = re.compile(r"media file '(.+?)' not found in ")
CHECKED = re.compile(r"^ok: [\d,]+ decks?, ([\d,]+) notes?")


def _count(text: str) -> int:
    """A count as the CLI prints it ("1,298")."""
    return int(text.replace(",", ""))


@dataclass
class Outcome:
    path: str
    kind: str
    oracle: int | None = None  # notes Anki (or Moodle) brings in; None when it refuses
    oracle_note: str = ""
    code: int | None = None  # deckbuilder import's exit status
    imported: int = 0
    named: int = 0
    header_row: bool = False
    checked: str = "-"
    built: str = "-"
    roundtrip: str = "-"
    fidelity: str = ""  # how many notes the built decks hold as Anki's import holds them
    problems: list[str] = field(default_factory=list)
    explained: list[str] = field(default_factory=list)  # what differs by design, and why
    message: str = ""  # the first line of a refusal

    @property
    def ok(self) -> bool:
        return not self.problems


def cli(*args: str) -> tuple[int, str]:
    """``deckbuilder ARGS`` in this process; returns the exit status and all it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = deckbuilder_main(list(args))
        except BaseException:  # anything that escapes the CLI's own error mapping
            code = 3
            out.write(traceback.format_exc())
    return code, out.getvalue()


def kind_of(path: Path) -> str:
    if path.suffix in PACKAGES:
        return path.suffix[1:]
    for quiz in ("gift", "aiken"):
        if quiz in path.name.lower():
            return quiz
    return "text"


def expectation(path: Path) -> int | None:
    expected = path.with_name(path.name + ".expected")
    if expected.is_file():
        return int(expected.read_text().split()[0])
    grammar = path.with_suffix(".json")
    if path.suffix == ".gift" and grammar.is_file():
        questions = json.loads(grammar.read_text(encoding="utf-8"))
        return sum(1 for q in questions if q.get("type") != "Category")
    if "gift" in path.name.lower():
        return moodle_gift_questions(path.read_text(encoding="utf-8-sig", errors="replace"))
    return None


def moodle_gift_questions(text: str) -> int:
    """How many questions Moodle's GIFT import counts: it splits the file at blank lines,
    drops ``//`` comment lines, and a block that is only a ``$CATEGORY:`` line is none."""
    blocks: list[list[str]] = [[]]
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    count = 0
    for block in blocks:
        body = [line for line in block if not line.startswith("//")]
        if body and not (len(body) == 1 and body[0].startswith("$CATEGORY:")):
            count += 1
    return count


def gift_questions_read(path: Path) -> int | None:
    """The questions deckbuilder's GIFT reader gives notes or a reason for (by line)."""
    try:
        read = read_source(path, "gift")
    except DeckError:
        return None
    lines = {n.line for deck in read.decks for n in deck.notes}
    return len(lines | {s.line for s in read.skipped if s.line})


def anki_import(path: Path, kind: str, folder: Path) -> tuple[Collection | None, str]:
    """The collection Anki makes of ``path`` and what it was given first (None, and why,
    when Anki refuses it)."""
    col_path = folder / "anki" / "collection.anki2"
    col_path.parent.mkdir()
    try:
        if kind == "colpkg":
            RustBackend().import_collection_package(
                col_path=str(col_path),
                backup_path=str(path),
                media_folder=str(folder / "anki" / "collection.media"),
                media_db=str(folder / "anki" / "collection.media.db2"),
            )
            restored = Collection(str(col_path))
            if not restored.v3_scheduler():
                # Anki imports a package only into a collection on its current scheduler,
                # and asks for the upgrade first, as here (the notes do not change).
                if restored.sched_ver() == 1:
                    restored.upgrade_to_v2_scheduler()
                restored.set_v3_scheduler(True)
                return restored, "the collection was upgraded to Anki's v3 scheduler"
            return restored, ""
        col = Collection(str(col_path))
        if kind == "apkg":
            col.import_anki_package(
                ImportAnkiPackageRequest(package_path=str(path), options=ImportAnkiPackageOptions())
            )
        else:
            metadata = col.get_csv_metadata(str(path), None)
            col.import_csv(ImportCsvRequest(path=str(path), metadata=metadata))
            named = named_note_types(path, metadata)
            if any(col.models.by_name(name) is None for name in named):
                # Again, into a collection that has the note types the file names.
                without = col.note_count()
                col.close()
                col_path.unlink()
                col = Collection(str(col_path))
                added = add_named_note_types(col, path, col.get_csv_metadata(str(path), None))
                metadata = col.get_csv_metadata(str(path), None)
                col.import_csv(ImportCsvRequest(path=str(path), metadata=metadata))
                if added:
                    return col, (
                        f"the collection has the file's note types {', '.join(added)} "
                        f"(without them Anki imports {without})"
                    )
        return col, ""
    except Exception as exc:  # Anki refuses the file: nothing to compare against
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


DELIMITER_CHARS = "\t|;:, "  # Anki's CsvMetadata.Delimiter, in its order


def text_table(path: Path, metadata: object) -> tuple[list[str], list[list[str]]]:
    """The header lines and the rows of a text file, split as Anki splits them."""
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    head = 0
    while head < len(lines) and lines[head].startswith("#"):
        head += 1
    delimiter = DELIMITER_CHARS[metadata.delimiter]  # type: ignore[attr-defined]
    body = [line + "\n" for line in lines[head:] if not line.startswith("#")]
    table = [row for row in csv.reader(body, delimiter=delimiter) if any(row)]
    return lines[:head], table


def named_note_types(path: Path, metadata: object) -> dict[str, int]:
    """Each note type a text file names (``#notetype:`` or its column), with the most
    fields it gives a row of that type (columns but those the headers name, up to the
    last that is not empty: Anki pads each row to the widest note type)."""
    headers, table = text_table(path, metadata)
    named, columns = "", {}
    for line in headers:
        key, _, value = line[1:].partition(":")
        key = key.strip().lower()
        if key == "notetype":
            named = value
        elif key.endswith(" column") and value.strip().isdigit():
            columns[key.removesuffix(" column")] = int(value.strip())
    special = set(columns.values())
    found: dict[str, int] = {}
    for row in table:
        n = columns.get("notetype", 0)
        name = (row[n - 1] if n <= len(row) else "") if n else named
        values = [v for i, v in enumerate(row, start=1) if i not in special]
        while values and not values[-1].strip():
            values.pop()
        if name:
            found[name] = max(found.get(name, 0), len(values))
    return found


def add_named_note_types(col: Collection, path: Path, metadata: object) -> list[str]:
    """Add to ``col`` each note type the file names that it lacks: as many fields as
    the file gives (named by ``#columns:`` where those name them), one card."""
    labels = [label for label in metadata.column_labels if label]  # type: ignore[attr-defined]
    added = []
    for name, width in named_note_types(path, metadata).items():
        if col.models.by_name(name) is not None or not width:
            continue
        names = labels if len(labels) == width and len(set(labels)) == width else []
        names = names or [f"Field {i}" for i in range(1, width + 1)]
        model = col.models.new(name)
        for field_name in names:
            col.models.add_field(model, col.models.new_field(field_name))
        template = col.models.new_template("Card 1")
        template["qfmt"] = "{{" + names[0] + "}}"
        template["afmt"] = "{{FrontSide}}<hr id=answer>" + "<br>".join(
            "{{" + n + "}}" for n in names[1:]
        )
        col.models.add_template(model, template)
        col.models.add(model)
        added.append(f"'{name}' ({width} fields)")
    return added


def fields_by_guid(col: Collection) -> dict[str, list[str]]:
    return {
        guid: flds.split("\x1f")
        for guid, flds in col.db.all("select guid, flds from notes")  # type: ignore[union-attr]
    }


def roundtrip(col: Collection, packages: list[Path]) -> tuple[int, int, int]:
    """Import ``packages`` into ``col``: notes added, notes whose fields changed, notes
    Anki reports as conflicting."""
    before = fields_by_guid(col)
    count = col.note_count()
    conflicting = 0
    for package in packages:
        log = col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions())
        ).log
        conflicting += len(log.conflicting)
    after = fields_by_guid(col)
    changed = sum(1 for guid, flds in before.items() if after.get(guid, flds) != flds)
    return col.note_count() - count, changed, conflicting


def shown(field: str) -> str:
    """A field's text as a card shows it, roughly: no tags, entities read, spaces folded."""
    text = re.sub(r"<br\s*/?>|</(?:div|p|li)>", " ", field, flags=re.IGNORECASE)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def fidelity(original: Collection, packages: list[Path], folder: Path, kind: str) -> str:
    """How many notes of the built decks, imported into a new collection, have the fields
    of Anki's own import: exactly, and as shown text. Packages are matched by GUID; text
    (whose GUIDs may be new) by the first field's shown text."""
    fresh = Collection(str(folder / "built.anki2"))
    try:
        for package in packages:
            fresh.import_anki_package(
                ImportAnkiPackageRequest(
                    package_path=str(package), options=ImportAnkiPackageOptions()
                )
            )
        ours = fields_by_guid(fresh)
    finally:
        fresh.close()
    theirs = fields_by_guid(original)
    if kind != "text":
        pairs = [(flds, theirs[guid]) for guid, flds in ours.items() if guid in theirs]
    else:
        by_front = {shown(flds[0]): flds for flds in theirs.values()}
        pairs = [(flds, by_front.get(shown(flds[0]), [])) for flds in ours.values()]
    exact = sum(a == b for a, b in pairs)
    text = sum([shown(f) for f in a] == [shown(f) for f in b] for a, b in pairs)
    return f"{exact}/{len(ours)} exact, {text}/{len(ours)} as text"


def check_file(path_text: str) -> Outcome:
    path = Path(path_text)
    kind = kind_of(path)
    result = Outcome(path_text, kind)
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        folder = Path(tmp)
        col: Collection | None = None
        try:
            if kind in {"gift", "aiken"}:
                result.oracle = expectation(path)
                if result.oracle is None:
                    result.oracle_note = "no expectation beside the file"
            else:
                col, why = anki_import(path, kind, folder)
                if col is None:
                    result.oracle_note = f"Anki refuses: {why}"
                else:
                    result.oracle = col.note_count()
                    result.oracle_note = why  # what the oracle's collection was given
            run_deckbuilder(path, folder / "project", result)
            if col is not None and result.built == "ok":
                packages = sorted((folder / "project" / "output").glob("*.apkg"))
                result.fidelity = fidelity(col, packages, folder, kind)
                new, changed, conflicting = roundtrip(col, packages)
                result.roundtrip = f"new={new} changed={changed} conflicting={conflicting}"
                # Text without GUIDs is matched by nothing: its notes come in again, as
                # import warns; with GUIDs, Anki finds every note.
                if (new and (kind != "text" or has_guid_column(path))) or changed:
                    result.problems.append(f"round trip: {result.roundtrip}")
        except Exception:
            result.problems.append("checker failed: " + traceback.format_exc(limit=3))
        finally:
            if col is not None:
                col.close()
    return result


def run_deckbuilder(path: Path, project: Path, result: Outcome) -> None:
    project.mkdir()
    os.chdir(project)
    code, out = cli("import", str(path))
    if code == 1 and "cannot tell the format" in out:
        result.explained.append(
            "no separator to recognise it by: auto-detection asks for a format; "
            "counted with --format anki-text"
        )
        code, out = cli("import", str(path), "--format", "anki-text")
    result.code = code
    if code == 3 or "Traceback" in out:
        result.problems.append("crash: " + out.strip().splitlines()[-1][:300])
        return
    written = 0
    for line in out.splitlines():
        if wrote := WROTE.match(line):
            written += _count(wrote["n"])
            result.named += _count(wrote["skipped"] or "0")
            result.header_row = result.header_row or (
                wrote["kind"] == "spreadsheet" and has_header_row(path)
            )
        result.named += sum(_count(n) for n in NOT_IMPORTED.findall(line))
        if code == 1 and (LOCATED.match(line) or ": note '" in line):
            result.named += 1
    result.imported = written
    if code != 0:
        result.message = next((line for line in out.splitlines() if "warning:" not in line), "")[
            :300
        ]
    if result.oracle is not None:
        expected = result.oracle - (1 if result.header_row and result.kind == "text" else 0)
        if expected < result.oracle:
            result.explained.append(
                "the first row names the columns: Anki imports it as a note, deckbuilder "
                "reads it as the columns' names (one note fewer expected)"
            )
        if written + result.named < expected:
            result.problems.append(
                f"{expected - written - result.named} notes neither imported nor named"
            )
        if written > expected and result.kind not in {"gift", "aiken"}:
            result.problems.append(f"{written - expected} notes more than the oracle")
        if result.kind == "gift":
            read = gift_questions_read(path)
            if read is not None and read < expected:
                result.problems.append(
                    f"{expected - read} GIFT questions read without a note or reason"
                )
    if code != 0 or not written:
        return
    missing = set(MISSING_AT_IMPORT.findall(out))
    code, out = cli("check")
    if code == 1 and missing and only_missing_media(out, missing):
        # By design check and build ask for the files until they are in media/; empty
        # stand-ins let the rest of the check, the build and the round trip run.
        result.explained.append(
            f"{len(missing)} media files are in neither the source nor media/: import "
            "names them, check and build ask for them (checked further with empty stand-ins)"
        )
        for name in missing:
            stand_in = Path("media", name)
            stand_in.parent.mkdir(parents=True, exist_ok=True)
            stand_in.write_bytes(b"")
        code, out = cli("check")
    checked = next((m for m in map(CHECKED.match, out.splitlines()) if m), None)
    result.checked = "ok" if code == 0 and checked else f"exit {code}"
    if result.checked != "ok":
        result.problems.append("check: " + out.strip()[:300])
    elif _count(checked[1]) != written:  # type: ignore[index]
        result.problems.append(f"check counts {checked[1]} notes, import {written}")  # type: ignore[index]
    code, out = cli("build", "--no-preview", "--out", "output")
    result.built = "ok" if code == 0 else f"exit {code}"
    if code != 0:
        result.problems.append("build: " + out.strip()[:300])


def only_missing_media(out: str, missing: set[str]) -> bool:
    """Whether every problem ``check`` printed is a media file import named as missing."""
    problems = [line for line in out.splitlines() if LOCATED.match(line)]
    named = [MISSING_AT_CHECK.search(line) for line in problems]
    return all(m is not None and m[1] in missing for m in named)


def has_guid_column(path: Path) -> bool:
    head = path.read_bytes()[:8192].decode("utf-8", errors="replace")
    return "#guid column:" in head


def has_header_row(path: Path) -> bool:
    """Whether deckbuilder read the sheet's first line as column names, not as a note."""
    try:
        read = read_source(path)
    except DeckError:
        return False
    first = min((n.line for deck in read.decks for n in deck.notes if n.line), default=1)
    return first > 1 and not any(s.line == 1 for s in read.skipped)


def inputs(folder: Path) -> list[str]:
    suffixes = PACKAGES | TEXT | QUIZ
    return sorted(
        str(p)
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in suffixes
        and p.suffix not in SIDECARS
        and p.name not in NOT_INPUTS
    )


def line(r: Outcome, folder: Path) -> str:
    status = "FAIL" if not r.ok else "expl" if r.explained else "ok  "
    oracle = "-" if r.oracle is None else str(r.oracle)
    name = os.path.relpath(r.path, folder)
    text = (
        f"{status} {r.kind:6} oracle={oracle:>4} ours={r.imported:>4} named={r.named:>4} "
        f"exit={r.code} check={r.checked} build={r.built} rt={r.roundtrip}"
        f"{' fields=' + r.fidelity if r.fidelity else ''}  {name}"
    )
    details = r.problems + r.explained + ([r.oracle_note] if r.oracle_note else [])
    if r.message and (not r.ok or r.oracle):
        details.append(r.message)
    return text + "".join(f"\n       {d}" for d in details)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    folder = args.folder.resolve()
    files = inputs(folder)
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=25) as pool:
        results = []
        for r in pool.imap(check_file, files):
            print(line(r, folder), flush=True)
            results.append(r)
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        c = by_kind[r.kind]
        c["files"] += 1
        c["ok"] += r.ok and not r.explained
        c["explained"] += r.ok and bool(r.explained)
        c["oracle notes"] += r.oracle or 0
        c["imported"] += r.imported
        c["named"] += r.named
        c["crashes"] += any(p.startswith("crash") for p in r.problems)
        c["refused (exit 1)"] += r.code == 1
    print("\nsummary")
    for kind, c in sorted(by_kind.items()):
        print(f"  {kind:6} " + ", ".join(f"{k} {v}" for k, v in c.items()))
    failed = sum(not r.ok for r in results)
    print(f"  {len(results)} files, {failed} failing")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
