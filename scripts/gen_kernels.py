#!/usr/bin/env python3
"""Generate the typed CPU loops of the elementwise kernel files.

Each elementwise op has one scalar body per dtype family (integers wrap
through the unsigned type, floats and complex numbers go through <tgmath.h>),
and the CPU needs one inner loop per (op, compute dtype), each with its own
name so that it can be found with grep and stepped through in a debugger.
This script holds the bodies once, as C text over the element types, and
writes them out per dtype under src/ndcore/kernels/generated/:

  unary.inc    typed helpers, loops and the table unary_loops[]
  binary.inc   the same for binary_loops[]
  compare.inc  the same for compare_loops[]

Each .inc is included at the end of its kernel file (kernels_unary.c ...),
after the hand-written helpers it calls.  In a body, these words stand for
the dtype's types: T the compute type, U the unsigned type of T's width
(integers; T otherwise), R the real type of T (complex -> its component;
T otherwise); `$` is the dtype's name suffix (i8, f32, c64) and `$E` its
enum suffix (I8, F32, C64).  A helper named add_i8 gets the loop add_i8_loop
and the row {TL_OP_ADD, TL_DTYPE_I8, add_i8_loop}.

The output is checked in.  `gen_kernels.py --check` exits non-zero when the
checked-in files differ from what this script gives (the build runs it).
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "src", "ndcore", "kernels", "generated")

# suffix -> (enum suffix, T, U, R)
DTYPES = {
    "bool": ("BOOL", "bool", "bool", "bool"),
    "u8": ("U8", "uint8_t", "uint8_t", "uint8_t"),
    "i8": ("I8", "int8_t", "uint8_t", "int8_t"),
    "i16": ("I16", "int16_t", "uint16_t", "int16_t"),
    "i32": ("I32", "int32_t", "uint32_t", "int32_t"),
    "i64": ("I64", "int64_t", "uint64_t", "int64_t"),
    "f32": ("F32", "float", "float", "float"),
    "f64": ("F64", "double", "double", "double"),
    "c64": ("C64", "float complex", "float complex", "float"),
    "c128": ("C128", "double complex", "double complex", "double"),
}
BOOL = ["bool"]
INTS = ["u8", "i8", "i16", "i32", "i64"]
SINTS = ["i8", "i16", "i32", "i64"]
FLOATS = ["f32", "f64"]
COMPLEX = ["c64", "c128"]
REAL = BOOL + INTS + FLOATS
ALL = REAL + COMPLEX

LOOP_SIGNATURE = "(char **args, int64_t n, const int64_t *steps, void *data)"


def subst(text, sfx):
    """The template text for dtype suffix sfx."""
    e, t, u, r = DTYPES[sfx]
    text = text.replace("$E", e).replace("$", sfx)
    return re.sub(r"\b[TUR]\b", lambda m: {"T": t, "U": u, "R": r}[m.group()], text)


def block(head, body):
    """A C function: one line when the body is one short statement."""
    body = body.strip()
    if "\n" not in body and not body.endswith(";") and not body.startswith("return"):
        body = f"return {body};"
    one = f"{head} {{ {' '.join(body.splitlines())} }}"
    if "{" not in body and len(one) <= 100:
        return one + "\n"
    lines = "".join(f"  {line}\n" if line.strip() else "\n" for line in body.splitlines())
    return f"\n{head}\n{{\n{lines}}}\n\n"


class Gen:
    """The text of one .inc: helpers and loops in order, then the table."""

    def __init__(self, table):
        self.table = table
        self.code = []
        self.rows = []

    def text(self, text):
        self.code.append(text.strip("\n") + "\n")

    def comment(self, text):
        self.code.append("\n/* " + text.strip() + " */\n")

    def row(self, op, dtypes, loop="$_loop"):
        for s in dtypes:
            self.rows.append(f"    {{TL_OP_{op.upper()}, TL_DTYPE_{DTYPES[s][0]}, {subst(loop, s)}}},\n")

    def fn(self, name, dtypes, params, body, out="T", loop=None, simd=(), op=None):
        """A scalar helper name_$ per dtype; with loop "unary" or "binary"
        also its loop name_$_loop (compiled for several instruction sets for
        the dtypes in simd) and its row in the table under op (name's op by
        default)."""
        for s in dtypes:
            helper = f"{name}_{s}"
            self.code.append(block(subst(f"static inline {out} {helper}({params})", s), subst(body, s)))
            if loop:
                macro = {"unary": "TL_UNARY_LOOP", "binary": "TL_BINARY_LOOP"}[loop]
                if s in simd:
                    macro = {"unary": "TL_K_UNARY_SIMD_LOOP", "binary": "TL_K_BINARY_SIMD_LOOP"}[loop]
                self.code.append(subst(f"{macro}({helper}_loop, T, {out}, {helper})\n", s))
                self.row(op or name, [s], f"{helper}_loop")

    def unary(self, name, dtypes, body, out="T", simd=(), op=None, loop="unary"):
        self.fn(name, dtypes, "T x", body, out, loop, simd, op)

    def binary(self, name, dtypes, body, out="T", simd=(), op=None, loop="binary"):
        self.fn(name, dtypes, "T a, T b", body, out, loop, simd, op)

    def loop(self, name, dtypes, body, attr="", op=None):
        """A hand-written loop name_$_loop per dtype, with its row."""
        for s in dtypes:
            head = f"{attr + ' ' if attr else ''}static void {name}_{s}_loop{LOOP_SIGNATURE}"
            self.code.append(block(head, subst(body, s)))
        self.row(op or name, dtypes, f"{name}_$_loop")

    def render(self, source):
        head = (f"/* {self.table}: generated by scripts/gen_kernels.py from its bodies; do not edit.\n"
                f" * Included at the end of {source}. */\n")
        table = (f"\n/* The CPU loops: (op, compute dtype, loop). */\n"
                 f"static const tl_k_entry {self.table}[] = {{\n" + "".join(self.rows) + "};\n")
        return head + "".join(self.code) + table


# ---- unary ------------------------------------------------------------------------------

def unary():
    g = Gen("unary_loops")
    g.comment("neg, positive, abs, sign, sgn")
    g.unary("neg", INTS, "(T)(U)(0u - (U)x)")
    g.unary("neg", FLOATS, "-x", simd=FLOATS)
    g.unary("neg", COMPLEX, "-x")
    g.unary("positive", INTS + FLOATS + COMPLEX, "x")
    g.unary("abs", BOOL + ["u8"], "x")
    g.unary("abs", SINTS, "x < 0 ? (T)(U)(0u - (U)x) : x")
    g.unary("abs", FLOATS, "fabs(x)", simd=FLOATS)
    g.unary("abs", COMPLEX, "fabs(x)", out="R")
    g.unary("sign", BOOL, "x")
    g.unary("sign", INTS, "(T)((x > 0) - tl_k_negative(x))")
    g.unary("sign", FLOATS, "x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? (T)0 : x", simd=FLOATS)
    g.comment("sgn: sign for reals, z / |z| (0 at 0) for complex")
    g.unary("sgn", BOOL, "x")
    g.unary("sgn", INTS + FLOATS, "sign_$(x)")
    g.unary("sgn", COMPLEX, "R a = fabs(x);\nreturn a == 0 ? (T)0 : x / a;")

    g.comment("reciprocal, square, sqrt, rsqrt")
    g.unary("reciprocal", FLOATS, "(T)1 / x", simd=FLOATS)
    g.unary("reciprocal", COMPLEX, "(T)1 / x")
    g.unary("square", BOOL, "x")
    g.unary("square", INTS, "(T)(U)((U)x * (U)x)")
    g.unary("square", FLOATS, "x * x", simd=FLOATS)
    g.unary("square", COMPLEX, "x * x")

    g.comment("the libm family: float loops through libmvec (tl_vecmath.h), complex ones scalar;\n"
              " * exp in float32 is the vectorised polynomial (kernels_unary.c)")
    for op in ["sqrt", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
               "asinh", "acosh", "atanh"]:
        g.unary(op, FLOATS + COMPLEX, f"{op}(x)", simd=FLOATS)
    g.unary("exp", ["f64"] + COMPLEX, "exp(x)", simd=FLOATS)
    g.row("exp", ["f32"], "exp_f32_loop")
    for op in ["exp2", "expm1", "log2", "log10", "log1p"]:
        g.unary(op, FLOATS, f"{op}(x)", simd=FLOATS)
    g.comment("complex exp2, log2, log10; expm1 and log1p without the cancellation near z = 0")
    g.unary("exp2", COMPLEX, "exp(x * (R)tl_ln2)")
    g.unary("log2", COMPLEX, "log(x) / (R)tl_ln2")
    g.unary("log10", COMPLEX, "log(x) / (R)tl_ln10")
    g.unary("expm1", COMPLEX, """\
R re = creal(x), im = cimag(x), s = sin(im / 2);
return CMPLX(expm1(re) * cos(im) - 2 * s * s, exp(re) * sin(im));""")
    g.unary("log1p", COMPLEX, """\
R re = creal(x), im = cimag(x);
if (!isfinite(re) || !isfinite(im) || fabs(re) > 0.5 || fabs(im) > 0.5)
  return log(1 + x);
return CMPLX(log1p(re * (2 + re) + im * im) / 2, atan2(im, 1 + re));""")
    g.unary("rsqrt", FLOATS, "(T)1 / sqrt(x)", simd=FLOATS)
    g.unary("rsqrt", COMPLEX, "(T)1 / sqrt(x)")
    g.comment("sigmoid: 1 / (1 + exp(-x)) evaluated on the side that cannot overflow")
    g.row("sigmoid", ["f32"], "sigmoid_f32_loop")
    g.unary("sigmoid", ["f64"], """\
T e = exp(x < 0 ? x : -x);
return x < 0 ? e / (1 + e) : 1 / (1 + e);""", simd=["f64"])
    g.unary("sigmoid", COMPLEX, "1 / (1 + exp(-x))")

    g.comment("rounding: the float loops where vector rounding is allowed")
    for op in ["floor", "ceil", "trunc"]:
        g.unary(op, BOOL + INTS, "x")
    g.text("TL_VECMATH_BEGIN")
    for op in ["floor", "ceil", "trunc"]:
        g.unary(op, FLOATS, f"{op}(x)", simd=FLOATS)
    g.unary("frac", FLOATS, "x - trunc(x)", simd=FLOATS)
    g.text("TL_VECMATH_END")
    g.comment("round(x, decimals): as NumPy, scale by 10^|decimals| in the tensor's own\n"
              " * precision, round half to even (rint), and scale back")
    g.loop("round", FLOATS, """\
int64_t d = data ? ((const tl_op_params *)data)->i : 0;
const T f = (T)pow10_of(d < 0 ? -d : d);
for (int64_t i = 0; i < n; i++) {
  T x = *(const T *)(args[1] + i * steps[1]);
  T y = d == 0 ? rint(x) : d > 0 ? rint(x * f) / f : rint(x / f) * f;
  *(T *)(args[0] + i * steps[0]) = y;
}""")
    g.comment("Integers: unchanged for decimals >= 0; otherwise rounded to a multiple of\n"
              " * 10^-decimals, half to even, computed in double as NumPy does.  A bool is\n"
              " * its own rounding at any number of decimals.")
    g.unary("round", BOOL, "x")
    g.loop("round", INTS, """\
int64_t d = data ? ((const tl_op_params *)data)->i : 0;
const double f = pow10_of(d < 0 ? -d : 0);
for (int64_t i = 0; i < n; i++) {
  T x = *(const T *)(args[1] + i * steps[1]);
  if (d < 0) {
    double y = rint((double)x / f) * f;
    x = fabs(y) < 9.2e18 ? (T)(U)(int64_t)y : 0;
  }
  *(T *)(args[0] + i * steps[0]) = x;
}""")

    g.comment("complex parts; the angle of a real is atan2(0, x): pi for negatives and -0.0")
    g.unary("conj_physical", REAL, "x")
    g.unary("conj_physical", COMPLEX, "conj(x)")
    g.unary("angle", FLOATS, "atan2((T)0, x)")
    g.unary("angle", COMPLEX, "carg(x)", out="R")

    g.comment("predicates")
    g.unary("isnan", BOOL + INTS, "(void)x;\nreturn false;", out="bool")
    g.unary("isnan", FLOATS, "isnan(x)", out="bool", simd=FLOATS)
    g.unary("isnan", COMPLEX, "isnan(creal(x)) || isnan(cimag(x))", out="bool")
    g.unary("isinf", BOOL + INTS, "(void)x;\nreturn false;", out="bool")
    g.unary("isinf", FLOATS, "isinf(x)", out="bool", simd=FLOATS)
    g.unary("isinf", COMPLEX, "isinf(creal(x)) || isinf(cimag(x))", out="bool")
    g.unary("isfinite", BOOL + INTS, "(void)x;\nreturn true;", out="bool")
    g.unary("isfinite", FLOATS, "isfinite(x)", out="bool", simd=FLOATS)
    g.unary("isfinite", COMPLEX, "isfinite(creal(x)) && isfinite(cimag(x))", out="bool")
    g.unary("isposinf", BOOL + INTS, "(void)x;\nreturn false;", out="bool")
    g.unary("isposinf", FLOATS, "x == (T)INFINITY", out="bool", simd=FLOATS)
    g.unary("isneginf", BOOL + INTS, "(void)x;\nreturn false;", out="bool")
    g.unary("isneginf", FLOATS, "x == -(T)INFINITY", out="bool", simd=FLOATS)
    g.unary("signbit", BOOL + ["u8"], "(void)x;\nreturn false;", out="bool")
    g.unary("signbit", SINTS, "x < 0", out="bool")
    g.unary("signbit", FLOATS, "signbit(x)", out="bool", simd=FLOATS)

    g.comment("nan_to_num: one loop per memory dtype, whose largest finite value is the\n"
              " * default for the infinities")
    g.unary("nan_to_num", BOOL + INTS, "x")
    for e, t, limit in [("F16", "float", "65504.0"), ("BF16", "float", "0x1.fep127"),
                        ("F32", "float", "FLT_MAX"), ("F64", "double", "DBL_MAX")]:
        name = f"nan_to_num_{e.lower()}_loop"
        g.code.append(block(f"static void {name}{LOOP_SIGNATURE}", f"""\
nan_to_num_values v = nan_to_num_params(data, {limit});
{t} nan = ({t})v.nan, pos = ({t})v.posinf, neg = ({t})v.neginf;
for (int64_t i = 0; i < n; i++) {{
  {t} x = tl_load_{e}(args[1] + i * steps[1]);
  tl_store_{e}(args[0] + i * steps[0],
               isnan(x) ? nan : x == ({t})INFINITY ? pos : x == -({t})INFINITY ? neg : x);
}}"""))
        if e in ("F32", "F64"):
            g.row("nan_to_num", [e.lower()], name)
    for s, limit in [("c64", "FLT_MAX"), ("c128", "DBL_MAX")]:
        g.loop("nan_to_num", [s], f"""\
nan_to_num_values v = nan_to_num_params(data, {limit});
for (int64_t i = 0; i < n; i++) {{
  T z = tl_load_$E(args[1] + i * steps[1]);
  R re = (R)nan_to_num_one(creal(z), &v), im = (R)nan_to_num_one(cimag(z), &v);
  tl_store_$E(args[0] + i * steps[0], CMPLX(re, im));
}}""")

    g.comment("logical_not, bitwise_not")
    g.unary("logical_not", BOOL, "!x")
    g.unary("bitwise_not", BOOL, "!x")
    g.unary("bitwise_not", INTS, "(T)~x")
    return g


def outputs():
    return {"unary.inc": unary().render("kernels_unary.c")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="fail if the checked-in files are not what this script gives")
    ap.add_argument("--stamp", help="touch this file when the check passes (for the build)")
    args = ap.parse_args()
    stale = []
    for name, text in outputs().items():
        path = os.path.join(OUT_DIR, name)
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if args.check:
            stale.append(name)
        else:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            print(f"wrote {os.path.relpath(path, ROOT)}")
    if stale:
        sys.exit("src/ndcore/kernels/generated/ is stale (" + ", ".join(stale) +
                 "): run scripts/gen_kernels.py")
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")


if __name__ == "__main__":
    main()
