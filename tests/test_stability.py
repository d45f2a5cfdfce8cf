"""What learners' collections depend on stays fixed: GUIDs, Anki note ids, note type ids,
card ordinals, content hashes and lock file bytes.

Anki recognises a re-imported note by its GUID and updates it in place only under the same
note type; scheduling lives on the cards, by ordinal. Any change to the values below makes
every learner who re-imports a rebuilt deck get duplicates, conflicts or lost history, so
they are pinned to the values the released tool produces. A change here must be a
deliberate, documented migration, never a side effect.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from tests.app_calls import build_packages
from tests.conftest import DATA, ROOT

# 2026-01-01T00:00:00Z: the clock of builds from scratch (SOURCE_DATE_EPOCH in the CLI).
BUILT_AT = 1_767_225_600

# deck key -> (SHA-256 of the lock file, [(GUID, Anki note id, note type id, card ordinals)]
# in note id order). The lock files' hashes change, on purpose, when the note types'
# templates or CSS change (they update in place in Anki), and changed once when lock files
# took the hash of each note's copy in Anki (version 2, for pull); the identities never do, with
# one documented migration: the Korean deck's Anki note ids, which were the English
# deck's (issue 45; docs/updating.md "Decks that shared note ids"): GUIDs unchanged.
EXPECTED = {
    "bundled": {
        "gradient-checkpointing.ko": (
            "8543ace589296b720c7eb65ae5275d06b631fc0ff857a466acd2b955d8bc9229",
            [
                ("r0Vm77k+gJ", 1796204609014, 1468248778730576, (0,)),
                ("Gsce|Y!vCY", 1796204609015, 1468248778730576, (0,)),
                ("m^lv/5s*Z~", 1796204609016, 1468248778730576, (0,)),
                ("D^TO@}sZ~#", 1796204609017, 1468248778730576, (0,)),
                ("yUG@3{EZRC", 1796204609018, 1468248778730576, (0,)),
                ("MCL|)x/RlJ", 1796204609019, 1468248778730576, (0,)),
                ("livET1j@{6", 1796204609020, 1468248778730576, (0,)),
                ("rq6>~^C;l|", 1796204609021, 1468248778730576, (0,)),
                ("QFUB2L?3~u", 1796204609022, 1649248644858304, (0, 1)),
                ("k0V&Hf24@+", 1796204609023, 1649248644858304, (0, 1)),
                ("Qu~--ya=B9", 1796204609024, 1649248644858304, (0, 1, 2)),
                ("zMg^D=:qIn", 1796204609025, 1649248644858304, (0, 1)),
                ("u[JIj@cQ-H", 1796204609026, 1649248644858304, (0, 1)),
                ("iNCL=I[Zj2", 1796204609027, 1649248644858304, (0, 1)),
            ],
        ),
        "gradient-checkpointing.en": (
            "3a890b00ceed7a94f266c229a5d01626eb60ab1557fdf9543d349771f3377782",
            [
                ("p59((CESMc", 1796204609000, 1468248778730576, (0,)),
                ("FgNm|L6I@G", 1796204609001, 1468248778730576, (0,)),
                ("NOQ?:F!]kI", 1796204609002, 1468248778730576, (0,)),
                ("m`7?k)oBme", 1796204609003, 1468248778730576, (0,)),
                ("rb>&^e^O*!", 1796204609004, 1468248778730576, (0,)),
                ("DOmQyaTDFC", 1796204609005, 1468248778730576, (0,)),
                ("c_fBHqx8k=", 1796204609006, 1468248778730576, (0,)),
                ("f9lh|L[0AJ", 1796204609007, 1468248778730576, (0,)),
                ("cVTWQr7<bw", 1796204609008, 1649248644858304, (0, 1)),
                ("fC})2,XgZ:", 1796204609009, 1649248644858304, (0, 1)),
                ("t&z+sS^.Y{", 1796204609010, 1649248644858304, (0, 1, 2)),
                ("Qd7sLE5Ob#", 1796204609011, 1649248644858304, (0, 1)),
                ("QWizC<I!/(", 1796204609012, 1649248644858304, (0, 1)),
                ("k;-9`dt1[`", 1796204609013, 1649248644858304, (0, 1)),
            ],
        ),
    },
    "bundled-scratch": {
        "gradient-checkpointing.ko": (
            "592d4d4f7990d35aadf33217f3f14ff3142b79d58b834a22ba89a76ed6621ac5",
            [
                ("r0Vm77k+gJ", 1767225600000, 1468248778730576, (0,)),
                ("Gsce|Y!vCY", 1767225600001, 1468248778730576, (0,)),
                ("m^lv/5s*Z~", 1767225600002, 1468248778730576, (0,)),
                ("D^TO@}sZ~#", 1767225600003, 1468248778730576, (0,)),
                ("yUG@3{EZRC", 1767225600004, 1468248778730576, (0,)),
                ("MCL|)x/RlJ", 1767225600005, 1468248778730576, (0,)),
                ("livET1j@{6", 1767225600006, 1468248778730576, (0,)),
                ("rq6>~^C;l|", 1767225600007, 1468248778730576, (0,)),
                ("QFUB2L?3~u", 1767225600008, 1649248644858304, (0, 1)),
                ("k0V&Hf24@+", 1767225600009, 1649248644858304, (0, 1)),
                ("Qu~--ya=B9", 1767225600010, 1649248644858304, (0, 1, 2)),
                ("zMg^D=:qIn", 1767225600011, 1649248644858304, (0, 1)),
                ("u[JIj@cQ-H", 1767225600012, 1649248644858304, (0, 1)),
                ("iNCL=I[Zj2", 1767225600013, 1649248644858304, (0, 1)),
            ],
        ),
        "gradient-checkpointing.en": (
            "b49c4a537ae3e5a1b0ee37812b9269821a1a560c85babd7a951ea2bdff0e1727",
            [
                ("p59((CESMc", 1767225600014, 1468248778730576, (0,)),
                ("FgNm|L6I@G", 1767225600015, 1468248778730576, (0,)),
                ("NOQ?:F!]kI", 1767225600016, 1468248778730576, (0,)),
                ("m`7?k)oBme", 1767225600017, 1468248778730576, (0,)),
                ("rb>&^e^O*!", 1767225600018, 1468248778730576, (0,)),
                ("DOmQyaTDFC", 1767225600019, 1468248778730576, (0,)),
                ("c_fBHqx8k=", 1767225600020, 1468248778730576, (0,)),
                ("f9lh|L[0AJ", 1767225600021, 1468248778730576, (0,)),
                ("cVTWQr7<bw", 1767225600022, 1649248644858304, (0, 1)),
                ("fC})2,XgZ:", 1767225600023, 1649248644858304, (0, 1)),
                ("t&z+sS^.Y{", 1767225600024, 1649248644858304, (0, 1, 2)),
                ("Qd7sLE5Ob#", 1767225600025, 1649248644858304, (0, 1)),
                ("QWizC<I!/(", 1767225600026, 1649248644858304, (0, 1)),
                ("k;-9`dt1[`", 1767225600027, 1649248644858304, (0, 1)),
            ],
        ),
    },
    "mixed": {
        "mixed": (
            "f1b5381638525376a80be05eb5b01980314c963a63dce490e714aa30079bee80",
            [
                ("dg4>A,=L2.", 1767225600000, 1468248778730576, (0,)),
                ("F-iMiCR2e%", 1767225600001, 1468248778730576, (0,)),
                ("Hbd!^3pO&Q", 1767225600002, 1649248644858304, (0, 1)),
                ("fcH?e<sa$)", 1767225600003, 2152878658763882, (0,)),
            ],
        ),
    },
    "rich": {
        "rich": (
            "43c862115d5aabf5c5dc4c10b23170dad68fafdb962a7bf10532df32c1f174c1",
            [
                ("NwK$:hA^8-", 1767225600000, 1468248778730576, (0,)),
                ("k8G|HAco@6", 1767225600001, 2152878658763882, (0,)),
                ("O)te/yw/Xn", 1767225600002, 1649248644858304, (0, 1, 2, 3)),
                ("Hdzvja&5ne", 1767225600003, 1649248644858304, (0,)),
            ],
        ),
    },
}


CASES = {
    # The bundled deck with its committed lock files: what users have imported.
    "bundled": (ROOT / "cards" / "gradient-checkpointing.yaml", ROOT / "media", False),
    # The same deck and others built with no lock file, at a fixed clock.
    "bundled-scratch": (ROOT / "cards" / "gradient-checkpointing.yaml", ROOT / "media", True),
    "mixed": (DATA / "mixed.yaml", DATA / "media", True),
    "rich": (DATA / "rich" / "rich.yaml", DATA / "rich" / "media", True),
}


def _identities(package: Path, tmp_path: Path) -> list[tuple[str, int, int, tuple[int, ...]]]:
    database = tmp_path / f"{package.stem}.anki2"
    with zipfile.ZipFile(package) as zf:
        database.write_bytes(zf.read("collection.anki2"))
    con = sqlite3.connect(database)
    try:
        notes = con.execute("SELECT guid, id, mid FROM notes ORDER BY id").fetchall()
        ords: dict[int, list[int]] = {}
        for nid, ord_ in con.execute("SELECT nid, ord FROM cards ORDER BY nid, ord"):
            ords.setdefault(nid, []).append(ord_)
    finally:
        con.close()
    return [(guid, nid, mid, tuple(ords[nid])) for guid, nid, mid in notes]


@pytest.mark.parametrize("case", sorted(CASES))
def test_identities_and_lock_files_do_not_change(case: str, tmp_path: Path) -> None:
    source, media, from_scratch = CASES[case]
    folder = tmp_path / "src"
    shutil.copytree(source.parent, folder)
    if from_scratch:
        for lock in folder.glob("*.lock"):
            lock.unlink()
    results = build_packages(
        [folder / source.name], tmp_path / "out", timestamp=BUILT_AT, media_dir=media, lang="all"
    )
    got = {
        r.rendered.deck.key: (
            hashlib.sha256(r.lock.read_bytes()).hexdigest(),
            _identities(r.path, tmp_path),
        )
        for r in results
    }
    for key, (lock_hash, notes) in EXPECTED[case].items():
        assert got[key][1] == notes, f"{key}: GUIDs, note ids or card ordinals changed"
        assert got[key][0] == lock_hash, f"{key}: lock file bytes (ids, content hashes) changed"
    assert got.keys() == EXPECTED[case].keys()
    if not from_scratch:  # a rebuild leaves the committed lock files as they are
        for lock in sorted(source.parent.glob("*.lock")):
            assert (folder / lock.name).read_bytes() == lock.read_bytes()
