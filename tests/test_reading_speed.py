"""The shortcuts of reading a card file (session 4) give what the plain code gives.

Each test states the plain version next to the tuned one and compares them on inputs that
take the shortcut and on inputs that must not (Unicode digits, nested or unfinished
deletions, and so on). Whole files are compared by tests/test_performance_load.py.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from deckbuilder.identity import _base91
from deckbuilder.load import _has_cloze
from deckbuilder.model import cloze_ordinals
from deckbuilder.text import _FIXED, _TOKEN

from .test_performance_export import reference_base91

# Pieces of cloze syntax, whole and broken, so that generated text often holds deletions
# with ordinal 0 before numbered ones, deletions inside deletions and unclosed ones.
CLOZE_PIECES = ["{{c0::", "{{c1::", "{{c2::", "{{c00::", "{{c\u0663::", "{{c\u0660::", "{{c1:"]
CLOZE_PIECES += ["}}", "}", "{", "::", "x", " ", "\n", "한"]


@given(st.lists(st.sampled_from(CLOZE_PIECES), max_size=14).map("".join))
@example("{{c0::a}} {{c1::b}}")
@example("{{c0::{{c1::a}}")  # the c1 sits inside the c0 deletion: no numbered deletion
@example("{{c0::a}}{{c0::b}}")
@example("{{c\u0663::a}}")  # an Arabic-Indic 3 is a digit of \d and of int()
def test_has_cloze_is_whether_there_are_card_ordinals(text: str) -> None:
    assert _has_cloze(text) is bool(cloze_ordinals(text))


def test_fast_html_renders_every_other_token_from_its_table() -> None:
    """fast_html treats a token starting with '*' or '_' as an emphasis run, '`' as code,
    '[' as a link and looks every other one up in _FIXED: each token the splitting regex
    finds around two printable ASCII characters is one of these."""
    printable = [chr(i) for i in range(32, 127)]
    tokens = set()
    for a in printable:
        for b in printable:
            for text in (f"x {a}{b} y", f"x{a}{b}y", f"{a}{b}"):
                tokens.update(_TOKEN.split(text)[1::2])
    others = {token for token in tokens if token[0] not in "*_`["}
    assert {">", "<", "&", "~", "\\", "\\*"} <= others  # the regex found them
    assert others <= _FIXED.keys()


@given(st.integers(min_value=0, max_value=2**80))
@example(0)
@example(2**64 - 1)
def test_base91_equals_one_digit_at_a_time(value: int) -> None:
    assert _base91(value) == reference_base91(value)


@pytest.mark.parametrize("digits", range(1, 13))
def test_base91_around_each_number_of_digits(digits: int) -> None:
    """Five pairs of digits without a loop up to 91**10, the loop from there on."""
    for value in (91 ** (digits - 1) - 1, 91 ** (digits - 1), 91**digits - 1, 91**digits):
        assert _base91(value) == reference_base91(value)
