"""torchlike.quasirandom.SobolEngine: PyTorch's recorded answers where the
sequences must agree (dimensions 0 and 1, API behaviour, messages;
tests/golden/sobol.json, scripts/golden_sobol.py); the primitive
polynomials against a scalar reference and the known counts phi(2^d-1)/d;
the direction numbers against a scalar implementation of the recurrence;
low-discrepancy properties: every dimension's first 2^m points are a
permutation of the dyadic grid, each pair (0, j) is a (s_j - 1, m, 2)-net
(which fails for a wrong recurrence), scrambled points keep both;
fast_forward equals drawing and discarding; scrambling reproduces per
seed."""
import math

import numpy as np
import pytest

import torchlike as T
from torchlike import quasirandom as Q
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("sobol")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check(_golden, call, expected, tight=(0.0, 0.0), loose=(0.0, 0.0))


def _is_primitive(p, d):
    """Scalar reference: x has order 2^d - 1 modulo p."""
    def mulmod(a, b):
        r = 0
        while b:
            if b & 1:
                r ^= a
            b >>= 1
            a <<= 1
            if a >> d & 1:
                a ^= p
        return r
    x, k = 2 if d > 1 else 1, 1
    while x != 1:
        x, k = mulmod(x, 2), k + 1
        if k > (1 << d):
            return False
    return k == (1 << d) - 1


def _phi(n):
    result, q = n, 2
    while q * q <= n:
        if n % q == 0:
            while n % q == 0:
                n //= q
            result -= result // q
        q += 1
    return result - result // n if n > 1 else result


@pytest.mark.parametrize("d", range(1, 11))
def test_primitive_polynomials(d):
    got = Q._primitive_polynomials(d).tolist()
    want = [p for p in range((1 << d) + 1, 1 << (d + 1), 2) if _is_primitive(p, d)]
    assert got == want
    assert len(got) == _phi((1 << d) - 1) // d


def test_polynomial_counts_reach_maxdim():
    counts = [_phi((1 << d) - 1) // d for d in range(1, 19)]
    assert sum(counts) >= Q.SobolEngine.MAXDIM - 1 > sum(counts[:-1])
    assert [len(Q._primitive_polynomials(d)) for d in range(11, 15)] == counts[10:14]


def _reference_m(p, initial):
    """m_1 .. m_30 from the recurrence, one term at a time."""
    s = p.bit_length() - 1
    m = list(initial)
    for k in range(s + 1, 31):
        v = m[k - s - 1] ^ (m[k - s - 1] << s)
        for i in range(1, s):
            if (p >> (s - i)) & 1:
                v ^= m[k - i - 1] << i
        m.append(v)
    return m


def test_direction_numbers_follow_the_recurrence():
    v = Q._direction_numbers(60)
    polys = Q._polynomials(59)
    m = v >> (30 - np.arange(1, 31))
    assert np.all(m[0] == 1)
    for j in range(1, 60):
        p = int(polys[j - 1])
        s = p.bit_length() - 1
        initial = [int(x) for x in m[j, :s]]
        assert all(x % 2 == 1 and x < 2 ** (k + 1) for k, x in enumerate(initial))
        assert m[j].tolist() == _reference_m(p, initial)


def _ints(points, bits):
    return np.floor(np.asarray(points, np.float64) * 2 ** bits).astype(np.int64)


@pytest.mark.parametrize("scramble", [False, True])
def test_each_dimension_is_a_dyadic_permutation(scramble):
    e = Q.SobolEngine(300, scramble=scramble, seed=11)
    pts = e.draw_base2(10, dtype=T.float64).numpy()
    for m in (1, 4, 7, 10):
        cells = _ints(pts[:2 ** m], m)
        assert np.all(np.sort(cells, 0) == np.arange(2 ** m)[:, None])


@pytest.mark.parametrize("scramble", [False, True])
def test_pairs_with_the_first_dimension_are_nets(scramble):
    """The first 2^m points of dims (0, j) put 2^t points in every
    elementary interval of area 2^(t-m), t = deg(p_j) - 1."""
    e = Q.SobolEngine(40, scramble=scramble, seed=3)
    m = 10
    pts = e.draw_base2(m, dtype=T.float64).numpy()
    polys = Q._polynomials(39)
    for j in range(1, 40):
        t = int(polys[j - 1]).bit_length() - 2
        for a in range(0, m - t + 1):
            b = m - t - a
            cell = _ints(pts[:, 0], a) * (1 << b) + _ints(pts[:, j], b)
            counts = np.bincount(cell, minlength=1 << (a + b))
            assert np.all(counts == 2 ** t), (j, a, b)


def test_integration_error_beats_random():
    """A smooth 8-D integrand: scrambled Sobol's root-mean-square error at
    2^12 points (over 8 seeds) is far below Monte Carlo's at the same count.
    (Unscrambled points start at 0, a left-endpoint bias of about
    d 2^-(m+1) for this integrand.)"""
    f = lambda x: np.prod(1 + 0.5 * (x - 0.5), axis=1)   # noqa: E731  (exact integral 1)
    qmc = [f(Q.SobolEngine(8, scramble=True, seed=s).draw_base2(12, dtype=T.float64).numpy())
           .mean() - 1 for s in range(8)]
    mc = [f(np.random.default_rng(s).random((4096, 8))).mean() - 1 for s in range(8)]
    assert np.sqrt(np.mean(np.square(qmc))) < np.sqrt(np.mean(np.square(mc))) / 10


def test_fast_forward_equals_draw_and_discard():
    a = Q.SobolEngine(7, scramble=True, seed=5)
    b = Q.SobolEngine(7, scramble=True, seed=5)
    a.draw(37)
    b.fast_forward(20).fast_forward(17)
    np.testing.assert_array_equal(a.draw(25).numpy(), b.draw(25).numpy())
    assert a.num_generated == b.num_generated == 62
    whole = Q.SobolEngine(7).draw(40).numpy()
    parts = Q.SobolEngine(7)
    np.testing.assert_array_equal(np.concatenate([parts.draw(1).numpy(), parts.draw(0).numpy(),
                                                  parts.draw(39).numpy()]), whole)


def test_scramble_reproducible_per_seed():
    a = Q.SobolEngine(6, scramble=True, seed=123).draw(64).numpy()
    b = Q.SobolEngine(6, scramble=True, seed=123).draw(64).numpy()
    c = Q.SobolEngine(6, scramble=True, seed=124).draw(64).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a, Q.SobolEngine(6).draw(64).numpy())
    e = Q.SobolEngine(6, scramble=True, seed=9)
    first = e.draw(10).numpy()
    np.testing.assert_array_equal(e.reset().draw(10).numpy(), first)
    assert 0 <= first.min() and first.max() < 1


def test_draw_out_and_dtypes():
    e = Q.SobolEngine(3)
    out = T.empty(0)
    r = e.draw(4, out=out)
    assert r is out and out.shape == (4, 3)
    assert e.draw(2, dtype=T.float64).dtype == T.float64
    T.set_default_dtype(T.float64)
    try:
        assert Q.SobolEngine(2).draw(2).dtype == T.float64
    finally:
        T.set_default_dtype(T.float32)
