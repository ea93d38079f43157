"""The talk's GPU primitives: NumPy code run on a GPU by a context, unchanged.

``hmlstm_kernel`` is the HM-LSTM cell update written once for NumPy, vectorised with
``np.where``: per row of the (n, n) state, FLUSH where its ``z`` is 1, COPY where its
``zb`` is 0, otherwise UPDATE (``z`` and ``zb`` have shape (n,): one boundary flag per
row, broadcast along it as ``z[:, None]``). ``GPUCtx`` runs it on CuPy: the arrays
move to the device once, ``np.exp``, ``np.tanh`` and ``np.where`` become CuPy's, and
the result comes back. Without a CUDA device the same code runs on the host
(``GPUCtx(host_fallback=True)``), and the report says which calls would have moved.
The talk's combination with the 32-bit literal pass keeps everything in float32.
"""

import numpy as np

import context
from context.ready.devices import GPUUnavailableError
from context.ready.gpu import GPUCtx


def sigm(x):
    return 1.0 / (1.0 + np.exp(-x))


def hmlstm_kernel(z, zb, c, f, i, g):
    z = z[:, None]  # one flag per row, broadcast along the row
    zb = zb[:, None]
    flush = sigm(i) * np.tanh(g)
    update = sigm(f) * c + flush
    return np.where(z == 1, flush, np.where(zb == 0, c, update))  # FLUSH, COPY, UPDATE


class GPU32(GPUCtx):
    """The GPU context with the talk's pass: every float literal is a ``numpy.float32``."""

    passes = (context.passes.float32_literals,)


def inputs(n, seed=0, dtype=np.float32):
    """Random flags ``z``, ``zb`` of shape (n,) and states ``c, f, i, g`` of shape (n, n)."""
    rng = np.random.default_rng(seed)
    z = (rng.random(n) < 0.2).astype(dtype)
    zb = (rng.random(n) < 0.5).astype(dtype)
    c, f, i, g = rng.standard_normal((4, n, n)).astype(dtype)
    return z, zb, c, f, i, g


def gpu_context(cls=GPUCtx):
    """``cls()`` on the GPU when there is one, else on the host (and say why)."""
    try:
        return cls(), None
    except GPUUnavailableError as exc:
        return cls(host_fallback=True), str(exc)


def main(out=print, n=256):
    args = inputs(n)
    ctx, why = gpu_context()
    if why is not None:
        out("no GPU, running on the host: %s" % why)
    result = context.overdub(ctx, hmlstm_kernel, *args)
    expected = hmlstm_kernel(*args)
    difference = float(np.max(np.abs(result - expected)))
    out(ctx.report.render())
    out("hmlstm_kernel at n = %d on %s: %s %s, max |difference| from NumPy = %.3g"
        % (n, ctx.device.name, type(result).__name__, result.dtype, difference))
    ctx32, _ = gpu_context(GPU32)
    result32 = context.overdub(ctx32, hmlstm_kernel, *args)
    out("with the 32-bit literal pass: %s" % result32.dtype)
    return difference, ctx.report, result32.dtype


if __name__ == "__main__":
    main()
