"""The command line: parse, call the library, show the result.

Errors are mapped to messages and exit codes in one place, :func:`main`:
0 ok, 1 a problem with the input or an option value, 2 a usage error, 3 a bug,
128 + N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from itertools import islice
from typing import Annotated, Any

import typer
from typer.core import TyperGroup, TyperOption

from deckbuilder import __version__
from deckbuilder.cli.options import session_of
from deckbuilder.cli.output import (
    Session,
    StreamError,
    echo,
    err,
    problem_json,
    problem_line,
)
from deckbuilder.errors import (
    DeckError,
    OutputError,
    Problem,
    RequestError,
    TargetExists,
    UsageError,
    plural,
)


class _Commands(TyperGroup):
    """Lists the commands in the order of an author's day, not of their definition, and
    takes the options every command shares (-q, -v, --debug) after the command too."""

    ORDER = (
        "init",
        "import",
        "check",
        "lint",
        "build",
        "watch",
        "pull",
        "preview",
        "list",
        "schema",
    )
    # The root's own flags, which a user may write after the command as well.
    SHARED = frozenset({"-q", "--quiet", "-v", "--verbose", "--debug", "--version"})

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(
            names, key=lambda n: self.ORDER.index(n) if n in self.ORDER else len(self.ORDER)
        )

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.shared_first(ctx, args))

    def shared_first(self, ctx: Any, args: list[str]) -> list[str]:
        """``args`` with the shared options written after the command moved before it,
        where the root reads them (``build -q`` is ``-q build``). A word that is the value
        of the command's own option, or that comes after ``--``, stays where it is."""
        at = next((i for i, arg in enumerate(args) if not arg.startswith("-")), len(args))
        command = self.get_command(ctx, args[at]) if at < len(args) else None
        if command is None:
            return args
        takes_value = {
            name
            for param in command.params
            # (typer's own option class: since typer 0.29 it carries its own click)
            if isinstance(param, TyperOption) and not param.is_flag and not param.count
            for name in param.opts
        }
        moved: list[str] = []
        kept = args[: at + 1]
        rest = iter(args[at + 1 :])
        for arg in rest:
            if arg == "--":
                kept += [arg, *rest]
            elif arg in self.SHARED or re.fullmatch(r"-[qv]{2,}", arg):
                moved.append(arg)
            else:
                kept.append(arg)
                if arg in takes_value:
                    kept.extend(islice(rest, 1))  # its value, whatever it looks like
        return moved + kept


app = typer.Typer(
    name="deckbuilder",
    help="Turn quiz questions written in YAML into Anki packages (.apkg).",
    cls=_Commands,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        echo(f"deckbuilder {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print more detail.")] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback of internal errors.")
    ] = False,
) -> None:
    """Turn quiz questions written in YAML into Anki packages (.apkg).

    Example: deckbuilder build
    """
    session = session_of(ctx)
    session.quiet, session.verbose, session.debug = quiet, verbose, debug
    ctx.obj = session


# Typer turns Ctrl-C (KeyboardInterrupt) into this exit status, as a shell would.
_INTERRUPTED = 128 + signal.SIGINT

# The option (or argument) that gives each request field, for messages about its value.
OPTIONS = {
    "days": "--days",
    "desired_retention": "--retention",
    "deck": "--deck",
    "exam": "--exam",
    "format": "--format",
    "history": "--history",
    "html": "--html",
    "html_out": "--html-out",
    "keep_scripts": "--keep-scripts",
    "lang": "--lang",
    "lead": "--lead",
    "new_per_day": "--new-per-day",
    "note_type": "--note-type",
    "out": "--out",
    "params": "--params",
    "plot": "--plot",
    "prefer": "--prefer",
    "review_limit": "--review-limit",
    "seed": "--seed",
    "start": "--start",
    "strict": "--strict",
    "timestamp": "SOURCE_DATE_EPOCH",
}


def worded(exc: RequestError) -> str:
    """A request error as the command line words it: each field as its option."""
    return "; ".join(f"{OPTIONS.get(p.code or '', p.code)}: {p.message}" for p in exc.problems)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the app and map every error to a message and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    session = Session()
    with _signals_interrupt() as received:
        session.signals = received
        code = _run(args, session)
    # Python drops an exception raised where it cannot propagate (a weak reference
    # callback, for one), so a signal's interrupt can be lost and the command run to its
    # end: it was interrupted all the same.
    if received and code == 0:
        code = _INTERRUPTED
    if code == _INTERRUPTED:
        if session.written:
            written = ", ".join(str(path) for path in session.written)
            echo(f"Interrupted; already written: {written}.", err=True)
        else:
            echo("Interrupted; nothing was replaced.", err=True)
        if received:  # the exit status a shell expects of a command a signal ended
            return 128 + received[0]
    return code


@contextmanager
def _signals_interrupt() -> Iterator[list[int]]:
    """Inside the block, SIGTERM and SIGHUP interrupt like Ctrl-C (KeyboardInterrupt), so
    temporary files are removed on the way out; the list collects the signals received.

    A signal a parent process told us to ignore (``nohup`` ignores SIGHUP) stays ignored,
    and outside the main thread (where Python cannot catch signals) nothing changes."""
    received: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    caught = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in caught:
            if signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, interrupt)
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _run(args: list[str], session: Session) -> int:
    try:
        result = app(args=args, prog_name="deckbuilder", standalone_mode=False, obj=session)
        return result if isinstance(result, int) else 0
    except DeckError as exc:
        listed = _capped(exc.problems)
        if session.json:
            problems = [
                problem_json(p) if isinstance(p, Problem) else {"file": p[0], "more_problems": p[1]}
                for p in listed
            ]
            session.emit_json({"ok": False, "problems": problems})
            return 1
        for p in listed:
            if isinstance(p, Problem):
                err(problem_line(p), fg="red")
            else:
                err(f"{p[0]}: {plural(p[1], 'more problem')} not shown", fg="red")
        n = len(exc.problems)
        err(f"{plural(n, 'problem')} found; nothing was written.", bold=True)
        return 1
    except RequestError as exc:
        echo(f"Error: {worded(exc)}", err=True)
        return 1
    except TargetExists as exc:
        echo(
            f"Error: {exc.path} already exists; use --force to replace it, or --out to "
            "write another file",
            err=True,
        )
        return 1
    except (StreamError, UsageError, OutputError) as exc:
        echo(f"Error: {exc}", err=True)
        return 1
    except typer.TyperException as exc:  # usage errors from the argument parser
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            echo(f"Error: {exc}", err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        return _INTERRUPTED
    except OSError as exc:
        if exc.filename is None or session.debug or "--debug" in args:
            return _internal_error(exc, session, args)
        # A path the file system refuses wherever the library met it (a name too long, a
        # loop of links, no permission) is the user's to fix, not a bug.
        echo(f"Error: cannot use {exc.filename}: {exc.strerror or exc}", err=True)
        return 1
    except Exception as exc:
        return _internal_error(exc, session, args)


# Problems listed per file; a file with more (a generated file, a format misread) says
# how many were left out, so that the first ones are not lost in the flood.
MAX_PROBLEMS_PER_FILE = 100


def _capped(problems: Sequence[Problem]) -> list[Problem | tuple[str, int]]:
    """The problems to list, each file's followed by how many of them are left out, as
    (file, count): at the end of the list, after the next files' problems, the count
    was out of the files' order."""
    total = Counter(problem.file for problem in problems)
    listed: list[Problem | tuple[str, int]] = []
    per_file: dict[str, int] = {}
    for problem in problems:
        count = per_file[problem.file] = per_file.get(problem.file, 0) + 1
        if count <= MAX_PROBLEMS_PER_FILE:
            listed.append(problem)
        if count == total[problem.file] > MAX_PROBLEMS_PER_FILE:
            listed.append((problem.file, count - MAX_PROBLEMS_PER_FILE))
    return listed


def _internal_error(exc: Exception, session: Session, args: list[str]) -> int:
    if session.debug or "--debug" in args:
        raise exc
    echo(
        f"Internal error: {type(exc).__name__}: {exc}. This is a bug in deckbuilder; "
        "please report it with the output of the same command run with --debug.",
        err=True,
    )
    return 3


def run() -> None:  # console script
    code = main()
    stdout = sys.stdout
    try:
        if stdout is not None:
            stdout.flush()
    except BrokenPipeError:
        # The reader has gone (deckbuilder schema | head -1): nothing is left to tell it.
        _silence_stdout()
    except OSError as exc:  # a full disk under a redirection, for one
        echo(f"Error: cannot write to standard output: {exc.strerror or exc}", err=True)
        _silence_stdout()
        code = code or 1
    sys.exit(code)


def _silence_stdout() -> None:
    """Point standard output at nothing, so that Python's own flush at exit has nothing
    left to fail on."""
    with suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.stdout = None
