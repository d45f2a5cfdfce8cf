"""render_deck's per-deck shortcuts (a cache of rendered text, the fast inline path, field
lines looked up only for a message, precomputed choice openings, answer letters and tags)
give exactly what rendering every field one by one gives: the same fields, tags, media,
problems and warnings. The reference below is that straightforward renderer."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError, Problem
from deckbuilder.model import BasicNote, ClozeNote, Deck, McqNote, Note
from deckbuilder.render import render_deck
from deckbuilder.text import render_markdown

# Load Pygments' plugin lexers up front (see test_performance_text.py).
render_markdown("```no-such-language\nx\n```")

MEDIA = Path(__file__).parent / "data" / "performance_render"
SOURCE = "cards/d.yaml"

# Texts on every path: plain, the fast inline path, the full path, media found and
# missing, a warning, empty; drawn with repeats so the cache is hit.
_TEXTS = [
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
tag_lists = st.lists(st.sampled_from(["a", "b", "c"]), max_size=3).map(tuple)


@st.composite
def notes(draw: st.DrawFn, index: int) -> Note:
    kind = draw(st.sampled_from(["mcq", "cloze", "basic"]))
    common = {"id": f"n{index}", "line": 10 * index + 1, "tags": draw(tag_lists)}
    if kind == "mcq":
        choices = tuple(draw(st.lists(texts, min_size=1, max_size=5)))
        answer = tuple(sorted(draw(st.sets(st.integers(0, len(choices) - 1), min_size=1))))
        keys = ["question", "explanation", *(f"choices[{i}]" for i in range(len(choices)))]
        lines = {k: 10 * index + 2 + i for i, k in enumerate(keys) if draw(st.booleans())}
        return McqNote(
            **common,
            field_lines=lines,
            question=draw(texts),
            choices=choices,
            answer=answer,
            explanation=draw(texts),
            shuffle=draw(st.booleans()),
        )
    lines = {k: 10 * index + 2 + i for i, k in enumerate(["text", "extra", "front", "back"])}
    if kind == "cloze":
        text = draw(st.sampled_from(["{{c1::Paris}}", "x {{c1::`a::b`}}", "{{c2::![p](pic.png)}}"]))
        return ClozeNote(**common, field_lines=lines, text=text, extra=draw(texts))
    return BasicNote(**common, field_lines=lines, front=draw(texts), back=draw(texts))


@st.composite
def decks(draw: st.DrawFn) -> Deck:
    count = draw(st.integers(1, 8))
    return Deck(
        "d",
        "D",
        Path(SOURCE),
        tuple(draw(notes(i)) for i in range(count)),
        description=draw(texts),
        tags=draw(tag_lists),
        media_dirs=(MEDIA,),
        lang=draw(st.sampled_from(["", "en"])),
    )


def reference(deck: Deck) -> tuple[list[tuple[object, ...]], list[Problem], list[Problem]]:
    """Every field rendered on its own, as render_deck did before it had shortcuts."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    out: list[tuple[object, ...]] = []

    def md(text: str, note: Note | None, key: str, used: set[str], cloze: bool = False) -> str:
        line = note.field_line(key) if note else None
        who = note.id if note else None

        def resolve(src: str, _kind: str) -> str | None:
            if (MEDIA / src).is_file():
                used.add(src)
                return src
            problems.append(Problem(SOURCE, line, f"media file '{src}' not found in {MEDIA}/", who))
            return None

        rendered = render_markdown(text, resolve=resolve, cloze=cloze)
        warnings.extend(Problem(SOURCE, line, f"warning: {w}", who) for w in rendered.warnings)
        return rendered.html

    def lang(html: str, extra: str = "") -> str:
        return f'<div lang="{deck.lang}"{extra}>{html}</div>' if deck.lang and html else html

    for note in deck.notes:
        used: set[str] = set()
        fields: tuple[str, ...]
        if isinstance(note, McqNote):
            attr = f' lang="{deck.lang}"' if deck.lang else ""
            letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            # Choices first: problems are reported in the order they are found.
            choices = "\n".join(
                f'<div class="db-choice" data-choice="{letters[i]}"{attr}>'
                + md(text, note, f"choices[{i}]", used)
                + "</div>"
                for i, text in enumerate(note.choices)
            )
            fields = (
                lang(md(note.question, note, "question", used), f' data-db-lang="{deck.lang}"'),
                choices,
                ", ".join(letters[i] for i in note.answer),
                lang(md(note.explanation, note, "explanation", used)),
                "yes" if note.shuffle else "no",
            )
        elif isinstance(note, ClozeNote):
            fields = (
                lang(md(note.text, note, "text", used, cloze=True)),
                lang(md(note.extra, note, "extra", used)),
            )
        else:
            assert isinstance(note, BasicNote)
            fields = (
                lang(md(note.front, note, "front", used)),
                lang(md(note.back, note, "back", used)),
            )
        tags = tuple(dict.fromkeys(deck.tags + note.tags))
        out.append((note, fields, tags, tuple(sorted(used))))
    out.append(("description", md(deck.description, None, "", set())))
    return out, list(dict.fromkeys(problems)), list(dict.fromkeys(warnings))


@settings(max_examples=300, deadline=None)
@given(decks())
def test_render_deck_equals_rendering_each_field_on_its_own(deck: Deck) -> None:
    notes, problems, warnings = reference(deck)
    try:
        rendered = render_deck(deck)
    except DeckError as error:
        assert list(error.problems) == problems
        return
    assert problems == []
    got = [(rn.note, rn.fields, rn.tags, rn.media) for rn in rendered.notes]
    assert [*got, ("description", rendered.description)] == notes
    assert list(rendered.warnings) == warnings
