"""Importing Moodle's GIFT format, question type by question type."""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError, Severity
from deckbuilder.importers.markup import escape_line_starts, escape_markdown, html_to_markdown
from deckbuilder.model import McqNote
from deckbuilder.render.markdown import render_markdown
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, assert_imports_or_fails_cleanly
from tests.importers.reading import Question, card_text, import_file, import_text

GIFT = DATA / "import" / "moodle.gift"


def gift(text: str, **options: bool) -> list[Question]:
    return import_text(text, "q.gift", "gift", **options).questions


def one(text: str) -> tuple[str, list[str], list[int], str]:
    (q,) = gift(text)
    return q.question, q.choices, q.answer, q.explanation


def test_moodle_bank_imports_every_multiple_choice_and_true_false_question() -> None:
    result = import_file(GIFT)
    assert result.format == "gift"
    qs = [q for q in result.questions if q.line < 44]
    assert len(qs) == 11
    tomb = qs[0]
    assert tomb.line == 6
    assert (tomb.question, tomb.choices, tomb.answer) == (
        "Who's buried in Grant's tomb?",
        ["Grant", "Jefferson", "no one"],
        [2],
    )
    # Each answer's feedback stays with its choice; the general feedback explains.
    assert tomb.feedback == [
        "No, he is in the tomb with his wife.",
        "",
        "Right: both are entombed, not buried.",
    ]
    assert tomb.explanation == "A classic trick question."
    primes = qs[1]
    assert (primes.choices, primes.answer, primes.line) == (["2", "3", "4", "9"], [0, 1], 8)
    true_false = [(q.question, q.choices, q.answer, q.shuffle) for q in qs[2:6]]
    assert true_false == [
        ("Water boils at 100 °C at sea level.", ["True", "False"], [0], False),
        ("The Sun orbits the Earth.", ["True", "False"], [1], False),
        ("물은 섭씨 0도에서 언다.", ["True", "False"], [0], False),
        ("Sound travels faster than light.", ["True", "False"], [1], False),
    ]
    # {FALSE#shown to who answers wrongly#shown to who answers rightly}
    assert qs[3].feedback == ["It is the other way round.", "Correct: the Earth orbits the Sun."]
    assert qs[3].explanation == ""
    assert [q.feedback for q in qs if q not in (tomb, qs[3], qs[6])] == [[]] * 8


def test_escapes_missing_word_and_formats() -> None:
    qs = import_file(GIFT).questions
    escapes = qs[6]
    assert escapes.question == "Which symbol marks a right answer in GIFT: = or ~?"
    # Moodle shows "# (hash)" as typed: in Markdown it would be a heading.
    assert escapes.choices == ["= (equals)", "~ (tilde)", "\\# (hash)"]
    assert escapes.answer == [0] and escapes.feedback == ["Escaped {braces} too", "", ""]
    assert qs[7].question == (
        "The American holiday of Thanksgiving is celebrated on the _____ Thursday of November."
    )
    assert qs[7].choices == ["second", "third", "fourth"] and qs[7].answer == [2]
    html = qs[8]
    assert html.question == "What does **CPU** stand for?"
    assert html.choices == ["*Central* processing unit", "Computer \\& peripheral unit"]
    assert qs[9].question == "Which call frees **cached** GPU memory?"
    assert qs[9].choices == ["`torch.cuda.empty_cache()`", "`torch.nn.Dropout`"]
    plain = qs[10]  # [plain]: Markdown characters are escaped so they show as typed
    assert plain.question == "Which is \\*literal\\* text?"
    assert plain.choices == ["2 \\* 3 = 6", "\\<b\\>bold\\</b\\>"]


def test_types_cards_cannot_hold_are_listed_as_skipped() -> None:
    result = import_file(GIFT)
    assert [(s.line, s.kind) for s in result.skipped] == [(50, "essay"), (52, "description")]


def test_numerical_matching_and_short_answer_become_cards() -> None:
    qs = [q for q in import_file(GIFT).questions if q.line >= 44]
    assert [(q.line, q.typed) for q in qs if q.typed is not None] == [
        (44, [{"number": "1822", "tolerance": "5"}]),
        (48, [{"text": "four"}, {"text": "4"}]),
    ]
    pairs = [(q.question, q.choices, q.answer) for q in qs if q.typed is None]
    capitals = ["Ottawa", "Rome", "Tokyo"]
    assert pairs == [
        ("Match the capitals.\n\nCanada", capitals, [0]),
        ("Match the capitals.\n\nItaly", capitals, [1]),
        ("Match the capitals.\n\nJapan", capitals, [2]),
    ]


def test_category_names_the_deck_and_subcategories_become_tags() -> None:
    result = import_file(GIFT)
    assert result.deck == "Physics"
    assert [q.tags for q in result.questions] == [[]] * 6 + [["Escapes"]] * 10
    named = import_file(GIFT, deck="Quiz Bank")
    assert named.deck == "Quiz Bank"
    assert [q.tags for q in named.questions] == [[]] * 6 + [["Escapes"]] * 10


def test_category_tags_have_no_spaces_and_moodle_prefixes_are_dropped() -> None:
    text = (
        "$CATEGORY: $course$/top/Default for ML/Week 1\n\nQ1 {=a ~b}\n\n"
        "$CATEGORY: $course$/top/Default for ML/Week 2 // Part/Sub\n\nQ2 {=a ~b}\n"
    )
    result = import_text(text, "q.gift", "gift")
    assert result.deck == "Default for ML"
    assert [q.tags for q in result.questions] == [["Week_1"], ["Week_2_/_Part::Sub"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Q? {=yes ~no}", ("Q?", ["yes", "no"], [0], "")),
        ("Q? {~no =yes#Because.}", ("Q?", ["no", "yes"], [1], "")),
        ("Q? {=a =b ~c}", ("Q?", ["a", "b", "c"], [0, 1], "")),
        ("Q? {~%100%a ~%0%b}", ("Q?", ["a", "b"], [0], "Weights in Moodle: a 100%, b 0%.")),
        (
            "Q? {~%33.3%a ~%33.3%b ~%33.3%c ~%-100%d}",
            (
                "Q?",
                ["a", "b", "c", "d"],
                [0, 1, 2],
                "Weights in Moodle: a 33.3%, b 33.3%, c 33.3%, d -100%.",
            ),
        ),
        ("Q? {T}", ("Q?", ["True", "False"], [0], "")),
        ("Q? {TRUE####Always.}", ("Q?", ["True", "False"], [0], "Always.")),
        ("Q? {F#No!}", ("Q?", ["True", "False"], [1], "")),
        ("::name::Q? {=a ~b}", ("Q?", ["a", "b"], [0], "")),
        # Moodle shows each line break of its own text as a break: a hard break here.
        ("Line one\nline two {\n=a\n~b\n}", ("Line one\\\nline two", ["a", "b"], [0], "")),
        ("Use \\n for\\nnew lines {=a ~b}", ("Use\\\n for\\\nnew lines", ["a", "b"], [0], "")),
        ("A \\\\ backslash {=a ~b}", ("A \\ backslash", ["a", "b"], [0], "")),
        ("// comment\nQ? {=a\n// between\n~b}", ("Q?", ["a", "b"], [0], "")),
        ("Q? {=a ~b ####[html]<b>bold</b>}", ("Q?", ["a", "b"], [0], "**bold**")),
        # A <br> that ends a paragraph (Moodle's editor leaves one) breaks before nothing:
        # written as a hard break, the card showed a backslash ("CléAccess\\").
        ("[html]<p>CléAccess<br></p> {=a ~b}", ("CléAccess", ["a", "b"], [0], "")),
        ("[html]<p>a<br>b<br></p><p>c<br></p> {=a ~b}", ("a\\\nb\n\nc", ["a", "b"], [0], "")),
        ("[html]<pre>x \\\\</pre> {=a ~b}", ("```\nx \\\n```", ["a", "b"], [0], "")),
    ],
)
def test_question_shapes(text: str, expected: tuple[str, list[str], list[int], str]) -> None:
    assert one(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Q? {=a ~b", "q.gift:1: '{' without a closing '}'"),
        ("Q?\n{=a\n\n~b}", "q.gift:2: '{' without a closing '}'"),
        ("Q? =a ~b}", "q.gift:1: '}' without an opening '{'"),
        ("Q? {=a ~b}\nQ2? {=c ~d}", "q.gift:2: a second answer block in the same question"),
        ("::name Q? {=a ~b}", "q.gift:1: question name opened with '::' is not closed"),
        ("Q? {~a}", "q.gift:1: question has no marked answer"),
        ("Q? {=a ~a}", "q.gift:1: choice B repeats choice A"),
        ("Q? {=a ~#feedback only}", "q.gift:1: 'choices[1]' is empty"),
    ],
)
def test_malformed_gift_is_located(text: str, expected: str) -> None:
    with pytest.raises(DeckError) as info:
        gift(text + "\n\nFine? {=a ~b}")
    assert any(str(p).startswith(expected) for p in info.value.problems), info.value.problems


def test_a_number_too_large_to_compare_says_so() -> None:
    """A numerical answer of 5,000 digits said it "must be a number"."""
    with pytest.raises(DeckError) as info:
        gift("How many? {#" + "9" * 5000 + "}\n")
    assert "q.gift:1: 'answer' is too large a number for the card to compare" in str(
        info.value.problems[-1]
    )


def test_no_right_answer_is_a_missing_answer() -> None:
    with pytest.raises(DeckError) as info:
        gift("One? {=a ~b}\n\nTwo? {~a ~b}\n")
    assert [str(p) for p in info.value.problems] == [
        "q.gift:3: question has no marked answer; mark the right choice with '=' (or a "
        "positive weight '~%50%') (or import with --allow-missing-answers and fill it in later)"
    ]
    assert [
        q.answer for q in gift("One? {=a ~b}\n\nTwo? {~a ~b}\n", allow_missing_answers=True)
    ] == [
        [0],
        [],
    ]


def test_only_skipped_questions_is_an_error_naming_them() -> None:
    with pytest.raises(DeckError) as info:
        gift("Essay? {}\n\nJust text.\n")
    assert [str(p) for p in info.value.problems] == [
        "q.gift: no notes to import",
        "q.gift:1: an essay has no answer to check",
        "q.gift:3: it is text without a question",
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_bom_and_crlf(tmp_path: Path, newline: str, bom: str) -> None:
    source = tmp_path / "bank.txt"
    source.write_bytes((bom + GIFT.read_text(encoding="utf-8").replace("\n", newline)).encode())
    got, expected = import_file(source), import_file(GIFT)
    assert got.questions == expected.questions and got.skipped == expected.skipped


PIECES = st.sampled_from(
    [
        "{",
        "}",
        "=",
        "~",
        "#",
        "####",
        "::",
        "\\",
        "\\=",
        "\\{",
        "%50%",
        "%-100%",
        "->",
        "T",
        "FALSE",
        "\n",
        "\n\n",
        "// c\n",
        "$CATEGORY: a/b\n",
        "[html]",
        "[plain]",
        "<b>",
        "&amp;",
        "Q",
        " ",
        "a",
        "b",
        "한국어",
        "\x85",
        "_",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=30).map("".join)
WORDS = st.lists(st.one_of(PIECES, st.text(min_size=1, max_size=6)), min_size=1, max_size=6).map(
    "".join
)


@st.composite
def banks(draw: st.DrawFn) -> str:
    """Mostly well-formed GIFT with arbitrary text (and stray syntax) in every part."""
    blocks = []
    for n in range(draw(st.integers(1, 3))):
        title = f"::{draw(WORDS)}::" if draw(st.booleans()) else ""
        marks = draw(
            st.lists(st.sampled_from(["=", "~", "~%50%", "~%-50%"]), min_size=2, max_size=4)
        )
        answers = " ".join(f"{m}{n}{i}{draw(WORDS)}" for i, m in enumerate(marks))
        tail = draw(st.sampled_from(["", " tail.", "####general"]))
        blocks.append(
            f"{title}{draw(WORDS)} {{{answers}{tail if tail[:1] == '#' else ''}}}{tail if tail[:1] != '#' else ''}"
        )
    return "\n\n".join(blocks)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(TEXT, banks()))
def test_any_text_gives_a_card_file_or_a_located_error(tmp_path: Path, text: str) -> None:
    assert_imports_or_fails_cleanly(tmp_path, text, "gift")


SHOWN = st.text(alphabet=st.sampled_from(list("ab1 .)*_`[]()<>!#-+=~|&\\\n;:/x한")), max_size=30)


def _shown(markdown: str) -> str:
    """The text a reader sees in the rendered card field, whitespace collapsed."""
    rendered = render_markdown(markdown).html
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", rendered)).split())


@settings(max_examples=300, deadline=None)
@given(SHOWN)
def test_plain_text_shows_as_typed(text: str) -> None:
    assert _shown(escape_markdown(text)) == " ".join(text.split())


_BLOCKS = re.compile(r"<(?:h[1-6]|ul|ol|li|blockquote|hr|pre)\b")


@settings(max_examples=300, deadline=None)
@given(SHOWN)
def test_hand_written_lines_never_become_headings_lists_quotes_or_code(text: str) -> None:
    """Moodle shows its own (moodle-format) text line by line: a line opening with '#',
    '-', '1.' or '>' is text there, and stays text on the card."""
    assert _BLOCKS.search(render_markdown(escape_line_starts(text)).html) is None


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("# (hash)", "\\# (hash)"),
        ("- item", "\\- item"),
        ("1986. A year", "1986\\. A year"),
        ("> quoted", "\\> quoted"),
        ("---", "\\---"),
        ("-1 is negative", "-1 is negative"),
        ("#hashtag", "#hashtag"),
        ("= (equals)", "= (equals)"),
        ("*not* a list", "*not* a list"),
    ],
)
def test_only_what_opens_a_block_is_escaped(line: str, shown: str) -> None:
    assert escape_line_starts(line) == shown


def test_a_gift_choice_opening_with_a_hash_shows_as_typed_on_the_card(tmp_path: Path) -> None:
    source = tmp_path / "q.gift"
    source.write_text("Which starts a Python comment? {=\\# (hash) ~- (dash) ~//}\n")
    (tmp_path / "q.yaml").write_text(card_text(import_file(source, "gift")), encoding="utf-8")
    (note,) = load_deck(tmp_path / "q.yaml").notes
    assert isinstance(note, McqNote)
    assert [_shown(choice) for choice in note.choices] == ["# (hash)", "- (dash)", "//"]
    assert not any(_BLOCKS.search(render_markdown(choice).html) for choice in note.choices)


MOODLE = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab1 .)*_`[]()>!#-+=~|&\\\n;:/x한")), max_size=40),
    st.text(alphabet=st.sampled_from(list("ab 한\n")), max_size=40),
)


@settings(max_examples=300, deadline=None)
@given(MOODLE)
def test_moodle_text_opens_no_block_and_keeps_its_line_breaks(text: str) -> None:
    """As Moodle shows its own text: no heading, list, quote, rule, table or code block
    (but code between two fence lines), and between two lines of words a line break (a
    blank line parts paragraphs)."""
    from deckbuilder.importers.markup import moodle_to_markdown

    rendered = render_markdown(moodle_to_markdown(text)).html
    fences = "``" in text or "~~" in text
    rendered = re.sub(r"<pre.*?</pre>", "", rendered, flags=re.S) if fences else rendered
    assert _BLOCKS.search(rendered) is None
    if re.fullmatch(r"[a-z한 \n]*", text):  # words only: every break between two lines
        lines = text.split("\n")
        breaks = sum(1 for a, b in itertools.pairwise(lines) if a.strip() and b.strip())
        assert rendered.count("<br>") == breaks


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("For which x?\n\\[\nx^2 + 1\n> 0\n\\]", "\\[ x^2 + 1 &gt; 0 \\]"),
        ("Solve \\(x^2\n- 4 = 0\\) now", "\\(x^2 - 4 = 0\\)"),
        ("Code `a\n# b` here", "<code>a # b</code>"),
    ],
)
def test_moodle_formulas_and_code_keep_their_lines_as_written(text: str, shown: str) -> None:
    """A line inside a formula or code span is not a line of Markdown: it is neither
    escaped (TeX reads \\> as a space) nor broken, and no block forms from it."""
    from deckbuilder.importers.markup import moodle_to_markdown

    rendered = render_markdown(moodle_to_markdown(text)).html
    assert shown in rendered
    assert _BLOCKS.search(rendered) is None


def test_moodle_code_between_fence_lines_is_a_code_block_line_by_line() -> None:
    """A teacher's program between ``` lines keeps its lines (before: one line, the
    backticks shown); a fence never closed stays text."""
    from deckbuilder.importers.markup import moodle_to_markdown

    text = "What does this print?\n```python\nx = [1, 2]\nprint(len(x))\n```"
    rendered = render_markdown(moodle_to_markdown(text)).html
    assert rendered.count("<pre") == 1 and "```" not in rendered
    code = re.sub(r"<[^>]+>", "", rendered.split("<pre", 1)[1].split(">", 1)[1])
    assert code.splitlines()[:2] == ["x = [1, 2]", "print(len(x))"]
    unclosed = render_markdown(moodle_to_markdown("a\n```\nb")).html
    assert "<pre" not in unclosed and "```" in unclosed


@settings(max_examples=300, deadline=None)
@given(SHOWN)
def test_html_text_shows_as_the_browser_would(text: str) -> None:
    assert _shown(html_to_markdown(html.escape(text))) == " ".join(text.split())


@pytest.mark.parametrize(
    ("text", "feedback", "explanation"),
    [
        ("Q? {=a#Yes. ~b#No. ~c}", ["Yes.", "No.", ""], ""),
        (
            "Q? {~%50%a#Half. ~%50%b ~%-100%c#Never.}",
            ["Half.", "", "Never."],
            "Weights in Moodle: a 50%, b 50%, c -100%.",
        ),
        ("Q? {=a#Good. ~b ####General.}", ["Good.", ""], "General."),
        ("Q? {=a ~b ####General.}", [], "General."),
        ("Q? {T#Wrong!#Right!}", ["Right!", "Wrong!"], ""),
        ("Q? {FALSE#Wrong!#Right!}", ["Wrong!", "Right!"], ""),
        ("Q? {=a#[html]<b>yes</b> ~b}", ["**yes**", ""], ""),
        ("Q? {=a#1 \\= 1 ~b#x \\~ y \\# z}", ["1 = 1", "x ~ y # z"], ""),
        ("Q? {\n=a #Right,\nand why.\n~b\n}", ["Right,\\\nand why.", ""], ""),
    ],
)
def test_each_answer_feedback_stays_with_its_choice(
    text: str, feedback: list[str], explanation: str
) -> None:
    (q,) = gift(text)
    assert (q.feedback, q.explanation) == (feedback, explanation)


@pytest.mark.parametrize(
    ("text", "line", "mark", "choices", "escaped"),
    [
        ("Q? {=a#Good ~b#No, 1 = 2 ~c}", 1, "=", ["a", "b", "2", "c"], "1 \\= 2"),
        ("Q?\n{\n=a #Good\n~b #No: x=2\n~c\n}", 4, "=", ["a", "b", "2", "c"], "x\\=2"),
        ("Q? {=a#It takes 3~5 hours. ~b}", 1, "~", ["a", "5 hours.", "b"], "3\\~5"),
        ("::n::Q?\n{=a#Good ~b#1 ~ 2 ~c}", 2, "~", ["a", "b", "2", "c"], "1 \\~ 2"),
    ],
)
def test_unescaped_mark_in_feedback_is_a_warning_naming_line_and_escape(
    text: str, line: int, mark: str, choices: list[str], escaped: str
) -> None:
    result = import_text(text, "q.gift", "gift")
    (q,) = result.questions
    assert q.choices == choices  # read as Moodle reads it: a new answer starts there
    (warning,) = [w for w in result.warnings if "after the feedback" in w.message]
    assert warning.file == "q.gift" and warning.line == line
    assert warning.severity is Severity.WARNING
    assert warning.message.startswith(f"the '{mark}' after the feedback")
    assert warning.message.endswith(f"write \\{mark}")
    # Escaped as the warning says, the mark is the feedback's own.
    fixed = import_text(text.replace(escaped.replace("\\", ""), escaped), "q.gift", "gift")
    assert fixed.warnings == [] and len(fixed.questions[0].choices) == len(choices) - 1
    assert escaped.replace("\\", "") in "".join(fixed.questions[0].feedback)


@pytest.mark.parametrize(
    "text",
    [
        "Q? {=yes#Right! ~no#Wrong}",
        "Q? {=yes#Right!~no#Wrong.}",  # the compact form
        "Q? {= yes # Good ~ no # Bad}",  # every answer written with a space
        "Q? {\n=a #Good\n~b #No\n=c\n}",
        "Q? {=a#1 \\= 2 ~b}",
        "Q? {=a ~b=c}",  # not in a feedback
        "Is 1 = 1? {T#No: 1 = 1.#Yes.}",
    ],
)
def test_marks_that_start_answers_do_not_warn(text: str) -> None:
    warnings = import_text(text, "q.gift", "gift").warnings
    assert [w for w in warnings if "after the feedback" in w.message] == []


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=banks())
def test_feedback_comes_back_from_the_card_file(tmp_path: Path, text: str) -> None:
    source = tmp_path / "in.gift"
    source.write_text(text, encoding="utf-8")
    try:
        result = import_file(source, "gift")
    except DeckError:
        return
    (tmp_path / "out.yaml").write_text(card_text(result), encoding="utf-8")
    deck = load_deck(tmp_path / "out.yaml")
    expected = [
        tuple(unicodedata.normalize("NFC", f) for f in q.feedback)
        for q in result.questions
        if q.typed is None  # a typed-answer question has no choices to give feedback
    ]
    assert [n.feedback for n in deck.notes if isinstance(n, McqNote)] == expected


MOODLE_EXAMPLES = DATA / "import" / "moodle-gift-examples.txt"


def test_moodles_examples_file_imports_all_43_questions() -> None:
    """Moodle's question/format/gift/examples.txt: nothing skipped; the three matching
    questions give one card per pair (3 + 4 + 3), so 43 questions are 50 notes."""
    result = import_file(MOODLE_EXAMPLES)
    assert result.skipped == []
    assert len({q.line for q in result.questions}) == 43
    assert len(result.questions) == 50
    assert sum(q.typed is not None for q in result.questions) == 17


def by_line(line: int) -> list[Question]:
    return [q for q in import_file(MOODLE_EXAMPLES).questions if q.line == line]


def test_partial_credit_keeps_the_single_right_answer() -> None:
    (jesus,) = by_line(117)
    assert jesus.choices[jesus.answer[0]] == "Nazareth" and len(jesus.answer) == 1
    assert jesus.explanation == "Weights in Moodle: Bethlehem 25%, Galilee 50%."
    assert jesus.id == "jesus-hometown"
    (difficult,) = by_line(115)
    assert [difficult.choices[i] for i in difficult.answer] == ["full credit answer"]
    # No '=' answer, positive weights adding up to 100%: choose all that apply.
    for line in (130, 136):
        (two,) = by_line(line)
        assert [two.choices[i] for i in two.answer] == ["Grant", "Grant's wife"]


def test_short_answers_accept_full_credit_and_explain_partial_credit() -> None:
    (q,) = by_line(195)
    assert q.typed == [{"text": "Nazareth"}]
    assert q.explanation == (
        "- Nazareth: Yes! That's right!\n"
        "- Nazereth (75% in Moodle): Right, but misspelled.\n"
        "- Bethlehem (25% in Moodle): He was born here, but not raised here."
    )
    (two,) = by_line(45)
    assert two.question == "Two plus two equals _____." and two.typed == [
        {"text": "four"},
        {"text": "4"},
    ]


@pytest.mark.parametrize(
    ("line", "typed"),
    [
        (16, [{"number": "1822", "tolerance": "1"}]),
        (70, [{"number": "1822"}]),
        (72, [{"number": "3.1415", "tolerance": "0.0005"}]),
        (74, [{"min": "3.141", "max": "3.142"}]),
        (76, [{"number": "1822"}]),  # =%50%1822:2 is partial credit
        (85, [{"number": "4"}]),
    ],
)
def test_every_numerical_form(line: int, typed: list[dict[str, str]]) -> None:
    (q,) = by_line(line)
    assert q.typed == typed and q.choices == []


def test_every_matching_pair_is_asked() -> None:
    pairs = by_line(61)
    capitals = ["Ottawa", "Rome", "Tokyo", "New Delhi"]
    assert [(q.question.split("\n\n")[1], q.choices, q.answer) for q in pairs] == [
        (country, capitals, [i]) for i, country in enumerate(["Canada", "Italy", "Japan", "India"])
    ]
    assert all(q.question.startswith("Match the following countries") for q in pairs)


def test_question_names_become_note_ids() -> None:
    questions = import_file(MOODLE_EXAMPLES).questions
    ids = {q.id: q for q in questions}
    assert ids["kanji-origins"].line == 90
    assert ids["jesus-hometown"].line == 117 and ids["jesus-hometown-2"].line == 123
    assert ids["numerical-example"].typed == [{"number": "1822"}]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("N? {#abc}", "q.gift:1: numerical question: 'abc' is not a number"),
        ("N? {#}", "q.gift:1: numerical question without an answer"),
        ("M? {=a -> 1 =b}", "q.gift:1: matching question: 'b' has no '->'"),
        ("M? {=a -> 1 =b -> 1}", "q.gift:1: matching question needs at least two pairs"),
    ],
)
def test_malformed_new_kinds_are_located(text: str, expected: str) -> None:
    with pytest.raises(DeckError) as info:
        gift(text + "\n\nFine? {=a ~b}")
    assert any(str(p).startswith(expected) for p in info.value.problems), info.value.problems


def test_typed_questions_become_typed_notes_in_the_card_file(tmp_path: Path) -> None:
    """The short-answer and numerical questions load back from the card file as the same
    accepted answers."""
    from deckbuilder.model import TypedNote

    path = tmp_path / "examples.yaml"
    path.write_text(card_text(import_file(MOODLE_EXAMPLES)), encoding="utf-8")
    notes = [n for n in load_deck(path).notes if isinstance(n, TypedNote)]
    assert len(notes) == 17
    pi = [n for n in notes if "pi" in n.question]
    assert [(a.low, a.high) for n in pi for a in n.answers] == [
        (3.1415 - 0.0005, 3.1415 + 0.0005),
        (3.141, 3.142),
    ]
    tomb = [n for n in notes if "tomb" in n.question]
    assert {tuple(a.text for a in n.answers) for n in tomb} == {("no one", "nobody")}


def test_moodles_examples_import_on_the_command_line(tmp_path: Path) -> None:
    text = card_text(import_file(MOODLE_EXAMPLES))
    (tmp_path / "examples.yaml").write_text(text, encoding="utf-8")
    deck = load_deck(tmp_path / "examples.yaml")
    assert len(deck.notes) == 50


def test_skipped_kinds_are_counted() -> None:
    result = import_file(GIFT)
    assert result.plan is not None
    assert len(result.plan.decks[0].notes) == 16
    assert [s.kind for s in result.plan.skipped if s.kind] == ["essay", "description"]


def test_moodle_wildcards_in_short_answers_are_not_taken_as_typed() -> None:
    """Moodle's short answer reads '*' as any text: 'Leonardo*' became an answer a
    learner had to type with its asterisk, so 'Leonardo' was marked wrong. A wildcard
    answer is named; the card accepts the other full-credit answers, and a question with
    none is left out. A lone '*' at 0% is what Moodle says to every other answer; '\\*'
    is an asterisk."""
    result = import_text(
        "Painter? {=Leonardo =%100%Leo*#Yes =%0%*#No, Leonardo.}\n\nStar? {=\\* =star}\n",
        "q.gift",
        "gift",
    )
    painter, star = result.questions
    assert painter.typed == [{"text": "Leonardo"}]
    assert painter.explanation == "- Leo\\*: Yes\n- Any other answer: No, Leonardo."
    assert star.typed == [{"text": "*"}, {"text": "star"}]
    wildcard = (
        "the card does not accept 'Leo*': Moodle reads '*' as any text, a card only what "
        "is typed; add the answers it stands for"
    )
    assert [(w.line, w.message) for w in result.warnings] == [(1, wildcard)]
    with pytest.raises(DeckError) as info:
        gift("Who? {=*one}\n\nFine? {=a ~b}")
    assert [str(p) for p in info.value.problems] == [
        "q.gift:1: " + wildcard.replace("Leo*", "*one")
    ]
