"""torchlike.optim.swa_utils: AveragedModel (SWA mean, EMA, buffers),
update_bn, and the averaging functions, on small stand-in modules with
PyTorch's Module interface (SWALR's rates are in test_lr_scheduler.py)."""
import numpy as np
import pytest

import torchlike
from torchlike.optim import swa_utils


class Affine:
    """y = x @ weight + bias, with the Module calls swa_utils uses."""

    def __init__(self, weight, bias, buffer=None):
        self.weight = torchlike.tensor(weight, dtype=torchlike.float64).requires_grad_()
        self.bias = torchlike.tensor(bias, dtype=torchlike.float64).requires_grad_()
        self.count = torchlike.tensor(buffer if buffer is not None else [0.0],
                                      dtype=torchlike.float64)
        self.training = True

    def parameters(self):
        return iter([self.weight, self.bias])

    def buffers(self):
        return iter([self.count])

    def modules(self):
        yield self

    def train(self, mode=True):
        self.training = mode
        return self

    def __call__(self, x):
        return x @ self.weight + self.bias

    def set(self, weight, bias, count):
        with torchlike.no_grad():
            self.weight.copy_(torchlike.tensor(weight, dtype=torchlike.float64))
            self.bias.copy_(torchlike.tensor(bias, dtype=torchlike.float64))
            self.count.copy_(torchlike.tensor([count], dtype=torchlike.float64))


SNAPSHOTS = [(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -0.5]), 1.0),
             (np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([1.5, 0.5]), 2.0),
             (np.array([[-1.0, 4.0], [0.0, 2.0]]), np.array([0.0, 3.0]), 7.0)]


def averaged(avg_model):
    return [np.asarray(p.detach().cpu()) for p in (avg_model.module.weight, avg_model.module.bias)]


def run(avg_model, model):
    for w, b, c in SNAPSHOTS:
        model.set(w, b, c)
        avg_model.update_parameters(model)


def test_swa_is_the_mean_of_the_snapshots():
    model = Affine(*SNAPSHOTS[0][:2])
    swa = swa_utils.AveragedModel(model)
    run(swa, model)
    assert swa.n_averaged.item() == 3
    np.testing.assert_allclose(averaged(swa)[0], np.mean([s[0] for s in SNAPSHOTS], 0))
    np.testing.assert_allclose(averaged(swa)[1], np.mean([s[1] for s in SNAPSHOTS], 0))
    # Buffers are copied from the model, not averaged.
    assert swa.module.count.item() == 7.0
    x = torchlike.ones((1, 2), dtype=torchlike.float64)
    weight, bias = averaged(swa)
    np.testing.assert_allclose(np.asarray(swa(x).detach().cpu()), x.cpu().numpy() @ weight + bias)
    # The copy is independent of the model.
    assert swa.module.weight is not model.weight


@pytest.mark.parametrize("use_multi", [True, False])
def test_ema(use_multi):
    decay = 0.8
    model = Affine(*SNAPSHOTS[0][:2])
    if use_multi:
        ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(decay))
    else:
        ema = swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(decay))
    run(ema, model)
    expected = [SNAPSHOTS[0][0], SNAPSHOTS[0][1]]
    for w, b, _ in SNAPSHOTS[1:]:
        expected = [decay * expected[0] + (1 - decay) * w, decay * expected[1] + (1 - decay) * b]
    for got, want in zip(averaged(ema), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_use_buffers_averages_buffers_too():
    model = Affine(*SNAPSHOTS[0][:2])
    swa = swa_utils.AveragedModel(model, use_buffers=True)
    run(swa, model)
    assert swa.module.count.item() == pytest.approx(np.mean([s[2] for s in SNAPSHOTS]))


def test_swa_avg_fn_matches_the_multi_tensor_one():
    fn = swa_utils.get_swa_avg_fn()
    a, b = torchlike.tensor([1.0, 2.0]), torchlike.tensor([4.0, 8.0])
    np.testing.assert_allclose(np.asarray(fn(a, b, torchlike.tensor(2)).cpu()), [2.0, 4.0])
    swa_utils.get_swa_multi_avg_fn()([a], [b], torchlike.tensor(2))
    np.testing.assert_allclose(np.asarray(a.cpu()), [2.0, 4.0])


def test_only_one_averaging_function():
    with pytest.raises(AssertionError, match="Only one"):
        swa_utils.AveragedModel(Affine(*SNAPSHOTS[0][:2]), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


class Net:
    """A model with one batch-norm layer (update_bn finds batch norms by
    isinstance of nn.modules.batchnorm._BatchNorm, as PyTorch's does)."""

    def __init__(self):
        self.bn = torchlike.nn.BatchNorm1d(2, affine=False, dtype=torchlike.float64).eval()
        self.training = False

    def modules(self):
        yield self
        yield self.bn

    def train(self, mode=True):
        self.training = mode
        self.bn.train(mode)
        return self

    def __call__(self, x):
        return self.bn(x)


def test_update_bn_recomputes_the_running_statistics():
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((4, 2)) for _ in range(5)]
    net = Net()
    net.bn.running_mean.fill_(100.0)
    loader = [(torchlike.tensor(b), torchlike.zeros(4)) for b in batches]  # (input, target)
    swa_utils.update_bn(loader, net)
    np.testing.assert_allclose(np.asarray(net.bn.running_mean.cpu()),
                               np.mean([b.mean(0) for b in batches], 0), rtol=1e-12)
    assert net.bn.momentum == 0.1     # restored
    assert net.training is False      # mode restored


def test_update_bn_without_batchnorm_does_nothing():
    model = Affine(*SNAPSHOTS[0][:2])
    swa_utils.update_bn([torchlike.ones((1, 2), dtype=torchlike.float64)], model)
    assert model.training


def test_use_buffers_takes_an_integer_buffers_mean_truncated():
    """PyTorch's running mean off CUDA divides by n + 1 one tensor at a time
    and copies back, so an integer buffer (BatchNorm's num_batches_tracked
    under use_buffers) takes its mean truncated; the in-place update with a
    float alpha raised here (training programs, round seven)."""
    bn = torchlike.nn.BatchNorm1d(2)
    swa = swa_utils.AveragedModel(bn, use_buffers=True)
    seen = []
    for count in (1, 4, 6):
        bn.num_batches_tracked.fill_(count)
        seen.append(count)
        swa.update_parameters(bn)
    # 1, then 1 + (4 - 1) / 2 = 2.5 -> 2, then 2 + (6 - 2) / 3 = 3.33 -> 3
    assert swa.module.num_batches_tracked.item() == 3
    assert swa.module.num_batches_tracked.dtype == torchlike.int64


def test_swalr_state_dict_names_its_strategy_and_loads_weights_only():
    """SWALR's state dict held its annealing function, which a weights_only
    checkpoint cannot rebuild; PyTorch's holds the strategy's name
    (_anneal_strategy) and sets the function again on load (training
    programs, round seven)."""
    import io
    p = torchlike.nn.Parameter(torchlike.ones(2))
    opt = torchlike.optim.SGD([p], lr=0.2)
    sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
    sd = sched.state_dict()
    assert sd["_anneal_strategy"] == "linear" and "anneal_func" not in sd
    buf = io.BytesIO()
    torchlike.save(sd, buf)
    buf.seek(0)
    other = swa_utils.SWALR(torchlike.optim.SGD([p], lr=0.2), swa_lr=0.05, anneal_epochs=3)
    other.load_state_dict(torchlike.load(buf, weights_only=True))
    assert other.anneal_func(0.25) == 0.25     # linear, not the cosine it was built with


def test_swalr_refusals_in_pytorchs_words():
    # PyTorch 2.15's sentences ("must by" and a colon before; training
    # programs, round seven)
    opt = torchlike.optim.SGD([torchlike.nn.Parameter(torchlike.ones(2))], lr=0.1)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', "
                                         "instead got exp$"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match=r"^swa_lr must have the same length as "
                                         r"optimizer.param_groups. swa_lr has 2 values, "
                                         r"param_groups has 1.$"):
        swa_utils.SWALR(opt, swa_lr=[0.1, 0.2])
