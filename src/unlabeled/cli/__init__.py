"""The ``unlabeled`` command: ``fit``, ``predict``, ``evaluate`` and ``demo``.

Every failure the user can cause ends in one line ``unlabeled: error: ...`` on stderr and a
non-zero exit status (2 for a bad command line, 1 for anything else), never a traceback; set
``UNLABELED_DEBUG=1`` or pass ``--debug`` to see the traceback. Output files (models,
predictions) are written atomically at the very end, so a command that fails writes nothing.
Results go to stdout; progress and notes go to stderr and ``--quiet`` silences them.

The modules, one idea each: ``_parser`` (the command line and its help), ``_main`` (dispatch
and the one-line errors), ``_io`` (data files, read only through :mod:`unlabeled.datasets`),
``_commands`` (fit, predict, evaluate; model files through ``unlabeled.model_io``),
``_families`` (what differs per family, from the registry's declaration and each estimator),
``_estimators`` (the registry's estimators with a command), ``_options`` (their parameters as
options), ``_demo`` and ``_common`` (exit statuses, errors, progress display).
"""

from ._main import build_parser, main, run

__all__ = ["build_parser", "main", "run"]
