#!/usr/bin/env python
"""autograd's own test suite, on plain NumPy, as a reference for ``ad``'s coverage.

The entry script; the code is the package ``tools/ag_suite/`` (its docstring tells what
the classes mean), the manual docs/autograd_suite.md.

    python tools/autograd_suite.py                       # everything
    python tools/autograd_suite.py --match linalg --json out.json
    python tools/autograd_suite.py --report out.json     # print a saved run again
"""

import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

from ag_suite.cases import Prepared, load_cases, select  # noqa: E402
from ag_suite.checks import check, run_case  # noqa: E402
from ag_suite.cli import main  # noqa: E402
from ag_suite.namespaces import Namespace  # noqa: E402
from ag_suite.report import case_classes, counts, report  # noqa: E402
from ag_suite.workers import run  # noqa: E402

__all__ = ["Namespace", "Prepared", "case_classes", "check", "counts", "load_cases", "main", "report", "run",
           "run_case", "select"]

if __name__ == "__main__":
    sys.exit(main())
