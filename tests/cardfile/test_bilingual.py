"""Bilingual decks: languages:, language maps, --lang and --fallback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.errors import DeckError
from deckbuilder.model import McqNote
from tests.app_calls import check_decks
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, Run

CliRun = Callable[..., Run]
WORDS = DATA / "bilingual" / "words.yaml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("lang", "name", "question", "first"),
    [
        (None, "Words", 'Which of these mean the Korean word "정답"?', "correct answer"),
        ("en", "Words", 'Which of these mean the Korean word "정답"?', "correct answer"),
        ("ko", "낱말", '"정답"과 뜻이 같은 것을 모두 고르세요.', "옳은 답"),
    ],
)
def test_language_maps_resolve_to_one_language(
    lang: str | None, name: str, question: str, first: str
) -> None:
    deck = load_deck(WORDS, lang=lang)
    (note,) = deck.notes
    assert isinstance(note, McqNote)
    assert (deck.name, note.question, note.choices[0]) == (name, question, first)
    assert deck.key == f"words.{lang or 'en'}" and deck.languages == ("en", "ko", "fr")


def test_all_languages_and_a_plain_name_is_suffixed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "deck: Topic\nid: t\nlanguages: [ko, en]\nnotes:\n"
        "  - {id: a, front: {ko: 앞, en: front}, back: '`code`'}\n",
    )
    decks = load_deck_languages(path, lang="all")
    assert [(d.key, d.name, d.lang) for d in decks] == [
        ("t.ko", "Topic (ko)", "ko"),
        ("t.en", "Topic (en)", "en"),
    ]
    assert [d.notes[0].texts() for d in decks] == [
        {"front": "앞", "back": "`code`"},
        {"front": "front", "back": "`code`"},
    ]


def test_deck_without_languages_is_unchanged() -> None:
    deck = load_deck(DATA / "mixed.yaml", lang="ko")
    assert deck.key == "mixed" and deck.lang == "" and "(ko)" not in deck.name


MISSING = (
    "deck: D\nlanguages: [ko, en]\nnotes:\n"
    "  - id: a\n"
    "    front:\n"
    "      ko: 앞\n"
    "    back: {ko: 뒤, en: back}\n"
)


def test_missing_language_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, MISSING)
    load_deck(path)  # ko, the default, is complete
    with pytest.raises(DeckError) as exc:
        load_deck_languages(path, lang="all")
    (problem,) = exc.value.problems
    assert (problem.line, problem.note) == (6, "a")
    assert "'front' has no 'en' text" in problem.message and "--fallback" in problem.message


def test_fallback_uses_the_default_language_and_warns(tmp_path: Path) -> None:
    path = write(tmp_path, MISSING)
    deck = load_deck(path, lang="en", fallback=True)
    assert deck.notes[0].texts() == {"front": "앞", "back": "back"}
    (warning,) = deck.warnings
    assert warning.line == 6 and "no 'en' text; using the 'ko' text" in warning.message
    (rendered,) = check_decks([path], lang="en", fallback=True)
    assert warning in rendered.warnings


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "deck: D\nnotes:\n  - {id: a, front: {ko: 앞}, back: b}\n",
            3,
            "'front' is a language map; declare the deck's languages first",
        ),
        (
            "deck: D\nlanguages: [ko]\nnotes:\n  - id: a\n    front: {ko: 앞, fr: avant}\n    back: b\n",
            5,
            "'front' has text in 'fr', a language the deck does not declare",
        ),
        ("deck: D\nlanguages: []\nnotes:\n  - {id: a, front: f, back: b}\n", 2, "'languages'"),
        ("deck: D\nlanguages: ko\nnotes:\n  - {id: a, front: f, back: b}\n", 2, "'languages'"),
        (
            "deck: D\nlanguages: [ko, Korean]\nnotes:\n  - {id: a, front: f, back: b}\n",
            2,
            "language 'Korean' is not a language code",
        ),
        (
            "deck: D\nlanguages: [ko, ko]\nnotes:\n  - {id: a, front: f, back: b}\n",
            2,
            "language 'ko' is listed twice",
        ),
        (
            "deck: D\nlanguages: [KO]\nnotes:\n  - {id: a, front: f, back: b}\n",
            2,
            "language 'KO' is not a language code like ko, en or pt-BR (write 'ko')",
        ),
        (
            "deck: D\nlanguages: [ko, pt_BR]\nnotes:\n  - {id: a, front: f, back: b}\n",
            2,
            "language 'pt_BR' is not a language code like ko, en or pt-BR (write 'pt-BR')",
        ),
        (
            "deck: D\nlanguages: [ko, en]\nnotes:\n  - id: a\n    text:\n"
            "      ko: '{{c1::가}} {{c2::나}}'\n      en: '{{c1::a}} b'\n",
            6,
            "number their deletions differently (ko: c1, c2; en: c1)",
        ),
        (
            "deck: D\nlanguages: [ko]\nnotes:\n  - {id: {ko: a}, front: f, back: b}\n",
            4,
            "'id' must be text, not a mapping",
        ),
    ],
)
def test_language_mistakes(tmp_path: Path, text: str, line: int, message: str) -> None:
    with pytest.raises(DeckError) as exc:
        load_deck_languages(write(tmp_path, text), lang="all")
    assert any(p.line == line and message in p.message for p in exc.value.problems), (
        exc.value.problems
    )


@pytest.mark.parametrize(
    ("languages", "first", "second"),
    [("[ko, KO]", "ko", "KO"), ("[en, ko, EN]", "en", "EN"), ("[pt-BR, pt-br]", "pt-BR", "pt-br")],
)
def test_languages_differing_only_in_case_are_an_error_naming_both(
    tmp_path: Path, cli: CliRun, languages: str, first: str, second: str
) -> None:
    """<id>.ko.apkg and <id>.KO.apkg are one file on macOS and Windows: one language's
    package would overwrite the other's."""
    path = write(
        tmp_path,
        f"deck: D\nid: d\nlanguages: {languages}\nnotes:\n  - {{id: a, front: f, back: b}}\n",
    )
    result = cli("build", path, "--out", tmp_path / "out")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        f"{path}:3: languages '{first}' and '{second}' differ only in case; their packages "
        "would be the same file on macOS and Windows"
    )
    assert "Traceback" not in result.err and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("written", "meant"), [("EN", "en"), ("pt_BR", "pt-BR"), ("ALL", "all")])
def test_a_lang_option_in_another_case_gets_the_hint_a_file_gets(
    cli: CliRun, written: str, meant: str
) -> None:
    """A card file's 'EN' is told to be written 'en'; --lang EN was refused without it."""
    bad = cli("check", WORDS, "--lang", written)
    assert bad.code == 1 and f"did you mean '{meant}'?" in bad.err, bad.err


def test_cli_lang_options(tmp_path: Path, cli: CliRun) -> None:
    unknown = cli("check", WORDS, "--lang", "de")
    assert unknown.code == 1
    assert "no language 'de' in this deck; it declares en, ko, fr" in unknown.err
    bad = cli("check", WORDS, "--lang", "Korean!")
    assert bad.code == 1 and "--lang: must be a language code" in bad.err
    path = write(tmp_path, MISSING)
    warned = cli("check", path, "--fallback")
    assert warned.code == 0 and "warning [fallback]: 'front' has no 'en' text" in warned.err
    assert cli("check", path).code == 1


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("en: [x]", "'front' in 'en' must be text, not a list"),
        ("en: null", "'front' in 'en' must be text, not nothing"),
        ("en: {a: b}", "'front' in 'en' must be text, not a mapping"),
    ],
)
def test_a_language_whose_text_is_not_text_is_named(
    tmp_path: Path, entry: str, message: str
) -> None:
    """A list in one language of an inline map was told to quote the whole map
    ("write front: '{ko: 앞, en: [x]}'"), and no language was named."""
    path = write(
        tmp_path,
        f"deck: D\nlanguages: [ko, en]\nnotes:\n  - id: a\n    front: {{ko: 앞, {entry}}}\n"
        "    back: b\n",
    )
    with pytest.raises(DeckError) as exc:
        load_deck_languages(path, lang="all")
    assert [(p.line, p.message) for p in exc.value.problems] == [(5, message)]


def test_choices_written_per_language_are_told_to_map_each_choice(tmp_path: Path) -> None:
    """A list per language ('choices: {ko: [가, 나], en: [a, b]}') was told to write the
    choices in brackets, which it did; the answer letters are shared, so each choice is
    the language map."""
    path = write(
        tmp_path,
        "deck: D\nlanguages: [ko, en]\nnotes:\n  - id: a\n    question: q\n"
        "    choices: {ko: [가, 나], en: [a, b]}\n    answer: A\n",
    )
    with pytest.raises(DeckError) as exc:
        load_deck_languages(path, lang="all")
    assert [(p.line, p.message) for p in exc.value.problems] == [
        (
            6,
            "'choices' is one list for every language, as the answer letters are; give each "
            "choice its own language map: choices: [{ko: ..., en: ...}, {ko: ..., en: ...}]",
        )
    ]
