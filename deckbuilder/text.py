"""Markdown -> HTML for Anki fields, collecting the media files a field refers to.

Raw HTML in card text is not interpreted: ``a < b`` and ``<script>`` show as typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["Rendered", "render_markdown"]


@dataclass
class Rendered:
    html: str
    images: list[str] = field(default_factory=list)  # image sources as written (URL-decoded)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")

    def image(_self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        src = unquote(str(token.attrGet("src") or ""))
        env.setdefault("images", []).append(src)
        return _img(token, env.get("rewrite", {}).get(src, src))

    md.add_render_rule("image", image)
    return md


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _img(token: Token, src: str) -> str:
    alt = "".join(child.content for child in (token.children or []))
    title = token.attrGet("title")
    title_attr = f' title="{_escape(str(title))}"' if title else ""
    return f'<img src="{_escape(src)}" alt="{_escape(alt)}"{title_attr}>'


def render_markdown(text: str, rewrite: dict[str, str] | None = None) -> Rendered:
    """Render ``text`` as CommonMark. A lone paragraph is returned without its ``<p>``
    so short answers sit inline in the templates, as Anki users expect of a field.
    ``rewrite`` maps image sources to the names they get in the package."""
    if not text.strip():
        return Rendered("")
    md = _parser()
    env: dict[str, Any] = {"rewrite": rewrite or {}}
    tokens = md.parse(text, env)
    if (
        len(tokens) == 3
        and tokens[0].type == "paragraph_open"
        and tokens[1].type == "inline"
        and tokens[2].type == "paragraph_close"
    ):
        html = md.renderer.render(tokens[1].children or [], md.options, env)
    else:
        html = md.renderer.render(tokens, md.options, env).rstrip("\n")
    return Rendered(html, list(env.get("images", [])))
