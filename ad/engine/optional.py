"""Rule tables for optional libraries (SciPy), registered when the library is imported.

``when_imported("scipy.special", "ad.rules.scipy_special")`` imports the rule module at
once if ``scipy.special`` is already imported, and otherwise right after it is: a finder
on ``sys.meta_path`` wraps that one module's loader. ``import ad`` never imports SciPy.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import importlib
import importlib.abc
import sys

from context.resolve import declare_engine_code

declare_engine_code(__file__)

_PENDING: dict[str, list[str]] = {}


def when_imported(module: str, rules: str) -> None:
    """Import the module ``rules`` once ``module`` is imported (now, if it is)."""
    if module in sys.modules:
        importlib.import_module(rules)
        return
    _PENDING.setdefault(module, []).append(rules)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


class _Loader(importlib.abc.Loader):
    """The module's own loader, followed by the rule modules waiting for it."""

    def __init__(self, loader, name):
        self.loader = loader
        self.name = name

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        for rules in _PENDING.pop(self.name, ()):
            importlib.import_module(rules)

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the module's own loader
        return getattr(self.loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in _PENDING:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader, fullname)
                return spec
        return None
