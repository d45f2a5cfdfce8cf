"""How much rich rendering (math, Pygments, cloze protection, nh3) costs over plain
markdown-it, per field, on the bundled deck's texts, with and without the fast path for
everyday one-line text. Run by hand:

    PYTHONPATH=. python benchmarks/bench_text.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from markdown_it import MarkdownIt

from deckbuilder.model import ClozeNote
from deckbuilder.render.fast_path import fast_html
from deckbuilder.render.markdown import render_markdown, render_markdown_fully
from tests.cardfile.loading import load_deck

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 50


def main() -> None:
    deck = load_deck(ROOT / "cards" / "gradient-checkpointing.yaml")
    fields = [
        (text, isinstance(note, ClozeNote) and key == "text")
        for note in deck.notes
        for key, text in note.texts().items()
        if text
    ]
    plain = MarkdownIt("commonmark", {"html": False})
    render_markdown("```python\nx\n```")  # warm the parser, lexers and sanitizer

    def seconds(render: Callable[[str, bool], object]) -> float:
        start = time.perf_counter()
        for _ in range(ROUNDS):
            for text, cloze in fields:
                render(text, cloze)
        return time.perf_counter() - start

    base = seconds(lambda text, _cloze: plain.render(text))
    full = seconds(lambda text, cloze: render_markdown_fully(text, cloze=cloze))
    rich = seconds(lambda text, cloze: render_markdown(text, cloze=cloze))

    n = ROUNDS * len(fields)
    fast = sum(fast_html(text) is not None for text, _ in fields)
    print(f"{len(fields)} fields x {ROUNDS} rounds; {fast} fields take the fast path")
    print(f"plain markdown-it:      {base / n * 1e6:8.1f} us/field")
    print(f"render_markdown_fully:  {full / n * 1e6:8.1f} us/field  ({full / base:.1f}x plain)")
    print(f"render_markdown:        {rich / n * 1e6:8.1f} us/field  ({rich / base:.1f}x plain)")


if __name__ == "__main__":
    main()
