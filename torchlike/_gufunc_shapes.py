"""NumPy's shape rules for a generalized ufunc (matmul's
``(n?,k),(k,m?)->(n?,m?)``), so that the namespace sizes operands and out=
as NumPy does and refuses in its words.

NumPy resolves a gufunc call in three steps, reproduced here in order:

1. each operand (inputs, then a given out) must hold its core dims; one
   that holds too few drops optional ("?") dims, in signature order, until
   it fits, and a dropped dim leaves every operand's core (so a 1-d out of
   a 2-d x 2-d matmul drops n, and the first operand's n becomes a loop dim);
2. the core dims with one label must agree in size, operand by operand;
3. the loop dims (what is left of each operand) go through NumPy's
   iterator, out's core dims appended to its shape: the operands broadcast
   together, and out must be the whole loop shape, with no dim of 1 or
   missing that the inputs make longer.

Invariant: ``resolve`` raises exactly the ValueError NumPy's ufunc machinery
raises for the same shapes (the words come from its ufunc and iterator
code), and otherwise returns what the kernel needs to run the call."""
import functools
from typing import NamedTuple, Tuple


class Resolved(NamedTuple):
    """A resolved call: the optional dims absent from it, the size of each
    core label, and the loop shape (the inputs' loop dims broadcast with a
    given out's)."""
    missing: frozenset
    sizes: dict
    loop: Tuple[int, ...]


@functools.lru_cache(maxsize=None)
def parse_signature(signature):
    """'(n?,k),(k,m?)->(n?,m?)' as (inputs, outputs, optional): each
    operand's core labels in order, and the labels that may be absent."""
    ins, outs = signature.replace(" ", "").split("->")

    def operands(side):
        return tuple(tuple(d for d in group.split(",") if d)
                     for group in side[1:-1].split("),("))
    optional = frozenset(d[:-1] for side in (ins, outs) for group in operands(side)
                         for d in group if d.endswith("?"))

    def plain(side):
        return tuple(tuple(d.rstrip("?") for d in group) for group in operands(side))
    return plain(ins), plain(outs), optional


def shape_words(vals, ending=""):
    """A shape as NumPy's messages print it: leading new axes (-1) left
    out, later ones as 'newaxis', a 1-d shape with its comma."""
    first = next((i for i, v in enumerate(vals) if v >= 0), len(vals))
    if first == len(vals):
        return "()" + ending
    words = [str(vals[first])] + ["newaxis" if v < 0 else str(v) for v in vals[first + 1:]]
    return "(" + ",".join(words) + ("," if len(vals) == 1 else "") + ")" + ending


def _operand_words(i, nin):
    return ("Input", i) if i < nin else ("Output", i - nin)


def _drop_optional(name, signature, cores, optional, shapes, nin):
    """Step 1 (NumPy's _validate_num_dims): each operand's number of core
    dims after the optional ones that do not fit are dropped, and the set of
    dropped labels."""
    counts = [len(c) for c in cores]
    missing = set()
    for i, shape in enumerate(shapes):
        if shape is None or len(shape) >= counts[i]:
            continue
        for label in cores[i]:
            if label in optional and label not in missing:
                missing.add(label)
                counts = [n - c.count(label) for n, c in zip(counts, cores)]
                if len(shape) == counts[i]:
                    break
        if len(shape) < counts[i]:
            kind, index = _operand_words(i, nin)
            raise ValueError(f"{name}: {kind} operand {index} does not have enough dimensions "
                             f"(has {len(shape)}, gufunc core with signature {signature} "
                             f"requires {counts[i]})")
    return counts, frozenset(missing)


def _core_sizes(name, signature, cores, counts, missing, shapes, nin):
    """Step 2 (NumPy's _get_coredim_sizes): the size of each core label,
    the first operand that holds it setting it (an absent label is 1)."""
    sizes = {}
    for i, shape in enumerate(shapes):
        if shape is None:
            continue
        start, skipped = len(shape) - counts[i], 0
        for place, label in enumerate(cores[i]):
            if label in missing:
                size, skipped = 1, skipped + 1
            else:
                size = shape[start + place - skipped]
            if label not in sizes:
                sizes[label] = size
            elif size != sizes[label]:
                kind, index = _operand_words(i, nin)
                raise ValueError(f"{name}: {kind} operand {index} has a mismatch in its core "
                                 f"dimension {place - skipped}, with gufunc signature "
                                 f"{signature} (size {size} is different from {sizes[label]})")
    for i in range(nin, len(shapes)):
        for place, label in enumerate(cores[i]):
            if label not in sizes:  # (given by no operand: an output's own label)
                raise ValueError(f"{name}: Output operand {i - nin} has core dimension {place} "
                                 f"unspecified, with gufunc signature {signature}")
    return sizes


def _iterator_axes(cores, counts, missing, sizes, shapes, nin, loop_ndim):
    """NumPy's iterator set-up for a gufunc: the requested shape (-1 where
    the operands decide: the loop dims; then each output's core sizes) and
    each operand's axis for every iterator dim (-1: a new axis; None: a
    reduction axis, the dims of the outputs' cores for every other operand)."""
    requested = [-1] * loop_ndim
    out_core = [sizes[label] for i in range(nin, len(shapes)) for label in cores[i]
                if label not in missing]
    requested += out_core
    axes, place = [], loop_ndim
    for i, shape in enumerate(shapes):
        n = len(shape) - counts[i] if shape is not None else loop_ndim
        row = [d - (loop_ndim - n) if d >= loop_ndim - n else -1 for d in range(loop_ndim)]
        row += [None] * len(out_core)
        if i >= nin:
            own = [label for label in cores[i] if label not in missing]
            for k in range(len(own)):
                row[place] = n + k
                place += 1
        axes.append(row)
    return requested, axes


def _broadcast(shapes, axes, requested):
    """The iterator's first pass: every operand's dims broadcast on the
    iterator dims they map to (NumPy's remapped-shapes ValueError)."""
    full = [1 if s < 0 else s for s in requested]
    for shape, row in zip(shapes, axes):
        if shape is None:
            continue
        for d, k in enumerate(row):
            if k is None or k < 0:
                continue
            if full[d] == 1:
                full[d] = shape[k]
            elif shape[k] not in (1, full[d]):
                words = "".join(
                    shape_words(s, "->") + shape_words(
                        [s[k] if k is not None and 0 <= k < len(s) else -1 for k in r], " ")
                    for s, r in zip(shapes, axes) if s is not None)
                raise ValueError("operands could not be broadcast together with remapped "
                                 f"shapes [original->remapped]: {words} and requested shape "
                                 f"{shape_words(requested)}")
    return full


def _check_outputs(shapes, axes, full, nin):
    """The iterator's second pass, innermost dim first: an output may not
    be broadcast (a dim of 1 where the loop is longer) nor reduced (a dim
    it lacks where the loop is longer than 1)."""
    ndim = len(full)
    for d in reversed(range(ndim)):
        if full[d] == 1:
            continue
        for i in range(nin, len(shapes)):
            shape, k = shapes[i], axes[i][d]
            if shape is None or k is None:
                continue
            if k < 0:
                raise ValueError("output operand requires a reduction along dimension -1, but "
                                 "the reduction is not enabled. The dimension size of 1 does "
                                 "not match the expected output shape.")
            if shape[k] == 1:
                # (NumPy prints the remapped shape with its axes reversed)
                remapped = [shape[j] if j is not None and 0 <= j < len(shape) else -1
                            for j in reversed(axes[i])]
                raise ValueError(f"non-broadcastable output operand with shape "
                                 f"{shape_words(shape)} [remapped to {shape_words(remapped)}] "
                                 f"doesn't match the broadcast shape {shape_words(full)}")


def resolve(name, signature, in_shapes, out_shapes=(None,)):
    """Size a call of the gufunc ``name`` with ``signature`` on inputs of
    ``in_shapes`` and outputs of ``out_shapes`` (None: not given), as NumPy
    does, raising its ValueError where it refuses (``Resolved``)."""
    ins, outs, optional = parse_signature(signature)
    cores, nin = ins + outs, len(ins)
    shapes = [tuple(s) if s is not None else None for s in (*in_shapes, *out_shapes)]
    counts, missing = _drop_optional(name, signature, cores, optional, shapes, nin)
    loop_ndim = max((len(s) - n for s, n in zip(shapes, counts) if s is not None), default=0)
    sizes = _core_sizes(name, signature, cores, counts, missing, shapes, nin)
    requested, axes = _iterator_axes(cores, counts, missing, sizes, shapes, nin, loop_ndim)
    full = _broadcast(shapes, axes, requested)
    _check_outputs(shapes, axes, full, nin)
    return Resolved(missing, sizes, tuple(full[:loop_ndim]))


def out_core_shape(signature, resolved, index=0) -> Tuple[int, ...]:
    """The core shape of output ``index`` in a resolved call."""
    outs = parse_signature(signature)[1]
    return tuple(resolved.sizes[label] for label in outs[index]
                 if label not in resolved.missing)

