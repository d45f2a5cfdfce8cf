"""Math between dollars through the real Anki backend and on the preview page (issue 44):
``$...$`` and ``$$...$$`` reach Anki as ``\\(...\\)`` and ``\\[...\\]``, the only delimiters
its MathJax reads, in every kind of field; prices and ``\\$`` stay dollar signs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.preview.mathml import typeset
from tests.app_calls import build_packages
from tests.conftest import DATA, Run, copied, import_package

DOLLARS = DATA / "dollars" / "dollars.yaml"


@pytest.fixture
def cards(tmp_path: Path, collection: Any) -> dict[tuple[str, int], Any]:
    """The deck built and imported into a fresh collection: its cards by (note id, ord)."""
    (result,) = build_packages(
        [copied(DOLLARS, tmp_path)], tmp_path / "out", timestamp=1_700_000_000
    )
    log = import_package(collection, result.path)
    assert len(log.new) == 4 and not log.conflicting
    found = {}
    for nid in collection.find_notes(""):
        note = collection.get_note(nid)
        note_id = next(
            i for i in ("basic", "cloze", "mcq", "typed") if note.guid == note_guid("dollars", i)
        )
        for card in note.cards():
            found[(note_id, card.ord)] = card
    return found


def body(html: str) -> str:
    return re.sub(r"<style>.*?</style>|<script>.*?</script>", "", html, flags=re.DOTALL)


@pytest.mark.anki
def test_dollar_math_reaches_anki_as_mathjax_delimiters(cards: dict[tuple[str, int], Any]) -> None:
    """The issue's formula was shown raw on the card."""
    basic = cards[("basic", 0)]
    assert "Half-life: \\(t_{1/2} = \\frac{0.693 V_d}{CL}\\)" in basic.question()
    answer = body(basic.answer())
    assert "It costs $5 and $10, or $20." in answer
    assert "\\[\nCL = \\frac{Dose}{AUC}\n\\]" in answer
    assert "$$" not in answer and "$t_" not in answer
    mcq = body(cards[("mcq", 0)].question())
    assert (
        "Which is \\(\\sqrt{4}\\)?" in mcq and ">\\(2\\)</div>" in mcq and ">\\(4\\)</div>" in mcq
    )
    typed = cards[("typed", 0)]
    assert "What is \\(2^3\\)?" in typed.question()
    assert "Because \\(2 \\cdot 2 \\cdot 2 = 8\\), and \\(x\\) still works." in typed.answer()


@pytest.mark.anki
def test_dollar_math_inside_a_cloze_deletion_is_hidden_and_revealed_whole(
    cards: dict[tuple[str, int], Any],
) -> None:
    first, second = cards[("cloze", 0)], cards[("cloze", 1)]
    assert '<span class="cloze" data-cloze="' in first.question()
    assert "\\(CL = k V_d\\)" not in body(first.question())
    assert "\\(CL = k V_d\\)" in body(first.answer())
    # The braces of a formula in a deletion do not end it early (Anki stops at '}}').
    assert "\\(x^{2}\\)" in body(second.answer())
    assert "Elimination: \\[k = \\frac{\\ln 2}{t_{1/2}}\\]" in body(first.answer())


def test_the_preview_page_draws_dollar_math_as_mathml(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page shows what Anki's MathJax draws: the same formulas, as MathML."""
    source = copied(DOLLARS, tmp_path)
    monkeypatch.chdir(tmp_path)
    run: Run = cli("preview", source, "--html-out", tmp_path / "page.html", "--days", "30")
    assert run.code == 0, run.err
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="pv-data">(.*?)</script>', page, re.DOTALL)[1])  # type: ignore[index]
    shown = json.dumps(data["shared"]) + json.dumps(data["cards"])
    assert "<mfrac>" in shown and 'display=\\"block\\"' in shown
    assert "t_{1/2}" not in shown and "$$" not in shown
    assert "It costs $5 and $10, or $20." in shown
    # Each formula as typeset from the HTML Anki gets: the page and Anki agree.
    assert typeset("\\(t_{1/2} = \\frac{0.693 V_d}{CL}\\)", [])[:40] in shown.replace('\\"', '"')
