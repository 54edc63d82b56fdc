#!/usr/bin/env python3
"""Generate the argument binding of torchlike's ops from their signatures.

Reads src/ndcore/bindings/signatures.txt (one Python signature per op) and
writes, under src/ndcore/bindings/generated/:

  signatures.c   the table of every declared signature (tl_py_sigs): names,
                 parameter kinds, defaults, which are keyword-only.  The
                 recorder normalises a call's int arguments through it, and
                 torchlike._C._signatures() exposes it to the tests.
  bindings.h     for every signature that names an implementation
                 (`name(...) -> impl`): the typed struct its arguments are
                 parsed into, tl_py_args_<impl>, and the prototype of the
                 hand-written implementation, tl_py_impl_<impl>(op, &args).
  bindings.c     the binders: positional/keyword binding, each argument
                 converted to its C type (ints from Python ints, NumPy ints
                 or 0-d tensors; int lists from sequences or 1-d tensors;
                 NumPy's axis=/keepdims= spellings), defaults filled in,
                 then the implementation called; and tl_py_op_binders[],
                 the binder of each ops.def op that has one.  A function
                 that is not an ops.def op gets a Tensor method binder
                 (self is the first parameter) in tl_py_generated_methods[],
                 and its implementation takes the function's name:
                 tl_py_impl_<impl>(name, &args).

The output is checked in.  `gen_bindings.py --check` exits non-zero when the
checked-in files differ from what the signatures give (the build runs it).
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIGNATURES = os.path.join(ROOT, "src", "ndcore", "bindings", "signatures.txt")
OPS_DEF = os.path.join(ROOT, "src", "ndcore", "dispatch", "ops.def")
OUT_DIR = os.path.join(ROOT, "src", "ndcore", "bindings", "generated")

# Declared type -> (C kind, may be None)
KINDS = {
    "Tensor": "TL_PY_ARG_TENSOR",
    "Tensor[]": "TL_PY_ARG_TENSOR_LIST",
    "int": "TL_PY_ARG_INT",
    "int[]": "TL_PY_ARG_INT_LIST",
    "int...": "TL_PY_ARG_INT_VARARGS",
    "int[][]": "TL_PY_ARG_INT_NESTED",
    "int|Tensor": "TL_PY_ARG_INT_OR_TENSOR",
    "bool": "TL_PY_ARG_BOOL",
    "float": "TL_PY_ARG_FLOAT",
    "Scalar": "TL_PY_ARG_SCALAR",
    "str": "TL_PY_ARG_STR",
    "dtype": "TL_PY_ARG_DTYPE",
    "device": "TL_PY_ARG_DEVICE",
    "Generator": "TL_PY_ARG_GENERATOR",
    "any": "TL_PY_ARG_ANY",
}


class Param:
    def __init__(self, text, kwonly):
        m = re.fullmatch(r"(\S+)\s+(\w+)(?:\s*=\s*(.+))?", text.strip())
        if not m:
            raise SyntaxError(f"bad parameter: {text!r}")
        typ, self.name, self.default = m.groups()
        self.optional = typ.endswith("?")
        self.type = typ.rstrip("?")
        if self.type not in KINDS:
            raise SyntaxError(f"unknown type {typ!r} in {text!r}")
        self.kind = KINDS[self.type]
        self.kwonly = kwonly
        self.required = self.default is None


class Signature:
    def __init__(self, line, family):
        m = re.fullmatch(r"(\w+)\((.*)\)(?:\s*->\s*(\w+))?", line)
        if not m:
            raise SyntaxError(f"bad signature: {line!r}")
        self.name, body, self.impl = m.groups()
        line = line.split("->")[0].strip()
        self.family = family
        self.text = line
        self.params = []
        kwonly = False
        for part in split_params(body):
            if part == "*":
                kwonly = True
                continue
            self.params.append(Param(part, kwonly))
        self.npos = sum(not p.kwonly for p in self.params)


def split_params(body):
    """Split on commas outside quotes."""
    parts, depth, cur, quote = [], 0, "", None
    for ch in body:
        if quote:
            cur += ch
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
            cur += ch
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            depth += ch in "([{"
            depth -= ch in ")]}"
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def read_signatures(path=SIGNATURES):
    sigs, family, seen = [], None, set()
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"\[(\w+)\]", line)
            if m:
                family = m.group(1)
                continue
            try:
                sig = Signature(line, family)
            except SyntaxError as e:
                raise SystemExit(f"{path}:{lineno}: {e}")
            if sig.name in seen:
                raise SystemExit(f"{path}:{lineno}: {sig.name} declared twice")
            seen.add(sig.name)
            sigs.append(sig)
    return sigs


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


HEADER = """\
/* Generated by scripts/gen_bindings.py from src/ndcore/bindings/signatures.txt.
 * Do not edit: change the signature and run the script (the build checks
 * that this file is current). */
"""


def gen_signatures_c(sigs):
    out = [HEADER, '#include "ndcore/bindings/py_sig.h"\n']
    for s in sigs:
        out.append(f"static const tl_py_param params_{s.name}[] = {{")
        for p in s.params:
            flags = []
            if p.optional:
                flags.append("TL_PY_ARG_OPTIONAL")
            if p.kwonly:
                flags.append("TL_PY_ARG_KWONLY")
            if p.required:
                flags.append("TL_PY_ARG_REQUIRED")
            default = c_string(p.default) if p.default is not None else "NULL"
            out.append(f"    {{{c_string(p.name)}, {p.kind}, {' | '.join(flags) or '0'}, {default}}},")
        out.append("};\n")
    out.append("const tl_py_sig tl_py_sigs[] = {")
    for s in sigs:
        out.append(f"    {{{c_string(s.name)}, {c_string(s.family)}, params_{s.name}, {len(s.params)}, "
                   f"{s.npos},\n     {c_string(s.text)}}},")
    out.append("};")
    out.append(f"const int tl_py_sig_count = {len(sigs)};\n")
    return "\n".join(out)


# ---- typed binders ---------------------------------------------------------------

def c_default(p):
    """The C value of a parameter's declared default."""
    d = p.default
    if p.type == "bool":
        return {"False": "false", "True": "true", None: "false"}[d]
    if p.type == "int":
        return "0" if d in (None, "None") else str(int(d))
    if p.type == "float":
        return "0.0" if d in (None, "None") else repr(float(d))
    if p.type == "str":
        return "NULL" if d in (None, "None") else c_string(d.strip("\"'"))
    if p.type == "dtype":
        return "-1"
    return None


# type -> (C declaration of the field(s), converter call); {f} is the field name
FIELDS = {
    "Tensor": ("PyObject *{f}; /* borrowed */", None),
    "Tensor?": ("PyObject *{f}; /* borrowed; NULL: None or absent */", None),
    "int": ("int64_t {f};", None),
    "int[]": ("tl_py_ints {f};", None),
    "int...": ("tl_py_ints {f};", None),
    "bool": ("bool {f};", None),
    "float": ("double {f};", None),
    "str": ("const char *{f};", None),
    "dtype": ("int {f}; /* -1: None */", None),
    "Scalar": ("tl_scalar {f};", None),
    "any": ("PyObject *{f}; /* borrowed; NULL: absent */", None),
}


def field_lines(p):
    if p.type not in FIELDS:
        raise SystemExit(f"gen_bindings: type {p.type} has no generated binder yet ({p.name})")
    key = p.type + "?" if p.optional and p.type + "?" in FIELDS else p.type
    lines = ["  " + FIELDS[key][0].format(f=p.name)]
    if p.optional and p.type in ("int", "float", "Scalar"):
        lines.append(f"  bool has_{p.name}; /* false: None or absent */")
    return lines


def converter(p, i):
    """The call that fills field p.name from v[i] (0 or -1)."""
    f, v = p.name, f"v[{i}]"
    if p.type == "Tensor":
        return f'tl_py_arg_tensor(func, "{f}", {v}, {"true" if p.optional else "false"}, &a.{f})'
    if p.type == "int":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_int(func, "{f}", {v}, {"true" if p.required else "false"}, &a.{f}, {has})'
    if p.type in ("int[]", "int..."):
        return f'tl_py_arg_ints(func, "{f}", {v}, &a.{f})'
    if p.type == "bool":
        return f'tl_py_arg_bool(func, "{f}", {v}, &a.{f})'
    if p.type == "float":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_float(func, "{f}", {v}, &a.{f}, {has})'
    if p.type == "str":
        return f'tl_py_arg_str(func, "{f}", {v}, &a.{f})'
    if p.type == "dtype":
        return f'tl_py_arg_dtype({v}, &a.{f})'
    if p.type == "Scalar":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_scalar(func, "{f}", {v}, &a.{f}, {has})'
    if p.type == "any":
        return f"(a.{f} = {v}, 0)"
    raise AssertionError(p.type)


def impl_groups(sigs):
    """{impl: [signatures]} in declaration order; one parameter list each."""
    groups = {}
    for s in sigs:
        if not s.impl:
            continue
        groups.setdefault(s.impl, []).append(s)
    for impl, members in groups.items():
        first = [(p.type, p.name, p.optional, p.default, p.kwonly) for p in members[0].params]
        for s in members[1:]:
            if [(p.type, p.name, p.optional, p.default, p.kwonly) for p in s.params] != first:
                raise SystemExit(f"gen_bindings: {s.name} and {members[0].name} share -> {impl} "
                                 "but not their parameters")
    return groups


def ops_def_names():
    """{op name: its enum name} of every ops.def op."""
    with open(OPS_DEF) as f:
        return {name: enum for enum, name in re.findall(r'^TL_OP\((\w+),\s*"(\w+)"', f.read(), re.M)}


def is_op(sig, ops=None):
    return sig.name in (ops if ops is not None else ops_def_names())


def gen_bindings_h(sigs):
    out = [HEADER, "#ifndef TL_PY_GENERATED_BINDINGS_H", "#define TL_PY_GENERATED_BINDINGS_H\n",
           '#include "ndcore/bindings/py_sig.h"\n']
    ops = ops_def_names()
    for impl, members in impl_groups(sigs).items():
        if len({is_op(m, ops) for m in members}) > 1:
            raise SystemExit(f"gen_bindings: -> {impl} mixes ops.def ops and other functions")
        out.append("/* " + "\n * ".join(s.text for s in members) + " */")
        out.append("typedef struct {")
        for p in members[0].params:
            out.extend(field_lines(p))
        out.append(f"}} tl_py_args_{impl};")
        first = "tl_op op" if is_op(members[0], ops) else "const char *name"
        out.append(f"PyObject *tl_py_impl_{impl}({first}, const tl_py_args_{impl} *a);\n")
    out.append("/* Tensor methods bound by generated code (also module functions). */")
    out.append("extern PyMethodDef tl_py_generated_methods[];\n")
    out.append("#endif")
    return "\n".join(out) + "\n"


def gen_method_binder(sig, out):
    """A Tensor method: self is the first parameter, the rest are bound."""
    params, impl = sig.params, sig.impl
    rest = params[1:]
    nrequired = 0
    while nrequired < len(rest) and rest[nrequired].required:
        nrequired += 1
    npos = sum(not p.kwonly for p in rest)
    names = ", ".join([c_string(p.name) for p in rest] + ["NULL"])
    out.append(f"static PyObject *bind_{sig.name}(PyObject *self, PyObject *const *args, "
               "Py_ssize_t nargs,")
    out.append(f"{' ' * (len(sig.name) + 23)}PyObject *kwnames)")
    out.append("{")
    out.append(f"  static const char *const names[] = {{{names}}};")
    out.append(f"  const char *func = {c_string(sig.name)};")
    out.append(f"  PyObject *v[{len(rest) or 1}];")
    out.append(f"  tl_py_args_{impl} a;")
    for p in rest:
        d = c_default(p)
        if d is not None:
            out.append(f"  a.{p.name} = {d};")
    checks = [f"tl_py_arg_tensor(func, {c_string(params[0].name)}, self, false, "
              f"&a.{params[0].name}) < 0",
              f"tl_py_bind_args(func, args, nargs, kwnames, names, {npos}, {nrequired}, v) < 0"]
    checks += [f"{converter(p, i)} < 0" for i, p in enumerate(rest)]
    out.append("  if (" + " ||\n      ".join(checks) + ")")
    out.append("    return NULL;")
    out.append(f"  return tl_py_impl_{impl}(func, &a);")
    out.append("}\n")


def gen_bindings_c(sigs):
    out = [HEADER, '#include "ndcore/bindings/generated/bindings.h"\n']
    groups = impl_groups(sigs)
    ops = ops_def_names()
    methods = []
    for impl, members in groups.items():
        if not is_op(members[0], ops):
            for sig in members:
                gen_method_binder(sig, out)
                methods.append(sig.name)
            continue
        params = members[0].params
        names = ", ".join(c_string(p.name) for p in params)
        nrequired = 0
        while nrequired < len(params) and params[nrequired].required:
            nrequired += 1
        npos = sum(not p.kwonly for p in params)
        out.append(f"/* {', '.join(s.name for s in members)} */")
        out.append(f"static PyObject *bind_{impl}(tl_op op, PyObject *const *args, Py_ssize_t nargs,")
        out.append(f"{' ' * (len(impl) + 23)}PyObject *kwnames)")
        out.append("{")
        out.append(f"  static const char *const names[] = {{{names}, NULL}};")
        out.append("  const char *func = tl_op_infos[op].name;")
        out.append(f"  PyObject *v[{len(params)}];")
        # Defaults field by field: the converters set int lists, tensors and
        # the has_ flags themselves, and zeroing the whole struct (int lists
        # hold TL_PY_MAX_INTS each) would cost more than the parsing.
        out.append(f"  tl_py_args_{impl} a;")
        for p in params:
            d = c_default(p)
            if d is not None:
                out.append(f"  a.{p.name} = {d};")
        checks = [f"tl_py_bind_args(func, args, nargs, kwnames, names, {npos}, {nrequired}, v) < 0"]
        checks += [f"{converter(p, i)} < 0" for i, p in enumerate(params)]
        out.append("  if (" + " ||\n      ".join(checks) + ")")
        out.append("    return NULL;")
        out.append(f"  return tl_py_impl_{impl}(op, &a);")
        out.append("}\n")
    out.append("const tl_py_binder tl_py_op_binders[TL_OP_COUNT] = {")
    for impl, members in groups.items():
        for s in members:
            if is_op(s, ops):
                out.append(f"    [TL_OP_{ops[s.name]}] = bind_{impl},")
    out.append("};\n")
    out.append("PyMethodDef tl_py_generated_methods[] = {")
    for name in methods:
        out.append(f"    {{{c_string(name)}, (PyCFunction)(void (*)(void))bind_{name}, "
                   "METH_FASTCALL | METH_KEYWORDS, NULL},")
    out.append("    {NULL, NULL, 0, NULL},")
    out.append("};")
    return "\n".join(out) + "\n"


def outputs():
    sigs = read_signatures()
    return {"signatures.c": gen_signatures_c(sigs), "bindings.h": gen_bindings_h(sigs),
            "bindings.c": gen_bindings_c(sigs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="fail if the checked-in files are not what the signatures give")
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
        sys.exit("src/ndcore/bindings/generated/ is stale (" + ", ".join(stale) +
                 "): run scripts/gen_bindings.py")
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")


if __name__ == "__main__":
    main()
