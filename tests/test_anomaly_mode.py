"""Anomaly detection (torchlike.autograd.detect_anomaly): PyTorch's messages
and stacks from tests/golden/autograd_extra.json (recorded by
scripts/golden_autograd_extra.py from tests/autograd_extra_cases.py), and the
mode's effects checked directly: the NaN check, the forward stack of the
failing node, parents under create_graph, and nothing when it is off."""
import json
import os
import threading
import warnings

import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd import Function, detect_anomaly, set_detect_anomaly
import autograd_extra_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "autograd_extra.json")) as f:
    GOLDEN = json.load(f)["anomaly"]


@pytest.fixture(autouse=True)
def _mode_off():
    yield
    torch.set_anomaly_enabled(False)


@pytest.mark.parametrize("name", sorted(cases.ANOMALY_CASES))
def test_matches_pytorch(name):
    assert cases.ANOMALY_CASES[name](torch) == GOLDEN[name]


def _record(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_entering_warns_and_restores():
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    msgs = _record(lambda: detect_anomaly())
    assert msgs == ["Anomaly Detection has been enabled. This mode will increase the runtime "
                    "and should only be enabled for debugging."]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly(check_nan=False):
            assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
            with set_detect_anomaly(False):
                assert not torch.is_anomaly_enabled()
            assert torch.is_anomaly_enabled()
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    assert torch.autograd.anomaly_mode.__all__ == ["detect_anomaly", "set_detect_anomaly"]


def test_process_wide_as_pytorch():
    # PyTorch's flag is global, not per thread: a thread started inside sees it
    seen = []
    with set_detect_anomaly(True):
        t = threading.Thread(target=lambda: seen.append(torch.is_anomaly_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_stack_names_the_users_line():
    with set_detect_anomaly(True):
        x = torch.ones(2, requires_grad=True)
        y = x.exp()  # the line the trace must name
        leaf_node = y.grad_fn.next_functions[0][0]
    trace = y.grad_fn.metadata["traceback_"]
    assert isinstance(trace, list) and all(isinstance(s, str) for s in trace)
    assert "test_stack_names_the_users_line" in trace[-1]
    assert "y = x.exp()  # the line the trace must name" in trace[-1]
    # AccumulateGrad nodes keep nothing (PyTorch makes them lazily too)
    assert "traceback_" not in leaf_node.metadata


def test_custom_function_stack_ends_at_apply():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            return 2 * x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    with set_detect_anomaly(True):
        y = Twice.apply(torch.ones(2, requires_grad=True))
    last = y.grad_fn.metadata["traceback_"][-1]
    assert "y = Twice.apply(" in last and "function.py" not in last


def test_nan_in_double_backward():
    # the first backward is finite; the nodes it records (create_graph) make a
    # NaN in the second one, which the check catches under autograd.grad too
    x = torch.tensor([0.0, 4.0], dtype=torch.float64, requires_grad=True)
    with set_detect_anomaly(True):
        y = (x ** 1.5).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        assert np.isfinite(g.detach().numpy()).all()
        with pytest.raises(RuntimeError, match=r"Function '\w+Backward0' returned nan values "
                                               r"in its [01]th output\."):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.autograd.grad(g.sqrt().sum() * 0, x)
    # off: the same computation returns the NaN
    g2, = torch.autograd.grad((x ** 1.5).sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g2.sqrt().sum() * 0, x)
    assert np.isnan(gg.numpy()).any()


def test_inf_is_not_nan():
    x = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    with set_detect_anomaly(True):
        x.sqrt().sum().backward()
    assert np.isinf(x.grad.numpy()).all()


def test_values_unchanged_and_gradcheck():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = torch.tensor(rng.standard_normal((4, 2)), requires_grad=True)

    def f(x, w):
        return ((x @ w).tanh() * x.sum(1, keepdim=True)).sum()

    ref = torch.autograd.grad(f(x, w), [x, w])
    with set_detect_anomaly(True):
        got = torch.autograd.grad(f(x, w), [x, w])
        assert torch.autograd.gradcheck(f, (x, w))
        assert torch.autograd.gradgradcheck(f, (x, w))
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_warning_filter_error_keeps_the_nodes_error():
    x = torch.zeros(2, requires_grad=True)
    with set_detect_anomaly(True):
        y = (x.sqrt() * 0).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeError, match="SqrtBackward0' returned nan"):
                y.backward()


def test_node_failure_in_reentrant_backward_reports_each_level():
    # a backward that itself runs backward (reentrant checkpoint does): the
    # inner run reports its node, then the outer run the node that failed there
    class Inner(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            with torch.enable_grad():
                z = torch.zeros(1, requires_grad=True)
                (z.sqrt() * 0).sum().backward()
            return g

    errors = []
    with set_detect_anomaly(True):
        y = Inner.apply(torch.ones(1, requires_grad=True)).sum()

        def run():
            try:
                y.backward()
            except RuntimeError as e:
                errors.append(str(e))
        msgs = _record(run)
    assert errors == ["Function 'SqrtBackward0' returned nan values in its 0th output."]
    heads = [m.split(".", 1)[0] for m in msgs]
    # as PyTorch: the inner node was made while InnerBackward ran (its parent)
    assert heads == ["Error detected in SqrtBackward0",
                     "\n\nPrevious calculation was induced by InnerBackward",
                     "Error detected in InnerBackward"]
