"""Math cannot carry markup or script into Anki (issue "Hostile input, round 3", 1).

Anki 26.9.3 typesets card math with MathJax's full TeX bundle and no safe filter:
``\\href{javascript:...}`` became a link over the card that ran the deck author's script
when tapped. Every command that makes markup is refused with FILE:LINE; the browser tests
check the list against Anki's own MathJax, in Anki desktop's own reviewer page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.render.mathguard import MARKUP_COMMANDS, math_markup_problems
from tests.conftest import Run

CliRun = Callable[..., Run]

# Each payload with the command its message names.
REFUSED = [
    (r"\(\href{javascript:alert(1)}{x}\)", r"\href"),
    (
        r"\(\style{position:fixed;top:0;left:0;width:100vw;height:100vh;opacity:0.01}"
        r"{\href{javascript:alert(1)}{\text{.}}}\)",
        r"\style",
    ),
    (r"\(\class{cloze}{x}\)", r"\class"),
    (r"\(\cssId{qa}{x}\)", r"\cssId"),
    (r'\(\mmlToken{mi}[href="javascript:alert(1)"]{x}\)', r"\mmlToken"),
    (r'\(\mmlToken{mi}[style="position:fixed"]{x}\)', r"\mmlToken"),
    (r"\(\unicode{x41}\)", r"\unicode"),
    (r"\(\require{action}\)", r"\require"),
    (r"\(\htmlClass{a}{b}\)", r"\htmlClass"),
    (r"\(\bbox[position:fixed]{x}\)", "position:fixed"),
    (r"\(\bbox[position:fixed;top:0]{x}\)", r"\bbox"),
    (r"\(\bbox[red,border:1px solid red;position:fixed]{x}\)", r"\bbox"),
    (r"\(\def\b#1{\bbox[#1]{x}}\b{position:fixed}\)", r"\bbox"),
    (r"\(\let\b=\bbox \b[position:fixed]{x}\)", r"\bbox"),
    # Written as a character reference: MathJax reads the decoded text.
    (r"&#92;(&#92;href{javascript:alert(1)}{x}&#92;)", r"\href"),
    # Across Markdown emphasis: MathJax reads the text, tags aside.
    (r"\[ x = **\href{javascript:alert(1)}{y}** \]", r"\href"),
]

ACCEPTED = [
    r"\(\bbox[yellow,5px]{x}\)",
    r"\(\bbox[border:1px solid red]{x}\)",
    r"\(\bbox{x}\)",
    r"\(\color{red}{x} + \displaystyle\sum_i x_i\)",
    r"a LaTeX link is written `\href{url}{text}`",
    "```latex\n\\href{https://example.org}{text} \\style{color:red}{x}\n```",
]


def _card_file(tmp_path: Path, text: str) -> Path:
    """A card file with ``text`` as the back of basic note q1 (line 5) and, when it is one
    line, as the question of multiple-choice note q2 (line 8)."""
    lines = [
        "deck: Math",
        "notes:",
        "  - id: q1",
        "    front: ok",
        "    back: |-",
        *(f"      {line}" for line in text.splitlines()),
    ]
    if "\n" not in text:
        quoted = text.replace("'", "''")
        lines += [
            "  - id: q2",
            f"    question: '{quoted}'",
            "    choices: [one, two]",
            "    answer: A",
        ]
    (tmp_path / "cards").mkdir(exist_ok=True)
    card = tmp_path / "cards" / "math.yaml"
    card.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return card


@pytest.mark.parametrize(("payload", "command"), REFUSED)
def test_markup_in_math_is_refused_where_it_is_written(
    cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: str, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    card = _card_file(tmp_path, payload)
    result = cli("build")
    assert result.code == 1, result.err
    lines = result.err.splitlines()
    # The back of q1 (line 5) and the question of q2 (line 8), each with the command.
    where = card.relative_to(tmp_path)
    assert any(ln.startswith(f"{where}:5: note 'q1':") for ln in lines), result.err
    if "\n" not in payload:
        assert any(ln.startswith(f"{where}:8: note 'q2':") for ln in lines), result.err
    assert any(command in ln for ln in lines), result.err
    assert not (tmp_path / "output").exists() or not list((tmp_path / "output").iterdir())


@pytest.mark.parametrize("text", ACCEPTED)
def test_math_without_markup_builds(
    cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.chdir(tmp_path)
    _card_file(tmp_path, text)
    result = cli("check")
    assert result.code == 0, result.err


def test_text_without_math_costs_nothing() -> None:
    assert math_markup_problems("<b>plain</b> text, no backslash") == []


# -- Anki's own MathJax ------------------------------------------------------------------


@pytest.fixture(scope="module")
def reviewer(browser: Any) -> Iterator[Any]:
    """Anki desktop's reviewer page, which loads Anki's MathJax for a card with math."""
    from tests.browser import DesktopPlayer

    with DesktopPlayer(browser) as player:
        yield player


def _typeset(reviewer: Any, html: str) -> dict[str, Any]:
    """Show ``html`` as a card front in Anki's reviewer; what its math became."""
    from tests.browser import CardSides

    side = f'<div class="front">{html}</div>'
    card = CardSides(1, 0, side, side, side, side, "")
    reviewer.show_question(card)
    reviewer.page.wait_for_function("() => window.MathJax && MathJax.startup")
    reviewer.page.evaluate("() => MathJax.startup.promise")
    return dict(
        reviewer.page.evaluate(
            """() => {
              const math = [...document.querySelectorAll('#qa mjx-container *')];
              return {
                containers: document.querySelectorAll('#qa mjx-container').length,
                links: math.filter(e => e.tagName === 'A' || e.hasAttribute('href')).length,
                styles: math.map(e => e.getAttribute('style') || '')
                  .filter(s => /position: *(fixed|absolute)|100v|opacity/.test(s)),
                classes: math.filter(e => e.classList.contains('cloze')).length,
                ids: math.filter(e => e.id).length,
              };
            }"""
        )
    )


@pytest.mark.browser
def test_every_markup_command_of_ankis_mathjax_is_refused(reviewer: Any) -> None:
    """The commands of MathJax's html, unicode and require extensions, and the base
    package's \\mmlToken, as Anki's own bundle defines them."""
    _typeset(reviewer, r"\(x\)")
    maps = reviewer.page.evaluate(
        """() => {
          const handler = MathJax._.input.tex.MapHandler.MapHandler;
          const names = (map) => [...handler.getMap(map).map.keys()];
          return {
            html: names('html_macros'), unicode: names('unicode'), require: names('require'),
            token: names('macros').filter(name => name === 'mmlToken'),
          };
        }"""
    )
    assert maps["html"], maps
    defined = {name for names in maps.values() for name in names}
    assert defined <= MARKUP_COMMANDS, defined - MARKUP_COMMANDS


@pytest.mark.browser
@pytest.mark.parametrize(
    "payload",
    [
        *(p for p, _ in REFUSED if p.startswith("\\(") and "htmlClass" not in p),
        r"\(\bbox[border:1px solid red;position:fixed]{x}\)",
    ],
)
def test_what_is_refused_makes_markup_in_anki(reviewer: Any, payload: str) -> None:
    """Without the refusal, each payload would reach the card as markup (or reach outside
    the math fonts: \\unicode, \\require): the list is about real behaviour."""
    found = _typeset(reviewer, payload)
    assert found["containers"] == 1
    if any(c in payload for c in (r"\unicode", r"\require")):
        return  # typeset without error: the commands exist in Anki's MathJax
    assert found["links"] or found["styles"] or found["classes"] or found["ids"], found


@pytest.mark.browser
@pytest.mark.parametrize("text", [t for t in ACCEPTED if t.startswith("\\(")])
def test_what_is_accepted_makes_no_markup_in_anki(reviewer: Any, text: str) -> None:
    found = _typeset(reviewer, text)
    assert found["containers"] == 1
    assert not (found["links"] or found["styles"] or found["classes"] or found["ids"]), found
