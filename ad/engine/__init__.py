"""Forward AD's engine: the code that runs natively, never differentiated through.

``dual`` and ``dual_array`` are the tagged values (a primal and its tangent); ``forward``
is the context and turns rules into its primitives; ``handlers`` are what rewritten code
calls for subscripts, iteration and operators; ``buffers`` keeps the tangents of plain
NumPy buffers in shadow memory; ``mutation`` writes values and tangents into arrays;
``runs`` starts one run. The rule tables in ``ad.rules`` are ordinary code, which an
enclosing derivative differentiates.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)
