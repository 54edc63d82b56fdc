"""torch.utils.flop_counter: FlopCounterMode, register_flop_formula and the
formula helpers.

The counter does not intercept calls itself: it runs the profiler's recorder
(torchlike.autograd.profiler, shapes and the values of number/int-list
arguments on) for the length of the ``with`` block, and on exit applies a
formula to every recorded op that has one: ``aten::mm``, ``aten::addmm``,
``aten::bmm``, ``aten::baddbmm``, ``aten::matmul`` (counted as PyTorch's
``aten.mm`` or ``aten.bmm``, the op its matmul runs), ``aten::convolution``,
the convolution backward node (as ``aten.convolution_backward``) and the CPU
attention kernels.  The ops backward nodes run are recorded too, so a
backward inside the block is counted.  Module names come from global module
forward hooks and gradient hooks, which drop markers into the same record
(see docs/profiler.md, "Counting FLOPs")."""
import functools
import math
import warnings
import weakref
from collections import Counter, defaultdict

import torchlike
from torchlike import _C
from torchlike._ops import OpOverloadPacket, ops
from torchlike.autograd import profiler as _recorder
from torchlike.autograd.graph import register_multi_grad_hook
from torchlike.utils._pytree import tree_flatten, tree_map

__all__ = ["FlopCounterMode", "register_flop_formula"]

aten = ops.aten


def _aten(name):
    """ops.aten.<name>; for an operator torchlike cannot call (it exists here
    as a counting key only: convolution_backward, the attention kernels) a
    packet whose call says so is made and kept in ops.aten."""
    try:
        return getattr(aten, name)
    except AttributeError:
        pass

    def call(overload, args, kwargs):
        raise NotImplementedError(
            f"torchlike.ops.aten.{name} names an operator for flop counting only; torchlike has "
            f"no callable for it")

    packet = OpOverloadPacket("aten", name, ["default"], call)
    setattr(aten, name, packet)
    return packet


def get_shape(i):
    """A tensor's shape, anything else as it is (the formulas' argument form)."""
    return i.shape if isinstance(i, torchlike.Tensor) else i


def shape_wrapper(f):
    """The formula as the counter calls it: tensors anywhere in the arguments
    become their shapes, and ``out_val`` (the output) arrives as ``out_shape``."""
    @functools.wraps(f)
    def wrapped(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = tree_map(get_shape, (args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)

    return wrapped


# ---- formulas: shapes in, flops out ----------------------------------------------------

def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs):
    """2*m*k*n for an (m, k) @ (k, n) product."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"mm_flop: inner sizes differ: {list(a_shape)} @ {list(b_shape)}")
    return 2 * m * k * n


def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs):
    """The product's flops; the addition is not counted (as PyTorch)."""
    return mm_flop(a_shape, b_shape)


def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs):
    """2*b*n*k*m for (b, n, k) @ (b, k, m)."""
    b, n, k = a_shape
    b2, k2, m = b_shape
    if b != b2 or k != k2:
        raise AssertionError(f"bmm_flop: sizes differ: {list(a_shape)} @ {list(b_shape)}")
    return 2 * b * n * k * m


def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs):
    return bmm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """2 * batch * output positions * (weight elements): every output element
    of every batch item takes one multiply-add per weight element of its
    group.  A transposed convolution's positions are its input's."""
    batch = x_shape[0]
    positions = math.prod((x_shape if transposed else out_shape)[2:])
    return 2 * batch * positions * math.prod(w_shape)


def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args,
              out_shape=None, **kwargs):
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                       transposed, _output_padding, _groups, output_mask, out_shape):
    """The input gradient is a convolution of grad_out with the weight (the
    other way round from the forward's transposition); the weight gradient is
    counted as a convolution with batch and channels swapped, which for
    groups > 1 counts every group pair, as PyTorch's formula does."""
    def swap(shape):
        return [shape[1], shape[0]] + list(shape[2:])

    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        if transposed:
            flops += conv_flop_count(swap(grad_out_shape), swap(x_shape), swap(out_shape[1]))
        else:
            flops += conv_flop_count(swap(x_shape), swap(grad_out_shape), swap(out_shape[1]))
    return flops


def sdpa_flop_count(query_shape, key_shape, value_shape):
    """Scores q @ k^T and their product with v: 2*b*h*L*S*(E + Ev)."""
    b, h, q_len, e = query_shape
    _, _, k_len, _ = key_shape
    ev = value_shape[-1]
    return 2 * b * h * q_len * k_len * (e + ev)


def sdpa_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs):
    return sdpa_flop_count(query_shape, key_shape, value_shape)


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape):
    """Five products of the same sizes as the forward's: the scores again,
    grad v, grad of the probabilities (both with v's width), grad q and grad
    k (with q's width): 2*b*h*L*S*(3E + 2Ev)."""
    b, h, q_len, e = query_shape
    _, _, k_len, _ = key_shape
    ev = value_shape[-1]
    return 2 * b * h * q_len * k_len * (3 * e + 2 * ev)


def sdpa_backward_flop(grad_out_shape, query_shape, key_shape, value_shape, *args,
                       out_shape=None, **kwargs):
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


flop_registry = {}


def register_flop_formula(targets, get_raw=False):
    """Decorator: use the function as the flop formula of the operator(s)
    ``targets`` (ops.<ns>.<name> packets, one or a list).  It gets the
    recorded arguments, tensors as their shapes (torchlike.Size), numbers and
    int lists as their values, anything else as None, and ``out_shape`` (the
    output's shape where the counter knows it, else None).  Returns the
    formula wrapped as the counter calls it (tensors may be passed for
    shapes, the output as ``out_val``)."""
    if get_raw:
        raise NotImplementedError(
            "register_flop_formula(get_raw=True): torchlike's counter reads the profiler's "
            "record (shapes and number arguments), not the tensors themselves")

    def register(formula):
        formula = shape_wrapper(formula)
        for target in tree_flatten(targets)[0]:
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(f"register_flop_formula(targets): expected each target to be "
                                 f"an OpOverloadPacket (i.e. torchlike.ops.mylib.foo), got "
                                 f"{target} which is of type {type(target).__name__}")
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = formula
        return formula

    return register


mm_flop = register_flop_formula(_aten("mm"))(mm_flop)
addmm_flop = register_flop_formula(_aten("addmm"))(addmm_flop)
bmm_flop = register_flop_formula(_aten("bmm"))(bmm_flop)
baddbmm_flop = register_flop_formula(_aten("baddbmm"))(baddbmm_flop)
conv_flop = register_flop_formula(_aten("convolution"))(conv_flop)
conv_backward_flop = register_flop_formula(_aten("convolution_backward"))(conv_backward_flop)
sdpa_flop = register_flop_formula(
    _aten("_scaled_dot_product_flash_attention_for_cpu"))(sdpa_flop)
sdpa_backward_flop = register_flop_formula(
    _aten("_scaled_dot_product_flash_attention_for_cpu_backward"))(sdpa_backward_flop)


# ---- from recorded events to formula calls -------------------------------------------

def _args(event):
    """The recorded arguments in formula form: shapes (Size) of tensors,
    values of numbers and int lists, None for the rest."""
    out = []
    for shape, dtype, value in zip(event.input_shapes, event.input_dtypes,
                                   event.concrete_inputs):
        out.append(torchlike.Size(shape) if dtype is not None else value)
    return out


def _per_dim(value, n, default):
    if value is None:
        return None
    value = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not value:
        value = (default,)
    return value * n if len(value) == 1 else value


def _conv_out_shape(args):
    """The output shape of convolution(input, weight, bias, stride, padding,
    dilation, transposed, output_padding, groups), or None when an argument
    was not recorded."""
    if len(args) < 9:
        return None
    x, w, _, stride, padding, dilation, transposed, output_padding, groups = args[:9]
    if not isinstance(x, torchlike.Size) or not isinstance(w, torchlike.Size):
        return None
    n = len(x) - 2
    stride, padding = _per_dim(stride, n, 1), _per_dim(padding, n, 0)
    dilation, output_padding = _per_dim(dilation, n, 1), _per_dim(output_padding, n, 0)
    if None in (stride, padding, dilation, output_padding, transposed, groups):
        return None
    sizes = []
    for d in range(n):
        span = dilation[d] * (w[d + 2] - 1)
        if transposed:
            sizes.append((x[d + 2] - 1) * stride[d] - 2 * padding[d] + span
                         + output_padding[d] + 1)
        else:
            sizes.append((x[d + 2] + 2 * padding[d] - span - 1) // stride[d] + 1)
    channels = w[1] * groups if transposed else w[0]
    return torchlike.Size([x[0], channels] + sizes)


def _matmul_call(args):
    """The op PyTorch's matmul runs for these shapes, with its arguments:
    mm when the right side is a matrix (a batched left side folded into its
    rows, a vector left side as one row), bmm when it is batched (the batch
    dimensions broadcast and flattened); None for a vector right side (mv,
    dot: not counted)."""
    a, b = args[0], args[1]
    if not isinstance(a, torchlike.Size) or not isinstance(b, torchlike.Size) or len(b) < 2:
        return None
    a = torchlike.Size([1, a[0]]) if len(a) == 1 else a
    if len(b) == 2:
        return _aten("mm"), [torchlike.Size([math.prod(a[:-1]), a[-1]]), b]
    batch = math.prod(torchlike.broadcast_shapes(a[:-2], b[:-2]))
    return _aten("bmm"), [torchlike.Size([batch, a[-2], a[-1]]),
                          torchlike.Size([batch, b[-2], b[-1]])]


def _inner_call(args):
    """inner(a, b) contracts the last dimensions: PyTorch runs it as mm of the
    flattened leading dimensions (dot for two vectors, mul for a scalar: not
    counted)."""
    a, b = args[0], args[1]
    if not isinstance(a, torchlike.Size) or not isinstance(b, torchlike.Size):
        return None
    if len(a) == 0 or len(b) == 0 or (len(a) == 1 and len(b) == 1):
        return None
    return _aten("mm"), [torchlike.Size([math.prod(a[:-1]), a[-1]]),
                         torchlike.Size([b[-1], math.prod(b[:-1])])]


_DECOMPOSED = {"aten::matmul": _matmul_call, "aten::inner": _inner_call}


def _conv_backward_call(node):
    """convolution_backward's arguments and output shapes rebuilt from what ConvolutionBackward0
    ran: an input-gradient convolution (grad_out, weight, None, stride,
    padding, dilation, not transposed, output_padding, groups), a weight
    gradient (grad_out, input, weight_size, stride, padding, dilation,
    transposed, groups) and a sum for the bias."""
    gi = gw = gb = None
    for child in node.cpu_children:
        if child.name == "aten::convolution":
            gi = _args(child)
        elif child.name == "aten::_convolution_backward_weight":
            gw = _args(child)
        elif child.name == "aten::sum":
            gb = _args(child)
    if gi is None and gw is None:
        return None
    gi_shape = _conv_out_shape(gi) if gi is not None else None
    if gw is not None:
        grad_out, x, weight, stride, padding, dilation, transposed, groups = gw[:8]
        weight = torchlike.Size(weight)
        output_padding = gi[7] if gi is not None else (0,)
    else:
        grad_out, weight, _, stride, padding, dilation, transposed, output_padding, groups = gi
        transposed, x = not transposed, gi_shape
    if None in (grad_out, x, weight) or (gi is not None and gi_shape is None):
        return None
    mask = [gi is not None, gw is not None, gb is not None]
    out = [gi_shape, weight if gw is not None else None,
           torchlike.Size([weight[1] if transposed else weight[0]]) if gb is not None else None]
    return [grad_out, x, weight, None, stride, padding, dilation, transposed, output_padding,
            groups, mask], out


_MARK = "torchlike.flop_counter:"
_EVALUATE = "autograd::engine::evaluate_function: "


class FlopCounterMode:
    """Counts the theoretical FLOPs of the ops run inside the ``with`` block
    (forward and backward), per module and per op:

        with FlopCounterMode(display=False) as counter:
            model(x).sum().backward()
        counter.get_total_flops()
        counter.get_flop_counts()   # {"Global": {aten.addmm: n, aten.mm: m}, "Sequential": ...}

    Modules are named as PyTorch names them: the outermost one by its class
    name, its children by ``parent.child``.  ``mods`` is accepted and ignored
    (as in PyTorch, with a warning).  The counter uses the profiler's
    recorder, so it cannot run while a torchlike profiler records
    (RuntimeError); the record is counted when the block exits or when the
    counts are read inside it (the recorder stops and starts again)."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None,
                 skip_unsupported=False):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.skip_unsupported = skip_unsupported
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_registry = dict(flop_registry)
        for target, formula in (custom_mapping or {}).items():
            if getattr(formula, "_get_raw", False):
                raise NotImplementedError("FlopCounterMode: custom_mapping formulas get shapes; "
                                          "get_raw formulas are not supported")
            self.flop_registry[target] = shape_wrapper(formula)
        self._by_name = {f"aten::{p._name}": p for p in self.flop_registry
                         if isinstance(p, OpOverloadPacket) and p.namespace == "aten"}
        self._active = False
        self._marks = []
        self._handles = []
        # module -> name, kept for the counter's life as PyTorch's tracker does
        self._names = weakref.WeakKeyDictionary()
        self._seen = weakref.WeakSet()  # modules whose children are named
        self._unsupported = Counter()

    # ---- results ----
    def _flush(self):
        """Inside the block: count what was recorded so far and record on."""
        if self._active:
            events = _recorder._stop(self._base)
            self._base = _recorder._start(True)
            self._count(events)

    def get_total_flops(self):
        self._flush()
        return sum(self.flop_counts["Global"].values())

    def get_unsupported_ops(self):
        """Always empty: torchlike has no higher-order ops the counter skips."""
        return Counter(self._unsupported)

    def get_flop_counts(self):
        """{module name or "Global": {op packet: flops}}."""
        self._flush()
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """PyTorch's table: a row per module down to ``depth`` dots (sorted by
        name, indented by depth) with a " - op" row per op, FLOPs in the
        total's unit (K, M, B, T), and a Global part when some FLOPs are
        outside every module."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        total = self.get_total_flops()
        suffix = _suffix(total)
        rows = []
        subsumed = False

        def module_rows(name, level):
            nonlocal subsumed
            flops = sum(self.flop_counts[name].values())
            subsumed |= flops >= total
            pad = " " * level
            out = [[pad + name, _with_suffix(flops, suffix), _percent(flops, total)]]
            for op, n in self.flop_counts[name].items():
                out.append([pad + " - " + str(op), _with_suffix(n, suffix), _percent(n, total)])
            return out

        for name in sorted(self.flop_counts):
            if name == "Global" or name.count(".") + 1 > depth:
                continue
            rows.extend(module_rows(name, name.count(".")))
        if "Global" in self.flop_counts and not subsumed:
            for row in rows:
                row[0] = " " + row[0]
            rows = module_rows("Global", 0) + rows
        if not rows:
            rows = [["Global", "0", "0%"]]
        return _layout(["Module", "FLOP", "% Total"], rows)

    # ---- the block ----
    def __enter__(self):
        if self._active:
            raise RuntimeError("FlopCounterMode is not reentrant: this counter is already "
                               "counting")
        if _C._profiler_enabled():
            raise RuntimeError(
                "FlopCounterMode cannot start while a torchlike profiler is recording: both use "
                "the one recorder of the process.  Count FLOPs outside the profile() block, or "
                "use profile(with_flops=True) for the matrix products' FLOPs")
        self.flop_counts.clear()
        self._unsupported.clear()
        self._marks = []
        self._parents, self._in_backward = {"Global"}, False
        from torchlike.nn.modules import module as nn_module
        self._handles = [nn_module.register_module_forward_pre_hook(self._pre_hook),
                         nn_module.register_module_forward_hook(self._post_hook)]
        self._base = _recorder._start(True)
        _recorder._holder = ("a FlopCounterMode block is counting with it: there is one "
                             "recorder per process")
        self._active = True
        return self

    def __exit__(self, *exc):
        try:
            events = _recorder._stop(self._base)
        finally:
            _recorder._holder = None
            self._active = False
            for h in self._handles:
                h.remove()
            self._handles = []
        self._count(events)
        self._marks = []
        if self.display:
            print(self.get_table(self.depth))
        return False

    # ---- module markers ----
    def _mark(self, action, name):
        if not self._active:
            return
        self._marks.append((action, name))
        _C._profiler_pop(_C._profiler_push(f"{_MARK}{len(self._marks) - 1}"))

    def _name(self, module):
        if module not in self._names:
            self._names[module] = type(module).__name__
        name = self._names[module]
        if module not in self._seen:  # names every descendant on first sight
            for child_name, child in module.named_children():
                self._names[child] = f"{name}.{child_name}"
                self._name(child)
            self._seen.add(module)
        return name

    def _grad_tensors(self, value):
        return [t for t in tree_flatten(value)[0]
                if isinstance(t, torchlike.Tensor) and t.requires_grad]

    def _pre_hook(self, module, args):
        name = self._name(module)
        self._mark("enter", name)
        tensors = self._grad_tensors(args)
        if tensors:  # the module's backward ends when its inputs' gradients are made
            self._handles.append(register_multi_grad_hook(
                tensors, lambda grads, name=name: self._mark("bw_exit", name)))

    def _post_hook(self, module, args, output):
        name = self._name(module)
        self._mark("exit", name)
        tensors = self._grad_tensors(output)
        if tensors:  # and begins with the first gradient of its outputs ("any": an
            # output the loss does not reach, as attention's weights, gets none)
            self._handles.append(register_multi_grad_hook(
                tensors, lambda grad, name=name: self._mark("bw_enter", name), mode="any"))

    # ---- counting ----
    def _call_of(self, event):
        """(packet, formula arguments, out_shape) of an event the registry
        has a formula for, else None."""
        name = event.name
        if name == "ConvolutionBackward0":
            packet = _aten("convolution_backward")
            call = _conv_backward_call(event) if packet in self.flop_registry else None
            return None if call is None else (packet, call[0], call[1])
        if not name.startswith("aten::") or not event.input_shapes:
            return None
        args = _args(event)
        if name in _DECOMPOSED:
            call = _DECOMPOSED[name](args)
            if call is None or call[0] not in self.flop_registry:
                return None
            return call[0], call[1], None
        packet = self._by_name.get(name)
        if packet is None:
            return None
        if name == "aten::convolution":
            return packet, args, _conv_out_shape(args)
        return packet, args, None

    def _count(self, events):
        parents, in_backward = self._parents, self._in_backward
        counted = set()  # ids of events counted: what runs inside them is not counted again
        for e in events:
            if e.name.startswith(_MARK):
                action, name = self._marks[int(e.name[len(_MARK):])]
                if in_backward and action == "enter" and e.cpu_parent is None:
                    parents, in_backward = {"Global"}, False  # a new forward
                if action in ("enter", "bw_enter"):
                    parents.add(name)
                else:
                    parents.discard(name)
                continue
            if e.name.startswith(_EVALUATE):
                in_backward = True
            elif in_backward and e.cpu_parent is None:
                # PyTorch forgets the modules a backward entered when it ends
                parents, in_backward = {"Global"}, False
            p = e.cpu_parent
            while p is not None and id(p) not in counted:
                p = p.cpu_parent
            if p is not None:
                counted.add(id(e))
                continue
            call = self._call_of(e)
            if call is None:
                continue
            packet, args, out_shape = call
            flops = self.flop_registry[packet](*args, out_val=out_shape)
            counted.add(id(e))
            for par in parents:
                self.flop_counts[par][packet] += flops
        self._parents, self._in_backward = parents, in_backward


# ---- the table ------------------------------------------------------------------------

_SUFFIXES = ["", "K", "M", "B", "T"]


def _suffix(number):
    """The unit of the table: a suffix once the total has 5 or more digits
    (1.01B shows as 1010M)."""
    return _SUFFIXES[max(0, min(len(_SUFFIXES) - 1, (len(str(number)) - 2) // 3))]


def _with_suffix(number, suffix):
    return f"{number / 1000 ** _SUFFIXES.index(suffix):.3f}{suffix}"


def _percent(part, total):
    return "0%" if total == 0 else f"{part / total:.2%}"


def _number(text):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _layout(headers, rows):
    """The rows in the plain layout PyTorch's table has (tabulate's "simple"
    format, the first column left-aligned with its indentation kept, the
    others right-aligned; a column of plain numbers is written as numbers,
    so 1920.000 shows as 1920)."""
    columns = [list(c) for c in zip(*rows)]
    for c in range(1, len(columns)):
        values = [_number(v) for v in columns[c]]
        if all(v is not None for v in values):
            columns[c] = [str(v) if isinstance(v, int) else format(v, "g") for v in values]
    widths = [max([len(h) + 2] + [len(v) for v in col]) for h, col in zip(headers, columns)]

    def line(cells):
        parts = [cells[0].ljust(widths[0])]
        parts += [cell.rjust(w) for cell, w in zip(cells[1:], widths[1:])]
        return "  ".join(parts).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line([col[r] for col in columns]) for r in range(len(rows)))
    return "\n".join(out)
