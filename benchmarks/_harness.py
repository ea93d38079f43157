"""Timing helpers and the result-row format shared by the benchmark modules.

A benchmark module defines ``run(quick: bool) -> list[dict]``; each dict is a
row made by :func:`row`.
"""

import gc
import importlib
import os
import time


def row(name, measurement, ratio=None, peer=None, goal=None, met=None):
    """One result line.

    name        what was measured, e.g. ``"fib(20), empty context"``
    measurement the raw number as text, e.g. ``"11.4 ms"``
    ratio       measurement divided by the peer's (``None`` if no peer)
    peer        what the ratio is against, e.g. ``"native"``
    goal        the target as text, e.g. ``"<= 10x"`` (``None`` if none)
    met         whether the goal is met (``None`` if no goal)
    """
    return {"name": name, "measurement": measurement, "ratio": ratio,
            "peer": peer, "goal": goal, "met": met}


def ratio_row(name, seconds, peer_name, peer_seconds, limit=None):
    """A row for ``seconds`` against a peer, with an optional ``<= limit`` goal."""
    r = seconds / peer_seconds
    goal = None if limit is None else f"<= {limit:g}x"
    met = None if limit is None else r <= limit
    return row(name, fmt_time(seconds), r, peer_name, goal, met)


def compare(cases, repeat, number=1):
    """Time each callable in ``cases`` (name -> callable) side by side.

    The cases are interleaved round by round so that drift in machine speed
    affects all of them alike. Each round calls a case ``number`` times; the
    result is the best round's time per call, in seconds, for each name.
    The garbage collector is off while a round runs, as in ``timeit``.
    """
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(repeat):
        for name, fn in cases.items():
            best[name] = min(best[name], timed(fn, number) / number)
    return best


def timed(fn, number=1):
    """Seconds taken by ``number`` calls of ``fn``, garbage collector off."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        return time.perf_counter() - t0
    finally:
        if enabled:
            gc.enable()


def fmt_time(seconds):
    """``seconds`` with a unit, three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_bytes(n):
    """A byte count in KiB or MiB, signed."""
    if abs(n) >= 1 << 20:
        return f"{n / (1 << 20):+.1f} MiB"
    return f"{n / 1024:+.1f} KiB"


def optional(name):
    """The module ``name``, or None when it is not installed (peers are optional)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def load_jax():
    """JAX on the CPU with 64-bit floats, or None when it is not installed."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    jax = optional("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
    return jax
