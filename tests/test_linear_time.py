"""Every scanner over card text takes time linear in the text's length.

A card file may come from anyone (a shared deck repository, an import), and a field of
40,000 ``\\(`` or of nested ``[`` must not hang a build or a preview. The CPU time of an
input and of one four times as long are compared in one run (markdown-it, nh3, Pygments
and regular expressions included): linear time gives 4, quadratic 16; the tests allow 10.
Where deckbuilder's own loops read a text, the characters they read are also counted.
Inputs are runs of Markdown, cloze, HTML and math syntax as long as a field may be.
The one-pass readers that replace Anki's lazy regular expressions must read as those
regular expressions do; property tests compare them on short texts (those of the preview's
template filters in tests/preview/test_anki_template_linear.py, of math in
tests/render/test_text.py, beside the units they read).
"""

from __future__ import annotations

import contextlib
import gc
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deckbuilder import cloze
from deckbuilder.anki.notetypes import note_type
from deckbuilder.anki.notetypes.active_content import without_active_parts
from deckbuilder.cardfile.fields import LOCALIZED_KEYS, MAX_FIELD_BYTES
from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.errors import DeckError
from deckbuilder.importers import ImportOptions, plan_import, read_text_source
from deckbuilder.lint.normalise import plain
from deckbuilder.model import NoteKind
from deckbuilder.preview.anki_template import render_card, strip_html
from deckbuilder.render import markdown as text
from deckbuilder.render.fast_path import fast_html
from deckbuilder.render.fidelity import deletions_ended_early, links_left_as_text
from deckbuilder.render.highlight import highlighted_code
from deckbuilder.render.markdown import render_markdown
from deckbuilder.templates import token_spans
from tests.cardfile.loading import load_deck

# Linear time makes the longer input take 4 times as long, quadratic time 16 times.
ALLOWED_GROWTH = 10
# The longer input of each pair: a field as long as a field may be (capped, so that a
# higher limit does not make the tests slow).
LONG = min(MAX_FIELD_BYTES, 64 * 1024)
# Each measurement runs the work often enough to take this long, so that timer
# resolution and start-up costs do not decide the ratio.
MEASURED_SECONDS = 0.01


def cpu_seconds(call: Callable[[], object], calls: int = 1) -> float:
    """CPU seconds of ``calls`` runs of ``call()``. What the test process holds already
    (every earlier test's objects) is frozen out of the collector's way meanwhile: a full
    collection scans it all, and whether the longer input's allocations set one off
    depends on how large that heap is (measured: 10 times as long, in a process that had
    run 1,248 other tests first); the work's own objects are still collected as usual.
    No collection first: garbage frozen with the rest is collected after the unfreeze,
    and a collection of that heap before every measurement took a quarter of these
    tests' time."""
    gc.freeze()
    try:
        start = time.process_time()
        for _ in range(calls):
            call()
        return time.process_time() - start
    finally:
        gc.unfreeze()


def _cpu_seconds(work: Callable[[str], object], arg: str, calls: int) -> float:
    return cpu_seconds(lambda: work(arg), calls)


def growth(work: Callable[[str], object], make: Callable[[int], str], long: int = LONG) -> float:
    """How many times longer ``work`` takes on ``make(long)`` than on ``make(long // 4)``
    (CPU time; :func:`assert_linear` measures again when a busy machine spoils a run)."""
    short_text, long_text = make(long // 4), make(long)
    # Untimed: first-use costs (imports, compiled patterns) are not per character, so a
    # text of the same runs a hundredth as long pays them.
    work(make(long // 100))
    calls = 1
    while (short := _cpu_seconds(work, short_text, calls)) < MEASURED_SECONDS and calls < 4096:
        calls *= 2
    return _cpu_seconds(work, long_text, calls) / short


def run_of(unit: str) -> Callable[[int], str]:
    """Texts of ``size`` characters repeating ``unit``."""
    return lambda size: (unit * (size // len(unit) + 1))[:size]


def nested(opening: str, closing: str) -> Callable[[int], str]:
    return lambda size: opening * (size // 2 // len(opening)) + closing * (size // 2)


def assert_linear(
    work: Callable[[str], object], make: Callable[[int], str], long: int = LONG
) -> None:
    ratio = growth(work, make, long)
    for _ in range(3):  # measured again: a busy machine can delay one run
        if ratio < ALLOWED_GROWTH:
            break
        ratio = min(ratio, growth(work, make, long))
    assert ratio < ALLOWED_GROWTH, f"4 times the text took {ratio:.1f} times as long"


# Runs that once took quadratic time (the first: each MathJax opening searched the rest
# of the text for its closing), or that make a parser look far ahead from every position.
MARKDOWN_RUNS = {
    "math openings": run_of("\\("),
    "display math openings": run_of("\\["),
    "display math lines": run_of("\\[\n"),
    "escaped backslashes": run_of("\\\\("),
    "brackets": run_of("["),
    "image brackets": run_of("!["),
    "nested brackets": nested("[", "]"),
    "link openings": run_of("[a]("),
    "deletion openings": run_of("{{c1::"),
    "deletion closings": run_of("}}"),
    "stars": run_of("a *"),
    "underscores": run_of("a _"),
    "strong openings": run_of("**a"),
    "backticks": run_of("``a"),
    "tag openings": run_of("<a "),
    "comment openings": run_of("<!--"),
    "ampersands": run_of("& "),
    "character references": run_of("&#123;"),
    "escaped braces": run_of("\\{"),
    "sound tags": run_of("[sound:"),
    "list lines": run_of("\n1. "),
    # Dollar math (issue 44): openings, pairs that stay text, escapes, display lines.
    "dollar openings": run_of("$a "),
    "dollar pairs left as text": run_of("$ x^2 $ "),
    "double dollar openings": run_of("$$a$ "),
    "double dollars escaped": run_of("$$a\\$ "),
    "escaped dollars": run_of("\\$"),
    "display dollar lines": run_of("$$\n"),
}


@pytest.mark.parametrize("make", MARKDOWN_RUNS.values(), ids=MARKDOWN_RUNS.keys())
def test_rendering_a_field_takes_linear_time(make: Callable[[int], str]) -> None:
    """markdown-it, the math, sound and cloze rules, nh3: one cloze field."""
    assert_linear(lambda t: render_markdown("{{c1::x}} " + t, cloze=True), make)


FAST_PATH_RUNS = ["a *", "a _", "`a", "a ``", "[a](http://a.a", "\\*", "a_b ", "{{c1::a}} "]


@pytest.mark.parametrize("unit", FAST_PATH_RUNS)
def test_the_markdown_fast_path_takes_linear_time(unit: str) -> None:
    assert_linear(fast_html, lambda size: "a " + run_of(unit)(size))


# Field HTML as the preview shows it on a card. Rendered fields never hold most of these
# (nh3 closes every tag), but Anki's filters read whatever a field holds.
CARD_RUNS = {
    "tag openings": run_of("<"),
    "comment openings": run_of("<!--"),
    "style openings": run_of("<style>"),
    "script openings": run_of("<SCRIPT>"),
    "tags": run_of("<b>a</b>"),
    "math openings": run_of("\\("),
    "math in a deletion": lambda size: "{{c1::" + run_of("\\[<b>")(size) + "}}",
    "sound tags": run_of("[sound:"),
    "deletion openings": run_of("{{c1::"),
    "nested deletions": nested("{{c1::", "}}"),
    "deletions with hints": run_of("{{c1::a::b}} "),
    "entities": run_of("&amp;"),
}
_CLOZE_TYPE = note_type(NoteKind.CLOZE)


def _show_cloze_card(html: str) -> object:
    fields = dict.fromkeys(_CLOZE_TYPE.fields, "{{c1::x}} " + html)
    return render_card(_CLOZE_TYPE.front, _CLOZE_TYPE.back, fields, 0)


@pytest.mark.parametrize("make", CARD_RUNS.values(), ids=CARD_RUNS.keys())
def test_showing_a_card_takes_linear_time(make: Callable[[int], str]) -> None:
    """Anki's template filters as the preview page applies them: cloze, math, sounds."""
    assert_linear(_show_cloze_card, make)


@pytest.mark.parametrize("unit", ["<", "<!--", "<style>", "<SCRIPT>", "<b>a</b>", "&amp;"])
def test_the_text_filter_takes_linear_time(unit: str) -> None:
    assert_linear(strip_html, run_of(unit))


DELETION_RUNS = {
    "openings": run_of("{{c1::"),
    "closings": run_of("}}"),
    "nested": nested("{{c1::", "}}"),
    "with hints": run_of("{{c1::a::b}} "),
}


@pytest.mark.parametrize("make", DELETION_RUNS.values(), ids=DELETION_RUNS.keys())
def test_counting_a_notes_cards_takes_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(cloze.card_ordinals, make)


def test_deletions_in_highlighted_code_take_linear_time() -> None:
    """Each deletion marker is put back between Pygments' tokens: all of them into one
    long comment token here. A field highlights little code, but this function has no
    limit of its own, so it is measured on longer code, where quadratic time shows."""

    def highlight(code: str) -> object:
        return highlighted_code(code, "python", cloze=True)

    def comment(size: int) -> str:  # whole deletions only: a cut one is not highlighted
        return "# " + "{{c1::a}} " * (size // 10) + "\n"

    assert highlight(comment(100)) is not None
    assert_linear(highlight, comment, long=1024 * 1024)


# -- work counted ------------------------------------------------------------------------
class _CountingPattern:
    """A compiled pattern that counts the matches its ``finditer`` is asked for."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scans = 0

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        self.scans += 1
        return self.pattern.finditer(string)


def test_math_closings_are_found_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """One scan finds every closing delimiter of a paragraph, however many openings look
    for one (scanning ahead from each was quadratic)."""
    counting = _CountingPattern(text.MATH_CLOSER)
    monkeypatch.setattr(text, "MATH_CLOSER", counting)
    out = render_markdown("x " + "\\(" * 5000 + " \\(a\\) \\[b\\]")
    assert out.html.endswith("\\(a\\) \\[b\\]")
    assert counting.scans == 1


@pytest.mark.parametrize("fmt", ["quiz", "aiken"])
def test_importing_long_runs_of_spaces_takes_linear_time(fmt: str) -> None:
    """Each line's pattern reads a run of spaces once, not once per space."""
    from deckbuilder.errors import DeckError
    from deckbuilder.importers import ImportOptions, plan_import, read_text_source

    def import_text(text: str, file: str, fmt: str) -> None:
        plan_import(read_text_source(text, Path(file), fmt), ImportOptions(out=Path("q.yaml")))

    def seconds(n: int) -> float:
        # CPU time, as the other checks here: wall time on a loaded machine skewed the ratio.
        spaces = " " * n
        text = (
            f"1. Q{spaces}x{spaces}\nA. a{spaces}b{spaces}\nB. c{spaces}\nAnswer: A{spaces}\n"
            if fmt == "quiz"
            else f"Q{spaces}x\nA. a{spaces}b{spaces}\nB. c{spaces}\nANSWER: A{spaces}\n"
        )

        def run() -> None:
            with contextlib.suppress(DeckError):
                import_text(text, "q.txt", fmt)

        return cpu_seconds(run)

    seconds(1_000)  # warm up
    ratio = min(seconds(20_000) for _ in range(3)) / min(seconds(5_000) for _ in range(3))
    assert ratio < 10, ratio  # quadratic would be about 16


MOODLE_RUNS = {
    "lines": run_of("a\n"),
    "list lines": run_of("- a\n"),
    "backtick runs": run_of("`` ` a\n"),
    "math openings": run_of("\\( \\[ a\n"),
    "fence openings": run_of("```a\n~~~\n"),
}


@pytest.mark.parametrize("make", MOODLE_RUNS.values(), ids=MOODLE_RUNS.keys())
def test_reading_moodle_text_takes_linear_time(make: Callable[[int], str]) -> None:
    """A GIFT question's text in Moodle's format: each line is made a line of Markdown in
    one pass, not by rendering the text again for every line."""
    from deckbuilder.importers.markup import moodle_to_markdown

    assert_linear(moodle_to_markdown, make)


# -- what the checks of issue 32 read ------------------------------------------------------
FIDELITY_RUNS = {
    "deletion openings with braces": run_of("{{c1::{"),
    "brace runs": run_of("}}}"),
    "deletions ended early": run_of("{{c1::{a}}}"),
    "nested deletions with braces": nested("{{c1::{", "}}}"),
    "escaped braces": run_of("\\{{c1::\\}"),
    "code openings": run_of("<code>{{c1::{"),
    "math openings": run_of("\\({{c1::{"),
    "deletions whose braces never close": run_of("{{c1::{{}}"),
}


@pytest.mark.parametrize("make", FIDELITY_RUNS.values(), ids=FIDELITY_RUNS.keys())
def test_finding_deletions_anki_ends_early_takes_linear_time(make: Callable[[int], str]) -> None:
    """Each deletion Anki ends early looks ahead for where its author ended it: once per
    deletion, not once per brace."""
    assert_linear(deletions_ended_early, make)


LINK_RUNS = {
    "picture openings": run_of("![a](b c"),
    "label openings": run_of("["),
    "address openings": run_of("]("),
    "nested parentheses": run_of("[a](b (c "),
    "pictures left as text": run_of("![a](b c.png) "),
    "spaces in an address": lambda size: "![a](x" + " " * size + "b.png)",
    "quotes in an address": lambda size: "![a](x" + run_of(' "')(size) + ")",
}


@pytest.mark.parametrize("make", LINK_RUNS.values(), ids=LINK_RUNS.keys())
def test_finding_links_left_as_text_takes_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(lambda t: links_left_as_text(t, lambda _: False), make)
    assert_linear(lambda t: render_markdown(t, cloze=True), make)


def _notes(note: Callable[[int], str]) -> Callable[[int], str]:
    """Card files of ``size`` characters, their notes written by ``note``."""

    def make(size: int) -> str:
        lines = ["deck: D", "notes:"]
        total, i = 0, 0
        while total < size:
            lines.append(note(i))
            total += len(lines[-1]) + 1
            i += 1
        return "\n".join(lines) + "\n"

    return make


CARD_FILE_MISTAKES = {
    "tabs": _notes(lambda i: f"  - id: n{i}\n\tfront: 앞\n\tback: 뒤"),
    "colons": _notes(lambda i: f"  - id: n{i}\n    front: 정답: 서울\n    back: Note: x"),
    "comments": _notes(lambda i: f"  - id: n{i}\n    front: 앞 # 뒤\n    back: b"),
    "open quotes": _notes(lambda i: f'  - id: n{i}\n    front: "앞\n    back: b'),
    "one note of tabs": lambda size: "deck: D\nnotes:\n  - id: a\n" + "\tx: y\n" * (size // 6),
    "one line": lambda size: "deck: " + "a: " * (size // 3) + "\n",
}


@pytest.mark.parametrize("make", CARD_FILE_MISTAKES.values(), ids=CARD_FILE_MISTAKES.keys())
def test_reading_past_yaml_mistakes_takes_linear_time(make: Callable[[int], str]) -> None:
    """Every mistake of a file is reported in one run: its parts are read again, each
    as often as it has mistakes, and a file of mistakes in one part is cut short."""
    assert read_yaml(make(1000), "f.yaml", LOCALIZED_KEYS)[1]
    assert_linear(lambda t: read_yaml(t, "f.yaml", LOCALIZED_KEYS), make)


# Issue 37, item 4: card text of unclosed openers took seconds to minutes in build (45 KB
# of '[' 26.8 s): lint's plain text tried a link at every '[' to the end of the text.
OPENER_RUNS = ["[", "![", "\\[", "<![CDATA[", "[sound:", "[a](", "![a]("]


@pytest.mark.parametrize("unit", OPENER_RUNS)
def test_unclosed_openers_take_linear_time(unit: str) -> None:
    """A basic card's front (no cloze, so no fast path for the runs) and lint's reading of
    it as plain text."""

    def lint_text(text: str) -> object:
        plain.cache_clear()  # each call reads the text again
        return plain(text)

    assert_linear(lint_text, run_of(unit))
    assert_linear(lambda t: render_markdown("*a* " + t), run_of(unit), long=LONG // 2)


def _imported(fmt: str) -> Callable[[str], object]:
    def run(text: str) -> object:
        with contextlib.suppress(DeckError):
            return plan_import(
                read_text_source(text, Path("q.txt"), fmt), ImportOptions(out=Path("q.yaml"))
            )
        return None

    return run


@pytest.mark.parametrize(
    ("fmt", "make", "long"),
    [
        # 12,000 identical rows: 21.5 s, each id found by trying -2, -3, ... in turn.
        ("anki-text", lambda n: "#separator:comma\n" + "same,same\n" * n, 12_000),
        # A matching question of 6,000 pairs: 34 s, a card per pair with every answer.
        ("gift", lambda n: "::Q:: M {" + " ".join(f"=a{i} -> b{i}" for i in range(n)) + "}", 6_000),
    ],
    ids=["identical-csv-rows", "gift-matching-pairs"],
)
def test_hostile_imports_take_linear_time(fmt: str, make: Callable[[int], str], long: int) -> None:
    assert_linear(_imported(fmt), make, long)


def test_thirty_thousand_tags_on_a_note_take_linear_time(tmp_path: Path) -> None:
    """Each tag is checked against the spellings before it once (a dictionary per '::'
    level), not against every tag before it."""

    def load(text: str) -> object:
        path = tmp_path / "deck.yaml"
        path.write_text(text, encoding="utf-8")
        return load_deck(path)

    def make(n: int) -> str:
        tags = ", ".join(f"t{i}::x{i % 7}" for i in range(n))
        return f"deck: D\nnotes:\n  - {{id: a, front: f, back: b, tags: [{tags}]}}\n"

    assert_linear(load, make, 30_000)


def test_reading_anki_tags_takes_linear_time() -> None:
    """A template of 25,000 tags and no comment looked for the next comment from each tag
    to its end (0.7 s at 125,000 characters, where check and build read every template)."""
    assert_linear(token_spans, run_of("{{a}}"))
    assert_linear(token_spans, run_of("<!--a-->"))


# A note type's templates and CSS read for what they run or fetch (issue 45): runs of
# openings never closed, and of parts whose removal joins their neighbours anew.
ACTIVE_RUNS = [
    *("<", "<a ", '<a b="', "<a b=x onclick=y ", "<script>", "<style>", "<textarea>", "<!--"),
    *("<![CDATA[", "{{", "{{a}}", "&#x73;", "<img src=x onerror=y>", "<<script></script>"),
    *("<svg><style><b>", "url(", "/*", "@import url(https://h/", "\\", "{"),
]


@pytest.mark.parametrize("unit", ACTIVE_RUNS)
def test_finding_what_a_note_type_runs_takes_linear_time(unit: str) -> None:
    assert_linear(without_active_parts, run_of(unit))
    assert_linear(lambda t: without_active_parts(t, css=True), run_of(unit))


@pytest.mark.parametrize("unit", ["`a ", "``a`", "{{c1::a}} `", "\\{{c1::"])
def test_finding_cloze_marks_outside_a_cloze_note_takes_linear_time(unit: str) -> None:
    """Issue 44: the check reads a basic note's text past its code (backtick runs paired
    as Markdown pairs them) for a deletion it would show as typed."""
    from deckbuilder.cardfile.checks import note_problems
    from deckbuilder.model import BasicNote

    assert_linear(
        lambda t: note_problems([BasicNote(id="a", line=1, front="{{c" + t, back="b")], "f"),
        run_of(unit),
    )


@pytest.mark.parametrize(
    "unit", ["\\\\t\n  ", "word\n  ", "- x\n  "], ids=["escapes", "words", "entries"]
)
def test_locating_the_lines_of_a_long_field_takes_linear_time(unit: str) -> None:
    """Issue 44: a field written over many lines is located line by line (for the line
    of a picture in it), each line looked for once near where the one before ended."""
    from deckbuilder.cardfile.reader import decks_from_tree
    from deckbuilder.cardfile.yaml_recovery import read_yaml

    def load(text: str) -> object:
        source = f'deck: D\nnotes:\n  - id: a\n    front: "{text}"\n    back: b\n'
        tree, _ = read_yaml(source, "d.yaml", frozenset({"front"}))
        return decks_from_tree(Path("d.yaml"), tree, source=source)

    assert_linear(load, run_of(unit), long=LONG // 4)
