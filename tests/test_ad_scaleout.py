"""Derivative passes spread over executors: a process pool, a thread pool, a Dask cluster,
and executors that fail; every result equals the one computed in this process."""

import concurrent.futures as cf
import multiprocessing
import os
import threading

import numpy as np
import pytest

import ad
from ad import scaleout


def residual(u):
    """A 1-D reaction-diffusion residual: tridiagonal Jacobian, 3 colours."""
    inner = u[:-2] - 2 * u[1:-1] + u[2:] + u[1:-1] ** 2
    return np.concatenate([[u[0] - 1.0], inner, [np.sin(u[-1])]])


def energy(u):
    return np.sum(residual(u) ** 2) + np.sum(np.exp(u) * u[::-1])


X = np.linspace(0.1, 1.3, 11)


@pytest.fixture(scope="module")
def pool():
    # spawn: workers start clean (fork after the test session started threads may deadlock)
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        yield ex


class Recording(cf.Executor):
    """Runs tasks at once in this process, as a process pool would (the payload is unpickled),
    and keeps what each task was given; ``fail`` makes that task's future fail."""

    def __init__(self, fail=None, before=None):
        self.parts, self.fail, self.before = [], fail, before

    def submit(self, fn, *args):
        self.parts.append(args[-1])
        future = cf.Future()
        if self.fail == len(self.parts):
            future.set_exception(OSError("worker lost"))
            return future
        try:
            if self.before is not None:
                self.before()
            future.set_result(fn(*args))
        except BaseException as e:
            future.set_exception(e)
        return future


def close(a, b):
    a = a.toarray() if hasattr(a, "toarray") else a
    b = b.toarray() if hasattr(b, "toarray") else b
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- the same numbers, spread -------------------------------------------------------------

def test_process_pool_dense_jacobians_and_hessians(pool):
    J = ad.jacobian(residual, X)
    H = ad.hessian(energy, X)
    close(ad.jacobian(residual, X, ad.ForwardMode(executor=pool)), J)
    close(ad.jacobian(residual, X, ad.ForwardMode(chunk=2, executor=pool)), J)
    close(ad.jacobian(residual, X, ad.ReverseMode(executor=pool)), J)
    close(ad.gradient(energy, X, ad.ForwardMode(executor=pool)), ad.gradient(energy, X))
    close(ad.hessian(energy, X, ad.ForwardMode(executor=pool)), H)
    close(ad.hessian(energy, X, ad.ReverseMode(executor=pool)), H)
    close(ad.hessian(energy, X, ad.HigherOrder(ad.ForwardMode(), ad.ReverseMode()).with_executor(pool)), H)


def test_finite_differences_spread_their_directions(pool):
    J = ad.jacobian(residual, X, ad.FiniteDifferences())
    close(ad.jacobian(residual, X, ad.FiniteDifferences(executor=pool)), J)
    close(ad.jacobian(residual, X, ad.FiniteDifferences(method="forward").with_executor(pool)),
          ad.jacobian(residual, X, ad.FiniteDifferences(method="forward")))
    ex = Recording()
    ex._max_workers = 2
    close(ad.jacobian(residual, X, ad.FiniteDifferences(executor=ex)), J)
    assert ex.parts == [("basis", 0, 6), ("basis", 6, 11)]
    assert "executor=" in repr(ad.FiniteDifferences(executor=ex))
    with pytest.raises(TypeError, match="executor"):
        ad.FiniteDifferences(executor=object())


def test_process_pool_sparse_backends(pool):
    J = ad.jacobian(residual, X)
    H = ad.hessian(energy, X)
    close(ad.jacobian(residual, X, ad.Sparse(executor=pool)), J)
    close(ad.jacobian(residual, X, ad.Sparse(ad.ReverseMode(), executor=pool)), J)
    close(ad.jacobian(residual, X, ad.Sparse(ad.ForwardMode(chunk=1, executor=pool))), J)
    close(ad.hessian(energy, X, ad.Sparse(ad.ReverseMode(), executor=pool)), H)
    close(ad.hessian(energy, X, ad.Sparse(executor=pool)), H)


def test_process_pool_ships_lambdas_and_closures(pool):
    pytest.importorskip("cloudpickle")
    scale = np.arange(11.0)
    f = lambda u: residual(u) * scale  # noqa: E731
    close(ad.jacobian(f, X, ad.ForwardMode(executor=pool)), ad.jacobian(f, X))
    close(ad.jacobian(f, X, ad.Sparse(ad.ReverseMode(), executor=pool)), ad.jacobian(f, X))


def test_list_and_number_outputs_keep_their_form(pool):
    def f(x):
        return [x[0] * x[1], np.sin(x[2])]

    x = [0.5, 2.0, 1.0]
    assert ad.jacobian(f, x, ad.ForwardMode(chunk=1, executor=pool)) == ad.jacobian(f, x)
    assert ad.jacobian(f, x, ad.ReverseMode(executor=pool)) == ad.jacobian(f, x)
    value, g = ad.value_and_gradient(lambda x: x[0] * x[1] * x[2], x, ad.ForwardMode(chunk=1, executor=pool))
    assert value == 1.0 and g == [2.0, 0.5, 1.0]


def test_thread_pool_shares_memory():
    lock = threading.Lock()  # cannot be pickled: a thread pool's tasks get the function itself

    def f(u):
        with lock:
            return residual(u)

    with cf.ThreadPoolExecutor(2) as ex:
        close(ad.jacobian(f, X, ad.ForwardMode(chunk=3, executor=ex)), ad.jacobian(residual, X))
        close(ad.jacobian(f, X, ad.ReverseMode(executor=ex)), ad.jacobian(residual, X))
        close(ad.hessian(energy, X, ad.Sparse(executor=ex)), ad.hessian(energy, X))


# ---- how the work is cut ----------------------------------------------------------------

def test_tasks_cover_the_directions_once():
    ex = Recording()
    close(ad.jacobian(residual, X, ad.ForwardMode(chunk=3, executor=ex)), ad.jacobian(residual, X))
    assert ex.parts == [("basis", 0, 3), ("basis", 3, 6), ("basis", 6, 9), ("basis", 9, 11)]
    ex = Recording()
    ex._max_workers = 4  # chunk=None: one even share per worker
    ad.jacobian(residual, X, ad.ForwardMode(executor=ex))
    assert ex.parts == [("basis", 0, 3), ("basis", 3, 6), ("basis", 6, 9), ("basis", 9, 11)]
    ex = Recording()
    ex._max_workers = 3
    close(ad.jacobian(residual, X, ad.ReverseMode(executor=ex)), ad.jacobian(residual, X))
    assert ex.parts == [("rows", 0, 3), ("rows", 1, 3), ("rows", 2, 3)]


def test_sparse_ships_one_task_per_share_of_colours():
    ex = Recording()
    ex._max_workers = 3
    close(ad.jacobian(residual, X, ad.Sparse(executor=ex)), ad.jacobian(residual, X))
    assert len(ex.parts) == 3 and sum(len(p) for p in ex.parts) == 3  # 3 colours, one each
    assert all(np.shape(p) == (1, 11) for p in ex.parts)


def test_a_single_task_runs_here():
    ex = Recording()
    v, t = ad.jvp(residual, X, np.ones(11), ad.ForwardMode(executor=ex))
    assert ex.parts == []
    close(t, ad.jacobian(residual, X) @ np.ones(11))


def test_inside_a_running_context_the_passes_stay_here():
    """Tagged values cannot leave the process: an inner derivative with an executor, taken
    inside an outer one, runs here and is exact."""
    ex = Recording()

    def g(t):
        J = ad.jacobian(lambda u: residual(u * t), X, ad.ForwardMode(chunk=2, executor=ex))
        return np.sum(J)

    h = 1e-6
    fd = (g(1.0 + h) - g(1.0 - h)) / (2 * h)
    n_plain = len(ex.parts)
    assert n_plain == 12  # the two plain calls above did spread, 6 tasks each
    d = ad.derivative(g, 1.0)
    assert len(ex.parts) == n_plain  # the differentiated one did not
    assert abs(d - fd) < 1e-5 * max(1.0, abs(fd))


# ---- failures ------------------------------------------------------------------------------

def test_a_failed_task_names_its_part_and_nothing_is_left_out():
    ex = Recording(fail=2)
    with pytest.raises(scaleout.TaskError, match=r"jacobian: task 2 of 4 \(directions 3-5 of 11\) failed in "
                                                  r"Recording: OSError: worker lost") as info:
        ad.jacobian(residual, X, ad.ForwardMode(chunk=3, executor=ex))
    assert isinstance(info.value.__cause__, OSError)
    ex = Recording(fail=1)
    ex._max_workers = 2
    with pytest.raises(scaleout.TaskError, match=r"task 1 of 2 \(seeds 0-1 of 3\)"):
        ad.jacobian(residual, X, ad.Sparse(ad.ReverseMode(), executor=ex))


def test_an_error_in_a_worker_is_reraised_with_its_task(pool):
    parent = os.getpid()

    def f(u):
        if os.getpid() != parent:
            raise ValueError("not in the parent")
        return residual(u)

    with pytest.raises(scaleout.TaskError, match=r"task 1 of 2 .*ValueError: not in the parent") as info:
        ad.jacobian(f, X, ad.ForwardMode(executor=pool))
    assert isinstance(info.value.__cause__, ValueError)


def test_a_worker_that_cannot_import_the_function(tmp_path, monkeypatch):
    import sys

    (tmp_path / "only_here.py").write_text("import numpy as np\ndef f(u):\n    return np.sin(u)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_here

    def forget():  # as a worker that lacks the module would
        sys.modules.pop("only_here", None)
        if str(tmp_path) in sys.path:
            sys.path.remove(str(tmp_path))
        scaleout._JOBS.clear()

    with pytest.raises(scaleout.TaskError, match=r"ModuleNotFoundError: No module named 'only_here'; if a worker "
                                                  r"could not import .*register_pickle_by_value"):
        ad.jacobian(only_here.f, X, ad.ForwardMode(chunk=4, executor=Recording(before=forget)))


def test_a_function_that_cannot_be_pickled():
    lock = threading.Lock()

    def f(u):
        with lock:
            return residual(u)

    with pytest.raises(scaleout.NotShippableError, match=r"jacobian: the function and its input must be "
                                                          r"pickled .*cannot pickle '_thread.lock'.*ThreadPool"):
        ad.jacobian(f, X, ad.ForwardMode(chunk=4, executor=Recording()))


def test_without_cloudpickle_the_error_says_to_install_it(monkeypatch):
    monkeypatch.setattr(scaleout, "_pickler_class", lambda: (scaleout._PlainPickler, False))
    with pytest.raises(scaleout.NotShippableError, match=r"install cloudpickle \(pip install 'pycassette\[scaleout\]'\)"):
        ad.jacobian(lambda u: residual(u), X, ad.ForwardMode(chunk=4, executor=Recording()))
    ex = Recording()  # a module-level function needs no cloudpickle
    close(ad.jacobian(residual, X, ad.ForwardMode(chunk=4, executor=ex)), ad.jacobian(residual, X))
    assert len(ex.parts) == 3


def test_not_an_executor():
    for make in (lambda: ad.ForwardMode(executor=4), lambda: ad.ReverseMode(executor="pool"),
                 lambda: ad.Sparse(executor=object())):
        with pytest.raises(TypeError, match="executor must be a concurrent.futures.Executor"):
            make()


def test_an_executor_is_never_shipped():
    import pickle

    ex = Recording()
    payload = scaleout.dumps(ad.ReverseMode(executor=ex), "test")
    assert pickle.loads(payload).executor is None
    assert ad.ReverseMode(executor=ex).executor is ex


# ---- a real Dask cluster ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_executor():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        yield client.get_executor()


def test_dask_cluster(dask_executor):
    scale = np.arange(11.0)

    def f(u):  # a closure: shipped by value
        return residual(u) * scale

    assert scaleout.workers(dask_executor) == 2
    close(ad.jacobian(f, X, ad.ForwardMode(executor=dask_executor)), ad.jacobian(f, X))
    close(ad.jacobian(f, X, ad.Sparse(ad.ReverseMode(), executor=dask_executor)), ad.jacobian(f, X))
    close(ad.hessian(energy, X, ad.Sparse(executor=dask_executor)), ad.hessian(energy, X))
