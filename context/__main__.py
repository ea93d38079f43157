"""``python -m context``: see ``context.cli``."""

import sys

from .cli import main

sys.exit(main())
