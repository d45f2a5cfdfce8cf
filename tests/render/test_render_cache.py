"""render_deck renders a text once per deck and reuses the HTML where the text repeats.
Whatever repeats, each field holds exactly what render_markdown gives its text alone,
each note lists the media its own fields use, and every field that refers to a missing
file or warns is reported at its own line."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError, Problem, Severity
from deckbuilder.model import BasicNote, ClozeNote, Deck, McqNote, Note
from deckbuilder.render.deck import RenderedNote, render_deck
from deckbuilder.render.markdown import render_markdown
from tests.conftest import DATA

# Load Pygments' plugin lexers up front (see test_markdown_fast_path.py).
render_markdown("```no-such-language\nx\n```")

MEDIA = DATA / "render_cache"  # pic.png, tone.mp3
SOURCE = "cards/d.yaml"

# Texts on every path: plain, the fast path, the full path, media found and missing, a
# warning, empty, one that renders differently in a cloze field; drawn with repeats so
# the cache is hit.
_TEXTS = [
    "x {{c1::`a::b`}}",
    "Paris",
    "None of the above",
    "a **b** `c`",
    "See [docs](https://x.y/z)",
    "# heading",
    "two\nlines",
    "![pic](pic.png)",
    "hear [sound:tone.mp3]",
    "![gone](missing.png) and [sound:gone.mp3]",
    "```nosuchlanguage\nx\n```",
    "",
]
texts = st.sampled_from(_TEXTS)
cloze_texts = st.sampled_from(
    ["{{c1::Paris}}", "x {{c1::`a::b`}}", "{{c2::![p](pic.png)}}", "{{c1::`a::b`}} Paris"]
)


@st.composite
def notes(draw: st.DrawFn, index: int) -> Note:
    kind = draw(st.sampled_from(["mcq", "cloze", "basic"]))
    common = {"id": f"n{index}", "line": 10 * index + 1}
    if kind == "mcq":
        choices = tuple(draw(st.lists(texts, min_size=1, max_size=5)))
        keys = ["question", "explanation", *(f"choices[{i}]" for i in range(len(choices)))]
        lines = {k: 10 * index + 2 + i for i, k in enumerate(keys) if draw(st.booleans())}
        return McqNote(
            **common,
            field_lines=lines,
            question=draw(texts),
            choices=choices,
            answer=(0,),
            explanation=draw(texts),
        )
    if kind == "cloze":
        lines = {"text": 10 * index + 2, "extra": 10 * index + 3}
        return ClozeNote(**common, field_lines=lines, text=draw(cloze_texts), extra=draw(texts))
    return BasicNote(
        **common,
        field_lines={"front": 10 * index + 2, "back": 10 * index + 3},
        front=draw(texts),
        back=draw(texts),
    )


@st.composite
def decks(draw: st.DrawFn) -> Deck:
    return Deck(
        "d",
        "D",
        Path(SOURCE),
        tuple(draw(notes(i)) for i in range(draw(st.integers(1, 8)))),
        description=draw(texts),
        media_dirs=(MEDIA,),
        lang=draw(st.sampled_from(["", "en"])),
    )


def alone(text: str, cloze: bool = False) -> tuple[str, set[str], list[str], list[str]]:
    """What render_markdown gives ``text`` on its own: its HTML, the media it uses, the
    media it misses and its warnings."""
    used: set[str] = set()
    missing: list[str] = []

    def resolve(src: str, _kind: str) -> str | None:
        if (MEDIA / src).is_file():
            used.add(src)
            return src
        missing.append(src)
        return None

    rendered = render_markdown(text, resolve=resolve, cloze=cloze)
    return rendered.html, used, missing, rendered.warnings


_LANG_DIV = re.compile(r'<div lang="[a-z]+"(?: data-db-lang="[a-z]+")?>(.*)</div>\Z', re.DOTALL)
_CHOICE = re.compile(
    r'<div class="db-choice" data-choice="[A-Z]"(?: lang="[a-z]+")?>(.*?)</div>'
    r'(?:\n(?=<div class="db-choice")|\Z)',
    re.DOTALL,
)


def markdown_fields(rn: RenderedNote) -> dict[str, str]:
    """The rendered Markdown of each of the note's texts, by YAML key, taken out of the
    language and choice elements around it."""

    def unwrap(html: str) -> str:
        m = _LANG_DIV.match(html)
        return m.group(1) if m else html

    note = rn.note
    if isinstance(note, McqNote):
        question, choices, _letters, explanation, _shuffle = rn.fields
        found = {"question": unwrap(question), "explanation": unwrap(explanation)}
        found.update((f"choices[{i}]", c) for i, c in enumerate(_CHOICE.findall(choices)))
        return found
    return dict(zip(note.texts(), map(unwrap, rn.fields), strict=True))


@settings(max_examples=300, deadline=None)
@given(decks())
def test_each_field_is_what_its_text_renders_to_alone(deck: Deck) -> None:
    expected: dict[str, dict[str, str]] = {}
    media: dict[str, tuple[str, ...]] = {}
    problems: set[tuple[int | None, str | None, str]] = set()
    warnings: set[Problem] = set()
    fields = [
        (note, key, text, isinstance(note, ClozeNote) and key in ("text", "extra"))
        for note in deck.notes
        for key, text in note.texts().items()
    ]
    for note, key, text, cloze in [*fields, (None, "", deck.description, False)]:
        html, used, missing, warned = alone(text, cloze)
        line, who = (note.field_line(key), note.id) if note else (None, None)
        if note is not None:
            expected.setdefault(note.id, {})[key] = html
            media[note.id] = tuple(sorted({*media.get(note.id, ()), *used}))
        problems.update((line, who, src) for src in missing)
        warnings.update(Problem(SOURCE, line, w, who, Severity.WARNING, "fidelity") for w in warned)
    try:
        rendered = render_deck(deck)
    except DeckError as error:
        assert {
            (p.line, p.note, re.findall("'([^']*)'", p.message)[0]) for p in error.problems
        } == (problems)
        return
    assert not problems
    assert {rn.note.id: markdown_fields(rn) for rn in rendered.notes} == expected
    assert {rn.note.id: rn.media for rn in rendered.notes} == media
    assert rendered.description == alone(deck.description)[0]
    # (A deletion in a cloze note's extra is a warning of the note, not of a field alone.)
    assert {w for w in rendered.warnings if w.code != "deletion-in-extra"} == warnings
