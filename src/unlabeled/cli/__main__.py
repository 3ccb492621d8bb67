"""``python -m unlabeled.cli``: the ``unlabeled`` command."""

import sys

from ._main import run

sys.exit(run())
