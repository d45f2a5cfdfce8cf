"""The learner's own memory (issue 22): FSRS parameters fitted from a review history read
from an Anki collection file or a .colpkg backup, checked against the parameters Anki
itself fits from the same history. Histories are generated here, in tmp_path."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.history import read_reviews
from deckbuilder.preview.settings import fit_history, too_few_reviews
from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings, ladder
from deckbuilder.schedule.fit import ReviewLog, training_items
from tests.conftest import Run

CliRun = Callable[..., Run]


def learner_parameters() -> tuple[float, ...]:
    """A learner whose first memories last three times the defaults."""
    w = list(DEFAULT_PARAMETERS)
    w[0:4] = [x * 3 for x in w[0:4]]
    return tuple(w)


def make_history(folder: Path, cards: int = 400, per_day: int = 10, days: int = 365) -> Any:
    """A collection in ``folder`` whose review log is that of a learner with
    learner_parameters(), studying at retention 0.9: one learning answer a card, then
    reviews at the FSRS intervals, recalled with the forgetting curve's probability.
    Returns the open collection."""
    import numpy as np
    from anki.collection import Collection

    from deckbuilder.schedule.memory import MemoryModel

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "collection.anki2"))
    basic = col.models.by_name("Basic")
    deck = col.decks.id("History")
    for i in range(cards):
        note = col.new_note(basic)
        note["Front"], note["Back"] = f"q{i}", f"a{i}"
        col.add_note(note, deck)
    card_ids = col.db.list("select id from cards order by id")
    rng = np.random.default_rng(7)
    model = MemoryModel(learner_parameters(), 0.9)
    noon = (int(time.time()) // 86400 - days - 2) * 86_400_000 + 12 * 3_600_000
    rows = []
    for k, cid in enumerate(card_ids):
        day = k // per_day
        first = int(rng.choice(4, p=[0.1, 0.1, 0.6, 0.2])) + 1
        s, d = np.array([model.init_s_table[first]]), np.array([model.init_d_table[first]])
        rows.append((noon + day * 86_400_000 + k, cid, first, 0, 0))
        while (ivl := int(model.interval(s, 36500)[0])) + day < days:
            r = model.retrievability(np.array([float(ivl)]), s)
            day += ivl
            if rng.random() < r[0]:
                rating = int(rng.choice(3, p=[0.15, 0.7, 0.15])) + 2
                new_s = model.recall_s(s, r, d, np.array([rating]))
            else:
                rating, new_s = 1, model.forget_s(s, r, d)
            d, s = model.next_d(d, np.array([rating])), new_s
            rows.append((noon + day * 86_400_000 + k, cid, rating, 1, ivl))
    col.db.executemany(
        "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
        "values (?, ?, -1, ?, ?, 0, 0, 8000, ?)",
        [(rid, cid, ease, ivl, kind) for rid, cid, ease, kind, ivl in rows],
    )
    return col


def anki_fit(col: Any) -> tuple[list[float], int]:
    result = col._backend.compute_fsrs_params(
        search="",
        current_params=[],
        ignore_revlogs_before_ms=0,
        num_of_relearning_steps=0,
        health_check=False,
    )
    return list(result.params), result.fsrs_items


def assert_ladders_agree(ours: tuple[float, ...], anki: list[float]) -> None:
    """Every interval of each ladder row within 20% (issue 22), and the parameters
    themselves alike: the same items in the same order, trained as Anki trains them,
    give Anki's fit."""
    mine = ladder(PreviewSettings(parameters=ours), 365)
    theirs = ladder(PreviewSettings(parameters=tuple(anki)), 365)
    default = ladder(PreviewSettings(), 365)
    assert mine.good != default.good  # the learner's memory shows
    assert theirs.good[0] > 2 * default.good[0]
    for row in ("good", "hard", "easy", "again_good"):
        assert len(getattr(mine, row)) == len(getattr(theirs, row)), row
        for a, b in zip(getattr(mine, row), getattr(theirs, row), strict=True):
            assert a == pytest.approx(b, rel=0.2), row
    assert list(ours) == pytest.approx(anki, abs=1e-3)


@dataclass(frozen=True)
class FittedProfile:
    """A generated 400-card history, as a collection file and as a .colpkg backup of it,
    with the parameters and item count Anki fits from it."""

    collection: Path
    backup: Path
    anki: list[float]
    items: int


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> FittedProfile:
    """Generated and fitted by Anki once in the module: both file forms are read from the
    same history (each test only reads them)."""
    folder = tmp_path_factory.mktemp("history") / "profile"
    col = make_history(folder)
    anki, items = anki_fit(col)
    backup = folder.parent / "backup.colpkg"
    col.export_collection_package(str(backup), include_media=False, legacy=False)
    col.close()
    return FittedProfile(folder / "collection.anki2", backup, anki, items)


@pytest.mark.anki
def test_fit_from_collection_file_agrees_with_ankis_fit(profile: FittedProfile) -> None:
    path = profile.collection
    before = path.read_bytes()
    fitted = fit_history(path)
    assert path.read_bytes() == before  # read from a copy, never written
    assert fitted.fitted and fitted.reviews == profile.items
    assert_ladders_agree(fitted.parameters, profile.anki)


def add_messy_entries(col: Any) -> None:
    """Review-log entries a real collection holds besides plain answers, on some cards
    of a generated history: cramming in a filtered deck, set due date, rescheduling,
    same-day and relearning answers, an answer at the very second a day starts, a reset
    to new and a second learning run, a reset with nothing after it, reviews of cards
    whose learning is not in the log."""
    day = 86_400_000
    cards = col.db.list("select distinct cid from revlog order by cid")
    rows = []
    for n, cid in enumerate(cards):
        # generated answers are at noon plus under a second; these entries are not
        last = col.db.scalar("select max(id) from revlog where cid = ?", cid) + 1000 + n
        kind = n % 8
        if kind == 0:  # cramming in a filtered deck without rescheduling
            rows.append((last - day, cid, 3, 0, 3))
        elif kind == 1:  # set due date, then a rescheduling by the FSRS helper
            rows += [(last - day, cid, 0, 2500, 4), (last - day + 5, cid, 0, 0, 5)]
        elif kind == 2:  # a lapse: relearning the same day, a review two days on
            rows += [(last, cid, 1, 2500, 1), (last + 1000, cid, 3, 2500, 2)]
            rows.append((last + 2 * day, cid, 3, 2500, 1))
        elif kind == 3:  # answered in the day's first second (rollover 4 am, UTC)
            rows.append(((last // day + 3) * day + 4 * 3_600_000 + n, cid, 3, 2500, 1))
        elif kind == 4:  # reset to new, learned again, reviewed
            rows += [(last, cid, 0, 0, 4), (last + day, cid, 2, 0, 0)]
            rows += [(last + day + 60_000, cid, 3, 0, 0), (last + 4 * day, cid, 3, 2500, 1)]
        elif kind == 5:  # reset to new, not studied since
            rows.append((last, cid, 0, 0, 4))
        elif kind == 6:  # the learning answers lost (an import without them)
            col.db.execute("delete from revlog where cid = ? and type = 0", cid)
    col.db.executemany(
        "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
        "values (?, ?, -1, ?, 1, 0, ?, 8000, ?)",
        rows,
    )


@pytest.mark.anki
def test_training_items_are_ankis_own_in_content_and_order(tmp_path: Path) -> None:
    """The optimizer weights later items more, so order counts as much as content. Anki's
    evaluation of fixed parameters on its own items (order-dependent through those
    weights) equals fsrs-rs's on ours."""
    import fsrs_rs_python as fsrs_rs

    col = make_history(tmp_path / "profile", cards=120)
    add_messy_entries(col)
    _, anki_items = anki_fit(col)
    parameters = list(learner_parameters())
    theirs = col._backend.evaluate_params_legacy(
        params=parameters, search="", ignore_revlogs_before_ms=0
    )
    col.close()
    revlog, rollover = read_reviews(tmp_path / "profile" / "collection.anki2")
    items = training_items(ReviewLog(*revlog), rollover, utc_offset=0)  # Anki here runs in UTC
    assert len(items) == anki_items
    batch = [fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, t) for r, t in item]) for item in items]
    ours = fsrs_rs.FSRS(parameters).evaluate(batch)
    assert ours.log_loss == pytest.approx(theirs.log_loss, rel=1e-6)
    assert ours.rmse_bins == pytest.approx(theirs.rmse_bins, rel=1e-5)


@pytest.mark.anki
def test_answers_dated_after_today_count_as_today_as_anki_counts_them(tmp_path: Path) -> None:
    """A device whose clock ran ahead logs answers dated in the future. Anki counts each as
    answered today (days since an answer never go below 0), so a later one adds no day
    of its own; the fit counted them on their own future days: 400 items fitted from a
    history of future answers that Anki fits nothing from."""
    import fsrs_rs_python as fsrs_rs

    col = make_history(tmp_path / "profile", cards=120)
    # Half the cards' logs a year later: their last answers are after today. The extra
    # half second keeps every id apart (generated ids are noon plus under 120 ms).
    col.db.execute("update revlog set id = id + ? where cid % 2 = 0", 365 * 86_400_000 + 500)
    _, anki_items = anki_fit(col)
    parameters = list(learner_parameters())
    theirs = col._backend.evaluate_params_legacy(
        params=parameters, search="", ignore_revlogs_before_ms=0
    )
    col.close()
    path = tmp_path / "profile" / "collection.anki2"
    assert fit_history(path).reviews == anki_items
    revlog, rollover = read_reviews(path)
    items = training_items(ReviewLog(*revlog), rollover, utc_offset=0, now=time.time())
    batch = [fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, t) for r, t in item]) for item in items]
    assert fsrs_rs.FSRS(parameters).evaluate(batch).log_loss == pytest.approx(
        theirs.log_loss, rel=1e-6
    )


@pytest.mark.anki
def test_fit_from_open_collection_reads_its_write_ahead_log(tmp_path: Path) -> None:
    """Anki may have the collection open: the reviews still in its -wal file count."""
    col = make_history(tmp_path / "profile", cards=60)
    col.db.execute("pragma journal_mode = wal")
    col.db.execute("insert into revlog values (1, 1, -1, 3, 1, 0, 0, 8000, 1)")
    revlog, _ = read_reviews(tmp_path / "profile" / "collection.anki2")
    assert 1 in revlog.millis
    col.close()


@pytest.mark.anki
def test_fit_from_colpkg_agrees_with_ankis_fit(profile: FittedProfile) -> None:
    fitted = fit_history(profile.backup)
    assert fitted.fitted and fitted.reviews == profile.items
    assert_ladders_agree(fitted.parameters, profile.anki)


@pytest.mark.anki
def test_too_short_a_history_keeps_the_defaults_with_a_warning(
    tmp_path: Path, cli: CliRun, project: Path
) -> None:
    col = make_history(tmp_path / "small", cards=3, per_day=1, days=40)
    anki, _ = anki_fit(col)
    col.close()
    assert anki == []  # Anki keeps the defaults too
    path = tmp_path / "small" / "collection.anki2"
    fitted = fit_history(path)
    assert not fitted.fitted and fitted.parameters == DEFAULT_PARAMETERS
    run = cli("preview", "cards/", "--history", path, "--json", "--days", "30")
    assert run.code == 0, run.err
    assert f"Warning: {path}: only {fitted.reviews} long-term reviews" in run.err
    one = replace(fitted, reviews=1)
    assert too_few_reviews(one, path).startswith("only 1 long-term review, too few")
    data = json.loads(run.out)
    assert data["parameters_from"] == {"history": str(path), "reviews": 4, "fitted": False}
    assert data["settings"]["parameters"] == list(DEFAULT_PARAMETERS)


@pytest.mark.anki
def test_preview_history_uses_the_fitted_parameters_and_params_wins(
    tmp_path: Path, cli: CliRun, project: Path
) -> None:
    col = make_history(tmp_path / "profile", cards=200)
    col.close()
    path = tmp_path / "profile" / "collection.anki2"
    data = json.loads(cli("preview", "cards/", "--history", path, "--json").out)
    assert data["parameters_from"]["fitted"] is True
    assert data["settings"]["parameters"] == list(fit_history(path).parameters)
    assert "fitted from" in data["settings_from"]
    given = ",".join(map(str, DEFAULT_PARAMETERS))
    both = json.loads(cli("preview", "cards/", "--history", path, "--params", given, "--json").out)
    assert both["settings"]["parameters"] == list(DEFAULT_PARAMETERS)
    assert both["parameters_from"] == {"given": "params"}
    told = cli("preview", "cards/", "--history", path, "--params", given, "--days", "30")
    assert f"Note: --history {path} is not used: --params gives the parameters" in told.err


@pytest.mark.parametrize("content", [b"not a collection", b"PK\x03\x04 broken zip"])
def test_a_file_that_is_not_a_history_is_one_message(
    tmp_path: Path, cli: CliRun, project: Path, content: bytes
) -> None:
    path = tmp_path / "x.colpkg"
    path.write_bytes(content)
    run = cli("preview", "cards/", "--history", path)
    assert run.code == 1
    assert run.err.startswith("Error: --history:") or "--history:" in run.err
    assert "Traceback" not in run.err


@pytest.mark.anki
def test_study_block_history_is_fitted_for_preview_and_build(tmp_path: Path, cli: CliRun) -> None:
    """``history:`` in the study block, relative to the card file, gives the preview the
    same fitted parameters as --history; --history on the command line wins."""
    col = make_history(tmp_path / "profile", cards=200)
    col.close()
    path = tmp_path / "profile" / "collection.anki2"
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        "deck: D\nstudy:\n  history: profile/collection.anki2\n"
        "notes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    fitted = fit_history(path)
    data = json.loads(cli("preview", deck, "--json", "--days", "30").out)
    assert data["settings"]["parameters"] == list(fitted.parameters)
    assert data["parameters_from"] == {
        "history": str(path),
        "reviews": fitted.reviews,
        "fitted": True,
    }
    other = make_history(tmp_path / "other", cards=3, per_day=1, days=40)
    other.close()
    given = tmp_path / "other" / "collection.anki2"
    wins = json.loads(cli("preview", deck, "--json", "--history", given, "--days", "30").out)
    assert wins["parameters_from"]["history"] == str(given)
    assert wins["settings"]["parameters"] == list(DEFAULT_PARAMETERS)
    few = wins["parameters_from"]["reviews"]
    text = cli("preview", deck, "--history", given, "--days", "30").out
    assert f"the defaults ({few:,} reviews in {given} are too few to fit)" in text
    built = cli("build", deck, "--out", tmp_path / "out")
    assert built.code == 0, built.err
    assert f"(FSRS parameters fitted from {fitted.reviews:,} reviews in {path})" in built.out
    assert "'history'" not in built.err


@pytest.mark.anki
def test_build_and_check_warn_about_a_study_block_history_too_short_to_fit(
    tmp_path: Path, cli: CliRun
) -> None:
    """Below what FSRS's optimizer needs, the defaults are used, with a warning at the
    history's line, and build's preview line says so."""
    col = make_history(tmp_path / "small", cards=3, per_day=1, days=40)
    col.close()
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        "deck: D\nstudy:\n  history: small/collection.anki2\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    warning = f"{deck}:3: warning: 'history' {tmp_path / 'small' / 'collection.anki2'}: only 4"
    for command in ("build", "check", "preview"):
        run = (
            cli(command, deck, "--out", tmp_path / "out")
            if command == "build"
            else cli(command, deck)
        )
        assert run.code == 0, run.err
        assert warning in run.err, command
        assert "the default parameters are used" in run.err
    built = cli("build", deck, "--out", tmp_path / "out")
    assert "(default FSRS parameters: the study block's history cannot be used)" in built.out


def test_a_study_block_history_that_is_not_one_is_an_error_at_its_line(
    tmp_path: Path, cli: CliRun
) -> None:
    (tmp_path / "backup.colpkg").write_bytes(b"not a collection")
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        "deck: D\nstudy:\n  new_per_day: 5\n  history: backup.colpkg\n"
        "notes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    run = cli("preview", deck)
    assert run.code == 1 and "Traceback" not in run.err
    assert f"{deck}:4: 'history': " in run.err


def test_build_and_check_warn_about_a_study_block_history_they_cannot_read(
    tmp_path: Path, cli: CliRun
) -> None:
    """The history only shapes the preview: build writes the package with the default
    parameters in its preview line, and says why on stderr; check says it too."""
    (tmp_path / "backup.colpkg").write_bytes(b"not a collection")
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        "deck: D\nstudy:\n  new_per_day: 5\n  history: backup.colpkg\n"
        "notes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    warning = (
        f"{deck}:4: warning: 'history' cannot be used: {tmp_path / 'backup.colpkg'}: "
        "not an Anki collection or package"
    )
    built = cli("build", deck, "--out", tmp_path / "out")
    assert built.code == 0, built.err
    assert (tmp_path / "out" / "deck.apkg").is_file()
    assert warning in built.err and "the preview uses the default parameters" in built.err
    assert "(default FSRS parameters: the study block's history cannot be used)" in built.out
    plain = tmp_path / "plain.yaml"
    plain.write_text(
        "deck: D\nstudy:\n  new_per_day: 5\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    same = cli("build", plain, "--out", tmp_path / "out2")
    assert built.out.splitlines()[0].split(" (default FSRS")[0] == same.out.splitlines()[0]
    checked = cli("check", deck)
    assert checked.code == 0 and warning in checked.err
    as_json = cli("build", deck, "--out", tmp_path / "out3", "--json")
    assert as_json.code == 0 and warning in as_json.err
    json.loads(as_json.out)


def test_an_apkg_without_scheduling_says_how_to_export_one_with_it(
    tmp_path: Path, cli: CliRun, project: Path
) -> None:
    built = cli("build", "cards/", "--lang", "en", "--out", tmp_path / "out", "--no-preview")
    assert built.code == 0, built.err
    (package,) = (tmp_path / "out").glob("*.apkg")
    run = cli("preview", "cards/", "--history", package, "--days", "30")
    assert run.code == 0, run.err
    assert "the package holds no review history" in run.err
    assert '"Include scheduling information"' in run.err
    assert "only 0 long-term reviews" not in run.err


def test_a_history_that_is_a_folder_says_so(tmp_path: Path, cli: CliRun, project: Path) -> None:
    run = cli("preview", "cards/", "--history", tmp_path)
    assert run.code == 1 and f"--history: {tmp_path} is a folder" in run.err


# -- histories past the bounds (issue 45) ---------------------------------------------------


def _revlog(cards: int, answers: int, first: int = 1_000_000_000_000) -> list[tuple[int, ...]]:
    """(id, cid, ease, type, factor) rows: each card learned, then answered Good every
    three days (from 2001: 1,000 answers end in 2009, before today, as Anki dates them)."""
    rows = []
    for card in range(cards):
        start = first + card * 1000
        rows.append((start, 10_000 + card, 3, 0, 2500))
        rows += [(start + k * 259_200_000, 10_000 + card, 3, 1, 2500) for k in range(1, answers)]
    return rows


def _history(path: Path, rows: list[tuple[int, ...]]) -> Path:
    from tests.anki.anki_files import collection

    return collection(path, revlog=sorted(rows, key=lambda row: (row[1], row[0])))


FAR = 1 << 62  # milliseconds: 146 million years on


def test_a_review_dated_past_what_anki_writes_is_refused_by_name(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reviews 2**62 ms apart ended check and build in exit 3 (an overflow in the fit);
    the entry is named, with the dates Anki writes."""
    monkeypatch.chdir(tmp_path)
    _history(tmp_path / "far.anki2", [*_revlog(20, 6), (FAR, 10_000, 3, 1, 2500)])
    (tmp_path / "deck.yaml").write_text(
        "deck: D\nid: d\nstudy:\n  history: far.anki2\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    named = (
        f"far.anki2: its review log holds an entry dated after the year 9999 (id {FAR}, card "
        "10000); Anki dates every answer it logs, in milliseconds since 1970, between 1970 "
        "and 2100: this is not a review history Anki wrote"
    )
    for command in ("check", "build"):
        run = cli(command, "deck.yaml")
        assert run.code == 0, run.err
        assert f"deck.yaml:4: warning: 'history' cannot be used: {named}; the preview" in run.err
    preview = cli("preview", "deck.yaml", "--history", "far.anki2", "--days", "30")
    assert preview.code == 1
    assert preview.err.splitlines() == [f"Error: --history: {named}"]


def test_a_history_too_long_to_fit_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """300 cards answered 1,000 times each: 67 million answers to train on, which took
    1.7 GB and more (a 29 MB history died by SIGABRT under a 1.5 GB cap, with no
    message). Refused in one line, under a 1 GB cap on the process's address space."""
    import os
    import resource
    import subprocess
    import sys

    from tests.conftest import ROOT

    _history(tmp_path / "dense.anki2", _revlog(300, 1000))
    (tmp_path / "deck.yaml").write_text(
        "deck: D\nid: d\nnotes: [{id: a, front: f, back: b}]\n", encoding="utf-8"
    )
    cap = 1 << 30

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    run = subprocess.run(
        [sys.executable, "-m", "deckbuilder", "preview", "deck.yaml", "--history", "dense.anki2"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        preexec_fn=capped,
    )
    assert run.returncode == 1, run.stderr[-2000:]
    assert run.stderr.splitlines() == [
        "Error: --history: dense.anki2: its 300,000 review log entries make 67,453,800 "
        "answers to train on, over the 20,000,000 a fit takes (its memory and time grow with "
        "them); export a smaller one (only the decks in question, with scheduling) or give "
        "the FSRS parameters Anki's deck options show instead"
    ]


def test_a_history_of_too_many_entries_is_refused_before_it_is_read_whole(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deckbuilder.anki import collection

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(collection, "MAX_REVIEW_LOG_ENTRIES", 100)
    _history(tmp_path / "long.anki2", _revlog(30, 4))
    (tmp_path / "deck.yaml").write_text(
        "deck: D\nid: d\nnotes: [{id: a, front: f, back: b}]\n", encoding="utf-8"
    )
    run = cli("preview", "deck.yaml", "--history", "long.anki2", "--days", "30")
    assert run.code == 1
    assert run.err.splitlines() == [
        "Error: --history: long.anki2: its review log holds over 100 entries, more than a "
        "history is read for; export a smaller one (only the decks in question, with "
        "scheduling) or give the FSRS parameters Anki's deck options show instead"
    ]
