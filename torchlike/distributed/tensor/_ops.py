"""How ops run on DTensors: the propagation rules.

``dispatch(func, args, kwargs)`` is DTensor's ``__torch_function__``.  It
looks the function's name up in ``_RULES``; each rule decides the
placements the inputs must have (redistributing them, differentiably, when
they differ), runs the function on the local tensors and wraps the result
with the output's placements and global shape:

* metadata (``shape``, ``size()``, ``dim()``, ``numel()``, ``stride()``,
  ``len``) is the global tensor's; ``dtype``, ``device``, ``requires_grad``
  ... the local tensor's; ``grad`` comes back a DTensor;
* pointwise ops (broadcasting, Python numbers and 0-d tensors as scalars):
  a mesh dimension sharding an output dimension that some input does not
  broadcast along keeps it, the other inputs are sharded alike (a
  broadcast input replicated); Partial survives linear ops (negation,
  scaling by a number or a replicated tensor, sums of Partials, a
  replicated addend becoming a share) when it is a sum or avg; a
  Partial max / min keeps only copies, casts and a replicated addend
  (negation, scaling and sums of two do not commute with max), a Partial
  product only copies and casts; otherwise inputs are replicated;
* ``mm``, ``matmul``, ``bmm``, ``linear``, ``addmm``: Replicate x Shard(n)
  -> Shard(-1); Shard(rows) x Replicate -> Shard(rows); Shard(k) x
  Shard(k) -> Partial; Partial(sum/avg) x Replicate -> Partial; other combinations
  are first moved to the nearest of these;
* ``sum`` / ``mean`` (``dim``, ``keepdim``): a reduced sharded dimension
  becomes Partial (``mean`` divides by the global count), others keep
  their sharding; Partial stays Partial;
* views: ``view``/``reshape`` keep a sharding when the sharded dimension
  survives whole, or is the first of dimensions merged or split with pieces
  that stay torch.chunk's pieces; ``transpose``, ``t``, ``T``, ``permute``,
  ``unsqueeze``, ``squeeze``, ``flatten`` move the sharded dimension;
* ``softmax``/``log_softmax`` and ``layer_norm``/``rms_norm`` keep
  shardings of the dimensions they do not act along;
* ``*_like`` factories keep the input's layout (Partial read as Replicate);
* everything else (the fallback): every DTensor argument is replicated,
  the function runs on the whole values and tensor results are replicated
  DTensors; an in-place fallback writes its result back into the piece.

A plain tensor of one or more dimensions mixed with DTensors raises
PyTorch's "got mixed torch.Tensor and DTensor" error; DTensors on
different meshes raise its cross-mesh error."""
import math

from ... import _C
from ..._C import DisableTorchFunctionSubclass
from ...autograd.grad_mode import no_grad
from ...overrides import resolve_name, short_name
from . import _redistribute as R
from ._api import DTensor, local_for_op, plain, wrap
from .placement_types import Partial, Replicate, Shard

Tensor = _C.Tensor


def _qual(func):
    return resolve_name(func) or getattr(func, "__name__", repr(func))


def _call(func, args, kwargs):
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


def _norm_dim(d, ndim):
    if ndim == 0 and d in (0, -1):
        return 0
    if not -ndim <= d < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d + ndim if d < 0 else d


def _is_dtensor(a):
    return isinstance(a, DTensor)


def _is_plain(a):
    """A plain tensor that takes part in an op beside DTensors (0-d ones are
    taken as scalars)."""
    return isinstance(a, Tensor) and not isinstance(a, DTensor) and a.ndim > 0


def _leaves(args, kwargs, takes):
    """The arguments that takes(a) accepts, through lists and tuples, in order."""
    def visit(a):
        if takes(a):
            yield a
        elif isinstance(a, (list, tuple)):
            for b in a:
                yield from visit(b)
    for a in (*args, *kwargs.values()):
        yield from visit(a)


def _dtensors(args, kwargs):
    return list(_leaves(args, kwargs, _is_dtensor))


def _mesh_of(func, args, kwargs, strict=True):
    dts = _dtensors(args, kwargs)
    mesh = dts[0]._spec.mesh
    for d in dts[1:]:
        if d._spec.mesh != mesh:
            raise RuntimeError(f"Cannot run {_qual(func)} on inputs with different meshes: "
                               f"got {mesh} and {d._spec.mesh}")
    if strict and next(_leaves(args, kwargs, _is_plain), None) is not None:
        raise RuntimeError(f"{_qual(func)}: got mixed torch.Tensor and DTensor, need "
                           f"to convert all torch.Tensor to DTensor before calling "
                           f"distributed operators!")
    return mesh


def _move(dt, placements):
    """dt's local tensor (for an op) laid out by ``placements``."""
    spec = dt._spec
    return R.redistribute_local(local_for_op(dt), spec.mesh, spec.placements, placements,
                                spec.shape)


def _map_args(args, kwargs, fn, takes=_is_dtensor):
    """args and kwargs with fn(a) for each `a` that takes(a) accepts, through
    lists and tuples."""
    def m(a):
        if takes(a):
            return fn(a)
        if isinstance(a, list):
            return [m(b) for b in a]
        if isinstance(a, tuple):
            return tuple(m(b) for b in a)
        return a
    return tuple(m(a) for a in args), {k: m(v) for k, v in kwargs.items()}


def _wrap_all(out, mesh, placements_for):
    """Tensors of ``out`` (a tensor, tuple or list) wrapped as DTensors."""
    if isinstance(out, Tensor):
        pl, shape = placements_for(out)
        return wrap(out, mesh, pl, shape)
    if isinstance(out, (tuple, list)) and any(isinstance(o, Tensor) for o in out):
        items = [_wrap_all(o, mesh, placements_for) for o in out]
        if type(out) in (tuple, list):
            return type(out)(items)
        # a namedtuple takes the fields, a struct sequence (return_types) the sequence
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out


def _replicate_all(mesh):
    return tuple(Replicate() for _ in range(mesh.ndim))


# ---- metadata ---------------------------------------------------------------------------------

def _shape(func, name, args, kwargs):
    return _C.Size(args[0]._spec.shape)


def _size(func, name, args, kwargs):
    shape = args[0]._spec.shape
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        return _shape(func, name, args, kwargs)
    return shape[_norm_dim(dim, len(shape))]


def _stride(func, name, args, kwargs):
    stride = args[0]._spec.stride
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    return stride if dim is None else stride[_norm_dim(dim, len(stride))]


def _ndim(func, name, args, kwargs):
    return len(args[0]._spec.shape)


def _numel(func, name, args, kwargs):
    return math.prod(args[0]._spec.shape)


def _len(func, name, args, kwargs):
    shape = args[0]._spec.shape
    if not shape:
        raise TypeError("len() of a 0-d tensor")
    return shape[0]


def _local_meta(func, name, args, kwargs):
    return _call(func, args, kwargs)


def _self_result(func, name, args, kwargs):
    _call(func, args, kwargs)
    return args[0]


def _grad(func, name, args, kwargs):
    g = _call(func, args, kwargs)
    if g is None or isinstance(g, DTensor):
        return g
    self = args[0]
    spec = self._spec
    # a leaf's gradient was given PyTorch's layout on its way in
    # (local_for_op); a retained non-leaf gradient is in the adjoint one
    pl = R.grad_layout(spec.placements) if _call(Tensor.is_leaf.__get__, (self,), {}) else \
        R.adjoint(spec.placements)
    return wrap(g, spec.mesh, pl, spec.shape, spec.stride)


def _data(func, name, args, kwargs):
    spec = args[0]._spec
    return wrap(plain(args[0]).detach(), spec.mesh, spec.placements, spec.shape, spec.stride)


def _set_data(func, name, args, kwargs):
    self, value = args[0], args[1]
    if isinstance(value, DTensor):
        self._spec = value._spec
        value = plain(value)
    with DisableTorchFunctionSubclass():
        Tensor.data.__set__(self, value)


def _backward(func, name, args, kwargs):
    """``dt.backward(gradient)``: the gradient (ones for a one-element
    DTensor) read in PyTorch's layout and moved to the adjoint one."""
    self = args[0]
    gradient = args[1] if len(args) > 1 else kwargs.pop("gradient", None)
    rest = {k: v for k, v in kwargs.items() if k != "gradient"}
    spec = self._spec
    if gradient is None:
        if math.prod(spec.shape) != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        g = _C.ones_like(plain(self).detach())
        gsrc = R.grad_layout(spec.placements)
    elif isinstance(gradient, DTensor):
        g, gsrc = plain(gradient).detach(), gradient._spec.placements
    else:
        g, gsrc = gradient, R.grad_layout(spec.placements)
    with no_grad():
        g = R.transform(g, spec.mesh, gsrc, R.adjoint(spec.placements), spec.shape, zero=True)
    with DisableTorchFunctionSubclass():
        return Tensor.backward(plain(self), g, **rest)


# ---- pointwise --------------------------------------------------------------------------------

_UNARY = set("""abs absolute neg negative exp exp2 expm1 log log2 log10 log1p sin cos tan asin
acos atan sinh cosh tanh asinh acosh atanh sigmoid relu relu6 gelu silu mish selu celu elu
leaky_relu hardtanh hardsigmoid hardswish softplus softsign logsigmoid tanhshrink sqrt rsqrt
square reciprocal sign sgn floor ceil round trunc frac erf erfc erfinv logit nan_to_num
clamp clip clamp_min clamp_max positive logical_not bitwise_not isnan isinf isfinite signbit
angle conj real imag threshold __neg__ __abs__ __invert__ __pos__ float double half bfloat16
int long short bool byte char to type cpu cuda contiguous clone detach requires_grad_
float_power dropout alpha_dropout feature_alpha_dropout""".split())
_BINARY = set("""add sub subtract rsub mul multiply div divide true_divide floor_divide remainder
fmod pow maximum minimum fmax fmin atan2 hypot eq ne lt le gt ge logical_and logical_or
logical_xor bitwise_and bitwise_or bitwise_xor where lerp addcmul addcdiv copysign xlogy
type_as masked_fill __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__
__rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __eq__ __ne__
__lt__ __le__ __gt__ __ge__ __and__ __or__ __xor__ __rand__ __ror__ __rxor__""".split())
_INPLACE_DUNDER = {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul",
                   "__itruediv__": "div", "__ipow__": "pow", "__iand__": "bitwise_and",
                   "__ior__": "bitwise_or", "__ixor__": "bitwise_xor"}
# ops that map Partial to Partial (linear in their tensor argument)
_LINEAR_UNARY = {"neg", "negative", "__neg__", "positive", "__pos__", "clone", "contiguous",
                 "detach", "float", "double", "half", "bfloat16", "to", "type", "cpu", "cuda",
                 "requires_grad_", "real", "imag", "conj"}
# linear maps that do not keep order or value: not through max / min / product
_SIGN_UNARY = {"neg", "negative", "__neg__", "real", "imag", "conj"}
_ADDS = {"add", "__add__", "__radd__", "sub", "subtract", "__sub__", "__rsub__", "rsub"}
_MULS = {"mul", "multiply", "__mul__", "__rmul__"}
_DIVS = {"div", "divide", "true_divide", "__truediv__"}


def _broadcast_shape(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s):
            j = nd - len(s) + i
            if n != 1:
                if out[j] not in (1, n):
                    raise RuntimeError(f"The size of tensor a ({out[j]}) must match the size "
                                       f"of tensor b ({n}) at non-singleton dimension {j}")
                out[j] = n
    return tuple(out)


def _partial_ok(base, dts, args, out_partials, k):
    """Whether Partial may pass through op ``base`` when the DTensor
    arguments ``dts`` are laid out as now (all other mesh dims agreed)."""
    ops = {d._spec.placements[k].reduce_op for d in out_partials}
    if ops - {"sum", "avg"}:
        # max / min / product: only order- and value-keeping maps commute
        # with the reduction (-max(a) is min(-a), max(a) + max(b) is not
        # max(a + b)); a replicated addend commutes with max / min
        if base in _LINEAR_UNARY:
            return len(dts) == 1 and base not in _SIGN_UNARY
        if base in _ADDS and base not in ("sub", "subtract", "__sub__", "__rsub__", "rsub"):
            return ops <= {"max", "min"} and len(out_partials) == 1 and \
                not any(isinstance(a, (int, float, complex)) or isinstance(a, Tensor)
                        for a in args if not isinstance(a, DTensor))
        return False
    if base in _LINEAR_UNARY:
        return len(dts) == 1
    others = [a for a in args if not isinstance(a, DTensor)]
    if base in _ADDS:
        # sums of partials, or a partial plus a replicated share; never a number
        return not any(isinstance(a, (int, float, complex)) or isinstance(a, Tensor)
                       for a in others)
    if base in _MULS:
        return len(out_partials) == 1
    if base in _DIVS:
        return len(out_partials) == 1 and out_partials[0] is args[0]
    return False


def _pointwise(func, name, args, kwargs, base=None, inplace=False):
    base = base or name
    mesh = _mesh_of(func, args, kwargs)
    dts = _dtensors(args, kwargs)
    self = args[0] if inplace else None
    shapes = [d._spec.shape for d in dts]
    out_shape = self._spec.shape if inplace else _broadcast_shape(shapes)
    nd = len(out_shape)
    targets = {id(d): list(d._spec.placements) for d in dts}
    out_pl = []
    for k in range(mesh.ndim):
        def aligned(d, od):
            s = d._spec.shape
            i = od - (nd - len(s))
            return i if 0 <= i < len(s) and not (s[i] == 1 and out_shape[od] != 1) else None
        if inplace:
            choice = self._spec.placements[k]
        else:
            choice = None
            for d in dts:
                p = d._spec.placements[k]
                if isinstance(p, Shard):
                    od = p.dim + nd - len(d._spec.shape)
                    if aligned(d, od) is not None:
                        choice = Shard(od)
                        break
        if isinstance(choice, Shard):
            for d in dts:
                i = aligned(d, choice.dim)
                targets[id(d)][k] = Shard(i) if i is not None else Replicate()
            out_pl.append(choice)
            continue
        partials = [d for d in dts if d._spec.placements[k].is_partial()]
        if partials and (inplace and choice.is_partial() or not inplace) and \
                _partial_ok(base, dts, args, partials, k):
            op = partials[0]._spec.placements[k]
            for d in dts:
                targets[id(d)][k] = op  # a replicated addend / factor becomes a share
                if base in _MULS or base in _DIVS:
                    # (identity: ``in`` would compare DTensors elementwise)
                    targets[id(d)][k] = op if any(d is q for q in partials) else Replicate()
            out_pl.append(op)
            continue
        if inplace and choice.is_partial():
            raise RuntimeError(f"{_qual(func)}: in-place op on a Partial DTensor needs its "
                               f"placements to change; redistribute it first")
        for d in dts:
            targets[id(d)][k] = Replicate()
        out_pl.append(Replicate())
    moved = {id(d): _move(d, tuple(targets[id(d)])) for d in dts}
    if inplace:
        moved[id(self)] = plain(self)
    largs, lkwargs = _map_args(args, kwargs, lambda d: moved[id(d)])
    out = _call(func, largs, lkwargs)
    if inplace:
        return self
    return _wrap_all(out, mesh, lambda o: (tuple(out_pl), out_shape))


def _like(func, name, args, kwargs):
    self = args[0]
    spec = self._spec
    out = _call(func, (plain(self).detach(),) + tuple(args[1:]), kwargs)
    return wrap(out, spec.mesh, R.grad_layout(spec.placements), spec.shape)


def _new_factory(func, name, args, kwargs):
    """``new_zeros(size)`` ...: of the input's global shape, the input's
    layout (Partial read as Replicate), as PyTorch keeps it; otherwise a
    replicated tensor."""
    self = args[0]
    spec = self._spec
    rest = list(args[1:])
    size = rest.pop(0) if rest else kwargs.pop("size")
    if isinstance(size, int):
        size = (size,) + tuple(a for a in rest if isinstance(a, int))
        rest = [a for a in rest if not isinstance(a, int)]
    size = tuple(size)
    pl = R.grad_layout(spec.placements) if size == spec.shape else \
        _replicate_all(spec.mesh)
    lshape = R.local_shape_and_offset(size, spec.mesh, pl)[0]
    out = _call(func, (plain(self).detach(), lshape) + tuple(rest), kwargs)
    return wrap(out, spec.mesh, pl, size)


# ---- matmul -----------------------------------------------------------------------------------

def _contract_rule(pa, pb, na, nb):
    """Output placement of a @ b on one mesh dim, or None.  a has na dims
    (contraction: its last), b has nb dims (contraction: nb-2, columns:
    nb-1, batch dims before, aligned to a's leading dims from the right of
    a's batch part)."""
    ka, kb, nbcol = na - 1, nb - 2, nb - 1
    out_nd = max(na, nb)
    if isinstance(pa, Replicate) and isinstance(pb, Replicate):
        return Replicate()
    if isinstance(pa, Shard) and isinstance(pb, Shard):
        if pa.dim == ka and pb.dim == kb:
            return Partial()
        # matching batch dims
        oa, ob = pa.dim + out_nd - na, pb.dim + out_nd - nb
        if pa.dim < na - 2 and pb.dim < nb - 2 and oa == ob:
            return Shard(oa)
        return None
    if isinstance(pa, Shard) and isinstance(pb, Replicate) and pa.dim != ka:
        return Shard(pa.dim + out_nd - na)
    if isinstance(pa, Replicate) and isinstance(pb, Shard) and pb.dim != kb:
        if pb.dim == nbcol:
            return Shard(out_nd - 1)
        return Shard(pb.dim + out_nd - nb)  # a batch dim of b
    # a product with a replicated factor is linear: it commutes with sum and
    # avg, not with max / min / product (a negative entry flips the order)
    if isinstance(pa, Partial) and isinstance(pb, Replicate) and pa.reduce_op in ("sum", "avg"):
        return pa
    if isinstance(pa, Replicate) and isinstance(pb, Partial) and pb.reduce_op in ("sum", "avg"):
        return pb
    return None


def _contract_fix(pa, pb, na, nb):
    """New (pa, pb) closer to a rule."""
    ka, kb = na - 1, nb - 2
    if isinstance(pa, Partial):
        return Replicate(), pb
    if isinstance(pb, Partial):
        return pa, Replicate()
    if isinstance(pa, Shard) and pa.dim == ka:
        return pa, Shard(kb)
    if isinstance(pb, Shard) and pb.dim == kb:
        return (Shard(ka) if isinstance(pa, Replicate) else pa), \
            (pb if isinstance(pa, Replicate) else Replicate())
    if isinstance(pa, Shard):
        return pa, Replicate()
    return Replicate(), pb


def _contract(mesh, a_pl, b_pl, na, nb):
    """(a targets, b targets, output placements) for a @ b."""
    at, bt, out = [], [], []
    for pa, pb in zip(a_pl, b_pl):
        for _ in range(4):
            r = _contract_rule(pa, pb, na, nb)
            if r is not None:
                break
            pa, pb = _contract_fix(pa, pb, na, nb)
        else:
            pa, pb, r = Replicate(), Replicate(), Replicate()
        at.append(pa)
        bt.append(pb)
        out.append(r)
    return tuple(at), tuple(bt), tuple(out)


def _t_placements(pl, nd):
    """Placements of the transpose of the last two dims."""
    out = []
    for p in pl:
        if isinstance(p, Shard) and p.dim in (nd - 1, nd - 2):
            p = Shard(2 * nd - 3 - p.dim)
        out.append(p)
    return tuple(out)


def _bias_targets(bias, out_pl, out_shape):
    nd, s = len(out_shape), bias._spec.shape
    targets = []
    for p in out_pl:
        if isinstance(p, Shard):
            i = p.dim - (nd - len(s))
            ok = 0 <= i < len(s) and not (s[i] == 1 and out_shape[p.dim] != 1)
            targets.append(Shard(i) if ok else Replicate())
        elif isinstance(p, Partial):
            targets.append(p)
        else:
            targets.append(Replicate())
    return tuple(targets)


def _matmul_shape(sa, sb):
    if len(sa) < 1 or len(sb) < 2:
        return None
    batch = _broadcast_shape([sa[:-2] if len(sa) >= 2 else (), sb[:-2]])
    rows = sa[-2:-1] if len(sa) >= 2 else ()
    if len(sa) >= 2 and len(sb) > 2 and len(sa) != len(sb):
        return None
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, sa))} "
                           f"and {'x'.join(map(str, sb))})")
    return tuple(batch) + tuple(rows) + (sb[-1],)


def _matmul(func, name, args, kwargs):
    mesh = _mesh_of(func, args, kwargs)
    a, b = args[0], args[1]
    if name == "__rmatmul__":
        a, b = b, a
    if not (isinstance(a, DTensor) and isinstance(b, DTensor)):
        return _fallback(func, name, args, kwargs)
    sa, sb = a._spec.shape, b._spec.shape
    if len(sa) < 2 or len(sb) < 2 or (len(sb) > 2 and len(sa) != len(sb)):
        return _fallback(func, name, args, kwargs)
    out_shape = _matmul_shape(sa, sb)
    at, bt, out_pl = _contract(mesh, a._spec.placements, b._spec.placements, len(sa), len(sb))
    la, lb = _move(a, at), _move(b, bt)
    out = _call(func, (lb, la) if name == "__rmatmul__" else (la, lb), kwargs)
    return wrap(out, mesh, out_pl, out_shape)


def _linear(func, name, args, kwargs):
    mesh = _mesh_of(func, args, kwargs)
    x = args[0]
    w = args[1] if len(args) > 1 else kwargs.get("weight")
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    if not (isinstance(x, DTensor) and isinstance(w, DTensor)) or w.ndim != 2 or x.ndim < 1:
        return _fallback(func, name, args, kwargs)
    sx, sw = x._spec.shape, w._spec.shape
    if x.ndim == 1:
        return _fallback(func, name, args, kwargs)
    out_shape = _matmul_shape(sx, (sw[1], sw[0]))
    at, wt_t, out_pl = _contract(mesh, x._spec.placements, _t_placements(w._spec.placements, 2),
                                 len(sx), 2)
    lx, lw = _move(x, at), _move(w, _t_placements(wt_t, 2))
    lb = None
    if bias is not None:
        if not isinstance(bias, DTensor):
            return _fallback(func, name, args, kwargs)
        lb = _move(bias, _bias_targets(bias, out_pl, out_shape))
    out = _call(func, (lx, lw, lb), {})
    return wrap(out, mesh, out_pl, out_shape)


def _addmm(func, name, args, kwargs):
    mesh = _mesh_of(func, args, kwargs)
    bias, a, b = args[0], args[1], args[2]
    if not all(isinstance(t, DTensor) for t in (bias, a, b)) or a.ndim != 2 or b.ndim != 2:
        return _fallback(func, name, args, kwargs)
    out_shape = _matmul_shape(a._spec.shape, b._spec.shape)
    at, bt, out_pl = _contract(mesh, a._spec.placements, b._spec.placements, 2, 2)
    la, lb = _move(a, at), _move(b, bt)
    lbias = _move(bias, _bias_targets(bias, out_pl, out_shape))
    out = _call(func, (lbias, la, lb) + tuple(args[3:]), kwargs)
    return wrap(out, mesh, out_pl, out_shape)


# ---- reductions -------------------------------------------------------------------------------

def _reduction(func, name, args, kwargs):
    self = args[0]
    mesh = _mesh_of(func, args, kwargs)
    spec = self._spec
    nd = len(spec.shape)
    dim = args[1] if len(args) > 1 else kwargs.get("dim", kwargs.get("axis"))
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", kwargs.get("keepdims", False))
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        dims = tuple(range(nd))
    elif isinstance(dim, int):
        dims = (_norm_dim(dim, nd),)
    else:
        dims = tuple(sorted({_norm_dim(d, nd) for d in dim}))
    full = dim is None
    out_shape = tuple(n if i not in dims else 1 for i, n in enumerate(spec.shape)) \
        if keepdim and not full else tuple(n for i, n in enumerate(spec.shape) if i not in dims)
    if keepdim and full:
        out_shape = tuple(1 for _ in spec.shape)
    # mean over a sharded dim: PyTorch's Partial(avg) of the local means
    # when the pieces are even, else Partial(sum) of local sums / the count
    even = all(spec.shape[p.dim] % spec.mesh.size(k) == 0
               for k, p in enumerate(spec.placements) if isinstance(p, Shard) and p.dim in dims)
    reduced = "avg" if name == "mean" and even else "sum"
    targets, out_pl, partial_sum = [], [], False
    for p in spec.placements:
        if isinstance(p, Shard) and p.dim in dims:
            targets.append(p)
            out_pl.append(Partial(reduced))
            partial_sum = reduced == "sum"
        elif isinstance(p, Shard):
            targets.append(p)
            out_pl.append(p if keepdim else Shard(p.dim - sum(1 for d in dims if d < p.dim)))
        elif isinstance(p, Partial) and p.reduce_op in ("sum", "avg"):
            targets.append(p)
            out_pl.append(p)
        else:
            targets.append(Replicate())
            out_pl.append(Replicate())
    local = _move(self, tuple(targets))
    rest = dict(kwargs)
    for key in ("dim", "axis", "keepdim", "keepdims"):
        rest.pop(key, None)
    dtype = rest.pop("dtype", None)
    if name == "mean" and partial_sum:
        with DisableTorchFunctionSubclass():
            if not (local.dtype.is_floating_point or local.dtype.is_complex) and dtype is None:
                return _call(func, (local,) + tuple(args[1:]), kwargs)  # its dtype error
            count = math.prod(spec.shape[d] for d in dims)
            if full:
                out = _C.sum(local, dtype=dtype) / count
                if keepdim:
                    out = out.reshape(out_shape)
            else:
                out = _C.sum(local, dims, keepdim=bool(keepdim), dtype=dtype) / count
    else:
        largs = (local,) + tuple(args[1:])
        out = _call(func, largs, dict(kwargs))
    return wrap(out, mesh, tuple(out_pl), out_shape)


# ---- views -------------------------------------------------------------------------------------

def _permuted(func, perm, args, kwargs, out_shape=None):
    """A view that reorders dims by ``perm`` (out dim i is in dim perm[i])."""
    self = args[0]
    spec = self._spec
    out_pl = tuple(Shard(perm.index(p.dim)) if isinstance(p, Shard) else p
                   for p in spec.placements)
    out = _call(func, (local_for_op(self),) + tuple(args[1:]), kwargs)
    shape = tuple(spec.shape[i] for i in perm)
    return wrap(out, spec.mesh, out_pl, shape)


def _transpose(func, name, args, kwargs):
    nd = args[0].ndim
    if name in ("t", "get:T") and nd < 2:
        return _permuted(func, list(range(nd)), args, kwargs)
    if name in ("t", "get:T"):
        perm = list(reversed(range(nd)))
    else:
        d0 = args[1] if len(args) > 1 else kwargs.get("dim0")
        d1 = args[2] if len(args) > 2 else kwargs.get("dim1")
        d0, d1 = _norm_dim(d0, nd), _norm_dim(d1, nd)
        perm = list(range(nd))
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permuted(func, perm, args, kwargs)


def _permute(func, name, args, kwargs):
    nd = args[0].ndim
    dims = args[1:] if len(args) > 2 or (len(args) == 2 and isinstance(args[1], int)) else \
        (args[1] if len(args) > 1 else kwargs.get("dims"))
    perm = [_norm_dim(d, nd) for d in dims]
    return _permuted(func, perm, args, kwargs)


def _resolve_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) == 1:
        rest = math.prod(n for n in shape if n != -1)
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // rest
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view_dim(ins, outs, d, n):
    """The output dim that tensor dim ``d`` of ``ins`` (cut in ``n`` torch.chunk
    pieces) becomes under the reshape to ``outs`` with the pieces still
    torch.chunk pieces of it, or None."""
    before = math.prod(ins[:d])
    acc = 1
    for o in range(len(outs) + 1):
        if acc == before:
            break
        if o == len(outs):
            return None
        acc *= outs[o]
    else:
        return None
    # skip size-1 output dims at this position unless the input dim is 1
    while o < len(outs) and outs[o] == 1 and ins[d] != 1:
        o += 1
    if o >= len(outs):
        return None
    if outs[o] == ins[d]:
        return o
    from .placement_types import chunk_sizes
    if outs[o] > ins[d]:  # merged with the next input dims
        if _leading_product(ins, d, outs[o]) != outs[o]:
            return None
        tail = outs[o] // ins[d]
        in_pieces = [s * tail for s in chunk_sizes(ins[d], n)]
        chunk = chunk_sizes(outs[o], n)
    else:  # split into outs[o], outs[o+1], ...
        if _leading_product(outs, o, ins[d]) != ins[d]:
            return None
        tail = ins[d] // outs[o]
        in_pieces = chunk_sizes(ins[d], n)
        chunk = [s * tail for s in chunk_sizes(outs[o], n)]
    return o if in_pieces == chunk else None


def _leading_product(sizes, start, target):
    """The product of sizes[start], sizes[start + 1] ... up to the first that
    reaches target (equal to it when those dims make exactly target)."""
    prod = 1
    for size in sizes[start:]:
        if prod >= target:
            break
        prod *= size
    return prod


def _reshape(func, name, args, kwargs):
    self = args[0]
    spec = self._spec
    if len(args) > 2 or (len(args) == 2 and isinstance(args[1], int)):
        shape = tuple(args[1:])
    else:
        shape = args[1] if len(args) > 1 else kwargs.get("shape", kwargs.get("size"))
    if not isinstance(shape, (tuple, list)):  # view(dtype)
        return _fallback(func, name, args, kwargs)
    out_shape = _resolve_shape(tuple(shape), math.prod(spec.shape))
    targets, out_pl = [], []
    sharded = [p.dim for p in spec.placements if isinstance(p, Shard)]
    for k, p in enumerate(spec.placements):
        o = None
        if isinstance(p, Shard) and sharded.count(p.dim) == 1:
            o = _view_dim(spec.shape, out_shape, p.dim, spec.mesh.size(k))
        if isinstance(p, Shard) and o is None:
            targets.append(Replicate())
            out_pl.append(Replicate())
        else:
            targets.append(p)
            out_pl.append(Shard(o) if isinstance(p, Shard) else p)
    local = _move(self, tuple(targets))
    lshape, _ = R.local_shape_and_offset(out_shape, spec.mesh, out_pl)
    with DisableTorchFunctionSubclass():
        out = local.reshape(lshape) if name in ("reshape", "flatten") else \
            getattr(Tensor, name)(local, lshape)
    return wrap(out, spec.mesh, tuple(out_pl), out_shape)


def _flatten(func, name, args, kwargs):
    nd = args[0].ndim
    s = args[1] if len(args) > 1 else kwargs.get("start_dim", 0)
    e = args[2] if len(args) > 2 else kwargs.get("end_dim", -1)
    shape = args[0]._spec.shape
    if nd == 0:
        return _reshape(func, "reshape", (args[0], (1,)), {})
    s, e = _norm_dim(s, nd), _norm_dim(e, nd)
    new = shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:]
    return _reshape(func, "reshape", (args[0], new), {})


def _unsqueeze(func, name, args, kwargs):
    self = args[0]
    nd = self.ndim
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    d = _norm_dim(d, nd + 1)
    perm_shape = list(self._spec.shape)
    perm_shape.insert(d, 1)
    out_pl = tuple(Shard(p.dim + (p.dim >= d)) if isinstance(p, Shard) else p
                   for p in self._spec.placements)
    out = _call(func, (local_for_op(self),) + tuple(args[1:]), kwargs)
    return wrap(out, self._spec.mesh, out_pl, tuple(perm_shape))


def _squeeze(func, name, args, kwargs):
    self = args[0]
    spec = self._spec
    nd = len(spec.shape)
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        dims = [i for i, n in enumerate(spec.shape) if n == 1]
    else:
        dims = [_norm_dim(d, nd) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))]
        dims = [d for d in dims if spec.shape[d] == 1]
    targets = tuple(Replicate() if isinstance(p, Shard) and p.dim in dims else p
                    for p in spec.placements)
    local = _move(self, targets)
    out_pl = tuple(Shard(p.dim - sum(1 for d in dims if d < p.dim)) if isinstance(p, Shard)
                   else p for p in targets)
    with DisableTorchFunctionSubclass():
        out = local.squeeze(tuple(dims)) if dims else local.view_as(local)
    shape = tuple(n for i, n in enumerate(spec.shape) if i not in dims)
    return wrap(out, spec.mesh, out_pl, shape)


# ---- ops along some dims ----------------------------------------------------------------------

def _along(func, name, args, kwargs, acted, extra=()):
    """An op acting along dims ``acted`` of args[0], elementwise elsewhere;
    ``extra`` DTensor arguments (weights) are replicated."""
    self = args[0]
    spec = self._spec
    mesh = _mesh_of(func, args, kwargs)
    targets = tuple(Replicate() if (isinstance(p, Shard) and p.dim in acted) or
                    isinstance(p, Partial) else p for p in spec.placements)
    moved = {id(self): _move(self, targets)}
    for d in _dtensors(args[1:], kwargs):
        moved[id(d)] = _move(d, _replicate_all(mesh))
    largs, lkwargs = _map_args(args, kwargs, lambda d: moved[id(d)])
    out = _call(func, largs, lkwargs)
    return _wrap_all(out, mesh, lambda o: (targets, spec.shape))


def _softmax(func, name, args, kwargs):
    nd = args[0].ndim
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        return _fallback(func, name, args, kwargs)
    return _along(func, name, args, kwargs, {_norm_dim(dim, nd)})


def _norm(func, name, args, kwargs):
    nd = args[0].ndim
    ns = args[1] if len(args) > 1 else kwargs.get("normalized_shape")
    if ns is None:
        return _fallback(func, name, args, kwargs)
    k = 1 if isinstance(ns, int) else len(ns)
    return _along(func, name, args, kwargs, set(range(nd - k, nd)))


def _embedding(func, name, args, kwargs):
    """Lookups in a weight sharded on its columns (Colwise) give output
    sharded on its last dim; in a weight sharded on its rows (Rowwise) each
    rank looks up the ids it holds (zeros for the others): a Partial sum,
    as PyTorch's masked partial.  Ids keep their sharding."""
    ids = args[0]
    weight = args[1] if len(args) > 1 else kwargs.get("weight")
    rest = dict(kwargs)
    rest.pop("weight", None)
    if len(args) > 2 or any(rest.get(k) not in (None, False) for k in
                            ("max_norm", "scale_grad_by_freq", "sparse")) or \
            not isinstance(weight, DTensor) or weight.ndim != 2:
        return _fallback(func, name, args, kwargs)
    mesh = _mesh_of(func, args, kwargs)
    wspec = weight._spec
    ids_pl = ids._spec.placements if isinstance(ids, DTensor) else _replicate_all(mesh)
    ids_shape = tuple(ids._spec.shape if isinstance(ids, DTensor) else ids.shape)
    out_nd = len(ids_shape) + 1
    w_t, i_t, out_pl, row_dims = [], [], [], []
    for k, (pw, pi) in enumerate(zip(wspec.placements, ids_pl)):
        if isinstance(pi, Partial):
            pi = Replicate()
        if isinstance(pw, Shard) and pw.dim == 1:
            w_t.append(pw)
            i_t.append(Replicate())
            out_pl.append(Shard(out_nd - 1))
        elif isinstance(pw, Shard) and pw.dim == 0 and rest.get("padding_idx") is None:
            w_t.append(pw)
            i_t.append(Replicate())
            out_pl.append(Partial())
            row_dims.append(k)
        else:
            w_t.append(Replicate())
            i_t.append(pi)
            out_pl.append(pi)
    if len(row_dims) > 1:
        return _fallback(func, name, args, kwargs)
    lw = _move(weight, tuple(w_t))
    lids = _move(ids, tuple(i_t)) if isinstance(ids, DTensor) else ids
    if row_dims:
        _, offsets = R.local_shape_and_offset(wspec.shape, mesh, w_t)
        rows = _call(Tensor.size, (lw, 0), {})
        with DisableTorchFunctionSubclass():
            shifted = lids - offsets[0]
            mine = (shifted >= 0) & (shifted < rows)
            # (no rows here: zeros, still on the tape of the empty piece)
            out = func(shifted.clamp(0, max(rows - 1, 0)), lw, **rest) if rows else \
                _C.zeros(tuple(lids.shape) + (lw.shape[1],), dtype=lw.dtype) + lw.sum() * 0
            out = out * mine.unsqueeze(-1).to(out.dtype)
    else:
        out = _call(func, (lids, lw), rest)
    return wrap(out, mesh, tuple(out_pl), ids_shape + (wspec.shape[1],))


# ---- the fallback -----------------------------------------------------------------------------

def _fallback(func, name, args, kwargs):
    """Replicate every DTensor, run on the whole values, replicate the
    results; an in-place op writes the result back into self's piece."""
    mesh = _mesh_of(func, args, kwargs)
    rep = _replicate_all(mesh)
    moved = {}
    for d in _dtensors(args, kwargs):
        if id(d) not in moved:
            moved[id(d)] = _move(d, rep)
    inplace = name.endswith("_") and not name.startswith("__") or name in (
        "__setitem__",) or name in _INPLACE_DUNDER
    self = args[0] if inplace and args and isinstance(args[0], DTensor) else None
    largs, lkwargs = _map_args(args, kwargs, lambda d: moved[id(d)])
    out = _call(func, largs, lkwargs)
    if self is not None:
        spec = self._spec
        whole = moved[id(self)]
        with no_grad():
            piece = R.transform(whole.detach(), mesh, rep, spec.placements, spec.shape)
            with DisableTorchFunctionSubclass():
                plain(self).copy_(piece)
        return None if name == "__setitem__" else self
    return _wrap_all(out, mesh, lambda o: (rep, tuple(o.shape)))


# ---- the table --------------------------------------------------------------------------------

_RULES = {
    "get:shape": _shape, "size": _size, "stride": _stride, "dim": _ndim, "ndimension": _ndim,
    "get:ndim": _ndim, "numel": _numel, "nelement": _numel, "__len__": _len,
    "get:grad": _grad, "get:data": _data, "set:data": _set_data, "backward": _backward,
    "requires_grad_": _self_result, "retain_grad": _self_result,
    "mm": _matmul, "matmul": _matmul, "bmm": _matmul, "__matmul__": _matmul,
    "__rmatmul__": _matmul, "linear": _linear, "addmm": _addmm,
    "sum": _reduction, "mean": _reduction,
    "transpose": _transpose, "swapaxes": _transpose, "swapdims": _transpose, "t": _transpose,
    "get:T": _transpose, "permute": _permute, "view": _reshape, "reshape": _reshape,
    "flatten": _flatten, "_flatten_by_position": _flatten, "unsqueeze": _unsqueeze,
    "squeeze": _squeeze,
    "embedding": _embedding,
    "softmax": _softmax, "log_softmax": _softmax, "layer_norm": _norm, "rms_norm": _norm,
    "zeros_like": _like, "ones_like": _like, "empty_like": _like, "full_like": _like,
    "rand_like": _like, "randn_like": _like,
    "new_zeros": _new_factory, "new_ones": _new_factory, "new_empty": _new_factory,
    "new_full": _new_factory,
}
for _n in ("get:dtype", "get:device", "get:requires_grad", "get:is_leaf", "get:grad_fn",
           "get:is_cuda", "get:layout", "element_size", "get:itemsize", "is_floating_point",
           "is_complex", "get:_version", "get:is_sparse", "get:is_meta", "get:is_quantized",
           "get:is_nested", "get:output_nr", "is_contiguous", "set:requires_grad",
           "set:grad", "register_hook", "data_ptr", "get:is_mkldnn", "get:names",
           "__hash__", "get:_base", "register_post_accumulate_grad_hook", "get:is_cpu",
           "get_device", "get:nbytes", "is_set_to"):
    _RULES[_n] = _local_meta


# set by experimental.implicit_replication(): plain tensors mixed with
# DTensors are taken as replicated on their mesh
IMPLICIT_REPLICATION = [False]


def _replicate_plain(args, kwargs):
    dts = _dtensors(args, kwargs)
    if not dts:
        return args, kwargs
    mesh = dts[0]._spec.mesh
    return _map_args(args, kwargs,
                     lambda a: DTensor.from_local(a, mesh, [Replicate()] * mesh.ndim),
                     _is_plain)


# loss_parallel(): how many of its contexts are open; the rules it adds
# (parallel/loss.py) take precedence over _RULES while one is
LOSS_PARALLEL = [0]
LOSS_RULES = {}


def dispatch(func, args, kwargs):
    name = short_name(func)
    if LOSS_PARALLEL[0] and name in LOSS_RULES:
        return LOSS_RULES[name](func, name, args, kwargs)
    if IMPLICIT_REPLICATION[0] and not name.startswith(("get:", "set:")):
        args, kwargs = _replicate_plain(args, kwargs)
    rule = _RULES.get(name)
    if rule is not None:
        return rule(func, name, args, kwargs)
    if name in _UNARY or name in _BINARY:
        return _pointwise(func, name, args, kwargs)
    if name in _INPLACE_DUNDER:
        return _pointwise(func, name, args, kwargs, base=_INPLACE_DUNDER[name], inplace=True)
    if name.endswith("_") and not name.startswith("_") and (
            name[:-1] in _UNARY or name[:-1] in _BINARY or name in ("zero_", "fill_",
                                                                     "copy_")):
        if name in ("zero_", "fill_") and args and isinstance(args[0], DTensor):
            return _pointwise(func, name, args, kwargs, base="clone", inplace=True)
        return _pointwise(func, name, args, kwargs, base=name[:-1], inplace=True)
    return _fallback(func, name, args, kwargs)
