"""``python -m context print|count|trace|profile [OPTIONS] TARGET [ARGS...]``: see ``context.cli``."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
