"""Model -> Anki field values: Markdown rendered, media resolved and checked.

Both the package writer and the preview page consume a :class:`RenderedDeck`, so what
the author previews is byte for byte what Anki receives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from .errors import DeckError, Problem
from .markdown_fast_path import fast_html
from .model import BasicNote, ClozeNote, Deck, McqNote, Note, letter
from .notetypes import NoteTypeSpec, note_type
from .progress import step
from .text import render_markdown

__all__ = ["RenderedDeck", "RenderedNote", "media_name_problem", "render_deck", "unused_media"]

# Characters Anki removes from media file names (so the card would point at nothing).
_BAD_MEDIA_CHARS = re.compile(r'[\\/:*?"<>|\[\]^\x00-\x1f\x7f]')
# Names Windows reserves; Anki renames such files (con.png -> con_.png).
_WINDOWS_DEVICE = re.compile(r"(con|prn|aux|nul|com\d|lpt\d)(\..*)?\Z", re.IGNORECASE)
_MAX_NAME_BYTES = 120  # Anki truncates longer names
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


@dataclass(frozen=True)
class RenderedNote:
    note: Note
    spec: NoteTypeSpec
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    media: tuple[str, ...] = ()  # names (in the package) of the media its fields use, sorted


@dataclass(frozen=True)
class RenderedDeck:
    deck: Deck
    notes: tuple[RenderedNote, ...]
    media: dict[str, Path]  # name inside the package -> file on disk
    description: str = ""  # the deck description as HTML
    # Worth telling the author, not worth refusing the build (printed by the CLI).
    warnings: tuple[Problem, ...] = ()

    @property
    def note_types(self) -> list[NoteTypeSpec]:
        """The note types of the notes, in order of first use."""
        return list(self._note_types)

    @cached_property
    def _note_types(self) -> tuple[NoteTypeSpec, ...]:
        # Found once: a build asks several times, and each time was a pass over every note.
        seen: dict[int, NoteTypeSpec] = {}
        for rn in self.notes:
            seen.setdefault(rn.spec.id, rn.spec)
        return tuple(seen.values())


def media_name_problem(name: str, image: bool) -> str | None:
    """Why Anki cannot keep ``name`` as a media file name (None: it can)."""
    if _BAD_MEDIA_CHARS.search(name):
        return f"media file name '{name}' has characters Anki removes from file names"
    if name.startswith("."):
        return f"media file name '{name}' is a hidden file name"
    if name != name.rstrip(". "):
        return f"media file name '{name}' ends with a dot or a space, which Anki changes"
    if _WINDOWS_DEVICE.match(name):
        return f"media file name '{name}' is reserved on Windows and renamed by Anki"
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        return f"media file name '{name[:30]}...' is longer than Anki's {_MAX_NAME_BYTES} bytes"
    if image and ("#" in name or "%" in name):
        return f"image file name '{name}' has '#' or '%', which breaks its address in the card"
    return None


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
    except OSError:
        return False


class _Renderer:
    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.file = str(deck.source)
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.media: dict[str, Path] = {}
        self.folded: dict[str, Path] = {}  # case-folded name -> the first file given it
        self.note: Note | None = None
        self.key = ""  # YAML key of the field being rendered (its line is looked up if needed)
        # Field text -> HTML, for renders that used no media and warned about nothing (one
        # dict for other fields, one for cloze fields): the same text then renders the
        # same, and decks repeat text ("None of the above", a shared 'extra').
        self.seen: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self.used: set[str] = set()  # media names the current note's fields use
        # Per-deck pieces of every note's fields.
        self.lang_attr = f' lang="{deck.lang}"' if deck.lang else ""
        self.choice_open: list[str] = []  # '<div class="db-choice" ...>' by choice index
        self.choice_keys: list[str] = []  # 'choices[0]'... by choice index (for messages)
        self.letters: dict[tuple[int, ...], str] = {}  # answer indexes -> "A, C"

    @property
    def line(self) -> int | None:
        """Line of the field being rendered."""
        return self.note.field_line(self.key) if self.note is not None else None

    def problem(self, message: str, *, warning: bool = False) -> None:
        note = self.note
        found = Problem(self.file, self.line, message, note.id if note else None)
        (self.warnings if warning else self.problems).append(found)

    def md(self, text: str, key: str = "", *, cloze: bool = False) -> str:
        seen = self.seen[cloze]
        known = seen.get(text)
        if known is not None:
            return known
        html = fast_html(text)  # what render_markdown gives, when it is that simple
        if html is None:
            self.key = key
            rendered = render_markdown(text, resolve=self.resolve, cloze=cloze)
            for message in rendered.warnings:
                self.problem(f"warning: {message}", warning=True)
            html = rendered.html
            if rendered.images or rendered.sounds or rendered.warnings:
                return html
        seen[text] = html
        return html

    def resolve(self, src: str, kind: str = "image") -> str | None:
        """Find an image or sound file; return its name inside the package."""
        if not src:
            self.problem("a media reference has no file name")
            return None
        posix = PurePosixPath(src.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts or re.match(r"[A-Za-z]:[\\/]", src):
            self.problem(f"media path '{src}' leaves the project; use a file name inside media/")
            return None
        if _SCHEME.match(src):
            self.problem(
                f"'{src}' is not a local file; put the file in media/ (cards must work offline)"
            )
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
        bad = media_name_problem(name, image=kind == "image")
        if bad:
            self.problem(f"{bad}; rename the file")
            return None
        known = self.folded.get(name.casefold())
        if known is not None and not _same_file(known, path):
            self.problem(
                f"media files '{known}' and '{path}' would both be stored as '{name}'"
                " (names are compared ignoring case, as on Windows and macOS); rename one"
            )
            return None
        self.folded.setdefault(name.casefold(), path)
        self.media.setdefault(name, path)
        self.used.add(name)
        return name

    def lang(self, html: str, extra: str = "") -> str:
        """Mark a non-empty field with the deck's language (fonts, screen readers, the
        template's labels); fields of a deck without ``languages:`` stay as they are."""
        if not self.deck.lang or not html:
            return html
        return f'<div lang="{self.deck.lang}"{extra}>{html}</div>'

    def choice(self, index: int, text: str) -> str:
        opening = self.choice_open
        while len(opening) <= index:
            opening.append(
                f'<div class="db-choice" data-choice="{letter(len(opening))}"{self.lang_attr}>'
            )
            self.choice_keys.append(f"choices[{len(self.choice_keys)}]")
        return f"{opening[index]}{self.md(text, self.choice_keys[index])}</div>"

    def fields(self, note: Note) -> tuple[str, ...]:
        # A deck without languages keeps its fields as they are: no lang() call per field.
        lang = self.lang if self.deck.lang else None
        if isinstance(note, McqNote):
            choices = "\n".join([self.choice(i, text) for i, text in enumerate(note.choices)])
            letters = self.letters.get(note.answer)
            if letters is None:
                letters = self.letters[note.answer] = ", ".join(note.answer_letters)
            question = self.md(note.question, "question")
            explanation = self.md(note.explanation, "explanation")
            if lang:
                # data-db-lang tells the template script which labels to show.
                question = lang(question, f' data-db-lang="{self.deck.lang}"')
                explanation = lang(explanation)
            return (question, choices, letters, explanation, "yes" if note.shuffle else "no")
        if isinstance(note, ClozeNote):
            text = self.md(note.text, "text", cloze=True)
            extra = self.md(note.extra, "extra")
            return (lang(text), lang(extra)) if lang else (text, extra)
        assert isinstance(note, BasicNote)
        front = self.md(note.front, "front")
        back = self.md(note.back, "back")
        return (lang(front), lang(back)) if lang else (front, back)


def render_deck(deck: Deck) -> RenderedDeck:
    """Render every note's fields; raise DeckError listing every media problem."""
    renderer = _Renderer(deck)
    notes: list[RenderedNote] = []
    total = len(deck.notes)
    deck_tags = tuple(dict.fromkeys(deck.tags))  # the tags of a note with none of its own
    used = renderer.used
    for done, note in enumerate(deck.notes):
        if not done & 255:
            step("rendering", done, total)
        renderer.note = note
        fields = renderer.fields(note)
        tags = tuple(dict.fromkeys(deck.tags + note.tags)) if note.tags else deck_tags
        media = tuple(sorted(used)) if used else ()
        used.clear()
        notes.append(RenderedNote(note, note_type(note.kind), fields, tags, media))
    renderer.note = None
    description = renderer.md(deck.description)
    if renderer.problems:
        raise DeckError(dict.fromkeys(renderer.problems))
    return RenderedDeck(
        deck,
        tuple(notes),
        dict(sorted(renderer.media.items())),
        description,
        tuple(dict.fromkeys(deck.warnings + tuple(renderer.warnings))),
    )


def unused_media(rendered: Sequence[RenderedDeck], media_dir: Path | None) -> tuple[Problem, ...]:
    """Files in ``media_dir`` (recursively; hidden files and card files aside) that no
    deck uses."""
    if media_dir is None or not media_dir.is_dir():
        return ()
    used = {path.resolve() for rd in rendered for path in rd.media.values()}
    return tuple(
        Problem(str(path), None, "warning: no card uses this file; it is not packaged")
        for path in sorted(media_dir.rglob("*"))
        if path.is_file()
        and path.suffix not in (".yaml", ".yml")
        and not any(part.startswith(".") for part in path.relative_to(media_dir).parts)
        and path.resolve() not in used
    )
