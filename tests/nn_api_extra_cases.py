"""Cases shared by scripts/golden_nn_api_extra.py (run with PyTorch) and
tests/test_nn_api_extra.py (run with torchlike): each is a function of the
library namespace ``torch`` that builds modules with fixed float64 weights
(drawn from NumPy), runs them and returns ``(arrays, info)``: named tensors
(values, gradients, masks) and JSON-able facts (state-dict keys and shapes,
reprs, metadata).  ERRORS are calls that must raise; the golden file keeps
PyTorch's exception type and message."""
import importlib
import warnings

import numpy as np


def _prune(torch):
    # PyTorch does not import nn.utils.prune with nn.utils; scripts import it
    return importlib.import_module(torch.__name__ + ".nn.utils.prune")


def _fill(torch, module, seed, scale=1.0):
    """Overwrite every parameter of ``module`` (float64) with seeded normals."""
    rng = np.random.default_rng(seed)
    module.double()
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * scale))
    return module


def _t(torch, seed, *shape, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(a, requires_grad=requires_grad)


def _keys(module):
    return [[k, list(v.shape)] for k, v in module.state_dict().items()]


def _repr(obj):
    return repr(obj)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ---- weight norm (hook form) ---------------------------------------------------------------

def weight_norm_linear(torch):
    nn = torch.nn
    m = _fill(torch, nn.Linear(4, 3), 1)
    _quiet(nn.utils.weight_norm, m)
    x = _t(torch, 2, 5, 4)
    c = _t(torch, 3, 5, 3)
    out = m(x)
    (out * c).sum().backward()
    arrays = {"g": m.weight_g, "v": m.weight_v, "out": out, "grad_g": m.weight_g.grad,
              "grad_v": m.weight_v.grad, "weight": m.weight}
    info = {"keys": _keys(m), "repr": _repr(m)}
    nn.utils.remove_weight_norm(m)
    arrays["removed_weight"] = m.weight
    info["keys_removed"] = _keys(m)
    info["removed_is_param"] = isinstance(m.weight, nn.Parameter)
    return arrays, info


def weight_norm_conv_dims(torch):
    nn = torch.nn
    arrays, info = {}, {}
    x = _t(torch, 5, 2, 2, 7)
    for dim in (0, 1, 2, None, -1):
        m = _fill(torch, nn.Conv1d(2, 3, 3), 4)
        _quiet(nn.utils.weight_norm, m, dim=dim)
        arrays[f"g_{dim}"] = m.weight_g
        arrays[f"out_{dim}"] = m(x)
        info[f"keys_{dim}"] = _keys(m)
        # the parametrization form: the same magnitude as original0
        pm = _fill(torch, nn.Conv1d(2, 3, 3), 4)
        nn.utils.parametrizations.weight_norm(pm, dim=dim)
        arrays[f"param_g_{dim}"] = pm.parametrizations.weight.original0
        arrays[f"param_out_{dim}"] = pm(x)
    return arrays, info


# ---- spectral norm (hook form) -------------------------------------------------------------

def _spectral_linear(torch, n_iter):
    nn = torch.nn
    m = _fill(torch, nn.Linear(5, 4), 6)
    nn.utils.spectral_norm(m, n_power_iterations=n_iter)
    u = np.random.default_rng(7).standard_normal(4)
    v = np.random.default_rng(8).standard_normal(5)
    with torch.no_grad():
        m.weight_u.copy_(torch.tensor(u / np.linalg.norm(u)))
        m.weight_v.copy_(torch.tensor(v / np.linalg.norm(v)))
    return m


def spectral_norm_power_iteration(torch):
    arrays, info = {}, {}
    x = _t(torch, 9, 3, 5)
    c = _t(torch, 10, 3, 4)
    for n_iter in (1, 3):
        m = _spectral_linear(torch, n_iter)
        out = m(x)                       # training mode: n_iter steps, buffers updated
        (out * c).sum().backward()
        arrays[f"train{n_iter}_out"] = out
        arrays[f"train{n_iter}_u"] = m.weight_u
        arrays[f"train{n_iter}_v"] = m.weight_v
        arrays[f"train{n_iter}_weight"] = m.weight
        arrays[f"train{n_iter}_grad_orig"] = m.weight_orig.grad
        out2 = m(x)                      # a second training step moves u, v again
        arrays[f"train{n_iter}_out2"] = out2
        m.eval()
        arrays[f"eval{n_iter}_out"] = m(x)  # eval: the buffers as they are
        arrays[f"eval{n_iter}_u"] = m.weight_u
    info["keys"] = _keys(m)
    info["metadata"] = {k: v for k, v in m.state_dict()._metadata.items()}
    info["repr"] = _repr(m)
    torch.nn.utils.remove_spectral_norm(m)
    arrays["removed_weight"] = m.weight
    info["keys_removed"] = _keys(m)
    return arrays, info


def spectral_norm_conv_transpose(torch):
    nn = torch.nn
    m = _fill(torch, nn.ConvTranspose2d(3, 4, 2), 11)   # dim 1 by default
    nn.utils.spectral_norm(m)
    u = np.random.default_rng(12).standard_normal(4)
    v = np.random.default_rng(13).standard_normal(3 * 2 * 2)
    with torch.no_grad():
        m.weight_u.copy_(torch.tensor(u / np.linalg.norm(u)))
        m.weight_v.copy_(torch.tensor(v / np.linalg.norm(v)))
    out = m(_t(torch, 14, 1, 3, 3, 3))
    return {"out": out, "u": m.weight_u, "v": m.weight_v}, {"keys": _keys(m)}


def spectral_norm_version0_checkpoint(torch):
    """A checkpoint in the old layout (weight, weight_orig, weight_u; no
    weight_v, no version metadata) is converted on load."""
    m = _spectral_linear(torch, 1)
    m(_t(torch, 15, 2, 5))
    sd = m.state_dict()
    old = type(sd)()
    old["bias"] = sd["bias"]
    old["weight_orig"] = sd["weight_orig"]
    old["weight_u"] = sd["weight_u"]
    old["weight"] = m.weight.detach().clone()
    fresh = _spectral_linear(torch, 1)
    fresh.load_state_dict(old)
    fresh.eval()
    return ({"v": fresh.weight_v, "out": fresh(_t(torch, 16, 2, 5))}, {"keys": _keys(fresh)})


# ---- clipping --------------------------------------------------------------------------

def clip_total_norm(torch):
    arrays = {}
    ts = [_t(torch, 20, 3, 4), _t(torch, 21, 5), _t(torch, 22, 2, 2, 2)]
    for p in (2.0, 1.0, 3.0, float("inf"), 0.5):
        arrays[f"norm_{p}"] = torch.nn.utils.get_total_norm(ts, p)
    ps = [torch.nn.Parameter(_t(torch, 23 + i, 4)) for i in range(3)]
    for i, p in enumerate(ps):
        p.grad = _t(torch, 30 + i, 4)
    total = torch.nn.utils.get_total_norm([p.grad for p in ps])
    torch.nn.utils.clip_grads_with_norm_(ps, 0.7, total)
    arrays["total"] = total
    for i, p in enumerate(ps):
        arrays[f"clipped_{i}"] = p.grad
    arrays["empty"] = torch.nn.utils.get_total_norm([])
    return arrays, {}


# ---- pruning -------------------------------------------------------------------------------

def prune_unstructured(torch):
    nn, prune = torch.nn, _prune(torch)
    arrays, info = {}, {}
    for amount in (0.3, 5, 0, 1.0):
        m = _fill(torch, nn.Linear(6, 4), 40)
        prune.l1_unstructured(m, "weight", amount=amount)
        arrays[f"mask_{amount}"] = m.weight_mask
    m = _fill(torch, nn.Linear(6, 4), 40)
    prune.l1_unstructured(m, "weight", amount=0.25)
    info["keys"] = _keys(m)
    info["params"] = [k for k, _ in m.named_parameters()]
    info["buffers"] = [k for k, _ in m.named_buffers()]
    x = _t(torch, 41, 3, 6)
    out = m(x)
    out.sum().backward()
    arrays["out"] = out
    arrays["grad_orig"] = m.weight_orig.grad
    # importance scores choose the entries instead of the weights
    m2 = _fill(torch, nn.Linear(6, 4), 40)
    prune.l1_unstructured(m2, "weight", amount=7, importance_scores=_t(torch, 42, 4, 6))
    arrays["mask_scores"] = m2.weight_mask
    info["is_pruned"] = [prune.is_pruned(m), prune.is_pruned(nn.Linear(2, 2))]
    prune.remove(m, "weight")
    arrays["removed_weight"] = m.weight
    info["keys_removed"] = _keys(m)
    info["is_pruned_after"] = prune.is_pruned(m)
    return arrays, info


def prune_structured_and_iterative(torch):
    nn, prune = torch.nn, _prune(torch)
    arrays, info = {}, {}
    conv = _fill(torch, nn.Conv2d(3, 5, 2), 50)
    for n, dim in ((2, 0), (1, 1), (float("inf"), 0), ("fro", 0), ("fro", -1), (2, 2)):
        c = _fill(torch, nn.Conv2d(3, 5, 2), 50)
        prune.ln_structured(c, "weight", amount=2 if dim != 1 else 1, n=n, dim=dim)
        arrays[f"ln_{n}_{dim}"] = c.weight_mask
    c1 = _fill(torch, nn.Conv1d(3, 5, 2), 54)
    prune.ln_structured(c1, "weight", amount=2, n="nuc", dim=0)
    arrays["ln_nuc_0"] = c1.weight_mask
    lin = _fill(torch, nn.Linear(3, 4), 51)
    # iterative: structured then unstructured then custom compose their masks
    prune.ln_structured(conv, "weight", amount=0.4, n=2, dim=0)
    arrays["iter1"] = conv.weight_mask
    prune.l1_unstructured(conv, "weight", amount=10)
    arrays["iter2"] = conv.weight_mask
    mask = torch.tensor((np.arange(60).reshape(5, 3, 2, 2) % 3 != 0).astype(np.float64))
    prune.custom_from_mask(conv, "weight", mask)
    arrays["iter3"] = conv.weight_mask
    prune.ln_structured(conv, "weight", amount=1, n=1, dim=1)
    arrays["iter4"] = conv.weight_mask
    hooks = [h for h in conv._forward_pre_hooks.values()
             if isinstance(h, prune.BasePruningMethod)]
    info["container"] = [type(h).__name__ for h in hooks]
    info["container_methods"] = [type(mm).__name__ for mm in hooks[0]]
    info["keys"] = _keys(conv)
    arrays["out"] = conv(_t(torch, 52, 1, 3, 4, 4))
    prune.identity(lin, "bias")
    arrays["identity_mask"] = lin.bias_mask
    info["lin_keys"] = _keys(lin)
    # prune() on a bare tensor, with a default mask
    method = prune.L1Unstructured(amount=3)
    arrays["bare"] = method.prune(_t(torch, 53, 2, 4),
                                  default_mask=torch.tensor(np.array([[1.0, 0, 1, 1],
                                                                      [1, 1, 0, 1]])))
    return arrays, info


def prune_global(torch):
    nn, prune = torch.nn, _prune(torch)
    a = _fill(torch, nn.Linear(4, 3), 60)
    b = _fill(torch, nn.Linear(3, 2), 61)
    prune.l1_unstructured(b, "weight", amount=2)   # an existing mask takes part
    prune.global_unstructured([(a, "weight"), (a, "bias"), (b, "weight")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    arrays = {"a_w": a.weight_mask, "a_b": a.bias_mask, "b_w": b.weight_mask}
    hooks_b = [h for h in b._forward_pre_hooks.values()]
    info = {"b_hooks": [type(h).__name__ for h in hooks_b],
            "b_methods": [type(mm).__name__ for mm in hooks_b[0]], "a_keys": _keys(a)}
    c = _fill(torch, nn.Linear(4, 3), 62)
    d = _fill(torch, nn.Linear(3, 2), 63)
    scores = {(c, "weight"): _t(torch, 64, 3, 4)}
    prune.global_unstructured([(c, "weight"), (d, "weight")], pruning_method=prune.L1Unstructured,
                              importance_scores=scores, amount=6)
    arrays["c_w"], arrays["d_w"] = c.weight_mask, d.weight_mask
    return arrays, info


# ---- AdaptiveLogSoftmaxWithLoss -----------------------------------------------------------

def _asm(torch, head_bias):
    m = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=head_bias)
    return _fill(torch, m, 70, scale=0.5)


def adaptive_log_softmax(torch):
    arrays, info = {}, {}
    for hb in (False, True):
        m = _asm(torch, hb)
        x = _t(torch, 71, 6, 8, requires_grad=True)
        target = torch.tensor(np.array([0, 5, 11, 2, 7, 3], dtype=np.int64))
        out, loss = m(x, target)
        loss.backward()
        arrays[f"out_{hb}"], arrays[f"loss_{hb}"] = out, loss
        arrays[f"grad_x_{hb}"] = x.grad
        for k, p in m.named_parameters():
            arrays[f"grad_{k}_{hb}"] = p.grad
        arrays[f"log_prob_{hb}"] = m.log_prob(x)
        arrays[f"predict_{hb}"] = m.predict(x)
        info[f"keys_{hb}"] = _keys(m)
        info[f"repr_{hb}"] = _repr(m)
        one = m(x[1].detach(), target[1])
        arrays[f"unbatched_out_{hb}"], arrays[f"unbatched_loss_{hb}"] = one.output, one.loss
        info[f"fields_{hb}"] = list(type(one)._fields)
    # rows whose head picks a shortlist class and rows that do not
    m = _asm(torch, True)
    xs = _t(torch, 72, 20, 8) * 3
    arrays["predict_mixed"] = m.predict(xs)
    arrays["log_prob_mixed"] = m.log_prob(xs)
    return arrays, info


# ---- lazy modules --------------------------------------------------------------------------

LAZY = [
    ("LazyConv1d", dict(out_channels=4, kernel_size=3), (2, 3, 9)),
    ("LazyConv3d", dict(out_channels=2, kernel_size=2, groups=2), (1, 4, 3, 3, 3)),
    ("LazyConvTranspose1d", dict(out_channels=4, kernel_size=3, stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", dict(out_channels=4, kernel_size=3, groups=2, bias=False),
     (1, 6, 4, 4)),
    ("LazyConvTranspose3d", dict(out_channels=2, kernel_size=2, output_padding=1, stride=2),
     (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", dict(), (4, 5)),
    ("LazyBatchNorm2d", dict(affine=False), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", dict(track_running_stats=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", dict(), (2, 5, 6)),
    ("LazyInstanceNorm2d", dict(affine=True, track_running_stats=True), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", dict(affine=True), (1, 2, 3, 3, 3)),
]


def lazy_modules(torch):
    info = {}
    for name, kwargs, shape in LAZY:
        m = getattr(torch.nn, name)(**kwargs)
        before, repr_before = [k for k in m.state_dict()], _repr(m)
        y = m(torch.tensor(np.random.default_rng(80).standard_normal(shape)).float())
        info[name] = {"before": before, "repr_before": repr_before, "cls": type(m).__name__,
                      "after": _keys(m), "repr_after": _repr(m), "out_shape": list(y.shape)}
    return {}, info


# ---- CrossMapLRN2d -----------------------------------------------------------------------

def cross_map_lrn(torch):
    arrays, info = {}, {}
    for size, alpha, beta, k, C in ((3, 0.5, 0.75, 1.0, 7), (4, 0.2, 0.6, 2.0, 6),
                                    (5, 1.0, 1.2, 1.0, 8), (2, 1e-4, 0.75, 1, 3),
                                    (7, 0.3, 0.5, 1.5, 4)):
        m = torch.nn.CrossMapLRN2d(size, alpha, beta, k)
        x = _t(torch, 90 + size, 2, C, 3, 4, requires_grad=True)
        c = _t(torch, 100 + size, 2, C, 3, 4)
        out = m(x)
        (out * c).sum().backward()
        arrays[f"out_{size}"], arrays[f"grad_{size}"] = out, x.grad
        info[f"repr_{size}"] = _repr(m)
    return arrays, info


# ---- wrappers --------------------------------------------------------------------------

def wrappers(torch):
    nn = torch.nn
    info = {}
    net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4),
                        nn.Sequential(nn.BatchNorm1d(5, affine=False), nn.ReLU()))
    net[1].eval()
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    info["sync_repr"] = _repr(sync)
    info["sync_keys"] = _keys(sync)
    info["sync_training"] = [m.training for m in sync.modules()]
    info["sync_shares"] = sync[1].weight is net[1].weight
    dp = nn.DataParallel(_fill(torch, nn.Linear(3, 2), 110))
    info["dp_repr"] = _repr(dp)
    info["dp_keys"] = _keys(dp)
    out = dp(_t(torch, 111, 4, 3))
    info["compile"] = nn.Linear(2, 2).compile() is None
    return {"dp_out": out}, info


CASES = {f.__name__: f for f in (
    weight_norm_linear, weight_norm_conv_dims, spectral_norm_power_iteration,
    spectral_norm_conv_transpose, spectral_norm_version0_checkpoint, clip_total_norm,
    prune_unstructured, prune_structured_and_iterative, prune_global, adaptive_log_softmax,
    lazy_modules, cross_map_lrn, wrappers)}


def _twice(torch, fn):
    m = torch.nn.Linear(3, 2)
    fn(m)
    fn(m)


ERRORS = {
    "weight_norm_twice": lambda torch: _quiet(
        _twice, torch, lambda m: torch.nn.utils.weight_norm(m)),
    "remove_weight_norm_missing": lambda torch: torch.nn.utils.remove_weight_norm(
        torch.nn.Linear(2, 2)),
    "spectral_norm_twice": lambda torch: _twice(torch, torch.nn.utils.spectral_norm),
    "spectral_norm_zero_iterations": lambda torch: torch.nn.utils.spectral_norm(
        torch.nn.Linear(2, 2), n_power_iterations=0),
    "remove_spectral_norm_missing": lambda torch: torch.nn.utils.remove_spectral_norm(
        torch.nn.Linear(2, 2)),
    "prune_amount_negative": lambda torch: _prune(torch).l1_unstructured(
        torch.nn.Linear(2, 2), "weight", amount=-1),
    "prune_amount_above_one": lambda torch: _prune(torch).l1_unstructured(
        torch.nn.Linear(2, 2), "weight", amount=1.5),
    "prune_amount_type": lambda torch: _prune(torch).l1_unstructured(
        torch.nn.Linear(2, 2), "weight", amount="a"),
    "prune_amount_too_large": lambda torch: _prune(torch).l1_unstructured(
        torch.nn.Linear(2, 2), "weight", amount=5),
    "prune_structured_1d": lambda torch: _prune(torch).ln_structured(
        torch.nn.Linear(2, 2), "bias", amount=1, n=2, dim=0),
    "prune_dim_out_of_range": lambda torch: _prune(torch).ln_structured(
        torch.nn.Linear(2, 2), "weight", amount=1, n=2, dim=2),
    "prune_remove_unpruned": lambda torch: _prune(torch).remove(
        torch.nn.Linear(2, 2), "weight"),
    "prune_global_structured": lambda torch: _prune(torch).global_unstructured(
        [(torch.nn.Linear(2, 2), "weight")], _prune(torch).LnStructured, amount=1,
        n=2, dim=0),
    "prune_global_not_iterable": lambda torch: _prune(torch).global_unstructured(
        3, _prune(torch).L1Unstructured, amount=1),
    "asm_empty_cutoffs": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(4, 10, []),
    "asm_bad_cutoffs": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3]),
    "asm_cutoff_too_large": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10]),
    "asm_target_out_of_range": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(
        4, 10, [3])(torch.zeros(2, 4), torch.tensor([1, 12])),
    "asm_batch_mismatch": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(
        4, 10, [3])(torch.zeros(3, 4), torch.tensor([1, 2])),
    "asm_1d_target_3d_input": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(
        4, 10, [3])(torch.zeros(2, 1, 4), torch.tensor([1, 2])),
    "asm_0d_target_2d_input": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(
        4, 10, [3])(torch.zeros(2, 4), torch.tensor(1)),
    "asm_2d_target": lambda torch: torch.nn.AdaptiveLogSoftmaxWithLoss(
        4, 10, [3])(torch.zeros(2, 4), torch.zeros(2, 2, dtype=torch.int64)),
    "cross_map_lrn_3d": lambda torch: torch.nn.CrossMapLRN2d(3)(torch.zeros(1, 2, 3)),
    "lazy_conv_bad_dim": lambda torch: torch.nn.LazyConvTranspose2d(2, 3)(torch.zeros(2, 3)),
    "skip_init_not_module": lambda torch: torch.nn.utils.skip_init(int),
    "compile_mode_and_options": lambda torch: torch.compile(len, mode="default",
                                                            options={"a": 1}),
}
