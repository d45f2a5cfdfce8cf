"""A card file renamed or moved keeps its notes' identities (issue 45).

Anki knows a note by a GUID made from its deck id and note id, and a deck id is the card
file's name unless it says ``id:``. Renaming a card file without ``id:`` silently started
a new deck: every note a new GUID, learners given every note again, the old lock file
never mentioned. Moving a card file into a subfolder left its lock file behind, so every
note got a new Anki note id ("2 notes added"). Now a moved card file takes its lock file
along, and a build that finds the lock file of a deck no card file has says what to do.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, import_package

CliRun = Callable[..., Run]

DECK = (
    "deck: {name}\n{header}notes:\n  - {{id: a, front: one, back: uno}}\n"
    "  - {{id: b, front: two, back: dos}}\n"
)


@pytest.fixture
def cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    return Path("cards")


def write(path: Path, name: str = "Deck", header: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DECK.format(name=name, header=header), encoding="utf-8")
    return path


def build(cli: CliRun, *args: str | Path) -> Run:
    return cli("build", "--no-preview", *args)


def test_a_card_file_moved_into_a_subfolder_takes_its_lock_file_along(
    cards: Path, cli: CliRun
) -> None:
    write(cards / "deck.yaml")
    assert build(cli).code == 0
    lock = (cards / "deck.lock").read_bytes()
    (cards / "topics").mkdir()
    (cards / "deck.yaml").rename(cards / "topics" / "deck.yaml")

    result = build(cli)
    assert result.code == 0, result.err
    assert "since last build: 0 added, 0 changed, 0 removed, 2 unchanged" in result.out
    assert (
        "  lock  cards/topics/deck.lock (moved from cards/deck.lock, beside its card file; "
        "commit both)"
    ) in result.out
    assert not (cards / "deck.lock").exists()
    assert (cards / "topics" / "deck.lock").read_bytes() == lock  # the same ids and times
    assert result.err == ""

    again = cli("build", "--no-preview", "--json")
    (package,) = json.loads(again.out)["decks"]
    assert package["lock"] == "cards/topics/deck.lock" and package["lock_moved_from"] is None
    assert not package["lock_written"]


def test_a_card_file_moved_and_renamed_with_its_id_takes_its_lock_file_along(
    cards: Path, cli: CliRun
) -> None:
    write(cards / "old.yaml", header="id: kept\n")
    assert build(cli).code == 0
    ids = (cards / "kept.lock").read_text(encoding="utf-8").split("# note", 1)[1]
    (cards / "sub").mkdir()
    (cards / "old.yaml").rename(cards / "sub" / "new.yaml")
    result = build(cli, cards / "sub" / "new.yaml")  # built alone, it still finds it
    assert result.code == 0, result.err
    assert "0 added, 0 changed, 0 removed, 2 unchanged" in result.out
    moved = (cards / "sub" / "kept.lock").read_text(encoding="utf-8")
    assert "for deck 'kept' (new.yaml)" in moved and moved.endswith(ids)
    assert not (cards / "kept.lock").exists()


@pytest.mark.anki
def test_a_moved_card_files_rebuild_imports_as_no_new_note(
    cards: Path, cli: CliRun, collection: Any
) -> None:
    """Measured with Anki: the rebuild of a moved card file is the same deck to a learner."""
    write(cards / "deck.yaml")
    assert build(cli).code == 0
    first = import_package(collection, Path("output") / "deck.apkg")
    assert len(first.new) == 2
    ids = sorted(collection.find_notes(""))
    (cards / "sub").mkdir()
    (cards / "deck.yaml").rename(cards / "sub" / "deck.yaml")
    assert build(cli).code == 0
    log = import_package(collection, Path("output") / "deck.apkg")
    assert not log.new and not log.updated and not log.conflicting
    assert len(log.duplicate) == 2
    assert sorted(collection.find_notes("")) == ids


def test_a_card_file_renamed_without_id_is_refused_with_what_to_do(
    cards: Path, cli: CliRun
) -> None:
    write(cards / "old.yaml")
    assert build(cli).code == 0
    (cards / "old.yaml").rename(cards / "new.yaml")
    result = build(cli)
    assert result.code == 1
    assert result.err.splitlines() == [
        "cards/new.yaml: deck 'new' has no lock file, but cards/old.lock belongs to deck "
        "'old' (old.yaml), which no card file has now, and holds 2 of its 2 note ids: if you "
        "renamed old.yaml to new.yaml, add 'id: old' to it to keep its notes' identities "
        "(without it learners get every note again, as new); if it is a new deck, delete "
        "cards/old.lock",
        "1 problem found; nothing was written.",
    ]
    assert not (cards / "new.lock").exists() and not Path("output/new.apkg").exists()

    text = (cards / "new.yaml").read_text(encoding="utf-8")
    (cards / "new.yaml").write_text(text.replace("notes:", "id: old\nnotes:"), "utf-8")
    result = build(cli)
    assert result.code == 0, result.err
    assert "0 added, 0 changed, 0 removed, 2 unchanged" in result.out
    assert "for deck 'old' (new.yaml)" in (cards / "old.lock").read_text(encoding="utf-8")
    assert result.err == ""


def test_a_bilingual_card_file_renamed_without_id_is_refused_per_language(
    cards: Path, cli: CliRun
) -> None:
    (cards / "topic.yaml").write_text(
        "deck: {en: Topic, ko: 주제}\nlanguages: [en, ko]\nnotes:\n"
        "  - {id: a, front: {en: one, ko: 하나}, back: {en: uno, ko: 일}}\n",
        encoding="utf-8",
    )
    assert build(cli).code == 0
    (cards / "topic.yaml").rename(cards / "subject.yaml")
    result = build(cli)
    assert result.code == 1
    lines = result.err.splitlines()
    assert [line.split(" but ")[1].split(",")[0] for line in lines[:-1]] == [
        "cards/topic.en.lock belongs to deck 'topic.en' (topic.yaml)",
        "cards/topic.ko.lock belongs to deck 'topic.ko' (topic.yaml)",
    ]
    assert all("add 'id: topic' to it" in line for line in lines[:-1])


def test_a_new_deck_beside_an_unrelated_lost_lock_file_is_not_refused(
    cards: Path, cli: CliRun
) -> None:
    """Only a first build whose notes the lost lock file holds looks like a rename."""
    (cards / "old.yaml").write_text(
        "deck: Old\nnotes:\n  - {id: x, front: f, back: b}\n", encoding="utf-8"
    )
    assert build(cli).code == 0
    (cards / "old.yaml").unlink()
    write(cards / "new.yaml")
    result = build(cli)
    assert result.code == 0, result.err
    (told,) = result.err.splitlines()
    assert told.startswith(
        "cards/old.lock: warning: belongs to deck 'old' (old.yaml), which no card file has "
        "now: if you renamed old.yaml, add 'id: old' to the renamed card file to keep its "
        "notes' identities; if you deleted the deck, delete its notes in Anki (learners keep "
        'them; search the browser for "deck:Old" -"deck:Old::*" nid:'
    )
    assert told.endswith("), then delete this lock file")


def test_a_lock_file_of_a_deleted_deck_is_told_only_when_every_card_file_is_built(
    cards: Path, cli: CliRun
) -> None:
    write(cards / "a.yaml")
    write(cards / "c.yaml")
    (cards / "b.yaml").write_text(
        "deck: B\nnotes:\n  - {id: x, front: f, back: b}\n", encoding="utf-8"
    )
    assert build(cli).code == 0
    (cards / "b.yaml").unlink()
    told = "cards/b.lock: warning: belongs to deck 'b' (b.yaml), which no card file has now"
    assert build(cli).err.startswith(told)
    # Built alone, a.yaml cannot tell whether c.yaml now says 'id: b'.
    assert build(cli, cards / "a.yaml").err == ""


def test_a_card_file_whose_deck_id_changed_is_refused(cards: Path, cli: CliRun) -> None:
    write(cards / "deck.yaml", header="id: one\n")
    assert build(cli).code == 0
    write(cards / "deck.yaml", header="id: two\n")
    result = build(cli)
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "cards/deck.yaml: deck 'two' has no lock file, but cards/one.lock belongs to deck "
        "'one' as deck.yaml was last built, and holds 2 of its 2 note ids: if you changed "
        "its id, change it back to 'id: one' to keep its notes' identities (without it "
        "learners get every note again, as new); if it is a new deck, delete cards/one.lock"
    )


def test_a_card_file_copied_with_its_deck_id_is_refused_when_built_alone(
    cards: Path, cli: CliRun
) -> None:
    """Two card files with one deck id are refused by a build of both; built alone, the
    copy found the other's lock file nowhere and wrote a second one, with the same GUIDs."""
    write(cards / "a" / "intro.yaml")
    assert build(cli).code == 0
    shutil.copytree(cards / "a", cards / "b", ignore=shutil.ignore_patterns("*.lock"))
    result = build(cli, cards / "b" / "intro.yaml")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "cards/b/intro.yaml: deck id 'intro' is also used by cards/a/intro.yaml; both would "
        "be written to the same package (set a different 'id:')"
    )
    assert not (cards / "b" / "intro.lock").exists()


def test_an_old_copy_of_a_moved_lock_file_is_told(cards: Path, cli: CliRun) -> None:
    """A build killed between writing the moved lock file and removing the old one."""
    write(cards / "deck.yaml")
    assert build(cli).code == 0
    (cards / "sub").mkdir()
    (cards / "deck.yaml").rename(cards / "sub" / "deck.yaml")
    shutil.copyfile(cards / "deck.lock", cards / "sub" / "deck.lock")
    result = build(cli)
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        "cards/deck.lock: warning: an old copy of deck 'deck''s lock file, which is "
        "cards/sub/deck.lock beside its card file now: delete this one"
    ]


@pytest.mark.parametrize("name", ["../../secret.yaml", "a\x00b.yaml", "x" * 5000 + ".yaml", ""])
def test_a_lock_file_header_naming_no_plain_card_file_names_none(
    cards: Path, cli: CliRun, name: str
) -> None:
    """A lock file's header is text anyone may have typed: it never leads out of its folder,
    nor to a crash."""
    write(cards / "deck.yaml")
    assert build(cli).code == 0
    text = (cards / "deck.lock").read_text(encoding="utf-8")
    (cards / "stray.lock").write_text(
        text.replace("for deck 'deck' (deck.yaml)", f"for deck 'stray' ({name})"), "utf-8"
    )
    result = build(cli)
    assert result.code == 0, result.err
    if len(name) > 100:  # a plain name, of a card file that is not there: shown cut short
        assert result.err.startswith("cards/stray.lock: warning: belongs to deck 'stray' (xx")
        assert "… (5,005 characters)), which no card file has now" in result.err
    else:
        assert "stray" not in result.err


BILINGUAL = (
    "deck: Topic\n{languages}notes:\n  - {{id: a, front: {a}, back: uno}}\n"
    "  - {{id: b, front: {b}, back: dos}}\n"
)


@pytest.mark.parametrize(
    ("before", "after", "told"),
    [
        (
            "",
            "languages: [en, ko]\n",
            "topic.yaml had no 'languages:' then, and each language of a card file with "
            "'languages:' is a deck of its own: leave 'languages:' out and give the other "
            "languages card files of their own to keep its notes' identities",
        ),
        (
            "languages: [en]\n",
            "",
            "'en' was one of its 'languages:' then: write 'languages: [en]' to keep its "
            "notes' identities",
        ),
        (
            "languages: [en]\n",
            "languages: [en-GB]\n",
            "'en' was one of its 'languages:' then: if you renamed it to 'en-GB', change it "
            "back to keep its notes' identities",
        ),
    ],
)
def test_a_card_file_whose_languages_changed_is_told_so_not_to_change_its_id_back(
    cards: Path, cli: CliRun, before: str, after: str, told: str
) -> None:
    """Adding 'languages:' to a shared deck gives each language a deck id of its own
    ('topic.en'): the build was refused, telling the author to "change it back to
    'id: topic'", the id the file already had."""

    def card_file(languages: str) -> None:
        keyed = languages.strip().startswith("languages: [en,")
        a, b = ("{en: one, ko: 하나}", "{en: two, ko: 둘}") if keyed else ("one", "two")
        (cards / "topic.yaml").write_text(
            BILINGUAL.format(languages=languages, a=a, b=b), encoding="utf-8"
        )

    card_file(before)
    assert build(cli).code == 0
    card_file(after)
    result = build(cli)
    assert result.code == 1
    assert told in result.err
    assert "change it back to 'id: topic'" not in result.err


def test_a_language_removed_from_a_card_file_leaves_its_lock_file_told_as_such(
    cards: Path, cli: CliRun
) -> None:
    (cards / "topic.yaml").write_text(
        BILINGUAL.format(languages="languages: [en, ko]\n", a="one", b="two"), encoding="utf-8"
    )
    assert build(cli).code == 0
    (cards / "topic.yaml").write_text(
        BILINGUAL.format(languages="languages: [en]\n", a="one", b="two"), encoding="utf-8"
    )
    result = build(cli)
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        "cards/topic.ko.lock: warning: belongs to deck 'topic.ko', the 'ko' language of "
        "topic.yaml as it was last built, but topic.yaml is now deck 'topic.en': to keep "
        "building that language, add 'ko' to its 'languages:'; if you removed it, delete "
        "this lock file"
    ]


def test_a_note_type_declaration_moved_into_its_card_file_is_told_how_to_keep_its_id(
    cards: Path, cli: CliRun
) -> None:
    """A shared note type moved into the one card file that uses it gets another id (a
    card file's own is scoped by its deck): same fields, so the build says so, not "new
    fields", and tells the anki_id that keeps the notes updating in place."""
    declaration = (
        "fields: [Korean, English]\ncards:\n"
        "  - {name: Recognition, front: '{{Korean}}', back: '{{English}}'}\n"
    )
    Path("note-types").mkdir()
    Path("note-types/vocab.yaml").write_text(declaration, encoding="utf-8")
    notes = "notes:\n  - {id: hi, type: vocab, fields: {Korean: 안녕, English: hi}}\n"
    (cards / "words.yaml").write_text("deck: Words\n" + notes, encoding="utf-8")
    assert build(cli).code == 0
    old_id = next(
        line.split()[2]
        for line in (cards / "words.lock").read_text(encoding="utf-8").splitlines()
        if line.startswith("notetype vocab ")
    )
    Path("note-types/vocab.yaml").unlink()
    inline = "".join(f"    {line}\n" for line in declaration.splitlines())
    text = f"deck: Words\nnote_types:\n  vocab:\n{inline}{notes}"
    (cards / "words.yaml").write_text(text, encoding="utf-8")
    moved = build(cli)
    assert moved.code == 0, moved.err
    assert "has new fields" not in moved.out
    assert f"has a new id, with the same fields (was {old_id})" in moved.out
    assert f"write 'anki_id: {old_id}' in its declaration" in moved.err
    (cards / "words.yaml").write_text(
        text.replace("  vocab:\n", f"  vocab:\n    anki_id: {old_id}\n"), encoding="utf-8"
    )
    assert build(cli).code == 0
    lock = (cards / "words.lock").read_text(encoding="utf-8")
    assert f"notetype vocab {old_id} " in lock


@pytest.mark.anki
def test_a_note_moved_to_another_card_file_with_its_guid_is_not_advised_for_deletion(
    cards: Path, cli: CliRun, collection: Any
) -> None:
    """A deck split in two: a note moved to the new card file with a ``guid:`` of its old
    GUID is the same note to Anki, which updates it in place with its reviews. The old
    deck's removal search named its Anki note id: following it deleted that very note."""
    from deckbuilder.anki.identity import note_guid

    write(cards / "deck.yaml")
    assert build(cli).code == 0
    import_package(collection, Path("output") / "deck.apkg")
    ids = sorted(collection.find_notes(""))
    (cards / "deck.yaml").write_text(
        "deck: Deck\nnotes:\n  - {id: a, front: one, back: uno}\n", encoding="utf-8"
    )
    guid = json.dumps(note_guid("deck", "b"))
    (cards / "more.yaml").write_text(
        f"deck: Deck::More\nnotes:\n  - {{id: b, guid: {guid}, front: two, back: dos}}\n",
        encoding="utf-8",
    )
    result = build(cli)
    assert result.code == 0, result.err
    assert "0 removed" in result.out and "nid:" not in result.out
    assert "note 'b': warning" in result.err and "deck 'more'" in result.err
    for package in ("deck", "more"):
        log = import_package(collection, Path("output") / f"{package}.apkg")
        assert not log.new
    assert sorted(collection.find_notes("")) == ids


def test_a_note_moved_to_another_card_file_is_told_how_to_keep_its_reviews(
    cards: Path, cli: CliRun
) -> None:
    """A deck split in two: a note moved to another card file gets a new GUID there (a
    note's GUID comes from its deck id), so learners get it again, as new, and its
    reviews stay with the old note. The build says so, with the guid: that keeps it."""
    from deckbuilder.anki.identity import note_guid

    write(cards / "deck.yaml")
    assert build(cli).code == 0
    (cards / "deck.yaml").write_text(
        "deck: Deck\nnotes:\n  - {id: a, front: one, back: uno}\n", encoding="utf-8"
    )
    (cards / "more.yaml").write_text(
        "deck: Deck::More\nnotes:\n  - {id: b, front: two, back: dos}\n", encoding="utf-8"
    )
    result = build(cli)
    assert result.code == 0, result.err
    guid = json.dumps(note_guid("deck", "b"))
    assert (
        f"cards/more.yaml:3: note 'b': warning: note 'b' of deck 'deck' (deck.yaml) left it for "
        "this card file: to Anki this is a new note, which learners get again, as new, while "
        "its reviews stay with the old one; to keep that note and its reviews, add "
        f"'guid: {guid}' to this note"
    ) in result.err


@pytest.mark.anki
def test_a_deleted_decks_lock_file_gives_the_search_for_its_notes(
    cards: Path, cli: CliRun, collection: Any
) -> None:
    """A card file deleted (or merged into another): its notes stay in learners'
    collections, and its lock file holds their Anki note ids. The warning told to delete
    the lock file, after which nothing could find them; it gives the search first."""
    write(cards / "a.yaml")
    (cards / "b.yaml").write_text(
        "deck: Moons\nnotes:\n  - {id: x, front: f, back: b}\n", encoding="utf-8"
    )
    assert build(cli).code == 0
    import_package(collection, Path("output") / "b.apkg")
    (nid,) = collection.find_notes("")
    (cards / "b.yaml").unlink()
    err = build(cli).err
    assert "cards/b.lock: warning: belongs to deck 'b' (b.yaml)" in err
    search = err.split("search the browser for ")[1].split(")")[0]
    assert search == f'"deck:Moons" -"deck:Moons::*" nid:{nid}'
    assert collection.find_notes(search) == [nid]


def test_a_note_of_a_deleted_card_file_moved_into_another_is_told_how_to_keep_its_reviews(
    cards: Path, cli: CliRun
) -> None:
    """Two decks merged into one card file: the other card file deleted, its notes
    moved. Each moved note is new to Anki unless it keeps its old GUID."""
    from deckbuilder.anki.identity import note_guid

    write(cards / "a.yaml")
    (cards / "b.yaml").write_text(
        "deck: Moons\nnotes:\n  - {id: x, front: f, back: b}\n", encoding="utf-8"
    )
    assert build(cli).code == 0
    (cards / "b.yaml").unlink()
    lock = (cards / "a.lock").read_bytes()
    with (cards / "a.yaml").open("a", encoding="utf-8") as card_file:
        card_file.write("  - {id: x, front: f, back: b}\n")
    err = build(cli).err
    guid = json.dumps(note_guid("b", "x"))
    assert (
        "cards/a.yaml:5: note 'x': warning: note 'x' of deck 'b' (b.yaml) left it for this "
        "card file: to Anki this is a new note"
    ) in err and f"add 'guid: {guid}' to this note" in err

    # With the guid: it is the old note: the deleted deck's search leaves it out, and the
    # note is not told again (built as if the guid: came in the same build).
    (cards / "a.lock").write_bytes(lock)
    text = (cards / "a.yaml").read_text(encoding="utf-8")
    (cards / "a.yaml").write_text(text.replace("{id: x,", f"{{id: x, guid: {guid},"), "utf-8")
    again = build(cli).err
    assert "cards/a.yaml:5" not in again and "deck:Moons" not in again, again


def test_a_note_kept_by_a_guid_in_a_card_file_not_built_is_not_advised_for_deletion(
    cards: Path, cli: CliRun
) -> None:
    """Built alone, the old deck of a note moved with its guid: to another card file
    still advised deleting it: the search found the note the other deck keeps."""
    from deckbuilder.anki.identity import note_guid

    write(cards / "deck.yaml")
    assert build(cli).code == 0
    (cards / "deck.yaml").write_text(
        "deck: Deck\nnotes:\n  - {id: a, front: one, back: uno}\n", encoding="utf-8"
    )
    guid = json.dumps(note_guid("deck", "b"))
    (cards / "more.yaml").write_text(
        f"deck: More\nnotes:\n  - {{id: b, guid: {guid}, front: two, back: dos}}\n",
        encoding="utf-8",
    )
    result = build(cli, cards / "deck.yaml")
    assert result.code == 0, result.err
    assert "nid:" not in result.out and "deck 'more'" in result.err
