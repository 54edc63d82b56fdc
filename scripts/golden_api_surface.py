"""Record PyTorch's answers for the small API-surface pieces torchlike fills
in (finfo/iinfo, constants, torch-level in-place functions and *_copy ops,
tensor predicates and utilities, determinism and precision flags), for
tests/test_api_surface.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_api_surface.py
writes tests/golden/api_surface.json: [call, outcome] pairs, the call a
Python expression over T (the library), the tensors inputs() makes and the
helpers it gives (warned: the warnings a call gives, run: the result of a
function of T that a test builds as text)."""
import re
import warnings

from golden_calls import record

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]

CALLS = (
    [f"repr(T.finfo(T.{d}))" for d in DTYPES]
    + [f"str(T.finfo(T.{d}))" for d in DTYPES]
    + [f"[getattr(T.finfo(T.{d}), k) for k in FINFO_KEYS]" for d in DTYPES]
    + [f"repr(T.iinfo(T.{d}))" for d in INTS]
    + [f"[T.iinfo(T.{d}).bits, T.iinfo(T.{d}).min, T.iinfo(T.{d}).max, T.iinfo(T.{d}).dtype]"
       for d in INTS]
    + ["repr(T.finfo())", "T.finfo(type=T.float64).eps", "T.iinfo(type=T.int16).max",
       "T.finfo(T.float32) == T.finfo(T.float32)", "T.finfo(T.float32) == T.finfo(T.complex64)",
       "T.finfo(T.float32) != T.finfo(T.float64)", "T.finfo(T.float32) == T.iinfo(T.int32)",
       "hash(T.finfo(T.float32)) == hash(T.finfo(T.float32))",
       "T.iinfo(T.int8) == T.iinfo(T.int8)",
       "T.iinfo(T.bool)", "T.iinfo(T.float32)", "T.iinfo(T.complex64)", "T.finfo(T.int32)",
       "T.finfo(T.bool)", "T.finfo(T.uint8)", "T.finfo(1)", "T.finfo('float32')",
       "T.finfo(None)", "T.finfo(A)", "T.finfo(type=None)", "T.iinfo()", "T.iinfo(None)",
       "T.iinfo(1)", "T.finfo(T.float32, 1)", "T.finfo(T.float32, x=1)",
       "T.finfo(1.5, 'a')", "T.iinfo(T.int32, 1)", "T.iinfo(T.int32, x=2)", "T.iinfo(foo=1)",
       "setattr(T.finfo(T.float32), 'eps', 3)", "setattr(T.iinfo(T.int8), 'max', 3)",
       "setattr(T.finfo(T.float32), 'foo', 3)",
       "[T.e, T.pi, T.inf, T.nan, T.newaxis]", "A[T.newaxis].shape"]
)

UNARY_INPLACE = """abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_
    asinh_ atan_ atanh_ ceil_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_
    i0_ log10_ log1p_ log2_ log_ logit_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_
    sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ zero_ detach_ conj_physical_
    nan_to_num_""".split()
CALLS += [f"T.{n}(P.clone())" for n in UNARY_INPLACE] + [
    "T.clamp_(P.clone(), 0.3, 0.6)", "T.clamp_min_(P.clone(), 0.4)", "T.clamp_max_(P.clone(), 0.4)",
    "T.clip_(P.clone(), max=0.3)", "T.gcd_(I.clone(), J)", "T.lcm_(I.clone(), J)",
    "T.ldexp_(P.clone(), J)", "T.xlogy_(P.clone(), A)", "T.fill_(P.clone(), 2)",
    "T.fill_(P.clone(), T.tensor(3.0))", "T.index_put_(P.clone(), (T.tensor([0, 2]),), "
    "T.tensor([9.0, 8.0]))", "T.index_put_(P.clone(), (T.tensor([0, 0]),), T.tensor([1.0, 2.0]), "
    "True)", "T.nan_to_num_(T.tensor([float('nan'), float('inf'), -float('inf')]), 1.0, 2.0, 3.0)",
    "T.logit_(P.clone(), 0.3)", "T.round_(A.clone() * 1.26, decimals=1)",
    "T.as_strided_(M.clone(), (2, 2), (1, 4))", "T.addmv_(A.clone(), M[:, :3], A)",
    "T.resize_as_(M.clone(), A)", "T.abs_(1)", "T.abs_()", "T.abs_(input=A.clone())",
    "T.sqrt_(input=P.clone())", "T.dropout_(A.clone(), 0.0, True)",
    "T.dropout_(A.clone(), 0.5, False)", "T.alpha_dropout_(A.clone(), 0.5, False)",
    "T.feature_dropout_(M.clone(), 0.5, False)", "T.feature_alpha_dropout(M, 0.5, False)",
    "T.feature_alpha_dropout_(M.clone(), 0.0, True)", "T.dropout_(A.clone(), 1.5, True)",
    "T.fill(A, 2.5)", "T.fill(I, 2.7)", "T.fill(A, T.tensor(4.0))", "T.fill(A, T.ones(2))",
    "T.fill(3, 1)",
]
COPIES = [("view_copy", "M, (2, 6)"), ("view_copy", "M, T.int32"), ("permute_copy", "M, (1, 0)"),
          ("expand_copy", "A, (2, 3)"), ("transpose_copy", "M, 0, 1"), ("t_copy", "M"),
          ("squeeze_copy", "M[None]"), ("squeeze_copy", "M[None], 0"), ("unsqueeze_copy", "M, 1"),
          ("select_copy", "M, 1, 2"), ("slice_copy", "M"), ("slice_copy", "M, 1, 1, 3"),
          ("slice_copy", "M, 0, None, None, 2"), ("slice_copy", "M, -1, 1"),
          ("diagonal_copy", "M"), ("diagonal_copy", "M, 1"), ("split_copy", "M, 2"),
          ("split_copy", "M, 3, 1"), ("split_with_sizes_copy", "M, [1, 2]"),
          ("unbind_copy", "M"), ("unbind_copy", "M, 1"), ("unfold_copy", "M, 1, 2, 1"),
          ("detach_copy", "M"), ("alias_copy", "M"), ("as_strided_copy", "M, (2, 2), (1, 4)"),
          ("as_strided_copy", "M, (2, 2), (1, 4), 1"), ("view_as_real_copy", "C"),
          ("view_as_complex_copy", "M.reshape(6, 2)")]
CALLS += [f"T.{n}({a})" for n, a in COPIES] + [
    f"[t.is_contiguous() for t in T.{n}({a})]" if "split" in n or "unbind" in n
    else f"T.{n}({a}).is_contiguous()" for n, a in COPIES] + [
    "T.t_copy(1)", "T.view_copy(M, (5,))", "T.transpose_copy(M, 0, 1).stride()",
    "T.t_copy(M).data_ptr() != M.data_ptr()", "T.alias_copy(M).data_ptr() != M.data_ptr()",
]
# ---- predicates and utilities
CALLS += [
    "[A.is_conj(), C.conj().is_conj() and False, T.is_conj(A), A.is_neg(), T.is_neg(A)]",
    "[A.resolve_conj() is A, T.resolve_neg(A) is A]",
    "[T.tensor([1], dtype=d).is_signed() for d in (T.uint8, T.int8, T.int16, T.int32, T.int64, "
    "T.bool, T.float16, T.bfloat16, T.float32, T.float64, T.complex64)]", "T.is_signed(A)",
    "[M.is_same_size(T.ones(3, 4)), T.is_same_size(M, T.ones(4, 3))]", "M.is_same_size(3)",
    "[A.is_inference(), T.is_inference(A)]", "inference_made().is_inference()",
    "T.is_inference(inference_made().clone())", "inference_made(False).is_inference()",
    "T.no_grad()(lambda: T.ones(2))().is_inference()",
    "T.isreal(T.tensor([1 + 0j, 1 + 1j, 2 - 0j]))", "T.isreal(M)", "I.isreal()",
    "[A.get_device(), T.get_device(A)]",
    "[T.typename(A), T.typename(I), T.typename(3), T.typename(T.float32), T.typename('a'), "
    "T.typename(A.bfloat16()), T.typename(C), T.typename(A > 0), T.typename(T.nn.Linear), "
    "T.typename(T.nn.Linear(2, 2)), T.typename(T.nn.Parameter(A)), T.typename(T.Tensor)]",
    "T.zeros(3, 3).fill_diagonal_(5)", "T.zeros(7, 3).fill_diagonal_(5)",
    "T.zeros(7, 3).fill_diagonal_(5, wrap=True)", "T.zeros(8, 3).fill_diagonal_(5, True)",
    "T.zeros(2, 5).fill_diagonal_(5, True)", "T.zeros(2, 2, 2).fill_diagonal_(1)",
    "T.zeros(2, 3, 2).fill_diagonal_(1)", "T.zeros(3).fill_diagonal_(1)",
    "T.zeros(3, 3, dtype=T.int32).fill_diagonal_(2.7)",
    "T.zeros(3, 3).fill_diagonal_(T.tensor(2.0))", "T.zeros(0, 3).fill_diagonal_(1)",
    "T.ones(3, 3).tril_(-1)", "T.ones(3, 4).triu_(diagonal=1)", "T.ones(2, 3).cumsum_(1)",
    "T.ones(2, 3).cumsum_(dim=0, dtype=T.float64)", "T.arange(1.0, 5.0).cumprod_(0)",
    "T.arange(4).cumsum_(0)", "T.arange(4).cumprod_(0, dtype=T.int64)",
    "T.ones(2, dtype=T.float64).new_empty_strided((2, 3), (1, 2)).stride()",
    "T.ones(2, dtype=T.float64).new_empty_strided((2, 3), (1, 2)).dtype",
    "T.ones(2).new_empty_strided((2,), (1,), dtype=T.int32).dtype",
    "T.ones(2, 3, 4).sum_to_size(3, 1)", "T.ones(2, 3, 4).sum_to_size((1, 3, 1))",
    "T.ones(2, 3, 4).sum_to_size(2, 1)", "T.ones(2, 3).sum_to_size(1, 2, 3)",
    "T.ones(2, 3).sum_to_size(2, 3)", "T.ones(2, 3).sum_to_size(T.Size([3]))",
    "T.arange(6.0).resize_(2, 2)", "T.arange(4.0).resize_(2, 3)[0]",
    "T.arange(4.0).resize_(2, 3).shape", "T.arange(6.0).resize_((3, 2))",
    "T.ones(3, requires_grad=True).resize_(2)", "T.arange(6.0).view(2, 3).t().resize_(6)",
    "T.arange(6.0)[2:].resize_(2, 2)", "T.arange(6.0)[2:].resize_(3).storage_offset()",
    "T.arange(6.0).resize_(-1)", "T.arange(6.0).resize_(0).shape",
    "T.arange(6.0).resize_as_(T.ones(2, 2))", "T.resize_as_(T.arange(6.0), T.ones(3, 2))",
    "T.arange(6).split_with_sizes([2, 4])", "T.split_with_sizes(M, [1, 3], dim=1)",
    "T.arange(6).split_with_sizes([2, 3])", "T.arange(6).split_with_sizes([7, -1])",
    "T.unsafe_chunk(T.arange(5), 2)", "T.arange(5).unsafe_split(2)",
    "T.unsafe_split_with_sizes(T.arange(5), [1, 4])", "M.unsafe_chunk(2, 1)",
    "T.arange(4.0).apply_(lambda v: v * 2)", "T.arange(4).apply_(lambda v: v / 3)",
    "T.arange(4).apply_(lambda v: 'a')", "T.arange(4.0).apply_(lambda v: 'a')",
    "T.tensor([True, False]).apply_(lambda v: not v)",
    "T.arange(4.0).map_(T.ones(4), lambda a, b: a + b)",
    "T.zeros(2, 3).map_(T.arange(3.0), lambda a, b: a + b)",
    "T.arange(4.0).map2_(T.ones(4), T.full((4,), 3.0), lambda a, b, c: a + b * c)",
    "T.ones(2, requires_grad=True).apply_(lambda v: v)",
    "T.ones(2, requires_grad=True).map_(T.ones(2), lambda a, b: a)",
    "T.ones(2, dtype=T.float64).new(3).shape", "T.ones(2, dtype=T.float64).new([1, 2])",
    "T.ones(2).new(2, 3).shape", "T.ones(2, dtype=T.int32).new().shape",
    "T.ones(2).new(T.Size([2, 2])).shape", "T.ones(2).new((2, 3))", "T.ones(2).new(A) is A",
    "T.ones(2).new(I)",
    "T.tensor([0, 3, 0, 5]).nonzero_static(size=3)",
    "T.nonzero_static(T.tensor([[0, 3], [4, 0]]), size=3, fill_value=-7)",
    "T.nonzero_static(T.tensor([1, 1, 1]), size=2)", "T.nonzero_static(T.tensor([1, 1]), size=0)",
    "T.nonzero_static(T.tensor([1, 1, 1]), size=-1)", "T.nonzero_static(T.tensor(3), size=2)",
    "T.nonzero_static(T.tensor([1, 1, 1]), 2)",
    "T.arange(6.0).as_strided_((2, 2), (1, 2))",
    "T.as_strided_scatter(T.zeros(6), T.ones(2, 2), (2, 2), (1, 2))",
    "T.zeros(6).as_strided_scatter(T.ones(2, 2), (2, 2), (1, 2), 1)",
    "T.zeros(2, 3).as_strided_scatter(T.ones(2), (2,), (4,))",
    "T.zeros(6).as_strided_scatter(T.ones(2, 3), (2, 2), (1, 2))",
    "T.as_strided_scatter(T.zeros(8)[2:], T.ones(2), (2,), (1,))",
    "T.as_strided_scatter(T.zeros(3, 2).t(), T.ones(2), (2,), (1,))",
    "T.as_strided_scatter(T.zeros(4, 3)[:, ::2], T.ones(2), (2,), (1,))",
    "warned(lambda: T.range(1, 4))", "T.range(0, 1, 0.25)", "T.range(1, 4, dtype=T.int64)",
    "T.range(4, 1, -1)", "T.range(1, 4, 0)", "T.range(4, 1)", "T.range(0, 1, 0.3)",
    "T.range(1.5, 3.5)", "T.range(2)",
]
# ---- switches: each call runs in fresh(), which puts every switch back after it
CALLS += [
    "fresh(lambda: [T.are_deterministic_algorithms_enabled(), "
    "T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode()])",
    "fresh(lambda: [T.use_deterministic_algorithms(True), T.are_deterministic_algorithms_enabled(), "
    "T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode()])",
    "fresh(lambda: [T.use_deterministic_algorithms(True, warn_only=True), "
    "T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(), "
    "T.get_deterministic_debug_mode()])",
    "fresh(lambda: [T.use_deterministic_algorithms(False, warn_only=True), "
    "T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(), "
    "T.get_deterministic_debug_mode()])",
    "fresh(lambda: T.use_deterministic_algorithms(1))",
    "fresh(lambda: T.use_deterministic_algorithms('a'))",
    "fresh(lambda: T.use_deterministic_algorithms())",
] + [f"fresh(lambda: [T.set_deterministic_debug_mode({m!r}), T.get_deterministic_debug_mode(), "
     f"T.are_deterministic_algorithms_enabled(), "
     f"T.is_deterministic_algorithms_warn_only_enabled()])"
     for m in ["default", "warn", "error", 0, 1, 2, "bad", 3, 1.0, None]] + [
    "fresh(lambda: [T.get_float32_matmul_precision(), T.backends.cuda.matmul.allow_tf32])",
] + [f"fresh(lambda: [warned(lambda: T.set_float32_matmul_precision({p!r})), "
     f"T.get_float32_matmul_precision(), T.backends.cuda.matmul.allow_tf32])"
     for p in ["high", "medium", "highest", "bad", "HIGH", 1]] + [
    f"fresh(lambda: [{first}, {second}, T.get_float32_matmul_precision(), "
    f"T.backends.cuda.matmul.allow_tf32])"
    for first, second in [
        ("T.set_float32_matmul_precision('medium')", "tf32(True)"),
        ("T.set_float32_matmul_precision('medium')", "tf32(False)"),
        ("T.set_float32_matmul_precision('high')", "tf32(False)"),
        ("T.set_float32_matmul_precision('high')", "tf32(True)"),
        ("T.set_float32_matmul_precision('highest')", "tf32(True)"),
        ("T.set_float32_matmul_precision('highest')", "tf32(False)"),
        ("tf32(True)", "T.set_float32_matmul_precision('medium')"),
        ("tf32(True)", "T.set_float32_matmul_precision('highest')"),
        ("tf32(False)", "T.set_float32_matmul_precision('high')"),
        ("tf32(True)", "None"), ("tf32(False)", "None")]] + [
    "fresh(lambda: [T.is_warn_always_enabled(), T.set_warn_always(True), "
    "T.is_warn_always_enabled()])", "fresh(lambda: T.set_warn_always(1))",
    "fresh(lambda: [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()])",
    "fresh(lambda: [T.set_anomaly_enabled(True), T.is_anomaly_enabled(), "
    "T.is_anomaly_check_nan_enabled()])",
    "fresh(lambda: [T.set_anomaly_enabled(True, False), T.is_anomaly_enabled(), "
    "T.is_anomaly_check_nan_enabled()])", "fresh(lambda: T.set_anomaly_enabled(1))",
    "fresh(lambda: T.set_num_interop_threads(0))", "fresh(lambda: T.set_num_interop_threads(1.5))",
    "[T.is_storage(A.untyped_storage()), T.is_storage(A), T.is_storage(3)]",
    "fresh(lambda: [T.set_default_tensor_type(T.DoubleTensor), T.get_default_dtype(), "
    "T.tensor([1.5]).dtype])",
    "fresh(lambda: [T.set_default_tensor_type('torch.DoubleTensor'), T.get_default_dtype()])",
    "fresh(lambda: T.set_default_tensor_type(T.IntTensor))",
    "fresh(lambda: T.set_default_tensor_type('foo'))",
    "fresh(lambda: T.set_default_tensor_type(3))",
]

FINFO_KEYS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]


def warned(fn):
    """The (category, message) of each warning fn() gives, and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    # PyTorch's C++ warnings end with where they were raised
    return [[w.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "", str(w.message))]
            for w in caught], result


def inputs(T):
    def inference_made(mode=True):
        with T.inference_mode(mode):
            return T.ones(2) * 2

    def tf32(on):
        T.backends.cuda.matmul.allow_tf32 = on

    def fresh(fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn()
        finally:
            T.use_deterministic_algorithms(False)
            T.set_float32_matmul_precision("highest")
            T.set_warn_always(False)
            T.set_anomaly_enabled(False)
            T.set_default_dtype(T.float32)

    return {"A": T.tensor([1.0, -2.0, 3.5]), "M": T.arange(12.0).reshape(3, 4),
            "P": T.tensor([0.25, 0.5, 0.75]), "I": T.tensor([4, -6, 9]),
            "J": T.tensor([6, 4, 2]), "C": T.tensor([1 + 2j, -3j]),
            "FINFO_KEYS": FINFO_KEYS, "warned": warned, "inference_made": inference_made,
            "fresh": fresh, "tf32": tf32}


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike."""
    if type(r).__name__ == "Size":
        return ["size", [int(x) for x in r]]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    if type(r).__name__ == "Tensor":
        a = r.detach()
        a = (a.float() if str(a.dtype).endswith("bfloat16") else a).cpu().numpy()
        if a.dtype.kind == "c":  # complex values as [real, imaginary] pairs
            a = a.view(a.real.dtype).reshape(a.shape + (2,))
        return ["tensor", str(r.dtype).split(".")[-1], list(a.shape), a.tolist(),
                bool(r.requires_grad)]
    if r is None or isinstance(r, (bool, int, float, str)):
        return ["value", r]
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    return ["repr", repr(r)]


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "api_surface", messages=True)


if __name__ == "__main__":
    main()
