"""The application layer: one call per command, each taking a request and returning a
result (what was written, counts, warnings, preview numbers). The command line, and any
other program, goes through these calls and nothing else.

=================  ======================  ======================
call               request                 result
=================  ======================  ======================
``check``          :class:`CheckRequest`   ``CheckResult``
``build``          :class:`BuildRequest`   ``BuildResult``
``preview``        :class:`PreviewRequest` ``PreviewResult``
``import_file``    :class:`ImportRequest`  ``ImportResult``
``pull``           :class:`PullRequest`    ``PullResult``
``lint``           :class:`LintRequest`    ``LintResult``
``list_decks``     :class:`ListRequest`    ``ListResult``
``init_project``   :class:`InitRequest`    ``InitResult``
``watch``          :class:`WatchRequest`   ``Rebuild``, one per deck built
                                           (``Serving`` after the first round, with ``serve``)
``open_packages``  the packages            ``Opened``
``schema``         (none)                  the JSON Schema
=================  ======================  ======================

Errors: :class:`deckbuilder.errors.DeckError` (problems in the input, located),
``RequestError`` (a request value), ``TargetExists``, ``OutputError``.

The calls are loaded when first used (module ``__getattr__``), so that importing this
package, as the command line does for ``--help``, costs no YAML, Markdown or FSRS.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from deckbuilder.app.requests import (
    ALL_LANGUAGES,
    BuildRequest,
    CheckRequest,
    ImportRequest,
    InitRequest,
    LintRequest,
    ListRequest,
    PreviewRequest,
    PullRequest,
    Selection,
    WatchRequest,
)
from deckbuilder.model import Deck, StudyOverrides
from deckbuilder.note_types import BUILT_IN

if TYPE_CHECKING:
    from deckbuilder.app.building import BuildResult, DeckForecast, build
    from deckbuilder.app.checking import CheckResult, ListResult, check, list_decks
    from deckbuilder.app.importing import ImportResult, import_file
    from deckbuilder.app.linting import LintResult, lint
    from deckbuilder.app.opening import Opened, open_packages
    from deckbuilder.app.packages import PackageResult
    from deckbuilder.app.previewing import PreviewResult, preview
    from deckbuilder.app.project import InitResult, init_project, schema
    from deckbuilder.app.pulling import PullResult, pull
    from deckbuilder.app.watching import Rebuild, Serving, watch
    from deckbuilder.render.deck import RenderedDeck

__all__ = [
    "ALL_LANGUAGES",
    "BUILT_IN",
    "BuildRequest",
    "BuildResult",
    "CheckRequest",
    "CheckResult",
    "Deck",
    "DeckForecast",
    "ImportRequest",
    "ImportResult",
    "InitRequest",
    "InitResult",
    "LintRequest",
    "LintResult",
    "ListRequest",
    "ListResult",
    "Opened",
    "PackageResult",
    "PreviewRequest",
    "PreviewResult",
    "PullRequest",
    "PullResult",
    "Rebuild",
    "RenderedDeck",
    "Selection",
    "Serving",
    "StudyOverrides",
    "WatchRequest",
    "build",
    "check",
    "import_file",
    "init_project",
    "lint",
    "list_decks",
    "open_packages",
    "preview",
    "pull",
    "schema",
    "watch",
]

# Each lazy name by the module that defines it (the TYPE_CHECKING imports above, for mypy).
_PARTS = {
    "building": ("build", "BuildResult", "DeckForecast"),
    "checking": ("check", "CheckResult", "list_decks", "ListResult", "RenderedDeck"),
    "importing": ("import_file", "ImportResult"),
    "linting": ("lint", "LintResult"),
    "opening": ("open_packages", "Opened"),
    "packages": ("PackageResult",),
    "previewing": ("preview", "PreviewResult"),
    "project": ("init_project", "InitResult", "schema"),
    "pulling": ("pull", "PullResult"),
    "watching": ("watch", "Rebuild", "Serving"),
}
_MODULES = {name: module for module, names in _PARTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
