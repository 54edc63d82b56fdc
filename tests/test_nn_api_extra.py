"""The nn APIs ordinary PyTorch models use beyond the layers: hook-based
weight_norm / spectral_norm, get_total_norm / clip_grads_with_norm_,
skip_init, parametrize.cached, pruning, AdaptiveLogSoftmaxWithLoss, the Lazy
modules, CrossMapLRN2d, SyncBatchNorm.convert_sync_batchnorm, DataParallel,
compile and swap_tensors.

PyTorch's behaviour is recorded in tests/golden/nn/api_extra.{npz,json} by
scripts/golden_nn_api_extra.py, running the same cases
(tests/nn_api_extra_cases.py) with real PyTorch; here they run with
torchlike and must agree: values, gradients, masks, state-dict keys and
shapes, reprs, metadata and error messages.  NumPy references and gradcheck
cover what the golden cases do not."""
import json
import os
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
from torchlike.autograd import gradcheck
from torchlike.nn.utils import parametrize, prune

from nn_api_extra_cases import CASES, ERRORS

HERE = os.path.join(os.path.dirname(__file__), "golden", "nn")
GOLD = np.load(os.path.join(HERE, "api_extra.npz"))
with open(os.path.join(HERE, "api_extra.json")) as f:
    FACTS = json.load(f)


def _ours(text):
    """PyTorch's text with torchlike's module name."""
    return text.replace("torch.", "torchlike.")


def _json_round_trip(info):
    return json.loads(json.dumps(info, sort_keys=True, default=str))


@pytest.mark.parametrize("name", list(CASES))
def test_case_matches_pytorch(name):
    torch.manual_seed(0)
    arrays, info = CASES[name](torch)
    expected = {k.split(".", 1)[1]: v for k, v in GOLD.items() if k.startswith(name + ".")}
    assert sorted(arrays) == sorted(expected)
    for key, want in expected.items():
        got = arrays[key].detach().cpu().numpy()
        assert got.shape == want.shape, key
        assert got.dtype == want.dtype, key
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=key)
    want_info = json.loads(_ours(json.dumps(FACTS["cases"][name])))
    assert _json_round_trip(info) == want_info


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_pytorch(name):
    kind, message = FACTS["errors"][name]
    with pytest.raises(Exception) as exc:
        ERRORS[name](torch)
    assert type(exc.value).__name__ == kind
    assert str(exc.value) == _ours(message)


# ---- weight norm / spectral norm beyond the golden cases -------------------------------

def test_weight_norm_warns_and_is_a_forward_pre_hook():
    m = nn.Linear(3, 2)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(m)
    hooks = list(m._forward_pre_hooks.values())
    assert [type(h).__name__ for h in hooks] == ["WeightNorm"]
    with torch.no_grad():
        m.weight_g.mul_(2.0)
    m(torch.randn(1, 3))  # the hook recomputes weight before forward
    v = m.weight_v.detach().cpu().numpy()
    expect = v * 2 * np.linalg.norm(v, axis=1, keepdims=True) / \
        np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(m.weight.detach().cpu().numpy(), expect, rtol=1e-6)


def test_weight_norm_gradcheck():
    m = nn.Linear(4, 3, bias=False).double()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(m)

    def f(g, v):
        # the gradcheck inputs stand in for the parameters (same graph)
        m._parameters["weight_g"], m._parameters["weight_v"] = g, v
        return m(torch.ones(2, 4, dtype=torch.float64))
    g = torch.rand(3, 1, dtype=torch.float64, requires_grad=True)
    v = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (g, v))


def test_spectral_norm_sigma_is_the_largest_singular_value_after_many_iterations():
    m = nn.Linear(6, 5).double()
    nn.utils.spectral_norm(m, n_power_iterations=200)
    m(torch.zeros(1, 6, dtype=torch.float64))
    w = m.weight_orig.detach().cpu().numpy()
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.detach().cpu().numpy(), w / sigma, rtol=1e-8)


def test_spectral_norm_eval_leaves_buffers_and_gradcheck():
    m = nn.Linear(4, 3).double()
    nn.utils.spectral_norm(m)
    m.eval()
    u = m.weight_u.clone()
    m(torch.randn(2, 4, dtype=torch.float64))
    np.testing.assert_array_equal(m.weight_u.cpu().numpy(), u.cpu().numpy())
    fn = m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]

    def f(w):
        m._parameters["weight_orig"] = w
        return fn.compute_weight(m, do_power_iteration=False)
    assert gradcheck(f, (torch.randn(3, 4, dtype=torch.float64, requires_grad=True),))


def test_spectral_norm_state_dict_round_trip_keeps_buffers():
    a, b = nn.Linear(4, 3), nn.Linear(4, 3)
    nn.utils.spectral_norm(a)
    nn.utils.spectral_norm(b)
    a(torch.randn(2, 4))
    b.load_state_dict(a.state_dict())
    for k in ("weight_orig", "weight_u", "weight_v"):
        np.testing.assert_array_equal(getattr(b, k).detach().cpu().numpy(),
                                      getattr(a, k).detach().cpu().numpy())


# ---- clipping, skip_init, cached ----------------------------------------------------------

def test_clip_grad_norm_is_total_norm_then_clip():
    rng = np.random.default_rng(0)
    ps = [nn.Parameter(torch.tensor(rng.standard_normal(s))) for s in ((3, 2), (4,))]
    grads = [rng.standard_normal(p.shape) for p in ps]
    for p, g in zip(ps, grads):
        p.grad = torch.tensor(g)
    total = nn.utils.clip_grad_norm_(ps, 0.5, norm_type=3)
    want = np.sum(np.concatenate([np.abs(g).ravel() for g in grads]) ** 3) ** (1 / 3)
    np.testing.assert_allclose(float(total), want, rtol=1e-12)
    for p, g in zip(ps, grads):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g * min(1.0, 0.5 / (want + 1e-6)),
                                   rtol=1e-12)
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.get_total_norm([torch.tensor([float("nan")])], error_if_nonfinite=True)
    nn.utils.clip_grads_with_norm_([nn.Parameter(torch.ones(2))], 1.0, torch.tensor(3.0))


def test_skip_init_gives_the_module_with_fresh_storage():
    m = nn.utils.skip_init(nn.Linear, 5, 3, bias=False)
    assert type(m) is nn.Linear and m.weight.shape == (3, 5) and m.bias is None
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)


def test_parametrize_cached_evaluates_once_per_block():
    calls = []

    class Double(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 2

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Double())
    assert len(calls) == 1  # the shape/dtype check evaluates it once, as in PyTorch
    calls.clear()
    m.weight, m.weight
    assert len(calls) == 2
    with parametrize.cached():
        w1 = m.weight
        with parametrize.cached():
            w2 = m.weight
        w3 = m.weight
    assert len(calls) == 3 and w1 is w2 is w3
    m.weight
    assert len(calls) == 4  # the cache is gone after the outermost block


# ---- pruning beyond the golden cases ----------------------------------------------------

def test_random_pruning_counts_and_composition():
    torch.manual_seed(3)
    m = nn.Linear(10, 6)
    prune.random_unstructured(m, "weight", amount=0.5)
    assert int(m.weight_mask.sum()) == 30
    prune.random_unstructured(m, "weight", amount=10)   # 10 of the 30 kept
    assert int(m.weight_mask.sum()) == 20
    prune.random_structured(m, "weight", amount=2, dim=0)
    rows = m.weight_mask.sum(1).cpu().numpy()
    assert (rows == 0).sum() >= 2
    np.testing.assert_array_equal(m.weight.detach().cpu().numpy(),
                                  (m.weight_orig * m.weight_mask).detach().cpu().numpy())
    hook = [h for h in m._forward_pre_hooks.values()][0]
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 3


def test_pruning_failure_restores_the_parameter():
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError):
        prune.l1_unstructured(m, "weight", amount=9)
    assert [k for k, _ in m.named_parameters()] == ["bias", "weight"] or \
        "weight" in dict(m.named_parameters())
    assert not prune.is_pruned(m)


def test_pruned_weight_gradient_is_masked():
    m = nn.Linear(4, 3).double()
    prune.l1_unstructured(m, "weight", amount=5)
    m(torch.randn(2, 4, dtype=torch.float64)).sum().backward()
    g = m.weight_orig.grad.cpu().numpy()
    assert np.all(g[m.weight_mask.cpu().numpy() == 0] == 0)
    assert np.count_nonzero(g) == 7


# ---- AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------

def test_adaptive_log_softmax_matches_full_log_prob_and_gradcheck():
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 9, [2, 5], div_value=1.5, head_bias=True).double()
    x = torch.randn(7, 6, dtype=torch.float64)
    target = torch.tensor([0, 1, 2, 4, 5, 8, 3])
    out, loss = m(x, target)
    full = m.log_prob(x).detach().cpu().numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(out.detach().cpu().numpy(), full[np.arange(7), target.cpu().numpy()],
                               rtol=1e-12)
    np.testing.assert_allclose(float(loss), -full[np.arange(7), target.cpu().numpy()].mean())
    np.testing.assert_array_equal(m.predict(x).cpu().numpy(), full.argmax(1))
    assert gradcheck(lambda x: m(x, target).loss, (x.requires_grad_(),))


# ---- Lazy, CrossMapLRN2d, wrappers ----------------------------------------------------

def test_lazy_modules_load_a_state_dict_before_their_first_call():
    src = nn.ConvTranspose2d(3, 4, 2)
    m = nn.LazyConvTranspose2d(4, 2)
    m.load_state_dict(src.state_dict())
    y = m(torch.ones(1, 3, 2, 2))
    np.testing.assert_allclose(y.detach().cpu().numpy(), src(torch.ones(1, 3, 2, 2)).detach().cpu().numpy())
    bn = nn.LazyBatchNorm1d()
    bn.load_state_dict(nn.BatchNorm1d(5).state_dict())
    assert bn(torch.randn(3, 5)).shape == (3, 5) and type(bn) is nn.BatchNorm1d


def _cross_map_lrn_numpy(x, size, alpha, beta, k):
    """PyTorch's running-sum window (see normalization.py), written as loops."""
    C = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    sq = x ** 2
    scale = np.zeros_like(x)
    scale[:, 0] = sq[:, :min(pre_pad, C)].sum(1)
    for c in range(1, C):
        scale[:, c] = scale[:, c - 1]
        if c < C - pre_pad + 1:
            scale[:, c] += sq[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= sq[:, c - pre_pad]
    return x * (scale * alpha / size + k) ** -beta


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_map_lrn_against_numpy_loops(dtype):
    x = np.random.default_rng(1).standard_normal((2, 9, 3, 2)).astype(dtype)
    for size in (1, 2, 3, 6):
        out = nn.CrossMapLRN2d(size, 0.4, 0.8, 1.5)(torch.tensor(x)).cpu().numpy()
        assert out.dtype == dtype
        np.testing.assert_allclose(out, _cross_map_lrn_numpy(x, size, 0.4, 0.8, 1.5),
                                   rtol=1e-5 if dtype == np.float32 else 1e-12)
    empty = nn.CrossMapLRN2d(3)(torch.zeros(0, 4, 2, 2))
    assert empty.shape == (0, 4, 2, 2)


def test_data_parallel_and_compile_run_the_module_as_it_is():
    lin = nn.Linear(3, 2)
    dp = nn.DataParallel(lin)
    x = torch.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().cpu().numpy(), lin(x).detach().cpu().numpy())
    assert dp.module is lin and dp.device_ids == []
    for compiled in (torch.compile(lin), torch.compile(mode="max-autotune")(lin)):
        assert compiled._orig_mod is lin     # PyTorch's OptimizedModule around it
        np.testing.assert_array_equal(compiled(x).detach().cpu().numpy(),
                                      lin(x).detach().cpu().numpy())
    assert lin.compile() is None


def test_swap_tensors():
    a = nn.Parameter(torch.ones(2, 3))
    a.grad = torch.full((2, 3), 5.0)
    b = torch.arange(4.0, dtype=torch.float64)
    b.tag = "b"
    torch.utils.swap_tensors(a, b)
    assert type(a) is torch.Tensor and type(b) is nn.Parameter
    assert a.dtype == torch.float64 and a.tolist() == [0.0, 1.0, 2.0, 3.0] and a.tag == "b"
    assert not a.requires_grad and a.grad is None
    assert b.requires_grad and b.shape == (2, 3) and b.grad.tolist() == [[5.0] * 3] * 2
    with pytest.raises(RuntimeError, match="leaf"):
        torch.utils.swap_tensors(torch.ones(2, requires_grad=True) * 2, torch.ones(2))


def test_an_ordinary_training_loop_with_the_new_apis_lowers_the_loss():
    """A PyTorch-style script: weight-normed and spectral-normed layers, a
    Lazy layer, pruning, AdaptiveLogSoftmaxWithLoss, DataParallel, compile
    and clip_grad_norm_, trained with SGD on a fixed problem."""
    torch.manual_seed(0)
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((64, 10)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 12, 64))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.fc1 = nn.utils.weight_norm(nn.Linear(10, 32))
            self.fc2 = nn.utils.spectral_norm(nn.Linear(32, 32))
            self.fc3 = nn.LazyLinear(16)
            self.asm = nn.AdaptiveLogSoftmaxWithLoss(16, 12, [4, 8], div_value=2.0)

        def forward(self, x, target):
            h = torch.tanh(self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x))))))
            return self.asm(h, target)

    net = Net()
    net(x[:2], y[:2])                   # materialise the Lazy layer
    prune.l1_unstructured(net.fc3, "weight", amount=0.2)
    model = nn.DataParallel(net)
    model.compile()
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = model(x, y).loss
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    assert int((net.fc3.weight == 0).sum()) >= int(0.2 * 16 * 32)
    assert "module.fc1.weight_g" in model.state_dict()


def test_bilinear_refuses_no_first_input_features():
    # its init bound is 1/sqrt(in1_features): PyTorch refuses 0 up front
    with pytest.raises(ValueError, match=r"^in1_features must be > 0, but got \(in1_features=0\)$"):
        nn.Bilinear(0, 2, 3)


def test_spectral_norm_parametrization_refuses_bad_dim_and_iterations():
    # PyTorch 2.15's checks and words (no comma before "but got"), the dim first
    P = nn.utils.parametrizations
    for dim in (2, -3):
        with pytest.raises(IndexError) as info:
            P.spectral_norm(nn.Linear(3, 2), dim=dim)
        assert str(info.value) == ("Dimension out of range (expected to be in range of [-2, 1] "
                                   f"but got {dim})")
    with pytest.raises(IndexError, match="but got 5"):
        P.spectral_norm(nn.Linear(3, 2), dim=5, n_power_iterations=0)
    for n in (0, -1):
        with pytest.raises(ValueError) as info:
            P.spectral_norm(nn.Linear(3, 2), n_power_iterations=n)
        assert str(info.value) == ("Expected n_power_iterations to be positive, but got "
                                   f"n_power_iterations={n}")
    P.spectral_norm(nn.Conv1d(3, 2, 2), dim=-3)   # a negative dim in range is taken
