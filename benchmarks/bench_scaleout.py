"""Scale-out: Jacobians and Hessians spread over a process pool and a Dask cluster of 2 workers, against the same computation in one process.

Four workloads, each computed in this process and then with `executor=` a
`ProcessPoolExecutor(2)` (spawned workers) and a `dask.distributed` `LocalCluster`
of 2 single-threaded worker processes (`client.get_executor()`): the forward
Jacobian of 200 explicit time steps of a 2,000-point PDE with respect to 32
parameters (the work grows with the number of directions: the case scale-out is for),
the dense forward Jacobian of the Brusselator on a 40x40 grid (3,200 unknowns: the
82 MB result must travel back), the Hessian of a chained Rosenbrock function written
as a loop over `x[i]` (300 inputs, forward over reverse: Python-bound, so a run along
half the directions costs nearly what a run along all of them does), and the sparse
Jacobian of the Brusselator on a 72x72 grid (10,368 unknowns, 10 colours: a few
milliseconds of work per call). Pools are warmed first
(a worker's first task rewrites the function). The speedup is the one-process
time over the spread time, on this machine's 2 cores. The per-task overhead is the
spread time of a 2-task Jacobian of a 2-input function, per task; the data each task
ships is the pickled job (function, input, backend), made once per call, plus its
part of the directions. Results are checked against the one-process ones. Dask is
optional (`pip install .[scaleout]`); without it its rows say "not installed".
"""

import multiprocessing
import os
import sys
import pickle
from concurrent.futures import Executor, ProcessPoolExecutor

import numpy as np

import ad
from ad import scaleout
from _harness import compare, fmt_time, optional, ratio_row, row

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))


N_HEAT, STEPS, K = 2000, 200, 32
BASIS = np.sin(np.pi * np.outer(np.arange(1, K + 1), np.linspace(0, 1, N_HEAT)))


def heat(p):
    """Explicit time steps of a 1-D reaction-diffusion equation driven by K source modes."""
    u = np.zeros(N_HEAT)
    source = p @ BASIS
    dt = 0.2 / N_HEAT ** 2
    for _ in range(STEPS):
        lap = np.concatenate([[0.0], u[:-2] - 2 * u[1:-1] + u[2:], [0.0]]) * N_HEAT ** 2
        u = u + dt * (lap + source - u ** 3)
    return u


def chained_rosenbrock(x):
    total = 0.0
    for i in range(len(x) - 1):
        total = total + 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return total


X2 = np.array([0.3, 0.7])


def tiny(x):
    return np.sin(x) * x[::-1]


def _workloads(quick):
    from sparse_brusselator import brusselator, initial

    n_dense, n_sparse, n_loop = (24, 40, 60) if quick else (40, 72, 300)
    u_dense, u_sparse = initial(n_dense), initial(n_sparse)
    x_loop = np.linspace(-1.0, 1.2, n_loop)

    def dense_f(u):
        return brusselator(u, n_dense)

    def sparse_f(u):
        return brusselator(u, n_sparse)

    p = np.linspace(0.5, 2.0, K)
    return [
        (f"Jacobian of {STEPS} time steps of a {N_HEAT:,}-point PDE, {K} parameters (forward)",
         lambda ex: ad.jacobian(heat, p, ad.ForwardMode(executor=ex))),
        (f"dense Jacobian, Brusselator {n_dense}x{n_dense} ({u_dense.size:,} unknowns)",
         lambda ex: ad.jacobian(dense_f, u_dense, ad.ForwardMode(executor=ex))),
        (f"Hessian, chained Rosenbrock loop ({n_loop} inputs, forward over reverse)",
         lambda ex: ad.hessian(chained_rosenbrock, x_loop,
                               ad.HigherOrder(ad.ForwardMode(executor=ex), ad.ReverseMode()))),
        (f"sparse Jacobian, Brusselator {n_sparse}x{n_sparse} ({u_sparse.size:,} unknowns, 10 colours)",
         _sparse_case(sparse_f, u_sparse)),
    ]


def _sparse_case(f, u):
    backends = {}

    def compute(ex):
        if ex not in backends:
            backends[ex] = ad.Sparse(executor=ex)
        return ad.jacobian(f, u, backends[ex])

    return compute


def _same(a, b):
    a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
    b = b.toarray() if hasattr(b, "toarray") else np.asarray(b)
    if not np.allclose(a, b, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(b).max())):
        raise RuntimeError("scaleout: a spread result differs from the one computed in one process")


class Meter(Executor):
    """An executor that passes tasks on and measures what each ships (its arguments, pickled)."""

    def __init__(self, inner):
        self.inner, self.sizes, self.returned = inner, [], []
        self._max_workers = scaleout.workers(inner)

    def submit(self, fn, *args):
        self.sizes.append(len(pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)))
        future = self.inner.submit(fn, *args)
        future.add_done_callback(
            lambda done: self.returned.append(len(pickle.dumps(done.result(), protocol=pickle.HIGHEST_PROTOCOL))))
        return future

    def text(self):
        return (f"{len(self.sizes)} tasks, each ships {_size(np.mean(self.sizes))} and returns "
                f"{_size(np.mean(self.returned))}")


def _size(n):
    return f"{n / (1 << 20):,.1f} MiB" if n >= 1 << 20 else f"{n / 1024:,.0f} KiB"


def _executors():
    """A warm process pool, then (when Dask is installed) a warm local cluster.

    Dask's nannies export ``MALLOC_TRIM_THRESHOLD_=65536`` into this process's environment
    and their workers' (``distributed.nanny.pre-spawn-environ``); NumPy code whose
    temporaries are a few hundred KiB then runs about 2x slower in any process started
    afterwards. The pool is started first, and the cluster without that setting.
    """
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
    found = {"process pool (2)": pool}
    _warm(pool)
    distributed = optional("distributed")
    cluster = client = None
    if distributed is not None:
        import dask

        environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=50)
        client = distributed.Client(cluster)
        found["Dask LocalCluster (2 workers)"] = client.get_executor()
        _warm(found["Dask LocalCluster (2 workers)"])

    def close():
        pool.shutdown()
        if client is not None:
            client.close()
            cluster.close()

    return found, close


def _warm(ex):
    """Both workers started, numpy and ad imported, ``tiny`` rewritten."""
    for _ in range(2):
        ad.jacobian(tiny, X2, ad.ForwardMode(chunk=1, executor=ex))


def run(quick):
    executors, close = _executors()
    rows = []
    try:
        for title, compute in _workloads(quick):
            here = compute(None)
            cases = {"here": lambda: compute(None)}
            for name, ex in executors.items():
                _same(compute(ex), here)
                cases[name] = (lambda ex=ex: compute(ex))
            t = compare(cases, repeat=2 if quick else 3)
            rows.append(row(f"{title}: one process", fmt_time(t["here"])))
            for name in executors:
                r = ratio_row(f"{title}: {name}", t[name], "one process", t["here"])
                r["measurement"] += f" (speedup {t['here'] / t[name]:.2f}x)"
                rows.append(r)
            meter = Meter(next(iter(executors.values())))
            compute(meter)
            rows.append(row(f"{title}: data per task", meter.text()))
        if "Dask LocalCluster (2 workers)" not in executors:
            rows.append(row("Dask LocalCluster", "not installed"))
        cases = {"here": lambda: ad.jacobian(tiny, X2, ad.ForwardMode(chunk=1))}
        for name, ex in executors.items():
            cases[name] = (lambda ex=ex: ad.jacobian(tiny, X2, ad.ForwardMode(chunk=1, executor=ex)))
        t = compare(cases, repeat=5 if quick else 20)
        meter = Meter(next(iter(executors.values())))
        ad.jacobian(tiny, X2, ad.ForwardMode(chunk=1, executor=meter))
        for name in executors:
            rows.append(row(f"overhead per task, {name} (2-task Jacobian of a 2-input function)",
                            f"{fmt_time((t[name] - t['here']) / 2)} ({meter.sizes[0]:,} bytes shipped per task)"))
    finally:
        close()
    return rows
