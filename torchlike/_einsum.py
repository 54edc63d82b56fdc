"""einsum: Einstein summation lowered onto views and batched GEMM.

The equation is parsed once; then, with no loop over data in Python:
  1. a label repeated within one operand becomes a diagonal view;
  2. a label no one else needs (not in the output, not in another operand) is
     summed out by a product with a ones vector;
  3. operands are contracted left to right: each pair is permuted to
     [batch..., free..., contracted...] x [batch..., contracted..., free...],
     reshaped to 3-d and multiplied with one (batched, broadcasting) matmul;
  4. the result is permuted into the output's label order.
``...`` stands for broadcast dims, aligned from the right as in NumPy.
"""
import functools
import math

from . import _C
from ._dtype_names import scalar_type_name


def _parse(equation, operands):
    """Each operand's labels and the output's (letters; ellipsis dims as -1, -2 ...)."""
    return _parse_shapes(equation, tuple(tuple(t.shape) for t in operands))


@functools.lru_cache(maxsize=256)
def _parse_shapes(equation, shapes):
    # cached: einsum in a loop parses the same equation for the same shapes,
    # and parsing cost more than contracting small operands
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum(): {len(terms)} operands in the equation '{equation}' but "
                         f"{len(shapes)} were given")
    # ellipsis dims get labels -1, -2, ... (rightmost is -1)
    n_ell = 0
    parsed = []
    for term, shape in zip(terms, shapes):
        if term.count("...") > 1 or "." in term.replace("...", ""):
            raise ValueError(f"einsum(): invalid ellipsis in subscript '{term}'")
        letters = [c for c in term.replace("...", "") ]
        for c in letters:
            if not c.isalpha():
                raise ValueError(f"einsum(): invalid subscript '{c}' in '{equation}': "
                                 f"subscripts must be letters")
        if "..." in term:
            k = len(shape) - len(letters)
            if k < 0:
                raise RuntimeError(f"einsum(): the subscript '{term}' has more labels than operand "
                                   f"of shape {shape} has dims")
            n_ell = max(n_ell, k)
            head, tail = term.split("...")
            labels = list(head) + list(range(-k, 0)) + list(tail)
        else:
            if len(letters) != len(shape):
                raise RuntimeError(f"einsum(): the number of subscripts in '{term}' ({len(letters)}) "
                                   f"does not match the number of dims of operand of shape "
                                   f"{shape}")
            labels = letters
        parsed.append(labels)
    if rhs is None:
        counts = {}
        for labels in parsed:
            for lab in labels:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        out = list(range(-n_ell, 0)) + sorted(c for c, n in counts.items() if n == 1)
    else:
        if rhs.count("...") > 1 or "." in rhs.replace("...", ""):
            raise ValueError(f"einsum(): invalid ellipsis in output subscript '{rhs}'")
        if "..." in rhs:
            head, tail = rhs.split("...")
            out = list(head) + list(range(-n_ell, 0)) + list(tail)
        else:
            out = list(rhs)
        seen = set()
        known = {lab for labels in parsed for lab in labels}
        for lab in out:
            if lab in seen:
                raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in "
                                   f"the output")
            if isinstance(lab, str) and lab not in known:
                raise RuntimeError(f"einsum(): output subscript {lab} does not appear in the "
                                   f"equation for any input operand")
            seen.add(lab)
    return tuple(tuple(labels) for labels in parsed), tuple(out)


def _take_diagonals(t, labels):
    """Collapse repeated labels of one operand into diagonal views."""
    labels = list(labels)
    while True:
        dup = next((lab for i, lab in enumerate(labels) if lab in labels[i + 1:]), None)
        if dup is None:
            return t, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        if t.shape[i] != t.shape[j]:
            raise RuntimeError(f"einsum(): subscript {dup} is repeated for operand but the sizes "
                               f"don't match, {t.shape[i]} != {t.shape[j]}")
        t = _C.diagonal(t, 0, i, j)
        labels = [lab for k, lab in enumerate(labels) if k not in (i, j)] + [dup]


def _sum_out(t, labels, drop):
    """Sum over the dims whose labels are in `drop`, as a product with ones."""
    dims = [i for i, lab in enumerate(labels) if lab in drop]
    if not dims:
        return t, labels
    keep = [i for i in range(t.ndim) if i not in dims]
    k = 1
    for i in dims:
        k *= t.shape[i]
    shape = [t.shape[i] for i in keep]
    flat = t.permute(*keep, *dims).reshape(*shape, k) if shape else t.reshape(1, k)
    r = _C.matmul(flat, _C.ones(k, dtype=t.dtype, device=t.device))
    return r.reshape(shape), [labels[i] for i in keep]


def _contract(a, la, b, lb, keep):
    """Contract two operands over their shared labels not in `keep`."""
    sa, sb = dict(zip(la, a.shape)), dict(zip(lb, b.shape))
    batch, contracted, a_only = [], [], []
    for lab in la:
        (a_only if lab not in sb else batch if lab in keep else contracted).append(lab)
    b_only = [lab for lab in lb if lab not in sa]
    if contracted:
        _same_dtype(a, b)
    for lab in contracted:
        if sa[lab] != sb[lab]:
            if 1 not in (sa[lab], sb[lab]):
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes: "
                                   f"subscript {lab} has size {sa[lab]} and {sb[lab]}")
            # a size-1 dim broadcasts against the other operand's, as in
            # NumPy and PyTorch
            if sa[lab] == 1:
                a = a.expand(*[sb[lab] if x == lab else -1 for x in la])
                sa[lab] = sb[lab]
            else:
                b = b.expand(*[sa[lab] if x == lab else -1 for x in lb])
                sb[lab] = sa[lab]
    pa = [la.index(lab) for lab in batch + a_only + contracted]
    pb = [lb.index(lab) for lab in batch + contracted + b_only]
    if contracted and not a_only and not b_only and _fusable(a, b):
        # products summed over the contracted labels in one pass, nothing
        # materialised: [batch, contracted] x [batch, contracted] -> [batch]
        dims = list(range(len(batch), len(batch) + len(contracted)))
        return _C._sumprod(_permuted(a, pa), _permuted(b, pb), dims), batch
    if not contracted or (not a_only and not b_only and not _unit_stride(a, la, b, lb, contracted)):
        return _product_sum(a, pa, b, pb, len(batch), len(a_only), len(contracted)), \
            batch + a_only + b_only
    k = math.prod(sa[lab] for lab in contracted)
    ma = _permuted(a, pa).reshape(*[sa[lab] for lab in batch],
                                  math.prod(sa[lab] for lab in a_only), k)
    mb = _permuted(b, pb).reshape(*[sb[lab] for lab in batch], k,
                                  math.prod(sb[lab] for lab in b_only))
    r = _C.matmul(ma, mb)
    shape = list(r.shape[:len(batch)]) + [sa[lab] for lab in a_only] + [sb[lab] for lab in b_only]
    return r.reshape(shape), batch + a_only + b_only


def _same_dtype(a, b):
    """A pair contracted over shared labels: PyTorch's einsum takes it to
    bmm, which refuses operands of two dtypes in its words (a pair with
    nothing contracted is a product, which promotes)."""
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found "
                           f"{scalar_type_name(b.dtype)}")


def _fusable(a, b):
    """Whether the pair may take the fused sum of products (_C._sumprod):
    host memory, and no gradient to record (it has no tape node; the
    product-and-sum and matmul paths carry the derivative formulas)."""
    if not (a.is_cpu and b.is_cpu):
        return False
    return not (_C.is_grad_enabled() and (a.requires_grad or b.requires_grad))


def _permuted(t, perm):
    return t if perm == list(range(len(perm))) else t.permute(*perm)


def _unit_stride(a, la, b, lb, contracted):
    """Whether the contracted labels run along adjacent elements of both
    operands, as one block: their batched dot products then read memory in
    order (matmul takes them as BLAS dots); otherwise a product and a sum do."""
    def adjacent(t, labels):
        step = 1
        for lab in reversed(contracted):
            d = labels.index(lab)
            if t.shape[d] != 1 and t.stride(d) != step:
                return False
            step *= t.shape[d]
        return True
    return adjacent(a, la) and adjacent(b, lb)


def _product_sum(a, pa, b, pb, nbatch, na, nk):
    """The pair's contraction as a broadcast product, summed over the
    contracted dims: for an outer or elementwise product (nothing contracted)
    and for batched dot products across memory (einsum('ij,ij->j')).

    a permuted: [batch, a_only, contracted]; b permuted: [batch, contracted, b_only]
    product:    [batch, a_only, contracted, b_only], contracted summed out."""
    av = a.permute(*pa)
    bv = b.permute(*pb)
    nb_only = bv.ndim - nbatch - nk
    av = av.reshape(*av.shape, *([1] * nb_only))
    bv = bv.reshape(*bv.shape[:nbatch], *([1] * na), *bv.shape[nbatch:])
    r = _C.mul(av, bv)
    if nk:  # in the operands' dtype: sum() alone widens integers to int64
        r = r.sum(tuple(range(nbatch + na, nbatch + na + nk)), dtype=r.dtype)
    return r


@functools.lru_cache(maxsize=256)
def _pair_plan(equation, shapes):
    """The fused lowering of a two-operand einsum whose operands carry the
    same labels, each once, some of them summed ('ij,ij->j', 'bij,bji->b',
    'i,i->'): (perm of a, perm of b, summed dims, perm of the result), with
    None for an identity perm; None when the equation is of another kind.
    Both operands are permuted to [kept..., summed...] in a's label order;
    sizes of 1 broadcast (_C._sumprod checks the rest)."""
    (la, lb), out = _parse_shapes(equation, shapes)
    if len(set(la)) != len(la) or len(set(lb)) != len(lb) or set(la) != set(lb):
        return None
    kept = [lab for lab in la if lab in out]
    summed = [lab for lab in la if lab not in out]
    if not summed or len(kept) != len(out):
        return None
    sa, sb = dict(zip(la, shapes[0])), dict(zip(lb, shapes[1]))
    if any(sa[lab] != sb[lab] and 1 not in (sa[lab], sb[lab]) for lab in la):
        return None  # the general path raises, naming the label

    def perm(labels, order):
        p = tuple(labels.index(lab) for lab in order)
        return None if p == tuple(range(len(p))) else p
    return (perm(la, kept + summed), perm(lb, kept + summed),
            tuple(range(len(kept), len(la))), perm(kept, out))


def einsum(equation, *operands):
    """Sum of products over the labels of ``equation`` (NumPy/PyTorch syntax,
    including ``...`` and implicit output)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum(): the first argument must be an equation string")
    operands = [t if isinstance(t, _C.Tensor) else _C.tensor(t) for t in operands]
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    if len(operands) == 2:
        a, b = operands
        plan = _pair_plan(equation, (tuple(a.shape), tuple(b.shape)))
        if plan is not None and _fusable(a, b):
            _same_dtype(a, b)
            pa, pb, dims, pr = plan
            r = _C._sumprod(a if pa is None else a.permute(pa),
                            b if pb is None else b.permute(pb), dims)
            return r if pr is None else r.permute(pr)
    parsed, out = _parse(equation, operands)
    ops = []
    for t, labels in zip(operands, parsed):
        ops.append(_take_diagonals(t, labels))

    def needed_after(i):
        need = set(out)
        for _, labels in ops[i + 1:]:
            need.update(labels)
        return need

    t, labels = ops[0]
    rest_labels = set(lab for _, ls in ops[1:] for lab in ls)
    t, labels = _sum_out(t, labels, set(labels) - set(out) - rest_labels)
    for i in range(1, len(ops)):
        b, lb = ops[i]
        keep = needed_after(i)
        b, lb = _sum_out(b, lb, set(lb) - keep - set(labels))
        t, labels = _sum_out(t, labels, set(labels) - keep - set(lb))
        t, labels = _contract(t, labels, b, lb, keep)
    # ellipsis dims missing from an operand broadcast as size 1
    perm = [labels.index(lab) for lab in out if lab in labels]
    t = t.permute(perm)  # always a new view, as PyTorch's (a 0-d operand's too)
    if len(perm) != len(out):
        shape = [t.shape[perm.index(labels.index(lab))] if lab in labels else 1 for lab in out]
        t = t.reshape(shape)
    return t
