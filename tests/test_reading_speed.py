"""The shortcuts of reading a card file (session 4) give what the plain code gives.

Each test states the plain version next to the tuned one and compares them on inputs that
take the shortcut and on inputs that must not (Unicode digits, nested or unfinished
deletions, and so on). Whole files are compared by tests/test_performance_load.py.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from deckbuilder.load import _has_cloze
from deckbuilder.model import cloze_ordinals

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
