"""Forward AD's rule tables: ordinary code, differentiated by an enclosing derivative.

One module a family of functions (``ufuncs``, ``reductions``, ``shapes``, ``linalg``...);
``tangents`` and ``special`` are the helpers they share (chunk axes, derivatives at kinks
and special points). ``ad`` imports every table when it is imported; tables for optional
libraries (SciPy) are registered when that library is imported.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)
