"""Any value a user can type is answered with a result or a one-line error, never an
internal error: every option of ``deckbuilder preview``, and every value of a card file's
``study:`` block. Exit status 0, 1 (a value out of range) or 2 (usage), never 3 (a bug).

Real command lines cannot hold a NUL character, and file names arrive as text or, when
not UTF-8, as surrogate escapes; the generated values keep to that.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.study import STUDY_KEYS
from deckbuilder.cli import main
from deckbuilder.schedule import DEFAULT_PARAMETERS, LOWER_BOUNDS, UPPER_BOUNDS

DECK = "deck: Hostile\nid: hostile\nnotes:\n  - {id: q, front: f, back: b}\n"

# Text a command line can carry: no NUL, no lone surrogates except the escapes Python
# makes of bytes that are not UTF-8 (U+DC80..U+DCFF).
ARGV_TEXT = st.text(
    st.one_of(
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
        st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
    ),
    max_size=20,
)
# A file name in the test's folder: no separators, so nothing is written elsewhere.
NAME = ARGV_TEXT.filter(lambda s: "/" not in s and "\\" not in s)


def numbers(*edges: int) -> st.SearchStrategy[str]:
    """Whole numbers as typed: any size or sign, the edges of a range, or not a number."""
    return st.one_of(
        st.integers().map(str),
        st.sampled_from(edges).map(str),
        st.sampled_from(["1e3", "0x10", "", " ", "-", "1.5", str(10**40)]),
        ARGV_TEXT,
    )


RETENTIONS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=0.0, max_value=1.0).map(repr),
    st.floats(min_value=0.0, max_value=0.01).map(repr),
    st.sampled_from(["0", "1", "0.0001", "1e-300", "5e-324", "0.01", "0.999", "0.5", "nan"]),
    ARGV_TEXT,
)
IN_BOUNDS_PARAMETERS = st.tuples(
    *(
        st.floats(min_value=lo, max_value=hi)
        for lo, hi in zip(LOWER_BOUNDS, UPPER_BOUNDS, strict=True)
    )
).map(lambda ws: ", ".join(map(repr, ws)))
PARAMS = st.one_of(
    IN_BOUNDS_PARAMETERS,
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=25).map(
        lambda ws: ",".join(map(repr, ws))
    ),
    st.sampled_from(["folder", "binary.txt", "twenty.txt", "huge.txt", "empty.txt", "/dev/zero"]),
    ARGV_TEXT,
)
SUFFIXES = st.sampled_from(["", ".svg", ".png", ".SVG", ".html", ".htm", ".pdf"])
OUTPUTS = st.one_of(
    st.tuples(NAME, SUFFIXES).map("".join),
    st.sampled_from(
        [
            "folder.svg",
            "folder.html",
            "binary.txt/chart.svg",
            "binary.txt/page.html",
            "new/deeper/chart.png",
            "new/deeper/page.html",
            "a" * 300 + ".svg",
            "a" * 300 + ".html",
        ]
    ),
)
# Values a preview accepts, for the options that are not under test in an example; short
# horizons, as a long forecast of a one-card deck takes seconds (and is no different here).
USUAL = {
    "--retention": st.floats(min_value=0.7, max_value=0.99).map(repr),
    "--new-per-day": st.integers(0, 50).map(str),
    "--review-limit": st.integers(0, 500).map(str),
    "--days": st.integers(1, 20).map(str),
    "--params": IN_BOUNDS_PARAMETERS,
    "--seed": st.integers(min_value=0).map(str),
    "--plot": st.sampled_from(["chart.svg", "chart.png"]),
    "--html-out": st.just("page.html"),
    "--lang": st.sampled_from(["ko", "all"]),
    "--media": st.just("folder"),
    "--jobs": st.integers(1, 4).map(str),
}
# Any value, for the options under test.
HOSTILE = {
    "--retention": RETENTIONS,
    "--new-per-day": numbers(0, 9999, 10000, -1),
    "--review-limit": numbers(0, 9999, 10000, -1),
    "--days": st.one_of(
        USUAL["--days"],
        st.integers(max_value=0).map(str),
        st.integers(min_value=3651).map(str),
        st.sampled_from(["", "x", "1.5"]),
    ),
    "--params": PARAMS,
    "--seed": numbers(0, -1, 2**64, -(2**64)),
    "--plot": OUTPUTS,
    "--html-out": OUTPUTS,
    "--lang": st.one_of(st.sampled_from(["ko", "all", "KO", ""]), ARGV_TEXT),
    "--media": st.one_of(st.sampled_from(["folder", "binary.txt", "missing"]), NAME),
    "--jobs": numbers(0, -1),
}


@st.composite
def option_values(draw: st.DrawFn) -> dict[str, str]:
    """Usual values for some options, and any value for one or two others: a hostile
    value is only reached when the values before it pass."""
    values = draw(st.fixed_dictionaries({}, optional=USUAL))
    for option in draw(st.lists(st.sampled_from(sorted(HOSTILE)), min_size=1, max_size=2)):
        values[option] = draw(HOSTILE[option])
    return values


FLAGS = st.lists(st.sampled_from(["--json", "--html", "--fallback"]), unique=True)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding a one-card deck and odd files for options to point at, as cwd."""
    (tmp_path / "deck.yaml").write_text(DECK, encoding="utf-8")
    for folder in ("folder", "folder.svg", "folder.html"):
        (tmp_path / folder).mkdir()
    (tmp_path / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    shown = [str(w) for w in DEFAULT_PARAMETERS]
    (tmp_path / "twenty.txt").write_text(", ".join(shown[:20]), encoding="utf-8")
    (tmp_path / "huge.txt").write_text(", ".join(shown) * 5000, encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def assert_answered(code: int, err: str) -> None:
    """Exit 0, 1 or 2; an exit 1 says what is wrong in one ``Error:`` line (after any
    warning), or in FILE:LINE lines and their count."""
    assert code in (0, 1, 2), err
    assert "Traceback" not in err and "Internal error" not in err, err
    if code == 1:
        lines = [line for line in err.splitlines() if not line.startswith("Warning: ")]
        one_line = len(lines) == 1 and lines[0].startswith("Error: ")
        located = bool(lines) and lines[-1].endswith("found; nothing was written.")
        assert one_line or located, err


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(options=option_values(), flags=FLAGS)
# Values that were internal errors once, tried on every run.
@example(options={"--days": "5", "--seed": "-1"}, flags=[])
@example(options={"--days": "5", "--retention": "1e-300"}, flags=[])
@example(options={"--days": "5", "--new-per-day": str(10**24)}, flags=[])
@example(options={"--days": "5", "--review-limit": str(10**24)}, flags=[])
@example(options={"--days": "5", "--params": "binary.txt"}, flags=[])
@example(options={"--days": "5", "--params": "folder"}, flags=[])
@example(options={"--days": "5", "--html-out": "\udc80.html"}, flags=["--json"])
def test_no_preview_option_value_is_an_internal_error(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    options: dict[str, str],
    flags: list[str],
) -> None:
    args = ["preview", "deck.yaml", *flags]
    for option, value in options.items():
        args += [option, value]
    capsys.readouterr()
    code = main(args)
    assert_answered(code, capsys.readouterr().err)


# A study block's values as YAML writes them: numbers in every YAML 1.1 spelling, text,
# nothing, lists and mappings.
YAML_SCALARS = st.one_of(
    st.from_regex(r"\A[-+]?[0-9_]{1,12}(\.[0-9]*)?([eE][-+]?[0-9]{1,4})?\Z"),
    st.from_regex(
        r"\A[-+]?(0x[0-9a-fA-F_]{1,6}|0b[01_]{1,8}|0[0-7_]{1,6}|[0-9]{1,3}(:[0-5]?[0-9]){1,3}(\.[0-9]*)?)\Z"
    ),
    st.sampled_from([".nan", ".inf", "-.inf", "~", "null", "true", "no", "1e400", "2001-12-14"]),
    st.from_regex(r"\A[0-9]{1,40}(\.[0-9]{1,10})?\s?[smhdSMHD]?\Z"),
    st.text(max_size=20).map(json.dumps),
)
YAML_VALUES = st.one_of(
    YAML_SCALARS,
    st.lists(YAML_SCALARS, max_size=4).map(lambda items: f"[{', '.join(items)}]"),
    YAML_SCALARS.map(lambda item: f"{{a: {item}}}"),
)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(study=st.dictionaries(st.sampled_from(STUDY_KEYS), YAML_VALUES, min_size=1))
@example(study={"history": '"\\u0000"'})  # a path no system looks up: was exit 3
def test_no_study_block_value_is_an_internal_error(
    project: Path, capsys: pytest.CaptureFixture[str], study: dict[str, str]
) -> None:
    block = "".join(f"  {key}: {value}\n" for key, value in study.items())
    (project / "study.yaml").write_text(
        f"deck: Study\nid: study\nstudy:\n{block}notes:\n  - {{id: q, front: f, back: b}}\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    code = main(["check", "study.yaml", "--media", "folder"])
    err = capsys.readouterr().err
    assert_answered(code, err)
    if code == 1:
        # Each problem is a "study.yaml:LINE:" line; a YAML error shows its source line below.
        assert all(line.startswith(("study.yaml:", " ")) for line in err.splitlines()[:-1]), err
