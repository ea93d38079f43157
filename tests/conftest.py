"""Test-session settings: the persistent cache of rewritten code lives in a temporary
directory for the run, never in the user's ``~/.cache`` (see docs/performance.md,
"Cold start and the disk cache"). Subprocesses started by tests inherit it."""

import atexit
import os
import shutil
import tempfile

if not os.environ.get("PYCASSETTE_CACHE_DIR"):
    _dir = tempfile.mkdtemp(prefix="pycassette-test-cache-")
    os.environ["PYCASSETTE_CACHE_DIR"] = _dir
    atexit.register(shutil.rmtree, _dir, True)

from context.rewrite import diskcache  # noqa: E402

diskcache.reset()  # in case the engine was used before this file ran (a plugin)
