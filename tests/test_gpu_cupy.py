"""``GPUCtx`` on a real GPU with CuPy. Every test is marked ``gpu`` and skips, saying why,
without CuPy or without a CUDA device.

Run on a CUDA machine with ``pip install "pycassette[gpu]"`` and ``pytest -m gpu``.
"""

import os
import sys
import warnings

import numpy as np
import pytest

import ad
from context import overdub
from context.ready.devices import GPUUnavailableError, cupy_device
from context.ready.gpu import GPUCtx, GPUHostFallbackWarning

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
from gpu_kernel import hmlstm_kernel, inputs, sigm  # noqa: E402
sys.path.pop(0)

try:
    DEVICE = cupy_device()
    WHY_NOT = None
except GPUUnavailableError as exc:
    DEVICE = None
    WHY_NOT = str(exc)

pytestmark = pytest.mark.skipif(DEVICE is None, reason="no GPU for CuPy: %s" % WHY_NOT)

if DEVICE is not None:
    import cupy
else:
    cupy = None


V = np.linspace(-1.0, 1.0, 7)
X0 = np.linspace(0.1, 0.9, 7)


def loss(x):
    return np.sum(np.tanh(x) * V) + np.sum(sigm(x) ** 2)


@pytest.mark.gpu
def test_kernel_matches_numpy():
    args = inputs(512)
    ctx = GPUCtx()
    assert ctx.device.name.startswith("CuPy on ")
    out = overdub(ctx, hmlstm_kernel, *args)
    assert type(out) is np.ndarray and out.dtype == np.float32
    np.testing.assert_allclose(out, hmlstm_kernel(*args), rtol=1e-5, atol=1e-6)
    assert ctx.report.on_device == {"numpy.exp": 2, "numpy.tanh": 1, "numpy.where": 2}
    assert ctx.report.on_host == {}
    nbytes = sum(a.nbytes for a in args)
    assert ctx.report.to_device == (6, nbytes)
    assert ctx.report.to_host == (1, out.nbytes)


@pytest.mark.gpu
def test_arrays_are_cupy_inside_and_numpy_outside():
    seen = []

    def checked_tanh(x):
        seen.append(type(x))
        return cupy.tanh(x)

    def f(x):
        seen.append(type(x))
        return np.tanh(x) + np.exp(x)

    x = np.linspace(-1.0, 1.0, 9, dtype=np.float32)
    out = overdub(GPUCtx(substitutions={np.tanh: checked_tanh}), f, x)
    assert seen == [cupy.ndarray, cupy.ndarray]
    assert type(out) is np.ndarray
    np.testing.assert_allclose(out, np.tanh(x) + np.exp(x), rtol=1e-6)


@pytest.mark.gpu
def test_keep_on_device_gives_cupy_arrays():
    args = inputs(64)
    out = overdub(GPUCtx(keep_on_device=True), hmlstm_kernel, *args)
    assert type(out) is cupy.ndarray
    np.testing.assert_allclose(cupy.asnumpy(out), hmlstm_kernel(*args), rtol=1e-5, atol=1e-6)
    z = overdub(GPUCtx(keep_on_device=True), np.zeros, 3)
    assert type(z) is cupy.ndarray


@pytest.mark.gpu
def test_no_counterpart_runs_on_host_and_is_reported():
    ctx = GPUCtx()
    candidates = [getattr(np, n) for n in ("spacing", "unstack", "vecdot", "block") if hasattr(np, n)]
    missing = [fn for fn in candidates if fn not in ctx.substitutions]
    if not missing:
        pytest.skip("this CuPy has a counterpart for every candidate (spacing, unstack, vecdot, block)")
    fn = missing[0]
    x = np.linspace(1.0, 2.0, 4)
    call = {"spacing": lambda a: fn(a), "unstack": lambda a: fn(a)[0], "vecdot": lambda a: fn(a, a),
            "block": lambda a: fn([a, a])}[fn.__name__]
    seen = []

    def f(a):
        out = call(a)
        seen.append(type(out))
        return out

    with pytest.warns(GPUHostFallbackWarning, match="numpy." + fn.__name__):
        out = overdub(ctx, f, x)
    assert seen == [cupy.ndarray]  # the result went back to the device
    np.testing.assert_allclose(out, call(x))
    assert ctx.report.on_host == {"numpy." + fn.__name__: 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        overdub(ctx, f, x)  # warned once per function and context
    assert ctx.report.on_host == {"numpy." + fn.__name__: 2}


@pytest.mark.gpu
def test_host_global_mixed_with_device_array_moves_once():
    W = np.arange(8.0)

    def f(x):
        return x * W + W

    ctx = GPUCtx()
    out = overdub(ctx, f, np.ones(8))
    np.testing.assert_allclose(out, np.ones(8) * W + W)
    assert ctx.report.to_device == (2, 2 * 64)


@pytest.mark.gpu
def test_ad_gpu_inside_derivative_of_the_kernel():
    z, zb, c, f, i, g = inputs(32, dtype=np.float64)

    def on_gpu(s):
        return np.sum(overdub(GPUCtx(), hmlstm_kernel, z, zb, s * c, f, i, g))

    def on_host(s):
        return np.sum(hmlstm_kernel(z, zb, s * c, f, i, g))

    np.testing.assert_allclose(ad.derivative(on_gpu, 0.7), ad.derivative(on_host, 0.7), rtol=1e-10)


@pytest.mark.gpu
def test_ad_gpu_inside_jvp_with_arrays():
    value, jv = ad.jvp(lambda x: overdub(GPUCtx(), loss, x), X0, V)
    want = ad.jvp(loss, X0, V)
    np.testing.assert_allclose([float(value), float(jv)], [want[0], want[1]], rtol=1e-10)


@pytest.mark.gpu
def test_ad_gpu_outside_derivative():
    def scalar_loss(t):
        return float(loss(t * X0))

    got = overdub(GPUCtx(), ad.derivative, scalar_loss, 0.3)
    np.testing.assert_allclose(got, ad.derivative(scalar_loss, 0.3), rtol=1e-10)


@pytest.mark.gpu
def test_ad_gpu_outside_gradient():
    # needs ad to take CuPy arrays as inputs and results (see docs/gpu.md, "Limits")
    got = overdub(GPUCtx(), ad.gradient, loss, X0)
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, ad.gradient(loss, X0), rtol=1e-10)
