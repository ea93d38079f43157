"""What "the device" is for ``GPUCtx``: an array namespace, its array types, and the two moves.

``cupy_device()`` is CuPy on the current CUDA device; ``host_device()`` is NumPy itself (the
host fallback: nothing moves); ``Device.from_namespace(ns)`` makes a device of any array
library whose functions are named as NumPy's (``array_api_strict`` in the tests).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np


class GPUUnavailableError(RuntimeError):
    """``GPUCtx()`` found no GPU: CuPy is missing, or it sees no CUDA device."""


def _identity(x):
    return x


class Device:
    """An array library that NumPy calls can be sent to.

    ``namespace``: where the counterparts of NumPy's functions are looked up, by name
    (``namespace.tanh``, ``namespace.linalg.norm``). ``array_types``: the types of its
    arrays. ``to_device(ndarray)`` and ``to_host(array)`` move one array across.
    ``synchronize()`` waits for queued work (a no-op for libraries that compute at once).
    A device whose arrays are NumPy arrays (``host_memory``) moves nothing. ``is_host``
    marks ``host_device()``, the host fallback of ``GPUCtx``: its calls are only counted.
    """

    def __init__(self, namespace, array_types, to_device, to_host, name, *, synchronize=None,
                 is_host=False, names_from=None):
        if isinstance(array_types, type):
            array_types = (array_types,)
        array_types = tuple(array_types)
        if not array_types or not all(isinstance(t, type) for t in array_types):
            raise TypeError("Device: array_types must be a type or a non-empty tuple of types, got %r" % (array_types,))
        for what, fn in (("to_device", to_device), ("to_host", to_host)):
            if not callable(fn):
                raise TypeError("Device: %s must be callable, got %r" % (what, fn))
        if synchronize is not None and not callable(synchronize):
            raise TypeError("Device: synchronize must be callable or None, got %r" % (synchronize,))
        self.namespace = namespace
        self.array_types = array_types
        self.to_device = to_device
        self.to_host = to_host
        self.name = str(name)
        self.synchronize = synchronize or _nothing
        self.is_host = bool(is_host)
        # the device's arrays live in host memory (NumPy arrays): there is nothing to move
        self.host_memory = all(issubclass(t, np.ndarray) for t in array_types)
        # whose names decide which NumPy functions have a counterpart (the namespace by default)
        self.names_from = namespace if names_from is None else names_from

    @classmethod
    def from_namespace(cls, namespace, *, array_types=None, to_device=None, to_host=None, name=None,
                       synchronize=None):
        """A device for an array library named like NumPy.

        By default arrays move to it with ``namespace.asarray`` and back with ``numpy.asarray``,
        its array type is the type of ``to_device(numpy.zeros(1))``, and its name is the
        namespace's ``__name__``.
        """
        if to_device is None:
            to_device = getattr(namespace, "asarray", None)
            if not callable(to_device):
                raise TypeError(
                    "Device.from_namespace: %r has no asarray function; pass to_device=" % (namespace,)
                )
        if array_types is None:
            array_types = (type(to_device(np.zeros(1))),)
        if name is None:
            name = getattr(namespace, "__name__", None) or type(namespace).__name__
        return cls(namespace, array_types, to_device, to_host or np.asarray, name, synchronize=synchronize)

    def __repr__(self):
        return "<Device %s>" % self.name


def _nothing():
    return None


def _import_cupy():
    import cupy  # noqa: F401  (tests replace this function to simulate a machine without CuPy)

    return cupy


def _unavailable(message, cupy, short):
    exc = GPUUnavailableError(message)
    exc.cupy = cupy  # the CuPy module when it imported (its names still tell what it has), else None
    exc.short = short
    return exc


def cupy_device():
    """CuPy on the current CUDA device; ``GPUUnavailableError`` naming the cause if there is none."""
    try:
        cupy = _import_cupy()
    except Exception as exc:  # ImportError, or a CuPy that fails to load its CUDA libraries
        raise _unavailable(
            "GPUCtx needs CuPy, which could not be imported (%s: %s); install it with pip install cupy-cuda12x "
            "(CuPy for CUDA 12), or pip install \"pycassette[gpu]\" where pycassette is installed (from a checkout: "
            "pip install \".[gpu]\"), or run on the host with GPUCtx(host_fallback=True)"
            % (type(exc).__name__, exc), None, "CuPy is not installed",
        ) from exc
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # cupy.cuda.runtime.CUDARuntimeError: no driver, no device
        raise _unavailable(
            "GPUCtx found no CUDA device: CuPy says %s; run on the host with GPUCtx(host_fallback=True)"
            % (exc,), cupy, "no CUDA device",
        ) from exc
    if count < 1:
        raise _unavailable(
            "GPUCtx found no CUDA device: CuPy sees %d devices; run on the host with "
            "GPUCtx(host_fallback=True)" % count, cupy, "no CUDA device",
        )
    current = cupy.cuda.Device()
    try:
        label = cupy.cuda.runtime.getDeviceProperties(current.id)["name"]
        label = label.decode() if isinstance(label, bytes) else str(label)
    except Exception:
        label = "CUDA device %d" % current.id
    return Device(
        cupy, (cupy.ndarray,), cupy.asarray, cupy.asnumpy, "CuPy on %s" % label,
        synchronize=lambda: cupy.cuda.Device().synchronize(),
    )


def host_device(like=None, reason=None):
    """NumPy on the host, for ``GPUCtx(host_fallback=True)``: nothing moves, calls are counted.

    ``like`` is the namespace whose function names decide which NumPy calls would have
    moved (CuPy's when it imports; by default NumPy's own: every NumPy function counts as
    having a counterpart). ``reason`` says why there is no GPU; it goes into the name.
    """
    name = "host (NumPy)" if reason is None else "host (NumPy; %s)" % reason
    return Device(np, (np.ndarray,), _identity, _identity, name, is_host=True, names_from=like)


def resolve_device(device, host_fallback):
    """The ``Device`` for ``GPUCtx(device, host_fallback=...)``."""
    if device is not None:
        if not isinstance(device, Device):
            raise TypeError(
                "GPUCtx: device must be a context.ready.devices.Device (cupy_device(), host_device(), "
                "Device.from_namespace(array_api_strict), ...) or None for CuPy, got %s %r"
                % (type(device).__name__, device)
            )
        return device
    try:
        return cupy_device()
    except GPUUnavailableError as exc:
        if not host_fallback:
            raise
        return host_device(like=exc.cupy, reason=exc.short)
