"""Running cases in worker processes, each case with a timeout (a worker that hangs or dies
is killed and replaced, and its case counts as a crash)."""

import collections
import multiprocessing
import time

from .cases import load_cases
from .checks import run_case
from .namespaces import Namespace


def _worker(conn, use_autograd):
    by_name = {c.name: c for c in load_cases()}
    kinds = ["ad", "fd"] + (["autograd"] if use_autograd else [])
    namespaces = {}
    for k in kinds:
        try:
            namespaces[k] = Namespace(k)
        except ImportError:
            pass
    use_autograd = "autograd" in namespaces
    conn.send(("ready", use_autograd))
    while True:
        name = conn.recv()
        if name is None:
            break
        try:
            records = run_case(by_name[name], namespaces, use_autograd)
        except BaseException as e:  # noqa: BLE001
            records = [{"name": name, "order": 1, "cls": "crash", "error_type": type(e).__name__,
                        "error": "in the runner: %s" % e}]
        conn.send(("done", records))


class Worker:
    def __init__(self, use_autograd):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, use_autograd), daemon=True)
        self.proc.start()
        child.close()
        ok = self.conn.poll(300)
        if not ok:
            self.kill()
            raise RuntimeError("a worker did not start")
        _, self.use_autograd = self.conn.recv()
        self.name = None
        self.started = None

    def give(self, name):
        self.name, self.started = name, time.monotonic()
        self.conn.send(name)

    def kill(self):
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def stop(self):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        self.kill()


def run(cases, jobs=1, timeout=60.0, use_autograd=True, progress=None):
    """Run ``cases`` (Case objects) in ``jobs`` worker processes; returns the records."""
    pending = collections.deque(c.name for c in cases)
    meta = {c.name: c for c in cases}
    workers = [Worker(use_autograd) for _ in range(max(1, min(jobs, len(pending))))]
    records = []
    busy = []
    try:
        while pending or busy:
            for w in workers:
                if w.name is None and pending:
                    w.give(pending.popleft())
                    busy.append(w)
            for w in list(busy):
                if w.conn.poll(0.02):
                    try:
                        _, recs = w.conn.recv()
                    except (EOFError, OSError):
                        recs = [_died(meta[w.name], "the worker process died (exit code %s)" % w.proc.exitcode)]
                        workers[workers.index(w)] = _replace_worker(w, use_autograd)
                    records.extend(recs)
                    if progress:
                        progress(recs)
                    busy.remove(w)
                    w.name = None
                elif not w.proc.is_alive() or time.monotonic() - w.started > timeout:
                    why = ("timed out after %gs" % timeout) if w.proc.is_alive() else \
                        "the worker process died (exit code %s)" % w.proc.exitcode
                    recs = [_died(meta[w.name], why)]
                    records.extend(recs)
                    if progress:
                        progress(recs)
                    busy.remove(w)
                    workers[workers.index(w)] = _replace_worker(w, use_autograd)
    finally:
        for w in workers:
            w.stop()
    return records, workers[0].use_autograd if workers else False


def _replace_worker(w, use_autograd):
    w.kill()
    return Worker(use_autograd)


def _died(case, why):
    return {"name": case.name, "file": case.file, "test": case.test, "func": case.func, "inputs": case.inputs(),
            "argnums": list(case.argnums), "orders": case.order, "order": 1, "cls": "crash",
            "error_type": "Timeout" if "timed out" in why else "WorkerDied", "error": why}
