#!/usr/bin/env python3
"""Generate src/ndcore/kernels/generated/tl_special_tables.h: the polynomial
tables behind the fast paths of torch.special's Bessel, Airy and ndtri
functions (tl_special_bessel.h, tl_special_normal.h).

A table covers [lo, lo + pieces * width) in equal pieces; on each piece the
function is a polynomial in t = 2 (v - mid) / width (t in [-1, 1]), stored
lowest coefficient first, so that the C side evaluates it with one Horner
loop after one multiply and one truncation to find the piece.  Each
polynomial is the Chebyshev interpolant of the function at 48 nodes,
computed with mpmath at 40 digits and converted to the monomial basis
exactly, then cut to the table's length: the smallest length at which the
dropped Chebyshev coefficients of every piece sum below 2^-60 of the piece's
largest value.  The functions tabulated are smooth on their pieces: entire
ones (J and I near 0 as polynomials in x^2), the parts left once a known
singularity is taken out (log x, 1/x), or scaled forms (e^x sqrt(x) K(x) in
1/x, Ai e^z x^1/4 in 1/z, ndtri in 1/sqrt(-2 log q)).  The asymptotic
(Hankel) coefficients used past the last piece are exact rationals.

Needs mpmath (PyTorch's Python has it; the build does not run it); the
output is checked in, and `--check` exits non-zero when it is stale."""
import os
from fractions import Fraction

import mpmath as mp

from gen_common import ROOT, generate

mp.mp.dps = 40
OUT_DIR = os.path.join(ROOT, "src", "ndcore", "kernels", "generated")
NODES = 48
TOL = 2.0 ** -60


def cheb_coeffs(f, a, b):
    """Chebyshev coefficients of f's interpolant on [a, b] at NODES nodes."""
    n = NODES
    xs = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    fs = [f(mp.mpf(a) + (x + 1) * (mp.mpf(b) - a) / 2) for x in xs]
    c = []
    for j in range(n):
        s = mp.fsum(fs[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n))
        c.append(s * 2 / n)
    c[0] /= 2
    return c


def cheb_to_monomial(c):
    """sum c_j T_j(t) as coefficients of t^k."""
    n = len(c)
    out = [mp.mpf(0)] * n
    t_prev, t_cur = [mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]  # T0, T1
    for j in range(n):
        tj = t_prev if j == 0 else t_cur
        if j >= 2:
            nxt = [mp.mpf(0)] * (j + 1)
            for k, v in enumerate(t_cur):
                nxt[k + 1] += 2 * v
            for k, v in enumerate(t_prev):
                nxt[k] -= v
            t_prev, t_cur = t_cur, nxt
            tj = t_cur
        for k, v in enumerate(tj):
            out[k] += c[j] * v
    return out


def table(name, f, lo, width, pieces, note):
    """Fit f on each piece; every piece gets the length the worst one needs."""
    cs = [cheb_coeffs(f, lo + i * width, lo + (i + 1) * width) for i in range(pieces)]
    need = 1
    for c in cs:
        scale = max(abs(v) for v in c[:4]) or mp.mpf(1)
        for n in range(1, NODES):
            if mp.fsum(abs(v) for v in c[n:]) <= TOL * scale:
                break
        need = max(need, n)
    polys = [cheb_to_monomial(c[:need]) for c in cs]
    return {"name": name, "lo": lo, "width": width, "pieces": pieces, "n": need,
            "coeffs": polys, "note": note}


def series(name, coeffs, note):
    """A fixed polynomial (exact coefficients), lowest first."""
    return {"name": name, "n": len(coeffs), "coeffs": [coeffs], "note": note, "series": True}


# ---- the functions ------------------------------------------------------------------------
two_pi = 2 / mp.pi


def sq(f):
    """f as a function of x^2 (given s = x^2 >= 0)."""
    return lambda s: f(mp.sqrt(s))


def j1_over_x(x):
    return mp.besselj(1, x) / x


def y0_entire(x):  # Y0 - 2/pi log(x/2) J0
    return mp.bessely(0, x) - two_pi * mp.log(x / 2) * mp.besselj(0, x)


def y1_entire_over_x(x):  # (Y1 + 2/(pi x) - 2/pi log(x/2) J1) / x
    return (mp.bessely(1, x) + two_pi / x - two_pi * mp.log(x / 2) * mp.besselj(1, x)) / x


def k0_entire(x):  # K0 + log(x/2) I0
    return mp.besselk(0, x) + mp.log(x / 2) * mp.besseli(0, x)


def k1_entire_over_x(x):  # (K1 - 1/x - log(x/2) I1) / x
    return (mp.besselk(1, x) - 1 / x - mp.log(x / 2) * mp.besseli(1, x)) / x


def k_scaled(nu):  # e^x sqrt(x) K_nu(x) as a function of t = 1/x
    return lambda t: mp.exp(1 / t) * mp.sqrt(1 / t) * mp.besselk(nu, 1 / t)


def airy_scaled(t):  # Ai(x) e^z x^1/4 as a function of t = 1/z, z = 2/3 x^3/2
    x = (mp.mpf(3) / (2 * t)) ** (mp.mpf(2) / 3)
    return mp.airyai(x) * mp.exp(1 / t) * mp.root(x, 4)


def ndtri_central(s):  # ndtri(1/2 + r) / r as a function of s = r^2
    r = mp.sqrt(s)
    return mp.sqrt(2) * mp.erfinv(2 * r) / r


def ndtri_tail(v):  # -ndtri(q) v for q = exp(-1/(2 v^2)), v = 1/sqrt(-2 log q)
    q = mp.exp(-1 / (2 * v * v))  # ndtri(q) by Newton on log(ndtr(x)) = log(q)
    x = -1 / v
    for _ in range(100):
        step = (mp.log(mp.erfc(-x / mp.sqrt(2)) / 2) - mp.log(q)) * \
            mp.erfc(-x / mp.sqrt(2)) / 2 / mp.npdf(x)
        x -= step
        if abs(step) < mp.mpf(10) ** -35 * abs(x):
            break
    return -x * v


def hankel(nu, x_min):
    """P and Q of the Hankel expansion of order nu in u = 1/x^2:
    P = sum (-1)^k a_2k u^k,  Q x = sum (-1)^k a_2k+1 u^k, with
    a_k = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k); kept while the term at
    x_min is above 2^-60."""
    a, ks = [Fraction(1)], 1
    while True:
        a.append(a[-1] * (4 * nu * nu - (2 * ks - 1) ** 2) / (ks * 8))
        if abs(float(a[-1])) / x_min ** ks < TOL / 16:
            break
        ks += 1
    p = [float((-1) ** k * a[2 * k]) for k in range(len(a) // 2 + 1) if 2 * k < len(a)]
    q = [float((-1) ** k * a[2 * k + 1]) for k in range(len(a) // 2 + 1) if 2 * k + 1 < len(a)]
    return p, q


def airy_asymptotic(z_min):
    """Ai(-x)'s expansion: P = sum (-1)^k u_2k z^-2k, Q = sum (-1)^k u_2k+1 z^-2k
    (Q times z), u_k = u_k-1 (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k); kept while
    the term at z_min is above 2^-60."""
    u, k = [Fraction(1)], 1
    while True:
        u.append(u[-1] * Fraction((6 * k - 5) * (6 * k - 3) * (6 * k - 1), (2 * k - 1) * 216 * k))
        if float(u[-1]) / z_min ** k < TOL / 16:
            break
        k += 1
    p = [float((-1) ** j * u[2 * j]) for j in range(len(u)) if 2 * j < len(u)]
    q = [float((-1) ** j * u[2 * j + 1]) for j in range(len(u)) if 2 * j + 1 < len(u)]
    return p, q


def build():
    t = []
    # J0, J1, Y0, Y1: x^2 in [0, 4] (x <= 2), then x in [2, 25) by pieces of 1, Hankel beyond
    t.append(table("j0_small", sq(lambda x: mp.besselj(0, x)), 0, 4, 1, "J0(x), in x^2, x <= 2"))
    t.append(table("j1_small", sq(j1_over_x), 0, 4, 1, "J1(x) / x, in x^2, x <= 2"))
    t.append(table("y0_small", sq(y0_entire), 0, 4, 1,
                   "Y0(x) - 2/pi log(x/2) J0(x), in x^2, x <= 2"))
    t.append(table("y1_small", sq(y1_entire_over_x), 0, 4, 1,
                   "(Y1(x) + 2/(pi x) - 2/pi log(x/2) J1(x)) / x, in x^2, x <= 2"))
    for nu, kind in ((0, "j0"), (1, "j1")):
        t.append(table(kind, lambda x, nu=nu: mp.besselj(nu, x), 2, 1, 23, f"J{nu}(x), 2 <= x < 25"))
    for nu, kind in ((0, "y0"), (1, "y1")):
        t.append(table(kind, lambda x, nu=nu: mp.bessely(nu, x), 2, 1, 23, f"Y{nu}(x), 2 <= x < 25"))
    for nu in (0, 1):
        p, q = hankel(nu, 25)
        t.append(series(f"hankel{nu}_p", p, f"Hankel's P for order {nu} in 1/x^2, x >= 25"))
        t.append(series(f"hankel{nu}_q", q, f"Hankel's Q x for order {nu} in 1/x^2, x >= 25"))
    # K0, K1: x^2 in [0, 4], then e^x sqrt(x) K in t = 1/x on (0, 1/2] by pieces of 1/16
    t.append(table("i0_small", sq(lambda x: mp.besseli(0, x)), 0, 4, 1, "I0(x), in x^2, x <= 2"))
    t.append(table("i1_small", sq(lambda x: mp.besseli(1, x) / x), 0, 4, 1,
                   "I1(x) / x, in x^2, x <= 2"))
    t.append(table("k0_small", sq(k0_entire), 0, 4, 1, "K0(x) + log(x/2) I0(x), in x^2, x <= 2"))
    t.append(table("k1_small", sq(k1_entire_over_x), 0, 4, 1,
                   "(K1(x) - 1/x - log(x/2) I1(x)) / x, in x^2, x <= 2"))
    for nu in (0, 1):
        t.append(table(f"k{nu}_large", k_scaled(nu), 0, mp.mpf(1) / 16, 8,
                       f"e^x sqrt(x) K{nu}(x) in t = 1/x, x >= 2"))
    # Ai: x in [-11.25, 2) by pieces of 1/4; e^z x^1/4 Ai in 1/z on (0, 9/16] (x >= 2)
    t.append(table("airy", mp.airyai, -11.25, 0.25, 53, "Ai(x), -11.25 <= x < 2"))
    t.append(table("airy_large", airy_scaled, 0, mp.mpf(1) / 16, 9,
                   "Ai(x) e^z x^1/4 in t = 1/z, z = 2/3 x^3/2, x >= 2"))
    p, q = airy_asymptotic(25)
    t.append(series("airy_neg_p", p, "Ai(-x)'s P in 1/z^2, z = 2/3 x^3/2 >= 25"))
    t.append(series("airy_neg_q", q, "Ai(-x)'s Q z in 1/z^2, z >= 25"))
    # ndtri: |p - 1/2| <= 0.4 as r g(r^2); below, h(v) = -ndtri(q) v, v = 1/sqrt(-2 log q)
    t.append(table("ndtri_central", ndtri_central, 0, 0.02, 8,
                   "ndtri(1/2 + r) / r, in r^2, |r| <= 0.4"))
    t.append(table("ndtri_tail", ndtri_tail, 0.025, 0.00625, 71,
                   "-ndtri(q) v, v = 1/sqrt(-2 log q) in [0.025, 0.46875), q < 0.1"))
    return t


def fmt(v):
    return repr(float(v))


def render(tables):
    out = ['/* tl_special_tables.h - generated by scripts/gen_special_tables.py; do not edit.',
           ' *',
           ' * Polynomial tables of the special functions (see the script for how they',
           ' * are made).  A piecewise table tl_tab_<name> has TL_TAB_<name>_PIECES',
           ' * pieces of _N coefficients on [_LO, _LO + _PIECES * _W), a polynomial in',
           ' * t = 2 (v - mid) / _W each, lowest coefficient first; a series table has one',
           ' * polynomial of _N coefficients.  Evaluated by TL_SPECIAL_PIECEWISE and',
           ' * TL_SPECIAL_SERIES (tl_special_scalar.h).                                    */',
           '#ifndef TL_SPECIAL_TABLES_H', '#define TL_SPECIAL_TABLES_H', '']
    for t in tables:
        up = t["name"]
        out.append(f'/* {t["note"]} */')
        out.append(f'#define TL_TAB_{up}_N {t["n"]}')
        if not t.get("series"):
            out.append(f'#define TL_TAB_{up}_LO {fmt(t["lo"])}')
            out.append(f'#define TL_TAB_{up}_W {fmt(t["width"])}')
            out.append(f'#define TL_TAB_{up}_PIECES {t["pieces"]}')
        count = len(t["coeffs"]) * t["n"]
        out.append(f'TL_SPECIAL_TABLE double tl_tab_{t["name"]}[{count}] = {{')
        for poly in t["coeffs"]:
            vals = [fmt(v) for v in poly]
            line = "   "
            for v in vals:
                if len(line) + len(v) + 2 > 96:
                    out.append(line)
                    line = "   "
                line += f" {v},"
            out.append(line)
        out.append('};')
        out.append('')
    out.append('#endif')
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    generate(__doc__.splitlines()[0], OUT_DIR, lambda: {"tl_special_tables.h": render(build())})
