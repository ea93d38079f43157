"""The builtins the engine's own code calls: a copy of the ``builtins`` namespace taken when
the engine is imported.

Every module of ``context`` and ``ad`` binds it as its ``__builtins__`` (the first statement
after its docstring), so the functions it defines look names such as ``len``, ``isinstance``
or ``open`` up here, not in the live ``builtins`` module. A program that replaces a builtin
while it runs under a context (``builtins.len = lru_cache(len)``, ``mock.patch("builtins.open")``)
changes what its own code calls, as natively, and never what the engine calls on its behalf:
the engine's code runs inside the program's calls, ``except`` and ``finally`` blocks, where
a replaced builtin could fail it and keep the program's own handler from running.
"""

import builtins

BUILTINS = dict(builtins.__dict__)
