"""``GPUCtx`` on the CPU, with real array libraries standing in for CuPy.

What is tested, and how:

* Substitution: the device is ``array_api_strict`` behind a recording wrapper (a
  module-like object that counts the calls it forwards). Its arrays are a type of their
  own and refuse to mix with NumPy's, so a transfer ``GPUCtx`` misses fails loudly.
  NumPy calls must reach the namespace (the wrapper's counts), arrays inside must be its
  arrays, results must come back as NumPy arrays equal to NumPy's own.
* Transfers: containers, identity memo (one move per array and run), exact counts and
  bytes, scalars left alone, creation routines, operators mixing host and device arrays,
  host arrays passed into substituted calls, ``keep_on_device``.
* A NumPy function the namespace lacks (``np.cumsum``): run on the host, counted and
  warned once; user substitutions (per context and registered) and which wins.
* The host fallback (``host_fallback=True``) and the error without a device (CuPy's
  import made to fail; a CuPy whose runtime sees no device or raises).
* Transparency (code without arrays), bad input.
* AD: both orders (``GPUCtx`` outside and inside ``ad``'s functions) against the host
  derivatives. ``array_api_strict`` cannot serve inside a derivative's rules (its
  dtypes are not NumPy's, and NumPy's functions do not dispatch to it), so those tests
  use NumPy itself behind the recording wrapper, which checks that the AD machinery's
  and the rules' NumPy calls reach the device namespace; tagged arrays entering a run
  are checked with ``array_api_strict`` on operator-only code.
"""

import collections
import math
import sys
import types
import warnings

import array_api_strict as xp
import numpy as np
import pytest

import ad
import context
from context import overdub
from context.ready import devices
from context.ready.devices import Device, GPUUnavailableError, cupy_device, host_device
from context.ready.display import callee_name
from context.ready.gpu import GPUCtx, GPUHostFallbackWarning
from context.ready.substitutions import register_substitution, unregister_substitution

StrictArray = type(xp.asarray(0.0))


class RecordingNamespace:
    """A module-like view of an array namespace that counts, by name, the calls it forwards."""

    def __init__(self, namespace, calls=None, prefix=""):
        self._namespace = namespace
        self._prefix = prefix
        self._wrapped = {}
        self.calls = collections.Counter() if calls is None else calls
        self.__name__ = "recording " + namespace.__name__

    def __getattr__(self, name):
        obj = getattr(self._namespace, name)
        if name.startswith("_") or isinstance(obj, type) or not callable(obj):
            if isinstance(obj, types.ModuleType):  # linalg, fft: recorded under "linalg.norm"
                return self._wrapped.setdefault(name, RecordingNamespace(obj, self.calls, name + "."))
            return obj
        wrapper = self._wrapped.get(name)
        if wrapper is None:
            qualified = self._prefix + name

            def wrapper(*args, **kwargs):
                self.calls[qualified] += 1
                return obj(*args, **kwargs)

            wrapper.__name__ = wrapper.__qualname__ = name
            self._wrapped[name] = wrapper
        return wrapper


@pytest.fixture
def strict():
    """(device, recorder): array_api_strict behind a recording wrapper."""
    rec = RecordingNamespace(xp)
    return Device.from_namespace(rec, array_types=StrictArray, to_device=xp.asarray, name="array_api_strict"), rec


@pytest.fixture
def recorded_numpy():
    """(device, recorder): NumPy itself behind a recording wrapper (its arrays are host arrays)."""
    rec = RecordingNamespace(np)
    device = Device.from_namespace(rec, name="recording numpy")
    rec.calls.clear()  # from_namespace called asarray once to learn the array type
    return device, rec


def sigm(x):
    return 1.0 / (1.0 + np.exp(-x))


def hmlstm_kernel(z, zb, c, f, i, g):
    z = z[:, None]  # one flag per row
    zb = zb[:, None]
    flush = sigm(i) * np.tanh(g)
    update = sigm(f) * c + flush
    return np.where(z == 1, flush, np.where(zb == 0, c, update))


def kernel_inputs(n=6, seed=0):
    rng = np.random.default_rng(seed)
    z = (rng.random(n) < 0.3).astype(np.float32)
    zb = (rng.random(n) < 0.5).astype(np.float32)
    c, f, i, g = rng.standard_normal((4, n, n)).astype(np.float32)
    return z, zb, c, f, i, g


# ---- substitution -------------------------------------------------------------------------


def test_numpy_calls_reach_the_device_namespace(strict):
    device, rec = strict
    args = kernel_inputs()
    ctx = GPUCtx(device)
    out = overdub(ctx, hmlstm_kernel, *args)
    assert type(out) is np.ndarray and out.dtype == np.float32
    np.testing.assert_array_equal(out, hmlstm_kernel(*args))
    assert rec.calls == {"exp": 2, "tanh": 1, "where": 2}
    assert ctx.report.on_device == {"numpy.exp": 2, "numpy.tanh": 1, "numpy.where": 2}
    assert ctx.report.on_host == {}


def test_arrays_inside_are_device_arrays_and_results_come_back(strict):
    device, rec = strict
    seen = []

    def f(x):
        y = np.tanh(x)
        s = np.sum(y * y)
        seen.extend([type(x), type(y), type(s)])
        return y, s

    x = np.linspace(-1.0, 1.0, 7)
    y, s = overdub(GPUCtx(device), f, x)
    assert seen == [StrictArray] * 3
    assert type(y) is np.ndarray and type(s) is np.ndarray and s.shape == ()
    np.testing.assert_allclose(y, np.tanh(x))
    np.testing.assert_allclose(s, np.sum(np.tanh(x) ** 2))
    assert rec.calls == {"tanh": 1, "sum": 1}


def test_keep_on_device(strict):
    device, _ = strict
    x = np.arange(4.0)
    ctx = GPUCtx(device, keep_on_device=True)
    out = overdub(ctx, lambda v: (np.exp(v), [v * 2.0]), x)
    assert type(out[0]) is StrictArray and type(out[1][0]) is StrictArray
    np.testing.assert_allclose(np.asarray(out[0]), np.exp(x))
    assert ctx.report.to_host == (0, 0)
    assert ctx.report.to_device == (1, x.nbytes)


def test_arrays_inside_containers_move_both_ways(strict):
    device, _ = strict
    Pair = collections.namedtuple("Pair", "left right")
    seen = []

    def f(d, items, pair, scale):
        seen.extend([type(d["a"]), type(items[0]), type(items[1][0]), type(pair.right), type(scale)])
        return {"sum": d["a"] + items[0], "pair": Pair(pair.left, np.tanh(pair.right)), "list": [items[1][0]]}

    a, b, c, e = (np.full(3, v) for v in (1.0, 2.0, 3.0, 0.5))
    ctx = GPUCtx(device)
    out = overdub(ctx, f, {"a": a}, [b, (c,)], Pair("label", e), 2.0)
    assert seen == [StrictArray] * 4 + [float]
    assert type(out["pair"]) is Pair and out["pair"].left == "label"
    for value in (out["sum"], out["pair"].right, out["list"][0]):
        assert type(value) is np.ndarray
    np.testing.assert_allclose(out["sum"], a + b)
    np.testing.assert_allclose(out["pair"].right, np.tanh(e))
    np.testing.assert_allclose(out["list"][0], c)
    assert ctx.report.to_device == (4, 4 * 24)
    assert ctx.report.to_host == (3, 3 * 24)
    assert ctx.report.moved_by == {"arguments": 96, "result": 72}


def test_the_same_array_moves_once_per_run(strict):
    device, _ = strict
    x = np.arange(5.0)
    seen = []

    def f(a, b, more):
        seen.append(a is b and b is more[0])
        return np.sum(a * b)

    ctx = GPUCtx(device)
    out = overdub(ctx, f, x, x, [x])
    assert seen == [True] and float(out) == 30.0
    assert ctx.report.to_device == (1, x.nbytes)
    assert ctx.report.to_host == (1, 8)
    overdub(ctx, f, x, x, [x])  # a new run moves it again: the report adds up over runs
    assert ctx.report.to_device == (2, 2 * x.nbytes) and ctx.report.runs == 2


def test_scalars_are_left_alone(strict):
    device, rec = strict
    seen = []

    def f(a, b, c, x):
        seen.extend([type(a), type(b), type(c)])
        e = np.exp(1.0)
        s = np.sqrt(b)
        return e, s, a * c, np.mean([1.0, 2.0, 4.0]), x * a

    ctx = GPUCtx(device)
    out = overdub(ctx, f, 2.0, np.float64(4.0), 3, np.ones(2))
    assert seen == [float, np.float64, int]
    assert out[:4] == (np.exp(1.0), 2.0, 6.0, np.mean([1.0, 2.0, 4.0]))
    assert type(out[0]) is np.float64 and type(out[1]) is np.float64 and type(out[3]) is np.float64
    assert type(out[4]) is np.ndarray
    assert rec.calls == {}
    assert ctx.report.on_device == {}


def test_creation_routines_make_device_arrays(strict):
    device, rec = strict
    seen = []

    def f(n):
        a = np.zeros(n)
        b = np.ones((2, n))
        c = np.arange(float(n))
        d = np.linspace(0.0, 1.0, n)
        seen.extend(type(v) for v in (a, b, c, d))
        return a + b + c + d

    ctx = GPUCtx(device)
    out = overdub(ctx, f, 3)
    assert seen == [StrictArray] * 4
    np.testing.assert_allclose(out, np.zeros(3) + np.ones((2, 3)) + np.arange(3.0) + np.linspace(0, 1, 3))
    assert rec.calls == {"zeros": 1, "ones": 1, "arange": 1, "linspace": 1}
    assert ctx.report.to_device == (0, 0)


def test_function_without_counterpart_runs_on_host_counted_and_warned_once(strict):
    device, _ = strict
    assert not hasattr(xp, "cumsum")
    seen = []

    def f(x):
        a = np.cumsum(x)
        b = np.cumsum(a)
        seen.extend([type(a), type(b)])
        return np.sum(b)

    x = np.arange(4.0)
    ctx = GPUCtx(device)
    with pytest.warns(GPUHostFallbackWarning) as caught:
        out = overdub(ctx, f, x)
        overdub(ctx, f, x)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "numpy.cumsum" in message and "substitutions=" in message and "register_substitution" in message
    assert caught[0].filename == __file__  # the warning names the user's line
    assert seen == [StrictArray] * 4  # results moved back to the device
    assert float(out) == float(np.sum(np.cumsum(np.cumsum(x))))
    assert ctx.report.on_host == {"numpy.cumsum": 4}
    # per run: x in, then each cumsum: its argument to the host, its result back
    assert ctx.report.to_device == (2 * 3, 2 * 3 * 32)
    assert ctx.report.to_host == (2 * 3, 2 * (2 * 32 + 8))
    assert ctx.report.moved_by["numpy.cumsum"] == 2 * 4 * 32
    assert "numpy.cumsum" in ctx.report.render()


def test_no_warning_with_warn_false(strict):
    device, _ = strict
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = overdub(GPUCtx(device, warn=False), np.cumsum, np.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 1.0, 3.0])


def test_function_without_counterpart_and_no_device_array_is_not_reported(strict):
    device, _ = strict

    def f(x):
        return np.cumsum([1.0, 2.0]), np.sum(x)

    ctx = GPUCtx(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = overdub(ctx, f, np.ones(2))
    np.testing.assert_array_equal(out[0], [1.0, 3.0])
    assert ctx.report.on_host == {}


W = np.linspace(-1.0, 1.0, 4)


def uses_global(x):
    return (x * W, W + x, W * 2.0, np.where(x > 0.0, x, W))


def test_host_arrays_met_later_move_once(strict):
    device, _ = strict
    x = np.array([-1.0, 2.0, -3.0, 4.0])
    ctx = GPUCtx(device)
    out = overdub(ctx, uses_global, x)
    for got, want in zip(out, uses_global(x)):
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, want)
    assert ctx.report.to_device == (2, 2 * 32)  # x and W, each once
    assert ctx.report.moved_by["operator.mul"] == 32  # W met first by x * W
    assert "numpy.where" not in ctx.report.moved_by  # W was on the device by then


def test_host_array_passed_into_a_substituted_call_moves(strict):
    device, _ = strict

    def f(x):
        return np.where(x > 0.0, x, W)

    ctx = GPUCtx(device)
    out = overdub(ctx, f, np.array([-1.0, 2.0, -3.0, 4.0]))
    np.testing.assert_allclose(out, f(np.array([-1.0, 2.0, -3.0, 4.0])))
    assert ctx.report.moved_by["numpy.where"] == 32


def test_operators_between_host_arrays_stay_on_host(strict):
    device, _ = strict
    seen = []

    def f(x):
        y = W * 2.0 + W
        seen.append(type(y))
        return x + y

    ctx = GPUCtx(device)
    overdub(ctx, f, np.zeros(4))
    assert seen == [np.ndarray]


# ---- user substitutions ------------------------------------------------------------------


def test_context_substitutions_by_function_and_by_name(strict):
    device, rec = strict
    calls = []

    def my_cumsum(x, axis=None):
        calls.append(type(x))
        return xp.cumulative_sum(x)

    x = np.arange(4.0)
    ctx = GPUCtx(device, substitutions={np.cumsum: my_cumsum})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(overdub(ctx, np.cumsum, x), np.cumsum(x))
    assert calls == [StrictArray]
    assert ctx.report.on_device == {"numpy.cumsum": 1} and ctx.report.on_host == {}
    assert ctx.substitutions[np.cumsum] is my_cumsum

    by_name = GPUCtx(device, substitutions={np.cumsum: "cumulative_sum"})
    np.testing.assert_array_equal(overdub(by_name, np.cumsum, x), np.cumsum(x))
    assert rec.calls == {"cumulative_sum": 1}


def test_registered_substitutions_and_precedence(strict):
    device, rec = strict
    x = np.arange(4.0)
    mine = []

    def own(x):
        mine.append("own")
        return xp.cumulative_sum(x)

    register_substitution(np.cumsum, "cumulative_sum")
    try:
        before = GPUCtx(device)
        np.testing.assert_array_equal(overdub(before, np.cumsum, x), np.cumsum(x))
        assert rec.calls["cumulative_sum"] == 1
        overriding = GPUCtx(device, substitutions={np.cumsum: own})  # the context's own wins
        overdub(overriding, np.cumsum, x)
        assert mine == ["own"] and rec.calls["cumulative_sum"] == 1
        register_substitution(np.cumsum, "no_such_name_here")  # a namespace without the name keeps its table
        assert GPUCtx(device).substitutions.get(np.cumsum) is None
        assert GPUCtx(host_device()).substitutions[np.cumsum] is np.cumsum
    finally:
        unregister_substitution(np.cumsum)
    assert GPUCtx(device).substitutions.get(np.cumsum) is None


def test_substitution_of_a_function_of_ones_own(strict):
    device, _ = strict

    def slow_softplus(x):
        return np.log(1.0 + np.exp(x))

    def fast_softplus(x):
        return xp.logaddexp(xp.asarray(0.0, dtype=x.dtype), x)

    x = np.linspace(-2.0, 2.0, 5)
    ctx = GPUCtx(device, substitutions={slow_softplus: fast_softplus})
    np.testing.assert_allclose(overdub(ctx, lambda v: slow_softplus(v) * 2.0, x), slow_softplus(x) * 2.0)
    assert ctx.report.on_device == {callee_name(slow_softplus): 1}
    assert overdub(ctx, slow_softplus, 0.5) == slow_softplus(0.5)  # no arrays: its own code


def test_the_table_is_built_from_numpy_public_callables(strict):
    device, rec = strict
    table = GPUCtx(device).substitutions
    assert table[np.tanh] is rec.tanh and table[np.where] is rec.where
    assert table[np.linalg.det] is rec.linalg.det
    assert np.cumsum not in table and np.linalg.norm not in table  # array_api_strict has neither
    assert np.float32 not in table and np.ndarray not in table and np.dtype not in table
    with pytest.raises(TypeError):
        table[np.tanh] = None  # read-only


def test_linalg_counterparts_are_used(strict):
    device, rec = strict
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    assert float(overdub(GPUCtx(device), np.linalg.det, a)) == pytest.approx(5.0)
    assert rec.calls == {"linalg.det": 1}


# ---- host fallback, and the error without a device --------------------------------------


@pytest.fixture
def no_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` raises ImportError


def _fake_cupy(count=None, error=None):
    """A stand-in for the cupy module that only answers getDeviceCount (for the error path)."""

    def get_device_count():
        if error is not None:
            raise error
        return count

    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=get_device_count)))


def test_error_without_cupy(no_cupy):
    with pytest.raises(GPUUnavailableError) as info:
        GPUCtx()
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert "CuPy" in message and 'pip install "pycassette[gpu]"' in message
    assert "GPUCtx(host_fallback=True)" in message
    with pytest.raises(GPUUnavailableError):
        cupy_device()


def test_error_when_cupy_sees_no_device(monkeypatch):
    monkeypatch.setattr(devices, "_import_cupy", lambda: _fake_cupy(count=0))
    with pytest.raises(GPUUnavailableError, match=r"sees 0 devices.*GPUCtx\(host_fallback=True\)"):
        GPUCtx()
    error = RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
    monkeypatch.setattr(devices, "_import_cupy", lambda: _fake_cupy(error=error))
    with pytest.raises(GPUUnavailableError) as info:
        GPUCtx()
    assert "cudaErrorNoDevice: no CUDA-capable device is detected" in str(info.value)
    assert "GPUCtx(host_fallback=True)" in str(info.value)
    ctx = GPUCtx(host_fallback=True)  # names come from the cupy module that imported
    assert ctx.device.is_host and "no CUDA device" in ctx.device.name


def test_host_fallback_counts_the_calls_it_would_move(no_cupy):
    args = kernel_inputs()
    ctx = GPUCtx(host_fallback=True)
    assert ctx.device.is_host and "CuPy is not installed" in ctx.device.name
    seen = []

    def traced(*a):
        seen.append(type(a[2]))
        return hmlstm_kernel(*a)

    out = overdub(ctx, traced, *args)
    assert seen == [np.ndarray]
    np.testing.assert_array_equal(out, hmlstm_kernel(*args))
    assert ctx.report.on_device == {"numpy.exp": 2, "numpy.tanh": 1, "numpy.where": 2}
    assert ctx.report.to_device == (0, 0) and ctx.report.to_host == (0, 0)
    assert "would have run on the GPU" in ctx.report.render()


def test_host_fallback_with_the_names_of_another_library():
    ctx = GPUCtx(host_device(like=xp))  # as with CuPy installed but no device: its names decide
    with pytest.warns(GPUHostFallbackWarning, match="numpy.cumsum"):
        out = overdub(ctx, lambda x: np.cumsum(np.exp(x)), np.zeros(3))
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])
    assert ctx.report.on_device == {"numpy.exp": 1} and ctx.report.on_host == {"numpy.cumsum": 1}
    assert ctx.report.to_device == (0, 0)


def test_host_fallback_with_a_float32_literal_pass(no_cupy):
    class GPU32(GPUCtx):
        passes = (context.passes.float32_literals,)

    z, zb, c, f, i, g = kernel_inputs()
    out = overdub(GPU32(host_fallback=True), hmlstm_kernel, z, zb, c, f, i, g)
    assert out.dtype == np.float32
    s = overdub(GPU32(host_fallback=True), sigm, np.float32(0.5))
    assert type(s) is np.float32


# ---- transparency and bad input ---------------------------------------------------------


def test_code_without_arrays_gives_identical_results(strict):
    device, rec = strict

    def plain(n):
        words = sorted(["pear", "apple", "fig"], key=len)
        total = sum(math.sqrt(k) for k in range(n))
        return words, round(total, 12), {"n": n, "half": n / 2}, np.float64(n) ** 2

    native = plain(10)
    out = overdub(GPUCtx(device), plain, 10)
    assert out == native and repr(out) == repr(native)
    assert rec.calls == {}


def test_report_accumulates_renders_and_clears(strict):
    device, _ = strict
    ctx = GPUCtx(device)
    overdub(ctx, np.tanh, np.ones(3))
    overdub(ctx, np.tanh, np.ones(3))
    report = ctx.report
    assert report.runs == 2 and report.on_device == {"numpy.tanh": 2}
    assert report.to_device == (2, 48) and report.to_host == (2, 48)
    assert report.to_device.arrays == 2 and report.to_device.bytes == 48
    text = report.render()
    assert "array_api_strict" in text and "numpy.tanh" in text and "arguments" in text
    assert str(report) == text
    report.clear()
    assert report.runs == 0 and report.to_device == (0, 0) and report.on_device == {}


@pytest.mark.parametrize("device", ["cupy", xp, 3])
def test_device_of_the_wrong_type(device):
    with pytest.raises(TypeError, match="device must be a context.ready.devices.Device"):
        GPUCtx(device)


def test_bad_substitutions(strict):
    device, _ = strict
    with pytest.raises(TypeError, match="must be a mapping"):
        GPUCtx(device, substitutions=[np.tanh])
    with pytest.raises(TypeError, match="not callable"):
        GPUCtx(device, substitutions={"tanh": xp.tanh})
    with pytest.raises(TypeError, match="must be a callable or the name"):
        GPUCtx(device, substitutions={np.tanh: 3})
    with pytest.raises(TypeError, match="has no callable 'no_such_function'"):
        GPUCtx(device, substitutions={np.tanh: "no_such_function"})
    with pytest.raises(TypeError, match="must be a callable or the name"):
        register_substitution(np.tanh, 5)
    with pytest.raises(TypeError, match="not callable"):
        register_substitution("tanh", xp.tanh)
    with pytest.raises(TypeError, match="array_types"):
        Device(xp, (), xp.asarray, np.asarray, "bad")
    with pytest.raises(TypeError, match="to_host must be callable"):
        Device(xp, StrictArray, xp.asarray, None, "bad")


def test_repr_and_identity(strict):
    device, _ = strict
    ctx = GPUCtx(device)
    assert repr(ctx) == "GPUCtx(device='array_api_strict', keep_on_device=False)"
    assert context.overdub(context.Context(), lambda: 1) == 1  # other contexts are unaffected


# ---- composition with ad ----------------------------------------------------------------

V = np.linspace(-1.0, 1.0, 5)


def loss(x):
    return np.sum(np.tanh(x) * V) + np.sum(sigm(x) ** 2)


X0 = np.linspace(0.1, 0.9, 5)


def test_gpu_outside_gradient(recorded_numpy):
    device, rec = recorded_numpy
    ctx = GPUCtx(device)
    grad = overdub(ctx, ad.gradient, loss, X0)
    np.testing.assert_allclose(grad, ad.gradient(loss, X0), rtol=1e-12)
    # the rule bodies and the AD machinery ran under GPUCtx: their NumPy calls reached the device
    assert rec.calls["tanh"] >= 1 and rec.calls["exp"] >= 1 and rec.calls["sum"] >= 2
    assert rec.calls["zeros"] >= 1  # ad's blocks of directions, made under the context
    assert ctx.report.on_device["numpy.tanh"] >= 1


def test_gpu_outside_derivative_and_jvp(recorded_numpy):
    device, rec = recorded_numpy
    ctx = GPUCtx(device)
    d = overdub(ctx, lambda s: ad.derivative(lambda t: loss(t * X0), s), 0.3)
    assert d == pytest.approx(ad.derivative(lambda t: loss(t * X0), 0.3), rel=1e-12)
    value, jv = overdub(ctx, ad.jvp, loss, X0, V)
    want = ad.jvp(loss, X0, V)
    assert value == pytest.approx(want[0], rel=1e-12) and jv == pytest.approx(want[1], rel=1e-12)
    assert rec.calls["tanh"] >= 2


def test_gpu_inside_derivative_and_jvp(recorded_numpy):
    device, rec = recorded_numpy
    ctx = GPUCtx(device)
    d = ad.derivative(lambda s: overdub(ctx, loss, s * X0), 0.3)
    assert d == pytest.approx(ad.derivative(lambda s: loss(s * X0), 0.3), rel=1e-12)
    # tagged arguments: the NumPy function itself, so that the derivative rule applies
    assert ctx.report.on_device["numpy.tanh"] == 1 and ctx.report.on_device["numpy.exp"] == 1
    value, jv = ad.jvp(lambda x: overdub(ctx, loss, x), X0, V)
    want = ad.jvp(loss, X0, V)
    assert value == pytest.approx(want[0], rel=1e-12) and jv == pytest.approx(want[1], rel=1e-12)
    grad = ad.gradient(lambda x: overdub(ctx, loss, x), X0)
    np.testing.assert_allclose(grad, ad.gradient(loss, X0), rtol=1e-12)


def test_gpu_inside_untagged_calls_go_to_the_device(recorded_numpy):
    device, rec = recorded_numpy

    def f(x):
        return np.sum(x * np.exp(V))  # np.exp(V) carries no derivative: the device computes it

    d = ad.derivative(lambda s: overdub(GPUCtx(device), f, s * X0), 0.3)
    assert d == pytest.approx(np.sum(X0 * np.exp(V)), rel=1e-12)
    assert rec.calls == {"exp": 1}


def test_hmlstm_kernel_derivatives_both_orders(recorded_numpy):
    device, _ = recorded_numpy
    z, zb, c, f, i, g = (a.astype(np.float64) for a in kernel_inputs())

    def along_c(s):
        return np.sum(hmlstm_kernel(z, zb, s * c, f, i, g))

    host = ad.derivative(along_c, 0.7)
    inside = ad.derivative(lambda s: overdub(GPUCtx(device), hmlstm_kernel, z, zb, s * c, f, i, g).sum(), 0.7)
    outside = overdub(GPUCtx(device), ad.derivative, along_c, 0.7)
    assert inside == pytest.approx(host, rel=1e-12) and outside == pytest.approx(host, rel=1e-12)


def test_tagged_arrays_entering_move_value_and_tangent(strict):
    device, _ = strict
    seen = []

    def f(y):
        seen.append((type(y.value), type(y.tangent)))
        return 2.0 * y * y + 1.0  # operators only: the rules' arithmetic runs on the device arrays

    ctx = GPUCtx(device)
    value, jv = ad.jvp(lambda x: overdub(ctx, f, x), X0, V)
    np.testing.assert_allclose(value, 2.0 * X0 * X0 + 1.0)
    np.testing.assert_allclose(jv, 4.0 * X0 * V)
    assert seen == [(StrictArray, StrictArray)]
    assert ctx.report.to_device == (2, 2 * X0.nbytes)  # the primal and its tangent
    assert ctx.report.to_host == (2, 2 * X0.nbytes)
