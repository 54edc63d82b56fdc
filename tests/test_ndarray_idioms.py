"""NumPy code run on tensors: a corpus of idioms (method calls, attribute reads,
NumPy's own Python-level functions), each run on an ndarray and on a tensor
holding the same values, and compared -- values, dtypes and Python types.

The inputs: A (3x4 float64, non-symmetric values), V (a float64 vector),
I (3x4 int64), B (a bool mask) and S (a 2x3x4 float32 stack)."""
import math

import numpy as np
import pytest

import torchlike as tl

RNG = np.random.default_rng(7)
INPUTS = {
    "A": RNG.standard_normal((3, 4)),
    "V": RNG.standard_normal(5),
    "I": RNG.integers(-5, 9, size=(3, 4)),
    "B": RNG.standard_normal((3, 4)) > 0,
    "S": RNG.standard_normal((2, 3, 4)).astype(np.float32),
}

# (id, function of the inputs dict).  Each runs once with ndarrays, once with tensors.
IDIOMS = [
    # ---- attributes
    ("size", lambda d: d["A"].size),
    ("size_arith", lambda d: 0.5 * d["A"].size),
    ("size_div", lambda d: d["A"].sum() / d["A"].size),
    ("ndim", lambda d: d["S"].ndim),
    ("shape", lambda d: tuple(d["S"].shape)),
    ("shape_index", lambda d: d["A"].shape[-1]),
    ("len", lambda d: len(d["A"])),
    ("itemsize", lambda d: d["S"].itemsize),
    ("nbytes", lambda d: d["S"].nbytes),
    ("strides", lambda d: d["A"].strides),
    ("strides_T", lambda d: d["A"].T.strides),
    ("T", lambda d: d["A"].T),
    ("T_3d", lambda d: d["S"].T),
    ("real", lambda d: d["A"].real),
    ("flags_c", lambda d: d["A"].flags.c_contiguous),
    ("flags_f", lambda d: d["A"].T.flags["F_CONTIGUOUS"]),
    ("flat_index", lambda d: d["A"].flat[5]),
    ("flat_len", lambda d: len(d["A"].flat)),
    ("dtype_eq_type", lambda d: d["A"].dtype == np.float64),
    ("dtype_eq_name", lambda d: d["S"].dtype == "float32"),
    ("dtype_eq_dtype", lambda d: d["I"].dtype == np.dtype("int64")),
    ("dtype_ne", lambda d: d["A"].dtype != np.float32),
    ("dtype_in", lambda d: d["A"].dtype in (np.float32, np.float64)),
    ("dtype_kind", lambda d: np.dtype(d["I"].dtype.name).kind),
    ("dtype_bool", lambda d: d["B"].dtype == bool),
    # ---- reductions, NumPy spellings
    ("sum", lambda d: d["A"].sum()),
    ("sum_axis", lambda d: d["A"].sum(axis=0)),
    ("sum_axis_neg", lambda d: d["S"].sum(axis=-1)),
    ("sum_axes", lambda d: d["S"].sum(axis=(0, 2))),
    ("sum_keepdims", lambda d: d["A"].sum(axis=1, keepdims=True)),
    ("sum_dtype", lambda d: d["I"].sum(dtype=np.float64)),
    ("sum_bool", lambda d: d["B"].sum()),
    ("mean", lambda d: d["A"].mean()),
    ("mean_axis", lambda d: d["A"].mean(axis=1)),
    ("mean_dtype", lambda d: d["S"].mean(axis=0, dtype=np.float64)),
    ("prod_axis", lambda d: d["A"].prod(axis=0)),
    ("max", lambda d: d["A"].max()),
    ("max_axis", lambda d: d["A"].max(axis=0)),
    ("max_axis_keep", lambda d: d["A"].max(axis=1, keepdims=True)),
    ("min_axis", lambda d: d["A"].min(axis=1)),
    ("min_int", lambda d: d["I"].min(axis=0)),
    ("argmax", lambda d: d["A"].argmax()),
    ("argmax_axis", lambda d: d["A"].argmax(axis=1)),
    ("argmin_axis", lambda d: d["A"].argmin(axis=0)),
    ("std_axis", lambda d: d["A"].std(axis=0)),
    ("std_ddof", lambda d: d["A"].std(ddof=1)),
    ("var_ddof_axis", lambda d: d["A"].var(axis=1, ddof=1)),
    ("var_keep", lambda d: d["A"].var(axis=0, keepdims=True)),
    ("all", lambda d: d["B"].all()),
    ("any_axis", lambda d: d["B"].any(axis=0)),
    ("all_cmp", lambda d: (d["A"] > -10).all()),
    ("cumsum_flat", lambda d: d["A"].cumsum()),
    ("cumsum_axis", lambda d: d["A"].cumsum(axis=1)),
    ("cumprod_axis", lambda d: d["A"].cumprod(axis=0)),
    ("trace", lambda d: d["A"].trace()),
    # ---- shape methods
    ("transpose", lambda d: d["A"].transpose()),
    ("transpose_3d", lambda d: d["S"].transpose()),
    ("transpose_axes", lambda d: d["S"].transpose(2, 0, 1)),
    ("transpose_tuple", lambda d: d["S"].transpose((1, 2, 0))),
    ("transpose_2", lambda d: d["A"].transpose(1, 0)),
    ("reshape_args", lambda d: d["A"].reshape(4, 3)),
    ("reshape_tuple", lambda d: d["A"].reshape((2, 6))),
    ("reshape_neg", lambda d: d["S"].reshape(-1, 4)),
    ("reshape_F", lambda d: d["A"].reshape((4, 3), order="F")),
    ("flatten", lambda d: d["A"].flatten()),
    ("flatten_F", lambda d: d["A"].flatten(order="F")),
    ("ravel", lambda d: d["A"].ravel()),
    ("squeeze", lambda d: d["A"][None].squeeze()),
    ("squeeze_axis", lambda d: d["A"][None].squeeze(axis=0)),
    ("swapaxes", lambda d: d["S"].swapaxes(0, 2)),
    ("repeat_axis", lambda d: d["A"].repeat(2, axis=0)),
    ("repeat_axis1", lambda d: d["A"].repeat(3, axis=1)),
    ("repeat_list", lambda d: d["A"].repeat([1, 0, 2], axis=0)),
    ("newaxis", lambda d: d["V"][:, np.newaxis]),
    ("none_index", lambda d: d["V"][None, :]),
    ("diagonal", lambda d: d["A"].diagonal()),
    ("diagonal_offset", lambda d: d["A"].diagonal(offset=1)),
    # ---- copies, conversions, fills
    ("copy", lambda d: d["A"].copy()),
    ("copy_F_values", lambda d: d["A"].copy(order="F")),
    ("copy_F_strides", lambda d: d["A"].copy(order="F").strides),
    ("copy_independent", lambda d: _mutated_copy(d["A"])),
    ("fill", lambda d: _filled(d["A"])),
    ("astype_type", lambda d: d["A"].astype(np.float32)),
    ("astype_name", lambda d: d["A"].astype("int32")),
    ("astype_int", lambda d: d["I"].astype(np.int8)),
    ("astype_bool", lambda d: d["I"].astype(bool)),
    ("view_dtype", lambda d: d["S"].view(np.int32)),
    ("tolist", lambda d: d["A"].tolist()),
    ("tolist_int", lambda d: d["I"].tolist()),
    ("item_flat", lambda d: d["A"].item(5)),
    ("item_neg", lambda d: d["A"].item(-1)),
    ("item_multi", lambda d: d["A"].item(1, 2)),
    ("item_tuple", lambda d: d["A"].item((2, 3))),
    ("item_0d", lambda d: d["A"].sum().item()),
    ("float", lambda d: float(d["A"][0, 0])),
    ("int", lambda d: int(d["I"][1, 1])),
    ("bool_scalar", lambda d: bool(d["B"][0, 0])),
    ("tobytes", lambda d: d["S"].tobytes()),
    ("asarray", lambda d: np.asarray(d["A"])),
    ("array_copy", lambda d: np.array(d["A"])),
    ("asarray_dtype", lambda d: np.asarray(d["A"], dtype=np.float32)),
    # ---- selection and products
    ("take", lambda d: d["A"].take([0, 5, 11])),
    ("take_axis", lambda d: d["A"].take([2, 0], axis=1)),
    ("take_neg", lambda d: d["V"].take([-1, 0])),
    ("dot_mat", lambda d: d["A"].dot(d["A"].T)),
    ("dot_vec", lambda d: d["V"].dot(d["V"])),
    ("dot_matvec", lambda d: d["A"].dot(d["A"][0])),
    ("matmul_op", lambda d: d["A"] @ d["A"].T),
    ("clip", lambda d: d["A"].clip(-0.5, 0.5)),
    ("clip_kw", lambda d: d["A"].clip(min=0)),
    ("round", lambda d: d["A"].round(2)),
    ("round_0", lambda d: d["A"].round()),
    ("conj", lambda d: d["A"].conj()),
    ("argsort_axis", lambda d: d["A"].argsort(axis=1)),
    ("bool_index", lambda d: d["A"][d["B"]]),
    ("where_idx", lambda d: d["A"][d["A"] > 0].sum()),
    ("fancy", lambda d: d["A"][[0, 2], 1:3]),
    ("nonzero_np", lambda d: np.nonzero(d["I"])),
    # ---- NumPy functions on the inputs (dispatch through __array_function__)
    ("np_repeat", lambda d: np.repeat(d["A"], 2, axis=1)),
    ("np_repeat_flat", lambda d: np.repeat(d["V"], 2)),
    ("np_ptp", lambda d: np.ptp(d["A"], axis=1)),
    ("np_mean", lambda d: np.mean(d["A"], axis=0)),
    ("np_std", lambda d: np.std(d["A"])),
    ("np_var_ddof", lambda d: np.var(d["A"], ddof=1)),
    ("np_median", lambda d: np.median(d["A"], axis=0)),
    ("np_average", lambda d: np.average(d["A"], axis=1)),
    ("np_average_w", lambda d: np.average(d["V"], weights=np.abs(d["V"]))),
    ("np_cumsum", lambda d: np.cumsum(d["A"])),
    ("np_diff", lambda d: np.diff(d["V"])),
    ("np_diff_axis", lambda d: np.diff(d["A"], axis=0)),
    ("np_outer", lambda d: np.outer(d["V"], d["V"])),
    ("np_kron", lambda d: np.kron(d["A"][:2, :2], d["A"][:2, :2])),
    ("np_tile", lambda d: np.tile(d["A"], (2, 1))),
    ("np_roll", lambda d: np.roll(d["A"], 1, axis=1)),
    ("np_flip", lambda d: np.flip(d["A"], axis=0)),
    ("np_rot90", lambda d: np.rot90(d["A"])),
    ("np_tril", lambda d: np.tril(d["A"])),
    ("np_triu_k", lambda d: np.triu(d["A"], 1)),
    ("np_clip", lambda d: np.clip(d["A"], -1, 1)),
    ("np_where", lambda d: np.where(d["B"], d["A"], 0.0)),
    ("np_argwhere", lambda d: np.argwhere(d["B"])),
    ("np_count_nonzero", lambda d: np.count_nonzero(d["B"])),
    ("np_count_nonzero_axis", lambda d: np.count_nonzero(d["B"], axis=0)),
    ("np_isclose", lambda d: np.isclose(d["A"], d["A"] + 1e-12)),
    ("np_allclose", lambda d: np.allclose(d["A"], d["A"])),
    ("np_concatenate", lambda d: np.concatenate([d["A"], d["A"]], axis=1)),
    ("np_stack", lambda d: np.stack([d["V"], d["V"]])),
    ("np_vstack", lambda d: np.vstack([d["A"], d["A"][0]])),
    ("np_hstack", lambda d: np.hstack([d["V"], d["V"]])),
    ("np_column_stack", lambda d: np.column_stack([d["V"], d["V"]])),
    ("np_atleast_2d", lambda d: np.atleast_2d(d["V"])),
    ("np_expand_dims", lambda d: np.expand_dims(d["A"], 1)),
    ("np_squeeze", lambda d: np.squeeze(d["A"][None])),
    ("np_moveaxis", lambda d: np.moveaxis(d["S"], 0, -1)),
    ("np_swapaxes", lambda d: np.swapaxes(d["S"], 0, 1)),
    ("np_transpose", lambda d: np.transpose(d["S"])),
    ("np_reshape", lambda d: np.reshape(d["A"], (4, 3))),
    ("np_ravel", lambda d: np.ravel(d["A"])),
    ("np_split", lambda d: np.split(d["A"], 2, axis=1)),
    ("np_array_split", lambda d: np.array_split(d["V"], 3)),
    ("np_sort", lambda d: np.sort(d["A"], axis=1)),
    ("np_argsort", lambda d: np.argsort(d["V"])),
    ("np_unique", lambda d: np.unique(d["I"])),
    ("np_searchsorted", lambda d: np.searchsorted(np.sort(d["V"]), d["V"])),
    ("np_dot", lambda d: np.dot(d["A"], d["A"].T)),
    ("np_matmul", lambda d: np.matmul(d["A"], d["A"].T)),
    ("np_inner", lambda d: np.inner(d["V"], d["V"])),
    ("np_einsum", lambda d: np.einsum("ij,kj->ik", d["A"], d["A"])),
    ("np_trace", lambda d: np.trace(d["A"])),
    ("np_linalg_norm", lambda d: np.linalg.norm(d["A"])),
    ("np_linalg_norm_axis", lambda d: np.linalg.norm(d["A"], axis=1)),
    ("np_cov", lambda d: np.cov(d["A"])),
    ("np_corrcoef_rows", lambda d: np.cov(d["A"], rowvar=False)),
    ("np_exp", lambda d: np.exp(d["A"])),
    ("np_log_abs", lambda d: np.log(np.abs(d["A"]))),
    ("np_sqrt_sq", lambda d: np.sqrt(d["A"] ** 2)),
    ("np_maximum", lambda d: np.maximum(d["A"], 0)),
    ("np_minimum_reduce", lambda d: np.minimum.reduce(d["A"], axis=0)),
    ("np_add_reduce", lambda d: np.add.reduce(d["A"], axis=1)),
    ("np_hypot", lambda d: np.hypot(d["A"], d["A"])),
    ("np_sign", lambda d: np.sign(d["A"])),
    ("np_floor_int", lambda d: np.floor_divide(d["I"], 3)),
    ("np_mod", lambda d: np.mod(d["I"], 4)),
    ("np_logical_and", lambda d: np.logical_and(d["B"], d["A"] > 0)),
    ("np_sum_where", lambda d: np.sum(d["A"], where=d["B"])),
    ("np_amax", lambda d: np.amax(d["A"], axis=1)),
    ("np_nanmean", lambda d: np.nanmean(d["A"])),
    ("np_zeros_like", lambda d: np.zeros_like(d["A"])),
    ("np_ones_like_dtype", lambda d: np.ones_like(d["A"], dtype=np.int32)),
    ("np_full_like", lambda d: np.full_like(d["A"], 2.5)),
    ("np_empty_like_shape", lambda d: np.empty_like(d["S"]).shape),
    ("np_shape", lambda d: np.shape(d["S"])),
    ("np_size", lambda d: np.size(d["S"])),
    ("np_ndim", lambda d: np.ndim(d["S"])),
    ("np_meshgrid", lambda d: np.meshgrid(d["V"], d["V"][:3])),
    ("np_interp", lambda d: np.interp(d["V"], np.sort(d["V"]), np.arange(5.0))),
    ("np_histogram", lambda d: np.histogram(d["V"], bins=3)),
    ("np_percentile", lambda d: np.percentile(d["A"], 30)),
    ("np_quantile_axis", lambda d: np.quantile(d["A"], 0.5, axis=1)),
    ("np_linspace_scalar", lambda d: np.linspace(0, float(d["A"].max()), 4)),
    ("np_polyval", lambda d: np.polyval(d["V"][:3], d["V"])),
    ("np_convolve", lambda d: np.convolve(d["V"], d["V"][:3])),
    ("np_trapezoid", lambda d: np.trapezoid(d["V"])),
    ("np_gradient", lambda d: np.gradient(d["V"])),
    ("np_softmax", lambda d: np.exp(d["A"]) / np.exp(d["A"]).sum(axis=1, keepdims=True)),
    ("np_normalize", lambda d: (d["A"] - d["A"].mean(axis=0)) / d["A"].std(axis=0)),
    ("np_logsumexp_manual",
     lambda d: d["A"].max(axis=1) + np.log(np.exp(d["A"] - d["A"].max(axis=1, keepdims=True))
                                           .sum(axis=1))),
]


def _mutated_copy(a):
    c = a.copy()
    c[0, 0] = 100.0
    return a[0, 0], c[0, 0]


def _filled(a):
    c = a.copy()
    r = c.fill(7)
    return r, c


def _normalise(x):
    """ndarrays and tensors to (ndarray, dtype name); containers recursively."""
    if isinstance(x, tl.Tensor):
        return ("array", np.asarray(x.detach().cpu()), x.dtype.name)
    if isinstance(x, np.ndarray):
        return ("array", x, x.dtype.name)
    if isinstance(x, np.generic):
        return ("array", np.asarray(x), x.dtype.name)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__ if type(x) in (list, tuple) else "tuple",
                [_normalise(v) for v in x])
    return ("py", x)


def _assert_same(got, want, path="result"):
    if want[0] == "array":
        assert got[0] == "array", f"{path}: expected an array, got {got}"
        assert got[2] == want[2], f"{path}: dtype {got[2]} != {want[2]}"
        assert got[1].shape == want[1].shape, f"{path}: shape {got[1].shape} != {want[1].shape}"
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-9, err_msg=path)
    elif want[0] in ("list", "tuple"):
        assert got[0] in ("list", "tuple") and len(got[1]) == len(want[1]), f"{path}: {got}"
        for i, (g, w) in enumerate(zip(got[1], want[1])):
            _assert_same(g, w, f"{path}[{i}]")
    else:
        g = got[1] if got[0] == "py" else got[1].item() if got[1].ndim == 0 else got
        assert isinstance(g, type(want[1])), \
            f"{path}: type {type(g).__name__} != {type(want[1]).__name__}"
        if isinstance(want[1], float):
            assert math.isclose(g, want[1], rel_tol=1e-9, abs_tol=1e-12), f"{path}: {g} != {want[1]}"
        else:
            assert g == want[1], f"{path}: {g!r} != {want[1]!r}"


def test_ptp_method():
    """NumPy 2 dropped ndarray.ptp; the tensor keeps it, equal to np.ptp."""
    a = INPUTS["A"]
    t = tl.from_numpy(a.copy())
    np.testing.assert_allclose(np.asarray(t.ptp()), np.ptp(a))
    np.testing.assert_allclose(np.asarray(t.ptp(axis=1, keepdims=True)),
                               np.ptp(a, axis=1, keepdims=True))


def test_collisions_keep_pytorch():
    """Where one spelling means two things, PyTorch's meaning wins (docs/numpy.md)."""
    a = INPUTS["A"]
    t = tl.from_numpy(a.copy())
    np.testing.assert_allclose(np.asarray(t.std()), a.std(ddof=1))      # unbiased
    np.testing.assert_allclose(np.asarray(t.var()), a.var(ddof=1))
    values, indices = t.max(1)                                           # (values, indices)
    np.testing.assert_array_equal(np.asarray(indices), a.argmax(1))
    np.testing.assert_allclose(np.asarray(t.repeat(2, 1)), np.tile(a, (2, 1)))  # tile
    assert t.nonzero().shape == (a.size, 2)                              # one row per element
    values, _ = t.sort()                                                 # not in place
    np.testing.assert_array_equal(np.asarray(t), a)
    assert t.size() == (3, 4) and t.size(1) == 4 and t.size == 12


def test_corpus_has_150_idioms():
    assert len(IDIOMS) >= 150
    assert len({name for name, _ in IDIOMS}) == len(IDIOMS)


@pytest.mark.parametrize("name, idiom", IDIOMS, ids=[name for name, _ in IDIOMS])
def test_idiom(name, idiom):
    arrays = {k: v.copy() for k, v in INPUTS.items()}
    tensors = {k: tl.from_numpy(v.copy()) for k, v in INPUTS.items()}
    want = idiom(arrays)
    got = idiom(tensors)
    _assert_same(_normalise(got), _normalise(want), name)
    for k in INPUTS:  # no idiom writes its inputs
        np.testing.assert_array_equal(np.asarray(tensors[k]), INPUTS[k])


@pytest.mark.parametrize("name, idiom", [i for i in IDIOMS if i[0] in (
    "sum_axis", "max_axis", "std_ddof", "var_ddof_axis", "np_ptp", "cumsum_flat", "transpose_3d",
    "repeat_axis", "take_axis", "dot_mat", "np_repeat", "np_softmax", "np_normalize",
    "copy", "reshape_F", "flatten_F")], ids=lambda v: v if isinstance(v, str) else "")
def test_idiom_differentiates(name, idiom):
    """The NumPy spellings are recorded on the tape: gradcheck through each."""
    def f(a):
        out = idiom({"A": a, "S": a.reshape(2, 3, 2), "V": a[0], "I": None,
                     "B": None})
        return out
    a = tl.from_numpy(INPUTS["A"].copy()).requires_grad_()
    assert f(a).requires_grad
    assert tl.autograd.gradcheck(f, (a,))


def test_dtype_compares_with_any_string():
    """== with text that names no dtype is simply False (NumPy's dtype raises
    ValueError on such text; a comparison must not)."""
    assert not (tl.float32 == "not a dtype: some report text")
    assert tl.float32 != "float32x"
    assert tl.float32 == "float32" and tl.float32 == "f4"
