"""Messages a teacher can act on: YAML syntax errors say what to write instead and show
the line, and a renamed note is a warning on build."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq
from deckbuilder.errors import DeckError
from tests.cardfile.loading import parse_yaml
from tests.conftest import Run

CliRun = Callable[..., Run]
FILE = "cards/deck.yaml"
NOTE = "deck: D\nnotes:\n  - id: a\n    front: Q\n"  # a 'back:' line follows, line 5


def problem(text: str) -> tuple[int | None, str]:
    with pytest.raises(DeckError) as info:
        parse_yaml(text, FILE)
    (found,) = info.value.problems
    return found.line, found.message


def back_of(tree: object) -> object:
    assert isinstance(tree, YMap)
    notes = tree.get("notes")
    assert isinstance(notes, YSeq) and isinstance(notes.items[0], YMap)
    back = notes.items[0].get("back")
    assert isinstance(back, YScalar)
    return back.raw


def test_the_readme_image_line_gets_the_quoted_line_and_is_shown() -> None:
    assert problem(NOTE + "    back: ![diagram](x.png)\n") == (
        5,
        "YAML syntax error: text starting with '!' needs quotes; write "
        'back: "![diagram](x.png)" (YAML parser: while scanning a tag did not find expected '
        "whitespace or line break)\n"
        "        back: ![diagram](x.png)",
    )


@pytest.mark.parametrize(
    ("back", "hint"),
    [
        ("!important thing", "unsupported YAML tag '!important'; text starting with '!' needs"),
        ("&nbsp; apart", "text starting with '&' needs quotes"),
        ("*args", "unknown YAML alias '*args'; text starting with '*' needs quotes"),
        ("**bold** word", "text starting with '*' needs quotes"),
        ("@user", "text starting with '@' needs quotes"),
        ("`code` first", "text starting with '`' needs quotes"),
        ("%d percent", "text starting with '%' needs quotes"),
        ("| a | b |", "text starting with '|' needs quotes"),
        ("> a quote", "text starting with '>' needs quotes"),
        ("[link](x.html) more", "text starting with '[' needs quotes"),
        ("{x} is a set", "text starting with '{' needs quotes"),
        ("- not a list", "text starting with '-' needs quotes"),
        ("Note: this", "text containing ': ' needs quotes"),
        ("Biology::", "text ending in ':' needs quotes"),
        ("`x` is \\(a: b\\)", "text starting with '`' and containing ': ' needs quotes"),
        ('"Hi" she said', "text that starts with a quote must end with it"),
        ("'it's here'", "text that starts with a quote must end with it"),
        ("'never closed", "this text opens with ' but never closes it; end it with ' too"),
    ],
)
def test_text_that_needs_quotes_is_named_with_the_line_to_write(back: str, hint: str) -> None:
    line, message = problem(NOTE + f"    back: {back}\n")
    first, shown = message.split("\n")
    assert line == 5 and hint in first
    assert shown == f"        back: {back}"
    fixed = first.split("; write ")[1].split(" (YAML parser:")[0]
    meant = {"'i": back[1:-1], "'n": back[1:]}.get(back[:2], back)  # without the author's quotes
    assert back_of(parse_yaml(NOTE + f"    {fixed}\n", FILE)) == meant


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        # A comment may have been meant, or the text goes on below: no line to write.
        (
            NOTE + "    back: *bold* word # really?\n",
            5,
            "text starting with '*' and containing ' #' needs quotes (",
        ),
        (
            NOTE + "    back: *bold* word\n      and more\n",
            5,
            "text starting with '*' needs quotes (",
        ),
        # Tabs, in a key's indentation or in a block of text.
        ("notes:\n\t- id: a\n", 2, "YAML indents with spaces, not tabs"),
        ("notes:\n  - id: a\n\tback: x\n", 3, "YAML indents with spaces, not tabs"),
        ("a: |\n  x\n\ty\n", 3, "YAML indents with spaces, not tabs"),
        # A key out of line, and a list that never closes (named where it opens).
        (NOTE + "     back: x\n", 5, "check this line's indentation: its key must line up"),
        ("choices: [a, b\nanswer: A\n", 1, "the [ here is never closed with ]"),
    ],
)
def test_other_syntax_errors_get_a_hint_at_the_line_to_fix(text: str, line: int, hint: str) -> None:
    found_line, message = problem(text)
    assert (found_line, "; write " in message) == (line, False)
    first, shown = message.split("\n")
    assert first.startswith("YAML syntax error: " + hint)
    assert shown == "    " + text.splitlines()[line - 1]


def test_an_error_without_a_telling_line_gets_the_general_hint() -> None:
    line, message = problem("a: b\n- c\n")
    assert line == 2
    assert message.startswith(
        "YAML syntax error: if this line holds text, put it in quotes (text starting with "
        "! & * @ ` % | > [ { or containing ': ' or ' #' needs them); indent with spaces, not "
        "tabs (YAML parser: "
    )


def test_a_long_line_is_shown_around_the_error() -> None:
    text = "a: " + "x" * 150 + ": y" + "z" * 200
    line, message = problem(text + "\n")
    first, shown = message.split("\n")
    assert line == 1 and "; write" not in first  # a fix that long would not read
    # The error at column 153 is in sight, with 10 characters after it.
    assert shown == "    ..." + text[63:163] + "..."


# Text as teachers type it: Markdown, code, math, and the characters YAML gives meaning to.
typed_text = st.lists(
    st.sampled_from(["!", "&", "*", "@", "`", "%", "|", ">", "[", "]", "{", "}", "-", "?"])
    | st.sampled_from([": ", " #", "'", '"', "\\", "\\(x\\)", "**", "\t", " "])
    | st.text(st.characters(codec="utf-8", exclude_categories=("C", "Zl", "Zp")), max_size=4),
    max_size=8,
).map("".join)


@given(typed_text)
@example("!\xa0")  # a no-break space at the end is text to YAML, and stays in the fix
def test_a_suggested_line_reads_as_the_text_that_was_typed(back: str) -> None:
    """Whatever the text: it reads, or one problem names line 5; and where a line to
    write is given, that line reads as the text typed."""
    text = NOTE + f"    back: {back}\n"
    try:
        parse_yaml(text, FILE)
    except DeckError as error:
        (found,) = error.problems
        assert found.line == 5 or found.line is None, found
        suggested = re.search(r"; write (back: .*?) \(YAML parser:", found.message)
        suggested = suggested or re.search(r"; write (back: .*)\n", found.message)
        if suggested and not back.strip().startswith(("'", '"')):
            assert back_of(parse_yaml(NOTE + f"    {suggested[1]}\n", FILE)) == back.strip(" \t")


def test_check_prints_the_hint_and_the_line(tmp_path: Path, cli: CliRun) -> None:
    source = tmp_path / "deck.yaml"
    source.write_text(NOTE + "    back: ![diagram](x.png)\n", encoding="utf-8")
    (tmp_path / "x.png").write_bytes(b"\x89PNG")  # the note reads as the fix writes it
    result = cli("check", source)
    assert result.code == 1
    assert result.err.splitlines() == [
        f"{source}:5: YAML syntax error: text starting with '!' needs quotes; write "
        'back: "![diagram](x.png)" (YAML parser: while scanning a tag did not find expected '
        "whitespace or line break)",
        "        back: ![diagram](x.png)",
        "1 problem found; nothing was written.",
    ]
    as_json = json.loads(cli("check", "--json", source).out)
    assert as_json["problems"][0]["message"].endswith("\n        back: ![diagram](x.png)")


def test_a_key_without_its_colon_is_named_alone_with_the_line_to_write(
    tmp_path: Path, cli: CliRun
) -> None:
    """'front x' for 'front: x' was told to be quoted or indented with spaces, and the
    correct keys after it were each told that their indentation was wrong; one whose
    error the parser met on the next line ('- id b', 'deck D') was not named at all. Read
    as the fix writes it, the note's content is checked too."""
    source = tmp_path / "deck.yaml"
    source.write_text(
        "deck: D\nnotes:\n"
        "  - id: a\n    front x\n    back: y\n"
        "  - id b\n    front: x\n    back: y\n"
        "  - id: c\n    question What is it?\n    choices: [a, b]\n    answer: C\n",
        encoding="utf-8",
    )
    lines = cli("check", source).err.splitlines()
    assert [line for line in lines if line.startswith(str(source))] == [
        f"{source}:4: YAML syntax error: 'front' needs a colon after it; write front: x "
        "(YAML parser: while scanning a simple key could not find expected ':')",
        f"{source}:6: YAML syntax error: 'id' needs a colon after it; write - id: b "
        "(YAML parser: mapping values are not allowed in this context)",
        f"{source}:10: YAML syntax error: 'question' needs a colon after it; write "
        "question: What is it? (YAML parser: while scanning a simple key could not find "
        "expected ':')",
        f"{source}:12: note 'c': answer 'C' is not one of the choices (A-B)",
    ]
    assert problem("deck D\nnotes:\n  - id: a\n") == (
        1,
        "YAML syntax error: 'deck' needs a colon after it; write deck: D (YAML parser: "
        "mapping values are not allowed in this context)\n    deck D",
    )


def test_build_warns_about_a_renamed_note(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = Path("cards/deck.yaml")
    source.parent.mkdir()
    source.write_text(NOTE + "    back: A\n", encoding="utf-8")
    assert cli("build").code == 0
    source.write_text(NOTE.replace("id: a", "id: b") + "    back: A\n", encoding="utf-8")
    built = cli("build")
    assert built.code == 0
    assert (
        "cards/deck.yaml:3: note 'b': warning [renamed]: looks like 'a' was renamed to 'b'; its review "
        "history stays with the old id. To keep it, change the id back to 'a'" in built.err
    )


TWO_NOTES = "deck: D\nid: d\nnotes:\n  - id: a\n    front: q\n    back: b\n  - id: b\n    front: q2\n    back: b2\n"
NBSP, IDEOGRAPHIC = "U+00A0 (no-break space)", "U+3000 (ideographic space)"


@pytest.mark.parametrize(
    ("written", "meant", "line", "message"),
    [
        (
            "\u00a0   back: b2",
            "    back: b2",
            9,
            f"{NBSP} in the indentation: YAML indents with plain spaces and reads this line "
            "as text; replace it with a space",
        ),
        (
            "\u3000  back: b2",
            "    back: b2",
            9,
            f"{IDEOGRAPHIC} in the indentation: YAML indents with plain spaces and reads this "
            "line as text; replace it with two spaces",
        ),
        (
            "    back:\u00a0b2",
            "    back: b2",
            9,
            f"{NBSP} after 'back:': YAML needs a plain space after a key's colon and reads "
            "'back:' and what follows as text; replace it with a space",
        ),
        (
            "    front:\u3000q2",
            "    front: q2",
            8,
            f"{IDEOGRAPHIC} after 'front:': YAML needs a plain space after a key's colon and "
            "reads 'front:' and what follows as text; replace it with a space",
        ),
        (
            "    back\u00a0: b2",
            "    back: b2",
            9,
            f"{NBSP} between 'back' and its colon: YAML reads it as part of the key; delete it",
        ),
        (
            "  -\u00a0id: b",
            "  - id: b",
            7,
            f"{NBSP} after '-': a list entry needs a plain space after its dash; replace it "
            "with a space",
        ),
    ],
)
def test_a_look_alike_space_is_named_at_its_line(
    tmp_path: Path, cli: CliRun, written: str, meant: str, line: int, message: str
) -> None:
    """A no-break or ideographic space where YAML needs a space: the message blamed
    another line or cause (tabs, quotes, an unknown key '    back') and never named the
    character (issue 45). Named at its line, the rest of the file is read as if fixed."""
    source = tmp_path / "deck.yaml"
    source.write_text(TWO_NOTES.replace(meant, written, 1), encoding="utf-8")
    assert written in source.read_text(encoding="utf-8")
    run = cli("check", source)
    assert run.code == 1
    assert run.err.splitlines() == [
        f"{source}:{line}: {message}",
        "1 problem found; nothing was written.",
    ]


def test_look_alike_spaces_in_text_are_text(tmp_path: Path, cli: CliRun) -> None:
    """The same spaces inside text, in a block of text or a quoted text over several
    lines, are the author's: a file that loads is not questioned, and a file with another
    mistake gets only that one."""
    text = (
        "deck: D\nid: d\nnotes:\n  - id: a\n    front: 10\u00a0km?\n    back: |\n"
        '      \u3000첫 문단입니다.\n\n      \u3000둘째 문단.\n  - id: b\n    front: "one\n'
        '      \u3000two"\n    back: b\n'
    )
    source = tmp_path / "deck.yaml"
    source.write_text(text, encoding="utf-8")
    run = cli("check", source)
    assert run.code == 0, run.err
    source.write_text(text.replace("  - id: b\n", "  - id: b\n    bogus: 1\n"), encoding="utf-8")
    run = cli("check", source)
    assert run.code == 1
    assert "U+3000" not in run.err and "bogus" in run.err.splitlines()[0]
