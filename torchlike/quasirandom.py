"""torch.quasirandom: SobolEngine, Sobol' low-discrepancy sequences in up to
21201 dimensions (PyTorch's API: draw, draw_base2, fast_forward, reset,
scramble=, seed=).

Construction (Bratley and Fox, ACM TOMS 659; Joe and Kuo 2003).  Dimension
j >= 1 takes the j-th primitive polynomial over GF(2), ordered by degree
then value, p = x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1; its direction
integers m_1 .. m_s are odd with m_k < 2^k, and
    m_k = 2 a_1 m_(k-1) ^ 4 a_2 m_(k-2) ^ ... ^ 2^(s-1) a_(s-1) m_(k-s+1)
          ^ 2^s m_(k-s) ^ m_(k-s)          (k > s, ^ is XOR)
gives the direction numbers v_k = m_k 2^(30-k).  Point i is the XOR of the
v_k over the set bits k of its Gray code i ^ (i >> 1), divided by 2^30
(the order PyTorch's engine produces).  Dimension 0 is van der Corput's
(all m_k = 1).

Differences from PyTorch: the primitive polynomials are computed here, at
first use (a vectorised order-of-x test, cached per degree), and the
initial direction integers m_1 .. m_s of every dimension are drawn from a
fixed hash (splitmix64 of the dimension and k), not taken from Joe and
Kuo's optimised table.  The sequence therefore equals PyTorch's in
dimensions 0 and 1 (whose numbers are forced) and differs beyond; every
dimension is still a (0, 1)-sequence in base 2 and every projection a
digital net, but two-dimensional projections of high dimensions can be
less uniform than with Joe and Kuo's numbers.  Scrambling (a random
lower-triangular linear matrix scramble and a digital shift, as
PyTorch's) draws from torchlike's generator, so a seed reproduces our
scrambled sequence but not PyTorch's."""
import functools

import numpy as np

from . import _C

__all__ = ["SobolEngine"]

_MAXBIT = 30


def _order_is_full(polys, d):
    """For integer-coded polynomials of degree d: is x of order 2^d - 1
    modulo each (i.e. is each primitive)?"""
    order = (1 << d) - 1
    if d == 1:
        return np.ones(len(polys), bool)

    def mulmod(a, b):
        out = np.zeros_like(a)
        for i in range(d):
            out ^= np.where((b >> i) & 1, a, 0)
            a = a << 1
            a = np.where((a >> d) & 1, a ^ polys, a)
        return out

    def power(e):
        result = np.ones_like(polys)
        base = np.full_like(polys, 2)          # the polynomial x
        while e:
            if e & 1:
                result = mulmod(result, base)
            base = mulmod(base, base)
            e >>= 1
        return result

    full = power(order) == 1
    n, q = order, 2
    while n > 1:
        if n % q == 0:
            full &= power(order // q) != 1
            while n % q == 0:
                n //= q
        q += 1 if q == 2 else 2
        if q * q > n and n > 1:
            full &= power(order // n) != 1
            break
    return full


@functools.lru_cache(maxsize=None)
def _primitive_polynomials(d):
    """The primitive polynomials of degree d, ascending, as integers."""
    cands = (1 << d) | np.arange(1, 1 << d, 2, dtype=np.int64)
    return cands[_order_is_full(cands, d)]


def _polynomials(count):
    """The first ``count`` primitive polynomials by degree, then value."""
    out, d = [], 1
    while sum(len(p) for p in out) < count:
        out.append(_primitive_polynomials(d))
        d += 1
    return np.concatenate(out)[:count]


def _splitmix64(x):
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15)).astype(np.uint64)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


@functools.lru_cache(maxsize=8)
def _direction_numbers(dimension):
    """(dimension, 30) int64: v[j, k - 1] = m_k 2^(30 - k)."""
    m = np.ones((dimension, _MAXBIT), np.int64)
    if dimension > 1:
        polys = _polynomials(dimension - 1)
        degree = np.floor(np.log2(polys)).astype(np.int64)
        j = np.arange(1, dimension, dtype=np.uint64)
        for k in range(1, _MAXBIT + 1):
            # initial numbers: odd, below 2^k, from the hash of (j, k)
            h = _splitmix64(j * np.uint64(64) + np.uint64(k)).astype(np.uint64)
            initial = ((h >> np.uint64(11)) % np.uint64(1 << (k - 1))).astype(np.int64) * 2 + 1
            rec = np.zeros(dimension - 1, np.int64)
            if k > 1:
                s = degree
                prev = m[1:, :k - 1]
                back = np.clip(k - s, 1, None)               # m_(k-s), index k-s-1
                rec = prev[np.arange(dimension - 1), back - 1]
                rec = rec ^ (rec << s)
                for i in range(1, int(s.max())):
                    a_i = (polys >> (s - i)) & 1
                    use = (a_i == 1) & (i < s) & (k - i >= 1)
                    mi = prev[np.arange(dimension - 1), np.clip(k - i, 1, None) - 1]
                    rec ^= np.where(use, mi << i, 0)
            m[1:, k - 1] = np.where(k <= degree, initial, rec)
    return m << (_MAXBIT - np.arange(1, _MAXBIT + 1, dtype=np.int64))


class SobolEngine:
    r"""An engine for (scrambled) Sobol' sequences of ``dimension`` in
    [1, 21201]; ``seed`` seeds the scrambling (None: a random seed).
    ``draw(n)`` returns the next n points as an (n, dimension) tensor."""

    MAXBIT = _MAXBIT
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self._v = _direction_numbers(dimension).copy()
        self._shift = np.zeros(dimension, np.int64)
        if scramble:
            self._scramble()
        self.num_generated = 0

    def _scramble(self):
        g = _C.Generator()
        if self.seed is not None:
            g.manual_seed(self.seed)
        else:
            g.seed()
        d, B = self.dimension, self.MAXBIT
        shift_bits = _C.randint(0, 2, (d, B), generator=g).numpy()
        self._shift = (shift_bits << np.arange(B)).sum(1).astype(np.int64)
        # lower-triangular unit-diagonal bit matrices, rows/columns from the
        # most significant bit: v' = L v over GF(2) keeps each net's strata
        ltm = np.tril(_C.randint(0, 2, (d, B, B), generator=g).numpy(), -1)
        ltm[:, np.arange(B), np.arange(B)] = 1
        bits = (self._v[:, :, None] >> (B - 1 - np.arange(B))) & 1     # (d, k, bit from MSB)
        new = np.einsum("drc,dkc->dkr", ltm, bits) & 1                  # (d, k, bit)
        self._v = (new << (B - 1 - np.arange(B))).sum(2).astype(np.int64)

    def _points(self, start, n):
        """(n, dimension) int64: points start .. start + n - 1."""
        i = np.arange(start, start + n, dtype=np.int64)
        gray = i ^ (i >> 1)
        x = np.broadcast_to(self._shift, (n, self.dimension)).copy()
        for k in range(self.MAXBIT):
            bit = ((gray >> k) & 1).astype(bool)
            if bit.any():
                x[bit] ^= self._v[:, k]
        return x

    def draw(self, n=1, out=None, dtype=None):
        """The next n points as an (n, dimension) tensor of ``dtype``
        (default: the default float dtype)."""
        dtype = dtype or _C.get_default_dtype()
        x = self._points(self.num_generated, n).astype(np.float64) / 2.0 ** self.MAXBIT
        result = _C.tensor(x, dtype=dtype)
        self.num_generated += n
        if out is not None:
            out.resize_(result.shape)
            out.copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points; the total drawn must stay a power of 2."""
        n = 2 ** m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError("The balance properties of Sobol' points require "
                             f"n to be a power of 2. {self.num_generated} points have been "
                             f"previously generated, then: n={self.num_generated}+2**{m}="
                             f"{total_n}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point."""
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip n points (as drawing and discarding them)."""
        self.num_generated += n
        return self

    def __repr__(self):
        fmt = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt += ["scramble=True"]
        if self.seed is not None:
            fmt += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt) + ")"
