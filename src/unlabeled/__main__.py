"""``python -m unlabeled``: the ``unlabeled`` command."""

import sys

from .cli import run

sys.exit(run())
