"""torchlike.optim.lr_scheduler (and swa_utils.SWALR) against PyTorch's rate
sequences, recorded by scripts/golden_optim.py; state-dict round trips and
the step-order warning."""
import json
import math
import os
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.optim as optim
from torchlike.optim import lr_scheduler as S
from optim_problems import SCHEDULER_CASES, STEPS, build_scheduler

with open(os.path.join(os.path.dirname(__file__), "golden", "optim", "schedulers.json")) as f:
    GOLDEN = json.load(f)


def make_optimizer(case):
    p1 = torchlike.zeros(2, requires_grad=True)
    p2 = torchlike.zeros(3, requires_grad=True)
    cls = getattr(optim, case.get("optimizer", "SGD"))
    return cls([dict(params=[p1], lr=0.1), dict(params=[p2], lr=0.05)],
               **case.get("optimizer_kwargs", {"momentum": 0.9}))


def step(opt, scheduler, case, k):
    opt.step()
    if case.get("metrics"):
        scheduler.step(case["metrics"][k])
    else:
        scheduler.step()


def momentum_of(opt):
    group = opt.param_groups[0]
    return group["betas"][0] if "betas" in group else group.get("momentum", 0.0)


@pytest.mark.parametrize("name", sorted(SCHEDULER_CASES))
def test_rates_match_pytorch(name):
    case = SCHEDULER_CASES[name]
    opt = make_optimizer(case)
    scheduler = build_scheduler(torchlike, opt, case)
    lrs, moms = [scheduler.get_last_lr()], []
    for k in range(case.get("steps", STEPS)):
        step(opt, scheduler, case, k)
        lrs.append(list(scheduler.get_last_lr()))
        assert lrs[-1] == [g["lr"] for g in opt.param_groups]
        moms.append(momentum_of(opt))
    np.testing.assert_allclose(lrs, GOLDEN[name]["lrs"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(moms, GOLDEN[name]["momenta"], rtol=1e-12, atol=1e-15)
    assert len({tuple(row) for row in lrs}) > 1  # the schedule does change the rate


@pytest.mark.parametrize("name", sorted(SCHEDULER_CASES))
def test_state_dict_round_trip_resumes(name):
    case = SCHEDULER_CASES[name]
    steps, split = case.get("steps", STEPS), 7
    opt = make_optimizer(case)
    scheduler = build_scheduler(torchlike, opt, case)
    for k in range(split):
        step(opt, scheduler, case, k)
    saved_sched = scheduler.state_dict()
    saved_opt = opt.state_dict()
    assert "optimizer" not in saved_sched

    opt2 = make_optimizer(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fresh scheduler's own first step
        scheduler2 = build_scheduler(torchlike, opt2, case)
    opt2.load_state_dict(saved_opt)
    scheduler2.load_state_dict(saved_sched)
    lrs = []
    for k in range(split, steps):
        step(opt2, scheduler2, case, k)
        lrs.append(scheduler2.get_last_lr())
    np.testing.assert_allclose(lrs, GOLDEN[name]["lrs"][split + 1:], rtol=1e-12, atol=1e-15)


def sgd():
    return optim.SGD([torchlike.zeros(2, requires_grad=True)], lr=0.1)


def test_warns_when_scheduler_steps_before_optimizer():
    opt = sgd()
    scheduler = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"lr_scheduler.step\(\)` before `optimizer.step\(\)"):
        scheduler.step()


def test_no_warning_in_the_right_order():
    opt = sgd()
    scheduler = S.ExponentialLR(opt, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            opt.step()
            scheduler.step()
    assert scheduler.get_last_lr() == [pytest.approx(0.1 * 0.5 ** 3)]


def test_epoch_argument_uses_the_closed_form_and_warns():
    opt = sgd()
    scheduler = S.StepLR(opt, step_size=3, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        scheduler.step(7)
    assert scheduler.get_last_lr() == [pytest.approx(0.1 * 0.5 ** 2)]


def test_get_lr_outside_step_warns():
    scheduler = S.StepLR(sgd(), step_size=3)
    with pytest.warns(UserWarning, match="get_last_lr"):
        scheduler.get_lr()


def test_resuming_needs_initial_lr():
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(sgd(), step_size=3, last_epoch=4)


def test_chainable_schedulers_compose():
    opt = sgd()
    a = S.ExponentialLR(opt, gamma=0.9)
    b = S.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(4):
        opt.step()
        a.step()
        b.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.9 ** 4 * 0.5 ** 2)


def test_lambda_state_dict_keeps_callable_objects_state():
    class Rate:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch
    opt = sgd()
    rate = Rate()
    scheduler = S.LambdaLR(opt, [rate])
    rate.factor = 0.25
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"factor": 0.25}]
    fresh = Rate()
    other = S.LambdaLR(sgd(), [fresh])
    other.load_state_dict(state)
    assert fresh.factor == 0.25
    # A plain function cannot be saved: it is stored as None.
    assert S.LambdaLR(sgd(), lambda e: 1.0).state_dict()["lr_lambdas"] == [None]


@pytest.mark.parametrize("make, match", [
    (lambda o: S.ConstantLR(o, factor=1.5), "between 0 and 1"),
    (lambda o: S.LinearLR(o, start_factor=0), "greater than 0"),
    (lambda o: S.ReduceLROnPlateau(o, factor=1.0), "Factor should be < 1.0"),
    (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=0), "positive integer T_0"),
    (lambda o: S.OneCycleLR(o, max_lr=0.1), "total_steps OR"),
    (lambda o: S.CyclicLR(o, 0.01, 0.1, mode="sawtooth"), "mode is invalid"),
    (lambda o: S.LambdaLR(o, [lambda e: 1, lambda e: 1]), "Expected 1 lr_lambdas"),
    (lambda o: optim.swa_utils.SWALR(o, swa_lr=0.1, anneal_strategy="step"), "anneal_strategy"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make(sgd())


def test_not_an_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), step_size=1)


def test_onecycle_past_total_steps_raises():
    opt = sgd()
    scheduler = S.OneCycleLR(opt, max_lr=0.1, total_steps=3)
    for _ in range(2):
        opt.step()
        scheduler.step()
    opt.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        scheduler.step()
        scheduler.step()


def test_cyclic_needs_momentum():
    opt = optim.Adagrad([torchlike.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match="momentum or beta1"):
        S.CyclicLR(opt, 0.01, 0.1)


def test_sequential_checks_milestones():
    opt = sgd()
    with pytest.raises(ValueError, match="number of milestone"):
        S.SequentialLR(opt, [S.ExponentialLR(opt, 0.9), S.ExponentialLR(opt, 0.5)],
                       milestones=[])


def test_warm_restarts_fractional_epochs():
    opt = sgd()
    scheduler = S.CosineAnnealingWarmRestarts(opt, T_0=4, eta_min=0.0)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scheduler.step(5.5)
    expected = 0.1 * (1 + math.cos(math.pi * 1.5 / 4)) / 2
    assert scheduler.get_last_lr() == [pytest.approx(expected)]
    assert scheduler.last_epoch == 5


def test_multiplicative_lr_refuses_a_factor_that_is_not_a_function():
    # PyTorch checks MultiplicativeLR's factors when it is made (LambdaLR's
    # only at its first rate, in Python's words)
    def opt(groups=1):
        return optim.SGD([{"params": [torchlike.nn.Parameter(torchlike.zeros(1))]}
                          for _ in range(groups)], lr=1.0)
    for bad in (0.5, [0.5], (lambda e: 1.0, 2)):
        groups = len(bad) if isinstance(bad, (list, tuple)) else 1
        with pytest.raises(TypeError, match="^lr_lambda should be a function, but got "
                                            f"{'int' if groups == 2 else 'float'}$"):
            S.MultiplicativeLR(opt(groups), bad)
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        S.MultiplicativeLR(opt(), [lambda e: 1.0, lambda e: 1.0])
    with pytest.raises(TypeError, match="'float' object is not callable"):
        S.LambdaLR(opt(), 0.5)
    s = S.MultiplicativeLR(opt(2), (lambda e: 0.5, lambda e: 0.25))
    s.optimizer.step()
    s.step()
    assert s.get_last_lr() == [0.5, 0.25]
