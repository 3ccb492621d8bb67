"""``main``: parse the command line, run the command, turn every failure into one line."""

from __future__ import annotations

import os
import sys
import warnings

from ._common import EXIT_FAILURE, CLIError, one_line
from ._parser import DEFAULT_ESTIMATOR, build_parser

__all__ = ["build_parser", "main", "run"]


def _fit_estimator(argv: list[str]) -> str | None:
    """The ``--estimator`` of a ``fit`` command line (default pusvc), or None for any other
    command. Read before the parser is built, because fit's options are that estimator's
    parameters, and building them imports it. Accepts what argparse accepts: ``--estimator
    X``, ``--estimator=X`` and unambiguous prefixes (``--est X``)."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command != "fit":
        return None
    rest = argv[argv.index("fit") + 1 :]
    for i, arg in enumerate(rest):
        if arg == "--":
            break
        key, eq, value = arg.partition("=")
        if len(key) > 3 and "--estimator".startswith(key):
            if eq:
                return value
            if i + 1 < len(rest):
                return rest[i + 1]
    return DEFAULT_ESTIMATOR


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    debug = os.environ.get("UNLABELED_DEBUG", "") not in ("", "0")
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        with warnings.catch_warnings():
            # warnings (e.g. a fit that did not converge, a deprecated --estimator name) as
            # one line each, not a source dump
            warnings.showwarning = lambda message, category, *a, **k: print(
                f"unlabeled: warning: {one_line(message)}", file=sys.stderr
            )
            parser = build_parser(_fit_estimator(argv))
            try:
                args = parser.parse_args(argv)
            except SystemExit as exc:  # --help, --version
                return int(exc.code or 0)
            debug = debug or getattr(args, "debug", False)
            if args.command == "demo" and not 0 < args.labeled_fraction <= 1:
                parser.error("--labeled-fraction must be in (0, 1]")
            if args.command == "demo" and not args.lam > 0:
                parser.error("--lam must be > 0")
            return args.func(args)
    except CLIError as exc:
        if debug:
            raise
        print(f"unlabeled: error: {one_line(exc)}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        if debug:
            raise
        print("unlabeled: error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `unlabeled predict ... | head`
        return EXIT_FAILURE
    except Exception as exc:
        if debug:
            raise
        plain = isinstance(exc, (ValueError, TypeError, OSError))
        what = "" if plain else f"{type(exc).__name__}: "
        print(f"unlabeled: error: {what}{one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE


def run() -> int:
    """The ``unlabeled`` command as a process of its own (the console script, ``python -m
    unlabeled``): :func:`main` on ``sys.argv``."""
    return main()
