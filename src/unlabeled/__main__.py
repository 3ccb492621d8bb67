"""``python -m unlabeled``: the ``unlabeled`` command."""

import sys

from .cli import main

sys.exit(main())
