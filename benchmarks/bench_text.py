"""How much rich rendering (math, Pygments, cloze protection, nh3) costs over plain
markdown-it, per field, on the bundled deck's texts. Run by hand:

    PYTHONPATH=. python benchmarks/bench_text.py
"""

from __future__ import annotations

import time
from pathlib import Path

from markdown_it import MarkdownIt

from deckbuilder.load import load_deck
from deckbuilder.model import ClozeNote
from deckbuilder.text import render_markdown

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

    start = time.perf_counter()
    for _ in range(ROUNDS):
        for text, _cloze in fields:
            plain.render(text)
    base = time.perf_counter() - start

    start = time.perf_counter()
    for _ in range(ROUNDS):
        for text, cloze in fields:
            render_markdown(text, cloze=cloze)
    rich = time.perf_counter() - start

    n = ROUNDS * len(fields)
    print(f"{len(fields)} fields x {ROUNDS} rounds")
    print(f"plain markdown-it: {base / n * 1e6:8.1f} us/field")
    print(f"render_markdown:   {rich / n * 1e6:8.1f} us/field  ({rich / base:.1f}x plain)")


if __name__ == "__main__":
    main()
