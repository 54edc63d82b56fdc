"""Cases run on both PyTorch (scripts/golden_autograd_extra.py records them in
tests/golden/autograd_extra.json) and torchlike (tests/test_anomaly_mode.py,
tests/test_forward_ad.py compare).  Each case takes the library module and
returns something JSON can hold; stacks keep only this file's frames (by
basename), so both libraries' answers compare exactly."""
import os
import warnings

import numpy as np

HERE = os.path.basename(__file__)


def _frames(lines):
    """Of format_stack lines, this file's frames with the path cut to the basename."""
    out = []
    for item in lines:
        head = item.split("\n", 1)[0]
        if HERE not in head:
            continue
        path = head.split('"')[1]
        out.append(item.replace(path, os.path.basename(path)))
    return out


def _warning(message):
    """A warning's text: the head line, then this file's frames (PyTorch appends
    a "(Triggered internally ...)" note and its own frames; neither is kept)."""
    text = str(message).split(" (Triggered internally")[0]
    head, _, rest = text.partition(":\n")
    items = ["  File" + chunk for chunk in rest.split("  File")[1:]]
    return [head] + _frames(items)


def _run(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            error = None
        except Exception as e:  # noqa: BLE001 - the error is the result
            error = [type(e).__name__, str(e)]
    return {"error": error,
            "warnings": [_warning(w.message) for w in caught
                         if "Anomaly Detection has been enabled" not in str(w.message)],
            "entering": sum("Anomaly Detection has been enabled" in str(w.message)
                            for w in caught)}


# ---- anomaly mode -------------------------------------------------------------------

def anomaly_sqrt_at_zero(lib):
    def body():
        with lib.autograd.detect_anomaly():
            x = lib.zeros(3, dtype=lib.float64, requires_grad=True)
            y = lib.sqrt(x) * 0
            y.sum().backward()
    return _run(body)


def _nan_function(lib):
    class NanSecond(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g * float("nan")
    return NanSecond


def anomaly_custom_function_grad(lib):
    fn = _nan_function(lib)

    def body():
        with lib.autograd.detect_anomaly():
            a = lib.ones(2, requires_grad=True)
            b = lib.ones(2, requires_grad=True)
            out = fn.apply(a, b).sum()
            lib.autograd.grad(out, [a, b])
    return _run(body)


def anomaly_check_nan_off(lib):
    fn = _nan_function(lib)
    res = {}

    def body():
        with lib.autograd.detect_anomaly(check_nan=False):
            a = lib.ones(2, requires_grad=True)
            b = lib.ones(2, requires_grad=True)
            ga, gb = lib.autograd.grad(fn.apply(a, b).sum(), [a, b])
            res["nan"] = bool(gb.isnan().all())
            res["flags"] = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
    out = _run(body)
    out.update(res)
    out["after"] = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
    return out


def anomaly_backward_raises(lib):
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    def body():
        with lib.autograd.detect_anomaly():
            x = lib.ones(2, requires_grad=True)
            y = Boom.apply(x).exp().sum()
            y.backward()
    return _run(body)


def anomaly_create_graph_parent(lib):
    res = {}

    def body():
        with lib.autograd.detect_anomaly():
            x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
            y = lib.sqrt(x)
            g, = lib.autograd.grad(y.sum(), x, create_graph=True)
            res["keys"] = sorted(g.grad_fn.metadata)
            res["parent"] = g.grad_fn.metadata["parent_"].name()
            (g * 0).sum().backward()
    out = _run(body)
    out.update(res)
    return out


def anomaly_off_records_nothing(lib):
    x = lib.zeros(3, requires_grad=True)
    y = lib.sqrt(x) * 0
    keys = sorted(y.grad_fn.metadata)
    y.sum().backward()
    return {"keys": keys, "nan": bool(x.grad.isnan().all())}


def anomaly_set_detect(lib):
    out = [[lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]]
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        out.append([lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()])
        x = lib.ones(2, requires_grad=True)
        out.append(sorted((x * 2).grad_fn.metadata))
    out.append([lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()])
    lib.autograd.set_detect_anomaly(True)
    out.append([lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()])
    lib.autograd.set_detect_anomaly(False)
    out.append([lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()])
    return out


ANOMALY_CASES = {name: fn for name, fn in globals().items() if name.startswith("anomaly_")}


def as_list(t):
    return np.asarray(t.detach().numpy()).tolist()


# ---- forward-mode AD ------------------------------------------------------------------
# Each case is f(lib, *tensors) -> tensor or tuple of tensors, run on duals of
# fixed float64 primals with fixed tangents (FORWARD_AD_SHAPES); the golden
# file keeps the output tangents.

def _fw_elementwise(lib, x, y):
    return (x.sin() * y.exp() + x / (y * y + 1)).tanh()


def _fw_matmul(lib, a, b):
    return a @ b, lib.matmul(a.t(), a)


def _fw_reductions(lib, x):
    return (x.sum(1), x.mean(0), x.max(1).values, x.norm(), x.softmax(1), x.logsumexp(0),
            x.prod(1), x.var(1), x.cumsum(0), x.amin(0))


def _fw_indexing(lib, x):
    idx = lib.tensor([2, 0, 2])
    return (x[idx], x[x > 0], x[1:, ::2], x.gather(1, lib.tensor([[0, 2]] * 3)),
            x.index_select(1, idx), x[..., 1])


def _fw_views(lib, x):
    return (x.view(2, 6).exp(), x.transpose(0, 1) * 2, x[:1].expand(4, 3), x.unsqueeze(1).sin(),
            x.reshape(-1)[::5], x.t().contiguous().flip(0))


def _fw_inplace(lib, x, y):
    z = x.clone()
    z.mul_(y)
    z[0] = 3 * x[1]
    z.add_(x.sin())
    w = lib.zeros(4, 3, dtype=lib.float64)
    w[1:3] = x[:2] * y[2:]
    return z, w


def _fw_inplace_on_dual(lib, x, y):
    x.mul_(2)
    x[0] = y[0]
    return x.exp()


def _fw_broadcast_and_where(lib, x, y):
    return lib.where(x > 0, x * y[0], y[1] ** 2), (x + y[0:1]).clamp(-0.5, 0.5), x.abs()


FORWARD_AD_SHAPES = {
    "_fw_elementwise": [(3, 4), (3, 4)],
    "_fw_matmul": [(3, 4), (4, 2)],
    "_fw_reductions": [(3, 4)],
    "_fw_indexing": [(4, 3)],
    "_fw_views": [(4, 3)],
    "_fw_inplace": [(4, 3), (4, 3)],
    "_fw_inplace_on_dual": [(4, 3), (4, 3)],
    "_fw_broadcast_and_where": [(4, 3), (4, 3)],
}


def forward_ad_inputs(lib, name):
    """The primals and tangents of a case, the same numbers for both libraries."""
    rng = np.random.default_rng(sorted(FORWARD_AD_SHAPES).index(name))
    primals = [lib.tensor(rng.standard_normal(s), dtype=lib.float64)
               for s in FORWARD_AD_SHAPES[name]]
    tangents = [lib.tensor(rng.standard_normal(s), dtype=lib.float64)
                for s in FORWARD_AD_SHAPES[name]]
    return primals, tangents


def run_forward_ad(lib, name):
    """(primal outputs, tangent outputs) of a case as nested lists (None: no tangent)."""
    fwad = lib.autograd.forward_ad
    primals, tangents = forward_ad_inputs(lib, name)
    with fwad.dual_level():
        duals = [fwad.make_dual(p, t) for p, t in zip(primals, tangents)]
        out = globals()[name](lib, *duals)
        outs = out if isinstance(out, tuple) else (out,)
        unpacked = [fwad.unpack_dual(o) for o in outs]
    return ([as_list(u.primal) for u in unpacked],
            [None if u.tangent is None else as_list(u.tangent) for u in unpacked])


def forward_ad_results(lib):
    return {name: run_forward_ad(lib, name) for name in FORWARD_AD_SHAPES}


def _jvp_function(lib, calls):
    class ScaledCube(lib.autograd.Function):
        """x**3 * s; its jvp returns 10x the true tangent, so a caller can see
        that jvp (not backward) gave the tangent."""

        @staticmethod
        def forward(ctx, x, s):
            ctx.save_for_forward(x)
            ctx.s = s
            return x ** 3 * s

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("backward is not used by forward mode")

        @staticmethod
        def jvp(ctx, tx, ts):
            calls.append(ts is None)
            x, = ctx.saved_tensors
            return 10 * 3 * x ** 2 * ctx.s * tx
    return ScaledCube


def forward_ad_custom_jvp(lib):
    fwad = lib.autograd.forward_ad
    calls = []
    fn = _jvp_function(lib, calls)
    with fwad.dual_level():
        x = fwad.make_dual(lib.tensor([1.0, 2.0], dtype=lib.float64),
                           lib.tensor([1.0, -1.0], dtype=lib.float64))
        y = fn.apply(x, 2.0)
        z = (y * x).sum()
        res = [as_list(fwad.unpack_dual(y).tangent), as_list(fwad.unpack_dual(z).tangent)]
    return {"tangents": res, "calls": calls}


def forward_ad_errors(lib):
    fwad = lib.autograd.forward_ad
    out = []

    def err(fn):
        try:
            fn()
            out.append(None)
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append([type(e).__name__, str(e).replace("torchlike.", "torch.")])

    p = lib.ones(3, dtype=lib.float64)
    err(lambda: fwad.make_dual(p, p))
    err(lambda: fwad.exit_dual_level())
    with fwad.dual_level() as level:
        out.append(level)
        err(fwad.enter_dual_level)
        err(lambda: fwad.dual_level().__enter__())
        err(lambda: fwad.make_dual(p, lib.ones(4, dtype=lib.float64)))
        err(lambda: fwad.make_dual(p.long(), p))
        err(lambda: fwad.make_dual(p, p.long()))
        err(lambda: fwad.make_dual(p, p, level=5))
        d = fwad.make_dual(p, p)
        err(lambda: fwad.make_dual(d * 2, p))

        class NoJvp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        err(lambda: NoJvp.apply(d))
        u = fwad.unpack_dual(lib.ones(2))
        out.append([type(u).__name__, list(u._fields), u.tangent])
        out.append(fwad.unpack_dual(d.argmax()).tangent)
        err(lambda: fwad.unpack_dual(3))
    err(lambda: fwad.exit_dual_level(level=0))
    out.append(list(fwad.unpack_dual(3)))
    out.append(fwad.unpack_dual(d).tangent)
    return out


FORWARD_AD_CASES = {"results": forward_ad_results, "custom_jvp": forward_ad_custom_jvp,
                    "errors": forward_ad_errors}
