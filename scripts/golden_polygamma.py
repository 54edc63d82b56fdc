"""Record polygamma(n, x) for large orders n into
tests/golden/polygamma_large_order.json, computed with mpmath at 50 digits and
rounded to float64 (+-inf where the value overflows, 0.0 where it underflows).
Run with an interpreter that has mpmath:

    python scripts/golden_polygamma.py

psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x).  mpmath's own zeta(s, a) and nsum lose
digits for these orders (zeta(102, 1000) is off in the 9th digit), so the Hurwitz
zeta is summed here term by term at high precision until the terms are below
1e-45 of the sum (or the argument passes s + 40), then closed with 20 terms of
the Euler-Maclaurin tail.
"""
import json
import math
import pathlib

import mpmath

mpmath.mp.dps = 50
ORDERS = [101, 120, 170, 171, 200, 1000, 10**4, 10**6, 10**9]
XS = [0.5, 1.0, 1.5, 2.5, 10.0, 50.0, 123.4, 1e3, 1e6, -0.5, -1.5, -3.7, -20.25, -2.0]


def hurwitz_zeta(s, x):
    if s % 2 == 1 and x < 0 and x - math.floor(x) == 0.5:
        # (x+k)^-s for x+k = -1/2, -3/2 ... cancels +1/2, +3/2 ... exactly for odd s:
        # summing them would leave only rounding at any fixed precision
        x = 1 - x
    s, w = mpmath.mpf(s), mpmath.mpf(x)
    total = mpmath.mpf(0)
    while w < s + 40:
        term = w ** -s
        total += term
        if w > 0 and abs(term) < mpmath.mpf(10) ** -45 * abs(total):
            return total
        w += 1
    total += w ** (1 - s) / (s - 1) + w ** -s / 2
    for j in range(1, 21):
        total += (mpmath.bernoulli(2 * j) / mpmath.factorial(2 * j) * mpmath.rf(s, 2 * j - 1)
                  * w ** (1 - s - 2 * j))
    return total


def value(n, x):
    if x <= 0 and x == int(x):  # a pole: +inf for odd n, -inf for even n (SciPy, PyTorch)
        return math.inf if n % 2 else -math.inf
    v = (-1) ** (n + 1) * mpmath.factorial(n) * hurwitz_zeta(n + 1, x)
    if abs(v) > mpmath.mpf(1.7976931348623157e308):
        return math.copysign(math.inf, float(mpmath.sign(v)))
    return float(v)


def main():
    rows = [{"n": n, "x": XS, "value": [repr(value(n, x)) for x in XS]} for n in ORDERS]
    out = pathlib.Path(__file__).resolve().parent.parent / "tests/golden/polygamma_large_order.json"
    out.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")


if __name__ == "__main__":
    main()
