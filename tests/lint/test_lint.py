"""`deckbuilder lint`: item-writing flaws planted in decks kept outside the project are each
named with their note and FILE:LINE; clean notes never are; a deck with warnings still
builds; opt-outs, --strict and --json."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.reader import load_decks
from deckbuilder.lint import lint_decks
from deckbuilder.lint.normalise import plain
from deckbuilder.lint.rules import (
    _ABOVE,
    _ABOVE_WORD,
    _REFERENCE,
    _REFERENCE_WORD,
    _folded,
    speaks_of_choices_above,
)
from deckbuilder.model import LINT_RULES
from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]

# Each planted flaw is marked on the line lint must name: "# expect: CODE" (after text in
# quotes: a comment after plain card text is refused). Notes whose id starts with
# "clean-" must never be named.
PLANTED = """\
deck: Planted
id: planted
notes:
  - id: above-shuffled
    question: Which of these are prime numbers?
    choices:
      - Two
      - Three
      - Five
      - "All of the above"  # expect: above-choice
    answer: D
  - id: clean-above-pinned
    question: Which planet is the largest?
    choices:
      - Earth
      - Mars
      - Venus
      - {text: None of the above, pin: true}
    answer: D
  - id: clean-above-unshuffled
    question: Which gas do plants give off?
    shuffle: false
    choices: [Oxygen, Helium, None of the above]
    answer: A
  - id: above-not-last
    shuffle: false
    question: Which of these is a noble gas?
    choices:
      - Argon
      - "None of these"  # expect: above-choice
      - Nitrogen
    answer: A
  - id: letters
    question: Which of these are mammals?
    choices:
      - Dog
      - Cat
      - Trout
      - "Both A and B"  # expect: choice-reference
    answer: D
  - id: clean-letters-unshuffled
    question: Which of these are birds?
    shuffle: false
    choices: [Crow, Owl, Cod, Both A and B]
    answer: D
  - id: longest
    question: What is a mitochondrion?
    choices:
      - A cell
      - A gene
      - A virus
      - "The organelle that produces most of the cell's chemical energy"  # expect: longest-correct
    answer: D
  - id: clean-similar-lengths
    question: What does a ribosome make?
    choices: [Proteins from amino acids, Lipids from fatty acids, Sugars from carbon dioxide]
    answer: A
  - id: negative
    question: "Which of these is not a fruit?"  # expect: negative-stem
    choices: [Apple, Carrot, Pear]
    answer: B
  - id: clean-negative-bold
    question: Which of these is **not** a vegetable?
    choices: [Apple, Carrot, Leek]
    answer: A
  - id: clean-negative-capitals
    question: All of these are metals EXCEPT which one?
    choices: [Iron, Copper, Sulfur]
    answer: C
  - id: clean-negative-in-code
    question: "What does `not x` return when `x` is `0`?"
    choices: ["`True`", "`False`", "`0`"]
    answer: A
  - id: capital-fr
    question: What is the capital of France?
    choices: [Paris, Lyon, Nice]
    answer: A
  - id: cloze-whole
    text: "{{c1::The mitochondrion is the powerhouse of the cell}}."  # expect: cloze-hides-all
  - id: clean-cloze
    text: Plants store energy as {{c1::starch}} in their {{c2::roots}}.
  - id: same-sides
    front: Photosynthesis
    back: "photosynthesis!"  # expect: front-equals-back
  - id: clean-basic
    front: What do plants turn light into?
    back: Chemical energy
  - id: dose
    type: typed
    question: What is the usual adult dose of amoxicillin?
    answer: {number: 500}  # expect: number-unit
    explanation: 500 mg three times a day.
  - id: clean-dose-with-unit
    type: typed
    question: What is the usual adult dose of paracetamol?
    answer: {number: 1, unit: g}
    explanation: 1 g up to four times a day.
  - id: clean-year
    type: typed
    question: In which year did Fleming discover penicillin?
    answer: {number: 1928}
    explanation: In 1928 at St Mary's Hospital.
  - id: opted-out
    lint: [longest-correct]
    question: What is DNA?
    choices:
      - A cell
      - A gene
      - A virus
      - The molecule that carries the genetic instructions of living things
    answer: D
"""

OTHER = """\
deck: Other
id: other
notes:
  - id: capital-again
    question: "what is the CAPITAL of   france"  # expect: duplicate-question
    choices: [Paris, Rome, Oslo]
    answer: A
  - id: capital-reworded
    question: "What is the capital city of France?"  # expect: duplicate-question
    choices: [Paris, Rome, Oslo]
    answer: A
  - id: clean-capital-italy
    question: What is the capital of Italy?
    choices: [Rome, Milan, Turin]
    answer: A
"""


def positions(answers: str) -> str:
    """A deck of unshuffled notes whose right answers are at ``answers`` (letters)."""
    notes = "\n".join(
        f"  - id: q{i}\n    question: Question number {i} about topic {i}?\n"
        f"    shuffle: false\n    choices: [One {i}, Two {i}, Three {i}, Four {i}]\n"
        f"    answer: {a}"
        for i, a in enumerate(answers)
    )
    return f"deck: Positions\nid: positions\nnotes:\n{notes}\n"


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def expected(path: Path) -> set[tuple[str, int, str, str]]:
    """(file, line, note, code) of every planted flaw in a generated card file."""
    found = set()
    note = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        named = re.match(r"\s*- id: (\S+)", line)
        if named:
            note = named.group(1)
        mark = re.search(r"# expect: (\S+)", line)
        if mark:
            found.add((str(path), number, note, mark.group(1)))
    return found


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    cards = tmp_path / "deck" / "cards"
    write(cards, "a-planted.yaml", PLANTED)
    write(cards, "b-other.yaml", OTHER)
    return cards


def test_every_planted_flaw_is_named_and_clean_notes_never(planted: Path, cli: CliRun) -> None:
    result = cli("lint", planted)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    named = set()
    for line in lines[:-1]:
        m = re.fullmatch(r"(.+):(\d+): note '([^']+)': warning \[([a-z-]+)\]: .+; .+", line)
        assert m, line
        named.add((m.group(1), int(m.group(2)), m.group(3), m.group(4)))
    want = expected(planted / "a-planted.yaml") | expected(planted / "b-other.yaml")
    assert named == want
    assert {code for *_, code in want} >= set(LINT_RULES) - {"answer-position"}
    assert not any(note.startswith("clean-") or note == "opted-out" for _, _, note, _ in named)
    assert lines[-1] == f"{len(want)} warnings in {len(want)} notes"


def test_duplicates_name_the_earlier_note_and_its_line(planted: Path, cli: CliRun) -> None:
    out = cli("lint", planted).out
    other = planted / "b-other.yaml"
    first = f"{planted / 'a-planted.yaml'}:"
    assert f"{other}:5: note 'capital-again': warning [duplicate-question]: asks the same" in out
    assert f"as note 'capital-fr' ({first}" in out
    assert re.search(rf"{re.escape(str(other))}:9: .*nearly the same question \(\d+%", out)


def test_a_deck_with_warnings_still_builds_and_check_points_to_lint(
    planted: Path, tmp_path: Path, cli: CliRun
) -> None:
    out = tmp_path / "out"
    built = cli("build", planted, "--out", out, "--no-preview")
    assert built.code == 0, built.err
    assert (out / "planted.apkg").is_file() and (out / "other.apkg").is_file()
    count = len(expected(planted / "a-planted.yaml") | expected(planted / "b-other.yaml"))
    pointer = f"{count} lint warnings; see them with: deckbuilder lint {planted}\n"
    assert built.err.endswith(pointer)
    checked = cli("check", planted)
    assert checked.code == 0 and checked.err.endswith(pointer)
    data = json.loads(cli("check", planted, "--json").out)
    assert data["ok"] is True and data["lint_warnings"] == count
    assert "lint" not in cli("-q", "check", planted).err
    quiet_json = json.loads(cli("-q", "build", planted, "--out", out, "--json").out)
    assert quiet_json["lint_warnings"] == count


def test_check_points_to_the_lint_of_the_languages_it_checked(tmp_path: Path, cli: CliRun) -> None:
    # BILINGUAL has a warning in ko only: check --lang en counts two, and the command it
    # names must show those two, not the three of every language. A deck missing an en
    # text is checked with --fallback, and lint refuses it without.
    full = write(tmp_path / "full", "quiz.yaml", BILINGUAL)
    missing = BILINGUAL.replace("      en: Which of these is NOT a prime number?\n", "")
    short = write(tmp_path / "short", "quiz.yaml", missing)
    for path, args, count in (
        (full, ["--lang", "en"], 2),
        (short, ["--lang", "en", "--fallback"], 3),
    ):
        checked = cli("check", path, *args)
        assert checked.code == 0, checked.err
        command = f"deckbuilder lint {path} {' '.join(args)}"
        assert checked.err.endswith(f"{count} lint warnings; see them with: {command}\n")
        linted = cli("lint", path, *args)
        assert linted.code == 0 and linted.out.endswith(f"{count} warnings in {count} notes\n")


def test_quiet_check_and_build_do_not_lint(
    planted: Path, tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --quiet the count would not be shown, so the lint is not run for it."""

    def no_lint(decks: object) -> list[object]:
        raise AssertionError("lint ran")

    monkeypatch.setattr("deckbuilder.app.checking.lint_decks", no_lint)
    assert cli("-q", "check", planted).code == 0
    assert cli("-q", "build", planted, "--out", tmp_path / "out", "--no-preview").code == 0
    assert cli("check", planted).code == 3  # the stand-in is reached without --quiet


def test_strict_fails_on_warnings_only(planted: Path, tmp_path: Path, cli: CliRun) -> None:
    assert cli("lint", "--strict", planted).code == 1
    clean = write(tmp_path / "clean", "clean.yaml", OTHER.split("  - id: capital-again")[0]
                  + "  - id: one\n    front: What is 2 + 2?\n    back: '4'\n")  # fmt: skip
    result = cli("lint", "--strict", clean)
    assert result.code == 0 and result.out == "no warnings in 1 deck\n"


def test_bundled_deck_passes_lint(cli: CliRun) -> None:
    result = cli("lint", "--strict", ROOT / "cards")
    assert result.code == 0, result.out
    assert result.out == "no warnings in 2 decks\n"


def test_json_lists_every_warning(planted: Path, cli: CliRun) -> None:
    result = cli("lint", "--json", planted)
    assert result.code == 0
    data = json.loads(result.out)
    assert data["ok"] is True and data["count"] == len(data["warnings"])
    got = {(w["file"], w["line"], w["note"], w["code"]) for w in data["warnings"]}
    assert got == expected(planted / "a-planted.yaml") | expected(planted / "b-other.yaml")
    assert all("; " in w["message"] and w["languages"] == [] for w in data["warnings"])


@pytest.mark.parametrize(
    ("lint", "message"),
    [
        ("[longest-corect]", "unknown lint rule 'longest-corect' in 'lint'; did you mean 'longest-correct'?"),
        ("{a: b}", "'lint' must be a rule code or a list of them, not a mapping"),
    ],
)  # fmt: skip
def test_unknown_opt_out_is_an_error_at_its_line(
    tmp_path: Path, cli: CliRun, lint: str, message: str
) -> None:
    path = write(tmp_path, "deck.yaml", f"deck: D\nid: d\nnotes:\n  - id: n\n    lint: {lint}\n"
                 "    front: Q\n    back: A\n")  # fmt: skip
    for command in ("lint", "check"):
        result = cli(command, path)
        assert result.code == 1
        assert f"{path}:5: note 'n': {message}" in result.err


def test_opt_out_as_one_code_and_from_the_duplicate(tmp_path: Path) -> None:
    path = write(tmp_path, "deck.yaml", """\
deck: D
id: d
notes:
  - id: a
    front: Photosynthesis
    back: Photosynthesis
    lint: front-equals-back
  - id: b
    front: What is the capital of Chile?
    back: Santiago
  - id: c
    lint: [duplicate-question]
    front: What is the capital of Chile?
    back: Santiago de Chile
""")  # fmt: skip
    assert lint_decks(load_decks([path])) == []


BILINGUAL = """\
deck: {ko: 퀴즈, en: Quiz}
id: quiz
languages: [ko, en]
notes:
  - id: negative
    question:  # expect: negative-stem
      ko: 다음 중 소수가 아닌 것은?
      en: Which of these is NOT a prime number?
    choices: ["2", "3", "4"]
    answer: C
  - id: above
    question: {ko: 어느 것이 행성입니까?, en: Which is a planet?}
    choices:
      - {ko: 달, en: The Moon}
      - {ko: 태양, en: The Sun}
      - {ko: 모두 정답, en: All of the above}  # expect: above-choice
    answer: C
  - id: reference
    question: {ko: 어느 것이 포유류입니까?, en: Which are mammals?}
    choices:
      - {ko: 개, en: Dog}
      - {ko: 고양이, en: Cat}
      - {ko: A와 B 모두, en: Both A and B}  # expect: choice-reference
    answer: C
  - id: clean-translated
    question: {ko: 프랑스의 수도는?, en: What is the capital of France?}
    choices: [Paris, Lyon]
    answer: A
  - id: clean-same-text
    front: {ko: "`torch.utils.checkpoint`", en: "`torch.utils.checkpoint`"}
    back: {ko: 체크포인팅 유틸리티, en: The checkpointing utility}
"""


def test_bilingual_file_gives_each_flaw_once_with_its_languages(tmp_path: Path) -> None:
    path = write(tmp_path, "quiz.yaml", BILINGUAL)
    warnings = lint_decks(load_decks([path], lang="all"))
    assert {(w.file, w.line, w.note, w.code) for w in warnings} == expected(path)
    languages = {w.note: w.languages for w in warnings}
    # English emphasises NOT in capitals; Korean has no capitals, so only ko is warned.
    assert languages == {"negative": ("ko",), "above": ("ko", "en"), "reference": ("ko", "en")}
    assert "(in ko, en); " in str(next(w for w in warnings if w.code == "above-choice"))


def test_a_question_repeats_only_questions_of_its_own_language(tmp_path: Path) -> None:
    # The Korean deck never shows the English text: 'memory' asks 메모리 in ko and Memory
    # in en, 'ram' asks Memory in ko and RAM in en, so no deck has one question twice;
    # 'cell' and 'word' ask 세포 both in ko, but in en 'cell' asks Cell.
    path = write(tmp_path, "quiz.yaml", """\
deck: {ko: 퀴즈, en: Quiz}
id: quiz
languages: [ko, en]
notes:
  - id: memory
    front: {ko: 메모리, en: Memory}
    back: x
  - id: ram
    front: {ko: Memory, en: RAM}
    back: y
  - id: cell
    front: {ko: 세포, en: Cell}
    back: z
  - id: word
    front: 세포
    back: w
""")  # fmt: skip
    other = write(tmp_path, "other.yaml", "deck: O\nid: o\nnotes:\n"
                  "  - id: ram-again\n    front: RAM\n    back: v\n")  # fmt: skip
    warnings = lint_decks(load_decks([path, other], lang="all"))
    found = [(w.note, w.code, w.languages) for w in warnings]
    # A file without languages: is compared with every language of the others.
    assert found == [
        ("word", "duplicate-question", ("ko",)),
        ("ram-again", "duplicate-question", ()),
    ]


def test_two_flaws_of_one_rule_on_one_line_are_two_warnings(tmp_path: Path) -> None:
    # Choices written on one line share it: each flawed choice is still told, as on lines
    # of their own; and the languages of one choice are still one warning.
    path = write(tmp_path, "d.yaml", """\
deck: {ko: 퀴즈, en: Quiz}
id: d
languages: [ko, en]
notes:
  - id: even
    question: {ko: 짝수는?, en: Which are even?}
    choices: ["1", {ko: A와 C 모두, en: Both A and C}, "4", {ko: B와 C 모두, en: Both B and C}]
    answer: D
  - id: planet
    question: Which is a planet?
    choices: [All of the above, Moon, None of the above]
    answer: B
""")  # fmt: skip
    warnings = lint_decks(load_decks([path], lang="all"))
    found = [(w.line, w.code, w.problem.split("'")[1], w.languages) for w in warnings]
    assert found == [
        (7, "choice-reference", "A와 C 모두", ("ko", "en")),
        (7, "choice-reference", "B와 C 모두", ("ko", "en")),
        (11, "above-choice", "All of the above", ("ko", "en")),
        (11, "above-choice", "None of the above", ("ko", "en")),
    ]


@pytest.mark.parametrize(
    "phrase",
    ["위의 모든 것", "모두 정답", "해당 없음", "정답 없음", "None of these", "all of the above"],
)
def test_all_and_none_of_the_above_phrasings(tmp_path: Path, phrase: str) -> None:
    path = write(tmp_path, "d.yaml", f"deck: D\nid: d\nnotes:\n  - id: n\n    question: Q?\n"
                 f"    choices: [x, y, '{phrase}']\n    answer: A\n")  # fmt: skip
    assert [w.code for w in lint_decks(load_decks([path]))] == ["above-choice"]


@pytest.mark.parametrize(
    ("stem", "warned"),
    [
        ("다음 중 옳지 않은 것은?", True),
        ("다음 중 옳지 **않은** 것은?", False),
        ("다음 중 *틀린* 것은?", False),
        ("다음 중 <b>아닌</b> 것은?", False),
        ("Which statement is false? It is said that X is false.", True),
        ("Which one doesn't fit?", True),
        ("Which one DOESN'T fit?", False),
        ("Which one <u>cannot</u> fit?", False),
        ("What is the fastest option?", False),
        ("Which knot holds best?", False),
        # Words in a fenced code block are code, as in inline code; an unclosed fence
        # runs to the end, as Markdown shows it.
        ("What does this print?\n\n```python\nif not x:\n    print(x)\n```\n", False),
        ("What does this print?\n~~~\nwhile not done: pass\n~~~\nIt is not `x`.", True),
        ("What does this print?\n```\nassert x is not None\n", False),
        # A link's address, an image's file and a tag's attributes are not read.
        ("Per [the guide](https://example.com/cannot-fail), which flag is right?", False),
        ("Which organ does ![diagram](not-labelled.png) show?", False),
        ('Which is right? <span title="not this">x</span>', False),
        ("Which is [not](https://example.com) right?", True),
        ("Which is <b>not</b> right? See [the guide](https://example.com/never).", False),
    ],
)
def test_negative_stems_and_their_emphasis(tmp_path: Path, stem: str, warned: bool) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 f"    question: {json.dumps(stem)}\n    choices: [x, y, z]\n    answer: A\n")  # fmt: skip
    codes = [w.code for w in lint_decks(load_decks([path]))]
    assert codes == (["negative-stem"] if warned else [])


@pytest.mark.parametrize(
    ("answers", "warned"),
    [
        ("AAAAA", True),  # 5 of 5 on A: chance 0.1%
        ("AAAAB", False),  # 4 of 5: chance 1.6%
        ("AAAAAB", True),  # 5 of 6: 0.5%
        ("AAAAABCD", False),  # 5 of 8: 2.7%
        ("AAAAAABC", True),  # 6 of 8: 0.4%
        ("AAAA", False),  # fewer than 5 notes are not judged
        ("ABCDABCDAB", False),
    ],
)
def test_answer_position_threshold(tmp_path: Path, answers: str, warned: bool) -> None:
    path = write(tmp_path, "d.yaml", positions(answers))
    warnings = [w for w in lint_decks(load_decks([path])) if w.code == "answer-position"]
    if not warned:
        assert warnings == []
        return
    (warning,) = warnings
    first_a = path.read_text().splitlines().index("    answer: A") + 1
    assert (warning.line, warning.note) == (first_a, "q0")
    count = answers.count("A")
    assert f"the right answer is A in {count} of the {len(answers)}" in warning.problem


def test_answer_position_counts_neither_shuffled_nor_opted_out_notes(tmp_path: Path) -> None:
    text = positions("AAAAAA")
    shuffled = text.replace("    shuffle: false\n", "", 2)  # two of six shuffle: 4 left
    assert lint_decks(load_decks([write(tmp_path, "a.yaml", shuffled)])) == []
    opted = text.replace(
        "    shuffle: false\n", "    shuffle: false\n    lint: answer-position\n", 2
    )
    assert lint_decks(load_decks([write(tmp_path / "b", "b.yaml", opted)])) == []


def test_cloze_threshold_is_four_fifths_of_the_text(tmp_path: Path) -> None:
    # 8 of the 11 characters hidden (73%), then 9 of 11 (82%).
    lines = ["  - id: under\n    text: '{{c1::abcdefgh}} ij'",
             "  - id: over\n    text: '{{c1::abcdefghi}} j'"]  # fmt: skip
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n" + "\n".join(lines) + "\n")
    assert [w.note for w in lint_decks(load_decks([path]))] == ["over"]


MARKUP = st.lists(
    st.sampled_from([*"ab c\n\t*_`~#>-+[]()!<>/\\&;{}:1", "&amp;", "&#x41;", "```"]),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(source=MARKUP)
def test_visible_text_is_never_longer_than_its_source(source: str) -> None:
    """The cloze rule skips deletions too short to hide four fifths of the text, by their
    source length: that needs the visible text to be no longer than the source."""

    assert len(plain(source)) <= len(source)


WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz가나다라마", min_size=1, max_size=8),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(words=WORDS, data=st.data())
def test_case_punctuation_and_spacing_never_hide_a_duplicate(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], data: st.DataObject
) -> None:
    """The same question, written with other case, punctuation, spaces and compatibility
    characters (full-width letters), is found."""
    question = " ".join(words)
    variant = "".join(
        data.draw(st.sampled_from([ch, ch.upper(), chr(ord(ch) + 0xFEE0) if ch.isascii() else ch]))
        for ch in question
    )
    variant = data.draw(st.sampled_from(["", "  ", "*"])) + variant.replace(" ", " \t ") + "?!"
    folder = tmp_path_factory.mktemp("dup")
    deck = "deck: D\nid: d\nnotes:\n" + "".join(
        f"  - id: n{i}\n    front: {json.dumps(q, ensure_ascii=False)}\n    back: x{i}\n"
        for i, q in enumerate([question, variant])
    )
    warnings = lint_decks(load_decks([write(folder, "d.yaml", deck)]))
    assert [(w.note, w.code) for w in warnings] == [("n1", "duplicate-question")]


def test_questions_opening_alike_are_no_repeats_but_a_real_repeat_is(tmp_path: Path) -> None:
    """3,000 questions opening alike ('Which of the following...') fill a bucket past its
    limit: none is taken for another, and the one real repeat is still found."""
    notes = [
        f"  - id: n{i}\n    front: Which of the following is about subject {i} {i * 7} {i * 13}?\n"
        f"    back: a{i}\n"
        for i in range(3000)
    ]
    notes.append("  - id: again\n    front: Which of the following is about subject 5 35 65\n"
                 "    back: b\n")  # fmt: skip
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n" + "".join(notes))
    warnings = lint_decks(load_decks([path]))
    assert [(w.note, w.code) for w in warnings] == [("again", "duplicate-question")]


def test_an_opt_out_changes_nothing_in_the_package(tmp_path: Path) -> None:
    from tests.app_calls import build_packages

    with_opt_out = PLANTED.replace(
        "  - id: negative\n", "  - id: negative\n    lint: [negative-stem]\n"
    )
    packages = []
    for name, text in (("plain", PLANTED), ("opted", with_opt_out)):
        source = write(tmp_path / name, "planted.yaml", text)
        (result,) = build_packages([source], tmp_path / name / "out", timestamp=1_700_000_000)
        packages.append(result.path.read_bytes())
    assert with_opt_out != PLANTED and packages[0] == packages[1]


@pytest.mark.parametrize(
    ("choice", "above"),
    [("None of the above", True), ("**All** of the above.", True), ("위의 모든 것", True),
     ("Above the clouds", False), ("모두", False),
     # typed with a Chinese or Japanese input method: full-width letters and spaces
     ("".join(chr(ord(c) + 0xFEE0) if c != " " else c for c in "none of the above"), True),
     ("".join(chr(ord(c) + 0xFEE0) if c != " " else "\u3000" for c in "ALL OF THE ABOVE"), True)],
)  # fmt: skip
def test_importers_can_tell_a_choice_that_speaks_of_the_others(choice: str, above: bool) -> None:
    assert speaks_of_choices_above(choice) is above


def test_typed_questions_are_checked_for_negative_stems_and_repeats(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", "deck: T\nid: t\nnotes:\n"
                 "  - id: not-prime\n    type: typed\n    question: Which number below ten is not prime, nor one?\n    answer: '4'\n"
                 "  - id: capital\n    type: typed\n    question: What is the capital of France?\n    answer: Paris\n"
                 "  - id: capital-again\n    type: typed\n    question: What is the capital of France?\n    answer: Paris\n")  # fmt: skip
    found = [(w.note, w.code) for w in lint_decks(load_decks([path]))]
    assert sorted(found) == [
        ("capital-again", "duplicate-question"),
        ("not-prime", "negative-stem"),
    ]


@pytest.mark.parametrize(
    "stem",
    [
        "Which is the least squares method?",
        "What is the least common multiple of 4 and 6?",
        "How many players at least does a football team need?",
        "Not only speed but what else does caching improve?",
    ],
)
def test_phrases_that_ask_nothing_in_the_negative_are_clean(tmp_path: Path, stem: str) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 f"    question: {json.dumps(stem)}\n    choices: [x, y, z]\n    answer: A\n")  # fmt: skip
    assert lint_decks(load_decks([path])) == []


def test_a_korean_negative_is_quoted_whole(tmp_path: Path) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 "    question: 다음 설명 중 옳지 않은 것은?\n    choices: [x, y, z]\n    answer: A\n")  # fmt: skip
    (warning,) = lint_decks(load_decks([path]))
    assert "('옳지 않은')" in warning.problem and "(**옳지 않은**)" in warning.fix


@pytest.mark.parametrize(
    ("question", "choices", "named"),
    [
        ("Which vitamins are fat-soluble?", ["Vitamins A and D", "Vitamin C", "Vitamin B12"], False),
        ("Which viruses spread through blood?", ["Hepatitis B and C", "Influenza", "Measles"], False),
        ("Let A and B be vectors with a zero dot product. What holds?",
         ["A and B are orthogonal", "A and B are parallel", "A is the zero vector"], False),
        ("Which of these are mammals?", ["Dog", "Cat", "Both A and B"], True),
        ("Which of these are mammals?", ["Dog", "Cat", "A and B"], True),
    ],
)  # fmt: skip
def test_letters_that_name_things_are_no_reference_to_choices(
    tmp_path: Path, question: str, choices: list[str], named: bool
) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 f"    question: {json.dumps(question)}\n    choices: {json.dumps(choices)}\n"
                 "    answer: A\n")  # fmt: skip
    codes = [w.code for w in lint_decks(load_decks([path]))]
    assert codes == (["choice-reference"] if named else [])


def test_a_choice_naming_others_is_one_flaw_not_also_the_longest(tmp_path: Path) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 "    question: Which numbers are prime?\n    choices: ['2', '3', '4', Both A and B]\n"
                 "    answer: D\n")  # fmt: skip
    assert [w.code for w in lint_decks(load_decks([path]))] == ["choice-reference"]


def test_a_choice_reference_fix_names_the_letters_it_names(tmp_path: Path) -> None:
    """The fix said (answer: [A, B]) whatever the choice named: "Both B and C" is the
    multiple-answer question answer: [B, C]."""
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 "    question: Which numbers are even?\n"
                 "    choices: ['1', '2', '4', Both B and C]\n    answer: D\n")  # fmt: skip
    (warning,) = lint_decks(load_decks([path]))
    assert warning.code == "choice-reference"
    assert "(answer: [B, C])" in str(warning), str(warning)


@pytest.mark.parametrize(
    ("first", "second", "repeated"),
    [
        ("Which activation function is usually used in the output layer of a binary classifier?",
         "Which activation function is usually used in the output layer of a multiclass classifier?",
         False),
        ("Which Python function returns the largest item of an iterable?",
         "Which Python function returns the smallest item of an iterable?", False),
        ("What is the capital of France?", "Which is the capital of France?", True),
        ("What is the capital of France?", "What is the capital city of France?", True),
        ("Where does the backward pass read saved activations from?",
         "From where does the backward pass read the saved activations?", True),
    ],
)  # fmt: skip
def test_a_changed_word_is_another_question_an_added_one_is_not(
    tmp_path: Path, first: str, second: str, repeated: bool
) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n"
                 f"  - id: a\n    front: {json.dumps(first)}\n    back: x\n"
                 f"  - id: b\n    front: {json.dumps(second)}\n    back: y\n")  # fmt: skip
    found = [(w.note, w.code) for w in lint_decks(load_decks([path]))]
    assert found == ([("b", "duplicate-question")] if repeated else [])


def test_strict_json_says_not_ok_when_it_fails(planted: Path, cli: CliRun) -> None:
    result = cli("lint", planted, "--strict", "--json")
    assert result.code == 1 and json.loads(result.out)["ok"] is False
    assert json.loads(cli("lint", planted, "--json").out)["ok"] is True


# Letters the patterns, ignoring case, take as ASCII ones: LONG S, KELVIN SIGN, DOTLESS I,
# I WITH DOT ABOVE, and words spelt with them.
_FOLDED_ALIKE = [
    "\u017f",
    "\u212a",
    "\u0131",
    "\u0130",
    "prev\u0130ous",
    "opt\u0131ons",
    "bu\u0307t",
]
_ABOVE_TOKENS = [
    *[
        "all",
        "none",
        "both",
        "neither",
        "any",
        "either",
        "of",
        "the",
        "above",
        "preceding",
        "previous",
        "foregoing",
        "these",
    ],
    *[
        "those",
        "them",
        "others",
        "other",
        "choices",
        "options",
        "answers",
        "are",
        "is",
        "correct",
        "true",
        "right",
    ],
    *[
        "ALL",
        "None",
        "OF",
        "THE",
        "ABOVE",
        "Above",
        "위",
        "위의",
        "모든",
        "모두",
        "것",
        "보기",
        "항목",
        "어느",
        "답",
        "전부",
        "정답",
    ],
    *["맞음", "해당", "없음", "없다", "사항"],
    *_FOLDED_ALIKE,
]


@given(st.lists(st.sampled_from(_ABOVE_TOKENS), max_size=6), st.sampled_from([" ", "  ", "\n", ""]))
@example(["None", "of", "the", "above"], " ")
@example(["없음"], "")
@example(["None", "of", "them"], " ")
@example(["all", "are", "right"], " ")
def test_a_choice_that_speaks_of_the_others_always_holds_a_word_looked_for_first(
    words: list[str], gap: str
) -> None:
    # speaks_of_choices_above looks for one of these words before trying the pattern:
    # every text the pattern matches must hold one.
    text = gap.join(words)
    if _ABOVE.search(text) is not None:
        assert _ABOVE_WORD.search(_folded(text)) is not None


_REFERENCE_TOKENS = [
    *["A", "B", "C", "D", "(a)", "(c)", "(2)", "and", "AND", "or", "&", ",", "와", "과", "및"],
    *["option", "Options", "choice", "answer", "alternative", "all", "any", "but", "except"],
    *["the", "The", "first", "last", "previous", "next", "two", "both", "only", "Vitamins"],
    *["ㄱ", "ㄴ", "①", "②", "1번", "3번", "번", "보기", "보기A", "1", "x"],
    *_FOLDED_ALIKE,
]


@given(st.lists(st.sampled_from(_REFERENCE_TOKENS), max_size=6), st.sampled_from([" ", ""]))
@example(["Both", "A", "and", "B"], " ")
@example(["the", "last", "two"], " ")
@example(["all", "but", "C"], " ")
@example(["ㄱ", ",", "ㄴ"], "")
@example(["보기A"], "")
@example(["OPT\u0130ON", "2"], " ")
def test_a_choice_that_names_the_others_always_holds_a_word_looked_for_first(
    words: list[str], gap: str
) -> None:
    # The rule looks for one of these words before trying the pattern: every text the
    # pattern matches must hold one.
    text = gap.join(words)
    if _REFERENCE.search(text) is not None:
        assert _REFERENCE_WORD.search(_folded(text)) is not None


def test_a_unit_asked_for_is_told_as_asked_not_as_written(tmp_path: Path) -> None:
    # The note never writes '37 °C': quoting it as written sends the author looking for
    # text that is not there.
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: t\n    type: typed\n"
                 "    question: Normal body temperature (in °C)?\n    answer: {number: 37}\n")  # fmt: skip
    (warning,) = lint_decks(load_decks([path]))
    assert warning.code == "number-unit" and warning.line == 7
    assert warning.problem == (
        "the card accepts the number alone, but the note asks for it in °C ('(in °C)'): "
        "a learner who types '37 °C' is marked wrong"
    )
    assert warning.fix.startswith("add unit: °C to the answer")


@pytest.mark.parametrize(
    ("question", "warned"),
    [
        ("The daily maximum is 1,500 mg in three doses: how many mg per dose?", False),
        ("하루 최대 1,500mg을 세 번에 나누면 한 번에 몇 mg입니까?", False),
        ("Take 2, 500 mg each: how much in one tablet?", True),
        ("How much is one tablet (500 mg)?", True),
    ],
)
def test_a_number_inside_a_larger_one_is_not_written_with_the_unit(
    tmp_path: Path, question: str, warned: bool
) -> None:
    # '1,500 mg' writes fifteen hundred, not the answer 500 with its unit.
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: t\n    type: typed\n"
                 f"    question: {json.dumps(question)}\n    answer: {{number: 500}}\n")  # fmt: skip
    codes = [w.code for w in lint_decks(load_decks([path]))]
    assert codes == (["number-unit"] if warned else [])


@pytest.mark.parametrize(
    ("question", "explanation", "warned"),
    [
        ("아스피린 한 알은 500mg입니다. 한 알의 용량은?", "", True),
        ("한 알의 용량은?", "보통 500 mg을 하루 세 번 복용한다.", True),
        ("한 알의 용량은?", "한 알에 500 mgs.", False),  # a letter goes on: not the unit
        ("한 알의 용량은?", "한 알에 500 mg/kg이다.", True),
    ],
)
def test_a_korean_particle_after_the_unit_still_writes_it(
    tmp_path: Path, question: str, explanation: str, warned: bool
) -> None:
    # Korean particles attach to the word before them: '500mg입니다', '500 mg을'.
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: t\n    type: typed\n"
                 f"    question: {json.dumps(question)}\n    answer: {{number: 500}}\n"
                 f"    explanation: {json.dumps(explanation or 'x')}\n")  # fmt: skip
    codes = [w.code for w in lint_decks(load_decks([path]))]
    assert codes == (["number-unit"] if warned else [])


@pytest.mark.parametrize(
    ("choices", "warned"),
    [
        # Pictures: the card shows no file name, so a long one is no cue.
        ('["![](mitosis-anaphase-late-stage-diagram.png)", "![](x.png)", "![](y.png)"]', False),
        ('["<img src=\'mitosis-anaphase-late-stage.png\'>", "<img src=x.png>", "<img src=y.png>"]',
         False),
        # The words beside a picture are read, and still measured.
        ('["![](a.png) Anaphase, with the chromatids pulled apart", "![](b.png) Prophase",'
         ' "![](c.png) Telophase"]', True),
    ],
)  # fmt: skip
def test_the_length_of_a_choice_is_of_the_text_it_shows(
    tmp_path: Path, choices: str, warned: bool
) -> None:
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n  - id: n\n"
                 f"    question: Which shows anaphase?\n    choices: {choices}\n    answer: A\n")  # fmt: skip
    codes = [w.code for w in lint_decks(load_decks([path]))]
    assert codes == (["longest-correct"] if warned else [])


def test_a_warning_about_aliased_choices_is_told_at_the_notes_own_choices(
    tmp_path: Path,
) -> None:
    """'choices: *ch' repeats the list anchored in another note: the warning for this note
    gave the anchor's line, inside the other note."""
    path = write(tmp_path, "d.yaml", "deck: D\nid: d\nnotes:\n"
                 "  - id: one\n    question: Which are even?\n"
                 "    choices: &ch ['1', '2', '4', Both B and C]\n    answer: B\n"
                 "  - id: three\n    question: Which is odd?\n"
                 "    choices: *ch\n    answer: A\n")  # fmt: skip
    found = [(w.note, w.line) for w in lint_decks(load_decks([path]))]
    assert found == [("one", 6), ("three", 10)], found
