"""``python -m context print|count|trace|profile [OPTIONS] TARGET [ARGS...]``: see ``context.cli``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
