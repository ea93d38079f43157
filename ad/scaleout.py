"""Derivative passes spread over an executor: any ``concurrent.futures.Executor``.

A backend given ``executor=`` cuts its passes into parts (chunks of directions for forward
mode, of cotangent seeds for reverse mode), ships each part as one task, and puts the
results back in order. A task carries the whole job (the function, the input, the backend
that runs it) as one pickle made once per call, plus its part; workers keep the last few
jobs they unpickled, so the function is rewritten once per worker, not once per task.

* Pickling: cloudpickle where it is installed (lambdas, closures, functions of
  ``__main__``), plain pickle otherwise. Executors are never shipped: a backend arrives
  in a task without its executor, so a task never submits tasks of its own.
* Thread pools share memory: their tasks get the job itself, unpickled.
* Under any running context (an enclosing derivative, a trace) the passes run in this
  process: a tagged value cannot leave it with its meaning.
* A task that fails raises ``TaskError`` naming the task and its part, from the task's
  own exception; a result is never left out.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
import hashlib
import io
import os
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from context.state import STATE


class TaskError(RuntimeError):
    """A task of a derivative spread over an executor failed; ``__cause__`` is its own error."""


class NotShippableError(TypeError):
    """What a derivative spread over a process or cluster executor must ship cannot be pickled."""


def spreads(executor: Executor | None) -> bool:
    """Whether passes go to ``executor`` now: one is given and no context is running here."""
    return executor is not None and STATE.act is None


def check_executor(executor: Any, who: str) -> Executor | None:
    """``executor`` if it is None or has ``submit`` (a ``concurrent.futures.Executor``); else an error."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(
            "%s: executor must be a concurrent.futures.Executor (a ProcessPoolExecutor, "
            "dask.distributed's client.get_executor(), ...), got %r" % (who, executor)
        )
    return executor


def workers(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once: a pool's size, a Dask cluster's threads, else the CPU count."""
    n = getattr(executor, "_max_workers", None)
    if isinstance(n, int) and n > 0:
        return n
    client = getattr(executor, "_client", None)  # dask.distributed's ClientExecutor
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:
            pass
    return os.cpu_count() or 1


def split(m: int, per_task: int | None, executor: Executor) -> list[tuple[int, int]]:
    """``(start, stop)`` ranges covering ``range(m)``: ``per_task`` items each, or (None) an even
    share for each of the executor's workers."""
    if per_task is None:
        tasks = max(1, min(m, workers(executor)))
        per_task = -(-m // tasks)
    return [(s, min(s + per_task, m)) for s in range(0, m, max(per_task, 1))]


def map_parts(executor: Executor, job: Callable[[Any], Any], parts: Sequence[Any], names: Sequence[str],
              who: str) -> list[Any]:
    """``[job(part) for part in parts]``, each as one task of ``executor``, in order.

    ``names`` says what each part is (``"directions 0-15 of 64"``) for the error of a failed task.
    """
    if isinstance(executor, ThreadPoolExecutor):
        futures = [executor.submit(job, part) for part in parts]
    else:
        payload = dumps(job, who)
        futures = [executor.submit(run_task, payload, part) for part in parts]
    results = []
    for i, future in enumerate(futures):
        try:
            results.append(future.result())
        except BaseException as e:
            for later in futures[i + 1:]:
                later.cancel()
            raise TaskError(
                "%s: task %d of %d (%s) failed in %s: %s: %s%s"
                % (who, i + 1, len(futures), names[i], type(executor).__name__, type(e).__name__, e, _hint(e))
            ) from e
    return results


def _hint(e):
    if isinstance(e, (ModuleNotFoundError, AttributeError)) and "pickle" not in str(e):
        return ("; if a worker could not import the module that defines the function, install that module "
                "on the workers or ship it by value (cloudpickle.register_pickle_by_value(module))")
    return ""


# ---- shipping ------------------------------------------------------------------------------

class _PlainPickler(pickle.Pickler):
    """Plain pickle, shipping an executor as None (a backend's executor stays with its caller)."""

    def reducer_override(self, obj):
        if isinstance(obj, Executor):
            return _none, ()
        return NotImplemented


@functools.lru_cache(maxsize=None)
def _pickler_class():
    """``(pickler class, whether it is cloudpickle's)``: cloudpickle's where it is installed,
    plain pickle's otherwise; either ships an executor as None."""
    try:
        import cloudpickle
    except ImportError:  # plain pickle: module-level functions only
        return _PlainPickler, False

    class Pickler(cloudpickle.Pickler):
        def reducer_override(self, obj):
            if isinstance(obj, Executor):
                return _none, ()
            return super().reducer_override(obj)

    return Pickler, True


def _none():
    return None


def dumps(job: Any, who: str) -> bytes:
    """``job`` pickled for a task; what cannot be pickled is a ``NotShippableError`` saying what to do."""
    pickler, cloud = _pickler_class()
    buffer = io.BytesIO()
    try:
        pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(job)
    except Exception as e:
        if not cloud:
            advice = ("install cloudpickle (pip install 'pycassette[scaleout]'), which ships lambdas, closures "
                      "and functions of __main__, or define the function at the top level of a module")
        else:
            advice = ("make what the function refers to picklable (open files, locks, sockets and generators "
                      "are not), or use a concurrent.futures.ThreadPoolExecutor, whose tasks share memory")
        raise NotShippableError(
            "%s: the function and its input must be pickled to run in another process, and this failed "
            "(%s: %s); %s" % (who, type(e).__name__, e, advice)
        ) from e
    return buffer.getvalue()


_JOBS = OrderedDict()  # digest of a payload -> its job, in the worker (the last few)
_JOBS_KEPT = 4
_JOBS_LOCK = threading.Lock()  # a Dask worker runs tasks on several threads


def run_task(payload: bytes, part: Any) -> Any:
    """One task, in a worker: the job unpickled (or found again) and run on ``part``."""
    key = hashlib.blake2b(payload, digest_size=16).digest()
    with _JOBS_LOCK:
        job = _JOBS.get(key)
        if job is not None:
            _JOBS.move_to_end(key)
    if job is None:
        job = pickle.loads(payload)
        with _JOBS_LOCK:
            _JOBS[key] = job
            while len(_JOBS) > _JOBS_KEPT:
                _JOBS.popitem(last=False)
    return job(part)
