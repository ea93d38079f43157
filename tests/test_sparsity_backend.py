"""ad.Sparse: sparse Jacobians and Hessians from a detected pattern, a colouring and compressed passes."""

import numpy as np
import pytest

pytest.importorskip("scipy")
import ad  # noqa: E402
from ad.sparsity import api  # noqa: E402

RNG = np.random.default_rng(2)


def stencil(u):
    inner = u[:-2] - 2 * u[1:-1] + u[2:] + np.sin(u[1:-1]) * u[2:]
    return np.concatenate([[u[0] - 1.0], inner, [u[-1] ** 2]])


def periodic_2d(u):
    z = u.reshape(6, 5)
    return (np.roll(z, 1, 0) + np.roll(z, -1, 1) - 2 * z + z ** 3).ravel()


def rosenbrock(x):
    return np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ForwardMode(chunk=1), ad.ReverseMode()], ids=repr)
@pytest.mark.parametrize("f, n", [(stencil, 40), (periodic_2d, 30)], ids=["stencil", "periodic 2-d"])
def test_sparse_jacobian_equals_the_dense_one(backend, f, n):
    sparse = ad.Sparse(backend)
    for _ in range(2):  # the second call reuses the plan
        x = RNG.normal(size=n)
        J = ad.jacobian(f, x, backend=sparse)
        assert J.format == "csr" and J.shape == (f(x).size, n)
        assert np.allclose(J.toarray(), ad.jacobian(f, x), rtol=1e-12, atol=1e-12)
    value, J = sparse.value_and_jacobian(f, x)
    assert np.array_equal(value, f(x))
    assert sparse.plan("jacobian", f, x)[2] < n / 4  # far fewer passes than inputs


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()], ids=repr)
def test_sparse_hessian_equals_the_dense_one(backend):
    sparse = ad.Sparse(backend)
    x = RNG.normal(size=30)
    H = ad.hessian(rosenbrock, x, backend=sparse)
    assert np.allclose(H.toarray(), ad.hessian(rosenbrock, x), rtol=1e-12, atol=1e-9)
    assert (H != H.T).nnz == 0
    assert sparse.plan("hessian", rosenbrock, x)[2] == 3


def test_pattern_detected_once_per_function_and_shape(monkeypatch):
    calls = []
    detect = api.jacobian_sparsity
    monkeypatch.setattr(api, "jacobian_sparsity", lambda f, x, local: calls.append(1) or detect(f, x, local=local))
    sparse = ad.Sparse()
    for _ in range(3):
        ad.jacobian(stencil, RNG.normal(size=10), backend=sparse)
    ad.jacobian(stencil, RNG.normal(size=12), backend=sparse)
    assert len(calls) == 2
    local = ad.Sparse(local=True)
    for _ in range(2):
        ad.jacobian(stencil, RNG.normal(size=10), backend=local)
    assert len(calls) == 4


def test_given_pattern_is_used():
    x = RNG.normal(size=10)
    pattern = ad.jacobian_sparsity(stencil, x)
    sparse = ad.Sparse(jacobian_pattern=pattern.toarray())
    assert np.allclose(ad.jacobian(stencil, x, backend=sparse).toarray(), ad.jacobian(stencil, x))


def test_bad_input():
    keep = [4]

    def changing(x):  # its output's length changes between calls (a setting read from outside)
        return x[: keep[0]] * 2

    sparse = ad.Sparse()
    ad.jacobian(changing, np.ones(4), backend=sparse)
    keep[0] = 3
    with pytest.raises(ValueError, match="output changes shape"):
        ad.jacobian(changing, np.ones(4), backend=sparse)
    with pytest.raises(TypeError, match="float array"):
        ad.jacobian(lambda x: x, 1.5, backend=ad.Sparse())
    with pytest.raises(TypeError, match="dense ad backend"):
        ad.Sparse(ad.Sparse())
