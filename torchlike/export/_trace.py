"""_trace.py - export's tracer: torchlike.fx tracing that carries real values.

``_ExportTracer`` is a torchlike.fx Tracer that

- traces through every module (no leaf modules): the graph holds torchlike
  functions and Tensor methods, never ``call_module``;
- lifts every parameter and buffer of the root to a placeholder
  (``p_<path>`` / ``b_<path>``, path dots as ``_``) ahead of the user inputs;
- runs each recorded operation on the example values as it records it
  (``node.meta["val"]``), so Python code reading shapes, dtypes or sizes sees
  real values and is specialised to them, as PyTorch's export specialises
  to its example inputs;
- for each dynamic dimension (a ``Dim``), runs the operations a second time
  on "shadow" inputs in which that dimension alone has another size
  (``node.meta["shadows"]``, one per symbol).  A dimension of any value whose
  shadow size differs depends on that symbol: reading it gives a
  ``sym_size`` node rather than a constant.  An operation that fails on a
  shadow, a ``bool()`` whose shadow differs or an ``int()`` of a symbolic
  size means the code specialised the dimension: a ``UserError`` as
  PyTorch's "Constraints violated", or for ``Dim.AUTO`` a retrace with the
  dimension static.

Invariants: every node but the output has ``meta["val"]``; ``meta["dd"]``
is True for values computed from tensor data (``.item()``), whose
``bool()``/``int()`` raise ``GuardOnDataDependentSymNode``.
"""
import functools
import inspect
import math
import operator
import os
import traceback

import torchlike
from torchlike.fx import Tracer
from torchlike.fx.node import Node, map_arg
from torchlike.fx.proxy import Proxy, Attribute
from torchlike.utils import _pytree as pytree

from .errors import UserError, GuardOnDataDependentSymNode

__all__ = ["sym_size", "trace_module"]

_FIX_HINT = ("\n\nThe error above occurred when calling torchlike.export.export.")


def sym_size(x, dim):
    """The size of ``x`` along ``dim`` read at run time (PyTorch's
    ``aten.sym_size.int``): a dynamic dimension read by the traced code."""
    return x.size(dim)


sym_size.__module__ = "torchlike.export"  # generated code names it there


# metadata read from a traced tensor without recording anything
_META_ATTRS = frozenset(["dtype", "device", "ndim", "is_cuda", "layout", "is_sparse",
                         "is_quantized", "is_meta", "is_nested", "is_mps", "is_cpu",
                         "itemsize"])
_META_METHODS = frozenset(["dim", "ndimension", "is_floating_point", "is_complex",
                           "is_contiguous", "element_size", "get_device", "is_signed"])


class _Specialize(Exception):
    """Internal: a Dim.AUTO dimension was specialised; retrace it static."""

    def __init__(self, symbol):
        super().__init__(symbol.name)
        self.symbol = symbol


class Symbol:
    """One dynamic dimension: its Dim's name and range, the example size, the
    size its shadow run uses and where it first appears (for messages)."""

    def __init__(self, name, lo, hi, example, where, auto):
        self.name, self.lo, self.hi, self.example = name, lo, hi, example
        self.where, self.auto = where, auto
        self.range_lo = lo  # what range_constraints show (a Dim's own min)
        # the sizes the shadow runs give this dimension: the next size up, and
        # one further away (so that n // 2 or n % 2 differ from the example's
        # on one of them); fewer near the ends of the range
        self.alts = []
        for cand in (example + 1, 2 * example + 1, example - 1, 2):
            if max(lo, 2) <= cand <= hi and cand != example and cand not in self.alts \
                    and len(self.alts) < 2:
                self.alts.append(cand)
        self.alt = self.alts[0] if self.alts else None

    def specialised(self, value):
        if self.auto:
            return _Specialize(self)
        return UserError(
            f"Constraints violated ({self.name})! \n  - You marked {self.name} as dynamic but "
            f"your code specialized it to be a constant ({value}). If you're using Dim.DYNAMIC, "
            f"replace it with either Dim.STATIC or Dim.AUTO.\nSuggested fixes:\n  "
            f"{self.name} = {value}" + _FIX_HINT)

    def not_all_values(self, guard):
        if self.auto:
            return _Specialize(self)
        return UserError(
            f"Constraints violated ({self.name})! \n  - Not all values of {self.name} = "
            f"{self.where} in the specified range satisfy the generated guard {guard}" +
            _FIX_HINT)


def force_name(graph, node, name):
    """Give ``node`` the name ``name`` even where fx would avoid it because it
    shadows a builtin (PyTorch's export names a Sequential's argument
    ``input``): generated code may shadow a builtin it never calls."""
    import keyword
    ns = graph._graph_namespace
    if node.name != name and name.isidentifier() and not keyword.iskeyword(name) \
            and name not in ns._used_names:
        ns._used_names.add(name)
        ns.associate_name_with_obj(name, node)
        node.name = name
    return node


class _ValueProxy(Proxy):
    """A Proxy whose node carries the example value (``meta["val"]``)."""

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        v = self.node.meta.get("val")
        if isinstance(v, torchlike.Tensor):
            if k == "shape":
                return self.tracer._shape(self)
            if k in _META_ATTRS:
                return getattr(v, k)
            if k == "requires_grad":  # traced under no_grad: what eager would say
                return self.node.meta.get("requires_grad", False)
            if k == "type":  # x.type() is metadata, x.type(dtype) a conversion
                return functools.partial(_type_method, self)
            if k in _META_METHODS:
                return getattr(v, k)
            if k == "size":
                return functools.partial(self.tracer._size, self)
            if k in ("numel", "nelement"):
                return functools.partial(self.tracer._numel, self)
        return Attribute(self, k)

    # --- using the value in Python ------------------------------------------------------

    def __bool__(self):
        return bool(self.tracer._concrete(self, "bool"))

    def __index__(self):
        return operator.index(self.tracer._concrete(self, "int"))

    def __int__(self):
        return int(self.tracer._concrete(self, "int"))

    def __float__(self):
        return float(self.tracer._concrete(self, "float"))

    def __setitem__(self, key, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

    def __len__(self):
        v = self.node.meta["val"]
        if isinstance(v, torchlike.Tensor):
            n = self.tracer._shape(self)[0] if v.dim() else len(v)
            return operator.index(n)
        return len(v)

    def __iter__(self):
        v = self.node.meta["val"]
        if isinstance(v, torchlike.Tensor):
            return iter([self[i] for i in range(len(self))])
        if isinstance(v, (tuple, list)):
            return iter([self[i] for i in range(len(v))])
        return super().__iter__()


def _type_method(proxy, dtype=None, non_blocking=False, **kwargs):
    if dtype is None and not kwargs:
        return proxy.node.meta["val"].type()
    return Attribute(proxy, "type")(dtype, non_blocking, **kwargs)


def _is_tensor(v):
    return isinstance(v, torchlike.Tensor)


def _narrow_to(v, dim, size):
    """v with its dim ``dim`` made ``size`` long (its first rows repeated when longer)."""
    n = v.shape[dim]
    if size <= n:
        return v.narrow(dim, 0, size).clone()
    parts = [v]
    while n < size:
        take = min(n, size - n)
        parts.append(v.narrow(dim, 0, take))
        n += take
    return torchlike.cat(parts, dim)


class _ExportTracer(Tracer):
    record_stack_traces = True

    def __init__(self, root, flat_inputs, input_names, in_spec, leaf_dims, symbols):
        super().__init__(autowrap_modules=(math,))
        self._export_root = root
        self._flat_inputs = flat_inputs      # the example leaves of (args, kwargs)
        self._input_names = input_names      # placeholder name per leaf
        self._in_spec = in_spec
        self._leaf_dims = leaf_dims          # {leaf index: {dim: Symbol}}
        # shadow k gives symbol _symbols[k] the size _alts[k] (each symbol has 1-2)
        self._symbols = [sym for sym in symbols for _ in sym.alts]
        self._alts = [a for sym in symbols for a in sym.alts]
        self._state = {}                     # id(param/buffer) -> placeholder proxy
        self.lifted = []                     # [(kind, placeholder name, target, persistent)]
        self._sym_cache = {}

    def _user_stack_trace(self):
        """As fx's, without export's own frames either."""
        frames = traceback.extract_stack()
        start = next((i for i, f in enumerate(frames) if f.name == "forward"), None)
        if start is None:
            return None
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        skip = (os.path.join(pkg, "fx") + os.sep, os.path.join(pkg, "export") + os.sep,
                os.path.join(pkg, "overrides.py"))
        user = [f for f in frames[start:] if not os.path.abspath(f.filename).startswith(skip)]
        return "".join(traceback.format_list(user)).strip() or None

    # ---- structure -------------------------------------------------------------------

    def is_leaf_module(self, m, module_qualified_name):
        return False

    def call_module(self, m, forward, args, kwargs):
        if self.submodule_paths is not None and id(m) not in self.submodule_paths:
            return forward(*args, **kwargs)  # a module made inside forward
        return super().call_module(m, forward, args, kwargs)

    def proxy(self, node):
        return _ValueProxy(node, self)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        if _is_tensor(attr_val):
            p = self._state.get(id(attr_val))
            if p is not None:
                return p
        return attr_val

    def create_arg(self, a):
        if _is_tensor(a):
            p = self._state.get(id(a))
            if p is not None:
                return p.node
        return super().create_arg(a)

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        root = self._export_root
        n_shadow = len(self._symbols)
        # parameters, then buffers, in the root's order (PyTorch's lifting order)
        persistent = set()
        for mname, m in root.named_modules():
            for bname in getattr(m, "_buffers", {}):
                if bname not in getattr(m, "_non_persistent_buffers_set", ()):
                    persistent.add(f"{mname}.{bname}" if mname else bname)
        state = [("PARAMETER", "p_", n, t) for n, t in root.named_parameters()] + \
                [("BUFFER", "b_", n, t) for n, t in root.named_buffers()]
        for kind, prefix, target, t in state:
            if id(t) in self._state:
                continue
            name = prefix + target.replace(".", "_")
            # buffers are copied: tracing runs in-place updates (BatchNorm's
            # running statistics in train mode) on the copy, not the module
            val = t.detach() if kind == "PARAMETER" else t.detach().clone()
            proxy = self._placeholder(name, val, [val] * n_shadow)
            proxy.node.meta["requires_grad"] = t.requires_grad
            self.lifted.append((kind, proxy.node.name, target, target in persistent))
            self._state[id(t)] = proxy
        leaves = []
        self.user_nodes = []
        for i, (v, name) in enumerate(zip(self._flat_inputs, self._input_names)):
            if not _is_tensor(v):
                # constants are specialised (PyTorch: a ConstantArgument input)
                self.user_nodes.append(self._placeholder(name, v, [v] * n_shadow).node)
                leaves.append(v)
                continue
            val = v.detach().clone()
            shadows = []
            for sym, alt in zip(self._symbols, self._alts):
                s = val
                for d, dsym in self._leaf_dims.get(i, {}).items():
                    if dsym is sym:
                        s = _narrow_to(s, d, alt)
                shadows.append(s)
            proxy = self._placeholder(name, val, shadows)
            proxy.node.meta["requires_grad"] = v.requires_grad
            self.user_nodes.append(proxy.node)
            leaves.append(proxy)
        args, kwargs = pytree.tree_unflatten(leaves, self._in_spec)
        fn = inspect.unwrap(root_fn)

        def call_root(*_):
            return fn(root, *args, **kwargs)
        return call_root, []

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        if kind == "get_attr":  # a tensor constant (create_arg makes these directly)
            val = self._export_root
            for atom in target.split("."):
                val = getattr(val, atom)
            node.meta["val"] = val
            node.meta["shadows"] = [val] * len(self._symbols)
        return node

    def _placeholder(self, name, val, shadows):
        node = force_name(self.graph, self.graph.create_node("placeholder", name, (), {},
                                                             name=name), name)
        node.meta["val"] = val
        node.meta["shadows"] = shadows
        return self.proxy(node)

    # ---- running what is recorded ----------------------------------------------------

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr,
                                     proxy_factory_fn)
        node = proxy.node
        if kind == "get_attr":
            return proxy
        if kind not in ("call_function", "call_method"):
            raise NotImplementedError(f"torchlike.export: cannot run a {kind} node")
        node.meta["val"] = self._run(node, lambda n: n.meta["val"])
        if _is_tensor(node.meta["val"]):
            # as autograd would set it: floating results of inputs needing grad
            node.meta["requires_grad"] = any(
                n.meta.get("requires_grad") for n in node.all_input_nodes) and (
                node.meta["val"].is_floating_point() or node.meta["val"].is_complex())
        node.meta["dd"] = any(n.meta.get("dd") for n in node.all_input_nodes) or (
            not _is_tensor(node.meta["val"]) and target is not sym_size and
            any(_is_tensor(n.meta["val"]) for n in node.all_input_nodes) and
            not (target is operator.getitem and isinstance(
                node.args[0].meta["val"], (tuple, list))))
        shadows = []
        for k, sym in enumerate(self._symbols):
            if all(n.meta["shadows"][k] is n.meta["val"] for n in node.all_input_nodes):
                # nothing it reads depends on sym: the same value (and an
                # in-place op is not run twice)
                shadows.append(node.meta["val"])
                continue
            try:
                shadows.append(self._run(node, lambda n: n.meta["shadows"][k]))
            except Exception as e:  # noqa: BLE001 - the op refuses the other size
                err = sym.specialised(sym.example)
                if isinstance(err, UserError):
                    err.args = (err.args[0].replace(
                        "\nSuggested fixes", f"\n  ({node.format_node()} fails when "
                        f"{sym.where} is {self._alts[k]}: {type(e).__name__}: {e})"
                        "\nSuggested fixes", 1),)
                raise err from None
        node.meta["shadows"] = shadows
        return proxy

    @staticmethod
    def _run(node, value_of):
        args = map_arg(node.args, value_of)
        kwargs = map_arg(node.kwargs, value_of)
        if node.op == "call_function":
            return node.target(*args, **kwargs)
        return getattr(args[0], node.target)(*args[1:], **kwargs)

    # ---- shapes ----------------------------------------------------------------------

    def _dim_symbols(self, node, d):
        """The symbols dim ``d`` of node's tensor value depends on."""
        v = node.meta["val"]
        out = []
        for sym, s in zip(self._symbols, node.meta.get("shadows", ())):
            if (not _is_tensor(s) or s.dim() != v.dim() or s.shape[d] != v.shape[d]) \
                    and sym not in out:
                out.append(sym)
        return out

    def _size_of(self, proxy, d):
        v = proxy.node.meta["val"]
        d = d + v.dim() if d < 0 else d
        if not self._dim_symbols(proxy.node, d):
            return int(v.shape[d])
        key = (proxy.node, d)
        cached = self._sym_cache.get(key)
        if cached is None:
            cached = self.create_proxy("call_function", sym_size, (proxy, d), {},
                                       name="sym_size_int")
            cached.node.meta["syms"] = self._dim_symbols(proxy.node, d)
            self._sym_cache[key] = cached
        return cached

    def _shape(self, proxy):
        v = proxy.node.meta["val"]
        dims = [self._size_of(proxy, d) for d in range(v.dim())]
        if all(isinstance(d, int) for d in dims):
            return torchlike.Size(dims)
        return tuple(dims)

    def _size(self, proxy, dim=None):
        if dim is None:
            return self._shape(proxy)
        return self._size_of(proxy, dim)

    def _numel(self, proxy):
        out = 1
        for d in self._shape(proxy):
            out = out * d
        return out

    # ---- Python reading a traced value ------------------------------------------------

    def _concrete(self, proxy, how):
        node = proxy.node
        v = node.meta["val"]
        if _is_tensor(v) or node.meta.get("dd"):
            raise GuardOnDataDependentSymNode(
                f"Could not guard on data-dependent expression: Python `{how}()` of a value "
                f"computed from tensor data (node {node.name}: {node.format_node()}). Export "
                "traces one path through the code; rewrite data-dependent control flow with "
                "torchlike.where or torchlike.cond." + _FIX_HINT)
        for sym, s in zip(self._symbols, node.meta.get("shadows", ())):
            if how == "bool":
                if bool(s) != bool(v) or not self._holds_on_range(node, sym, bool(v)):
                    expr = self._describe(node)
                    raise sym.not_all_values(expr if v else f"Not({expr})")
            elif s != v:
                raise sym.specialised(sym.example)
        return v

    def _holds_on_range(self, node, sym, want):
        """Does the condition hold at the ends of sym's range too (when it is
        an expression of input sizes only)?"""
        ends = [max(sym.lo, 2)] + ([sym.hi] if sym.hi != math.inf else [])
        for value in ends:
            got = _eval_sizes(node, sym, value)
            if got is not None and bool(got) != want:
                return False
        return True

    def _describe(self, node):
        return _expr_text(node)


def _sym_input(node):
    """(placeholder name, dim) when node is sym_size of an input."""
    if node.op == "call_function" and node.target is sym_size and \
            isinstance(node.args[0], Node) and node.args[0].op == "placeholder":
        return node.args[0].name, node.args[1]
    return None


def _eval_sizes(node, sym, value):
    """The value of an expression of input sizes with sym set to ``value``;
    None when it reads anything else."""
    def ev(n):
        if not isinstance(n, Node):
            return n
        if _sym_input(n) is not None:
            syms = n.meta.get("syms", ())
            if sym not in syms:
                return n.meta["val"]
            if len(syms) != 1:
                raise LookupError
            return value
        if n.op != "call_function" or getattr(n.target, "__module__", None) not in (
                "_operator", "builtins", "math"):
            raise LookupError
        return n.target(*map_arg(n.args, ev), **map_arg(n.kwargs, ev))

    try:
        out = ev(node)
    except (LookupError, TypeError):
        return None
    return out


def _expr_text(node):
    """A short text of a size expression (for guard messages)."""
    names = {operator.gt: ">", operator.ge: ">=", operator.lt: "<", operator.le: "<=",
             operator.eq: "==", operator.ne: "!=", operator.add: "+", operator.sub: "-",
             operator.mul: "*", operator.floordiv: "//", operator.mod: "%"}

    def text(n):
        if not isinstance(n, Node):
            return repr(n)
        si = _sym_input(n)
        if si is not None:
            return f"{si[0]}.size()[{si[1]}]"
        if n.op == "call_function" and n.target in names and len(n.args) == 2:
            return f"{text(n.args[0])} {names[n.target]} {text(n.args[1])}"
        return n.name
    return text(node)


def trace_module(root, flat_inputs, input_names, in_spec, leaf_dims, symbols):
    """Trace ``root`` on the example leaves; returns (graph, tracer).
    Raises _Specialize for a Dim.AUTO dimension the code specialised."""
    tracer = _ExportTracer(root, flat_inputs, input_names, in_spec, leaf_dims, symbols)
    before = set(vars(root))
    try:
        with torchlike.no_grad():
            graph = tracer.trace(root)
    finally:
        # fx parks tensors made during forward on the root (_tensor_constant<N>):
        # the values are in the nodes' meta; the module is left as it was
        tracer.parked = set()
        for qualname in set(tracer.tensor_attrs.values()):
            if "." not in qualname and qualname not in before and qualname in vars(root):
                delattr(root, qualname)
                tracer.parked.add(qualname)
    return graph, tracer


_DTYPE_ABBR = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
               "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
               "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "b8",
               "complex64": "c64", "complex128": "c128"}


def _size_text(size, sym, key, shadow_sizes):
    """A dynamic size as text: ``s0``, or a linear ``2*s0 + 1`` fitted to the
    example and shadow sizes when one fits all of them exactly, else ``?``."""
    points = [(sym.example, size)] + list(shadow_sizes)
    (x0, y0), (x1, y1) = points[0], points[1]
    if x1 == x0 or (y1 - y0) % (x1 - x0):
        return "?"
    a = (y1 - y0) // (x1 - x0)
    b = y0 - a * x0
    if any(a * x + b != y for x, y in points):
        return "?"
    term = key if a == 1 else f"{a}*{key}"
    return term if b == 0 else f"{term} + {b}" if b > 0 else f"{term} - {-b}"


def type_text(tracer, node, keys):
    """PyTorch's annotation of a value in printed programs: ``f32[s0, 4]``,
    ``Sym(s0)``; None for other values.  ``keys``: {Symbol: range key}."""
    v = node.meta.get("val")
    shadows = node.meta.get("shadows", ())
    if _is_tensor(v):
        dims = []
        for d, n in enumerate(v.shape):
            syms = tracer._dim_symbols(node, d)
            if not syms:
                dims.append(str(int(n)))
            elif len(syms) == 1:
                sizes = [(alt, int(s.shape[d])) for s, sym, alt in
                         zip(shadows, tracer._symbols, tracer._alts) if sym is syms[0]]
                dims.append(_size_text(int(n), syms[0], keys[syms[0]], sizes))
            else:
                dims.append("?")
        dtype = _DTYPE_ABBR.get(str(v.dtype).rpartition(".")[2], str(v.dtype))
        return f"{dtype}[{', '.join(dims)}]"
    if isinstance(v, int) and not isinstance(v, bool) and not node.meta.get("dd"):
        syms = [sym for sym, s in zip(tracer._symbols, shadows) if s != v]
        if len(set(syms)) == 1:
            sizes = [(alt, s) for s, sym, alt in zip(shadows, tracer._symbols, tracer._alts)
                     if sym is syms[0]]
            return f"Sym({_size_text(v, syms[0], keys[syms[0]], sizes)})"
    return None

