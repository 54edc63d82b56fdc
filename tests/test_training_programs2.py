"""A second round of ordinary PyTorch training programs run on torchlike:
what they touched that differed from PyTorch. Exact PyTorch answers come
from tests/golden/training_programs2.json (scripts/golden_training_programs2.py);
the programs' own checks (EMA updates, resumable checkpoints) compare
torchlike with itself along two routes that must agree bit for bit."""
import copy
import io
import math

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from oracle import golden_calls, host_spelling

CALLS, _golden = golden_calls("training_programs2")
# calls whose PyTorch message comes from its C++ argument parser: the type only
_PARSER_WORDS = ("T._foreach_add(A, 2, alpha=3)", "T._foreach_mul(A, B, alpha=2)")
# results that go through exp/log, sums or BLAS, whose last bit depends on the
# math library and the summation order: compared to 2 ulp (float32); every
# other result is compared bit for bit
_ROUNDED = ("T.logcumsumexp(X, 1)", "F.log_softmax(X + 1e4, 0)", "F.log_softmax(X + 1e4, 1)",
            "F.cross_entropy(X * 100, Y, label_smoothing=0.1, reduction='sum')",
            "T._foreach_sigmoid(A)", "T._foreach_exp(A)",
            "T.view_as_complex(F.linear(T.ones(1, 3, 4), X[:4, :4]).reshape(1, 3, 2, 2))",
            # X is a float32 sine whose last bit depends on the CPU's vector math
            # (AVX2 and AVX-512 differ), and the quantile interpolates between its elements
            "T.quantile(X, T.tensor([0.15, 0.85]), dim=1)",
            "T.quantile(X.double(), T.tensor([0.15, 0.85], dtype=T.float64), dim=0)")


def _same(got, want, rtol):
    """Described results equal: NaN equal to NaN, floats within rtol."""
    if isinstance(want, float) and isinstance(got, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want or abs(got - want) <= rtol * abs(want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_same(g, w, rtol) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_calls_match_pytorch(call, expected):
    env = _golden.inputs(torch)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        if call not in _PARSER_WORDS:
            assert str(e.value) == expected[2]
        return
    got = host_spelling(_golden.describe(eval(call, env)))
    assert _same(got, expected, 2.4e-7 if call in _ROUNDED else 0.0), (call, got, expected)


# ---- torch._foreach_* in the programs that call them ----------------------------------------

def test_foreach_in_place_updates_alias_and_are_recorded():
    """In-place forms write the listed tensors themselves (an EMA's shadow
    parameters) and return them; out-of-place forms are differentiable."""
    shadow = [torch.zeros(2), torch.zeros(3)]
    out = torch._foreach_add_(shadow, [torch.ones(2), torch.ones(3)], alpha=0.5)
    assert out[0] is shadow[0] and out[1] is shadow[1]
    np.testing.assert_array_equal(shadow[1].cpu().numpy(), [0.5, 0.5, 0.5])
    x = [torch.ones(2, requires_grad=True), torch.full((1,), 2.0, requires_grad=True)]
    y = torch._foreach_exp(torch._foreach_mul(x, [3.0, 4.0]))
    assert isinstance(y, tuple)
    sum(t.sum() for t in y).backward()
    np.testing.assert_allclose(x[0].grad.cpu().numpy(), 3 * np.exp(3.0) * np.ones(2), rtol=1e-6)
    np.testing.assert_allclose(x[1].grad.cpu().numpy(), [4 * np.exp(8.0)], rtol=1e-6)


def test_foreach_ema_matches_the_per_parameter_update():
    """timm-style EMA: mul_(decay) then add_(p, alpha=1 - decay) over lists,
    and the lerp_ form, give the per-parameter loop's bits."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    ema_a, ema_b, ema_c = (copy.deepcopy(model) for _ in range(3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randn(16, 2)
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        with torch.no_grad():
            pa, pb, pc = (list(m.parameters()) for m in (ema_a, ema_b, ema_c))
            mp = list(model.parameters())
            torch._foreach_mul_(pa, 0.9)
            torch._foreach_add_(pa, mp, alpha=0.1)
            for e, p in zip(pb, mp):
                e.mul_(0.9).add_(p, alpha=0.1)
            torch._foreach_lerp_(pc, mp, 0.1)
    for a, b in zip(ema_a.parameters(), ema_b.parameters()):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    for a, c in zip(ema_a.parameters(), ema_c.parameters()):
        np.testing.assert_allclose(a.detach().cpu().numpy(), c.detach().cpu().numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_foreach_norm_gives_clip_grad_norms_total():
    torch.manual_seed(1)
    grads = [torch.randn(3, 4), torch.randn(5)]
    norms = torch._foreach_norm(grads)
    total = torch.linalg.vector_norm(torch.stack(list(norms)))
    flat = np.concatenate([g.cpu().numpy().ravel() for g in grads]).astype(np.float64)
    np.testing.assert_allclose(total.item(), np.linalg.norm(flat), rtol=1e-6)
    params = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    got = nn.utils.clip_grad_norm_(params, 1.0)
    np.testing.assert_allclose(got.item(), total.item(), rtol=1e-6)


# ---- values the programs printed ------------------------------------------------------------

def test_linspace_ends_and_symmetry():
    """Both ends exact, and the second half stepped down from the end."""
    for n in (2, 5, 20, 33, 100):
        t = torch.linspace(-1.5, 2.5, n)
        assert t[0].item() == -1.5 and t[-1].item() == 2.5
        np.testing.assert_allclose(t.cpu().numpy(), np.linspace(-1.5, 2.5, n, dtype=np.float32),
                                   rtol=0, atol=4e-7)
    assert torch.linspace(3.0, 7.0, 1).tolist() == [3.0]


def test_log_softmax_keeps_small_spreads_of_large_logits():
    """x - (max + log(sum)) rounds max + log(sum) at the scale of x: with
    logits near 1e4 the float32 result drifts by 1e-3; (x - max) - log(sum)
    is the float64 answer rounded."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((4, 300)) + 1e4).astype(np.float32)
    want = a.astype(np.float64) - a.max(1, keepdims=True)
    want -= np.log(np.exp(want).sum(1, keepdims=True))
    np.testing.assert_allclose(F.log_softmax(torch.tensor(a), 1).cpu().numpy(), want, rtol=0,
                               atol=2e-6)
    np.testing.assert_allclose(F.log_softmax(torch.tensor(a.T.copy()), 0).cpu().numpy(), want.T,
                               rtol=0, atol=2e-6)
    y = torch.tensor(rng.integers(0, 300, 4))
    ce = F.cross_entropy(torch.tensor(a), y).item()
    np.testing.assert_allclose(ce, -want[np.arange(4), y.cpu().numpy()].mean(), rtol=1e-6)


# ---- a resumable training run ----------------------------------------------------------------

def test_resume_from_checkpoint_is_bit_exact():
    """Save model, optimizer, scheduler and RNG state mid-run; the resumed
    run retraces the uninterrupted one bit for bit (dropout draws included)."""
    def build():
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(16, 3))
        o = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.05)
        s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.05, total_steps=8)
        return m, o, s

    def step(m, o, s):
        x = torch.randn(8, 6)
        y = torch.randint(0, 3, (8,))
        o.zero_grad()
        loss = F.cross_entropy(m(x), y, label_smoothing=0.1)
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        o.step()
        s.step()
        return loss.item()

    m, o, s = build()
    for _ in range(4):
        step(m, o, s)
    buf = io.BytesIO()
    torch.save({"model": m.state_dict(), "opt": o.state_dict(), "sched": s.state_dict(),
                "rng": torch.get_rng_state()}, buf)
    straight = [step(m, o, s) for _ in range(4)]
    final = {k: v.clone() for k, v in m.state_dict().items()}

    m2, o2, s2 = build()
    buf.seek(0)
    ck = torch.load(buf)
    m2.load_state_dict(ck["model"])
    o2.load_state_dict(ck["opt"])
    s2.load_state_dict(ck["sched"])
    torch.set_rng_state(ck["rng"])
    resumed = [step(m2, o2, s2) for _ in range(4)]
    assert resumed == straight
    for k, v in m2.state_dict().items():
        np.testing.assert_array_equal(v.cpu().numpy(), final[k].cpu().numpy())
    assert math.isclose(s2.get_last_lr()[0], s.get_last_lr()[0])
