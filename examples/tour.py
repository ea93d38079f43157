"""A short tour of pycassette: run ordinary Python under contexts that observe and change it."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import count_calls  # noqa: E402
import float32_pass  # noqa: E402
import buffers  # noqa: E402
import forward_ad  # noqa: E402
import gauss_newton  # noqa: E402
import gpu_kernel  # noqa: E402
import logging_calls  # noqa: E402
import nested_trace  # noqa: E402
import primitives  # noqa: E402
import weird_identity  # noqa: E402

SECTIONS = [
    ("Logging every call of sin(1) with PrintCtx", logging_calls),
    ("Counting calls whose arguments are all str or int with CountCtx", count_calls),
    ("Primitives: replacing math.sin, and memoising fib with recurse", primitives),
    ("Nested tracing of x*y + y*z with similarcontext and recurse, then with TraceCtx", nested_trace),
    ("A rewrite pass: float literals become float32", float32_pass),
    ("Tagging: a value keeps its metadata through the talk's weird identity", weird_identity),
    ("Forward-mode AD on tagging: nested derivatives without perturbation confusion", forward_ad),
    ("Forward AD of NumPy code that writes into preallocated buffers", buffers),
    ("Gauss-Newton with switchable backends (forward mode, chunked, finite differences)", gauss_newton),
    ("GPU primitives: the hmlstm kernel's NumPy calls replaced by CuPy's (GPUCtx)", gpu_kernel),
]


def main():
    for title, module in SECTIONS:
        print("\n== " + title)
        module.main()


if __name__ == "__main__":
    main()
