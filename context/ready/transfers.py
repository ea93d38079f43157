"""Moving values between the host and the device, and the report of what moved.

A ``Mover`` serves one run of a ``GPUCtx``: it finds the arrays in a call's arguments
(also inside lists, tuples, dicts and tagged values), moves host arrays to the device
once each (by identity, for the whole run) and device arrays to the host, and counts
every move in the context's ``TransferReport``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections import Counter

import numpy as np

from context.tagging import Tagged

HOST, DEVICE, TAGGED = 1, 2, 4  # what scan() found
ARRAYS = HOST | DEVICE
_SCALARS = frozenset({int, float, complex, bool, str, bytes, type(None), slice, type(Ellipsis)})


class Transfers:
    """Arrays and bytes moved one way; compares equal to the tuple ``(arrays, bytes)``."""

    __slots__ = ("arrays", "bytes")

    def __init__(self, arrays=0, nbytes=0):
        self.arrays = arrays
        self.bytes = nbytes

    def add(self, nbytes):
        self.arrays += 1
        self.bytes += nbytes

    def __iter__(self):
        return iter((self.arrays, self.bytes))

    def __eq__(self, other):
        if isinstance(other, Transfers):
            other = tuple(other)
        return isinstance(other, tuple) and (self.arrays, self.bytes) == other

    __hash__ = None

    def __repr__(self):
        return "Transfers(arrays=%d, bytes=%d)" % (self.arrays, self.bytes)

    def __str__(self):
        return "%d array%s, %s" % (self.arrays, "" if self.arrays == 1 else "s", fmt_bytes(self.bytes))


def fmt_bytes(n):
    """``n`` bytes in B, KiB, MiB or GiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return "%.1f %s" % (n / scale, unit)
    return "%d B" % n


class TransferReport:
    """What a ``GPUCtx`` moved and where calls ran, added up over its runs.

    ``to_device`` and ``to_host``: ``Transfers`` (arrays and bytes moved each way).
    ``on_device``: calls run by a counterpart, by qualified name (with the host fallback:
    the calls that would have moved). ``on_host``: calls with no counterpart that ran on
    the host. ``moved_by``: bytes moved, by cause: ``"arguments"`` (entering the run),
    ``"result"`` (leaving it), or the function or operator that met a host array or ran
    on the host. ``runs``: top-level runs so far.
    """

    def __init__(self, device):
        self.device = device.name
        self.host_mode = device.is_host
        self.clear()

    def clear(self):
        """Forget everything counted so far."""
        self.to_device = Transfers()
        self.to_host = Transfers()
        self.on_device = Counter()
        self.on_host = Counter()
        self.moved_by = Counter()
        self.runs = 0

    def __repr__(self):
        return "<TransferReport %s: to device %s, to host %s, %d calls on device, %d on host>" % (
            self.device, self.to_device, self.to_host, sum(self.on_device.values()), sum(self.on_host.values()))

    def render(self):
        """A short text table: the moves, then one line per function."""
        head = "GPUCtx on %s, %d run%s" % (self.device, self.runs, "" if self.runs == 1 else "s")
        if self.host_mode:
            lines = [head, "host fallback: nothing moved; 'on device' counts the calls that would have run on the GPU"]
        else:
            lines = [head, "moved to the device: %s; to the host: %s" % (self.to_device, self.to_host)]
        special = [n for n in ("arguments", "result") if n in self.moved_by]
        names = set(self.on_device) | set(self.on_host) | (set(self.moved_by) - set(special))
        order = sorted(names, key=lambda n: (-(self.on_device[n] + self.on_host[n]), n)) + special
        if not order:
            lines.append("no NumPy calls with arrays")
            return "\n".join(lines)
        width = max(len("function"), max(len(n) for n in order))
        lines.append("%-*s  %9s  %7s  %11s" % (width, "function", "on device", "on host", "bytes moved"))
        for n in order:
            lines.append(("%-*s  %9s  %7s  %11s" % (
                width, n, self.on_device[n] or "", self.on_host[n] or "",
                fmt_bytes(self.moved_by[n]) if self.moved_by[n] else "")).rstrip())
        return "\n".join(lines)

    __str__ = render


class Mover:
    """One run's moves: host arrays go to the device once each, device arrays to the host."""

    def __init__(self, device, report):
        self.device = device
        self.report = report
        self.host_types = frozenset() if device.host_memory else frozenset({np.ndarray})
        self.device_types = frozenset(device.array_types)
        self.device_classes = device.array_types
        self.memo = {}  # id(host value) -> (host value, device value): kept until the run ends

    def scan(self, values):
        """``HOST | DEVICE | TAGGED`` flags for what ``values`` hold (containers looked into)."""
        flags = 0
        host_types, device_types = self.host_types, self.device_types
        for x in values:
            t = type(x)
            if t in _SCALARS:
                continue
            if t in device_types:
                flags |= DEVICE
            elif t in host_types:
                flags |= HOST
            elif t is list or t is tuple:
                flags |= self.scan(x)
            elif t is dict:
                flags |= self.scan(x.values())
            elif isinstance(x, Tagged):
                flags |= TAGGED | self.scan((x.value, x.meta))
            elif isinstance(x, (list, tuple)):
                flags |= self.scan(x)
            elif isinstance(x, self.device_classes) and not isinstance(x, np.generic):
                flags |= DEVICE
        return flags

    def operand(self, x):
        """``HOST`` or ``DEVICE`` for an operator's operand (no containers), else 0."""
        t = type(x)
        if t in self.device_types:
            return DEVICE
        if t in self.host_types:
            return HOST
        if t in _SCALARS:
            return 0
        if isinstance(x, Tagged):
            return self.scan((x.value, x.meta)) & ARRAYS
        return 0

    # ---- moving -------------------------------------------------------------------------

    def to_device(self, x, why, memo=True):
        """``x`` with its host arrays on the device (each moved once per run, unless not ``memo``)."""
        if not self.host_types:
            return x
        return self._walk(x, self._host_leaf if memo else self._fresh_leaf, why)

    def to_host(self, x, why):
        """``x`` with its device arrays on the host."""
        if not self.host_types:
            return x
        return self._walk(x, self._device_leaf, why)

    def _host_leaf(self, x, why):
        if type(x) is not np.ndarray:
            return None
        hit = self.memo.get(id(x))
        if hit is not None:
            return hit[1]
        moved = self.device.to_device(x)
        self.memo[id(x)] = (x, moved)
        self._count(self.report.to_device, x.nbytes, why)
        return moved

    def _fresh_leaf(self, x, why):
        if type(x) is not np.ndarray:
            return None
        self._count(self.report.to_device, x.nbytes, why)
        return self.device.to_device(x)

    def _device_leaf(self, x, why):
        if not isinstance(x, self.device_classes) or isinstance(x, np.generic):
            return None
        moved = self.device.to_host(x)
        self._count(self.report.to_host, getattr(moved, "nbytes", 0), why)
        return moved

    def _count(self, way, nbytes, why):
        way.add(nbytes)
        self.report.moved_by[why] += nbytes

    def _walk(self, x, leaf, why):
        t = type(x)
        if t in _SCALARS:
            return x
        moved = leaf(x, why)
        if moved is not None:
            return moved
        if t is list or t is tuple or (isinstance(x, tuple) and hasattr(x, "_fields")):
            items = [self._walk(i, leaf, why) for i in x]
            if all(a is b for a, b in zip(items, x)):
                return x
            if t is list:
                return items
            return tuple(items) if t is tuple else t(*items)
        if t is dict:
            items = {k: self._walk(v, leaf, why) for k, v in x.items()}
            return x if all(items[k] is v for k, v in x.items()) else items
        if isinstance(x, Tagged):
            hit = self.memo.get(id(x)) if leaf == self._host_leaf else None
            if hit is not None:
                return hit[1]
            value = self._walk(x.value, leaf, why)
            meta = self._walk(x.meta, leaf, why)
            if value is x.value and meta is x.meta:
                return x
            out = type(x)(value, x.tag, meta)
            if leaf == self._host_leaf:
                self.memo[id(x)] = (x, out)
            return out
        return x
