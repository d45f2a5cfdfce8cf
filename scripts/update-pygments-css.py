#!/usr/bin/env python3
"""Rewrite the generated Pygments block in deckbuilder/anki/notetypes/base.css.

Run after changing DAY_STYLE / NIGHT_STYLE in tests/render/pygments_css.py or upgrading
Pygments; tests/render/test_highlight.py fails while the block is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.render.pygments_css import pygments_css, with_pygments_css  # noqa: E402

css = ROOT / "deckbuilder" / "anki" / "notetypes" / "base.css"
old = css.read_text(encoding="utf-8")
new = with_pygments_css(old, pygments_css())
if new != old:
    css.write_text(new, encoding="utf-8")
    print(f"updated {css.relative_to(ROOT)}")
else:
    print(f"{css.relative_to(ROOT)} is up to date")
