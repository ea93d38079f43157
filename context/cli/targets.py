"""The targets: a script, a directory or zip file with ``__main__.py``, ``-m MODULE``, ``MODULE:FUNCTION``.

``load_target`` turns the command line into a ``Target``: what to call under the context,
and how to set up the process for it (see ``running.target_process``). Everything is checked
here, before the target runs: a problem is a ``UsageError`` that names it.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import argparse
import importlib
import importlib.machinery
import inspect
import os
import runpy
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from .errors import ImportFailed, UsageError
from .mainmodule import new_main_module
from .options import PROG, TARGET_FORMS, literal


class Target:
    """What to run: ``function(*args, **kwargs)`` under the context, and how to set up the process for it.

    ``kind`` is "script", "dir", "module" or "function"; ``argv`` becomes ``sys.argv`` for the
    run; ``path0`` (if not None) becomes ``sys.path[0]``; ``main`` (if not None) is the fresh
    ``__main__`` module the code runs in.
    """

    def __init__(self, kind: str, function: Callable[..., Any], args: Iterable[Any] = (),
                 kwargs: Mapping[str, Any] | None = None, argv: Sequence[str] | None = None,
                 path0: str | None = None, main: ModuleType | None = None) -> None:
        self.kind = kind
        self.function = function
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.argv = list(argv or [])
        self.path0 = path0
        self.main = main


def script_target(prog: str, path: str, args: Sequence[str]) -> Target:
    """``python SCRIPT ARGS...`` (or a zip file not named ``*.py``)."""
    if not os.path.isfile(path):
        raise UsageError("%s: no such script: %s" % (prog, path))
    full = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)  # as python sets __file__
    if zipfile.is_zipfile(full) and not path.endswith(".py"):
        return main_of(prog, path, full, args, "zip file")
    try:
        with open(full, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        raise UsageError("%s: cannot read %s: %s" % (prog, path, exc.strerror or exc)) from None
    try:
        code = compile(source, full, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise UsageError("%s: cannot compile %s: %s" % (prog, path, exc)) from None
    module, function = new_main_module(code, __file__=full, __cached__=None, __package__=None, __spec__=None,
                                       __loader__=importlib.machinery.SourceFileLoader("__main__", full))
    return Target("script", function, argv=[path, *args], path0=os.path.dirname(os.path.realpath(full)), main=module)


def main_of(prog: str, path: str, full: str, args: Sequence[str], what: str) -> Target:
    """The ``__main__`` module of a directory or zip file, run as ``python DIR`` runs it."""
    folder = os.path.abspath(full)
    spec = importlib.machinery.PathFinder.find_spec("__main__", [folder])
    if spec is None or spec.loader is None:
        raise UsageError("%s: can't find '__main__' module in %r: give a %s holding __main__.py" % (prog, path, what))
    try:
        code = spec.loader.get_code("__main__")  # type: ignore[attr-defined]
    except (ImportError, SyntaxError, ValueError) as exc:
        raise UsageError("%s: cannot compile %s: %s" % (prog, spec.origin, exc)) from None
    module, function = new_main_module(code, __file__=spec.origin, __cached__=spec.cached, __package__="",
                                       __spec__=spec, __loader__=spec.loader)
    return Target("dir", function, argv=[path, *args], path0=folder, main=module)


def module_target(prog: str, name: str, args: Sequence[str]) -> Target:
    """``python -m MODULE ARGS...``."""
    if not name:
        raise UsageError("%s: -m needs a module name, as python -m does" % prog)
    try:  # what ``python -m`` does: imports the parent packages, finds pkg.__main__ for a package
        name, spec, code = runpy._get_module_details(name)  # type: ignore[attr-defined]
    except ImportError as exc:
        raise UsageError("%s: cannot run module %r: %s" % (prog, name, exc)) from None
    except SyntaxError as exc:
        raise UsageError("%s: cannot compile module %r: %s" % (prog, name, exc)) from None
    except Exception as exc:
        raise ImportFailed(exc) from None
    module, function = new_main_module(code, __file__=spec.origin,
                                       __cached__=spec.cached if spec.has_location else None,
                                       __package__=spec.parent, __spec__=spec, __loader__=spec.loader)
    return Target("module", function, argv=[spec.origin, *args], main=module)


def function_target(prog: str, spec: str, args: Sequence[str], keywords: Iterable[tuple[str, str]]) -> Target:
    """``MODULE:FUNCTION ARGS...``: the module imported, the arguments read as literals and checked."""
    module_name, _, qualname = spec.partition(":")
    if not module_name or not qualname:
        raise UsageError("%s: TARGET must be %s; got %r" % (prog, TARGET_FORMS, spec))
    try:  # ``python -m context`` already put the working directory first on sys.path
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError("%s: cannot import module %r: %s" % (prog, module_name, exc)) from None
    except SyntaxError as exc:
        raise UsageError("%s: cannot compile module %r: %s" % (prog, module_name, exc)) from None
    except Exception as exc:
        raise ImportFailed(exc) from None
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError("%s: module %r has no attribute %r" % (prog, module_name, qualname)) from None
    if not callable(obj):
        raise UsageError("%s: %s is not callable (a %s); TARGET must name a function"
                         % (prog, spec, type(obj).__name__))
    values = tuple(literal(a) for a in args)
    kwargs = {name: literal(value) for name, value in keywords}
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # no signature to check against (some builtins)
        signature = None
    if signature is not None:
        try:
            signature.bind(*values, **kwargs)
        except TypeError as exc:
            raise UsageError("%s: cannot call %s%s with these arguments: %s" % (prog, spec, signature, exc)) from None
    return Target("function", obj, values, kwargs, argv=[spec, *args])


def load_target(ns: argparse.Namespace, args: Sequence[str], prog: str = PROG) -> Target:
    """The ``Target`` the parsed command line ``ns`` names, with ``args`` its own arguments.

    Checks everything it can without running the target (a module of a ``MODULE:FUNCTION``
    target is imported); raises ``UsageError`` naming what is wrong.
    """
    if ns.kw and (ns.module is not None or ns.target is None or ":" not in ns.target or os.path.exists(ns.target)):
        raise UsageError("%s: -k/--kw gives keyword arguments to a MODULE:FUNCTION target only" % prog)
    if ns.module is not None:
        return module_target(prog, ns.module, args)
    spec = ns.target
    if spec is None:
        raise UsageError("%s %s: missing TARGET: %s (see %s %s --help)"
                         % (prog, ns.command, TARGET_FORMS, prog, ns.command))
    if os.path.isdir(spec):
        return main_of(prog, spec, spec, args, "directory")
    if os.path.isfile(spec) or spec.endswith((".py", ".pyw", ".pyz")):
        return script_target(prog, spec, args)
    if ":" in spec:
        return function_target(prog, spec, args, ns.kw)
    hint = ""
    if all(part.isidentifier() for part in spec.split(".")):
        hint = " (to run the module %s use -m %s; to call one of its functions, %s:FUNCTION)" % (spec, spec, spec)
    raise UsageError("%s: TARGET must be %s; got %r%s" % (prog, TARGET_FORMS, spec, hint))


def target_label(ns: argparse.Namespace) -> str:
    """The target as the command line gave it: ``prog.py``, ``-m json.tool``, ``tomllib:loads``."""
    return "-m %s" % ns.module if ns.module is not None else str(ns.target)
