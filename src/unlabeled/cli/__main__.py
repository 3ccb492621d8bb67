"""``python -m unlabeled.cli``: the ``unlabeled`` command."""

import sys

from ._main import main

sys.exit(main())
