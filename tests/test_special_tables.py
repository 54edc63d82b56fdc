"""The table-driven special functions (generated/tl_special_tables.h) against
SciPy: densely over every range a table covers, and a few ulps either side
of each place where the method changes (the ends of the tables and of the
asymptotic expansions), where a wrong piece or a wrong end would show."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
import torchlike.special as S

RNG = np.random.default_rng(5)


def around(*points):
    """Each point and its neighbours up to 4 ulps either side."""
    out = []
    for p in points:
        x = np.float64(p)
        for k in range(-4, 5):
            y = x
            for _ in range(abs(k)):
                y = np.nextafter(y, np.inf if k > 0 else -np.inf)
            out.append(y)
    return np.array(out)


# name: (SciPy's function, ranges to fill densely, switch points, rtol, atol).
# J, Y and Ai oscillate: near their zeros the error is absolute (SciPy's own
# reaches 1.3e-15 on these ranges; ours stays below 1.4e-15 against mpmath).
CASES = {
    "bessel_j0": (sp.j0, [(0, 2), (2, 25), (25, 60)], [2, 25], 1e-12, 2e-15),
    "bessel_j1": (sp.j1, [(-2, 2), (2, 25), (25, 60)], [2, 25, -2, -25], 1e-12, 2e-15),
    "bessel_y0": (sp.y0, [(1e-6, 2), (2, 25), (25, 60)], [2, 25], 1e-12, 2e-15),
    "bessel_y1": (sp.y1, [(1e-6, 2), (2, 25), (25, 60)], [2, 25], 1e-12, 2e-15),
    "modified_bessel_k0": (sp.k0, [(1e-8, 2), (2, 16), (16, 700)], [2, 16], 1e-13, 0),
    "modified_bessel_k1": (sp.k1, [(1e-8, 2), (2, 16), (16, 700)], [2, 16], 1e-13, 0),
    "scaled_modified_bessel_k0": (sp.k0e, [(1e-8, 2), (2, 1e6)], [2], 1e-13, 0),
    "scaled_modified_bessel_k1": (sp.k1e, [(1e-8, 2), (2, 1e6)], [2], 1e-13, 0),
    "airy_ai": (lambda x: sp.airy(x)[0], [(-30, -11.25), (-11.25, 2), (2, 100)],
                [-11.25, 2], 1e-11, 3e-13),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dense_ranges_and_switch_points_against_scipy(name):
    ref, ranges, points, rtol, atol = CASES[name]
    x = np.concatenate([RNG.uniform(a, b, 20000) for a, b in ranges] + [around(*points)])
    got = getattr(S, name)(tl.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, ref(x), rtol=rtol, atol=atol)


def test_ndtri_dense_and_at_its_switch_points():
    p = np.concatenate([RNG.uniform(0, 1, 50000), RNG.uniform(0.05, 0.15, 20000),
                        10.0 ** -RNG.uniform(0, 320, 20000),
                        around(0.1, 0.9, 0.25, 0.75, 0.5, 1e-300, 5e-324)])
    p = p[(p > 0) & (p < 1)]
    p = np.concatenate([p, 1 - p[p < 0.5]])
    np.testing.assert_allclose(S.ndtri(tl.from_numpy(p)).numpy(), sp.ndtri(p), rtol=1e-14,
                               atol=0)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_y0", "modified_bessel_k1", "airy_ai"])
def test_float32_rounds_the_double_result_across_the_tables(name):
    ref, ranges, _, _, _ = CASES[name]
    x = np.concatenate([RNG.uniform(a, b, 5000) for a, b in ranges]).astype(np.float32)
    got = getattr(S, name)(tl.from_numpy(x)).numpy()
    assert got.dtype == np.float32
    want = ref(x.astype(np.float64))
    # the double result rounded once: within half an ulp of float32, plus the
    # double's own absolute error near the zeros of J, Y and Ai
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=6e-8, atol=1e-15)
