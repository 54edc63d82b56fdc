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
    "Tensor...": "TL_PY_ARG_TENSOR_VARARGS",
    "*Tensor": "TL_PY_ARG_TENSOR_SPREAD",
    "*int[]": "TL_PY_ARG_INT_LIST_SPREAD",
    "TensorLike": "TL_PY_ARG_TENSOR",
    "int": "TL_PY_ARG_INT",
    "int[]": "TL_PY_ARG_INT_LIST",
    "int...": "TL_PY_ARG_INT_VARARGS",
    "int[][]": "TL_PY_ARG_INT_NESTED",
    "int|Tensor": "TL_PY_ARG_INT_OR_TENSOR",
    "int[]|Tensor": "TL_PY_ARG_INT_OR_TENSOR",
    "int[N]": "TL_PY_ARG_INT_LIST",
    "int[N]|Tensor": "TL_PY_ARG_INT_OR_TENSOR",
    "bool": "TL_PY_ARG_BOOL",
    "float": "TL_PY_ARG_FLOAT",
    "Scalar": "TL_PY_ARG_SCALAR",
    "str": "TL_PY_ARG_STR",
    "dtype": "TL_PY_ARG_DTYPE",
    "device": "TL_PY_ARG_DEVICE",
    "Generator": "TL_PY_ARG_GENERATOR",
    "memory_format": "TL_PY_ARG_MEMORY_FORMAT",
    "any": "TL_PY_ARG_ANY",
}


# Parameters that take the positionals from their place on: Tensor... as
# f(a, b) or f([a, b]); *Tensor and *int[] as Python's *tensors, f(a, b) only.
SPREADS = {"Tensor...", "*Tensor", "*int[]"}


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
        # a spread may be empty: f() binds no tensors, as Python's f(*tensors)
        self.required = self.default is None and self.type not in SPREADS


TAGS = {"method", "function", "inplace"}


class Signature:
    def __init__(self, line, family):
        m = re.fullmatch(r"(\w+)\((.*)\)(?:\s*->\s*(\w+)((?:\s+@\w+)*))?", line)
        if not m:
            raise SyntaxError(f"bad signature: {line!r}")
        self.name, body, self.impl, tags = m.groups()
        self.tags = set(re.findall(r"@(\w+)", tags or ""))
        if self.tags - TAGS:
            raise SyntaxError(f"unknown tag(s) {sorted(self.tags - TAGS)} in {line!r}")
        self.overloads = []  # `| name(...) -> impl` lines after this one
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
            kwonly = kwonly or part.startswith("*")  # after *tensors, keywords only
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


def logical_lines(f):
    """(lineno, text) without comments; a signature continues on the next
    lines while its parentheses are open or it ends with a comma, and a line
    starting with `->` continues the one before."""
    pending, start = "", 0
    for lineno, raw in enumerate(f, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if pending and (pending.count("(") > pending.count(")") or pending.endswith(",") or
                        line.startswith("->")):
            pending += " " + line
            continue
        if pending:
            yield start, pending
        pending, start = line, lineno
    if pending:
        yield start, pending


def read_signatures(path=SIGNATURES):
    sigs, family, seen, groups = [], None, set(), {}
    with open(path) as f:
        for lineno, line in logical_lines(f):
            m = re.fullmatch(r"\[(\w+)\]", line)
            if m:
                family = m.group(1)
                continue
            m = re.fullmatch(r"(\w+)\s*:=\s*(.+)", line)
            if m:  # a group of parameters, spelled **name in the signatures below
                groups[m.group(1)] = m.group(2)
                continue
            for name, params in groups.items():
                line = line.replace(f"**{name}", params)
            overload = line.startswith("|")
            try:
                sig = Signature(line.lstrip("| "), family)
            except SyntaxError as e:
                raise SystemExit(f"{path}:{lineno}: {e}")
            if overload:
                check_overload(sigs, sig, f"{path}:{lineno}")
                continue
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
        return {"False": "false", "True": "true", None: "false", "None": "false"}[d]
    if p.type == "int":
        return "0" if d in (None, "None") else str(int(d))
    if p.type == "float":
        return "0.0" if d in (None, "None") else repr(float(d))
    if p.type == "str":
        return "NULL" if d in (None, "None") else c_string(d.strip("\"'"))
    if p.type in ("dtype", "memory_format"):
        return "-1"
    if p.type == "Scalar" and d not in (None, "None"):
        try:
            return f"(tl_scalar){{.kind = TL_KIND_INT, .v.i = {int(d)}}}"
        except ValueError:
            return f"(tl_scalar){{.kind = TL_KIND_FLOAT, .v.f = {float(d)!r}}}"
    return None


# type -> C declaration of the field; {f} is the field name
FIELDS = {
    "Tensor": "PyObject *{f}; /* borrowed */",
    "Tensor?": "PyObject *{f}; /* borrowed; NULL: None or absent */",
    "Tensor[]": "tl_py_tensors {f}; /* released by the binder */",
    "Tensor...": "tl_py_tensors {f}; /* released by the binder */",
    "*Tensor": "tl_py_tensors {f}; /* released by the binder */",
    "*int[]": "tl_py_spread {f}; /* each converted by the implementation */",
    "int": "int64_t {f};",
    "int[]": "tl_py_ints {f};",
    "int...": "tl_py_ints {f};",
    "int|Tensor": "int64_t {f};\n  PyObject *{f}_tensor; /* borrowed; NULL: an int (or None) */",
    "int[]|Tensor": "tl_py_ints {f};\n  PyObject *{f}_tensor; /* borrowed; NULL: ints (or None) */",
    "int[N]": "tl_py_intvec {f}; /* released by the binder */",
    "int[][]": "PyObject *{f}; /* borrowed: as given; NULL: absent */",
    "TensorLike": "tl_py_tensorlike {f}; /* released by the binder */",
    "int[N]|Tensor": "tl_py_intvec {f}; /* released by the binder */\n"
                     "  PyObject *{f}_tensor; /* borrowed; NULL: ints (or None) */",
    "bool": "bool {f};",
    "float": "double {f};",
    "str": "const char *{f};",
    "dtype": "int {f}; /* -1: None */",
    "Scalar": "tl_scalar {f};",
    "device": "tl_device {f}; /* the default device when None or absent */",
    "Generator": "tl_generator *{f}; /* the default generator when None or absent */",
    "memory_format": "int {f}; /* a tl_format; -1: None or absent */",
    "any": "PyObject *{f}; /* borrowed; NULL: absent */",
}


def field_lines(p):
    if p.type not in FIELDS:
        raise SystemExit(f"gen_bindings: type {p.type} has no generated binder yet ({p.name})")
    key = p.type + "?" if p.optional and p.type + "?" in FIELDS else p.type
    lines = ["  " + FIELDS[key].format(f=p.name)]
    if (p.optional and p.type in ("int", "float", "Scalar", "bool")) or \
            p.type in ("int|Tensor", "device"):
        lines.append(f"  bool has_{p.name}; /* false: None or absent */")
    return lines


def converter(p, i):
    """The call that fills field p.name from v[i] (0 or -1)."""
    f, v = p.name, f"v[{i}]"
    if p.type == "Tensor" and f == "out":  # a tensor to write: checked writable
        return f'tl_py_arg_out(func, {v}, &a.{f})'
    if p.type == "Tensor":
        return f'tl_py_arg_tensor(func, "{f}", {v}, {"true" if p.optional else "false"}, &a.{f})'
    if p.type == "int":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_int(func, "{f}", {v}, {"true" if p.required else "false"}, &a.{f}, {has})'
    if p.type == "int[]":
        return f'tl_py_arg_ints(func, "{f}", {v}, &a.{f})'
    if p.type == "int...":  # the trailing positionals when they came spread
        return f'tl_py_arg_int_varargs(func, "{f}", {v}, spread, nspread, &a.{f})'
    if p.type == "Tensor[]":
        return f'tl_py_arg_tensors(func, "{f}", {v}, &a.{f})'
    if p.type in ("Tensor...", "*Tensor"):  # the positionals from its place on
        seq_ok = "true" if p.type == "Tensor..." else "false"
        return f'tl_py_arg_tensor_spread(func, spread, nspread, {seq_ok}, &a.{f})'
    if p.type == "*int[]":
        return f"(a.{f} = (tl_py_spread){{spread, nspread}}, 0)"
    if p.type == "TensorLike":
        return f'tl_py_arg_tensorlike(func, "{f}", {v}, {"true" if p.optional else "false"}, &a.{f})'
    if p.type == "int[N]":
        return f'tl_py_arg_intvec(func, "{f}", {v}, &a.{f})'
    if p.type == "int[N]|Tensor":
        return f'tl_py_arg_intvec_or_tensor(func, "{f}", {v}, &a.{f}, &a.{f}_tensor)'
    if p.type == "int[]|Tensor":
        return f'tl_py_arg_ints_or_tensor(func, "{f}", {v}, &a.{f}, &a.{f}_tensor)'
    if p.type == "int|Tensor":
        return f'tl_py_arg_int_or_tensor(func, "{f}", {v}, &a.{f}, &a.{f}_tensor, &a.has_{f})'
    if p.type == "bool":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_bool_given(func, "{f}", {v}, &a.{f}, {has})' if p.optional else \
            f'tl_py_arg_bool(func, "{f}", {v}, &a.{f})'
    if p.type == "float":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_float(func, "{f}", {v}, &a.{f}, {has})'
    if p.type == "str":
        return f'tl_py_arg_str(func, "{f}", {v}, &a.{f})'
    if p.type == "dtype":
        optional = "true" if p.optional else "false"
        return f'tl_py_arg_dtype(func, "{f}", {v}, {optional}, &a.{f})'
    if p.type == "Scalar":
        has = f"&a.has_{f}" if p.optional else "NULL"
        return f'tl_py_arg_scalar(func, "{f}", {v}, &a.{f}, {has})'
    if p.type == "device":
        return f'tl_py_arg_device(func, "{f}", {v}, &a.{f}, &a.has_{f})'
    if p.type == "Generator":
        return f'tl_py_arg_generator(func, "{f}", {v}, &a.{f})'
    if p.type == "memory_format":
        return f'tl_py_arg_memory_format(func, "{f}", {v}, &a.{f})'
    if p.type in ("any", "int[][]"):
        return f"(a.{f} = {v}, 0)"
    raise AssertionError(p.type)


def check_overload(sigs, sig, where):
    """`| name(...) -> impl`: another parameter list of the op declared just
    above.  The generated binder picks it by the type of the first positional
    argument whose declared type differs (see overload_test)."""
    if not sigs or sigs[-1].name != sig.name:
        raise SystemExit(f"{where}: overload of {sig.name} must follow its declaration")
    primary = sigs[-1]
    if not primary.impl or not sig.impl:
        raise SystemExit(f"{where}: an overload and its primary both name an implementation")
    overload_position(primary, sig)  # raises when nothing tells them apart
    primary.overloads.append(sig)
    sig.primary = primary


def overload_position(primary, sig):
    for i, p in enumerate(sig.params):
        if p.kwonly:
            break
        q = primary.params[i] if i < len(primary.params) else None
        if q is None or q.type != p.type:
            if p.type not in OVERLOAD_TESTS:
                break
            return i
    raise SystemExit(f"gen_bindings: overload {sig.text} differs from {primary.text} by no "
                     f"positional type the binder can test ({', '.join(OVERLOAD_TESTS)})")


# How a binder tells an overload's distinguishing argument o apart.
OVERLOAD_TESTS = {
    "dtype": "tl_py_is_dtype_like({o})",
    "bool": "PyBool_Check({o})",
    "Tensor": "tl_py_is_tensor({o})",
}


def impl_groups(sigs):
    """{impl: [signatures]} in declaration order; one parameter list each.
    Overloads come after their primary."""
    groups = {}
    for s in sigs:
        for member in [s] + getattr(s, "overloads", []):
            if member.impl:
                groups.setdefault(member.impl, []).append(member)
    for impl, members in groups.items():
        first = [(p.type, p.name, p.optional, p.default, p.kwonly) for p in members[0].params]
        for s in members[1:]:
            if [(p.type, p.name, p.optional, p.default, p.kwonly) for p in s.params] != first:
                raise SystemExit(f"gen_bindings: {s.name} and {members[0].name} share -> {impl} "
                                 "but not their parameters")
            if s.tags != members[0].tags:
                raise SystemExit(f"gen_bindings: {s.name} and {members[0].name} share -> {impl} "
                                 "but not their tags")
    return groups


def ops_def_names():
    """{op name: its enum name} of every ops.def op."""
    with open(OPS_DEF) as f:
        return {name: enum for enum, name in re.findall(r'^TL_OP\((\w+),\s*"(\w+)"', f.read(), re.M)}


def is_op(sig, ops=None):
    """Whether sig binds an ops.def op through tl_py_op_binders; an op that
    is a module function or Tensor method of its own (@function, @method:
    the creation ops full, arange, ...) is bound as one."""
    if sig.tags & {"function", "method"}:
        return False
    return sig.name in (ops if ops is not None else ops_def_names())


def function_only(sig):
    """@function alone: a module function with no self; @function @method:
    a Tensor method also exported to the module, as an untagged
    non-ops.def signature is."""
    return "function" in sig.tags and "method" not in sig.tags


def counts_positionals(sig, ops):
    """Whether sig's impl is told how many arguments came positionally: the
    @function and @method bindings, some of which read arange(end) apart
    from arange(start, end) that way."""
    return bool(sig.tags & {"function", "method"}) and not is_op(sig, ops)


def impl_first_param(sig, ops):
    if is_op(sig, ops):
        return "tl_op op, bool inplace" if "inplace" in sig.tags else "tl_op op"
    return "const char *name"


def gen_bindings_h(sigs):
    """{file name: text}: args_<family>.h with the argument structs and the
    hand-written implementations' prototypes of each family, and
    bindings.h including them all and declaring the tables."""
    ops = ops_def_names()
    files = {}
    for impl, members in impl_groups(sigs).items():
        if len({is_op(m, ops) for m in members}) > 1:
            raise SystemExit(f"gen_bindings: -> {impl} mixes ops.def ops and other functions")
        family = members[0].family
        guard = f"TL_PY_GENERATED_ARGS_{family.upper()}_H"
        out = files.setdefault(f"args_{family}.h", [
            HEADER, f"#ifndef {guard}", f"#define {guard}\n",
            f"/* The arguments of signatures.txt's [{family}] signatures, bound. */\n",
            '#include "ndcore/bindings/py_sig.h"\n'])
        out.append("/* " + "\n * ".join(s.text for s in members) + " */")
        out.append("typedef struct {")
        for p in members[0].params:
            out.extend(field_lines(p))
        if counts_positionals(members[0], ops):  # overloads told apart by position: arange(end)
            out.append("  Py_ssize_t nargs; /* how many came positionally (self not counted) */")
        out.append(f"}} tl_py_args_{impl};")
        out.append(f"PyObject *tl_py_impl_{impl}({impl_first_param(members[0], ops)}, "
                   f"const tl_py_args_{impl} *a);\n")
    for lines in files.values():
        lines.append("#endif")
    out = [HEADER, "#ifndef TL_PY_GENERATED_BINDINGS_H", "#define TL_PY_GENERATED_BINDINGS_H\n"]
    out += [f'#include "ndcore/bindings/generated/{name}"' for name in files]
    out.append("")
    out.append("/* Tensor methods bound by generated code (also module functions). */")
    out.append("extern PyMethodDef tl_py_generated_methods[];")
    out.append("/* Tensor methods only (@method). */")
    out.append("extern PyMethodDef tl_py_generated_method_only[];")
    out.append("/* Module functions only (@function), by family. */")
    for family in function_families(sigs):
        out.append(f"extern PyMethodDef tl_py_generated_{family}_functions[];")
    out.append("")
    out.append("#endif")
    files["bindings.h"] = out
    return {name: "\n".join(lines) + "\n" for name, lines in files.items()}


def function_families(sigs):
    fams = []
    for s in sigs:
        if function_only(s) and s.family not in fams:
            fams.append(s.family)
    return fams


def gen_binder_body(sig, params, out, head, self_param=None):
    """The binding of params from (args, nargs, kwnames) into tl_py_args_<impl> a;
    `head` is the lines naming func; the caller writes the call after it.  In
    an overloaded signature a converter's TypeError becomes PyTorch's
    "received an invalid combination of arguments" listing the overloads."""
    impl = sig.impl
    # int... may be empty: f(*[]) binds no ints, as Python's own varargs
    nrequired = 0
    while (nrequired < len(params) and params[nrequired].required and
           params[nrequired].type != "int..."):
        nrequired += 1
    npos = sum(not p.kwonly for p in params)
    varargs = [i for i, p in enumerate(params) if p.type in SPREADS | {"int..."}]
    if varargs and (len(varargs) > 1 or varargs[0] != npos - 1):
        raise SystemExit(f"gen_bindings: {sig.text}: {params[varargs[0]].type} must be the last "
                         "positional")
    spread = varargs and params[varargs[0]].type in SPREADS
    names = ", ".join([c_string(p.name) for p in params] + ["NULL"])
    out.append(f"  static const char *const names[] = {{{names}}};")
    out.extend(head)
    out.append(f"  PyObject *v[{len(params) or 1}];")
    if varargs:
        out.append("  PyObject *const *spread; /* the ints of f(2, 3), the tensors of f(a, b) */")
        out.append("  Py_ssize_t nspread;")
    # Defaults field by field: the converters set int lists, tensors and
    # the has_ flags themselves, and zeroing the whole struct (int lists
    # hold TL_PY_MAX_INTS each) would cost more than the parsing.
    out.append(f"  tl_py_args_{impl} a;")
    if heap_lists(params):
        out.append("  PyObject *r = NULL;")
    for p in ([self_param] if self_param else []) + params:
        d = c_default(p)
        if d is not None:
            out.append(f"  a.{p.name} = {d};")
        if p.type in OWNED:
            out.append("  " + OWNED[p.type][0].format(f=p.name))
    checks = []
    if self_param:
        checks.append(f"tl_py_arg_tensor(func, {c_string(self_param.name)}, self, false, "
                      f"&a.{self_param.name}) < 0")
    if spread:
        checks.append(f"tl_py_bind_spread(func, args, nargs, kwnames, names, {npos - 1}, "
                      f"{nrequired}, v, &spread, &nspread) < 0")
    elif varargs:
        checks.append(f"tl_py_bind_varargs(func, args, nargs, kwnames, names, {npos}, {nrequired}, "
                      f"v, &spread, &nspread) < 0")
    else:
        checks.append(f"tl_py_bind(func, args, nargs, kwnames, names, {len(params)}, {npos}, "
                      f"{nrequired}, v) < 0")
    converts = [f"{converter(p, i)} < 0" for i, p in enumerate(params)]
    fail = "    return NULL;" if not heap_lists(params) else "    goto done;"
    group = overload_group(sig)
    if group and converts:
        out.append("  if (" + " ||\n      ".join(checks) + ")")
        out.append(fail)
        checks = converts
        no_match = (f"tl_py_no_overload(func, args, nargs, kwnames, overloads_{group.impl}, "
                    f"{len(group.overloads) + 1})")
        fail = (f"    return {no_match};" if not heap_lists(params) else
                f"  {{\n    r = {no_match};\n    goto done;\n  }}")
    else:
        checks += converts
    out.append("  if (" + " ||\n      ".join(checks) + ")")
    out.append(fail)


def overload_group(sig):
    """The primary signature of sig's overloads, or None when it has none."""
    primary = getattr(sig, "primary", sig)
    return primary if primary.overloads else None


def overload_table(sig, method, out):
    """The parameter lists PyTorch's "expected one of" names, before the
    primary's binder (its overloads' binders come after it)."""
    texts = []
    for s in [sig] + sig.overloads:
        params = split_params(s.text[len(s.name) + 1:-1])
        texts.append("(" + ", ".join(params[1:] if method else params) + ")")
    out.append(f"static const char *const overloads_{sig.impl}[] = {{")
    out.extend(f"    {c_string(t)}," for t in texts)
    out.append("};\n")


# Parameters whose converters may take something the binder gives back after
# the call: type -> (the field's initial state, its release call).
OWNED = {
    "int[N]": ("a.{f}.v = NULL;", "tl_py_intvec_release(&a.{f});"),
    "int[N]|Tensor": ("a.{f}.v = NULL;", "tl_py_intvec_release(&a.{f});"),
    "TensorLike": ("a.{f}.owned = false;", "tl_py_tensorlike_release(&a.{f});"),
    "Tensor[]": ("a.{f}.t = NULL, a.{f}.seq = NULL;", "tl_py_tensors_release(&a.{f});"),
    "Tensor...": ("a.{f}.t = NULL, a.{f}.seq = NULL;", "tl_py_tensors_release(&a.{f});"),
    "*Tensor": ("a.{f}.t = NULL, a.{f}.seq = NULL;", "tl_py_tensors_release(&a.{f});"),
}


def heap_lists(params):
    """The parameters the binder releases after the call (OWNED)."""
    return [p for p in params if p.type in OWNED]


def gen_call(params, call, out):
    """The impl call; with int[N] parameters, their release on every path
    (their fields start NULL: a converter that did not run left nothing)."""
    lists = heap_lists(params)
    if not lists:
        out.append(f"  return {call};")
        return
    out.append(f"  r = {call};")
    out.append("done:")
    for p in lists:
        out.append("  " + OWNED[p.type][1].format(f=p.name))
    out.append("  return r;")


def overload_dispatch(sig, out, call_args, offset):
    """Lines sending a call to an overload's binder; offset: parameters
    before args[0] (1 for a Tensor method's self)."""
    for o in sig.overloads:
        i = overload_position(sig, o)
        p = o.params[i]
        test = OVERLOAD_TESTS[p.type].format(o=f"args[{i - offset}]")
        cond = f"nargs > {i - offset} && {test}"
        if p.name not in {q.name for q in sig.params}:  # x.to(tensor=y): named by keyword
            cond = (f"nargs > {i - offset} ? {test}\n                 "
                    f": tl_py_keyword_given(kwnames, {c_string(p.name)})")
        out.append(f"  if ({cond}) /* the overload of {p.type} {p.name} */")
        out.append(f"    return tl_py_binder_{o.impl}({call_args});")


def binder_head(out, decls, name, first):
    """The first lines of tl_py_binder_<name>(first, args, nargs, kwnames),
    whose declaration goes to binders.h: the tables of bindings.c take every
    family's binders, and an op's binder calls its overloads'."""
    head = f"PyObject *tl_py_binder_{name}({first}, PyObject *const *args, Py_ssize_t nargs,"
    tail = " " * (len(f"PyObject *tl_py_binder_{name}(")) + "PyObject *kwnames)"
    out.extend([head, tail])
    decls.extend([head, tail + ";"])


def gen_method_binder(sig, out, decls, static_name=None):
    """A Tensor method (self is the first parameter, the rest are bound), or
    with @function a module function (every parameter bound)."""
    function = function_only(sig)
    params = sig.params if function else sig.params[1:]
    name = static_name or sig.name
    if sig.overloads:
        overload_table(sig, not function, out)
    binder_head(out, decls, name, "PyObject *module" if function else "PyObject *self")
    out.append("{")
    if function:
        out.append("  (void)module;")
    # An entry from Python: no core error left by an earlier call (py_tensor.h).
    # The ops.def ops' binders are reached through opfunc_vectorcall, which does it.
    out.append("  tl_py_error_fresh();")
    overload_dispatch(sig, out, ("module" if function else "self") + ", args, nargs, kwnames",
                      0 if function else 1)
    gen_binder_body(sig, params, out, [f"  const char *func = {c_string(sig.name)};"],
                    None if function else sig.params[0])
    if counts_positionals(sig, None):
        out.append("  a.nargs = nargs;")
    gen_call(params, f"tl_py_impl_{sig.impl}(func, &a)", out)
    out.append("}\n")


def gen_op_binder(impl, members, out, decls):
    """The binder of ops.def ops sharing impl; with @inplace also the binder
    of their in-place forms (t.scatter_(...)), the impl told which."""
    sig = members[0]
    inplace = "inplace" in sig.tags
    out.append(f"/* {', '.join(s.name for s in members)} */")
    name = f"{impl}_at" if inplace else impl
    extra = ", bool inplace" if inplace else ""
    if sig.overloads:
        overload_table(sig, False, out)
    binder_head(out, decls, name, f"tl_op op{extra}")
    out.append("{")
    overload_dispatch(sig, out, "op, args, nargs, kwnames", 0)
    func = ("  const char *func = tl_py_op_name(op, inplace);" if inplace
            else "  const char *func = tl_op_infos[op].name;")
    gen_binder_body(sig, sig.params, out, [func])
    gen_call(sig.params, f"tl_py_impl_{impl}(op{', inplace' if inplace else ''}, &a)", out)
    out.append("}\n")
    if inplace:
        for form, flag in ((impl, "false"), (f"{impl}_inplace", "true")):
            binder_head(out, decls, form, "tl_op op")
            out.append("{")
            out.append(f"  return tl_py_binder_{impl}_at(op, {flag}, args, nargs, kwnames);")
            out.append("}\n")


def method_entry(name, binder):
    return (f"    {{{c_string(name)}, (PyCFunction)(void (*)(void))tl_py_binder_{binder}, "
            "METH_FASTCALL | METH_KEYWORDS, NULL},")


def gen_bindings_c(sigs):
    """{file name: text}: bind_<family>.c with the binders of each family's
    signatures, binders.h declaring them, and bindings.c with the tables
    (tl_py_op_binders, the method and function tables)."""
    groups = impl_groups(sigs)
    ops = ops_def_names()
    files, decls = {}, []
    tables = {"methods": [], "method_only": []}
    for family in function_families(sigs):
        tables[f"{family}_functions"] = []
    for impl, members in groups.items():
        family = members[0].family
        out = files.setdefault(f"bind_{family}.c", [
            HEADER, f"/* The binders of signatures.txt's [{family}] signatures. */\n",
            '#include "ndcore/bindings/generated/binders.h"\n'])
        if is_op(members[0], ops):
            gen_op_binder(impl, members, out, decls)
            continue
        for sig in members:
            if hasattr(sig, "primary"):
                gen_method_binder(sig, out, decls, static_name=sig.impl)
                continue
            gen_method_binder(sig, out, decls)
            table = (f"{sig.family}_functions" if function_only(sig)
                     else "method_only" if sig.tags == {"method"} else "methods")
            tables[table].append(method_entry(sig.name, sig.name))
    out = [HEADER, '#include "ndcore/bindings/generated/binders.h"\n']
    out.append("const tl_py_binder tl_py_op_binders[TL_OP_COUNT] = {")
    for impl, members in groups.items():
        for s in members:
            if is_op(s, ops) and not hasattr(s, "primary"):
                out.append(f"    [TL_OP_{ops[s.name]}] = tl_py_binder_{impl},")
    out.append("};\n")
    out.append("const tl_py_binder tl_py_op_inplace_binders[TL_OP_COUNT] = {")
    for impl, members in groups.items():
        for s in members:
            if is_op(s, ops) and "inplace" in s.tags:
                out.append(f"    [TL_OP_{ops[s.name]}] = tl_py_binder_{impl}_inplace,")
    out.append("};\n")
    for table, entries in tables.items():
        out.append(f"PyMethodDef tl_py_generated_{table}[] = {{")
        out.extend(entries)
        out.append("    {NULL, NULL, 0, NULL},")
        out.append("};\n")
    out[-1] = out[-1].rstrip("\n")
    files["bindings.c"] = out
    files["binders.h"] = [HEADER, "#ifndef TL_PY_GENERATED_BINDERS_H",
                          "#define TL_PY_GENERATED_BINDERS_H\n",
                          '#include "ndcore/bindings/generated/bindings.h"\n',
                          "/* Every generated binder (bind_<family>.c), for the tables of",
                          " * bindings.c and the overloads' callers. */"] + decls + ["", "#endif"]
    for name, lines in files.items():
        if name.startswith("bind_"):
            lines[-1] = lines[-1].rstrip("\n")
    return {name: "\n".join(lines) + "\n" for name, lines in files.items()}


def outputs():
    sigs = read_signatures()
    return {"signatures.c": gen_signatures_c(sigs), **gen_bindings_h(sigs),
            **gen_bindings_c(sigs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="fail if the checked-in files are not what the signatures give")
    ap.add_argument("--stamp", help="touch this file when the check passes (for the build)")
    args = ap.parse_args()
    stale = []
    files = outputs()
    for name in sorted(os.listdir(OUT_DIR)) if os.path.isdir(OUT_DIR) else []:
        if name not in files:  # a family that is gone
            if args.check:
                stale.append(name)
            else:
                os.remove(os.path.join(OUT_DIR, name))
                print(f"removed {os.path.relpath(os.path.join(OUT_DIR, name), ROOT)}")
    for name, text in files.items():
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
