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
FORWARD_AD_CASES = {}
