"""autograd's own test suite, on plain NumPy, as a reference for ``ad``'s coverage.

The cases (``tests/autograd_cases/``) restate every ``check_grads`` of HIPS/autograd's
``tests/`` with ``autograd.numpy`` as ``numpy`` and ``autograd.scipy`` as ``scipy``. For
each, this differentiates the function with ``ad`` (forward mode, ``ad.jvp``, nested for
second and third order) along random directions, and checks the result against
references that are not ad:

* central finite differences of the plain-NumPy function (a Richardson-extrapolated
  estimate and a plain one at another step; mixed stencils for second and third order,
  never differences of ad's own derivatives);
* autograd itself on the ``autograd.numpy`` version of the same function (``make_jvp``,
  nested; autograd's reverse mode where it has no forward rule), when autograd is
  installed.

Each check (a case at one order) is one of: ``correct`` (ad agrees with a reference),
``clear error`` (``ad.NoRuleError``, or a ``TypeError``/``ValueError`` that names the
function), ``wrong`` (ad's numbers disagree with every reference while two references
agree with each other), ``crash`` (any other exception, or a hang past ``--timeout``),
``inconclusive`` (ad disagrees and the references disagree among themselves), ``n/a``
(the plain-NumPy version cannot run: an autograd-only API) or ``skipped`` (needs SciPy).

    python tools/autograd_suite.py                       # everything
    python tools/autograd_suite.py --match linalg --json out.json
    python tools/autograd_suite.py --report out.json     # print a saved run again

Exit status: 0 when no check is wrong or crashes, 1 otherwise, 2 for a bad command line.
docs/autograd_suite.md has the details and the current figures.

The code, by concern: ``cases`` (loading, selecting, preparing cases), ``trees`` (nested
arguments), ``namespaces`` (what a case's function is built on), ``references`` (finite
differences, autograd), ``errors`` (clear error or crash), ``checks`` (one case under ad),
``workers`` (processes, timeouts), ``report`` (tables, JSON), ``cli`` (command line).
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # for ``ad``, ``context`` and ``tests.autograd_cases``
