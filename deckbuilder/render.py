"""Model -> Anki field values: Markdown rendered, media resolved and checked.

Both the package writer and the preview page consume a :class:`RenderedDeck`, so what
the author previews is byte for byte what Anki receives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import DeckError, Problem
from .model import BasicNote, ClozeNote, Deck, McqNote, Note, letter
from .notetypes import NoteTypeSpec, note_type
from .text import render_markdown

__all__ = ["RenderedDeck", "RenderedNote", "render_deck"]

# Characters Anki refuses in media file names (it strips or rejects them on import).
_BAD_MEDIA_CHARS = re.compile(r'[\\/:*?"<>|\x00-\x1f]')
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


@dataclass(frozen=True)
class RenderedNote:
    note: Note
    spec: NoteTypeSpec
    fields: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class RenderedDeck:
    deck: Deck
    notes: tuple[RenderedNote, ...]
    media: dict[str, Path]  # name inside the package -> file on disk
    description: str = ""  # the deck description as HTML

    @property
    def note_types(self) -> list[NoteTypeSpec]:
        seen: dict[int, NoteTypeSpec] = {}
        for rn in self.notes:
            seen.setdefault(rn.spec.id, rn.spec)
        return list(seen.values())


class _Renderer:
    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.file = str(deck.source)
        self.problems: list[Problem] = []
        self.media: dict[str, Path] = {}
        self.note: Note | None = None

    def problem(self, message: str) -> None:
        note = self.note
        self.problems.append(
            Problem(self.file, note.line if note else None, message, note.id if note else None)
        )

    def md(self, text: str) -> str:
        first = render_markdown(text)
        if not first.images:
            return first.html
        rewrite = {src: name for src in first.images if (name := self.resolve(src)) is not None}
        return render_markdown(text, rewrite).html

    def resolve(self, src: str) -> str | None:
        """Find an image or sound file; return its name inside the package."""
        if not src:
            self.problem("an image has no file name")
            return None
        if _SCHEME.match(src):
            self.problem(
                f"'{src}' is not a local file; put the file in media/ (cards must work offline)"
            )
            return None
        posix = PurePosixPath(src.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts:
            self.problem(f"media path '{src}' leaves the project; use a file name inside media/")
            return None
        for folder in self.deck.media_dirs:
            path = folder.joinpath(*posix.parts)
            if path.is_file():
                break
        else:
            where = " or ".join(f"{d}/" for d in self.deck.media_dirs) or "media/"
            self.problem(f"media file '{src}' not found in {where}")
            return None
        name = posix.name
        if _BAD_MEDIA_CHARS.search(name) or name.startswith("."):
            self.problem(f"media file name '{name}' cannot be stored by Anki; rename the file")
            return None
        known = self.media.get(name)
        if known is not None and known.resolve() != path.resolve():
            self.problem(
                f"media files '{known}' and '{path}' would both be stored as '{name}'; rename one"
            )
            return None
        self.media[name] = path
        return name

    def fields(self, note: Note) -> tuple[str, ...]:
        if isinstance(note, McqNote):
            choices = "\n".join(
                f'<div class="db-choice" data-choice="{letter(i)}">{self.md(text)}</div>'
                for i, text in enumerate(note.choices)
            )
            return (
                self.md(note.question),
                choices,
                ", ".join(note.answer_letters),
                self.md(note.explanation),
                "yes" if note.shuffle else "no",
            )
        if isinstance(note, ClozeNote):
            return (self.md(note.text), self.md(note.extra))
        assert isinstance(note, BasicNote)
        return (self.md(note.front), self.md(note.back))


def render_deck(deck: Deck) -> RenderedDeck:
    """Render every note's fields; raise DeckError listing every media problem."""
    renderer = _Renderer(deck)
    notes: list[RenderedNote] = []
    for note in deck.notes:
        renderer.note = note
        fields = renderer.fields(note)
        tags = tuple(dict.fromkeys(deck.tags + note.tags))
        notes.append(RenderedNote(note, note_type(note.kind), fields, tags))
    renderer.note = None
    description = renderer.md(deck.description)
    if renderer.problems:
        raise DeckError(renderer.problems)
    return RenderedDeck(deck, tuple(notes), dict(sorted(renderer.media.items())), description)
