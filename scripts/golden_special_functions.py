"""Record PyTorch's torch.special values, result dtypes, gradients and errors
for tests/test_special_functions.py.

Run with a Python that has PyTorch:  python scripts/golden_special_functions.py
Writes tests/golden/special_functions.json.  Values are float64 results at
fixed inputs chosen to cross each function's edge values (zeros, poles,
infinities, NaN, the ends of the domain, negative and non-integer orders)."""
import json
import math
import os

import torch
import torch.special as S

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "special_functions.json")
INF, NAN = math.inf, math.nan

UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "entr", "erfcx",
         "log_ndtr", "ndtr", "ndtri", "logit", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
         "scaled_modified_bessel_k1", "spherical_bessel_j0"]
UNARY_X = [0.0, -0.0, 1e-300, 1e-8, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.5, 5.0, 8.0, 12.0, 26.0,
           30.0, 100.0, 200.0, -0.25, -1.0, -2.0, -3.5, -5.0, -8.0, -12.0, -26.0, -40.0, -200.0,
           INF, -INF, NAN]
POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]
POLY_X = [0.3, -0.7, 1.0, -1.0, 0.5, 0.0, 2.0, -1.5, NAN, INF]
POLY_N = [-3.0, -1.0, -0.5, 0.0, 1.0, 2.0, 2.5, 5.0, 7.0, 9.0, 12.0, 30.0, NAN, INF]
BINARY = {
    "xlog1py": ([0.0, 0.0, 0.0, 1.0, 2.0, -1.5, NAN, 0.0, 3.0], [0.0, -1.0, -2.0, -1.0, 0.5, 3.0, 0.0, NAN, INF]),
    "zeta": ([0.5, 1.0, 2.0, 2.0, 3.0, 2.0, INF, INF, INF, 2.0, 2.0, 4.0, 2.5, 50.0, 1.5, NAN],
             [1.0, 1.0, 1.0, -1.5, -1.5, -2.0, 1.0, 0.5, 2.0, 0.0, INF, 0.3, -1.5, 1.0, 1e4, 1.0]),
    "gammainc": ([0.0, 0.0, 1.0, -1.0, 1.0, INF, 1.0, INF, 0.0, 2.0, 0.5, 3.0, 100.0, 100.0, 1e-3, 30.0],
                 [0.0, 1.0, 0.0, 1.0, -1.0, 1.0, INF, INF, INF, NAN, 0.25, 3.0, 90.0, 110.0, 5.0, 1e-3]),
}
BINARY["gammaincc"] = BINARY["gammainc"]
GRAD_UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
              "modified_bessel_k1", "entr", "erfcx", "log_ndtr", "ndtr", "ndtri"]
GRAD_X = [0.3, 0.6, 1.5, 4.5]


def values(t):
    return [None if math.isnan(v) else v for v in t.tolist()]


def t64(v):
    return torch.tensor(v, dtype=torch.float64)


def error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001  (recorded, whatever it is)
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def main():
    out = {"unary_x": [None if math.isnan(v) else v for v in UNARY_X], "unary": {},
           "poly_x": [None if math.isnan(v) else v for v in POLY_X],
           "poly_n": [None if math.isnan(v) else v for v in POLY_N], "poly": {},
           "binary_args": {k: [[None if math.isnan(v) else v for v in a] for a in args]
                           for k, args in BINARY.items()},
           "binary": {}, "dtypes": {}, "grad_x": GRAD_X, "grad": {}, "errors": {},
           "requires_grad": {}}
    for name in UNARY:
        out["unary"][name] = values(getattr(S, name)(t64(UNARY_X)))
    for name in POLYS:
        x = t64(POLY_X)[:, None]
        n = t64(POLY_N)[None, :]
        out["poly"][name] = [values(row) for row in getattr(S, name)(x, n)]
    for name, (a, b) in BINARY.items():
        out["binary"][name] = values(getattr(S, name)(t64(a), t64(b)))
    out["multigammaln"] = {str(p): values(S.multigammaln(t64([0.5, 1.0, 1.7, 2.5, 10.0]), p))
                           for p in (1, 2, 3, 5)}
    out["polygamma"] = {str(n): values(S.polygamma(n, t64([0.3, 1.0, 2.5, -1.5, 10.0])))
                        for n in (0, 1, 2, 4)}
    # result dtypes: integer and bool inputs, mixed float widths, Python scalars
    ints = torch.tensor([1, 2])
    f32 = torch.tensor([0.5, 0.25])
    cases = {"unary_int": lambda f: f(ints), "unary_bool": lambda f: f(torch.tensor([True, False])),
             "unary_f32": lambda f: f(f32)}
    for name in UNARY:
        out["dtypes"][name] = {k: str(c(getattr(S, name)).dtype).split(".")[-1]
                               for k, c in cases.items()}
    bcases = {"int_int": (ints, ints), "f32_int": (f32, ints), "int_f32": (ints, f32),
              "f32_f64": (f32, t64([1.0, 2.0])), "f32_scalar": (f32, 2), "scalar_f32": (2, f32),
              "int_float_scalar": (ints, 2.5)}
    for name in POLYS + ["xlog1py", "zeta", "gammainc", "gammaincc"]:
        row = {}
        for k, (a, b) in bcases.items():
            try:
                row[k] = str(getattr(S, name)(a, b).dtype).split(".")[-1]
            except Exception as e:  # noqa: BLE001
                row[k] = "error:" + type(e).__name__
        out["dtypes"][name] = row
    # gradients (float64) and which functions record no graph
    for name in GRAD_UNARY:
        x = t64(GRAD_X).requires_grad_()
        (g,) = torch.autograd.grad(getattr(S, name)(x).sum(), x)
        out["grad"][name] = values(g)
    a = t64([0.3, 0.7, 2.0]).requires_grad_()
    b = t64([2.0, 3.0, 0.5]).requires_grad_()
    for name in ["xlog1py", "zeta", "gammainc", "gammaincc"]:
        first = a + 1.5 if name == "zeta" else a
        y = getattr(S, name)(first, b).sum()
        out["grad"][name + ":other"] = values(torch.autograd.grad(y, b, retain_graph=True)[0])
        out["errors"][name + ":input"] = error(lambda: torch.autograd.grad(y, a, retain_graph=True))
        if out["errors"][name + ":input"] is None:
            out["grad"][name + ":input"] = values(torch.autograd.grad(y, a)[0])
    x = t64([0.3, 0.6]).requires_grad_()
    for name in UNARY + POLYS:
        y = getattr(S, name)(x) if name in UNARY else getattr(S, name)(x, 3)
        out["requires_grad"][name] = y.requires_grad
    # argument errors
    out["errors"]["mvlgamma_p0"] = error(lambda: torch.mvlgamma(t64([3.0]), 0))
    out["errors"]["mvlgamma_pfloat"] = error(lambda: torch.mvlgamma(t64([3.0]), 2.5))
    out["errors"]["polygamma_negative"] = error(lambda: torch.polygamma(-1, t64([3.0])))
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, allow_nan=True)
        f.write("\n")


if __name__ == "__main__":
    main()
