"""Model -> Anki field values: Markdown rendered, media resolved and checked.

Both the package writer and the preview page consume a :class:`RenderedDeck`, so what
the author previews is byte for byte what Anki receives.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial
from html import escape, unescape
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import imagesize

from deckbuilder.anki.notetypes import NoteTypeSpec, declared_spec, typed_answers_html
from deckbuilder.anki.notetypes.active_content import counted, note_type_parts
from deckbuilder.anki.notetypes.carried import carried_types, spec_fields, spec_for
from deckbuilder.anki.occlusion import occlusion_field
from deckbuilder.cloze import deletion_number, read_deletions
from deckbuilder.errors import DeckError, Problem, shown
from deckbuilder.files.bounds import folder_link_outside, real_path_outside
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    Deck,
    FieldsNote,
    ImageOcclusionNote,
    McqNote,
    Note,
    NoteKind,
    TypedAnswer,
    TypedNote,
    letter,
)
from deckbuilder.note_types import BUILT_IN, NoteType
from deckbuilder.occlusion import Label, OcclusionMode
from deckbuilder.progress import step
from deckbuilder.render.fast_path import fast_html
from deckbuilder.render.fidelity import deletions_ended_early
from deckbuilder.render.markdown import SOUND_TAG, render_markdown
from deckbuilder.render.mathguard import math_markup_problems
from deckbuilder.templates import cloze_fields

# Characters Anki removes from media file names (so the card would point at nothing).
_BAD_MEDIA_CHARS = re.compile(r'[\\/:*?"<>|\[\]^\x00-\x1f\x7f]')
# Names Windows reserves; Anki renames such files (con.png -> con_.png).
_WINDOWS_DEVICE = re.compile(r"(con|prn|aux|nul|com\d|lpt\d)(\..*)?\Z", re.IGNORECASE)
_MAX_NAME_BYTES = 120  # Anki truncates longer names
# How alike the name of a missing media file and a file's name (without extensions) must
# be for "did you mean" (difflib's ratio: qt-ecg and qt_ecg, 0.83).
_SIMILAR = 0.75
# The opening of a cloze deletion in rendered HTML, as Anki finds it (deckbuilder.cloze).
_DELETION_OPENING = re.compile(r"\{\{c([0-9]+)::")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")
# The media a raw field's HTML names, as Anki finds them (its media check).
_RAW_IMAGE = re.compile(r"""<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_RAW_SOUND = re.compile(r"\[sound:([^\]]+)\]")
# The pictures Anki's mask editor opens (is_image_file in rslib/src/image_occlusion/
# imagedata.rs) whose size the renderer can read from their headers.
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif")
# Anki's media sync refuses any single file over 100 MiB (MAX_INDIVIDUAL_MEDIA_FILE_SIZE
# in ankitects/anki, rslib/src/sync/media/mod.rs): a bigger file would never reach the
# learner's other devices, and every file is read whole into the package.
MAX_MEDIA_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class RenderedNote:
    note: Note
    spec: NoteTypeSpec
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    media: tuple[str, ...] = ()  # names (in the package) of the media its fields use, sorted
    # Media its fields name that no media folder has, as written: each keeps its reference
    # (listed under the deck's missing_media, or any, with keep_missing_media).
    missing_media: tuple[str, ...] = ()


@dataclass(frozen=True)
class RenderedDeck:
    deck: Deck
    notes: tuple[RenderedNote, ...]
    media: dict[str, Path]  # name inside the package -> file on disk
    description: str = ""  # the deck description as HTML
    # Worth telling the author, not worth refusing the build (printed by the CLI).
    warnings: tuple[Problem, ...] = ()
    # With leave_out_failing: the problems of the notes left out, each naming its note.
    left_out: tuple[Problem, ...] = ()

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


def raw_media(html: str) -> list[tuple[str, str]]:
    """The media files a raw field's HTML names, as Anki's media check finds them, each
    with its kind ("image" for ``<img src>``, "sound" for ``[sound:...]``)."""
    images = [(unescape(found.group(1)), "image") for found in _RAW_IMAGE.finditer(html)]
    return images + [(found.group(1), "sound") for found in _RAW_SOUND.finditer(html)]


def media_name_problem(name: str, image: bool) -> str | None:
    """Why Anki cannot keep ``name`` as a media file name (None: it can)."""
    if _BAD_MEDIA_CHARS.search(name):
        return f"media file name {shown(name, None)} has characters Anki removes from file names"
    if name.startswith("."):
        return f"media file name {shown(name, None)} is a hidden file name"
    if name != name.rstrip(". "):
        return f"media file name {shown(name, None)} ends with a dot or a space, which Anki changes"
    if _WINDOWS_DEVICE.match(name):
        return f"media file name {shown(name, None)} is reserved on Windows and renamed by Anki"
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        return f"media file name {shown(name, 33)} is longer than Anki's {_MAX_NAME_BYTES} bytes"
    if image and ("#" in name or "%" in name):
        return (
            f"image file name {shown(name, None)} has '#' or '%', which breaks its address "
            "in the card"
        )
    return None


def _too_big(src: str, size: int) -> str:
    return (
        f"media file {shown(src, None)} is {size:,} bytes; Anki syncs media files of up to"
        f" {MAX_MEDIA_BYTES:,} bytes (100 MiB)"
    )


class _Renderer:
    def __init__(
        self,
        deck: Deck,
        *,
        keep_missing_media: bool = False,
        unwritten: Mapping[Path, bytes] | None = None,
    ) -> None:
        self.deck = deck
        self.keep_missing_media = keep_missing_media
        # Files an import is about to write (the package's media), seen where they will be.
        self.unwritten: Mapping[Path, bytes] = unwritten or {}
        self.file = str(deck.source)
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.media: dict[str, Path] = {}
        self.folded: dict[str, Path] = {}  # case-folded name -> the first file given it
        # Media folder -> where it really is, if it is a link out of the project.
        self.folder_links: dict[Path, Path | None] = {}
        # Folder -> :meth:`entries`, filled only when a media file is not found.
        self.folder_entries: dict[Path, dict[str, str]] = {}
        self.note: Note | None = None
        self.key = ""  # YAML key of the field being rendered (its line is looked up if needed)
        self.text = ""  # the text of that field, as written
        # Field text -> HTML, for renders that used no media and warned about nothing (one
        # dict for other fields, one for cloze fields): the same text then renders the
        # same, and decks repeat text ("None of the above", a shared 'extra').
        self.seen: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self.used: set[str] = set()  # media names the current note's fields use
        self.missing: dict[str, None] = {}  # media the current note names that nobody has
        # Media names the current note brought into self.media, each with whether it
        # brought its case-folded name into self.folded too: taken back if the note is
        # left out, so that a note left out does not hold a name against the others.
        self.brought: list[tuple[str, bool]] = []
        # Per-deck pieces of every note's fields.
        self.lang_attr = f' lang="{deck.lang}"' if deck.lang else ""
        self.choice_open: list[str] = []  # '<div class="db-choice" ...>' by choice index
        self.choice_keys: list[str] = []  # 'choices[0]'... by choice index (for messages)
        self.letters: dict[tuple[int, ...], str] = {}  # answer indexes -> "A, C"
        # The declared note types met so far, each checked once.
        self.declared_types: dict[NoteType, None] = {}

    @property
    def line(self) -> int | None:
        """Line of the field being rendered."""
        return self.note.field_line(self.key) if self.note is not None else None

    def problem(self, message: str, *, warning: str = "", at: str = "") -> None:
        """A problem of the field being rendered (a warning of the code ``warning``, when
        given: the CLI cuts a code's warnings past a hundred), on the line where ``at``, a
        part of the field's text, is written (or the field's line)."""
        note = self.note
        line = self.line
        if note is not None and at:
            offset = self.text.find(at)
            if offset < 0 and at != quote(at, safe="/"):  # a name written %-encoded
                offset = self.text.find(quote(at, safe="/"))
            line = note.line_in(self.key, offset)
        if warning:
            self.warnings.append(
                Problem.warning(self.file, line, message, note.id if note else None, warning)
            )
        else:
            self.problems.append(Problem(self.file, line, message, note.id if note else None))

    def md(self, text: str, key: str = "", *, cloze: bool = False) -> str:
        seen = self.seen[cloze]
        known = seen.get(text)
        if known is not None:
            return known
        html = fast_html(text)  # what render_markdown gives, when it is that simple
        self.key, self.text = key, text
        ended_early = deletions_ended_early(html) if cloze and html is not None else []
        for message in ended_early:
            self.problem(message)
        if ended_early:
            return html or ""
        if html is None:
            rendered = render_markdown(text, resolve=self.resolve, cloze=cloze)
            for message in rendered.warnings:
                # What the card shows otherwise than written (render/fidelity.py).
                self.problem(message, warning="fidelity", at=rendered.at(message))
            for message in rendered.problems:  # e.g. a deletion Anki would read otherwise
                self.problem(message, at=rendered.at(message))
            html = rendered.html
            if rendered.images or rendered.sounds or rendered.warnings or rendered.problems:
                self.guard(html)
                return html
        if self.guard(html):
            seen[text] = html
        return html

    def guard(self, html: str) -> bool:
        """Whether the math of ``html`` makes no markup in Anki; a problem for each
        command that would."""
        problems = math_markup_problems(html)
        for message in problems:
            self.problem(message)
        return not problems

    def resolve(self, src: str, kind: str = "image", *, must_exist: bool = False) -> str | None:
        """Find an image or sound file; return its name inside the package. A problem
        with it is told on the line where the field names it. ``must_exist``: the file is
        needed now (its masks are placed on it), even by an import."""
        problem = partial(self.problem, at=src)
        if not src:
            self.problem("a media reference has no file name")
            return None
        posix = PurePosixPath(src.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts or re.match(r"[A-Za-z]:[\\/]", src):
            problem(
                f"media path {shown(src, None)} leaves the project; use a file name inside media/"
            )
            return None
        if _SCHEME.match(src):
            problem(
                f"{shown(src, None)} is not a local file; put the file in media/ (cards must "
                "work offline)"
            )
            return None
        found = self.find(posix.parts)
        if found is None:
            where = self.media_places
            if src in self.deck.missing_media:  # the reference stays, for when it comes
                problem(
                    f"media file {shown(src, None)} is still missing (missing_media): "
                    f"put it in {where}; until then Anki shows nothing in its place",
                    warning="missing-media",
                )
                self.missing[src] = None
                return None
            # An import keeps the reference of a file nobody has yet, when Anki could keep
            # a file of that name.
            if self.keep_missing_media and not must_exist:
                bad = media_name_problem(unicodedata.normalize("NFC", posix.name), kind == "image")
                if bad:
                    self.problem(f"{bad}; rename the file")
                else:
                    self.missing[src] = None
                return None
            near = self.find_ignoring_case(posix.parts) or self.find_similar(posix.parts)
            did_you_mean = f"; did you mean {shown(near, None)}?" if near else ""
            problem(f"media file {shown(src, None)} not found in {where}{did_you_mean}")
            return None
        folder, path = found
        refused = self.refusal(src, folder, path)
        if refused:
            problem(refused)
            return None
        # Anki keeps media names in NFC; the field text (NFC, as loaded) must say the same.
        name = unicodedata.normalize("NFC", posix.name)
        bad = media_name_problem(name, image=kind == "image")
        if bad:
            problem(f"{bad}; rename the file")
            return None
        known = self.folded.get(name.casefold())
        if known is not None and not self.same_file(known, path):
            problem(
                f"media files {shown(known, None)} and {shown(path, None)} would both be stored "
                f"as {shown(name, None)}"
                " (names are compared ignoring case, as on Windows and macOS); rename one"
            )
            return None
        if name not in self.media:
            self.brought.append((name, known is None))
        self.folded.setdefault(name.casefold(), path)
        self.media.setdefault(name, path)
        self.used.add(name)
        return name

    def is_file(self, path: Path) -> bool:
        return path in self.unwritten or path.is_file()

    def contents(self, path: Path) -> bytes:
        return self.unwritten[path] if path in self.unwritten else path.read_bytes()

    def same_file(self, a: Path, b: Path) -> bool:
        try:
            if a not in self.unwritten and b not in self.unwritten:
                if a.resolve() == b.resolve():
                    return True
                if a.stat().st_size != b.stat().st_size:  # not read whole to tell
                    return False
            return self.contents(a) == self.contents(b)
        except OSError:
            return False

    def note_type_media(self, spec: NoteTypeSpec) -> None:
        """Package the files a note type's styling and templates name, as Anki's export
        does (:attr:`NoteTypeSpec.media`): its font, say. One that no media folder has is
        a warning when its name has a suffix: Anki's pattern also finds quoted words such
        as ``target="_blank"``, which name no file."""
        for name in spec.media:
            if self.find((name,)) is not None:
                self.resolve(name)
            elif "." in name and name not in self.deck.missing_media:
                self.problem(
                    f"note type {shown(spec.name, None)} uses media file {shown(name, None)}, "
                    f"not found in {self.media_places}; its cards show without it",
                    warning="missing-media",
                )

    @cached_property
    def media_places(self) -> str:
        """Where media files are looked for, in words: 'media/ or cards/'."""
        return " or ".join(f"{d}/" for d in self.deck.media_dirs) or "media/"

    def take_back_media(self) -> None:
        """Forget the media names the current note brought in (it is left out)."""
        for name, folded in self.brought:
            del self.media[name]
            if folded:
                del self.folded[name.casefold()]
        self.brought.clear()

    @cached_property
    def real_roots(self) -> tuple[str, ...]:
        """Where the media folders that are not links out really are: a link may lead
        from one into the other, never anywhere else."""
        folders = self.deck.media_dirs
        return tuple(os.path.realpath(d) for d in folders if self.folder_outside(d) is None)

    def folder_outside(self, folder: Path) -> Path | None:
        """Where the media folder ``folder`` really is, if it is a link out of the project."""
        if folder not in self.folder_links:
            self.folder_links[folder] = folder_link_outside(folder)
        return self.folder_links[folder]

    def find(self, parts: tuple[str, ...]) -> tuple[Path, Path] | None:
        """The first media folder holding the file ``parts`` names, and that file. The
        name is tried as written, in NFC and in NFD: macOS writes file names in NFD,
        and a deck copied from a Mac keeps them so."""
        forms = dict.fromkeys(
            [parts, *(tuple(unicodedata.normalize(f, p) for p in parts) for f in ("NFC", "NFD"))]
        )
        for folder in self.deck.media_dirs:
            for form in forms:
                path = folder.joinpath(*form)
                if self.is_file(path):
                    return folder, path
        return None

    def find_ignoring_case(self, parts: tuple[str, ...]) -> str | None:
        """The path, as a card writes it, of a media file that ``parts`` names but for
        letter case (None: there is none). Linux tells ``Diagram.png`` from
        ``diagram.png``; a deck written on Windows or macOS may not."""
        for folder in self.deck.media_dirs:
            here, names = folder, list[str]()
            for part in parts:
                name = self.entries(here).get(self.case_key(part))
                if name is None:
                    break
                here, names = here / name, [*names, name]
            else:
                if self.is_file(here):
                    return "/".join(names)
        return None

    def find_similar(self, parts: tuple[str, ...]) -> str | None:
        """The path, as a card writes it, of the media file in the folder ``parts`` names
        whose name is most like the one written (``qt_ecg.png`` for ``qt-ecg.png``), or
        that differs only in its extension; None when none is near."""
        *folders, wanted = parts
        stem, suffix = self.case_key(PurePosixPath(wanted).stem), PurePosixPath(wanted).suffix
        best: tuple[float, str] | None = None
        for media in self.deck.media_dirs:
            here = media.joinpath(*folders)
            for name in self.entries(here).values():
                other = PurePosixPath(name)
                score = difflib.SequenceMatcher(None, stem, self.case_key(other.stem)).ratio()
                if other.suffix.lower() != suffix.lower():
                    score = 0.5 if score == 1 else 0.0  # another format of the same name
                elif score < _SIMILAR:
                    continue
                if score and (best is None or score > best[0]) and self.is_file(here / name):
                    best = (score, "/".join([*folders, name]))
        return best[1] if best else None

    def entries(self, folder: Path) -> dict[str, str]:
        """The names in ``folder`` by :meth:`case_key` (the first in sorted order when
        several differ only in case), read once per build."""
        if folder not in self.folder_entries:
            try:
                names = os.listdir(folder)
            except OSError:
                names = []
            names = sorted({*names, *(p.name for p in self.unwritten if p.parent == folder)})
            names.reverse()
            self.folder_entries[folder] = {self.case_key(name): name for name in names}
        return self.folder_entries[folder]

    @staticmethod
    def case_key(name: str) -> str:
        """What two names that differ only in case (or Unicode normal form) share."""
        return unicodedata.normalize("NFC", name).casefold()

    def refusal(self, src: str, folder: Path, path: Path) -> str | None:
        """Why the file ``path``, found in ``folder``, is not packaged (None: it is): a
        link out of the project, or too big for Anki."""
        if path in self.unwritten:
            size = len(self.unwritten[path])
            return None if size <= MAX_MEDIA_BYTES else _too_big(src, size)
        outside = self.folder_outside(folder)
        if outside is not None:
            return (
                f"media folder {shown(folder, None)} is a link to {shown(outside, None)}, "
                "outside the project"
            )
        real = real_path_outside(path, self.real_roots)
        if real is not None:
            trusted = [d for d in self.deck.media_dirs if self.folder_outside(d) is None]
            where = " and ".join(f"{d}/" for d in trusted)
            return (
                f"media file {shown(src, None)} is a link to {shown(real, None)}, outside {where};"
                " only files inside them are packaged"
            )
        try:
            size = path.stat().st_size
        except OSError as exc:
            return f"media file {shown(src, None)} cannot be read: {exc.strerror or exc}"
        return _too_big(src, size) if size > MAX_MEDIA_BYTES else None

    def lang(self, html: str, extra: str = "") -> str:
        """Mark a non-empty field with the deck's language (fonts, screen readers, the
        template's labels); fields of a deck without ``languages:`` stay as they are."""
        if not self.deck.lang or not html:
            return html
        return f'<div lang="{self.deck.lang}"{extra}>{html}</div>'

    @cached_property
    def choice_attributes(self) -> str:
        """What every choice element carries: the deck's language, or in a deck without
        ``languages:`` its label language, which the template reads. That one is
        data-db-lang, not lang: Korean labels say nothing of the language a choice is
        written in, and lang would make a screen reader read English text as Korean."""
        if self.deck.lang:
            return self.lang_attr
        if self.deck.label_language:
            return f' data-db-lang="{self.deck.label_language}"'
        return ""

    def choice(self, index: int, text: str, feedback: str = "", pinned: bool = False) -> str:
        """One choice of the Choices field, with its feedback (if any) in an element of its
        own that the template shows on the back only (mcq.js, style.css). A pinned choice
        carries data-db-pin, which keeps it in place when mcq.js shuffles."""
        opening = self.choice_open
        while len(opening) <= index:
            opening.append(
                f'<div class="db-choice" data-choice="{letter(len(opening))}"'
                f"{self.choice_attributes}>"
            )
            self.choice_keys.append(f"choices[{len(self.choice_keys)}]")
        key = self.choice_keys[index]
        said = self.md(feedback, f"{key}.feedback") if feedback else ""
        if "[sound:" in said:
            # Anki plays every sound of a side's fields, hidden or not: on the front.
            self.key = f"{key}.feedback"
            self.problem(
                "a sound in a choice's feedback would play on the front of the card; "
                "put it in the explanation"
            )
        if said:
            said = f'<div class="db-choice-feedback">{said}</div>'
        start = f'{opening[index][:-1]} data-db-pin="true">' if pinned else opening[index]
        return f"{start}{self.md(text, key)}{said}</div>"

    def check_imported(self, note_type: NoteType) -> None:
        """A note type from an imported package (it keeps Anki's id) may not run or fetch
        anything on review unless the user keeps that by name, as a note types file may
        not (issue 45); an author's own note type may, as Anki allows."""
        if not note_type.anki_id or note_type.keep_scripts:
            return
        found = note_type_parts(declared_spec(note_type))
        if found:
            self.problems.append(
                Problem(
                    note_type.source or self.file,
                    note_type.line or None,
                    f"note type '{note_type.key}' (from an imported package: it has "
                    f"anki_id) holds what Anki runs or fetches on every review: "
                    f"{counted(found)}; import the package again to remove them, or set "
                    "'keep_scripts: true' in it if you trust them",
                )
            )

    def raw(self, html: str, key: str) -> str:
        """A raw field of a declared note type: its HTML as written, the media it names
        (``<img src>``, ``[sound:...]``) found and packaged like any other."""
        self.key = key
        for name, kind in raw_media(html):
            self.resolve(name, kind)
        return html

    def declared(self, note: FieldsNote) -> tuple[str, ...]:
        """A note of a declared note type: each field's Markdown rendered (a cloze note
        type's fields keep their deletions), a raw field's HTML kept."""
        note_type = note.note_type
        if note_type not in self.declared_types:
            self.declared_types[note_type] = None
            self.check_imported(note_type)
        out = []
        for name, text in zip(note_type.fields, note.fields, strict=True):
            key = f"fields.{name}"
            if name in note_type.raw:
                out.append(self.raw(text, key))
            else:
                html = self.md(text, key, cloze=note_type.is_cloze) if text else ""
                out.append(self.lang(html) if self.deck.lang else html)
        return tuple(out)

    def typed_answers(self, note: TypedNote) -> Sequence[TypedAnswer]:
        """The accepted answers, each sound in them checked and packaged as a sound
        anywhere else is, under its name in the package: the back shows the Answers
        field, and Anki plays its sounds there (the learner types the words beside it)."""
        if not any("[sound:" in answer.text for answer in note.answers):
            return note.answers
        out = []
        for i, answer in enumerate(note.answers):
            if "[sound:" not in answer.text:
                out.append(answer)
                continue
            self.key = f"answer[{i}]"
            text = SOUND_TAG.sub(self.answer_sound, answer.text)
            if not SOUND_TAG.sub("", answer.text).strip():
                what = "answer" if len(note.answers) == 1 else self.key
                self.problem(
                    f"'{what}' is only a sound, so there is nothing to type: write the words "
                    "the learner types, with the sound beside them "
                    "('bonjour [sound:bonjour.mp3]')"
                )
            out.append(replace(answer, text=text, shown=text))
        return out

    def answer_sound(self, found: re.Match[str]) -> str:
        src = found[1].strip()
        return f"[sound:{self.resolve(src, 'sound') or src}]"

    def picture_size(self, name: str) -> tuple[float, float] | None:
        """The width and height of the picture ``name`` (in the package), read from its
        header as the browser reads its natural size; None, with a problem, when it
        cannot be read."""
        path = self.media[name]
        if path.suffix.lower() not in PICTURE_SUFFIXES:
            shown = ", ".join(PICTURE_SUFFIXES)
            self.problem(
                f"picture '{name}' is not one Anki's mask editor opens ({shown}); convert it"
            )
            return None
        try:
            data = self.unwritten.get(path)
            width, height = imagesize.get(path if data is None else io.BytesIO(data))
        except (OSError, ValueError) as exc:
            self.problem(f"picture '{name}' cannot be read: {exc}")
            return None
        if width <= 0 or height <= 0:
            svg = " (an SVG picture needs width and height on its <svg> element)"
            kind = path.suffix.lstrip(".").upper()
            # "an SVG", "a PNG": the article of the suffix read letter by letter
            article = "an" if kind[:1] in tuple("AEFHILMNORSX") else "a"
            self.problem(
                f"picture '{name}' cannot be read: its size is not in its header; is it "
                f"{article} {kind} picture?{svg if path.suffix.lower() == '.svg' else ''}"
            )
            return None
        return float(width), float(height)

    def occlusion(self, note: ImageOcclusionNote) -> tuple[str, ...]:
        """An image occlusion note's fields, in Anki's order: Occlusion (the masks as
        fractions of the picture's size), Image, Header, Back Extra, Comments."""
        self.key = "image"
        name = self.resolve(note.image, "image", must_exist=True)
        size = self.picture_size(name) if name else None
        occlusions = ""
        if size is not None and self.inside(note, *size):
            hide_all = note.mode is OcclusionMode.HIDE_ALL
            occlusions = occlusion_field(note.shapes, *size, hide_all=hide_all)
        image = f'<img src="{escape(name)}">' if name else ""
        texts = (note.header, note.back_extra, note.comments)
        keys = ("header", "back_extra", "comments")
        rendered = [
            self.md(text, key) if text else "" for text, key in zip(texts, keys, strict=True)
        ]
        if self.deck.lang:
            rendered = [self.lang(html) for html in rendered]
        return (occlusions, image, *rendered)

    def inside(self, note: ImageOcclusionNote, width: float, height: float) -> bool:
        """Whether every mask and label is on the picture; a problem for each that is not."""
        fits = True
        for i, shape in enumerate(note.shapes):
            if isinstance(shape, Label):
                right, bottom, what = shape.left, shape.top, "label"
            else:
                _, _, right, bottom = shape.bounds()
                what = shape.shape.value
            if right > width or bottom > height:
                self.key = f"masks[{i}]"
                self.problem(
                    f"masks[{i}] ({what}) reaches outside the picture '{note.image}', which "
                    f"is {width:g} by {height:g} pixels (to x {right:g}, y {bottom:g})"
                )
                fits = False
        return fits

    def fields(self, note: Note) -> tuple[str, ...]:
        fields = _FIELDS[note.kind](self, note)
        own = BUILT_IN.get(note.kind.value)  # None for a declared note type
        if own is None or (not note.speak and not self.deck.source_url):
            return fields
        out = list(fields)
        for key in note.speak:
            index = own.spoken_field(key)
            out[index] = _spoken(out[index], self.deck.speak_language)
        if self.deck.source_url and own.source_field is not None:
            out[own.source_field] += source_link(self.deck, note.id)
        return tuple(out)

    def mcq(self, note: McqNote) -> tuple[str, ...]:
        choices = "\n".join(
            [
                self.choice(i, text, note.choice_feedback(i), i in note.pinned)
                for i, text in enumerate(note.choices)
            ]
        )
        letters = self.letters.get(note.answer)
        if letters is None:
            letters = self.letters[note.answer] = ", ".join(note.answer_letters)
        question, explanation = self.question_and_explanation(note)
        return (question, choices, letters, explanation, "yes" if note.shuffle else "no")

    def question_and_explanation(self, note: McqNote | TypedNote) -> tuple[str, str]:
        question = self.md(note.question, "question")
        explanation = self.md(note.explanation, "explanation")
        if self.deck.lang:
            # data-db-lang tells the template script which labels to show.
            question = self.lang(question, f' data-db-lang="{self.deck.lang}"')
            explanation = self.lang(explanation)
        return question, explanation

    def cloze(self, note: ClozeNote) -> tuple[str, ...]:
        text = self.md(note.text, "text", cloze=True)
        # Anki reads deletions in Extra too: its braces are kept as written.
        extra = self.md(note.extra, "extra", cloze=True)
        # A deck without languages keeps its fields as they are: no lang() call per field.
        return (self.lang(text), self.lang(extra)) if self.deck.lang else (text, extra)

    def deletion_in_extra(self, note: ClozeNote, spec: NoteTypeSpec, text: str, extra: str) -> None:
        """A warning for a deletion in Extra that the note type (deckbuilder's, or Anki's
        Cloze kept from a collection) shows without {{cloze:}}: Anki makes a card of its
        number, and shows it braces and all on the back."""
        shown_as_cloze = (
            cloze_fields(front) | cloze_fields(back) for _, front, back in spec.templates
        )
        if spec.fields[1] in set().union(*shown_as_cloze):
            return
        numbers = read_deletions(extra).numbers
        # The first opening that is a deletion ('{{c0::' and a number past Anki's are not).
        found = next(
            (m for m in _DELETION_OPENING.finditer(extra) if deletion_number(m[1]) in numbers),
            None,
        )
        if found is None:
            return
        close = extra.find("}}", found.end())
        deletion = unescape(extra[found.start() : close + 2] if close >= 0 else found.group())
        own = sorted(numbers - read_deletions(text).numbers)
        cards = (
            f"; and 'text' has no deletion {own[0]}, so card {own[0]} hides nothing" if own else ""
        )
        self.key, self.text = "extra", note.extra
        self.problem(
            f"'extra' holds the cloze deletion {shown(deletion, 40)}: Anki shows 'extra' "
            f"as typed, braces and all, on the back{cards}. To hide it, put it in 'text'; "
            f"to show the braces on purpose, write \\{{{{c{found.group(1)}::",
            warning="deletion-in-extra",
            at=deletion if deletion in note.extra else "",
        )

    def typed(self, note: TypedNote) -> tuple[str, ...]:
        question, explanation = self.question_and_explanation(note)
        answers = typed_answers_html(self.typed_answers(note), self.choice_attributes)
        return (question, answers, explanation, "yes" if note.match_case else "no")

    def basic(self, note: BasicNote) -> tuple[str, ...]:
        front = self.md(note.front, "front")
        back = self.md(note.back, "back")
        return (self.lang(front), self.lang(back)) if self.deck.lang else (front, back)


# Which method renders a note's fields, by its kind: the shapes of the notes differ (an
# MCQ's choices, a cloze's deletions), so each has its own.
_FIELDS: dict[NoteKind, Callable[[_Renderer, Any], tuple[str, ...]]] = {
    NoteKind.MCQ: _Renderer.mcq,
    NoteKind.CLOZE: _Renderer.cloze,
    NoteKind.BASIC: _Renderer.basic,
    NoteKind.TYPED: _Renderer.typed,
    NoteKind.IMAGE_OCCLUSION: _Renderer.occlusion,
    NoteKind.DECLARED: _Renderer.declared,
}
_SOURCE_CLASS = "db-source"
_SOURCE_LINK = re.compile(rf'<div class="{_SOURCE_CLASS}"[^>]*>(?:(?!</div>).)*</div>\Z', re.DOTALL)


def source_link(deck: Deck, note_id: str) -> str:
    """The link a card's back carries to the note's card file (``source_url:``), labelled
    with the note's id. It names no line, so that it stays the same when notes above the
    note move; the text fragment finds the note's ``id:`` line where the browser can."""
    address = (
        f"{deck.source_url.rstrip('/')}/{quote(deck.source.name)}"
        f"#:~:text={quote('id: ' + note_id, safe='')}"
    )
    return (
        f'<div class="{_SOURCE_CLASS}" style="font-size: smaller; opacity: 0.7; '
        f'margin-top: 1em"><a href="{escape(address)}">{escape(note_id)}</a></div>'
    )


def strip_source_link(fields: Sequence[str]) -> tuple[str, ...]:
    """Fields without the link :func:`source_link` adds (as Anki's copy has them)."""
    return tuple(
        _SOURCE_LINK.sub("", field) if _SOURCE_CLASS in field else field for field in fields
    )


_TAG = re.compile(r"<[^>]*>|\[sound:[^\]]*\]")
# What marks a spoken text in a field (deckbuilder.importers.own_types reads it back).
SPEECH_CLASS = "db-speak"


def _spoken(html: str, language: str) -> str:
    """A field's HTML with Anki's text-to-speech tag for its text after it: the card
    shows a play button there, and the client speaks the text (Anki desktop with the
    system's voices, AnkiDroid with Android's)."""
    text = " ".join(unescape(_TAG.sub(" ", html)).split())
    if not text:
        return html
    tag = f"[anki:tts lang={language}]{escape(text, quote=False)}[/anki:tts]"
    return f'{html}<span class="{SPEECH_CLASS}">{tag}</span>'


def render_deck(
    deck: Deck,
    note_types: Mapping[NoteKind, NoteTypeSpec] | None = None,
    *,
    leave_out_failing: bool = False,
    keep_missing_media: bool = False,
    unwritten: Mapping[Path, bytes] | None = None,
) -> RenderedDeck:
    """Render every note's fields; raise DeckError listing every media problem.
    ``note_types``: the Anki note types the deck keeps from its collection (None: those
    the deck declares, or an earlier import wrote beside the card file, see
    :mod:`deckbuilder.anki.notetypes.carried`).

    An import plans with both flags, so that each note is rendered once:
    ``leave_out_failing``: a note with a problem is left out of the result (its problems
    in ``left_out``) instead of failing the deck; a problem of the deck itself (its
    description, a note type) still raises. ``keep_missing_media``: a media file that no
    media folder has keeps its reference, as one listed under ``missing_media`` does
    (each note's :attr:`RenderedNote.missing_media` names them). ``unwritten``: the files
    an import is about to write (the package's media), read as if they were there."""
    carried = carried_types(deck) if note_types is None else note_types
    renderer = _Renderer(deck, keep_missing_media=keep_missing_media, unwritten=unwritten)
    notes: list[RenderedNote] = []
    left_out: list[Problem] = []
    total = len(deck.notes)
    deck_tags = tuple(dict.fromkeys(deck.tags))  # the tags of a note with none of its own
    used, missing, problems = renderer.used, renderer.missing, renderer.problems
    for done, note in enumerate(deck.notes):
        if not done & 255:
            step("rendering", done, total)
        renderer.note = note
        problems_before, warnings_before = len(problems), len(renderer.warnings)
        fields = renderer.fields(note)
        if isinstance(note, BasicNote) and note.add_reverse:  # kept as Anki had it
            renderer.key = "add_reverse"
            renderer.guard(note.add_reverse)
        if leave_out_failing and any(p.note == note.id for p in problems[problems_before:]):
            # The note's own problems go with it; one of the deck's (a note type's) stays.
            left_out += [p for p in problems[problems_before:] if p.note == note.id]
            problems[problems_before:] = [
                p for p in problems[problems_before:] if p.note != note.id
            ]
            del renderer.warnings[warnings_before:]
            renderer.take_back_media()
            used.clear()
            missing.clear()
            continue
        renderer.brought.clear()
        tags = tuple(dict.fromkeys(deck.tags + note.tags)) if note.tags else deck_tags
        media = tuple(sorted(used)) if used else ()
        used.clear()
        not_found = tuple(missing) if missing else ()
        missing.clear()
        spec = spec_for(note, carried)
        if isinstance(note, ClozeNote) and "{{c" in fields[1]:
            renderer.deletion_in_extra(note, spec, *fields)
        fields = spec_fields(note, spec, fields)
        notes.append(RenderedNote(note, spec, fields, tags, media, not_found))
    renderer.note = None
    for spec in {rn.spec.id: rn.spec for rn in notes}.values():
        renderer.note_type_media(spec)
    description = renderer.md(deck.description)
    if problems:
        raise DeckError(dict.fromkeys(problems))
    if len(notes) < len(deck.notes):
        deck = replace(deck, notes=tuple(rn.note for rn in notes))
    return RenderedDeck(
        deck,
        tuple(notes),
        dict(sorted(renderer.media.items())),
        description,
        tuple(dict.fromkeys(deck.warnings + tuple(renderer.warnings))),
        tuple(dict.fromkeys(left_out)),
    )


def render_decks(decks: Sequence[Deck]) -> tuple[list[RenderedDeck], list[Problem]]:
    """Every deck rendered that can be, and the problems of those that cannot."""
    rendered: list[RenderedDeck] = []
    problems: list[Problem] = []
    for deck in decks:
        try:
            rendered.append(render_deck(deck))
        except DeckError as exc:
            problems.extend(exc.problems)
    return rendered, problems


def unused_media(rendered: Sequence[RenderedDeck], media_dir: Path | None) -> tuple[Problem, ...]:
    """Files in ``media_dir`` (recursively; hidden files and card files aside) that no
    deck uses, and links in it that lead out of the project (never followed)."""
    if media_dir is None or not media_dir.is_dir():
        return ()
    outside = folder_link_outside(media_dir)
    if outside is not None:
        message = f"this folder is a link to {shown(outside, None)}, outside the project;"
        told = f"{message} nothing in it is packaged"
        return (Problem.warning(str(media_dir), None, told),)
    card_folders = {rd.deck.source.parent for rd in rendered}
    roots = [media_dir, *(d for d in card_folders if folder_link_outside(d) is None)]
    real_roots = [os.path.realpath(d) for d in roots]
    used = {os.path.realpath(path) for rd in rendered for path in rd.media.values()}
    found: list[Problem] = []
    for path in sorted(media_dir.rglob("*")):
        if any(part.startswith(".") for part in path.relative_to(media_dir).parts):
            continue
        outside = real_path_outside(path, real_roots)
        if outside is not None:
            found.append(
                Problem.warning(
                    str(path),
                    None,
                    f"a link to {shown(outside, None)}, outside {media_dir}/"
                    " and the card folders; nothing is packaged through it",
                )
            )
        elif (
            path.is_file()
            and path.suffix not in (".yaml", ".yml")
            and os.path.realpath(path) not in used
        ):
            found.append(
                Problem.warning(
                    str(path),
                    None,
                    "no card uses this file; it is not packaged",
                    code="unused-media",
                )
            )
    return tuple(found)
