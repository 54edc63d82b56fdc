#!/usr/bin/env python3
"""Generate the typed CPU loops of the kernel files, one named function per dtype.

Each elementwise op has one scalar body per dtype family (integers wrap
through the unsigned type, floats and complex numbers go through <tgmath.h>),
and the CPU needs one inner loop per (op, compute dtype), each with its own
name so that it can be found with grep and stepped through in a debugger.
This script holds the bodies once, as C text over the element types, and
writes them out per dtype under src/ndcore/kernels/generated/:

  unary.inc    typed helpers, loops and the table unary_loops[]
  binary.inc   the same for binary_loops[]
  compare.inc  the same for compare_loops[]
  reduce.inc   the reduction passes' loops and reduce_loops[] (kernels_reduce.c)
  cast.inc     the dtype conversion loops and cast_table[][] (tensor/cast.c)
  cuda_unary.inc, cuda_binary.inc, cuda_compare.inc
               the same bodies as CUDA device functions, a functor per helper
               and the table of (op, compute dtype, launcher) rows of
               src/gpu/elementwise_*.cu; ops whose CPU loop is written by hand
               get their CUDA rows from cuda_row/cuda_fn below

Each .inc is included at the end of its kernel file (kernels_unary.c ...),
after the hand-written helpers and loop macros it calls.  In a body, these
words stand for the dtype's types: T the compute type, U the unsigned type of T's width
(integers; T otherwise), R the real type of T (complex -> its component;
T otherwise); `$` is the dtype's name suffix (i8, f32, c64) and `$E` its
enum suffix (I8, F32, C64).  A helper named add_i8 gets the loop add_i8_loop
and the row {TL_OP_ADD, TL_DTYPE_I8, add_i8_loop}.

The output is checked in.  `gen_kernels.py --check` exits non-zero when the
checked-in files differ from what this script gives (the build runs it).
"""
import os
import re

from gen_common import ROOT, generate

OUT_DIR = os.path.join(ROOT, "src", "ndcore", "kernels", "generated")


def _dtypes():
    """suffix -> (enum suffix, T, U, R)."""
    table = {"bool": ("BOOL", "bool", "bool", "bool")}
    for bits in (8, 16, 32, 64):
        u = f"uint{bits}_t"
        table[f"u{bits}"] = (f"U{bits}", u, u, u)
        table[f"i{bits}"] = (f"I{bits}", f"int{bits}_t", u, f"int{bits}_t")
    for sfx, real in (("f32", "float"), ("f64", "double")):
        table[sfx] = (sfx.upper(), real, real, real)
        cplx = "c" + str(2 * int(sfx[1:]))
        table[cplx] = (cplx.upper(), real + " complex", real + " complex", real)
    # half and float8 types compute in float: loops that must see their own limits or bits
    for sfx in ("f16", "bf16") + FLOAT8:
        table[sfx] = (sfx.upper(), "float", "float", "float")
    return table


# The float8 formats have casts and no other loops: every op that takes them
# computes in float32 (docs/dtypes.md).
FLOAT8 = ("f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e8m0fnu")


DTYPES = _dtypes()
BOOL = ["bool"]
UINTS = ["u8", "u16", "u32", "u64"]
SINTS = ["i8", "i16", "i32", "i64"]
INTS = ["u8"] + SINTS + UINTS[1:]  # the order the tables were first written in
FLOATS = ["f32", "f64"]
COMPLEX = ["c64", "c128"]
REAL = BOOL + INTS + FLOATS
ALL = REAL + COMPLEX

LOOP_SIGNATURE = "(char **args, int64_t n, const int64_t *steps, void *data)"


def subst(text, sfx):
    """The template text for dtype suffix sfx."""
    e, t, u, r = DTYPES[sfx]
    text = text.replace("$E", e).replace("$", sfx)
    if sfx in UINTS:  # x < 0 on an unsigned type: always false, and a warning
        text = text.replace("tl_k_negative(", "tl_k_negative_u(")
    text = re.sub(r"\b[TUR]\b", lambda m: {"T": t, "U": u, "R": r}[m.group()], text)
    return re.sub(r"\((\w+)\)\(\1\)", r"(\1)", text)  # (uint8_t)(uint8_t)x where U is T


def cuda_types(text):
    """C complex types as the device spells them (src/gpu/tl_cuda_math.cuh)."""
    return text.replace("float complex", "tl_cfloat").replace("double complex", "tl_cdouble")


def block(head, body):
    """A C function: one line when the body is one short statement."""
    body = body.strip()
    if "\n" not in body and not body.endswith(";") and not body.startswith("return"):
        body = f"return {body};"
    one = f"{head} {{ {' '.join(body.splitlines())} }}"
    simple = len(body.splitlines()) <= 2 and not re.search(r"\b(if|for)\b|{", body)
    if simple and len(one) <= 100:
        return one + "\n"
    lines = "".join(f"  {line}\n" if line.strip() else "\n" for line in body.splitlines())
    return f"\n{head}\n{{\n{lines}}}\n\n"


class Gen:
    """The text of one .inc: helpers and loops in order, then the table."""

    def __init__(self, table):
        self.table = table
        self.code = []
        self.rows = []
        self.cuda_code = []
        self.cuda_rows = []

    def text(self, text):
        self.code.append(text.strip("\n") + "\n")

    def each(self, dtypes, text):
        """Any text (helpers with other signatures, loops under other names) per dtype."""
        for s in dtypes:
            self.code.append(subst(text.strip("\n"), s) + "\n")

    def comment(self, text, cpu=True):
        """A comment before what follows, in the CUDA text too (cpu=False: there only)."""
        if cpu:
            self.code.append("\n/* " + text.strip() + " */\n")
        self.cuda_code.append("\n/* " + text.strip() + " */\n")

    def row(self, op, dtypes, loop="$_loop"):
        for s in dtypes:
            self.rows.append(f"    {{TL_OP_{op.upper()}, TL_DTYPE_{DTYPES[s][0]}, {subst(loop, s)}}},\n")

    def cuda_helper(self, helper, s, params, body, out):
        """helper as a device function and as a functor (helper_f) whose sig
        is its C++ function type, for the launcher (tl_cuda_launch.cuh)."""
        out_t = cuda_types(subst(out, s))
        decl = cuda_types(subst(params, s))
        args = [p.split()[-1] for p in decl.split(",")]
        types = [p.rsplit(" ", 1)[0].strip() for p in decl.split(",")]
        self.cuda_code.append(block(f"TL_DEV {out_t} {helper}({decl})", cuda_types(subst(body, s))))
        self.cuda_code.append(f"struct {helper}_f {{\n  using sig = {out_t}({', '.join(types)});\n"
                              f"  TL_DEV {out_t} operator()({decl}) const "
                              f"{{ return {helper}({', '.join(args)}); }}\n}};\n")

    def cuda_row(self, op, dtypes, functor, nin=None):
        """op's CUDA row for each dtype: launch functor ($ and T substituted)."""
        for s in dtypes:
            f = cuda_types(subst(functor, s))
            self.cuda_rows.append(f"    {{TL_OP_{op.upper()}, TL_DTYPE_{DTYPES[s][0]}, &tl_gpu_launch<{f}>}},\n")

    def cuda_fn(self, name, dtypes, params, body, out="T"):
        """A helper with a CUDA row only: the CPU runs a hand-written loop
        (kernels_special.c, libm-free polynomials) that has no device twin."""
        for s in dtypes:
            self.cuda_helper(f"{name}_{s}", s, params, body, out)
            self.cuda_row(name, [s], f"{name}_{s}_f")

    def fn(self, name, dtypes, params, body, out="T", loop=None, simd=()):
        """A scalar helper name_$ per dtype; with loop "unary" or "binary"
        also its loop name_$_loop (compiled for several instruction sets for
        the dtypes in simd) and its row in the table under name's op.  The
        helper is also written for CUDA, with a CUDA row when it has a loop."""
        for s in dtypes:
            helper = f"{name}_{s}"
            self.code.append(block(subst(f"static inline {out} {helper}({params})", s), subst(body, s)))
            self.cuda_helper(helper, s, params, body, out)
            if loop:
                self.cuda_row(name, [s], f"{helper}_f")
            if loop:
                macro = {"unary": "TL_UNARY_LOOP", "binary": "TL_BINARY_LOOP"}[loop]
                if s in simd:
                    macro = {"unary": "TL_K_UNARY_SIMD_LOOP", "binary": "TL_K_BINARY_SIMD_LOOP"}[loop]
                self.code.append(subst(f"{macro}({helper}_loop, T, {out}, {helper})\n", s))
                self.row(name, [s], f"{helper}_loop")

    def unary(self, name, dtypes, body, out="T", simd=(), loop="unary"):
        self.fn(name, dtypes, "T x", body, out, loop, simd)

    def binary(self, name, dtypes, body, out="T", simd=(), loop="binary"):
        self.fn(name, dtypes, "T a, T b", body, out, loop, simd)

    def loop(self, name, dtypes, body, attr="", row=True):
        """A hand-written loop name_$_loop per dtype, with its row."""
        for s in dtypes:
            head = f"{attr + ' ' if attr else ''}static void {name}_{s}_loop{LOOP_SIGNATURE}"
            self.code.append(block(head, subst(body, s)))
        if row:
            self.row(name, dtypes, f"{name}_$_loop")

    def render(self, source):
        head = (f"/* {self.table}: generated by scripts/gen_kernels.py from its bodies; do not edit.\n"
                f" * Included at the end of {source}. */\n")
        if self.rows is None:
            return re.sub(r"\n{3,}", "\n\n", head + "".join(self.code))
        entry = getattr(self, "entry", "tl_k_entry")
        table = (f"\n/* The CPU loops: (op, compute dtype, loop). */\n"
                 f"static const {entry} {self.table}[] = {{\n" + "".join(self.rows) + "};\n")
        return re.sub(r"\n{3,}", "\n\n", head + "".join(self.code) + table)

    def render_cuda(self, source, table):
        head = (f"/* {table}: generated by scripts/gen_kernels.py from the bodies of\n"
                f" * {self.table}; do not edit.  Included at the end of {source}. */\n")
        rows = (f"\n/* The CUDA launchers: (op, compute dtype, launcher). */\n"
                f"extern \"C\" const tl_gpu_entry {table}[] = {{\n" + "".join(self.cuda_rows) +
                "    {0, 0, NULL},\n};\n")
        return re.sub(r"\n{3,}", "\n\n", head + "".join(self.cuda_code) + rows)


# ---- unary ------------------------------------------------------------------------------

def unary():
    g = Gen("unary_loops")
    g.comment("neg, positive, abs, sign, sgn")
    g.unary("neg", INTS, "(T)(U)(0u - (U)x)")
    g.unary("neg", FLOATS, "-x", simd=FLOATS)
    g.unary("neg", COMPLEX, "-x")
    g.unary("positive", INTS + FLOATS + COMPLEX, "x")
    g.unary("abs", BOOL + UINTS, "x")
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
    g.unary("square", INTS, "(T)(U)(1u * (U)x * (U)x)")
    g.unary("square", FLOATS, "x * x", simd=FLOATS)
    g.unary("square", COMPLEX, "x * x")

    g.comment("the libm family: float loops through libmvec (tl_vecmath.h), complex ones scalar;\n"
              " * exp in float32 is the vectorised polynomial (kernels_unary.c)")
    for op in ["sqrt", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
               "asinh", "acosh", "atanh"]:
        g.unary(op, FLOATS + COMPLEX, f"{op}(x)", simd=FLOATS)
    g.unary("exp", ["f64"] + COMPLEX, "exp(x)", simd=FLOATS)
    g.row("exp", ["f32"], "exp_f32_loop")
    g.cuda_fn("exp", ["f32"], "T x", "exp(x)")
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
    sigmoid = """\
T e = exp(x < 0 ? x : -x);
return x < 0 ? e / (1 + e) : 1 / (1 + e);"""
    g.unary("sigmoid", ["f64"], sigmoid, simd=["f64"])
    g.cuda_fn("sigmoid", ["f32"], "T x", sigmoid)
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
              " * precision, round half to even (rint), and scale back; decimals=0, the\n"
              " * common call, rounds in vector registers (libm's rint per element had\n"
              " * cost fifteen times NumPy's rint)")
    g.text("TL_VECMATH_BEGIN")
    g.each(FLOATS, "static inline T rint_$(T x) { return rint(x); }\n"
                   "TL_K_UNARY_SIMD_LOOP(rint_$_loop, T, T, rint_$)\n")
    g.text("TL_VECMATH_END")
    g.loop("round", FLOATS, """\
int64_t d = data ? ((const tl_op_params *)data)->i : 0;
if (d == 0) {
  rint_$_loop(args, n, steps, data);
  return;
}
const T f = (T)pow10_of(d < 0 ? -d : d);
for (int64_t i = 0; i < n; i++) {
  T x = *(const T *)(args[1] + i * steps[1]);
  T y = d > 0 ? rint(x * f) / f : rint(x / f) * f;
  *(T *)(args[0] + i * steps[0]) = y;
}""")
    g.comment("Integers: unchanged for decimals >= 0; otherwise rounded to a multiple of\n"
              " * 10^-decimals, half to even, computed in double as NumPy does.  A bool is\n"
              " * its own rounding at any number of decimals.")
    g.unary("round", BOOL, "x")
    round_int = """\
int64_t d = data ? ((const tl_op_params *)data)->i : 0;
const double f = pow10_of(d < 0 ? -d : 0);
for (int64_t i = 0; i < n; i++) {
  T x = *(const T *)(args[1] + i * steps[1]);
  if (d < 0) {
    double y = rint((double)x / f) * f;
    x = %s;
  }
  *(T *)(args[0] + i * steps[0]) = x;
}"""
    g.loop("round", SINTS + ["u8"], round_int % "fabs(y) < 9.2e18 ? (T)(U)(int64_t)y : 0")
    g.loop("round", UINTS[1:], round_int % "y < 0x1p64 ? (T)(uint64_t)y : 0")

    g.cuda_row("round", FLOATS, "tl_gpu_round_float<T>")
    g.cuda_row("round", INTS, "tl_gpu_round_int<T>")

    g.comment("sinc(x) = sin(pi x) / (pi x) and 1 at 0, with pi x rounded in T as PyTorch does")
    pi = "3.14159265358979323846264338327950288"
    g.unary("sinc", FLOATS, f"if (x == 0)\n  return 1;\nT px = (T){pi} * x;\nreturn sin(px) / px;")
    g.unary("sinc", COMPLEX, f"""\
if (creal(x) == 0 && cimag(x) == 0)
  return 1;
T px = (R){pi} * x;
return sin(px) / px;""")
    g.comment("cbrt: the C library's is within 1 ulp but half its double results are not\n"
              " * the nearest (NumPy's nearly always are): float32 rounds the double root,\n"
              " * float64 takes one Newton step with y^3 - x computed exactly by FMAs")
    g.unary("cbrt", ["f32"], "(T)cbrt((double)x)")
    g.unary("cbrt", ["f64"], """\
T y = cbrt(x);
if (y == 0 || !isfinite(y))
  return y;
T yy = y * y, lo = fma(y, y, -yy);
return y - (fma(yy, y, -x) + lo * y) / (3 * yy);""")
    g.comment("frexp: x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1; zeros, infinities\n"
              " * and NaN are their own mantissa with exponent 0 (C leaves that exponent\n"
              " * unspecified; NumPy and PyTorch give 0)")
    g.unary("frexp_mantissa", FLOATS, "int e;\nreturn frexp(x, &e);")
    g.unary("frexp_exponent", FLOATS, "int e = 0;\nif (isfinite(x))\n  (void)frexp(x, &e);\nreturn e;",
            out="int32_t")

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
    g.unary("signbit", BOOL + UINTS, "(void)x;\nreturn false;", out="bool")
    g.unary("signbit", SINTS, "x < 0", out="bool")
    g.unary("signbit", FLOATS, "signbit(x)", out="bool", simd=FLOATS)

    g.comment("nan_to_num: one loop per memory dtype, whose largest finite value is the\n"
              " * default for the infinities")
    g.unary("nan_to_num", BOOL + INTS, "x")
    for s, limit in [("f16", "65504.0"), ("bf16", "0x1.fep127"), ("f32", "FLT_MAX"),
                     ("f64", "DBL_MAX")]:
        g.loop("nan_to_num", [s], f"""\
nan_to_num_values v = nan_to_num_params(data, {limit});
T nan = (T)v.nan, pos = (T)v.posinf, neg = (T)v.neginf;
for (int64_t i = 0; i < n; i++) {{
  T x = tl_load_$E(args[1] + i * steps[1]);
  T y = isnan(x) ? nan : x == (T)INFINITY ? pos : x == -(T)INFINITY ? neg : x;
  tl_store_$E(args[0] + i * steps[0], y);
}}""", row=s in FLOATS)
    for s, limit in [("c64", "FLT_MAX"), ("c128", "DBL_MAX")]:
        g.loop("nan_to_num", [s], f"""\
nan_to_num_values v = nan_to_num_params(data, {limit});
for (int64_t i = 0; i < n; i++) {{
  T z = tl_load_$E(args[1] + i * steps[1]);
  R re = (R)nan_to_num_one(creal(z), &v), im = (R)nan_to_num_one(cimag(z), &v);
  tl_store_$E(args[0] + i * steps[0], CMPLX(re, im));
}}""")

    g.cuda_row("nan_to_num", FLOATS + COMPLEX, "tl_gpu_nan_to_num<T>")  # half types: src/gpu/special

    g.comment("special functions: the CPU's are hand-written (kernels_special.c,\n"
              " * kernels_bessel.c); CUDA's math library has these, in double for the\n"
              " * Bessel functions (digamma, polygamma, i0e and i1e: src/gpu/special)",
              cpu=False)
    for op in ["erf", "erfc", "erfinv", "lgamma"]:
        g.cuda_fn(op, FLOATS, "T x", f"{op}(x)")
    for op in ["i0", "i1"]:
        g.cuda_fn(op, FLOATS, "T x", f"(T)cyl_bessel_{op}((double)x)")

    g.comment("logical_not, bitwise_not")
    g.unary("logical_not", BOOL, "!x")
    g.unary("bitwise_not", BOOL, "!x")
    g.unary("bitwise_not", INTS, "(T)~x")
    return g


# ---- binary -----------------------------------------------------------------------------

def binary():
    g = Gen("binary_loops")
    g.comment("add, sub, mul, div; axpy is a + alpha * b")
    g.binary("add", BOOL, "a | b", loop=None)
    g.binary("mul", BOOL, "a & b")
    g.fn("axpy", BOOL, "T a, T alpha, T b", "a | (alpha & b)")
    for op, sign in [("add", "+"), ("sub", "-"), ("mul", "*")]:
        g.binary(op, INTS, f"(T)(U)(1u * (U)a {sign} (U)b)", loop=None if op != "mul" else "binary",
                 simd=INTS)
    g.fn("axpy", INTS, "T a, T alpha, T b", "(T)(U)((U)a + 1u * (U)alpha * (U)b)")
    g.fn("neg_alpha", INTS, "T a", "(T)(U)(0u - (U)a)")
    for op, sign in [("add", "+"), ("sub", "-")]:
        g.binary(op, FLOATS + COMPLEX, f"a {sign} b", loop=None)
    g.binary("mul", FLOATS + COMPLEX, "a * b", simd=FLOATS)
    g.binary("div", FLOATS + COMPLEX, "a / b", simd=FLOATS)
    g.fn("axpy", FLOATS + COMPLEX, "T a, T alpha, T b", "a + alpha * b")
    g.fn("neg_alpha", FLOATS + COMPLEX, "T a", "-a")
    g.comment("add/sub: the plain loop when alpha is 1, otherwise a +- alpha * b with\n"
              " * alpha converted to the compute type once per call")
    for op, dtypes, neg in [("add", ALL, ""), ("sub", INTS + FLOATS + COMPLEX, "alpha = neg_alpha_$(alpha);\n")]:
        g.each(dtypes, f"TL_K_BINARY_SIMD_LOOP({op}_plain_$_loop, T, T, {op}_$)")
        g.loop(op, dtypes, f"""\
if (alpha_is_one(data)) {{
  {op}_plain_$_loop(args, n, steps, NULL);
  return;
}}
T alpha;
tl_scalar_store(((const tl_op_params *)data)->s[0], TL_DTYPE_$E, (char *)&alpha);
{neg}for (int64_t i = 0; i < n; i++) {{
  T a = *(const T *)(args[1] + i * steps[1]);
  T b = *(const T *)(args[2] + i * steps[2]);
  *(T *)(args[0] + i * steps[0]) = axpy_$(a, alpha, b);
}}""")

    g.cuda_row("add", ALL, "tl_gpu_add<T, add_$_f, axpy_$_f>")
    g.cuda_row("sub", INTS + FLOATS + COMPLEX, "tl_gpu_sub<T, sub_$_f, axpy_$_f, neg_alpha_$_f>")

    g.comment("divisions and remainders.  Signed: b == -1 is answered without dividing\n"
              " * (INT_MIN / -1 traps on x86).  Floats: the quotient is rounded from\n"
              " * (a - fmod(a, b)) / b, which is exact up to one rounding, so floor_divide\n"
              " * and remainder satisfy a = q * b + r.")
    g.binary("trunc_divide", UINTS, "b ? (T)(a / b) : 0")
    g.binary("floor_divide", UINTS, "b ? (T)(a / b) : 0", loop=None)
    g.binary("remainder", UINTS, "b ? (T)(a % b) : 0", loop=None)
    g.binary("fmod", UINTS, "b ? (T)(a % b) : 0")
    g.binary("trunc_divide", SINTS, "b == 0 ? 0 : b == -1 ? (T)(U)(0u - (U)a) : (T)(a / b)")
    g.binary("floor_divide", SINTS, """\
if (b == 0 || b == -1)
  return trunc_divide_$(a, b);
T q = (T)(a / b);
return (a % b != 0 && (a < 0) != (b < 0)) ? (T)(q - 1) : q;""", loop=None)
    g.binary("remainder", SINTS, """\
if (b == 0 || b == -1)
  return 0;
T r = (T)(a % b);
return (r != 0 && (r < 0) != (b < 0)) ? (T)(r + b) : r;""", loop=None)
    g.code.append("\n/* a // b and a % b by one positive integer b for the whole loop (a\n"
                  " * Python number, or a broadcast divisor): a multiply-high instead of a\n"
                  " * divide (tl_intdiv.h), the remainder as a - q * b in wrapping arithmetic.\n"
                  " * The CUDA kernels keep the divide. */\n")
    for op, result in [("floor_divide", "q"), ("remainder", "(T)((U)a - (U)q * (U)b)")]:
        g.cuda_row(op, UINTS + SINTS, f"{op}_$_f")
        for dtypes, bits, quotient in [
                (["u64"], 64, "tl_udiv64_do((uint64_t)a, m)"),
                (["i64"], 64, "tl_floordiv64_do((int64_t)a, m)"),
                ([u for u in UINTS if u != "u64"], 32, "tl_udiv32_do((uint32_t)a, m)"),
                ([i for i in SINTS if i != "i64"], 32, "tl_floordiv32_do((int32_t)a, m)")]:
            g.each(dtypes, f"TL_BINARY_LOOP({op}_each_$_loop, T, T, {op}_$)")
            if bits == 64:  # no vector 64-bit multiply-high: intdiv_simd.c builds one
                signed = "true" if dtypes == ["i64"] else "false"
                remainder = "true" if op == "remainder" else "false"
                contiguous = (f"  tl_intdiv64_line((uint64_t *)args[0], (const uint64_t *)args[1], n, "
                              f"(uint64_t)b, {signed}, {remainder});")
            else:  # the compiler vectorises the 32-bit forms
                contiguous = f"""\
  T *o = (T *)args[0];
  const T *x = (const T *)args[1];
  for (int64_t i = 0; i < n; i++) {{
    const T a = x[i];
    const T q = (T){quotient};
    o[i] = {result};
  }}"""
            g.loop(op, dtypes, f"""\
const T b = *(const T *)args[2];
if (steps[2] != 0 || !(b > 0) || n < 8) {{
  {op}_each_$_loop(args, n, steps, data);
  return;
}}
const tl_udiv{bits} m = tl_udiv{bits}_new((uint{bits}_t)b);
if (steps[0] == sizeof(T) && steps[1] == sizeof(T)) {{
{contiguous}
  return;
}}
for (int64_t i = 0; i < n; i++) {{
  const T a = *(const T *)(args[1] + i * steps[1]);
  const T q = (T){quotient};
  *(T *)(args[0] + i * steps[0]) = {result};
}}""", attr="TL_SIMD_CLONES")
    g.binary("fmod", SINTS, "b == 0 || b == -1 ? 0 : (T)(a % b)")
    g.binary("trunc_divide", FLOATS, "trunc(a / b)")
    g.binary("floor_divide", FLOATS, """\
if (b == 0)
  return a / b;
T mod = fmod(a, b);
T div = (a - mod) / b;
if (mod != 0 && (b < 0) != (mod < 0))
  div -= 1;
if (div == 0)
  return copysign((T)0, a / b);
T q = floor(div);
return div - q > (T)0.5 ? q + 1 : q;""")
    g.binary("remainder", FLOATS, """\
T mod = fmod(a, b);
if (b == 0)
  return mod;
if (mod == 0)
  return copysign((T)0, b);
return (b < 0) != (mod < 0) ? mod + b : mod;""")
    g.binary("fmod", FLOATS, "fmod(a, b)")

    g.comment("powers.  Negative integer exponents are refused before the loop (op.c) and\n"
              " * answered without looping anyway.  Complex: small integer exponents by\n"
              " * repeated squaring (exact where cpow's exp(b log a) is not, and defined at\n"
              " * a = 0), the rest through cpow.")
    g.binary("pow", BOOL, "b ? a : true")
    g.binary("pow", INTS, """\
if (tl_k_negative(b))
  return a == 1 ? 1 : 0;
U result = 1, base = (U)a;
for (uint64_t e = (uint64_t)b; e; e >>= 1) {
  if (e & 1)
    result = (U)(1u * result * base);
  base = (U)(1u * base * base);
}
return (T)result;""")
    g.binary("pow", FLOATS, "pow(a, b)", simd=FLOATS)
    g.binary("pow", COMPLEX, """\
R br = creal(b), bi = cimag(b);
if (bi == 0 && br == trunc(br) && fabs(br) <= 1024) {
  long e = (long)fabs(br);
  T result = 1, base = a;
  for (; e; e >>= 1) {
    if (e & 1)
      result *= base;
    base *= base;
  }
  return br < 0 ? 1 / result : result;
}
if (a == 0 && bi == 0 && br > 0)
  return 0;
return pow(a, b);""")
    g.binary("float_power", ["f64", "c128"], "pow_$(a, b)")

    g.comment("two-argument float functions")
    for op in ["atan2", "hypot", "copysign"]:
        g.binary(op, FLOATS, f"{op}(a, b)", simd=FLOATS)
    g.binary("nextafter", FLOATS, "nextafter(a, b)")
    g.comment("nextafter in half precision steps through the 16-bit patterns themselves:\n"
              " * the float32 loop would step by a float32 ulp and round straight back")
    g.loop("nextafter", ["f16", "bf16"], """\
(void)data;
for (int64_t i = 0; i < n; i++) {
  uint16_t a, b, r;
  memcpy(&a, args[1] + i * steps[1], 2);
  memcpy(&b, args[2] + i * steps[2], 2);
  r = tl_next16(a, b, tl_load_$E((char *)&a), tl_load_$E((char *)&b));
  memcpy(args[0] + i * steps[0], &r, 2);
}""", row=False)  # their CUDA rows: src/gpu/special
    g.comment("log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities give themselves")
    g.binary("logaddexp", FLOATS, """\
if (a == b)
  return a + (T)0.693147180559945309417232121458176568;
T d = a - b;
return d > 0 ? a + log1p(exp(-d)) : d <= 0 ? b + log1p(exp(d)) : d;""")
    g.binary("logaddexp2", FLOATS, """\
const T inv_ln2 = (T)1.44269504088896340735992468100189214;
if (a == b)
  return a + 1;
T d = a - b;
return d > 0 ? a + log1p(exp2(-d)) * inv_ln2 : d <= 0 ? b + log1p(exp2(d)) * inv_ln2 : d;""")
    g.comment("ldexp(x, e) = x * 2^e: an integral e scales a finite nonzero x exactly\n"
              " * (ldexp(5e-324, 1074) is 1, where 2^1074 overflows), as PyTorch's integer\n"
              " * exponents do; the rest is x * exp2(e), as its float exponents (0 * 2^inf\n"
              " * is NaN)")
    g.binary("ldexp", FLOATS, """\
if (b == trunc(b) && isfinite(a) && a != 0)
  return ldexp(a, (int)fmax(fmin(b, (T)1e5), (T)-1e5));
return a * exp2(b);""")
    g.comment("gcd by Euclid on the magnitudes in the unsigned type, as NumPy (so\n"
              " * gcd(INT_MIN, 6) is 2, and gcd(INT_MIN, 0) wraps to INT_MIN); lcm is\n"
              " * |a / gcd * b| computed as C computes it (exactly in int for the narrow\n"
              " * types, then wrapped; wrapping in T for the wide ones), 0 when both are 0:\n"
              " * PyTorch's lcm (torchlike.numpy.lcm wraps NumPy's way past the range)")
    mag = "tl_k_negative({0}) ? (U)(0u - (U){0}) : (U){0}"
    g.binary("gcd", INTS, f"""\
U x = {mag.format("a")}, y = {mag.format("b")};
while (x != 0) {{
  U r = (U)(y % x);
  y = x;
  x = r;
}}
return (T)y;""")
    g.binary("lcm", INTS, """\
T g = gcd_$(a, b);
if (g == 0)
  return 0;
if (sizeof(T) < sizeof(int)) { /* C's int holds the product: |.| before the wrap */
  int64_t w = (int64_t)(a / g) * b;
  return (T)(U)(uint64_t)(w < 0 ? -w : w);
}
T m = (T)(U)(1u * (U)(T)(a / g) * (U)b);
return tl_k_negative(m) ? (T)(U)(0u - (U)m) : m;""")
    g.comment("heaviside(x, v): 0 below 0, 1 above, v at 0 (either sign); NaN stays NaN,\n"
              " * as in NumPy (PyTorch gives 0 there)")
    g.binary("heaviside", BOOL, "a ? true : b")
    g.binary("heaviside", INTS, "a == 0 ? b : (T)(a > 0)")
    g.binary("heaviside", FLOATS, "isnan(a) ? a : a == 0 ? b : (T)(a > 0)")
    g.comment("x * log(y), 0 where x == 0 unless y is NaN")
    g.binary("xlogy", FLOATS, """\
if (isnan(b))
  return b;
return a == 0 ? 0 : a * log(b);""")
    return g


# ---- compare ----------------------------------------------------------------------------

def compare():
    g = Gen("compare_loops")
    g.comment("minimum, maximum (a NaN on either side is the answer, the first one when\n"
              " * both are), fmin, fmax (NaN-ignoring: the other operand).  Of two equal\n"
              " * operands (0.0 and -0.0) fmin and fmax give the first, as PyTorch's CPU\n"
              " * kernels do (C's fmin/fmax may give either); bfloat16's fmin/fmax are\n"
              " * kernels_compare.c's.  float32/float64 minimum and maximum give either\n"
              " * operand of a tie, and one of two NaNs, by the element's place in its run,\n"
              " * as PyTorch's vector loop and its scalar remainder do (extrema_vector_count\n"
              " * in kernels_compare.c); the plain helper is CUDA's")
    for op, cmp in [("minimum", "<"), ("maximum", ">")]:
        g.binary(op, BOOL + INTS, f"a {cmp} b ? a : b")
        # the plain rule (TL_OP_EXTREMA_PLAIN, and CUDA's)
        g.binary(op, FLOATS, f"(a {cmp}= b || isnan(a)) ? a : b", loop=None)
        g.cuda_row(op, FLOATS, f"{op}_$_f")
        # PyTorch's vector loop (max_ps/min_ps: the second of a tie, a NaN of
        # all one bits) and its scalar remainder (std::max/min: the first of a
        # tie, the default quiet NaN)
        tail = "a < b ? b : a" if op == "maximum" else "b < a ? b : a"
        g.each(FLOATS, f"static inline T {op}_vec_$(T a, T b) "
                       f"{{ return isnan(a) || isnan(b) ? nan_ones_$() : a {cmp} b ? a : b; }}")
        g.each(FLOATS, f"static inline T {op}_tail_$(T a, T b) "
                       f"{{ return isnan(a) || isnan(b) ? (T)NAN : {tail}; }}")
        g.loop(op, FLOATS, f"""\
const tl_op_params *p = data;
if (p && p->i == TL_OP_EXTREMA_PLAIN) {{
  for (int64_t i = 0; i < n; i++)
    *(T *)(args[0] + i * steps[0]) =
        {op}_$(*(const T *)(args[1] + i * steps[1]), *(const T *)(args[2] + i * steps[2]));
  return;
}}
T *o = (T *)args[0];
const T *a = (const T *)args[1], *b = (const T *)args[2];
int64_t nv = extrema_vector_count(n, steps, sizeof(T));
if (nv && steps[1] && steps[2])
  for (int64_t i = 0; i < nv; i++)
    o[i] = {op}_vec_$(a[i], b[i]);
else if (nv && steps[1])
  for (int64_t i = 0; i < nv; i++)
    o[i] = {op}_vec_$(a[i], *b);
else if (nv)
  for (int64_t i = 0; i < nv; i++)
    o[i] = {op}_vec_$(*a, b[i]);
for (int64_t i = nv; i < n; i++)
  *(T *)(args[0] + i * steps[0]) =
      {op}_tail_$(*(const T *)(args[1] + i * steps[1]), *(const T *)(args[2] + i * steps[2]));""",
               attr="TL_SIMD_CLONES")
    for op, cmp in [("fmin", "<"), ("fmax", ">")]:
        g.binary(op, BOOL + INTS, f"a {cmp} b ? a : b")
        g.binary(op, FLOATS, f"(a {cmp}= b || isnan(b)) ? a : b", simd=FLOATS)

    g.comment("comparisons")
    for op, cmp in [("eq", "=="), ("ne", "!=")]:
        g.binary(op, ALL, f"a {cmp} b", out="bool", simd=FLOATS)
    for op, cmp in [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")]:
        g.binary(op, REAL, f"a {cmp} b", out="bool", simd=FLOATS)

    g.comment("logical and bitwise.  Shifts by a negative amount or by >= the width give 0,\n"
              " * or -1 for a negative value shifted right, as in NumPy ((uint64_t)b turns a\n"
              " * negative amount into a huge one); left shifts run in the unsigned type.\n"
              " * bool shifts as a one-bit integer: True << 1 is nonzero, True >> 1 is not.")
    for op, sign in [("and", "&"), ("or", "|"), ("xor", "^")]:
        g.binary(f"logical_{op}", BOOL, f"a {sign} b")
    for op, sign in [("and", "&"), ("or", "|"), ("xor", "^")]:
        g.binary(f"bitwise_{op}", BOOL + INTS, f"(T)(a {sign} b)")
    g.binary("bitwise_left_shift", INTS, "(uint64_t)b < sizeof(T) * 8 ? (T)(U)((U)a << b) : 0")
    g.binary("bitwise_left_shift", BOOL, "(void)b;\nreturn a;")
    g.binary("bitwise_right_shift", INTS,
             "(uint64_t)b < sizeof(T) * 8 ? (T)(a >> b) : tl_k_negative(a) ? (T)-1 : 0")
    g.binary("bitwise_right_shift", BOOL, "a & !b")

    g.comment("where(cond, a, b) moves bytes: one loop per element size serves every dtype.\n"
              " * Contiguous output and condition with each value side contiguous or a\n"
              " * broadcast scalar (where(mask, x, 0.0)) is the common case: a branch-free\n"
              " * select the compiler vectorises.")
    for size, t in [(1, "uint8_t"), (2, "uint16_t"), (4, "uint32_t"), (8, "uint64_t"), (16, "where16_t")]:
        g.code.append(block(f"TL_SIMD_CLONES static void where_{size}_loop{LOOP_SIGNATURE}", f"""\
(void)data;
if (steps[0] == sizeof({t}) && steps[1] == 1 &&
    (steps[2] == sizeof({t}) || !steps[2]) &&
    (steps[3] == sizeof({t}) || !steps[3])) {{
  {t} *o = ({t} *)args[0];
  const uint8_t *c = (const uint8_t *)args[1];
  const {t} *a = (const {t} *)args[2], *b = (const {t} *)args[3];
  const int64_t ia = steps[2] ? 1 : 0, ib = steps[3] ? 1 : 0;
  if (ia && ib)
    for (int64_t i = 0; i < n; i++)
      o[i] = c[i] ? a[i] : b[i];
  else if (ia)
    for (int64_t i = 0; i < n; i++)
      o[i] = c[i] ? a[i] : b[0];
  else if (ib)
    for (int64_t i = 0; i < n; i++)
      o[i] = c[i] ? a[0] : b[i];
  else
    for (int64_t i = 0; i < n; i++)
      o[i] = c[i] ? a[0] : b[0];
  return;
}}
for (int64_t i = 0; i < n; i++) {{
  bool c = *(const bool *)(args[1] + i * steps[1]);
  *({t} *)(args[0] + i * steps[0]) =
      *(const {t} *)(args[c ? 2 : 3] + i * steps[c ? 2 : 3]);
}}"""))

    for s in ALL + ["f16", "bf16"]:
        g.cuda_row("where", [s], "tl_gpu_where<uint16_t>" if s in ("f16", "bf16") else "tl_gpu_where<T>")

    g.comment("clamp(x, min, max): params i has bit 0 set when lo is given, bit 1 when hi is\n"
              " * (an absent bound's operand is x itself and is not read).  lo is applied\n"
              " * first, so lo > hi gives hi everywhere, as in PyTorch; NaN in x or in a\n"
              " * bound propagates.")
    g.fn("clamp_lo", BOOL + INTS, "T x, T lo", "x < lo ? lo : x")
    g.fn("clamp_hi", BOOL + INTS, "T x, T hi", "x > hi ? hi : x")
    g.fn("clamp_lo", FLOATS, "T x, T lo", "(x < lo || isnan(lo)) ? lo : x")
    g.fn("clamp_hi", FLOATS, "T x, T hi", "(x > hi || isnan(hi)) ? hi : x")
    g.loop("clamp", REAL, """\
int64_t which = data ? ((const tl_op_params *)data)->i : 3;
bool has_lo = which & 1, has_hi = which & 2;
if (steps[0] == sizeof(T) && steps[1] == sizeof(T) && (!has_lo || !steps[2]) &&
    (!has_hi || !steps[3])) {
  /* contiguous x, scalar bounds: the common case, vectorised */
  T *o = (T *)args[0];
  const T *x = (const T *)args[1];
  const T lo = *(const T *)args[2], hi = *(const T *)args[3];
  if (has_lo && has_hi)
    for (int64_t i = 0; i < n; i++)
      o[i] = clamp_hi_$(clamp_lo_$(x[i], lo), hi);
  else if (has_lo)
    for (int64_t i = 0; i < n; i++)
      o[i] = clamp_lo_$(x[i], lo);
  else
    for (int64_t i = 0; i < n; i++)
      o[i] = clamp_hi_$(x[i], hi);
  return;
}
for (int64_t i = 0; i < n; i++) {
  T x = *(const T *)(args[1] + i * steps[1]);
  if (has_lo)
    x = clamp_lo_$(x, *(const T *)(args[2] + i * steps[2]));
  if (has_hi)
    x = clamp_hi_$(x, *(const T *)(args[3] + i * steps[3]));
  *(T *)(args[0] + i * steps[0]) = x;
}""", attr="TL_SIMD_CLONES")
    g.cuda_row("clamp", REAL, "tl_gpu_clamp<T, clamp_lo_$_f, clamp_hi_$_f>")
    return g


# ---- reduce -----------------------------------------------------------------------------

def reduce():
    """The reduction passes' loops (kernels_reduce.c): name_$ with its row helper
    name_$_row, from TL_REDUCE_LOOP and a step and merge of kernels_reduce.c."""
    g = Gen("reduce_loops")
    rows = []

    def loops(kind, name, types, has_aux, ident, step, merge, suffix=""):
        """types: suffix -> (input, accumulator, aux) C types; ident, step and
        merge may be dicts by suffix."""
        for s, (ti, ta, tx) in types.items():
            pick = lambda v: v[s] if isinstance(v, dict) else v  # noqa: E731
            loop = f"{name}_{s}{suffix}"
            g.code.append(f"TL_REDUCE_LOOP({loop}, {loop}_row, {ti}, {ta}, {tx}, {has_aux}, "
                          f"{pick(ident)}, {pick(step)}, {pick(merge)})\n")
            if not suffix:
                rows.append((kind, s, loop))

    i64 = {"i64": ("int64_t", "int64_t", "int64_t")}
    real_d = {s: (DTYPES[s][1], "double", "double") for s in FLOATS}
    cplx_d = {"c64": ("cfloat", "cdouble", "cdouble"), "c128": ("cdouble", "cdouble", "cdouble")}
    g.comment("sums and products: integers wrap in int64, floats sum in double")
    loops("SUM", "sum", i64, 0, "0", "S_IADD", "TL_IADD")
    loops("SUM", "sum", {**real_d, **cplx_d}, 0, "0.0", "S_ADD", "TL_ADD")
    loops("NANSUM", "nansum", real_d, 0, "0.0", "S_NANADD", "TL_ADD")
    loops("PROD", "prod", i64, 0, "1", "S_IMUL", "TL_IMUL")
    loops("PROD", "prod", {**real_d, **cplx_d}, 0, "1.0", "S_MUL", "TL_MUL")

    g.comment("max and min: the float loops' strided and accumulating cases (the\n"
              " * contiguous row goes through vector code, TL_EXTREME_LOOP)")
    same = lambda dtypes: {s: (DTYPES[s][1],) * 3 for s in dtypes}  # noqa: E731
    limits = {"u8": ("0", "UINT8_MAX"), "u16": ("0", "UINT16_MAX"), "u32": ("0", "UINT32_MAX"),
              "u64": ("0", "UINT64_MAX"), "i8": ("INT8_MIN", "INT8_MAX"),
              "i16": ("INT16_MIN", "INT16_MAX"), "i32": ("INT32_MIN", "INT32_MAX"),
              "i64": ("INT64_MIN", "INT64_MAX")}
    loops("MAX", "max", same(BOOL), 0, "false", "S_OR", "TL_OR")
    loops("MAX", "max", same(INTS), 0, {s: lo for s, (lo, hi) in limits.items()}, "S_MAXINT", "TL_MAXINT")
    loops("MAX", "max", same(FLOATS), 0, "-INFINITY", "S_MAXNAN", "TL_MAXNAN", suffix="_generic")
    loops("MIN", "min", same(BOOL), 0, "true", "S_AND", "TL_AND")
    loops("MIN", "min", same(INTS), 0, {s: hi for s, (lo, hi) in limits.items()}, "S_MININT", "TL_MININT")
    loops("MIN", "min", same(FLOATS), 0, "INFINITY", "S_MINNAN", "TL_MINNAN", suffix="_generic")
    for s, vf, vi in [("f32", "tl_vf32", "tl_vi32"), ("f64", "tl_vf64", "tl_vi64")]:
        for kind, name, cmp in [("MAX", "max", ">"), ("MIN", "min", "<")]:
            loop = f"{name}_{s}"
            g.code.append(f"TL_EXTREME_LOOP({loop}, {loop}_row, {loop}_generic, {DTYPES[s][1]}, "
                          f"{vf}, {vi}, {cmp})\n")
            rows.append((kind, s, loop))

    g.comment("all, any and the counts read any real dtype directly: x != 0 (NaN is true)")
    loops("ALL", "all", {"bool": ("bool", "bool", "bool")}, 0, "true", "S_AND", "TL_AND")
    loops("ANY", "any", {"bool": ("bool", "bool", "bool")}, 0, "false", "S_OR", "TL_OR")
    loops("COUNT", "count", {"bool": ("bool", "int64_t", "int64_t")}, 0, "0", "S_COUNT", "TL_ADD")
    nonbool = INTS + FLOATS
    to = lambda acc: {s: (DTYPES[s][1], acc, acc) for s in nonbool}  # noqa: E731
    loops("ALL", "all", to("bool"), 0, "true", "S_ALLNZ", "TL_AND")
    loops("ANY", "any", to("bool"), 0, "false", "S_ANYNZ", "TL_OR")
    loops("COUNT", "count", to("int64_t"), 0, "0", "S_COUNTNZ", "TL_ADD")
    loops("COUNT_ZERO", "countz", to("int64_t"), 0, "0", "S_COUNTZ", "TL_ADD")
    loops("COUNT_NOTNAN", "notnan", {s: (DTYPES[s][1], "int64_t", "int64_t") for s in FLOATS}, 0, "0",
          "S_NOTNAN", "TL_ADD")

    g.comment("var's squared deviations and logsumexp's exponentials, around aux")
    loops("SQDEV", "sqdev", real_d, 1, "0.0", "S_SQDEV", "TL_ADD")
    loops("SQDEV", "sqdev", {"c64": ("cfloat", "double", "cdouble"), "c128": ("cdouble", "double", "cdouble")},
          1, "0.0", "S_SQDEV_C", "TL_ADD")
    loops("EXPSUM", "expsum", real_d, 1, "0.0", {"f32": "S_EXPSUMF", "f64": "S_EXPSUM"}, "TL_ADD")

    g.comment("norm passes, all accumulating in double")
    norm_d = {**real_d, "c64": ("cfloat", "double", "double"), "c128": ("cdouble", "double", "double")}
    cx = lambda step: {s: step + ("_C" if s in COMPLEX else "") for s in norm_d}  # noqa: E731
    loops("ABSSUM", "abssum", norm_d, 0, "0.0", cx("S_ABSSUM"), "TL_ADD")
    loops("SQSUM", "sqsum", norm_d, 0, "0.0", cx("S_SQSUM"), "TL_ADD")
    loops("ABSMAX", "absmax", norm_d, 0, "0.0", cx("S_ABSMAX"), "TL_MAXNAN")
    loops("ABSMIN", "absmin", norm_d, 0, "INFINITY", cx("S_ABSMIN"), "TL_MINNAN")
    loops("NONZERO", "nonzero", norm_d, 0, "0.0", "S_NONZERO", "TL_ADD")
    loops("POWSUM", "powsum", norm_d, 0, "0.0", cx("S_POWSUM"), "TL_ADD")

    g.rows = [f"    {{TL_RK_{kind}, TL_DTYPE_{DTYPES[s][0]}, {loop}}},\n" for kind, s, loop in rows]
    g.entry = "tl_reduce_entry"
    return g


# ---- cast -------------------------------------------------------------------------------

def cast():
    """Every (from, to) pair's conversion loop (cast.c), from TL_CAST_LOOP.

    A float8 dtype has its own loops to and from float32 only (and a byte
    move to itself); its other pairs go through float32 in two of those
    loops (TL_CAST_STAGED), which is what PyTorch's casts compute too: a
    double is rounded to float before float8, and every float8 value is a
    float.  That keeps the table whole at 15 more loops, not 175."""
    g = Gen("cast_table")
    order = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "c64", "c128",
             "u16", "u32", "u64", *FLOAT8]
    size = {"bool": 1, "u8": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
            "f32": 4, "f64": 8, "c64": 8, "c128": 16, "u16": 2, "u32": 4, "u64": 8,
            **{f8: 1 for f8 in FLOAT8}}
    staged = []
    for f in order:
        for t in order:
            e_f, e_t, ct = DTYPES[f][0], DTYPES[t][0], DTYPES[t][1]
            if f == t and f in FLOAT8:  # the bits as they are, NaN payloads too
                e_f, e_t, ct = "U8", "U8", "uint8_t"
            elif (f in FLOAT8 or t in FLOAT8) and "f32" not in (f, t):
                staged.append(f"TL_CAST_STAGED(cast_{f}_to_{t}, cast_{f}_to_f32, cast_f32_to_{t})\n")
                continue
            g.code.append(f"TL_CAST_LOOP(cast_{f}_to_{t}, tl_load_{e_f}, {size[f]}, "
                          f"tl_store_{e_t}, {size[t]}, {ct})\n")
    g.code += staged
    rows = []
    for f in order:
        names = [f"[TL_DTYPE_{DTYPES[t][0]}] = cast_{f}_to_{t}" for t in order]
        lines, line = [], ""
        for name in names:
            if line and len(line) + len(name) + 2 > 92:
                lines.append(line)
                line = ""
            line += name + ", "
        lines.append(line)
        body = "\n".join("        " + x.rstrip() for x in lines)
        rows.append(f"    [TL_DTYPE_{DTYPES[f][0]}] = {{\n{body}\n    }},\n")
    g.code.append("\n/* cast_table[from][to] */\n"
                  "static const tl_loop_fn cast_table[TL_DTYPE_COUNT][TL_DTYPE_COUNT] = {\n" +
                  "".join(rows) + "};\n")
    g.rows = None
    return g


def outputs():
    u, b, c = unary(), binary(), compare()
    # The three CUDA files are separate translation units whose functor types
    # name template instantiations (tl_gpu_launch<F>): a name in two of them
    # would be two different types the linker takes for one.
    names = [re.match(r"struct (\w+)", code).group(1) for g in (u, b, c) for code in g.cuda_code
             if code.startswith("struct ")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    return {"unary.inc": u.render("kernels_unary.c"),
            "binary.inc": b.render("kernels_binary.c"),
            "compare.inc": c.render("kernels_compare.c"),
            "cuda_unary.inc": u.render_cuda("src/gpu/elementwise_unary.cu", "tl_gpu_unary_entries"),
            "cuda_binary.inc": b.render_cuda("src/gpu/elementwise_binary.cu", "tl_gpu_binary_entries"),
            "cuda_compare.inc": c.render_cuda("src/gpu/elementwise_compare.cu",
                                              "tl_gpu_compare_entries"),
            "reduce.inc": reduce().render("kernels_reduce.c"),
            "cast.inc": cast().render("tensor/cast.c")}


if __name__ == "__main__":
    generate(__doc__.splitlines()[0], OUT_DIR, outputs)
