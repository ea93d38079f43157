"""autograd's tests/test_fft.py, on ``numpy.fft``."""

import numpy as onp

from ._core import R, Suite

S = Suite("test_fft.py")
SUITES = [S]


def fft(name, **kw):
    return lambda ns: lambda x: getattr(ns.np.fft, name)(x, **kw)


def hermitian(name, spec):
    """autograd's match_complex: the inverse real transforms get a transform's output."""
    if name.startswith("ir"):
        forward = getattr(onp.fft, name[1:])
        return spec.map(forward, "%s(%s)" % (name[1:], spec.label))
    return spec


for _test, _name, _kw, _shape, _scale in [
    ("test_fft", "fft", {}, (5, 5), 1), ("test_fft_ortho", "fft", {"norm": "ortho"}, (5, 5), 1),
    ("test_fft_axis", "fft", {"axis": 0}, (5, 5), 1), ("test_ifft", "ifft", {}, (5, 5), 1),
    ("test_fft2", "fft2", {}, (5, 5), 10), ("test_ifft2", "ifft2", {}, (5, 5), 1),
    ("test_fftn", "fftn", {}, (5, 5), 10), ("test_ifftn", "ifftn", {}, (5, 5), 1),
    ("test_rfft", "rfft", {}, (4, 4), 10), ("test_rfft_ortho", "rfft", {"norm": "ortho"}, (4, 4), 10),
    ("test_rfft_axes", "rfft", {"axis": 0}, (4, 4), 10), ("test_irfft", "irfft", {}, (4, 4), 10),
    ("test_irfft_ortho", "irfft", {"norm": "ortho"}, (4, 4), 10), ("test_rfft2", "rfft2", {}, (4, 4), 10),
    ("test_irfft2", "irfft2", {}, (4, 4), 10), ("test_rfftn", "rfftn", {}, (4, 4, 4), 10),
    # autograd raises NotImplementedError for odd sizes; NumPy computes it
    ("test_rfftn_odd_not_implemented", "rfftn", {}, (5, 5, 5), 10),
    ("test_rfftn_axes", "rfftn", {"axes": (0, 2)}, (4, 4, 4), 10), ("test_irfftn", "irfftn", {}, (4, 4, 4), 10),
    ("test_fftshift", "fftshift", {}, (5, 5), 10), ("test_fftshift_even", "fftshift", {}, (4, 4), 10),
    ("test_fftshift_axes", "fftshift", {"axes": 1}, (5, 5), 10), ("test_ifftshift", "ifftshift", {}, (5, 5), 1),
    ("test_ifftshift_even", "ifftshift", {}, (4, 4), 1), ("test_ifftshift_axes", "ifftshift", {"axes": 1}, (5, 5), 1),
]:
    spec = R(*_shape) if _scale == 1 else R(*_shape) / float(_scale)
    S.check(_test, fft(_name, **_kw), hermitian(_name, spec), func="np.fft." + _name)

for _test, _name, _D, _n in [("test_fft_n_smaller", "fft", 5, -2), ("test_fft_n_bigger", "fft", 5, 2),
                             ("test_ifft_n_smaller", "ifft", 5, -2), ("test_ifft_n_bigger", "ifft", 5, 2),
                             ("test_rfft_n_smaller", "rfft", 4, -2), ("test_rfft_n_bigger", "rfft", 4, 2),
                             ("test_irfft_n_smaller", "irfft", 4, -2), ("test_irfft_n_bigger", "irfft", 4, 2)]:
    S.check(_test, (lambda name, n: lambda ns: lambda x: getattr(ns.np.fft, name)(x, n))(_name, _D + _n),
            hermitian(_name, R(_D, _D)), func="np.fft." + _name)

for _test, _name, _D in [("test_fft2_s", "fft2", 5), ("test_ifft2_s", "ifft2", 5), ("test_fftn_s", "fftn", 5),
                         ("test_ifftn_s", "ifftn", 5), ("test_rfft2_s", "rfft2", 4), ("test_irfft2_s", "irfft2", 4),
                         ("test_rfftn_s", "rfftn", 4), ("test_irfftn_s", "irfftn", 4)]:
    S.check(_test, (lambda name, D: lambda ns: lambda x: getattr(ns.np.fft, name)(x, s=[D + 2, D - 2], axes=[0, 2]))(
        _name, _D), hermitian(_name, R(_D, _D, _D) / 10.0), func="np.fft." + _name)

S.check("test_rfftn_subset", lambda ns: lambda x: ns.np.fft.rfftn(x)[(0, 1, 0), (3, 3, 2)], R(4, 4, 4) / 10.0,
        func="np.fft.rfftn")
S.check("test_irfftn_subset", lambda ns: lambda x: ns.np.fft.irfftn(x)[(0, 1, 0), (3, 3, 2)],
        hermitian("irfftn", R(4, 4, 4) / 10.0), func="np.fft.irfftn")
