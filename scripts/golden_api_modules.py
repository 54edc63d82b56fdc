"""Record PyTorch's answers for the modules of docs/api_modules.md
(torch.testing, jit, compiler, library, nn.attention, hub): for each call,
its result as describe() puts it, or the exception's type and whole message.
The tests run the same calls with torchlike (tests/test_testing.py ...).

Run with an interpreter that has PyTorch:
    python scripts/golden_api_modules.py
writes tests/golden/api_modules.json: {area: [[call, outcome], ...]}.  A
call is a Python expression over T (the library), np, and ac (T.testing.
assert_close) that the tests evaluate the same way."""
import collections
import hashlib
import io
import json
import os
import shutil
import tempfile
import typing
import warnings

import numpy as np

_X3 = "T.tensor([1., 2., 3.])"
TESTING = [
    f"ac({_X3}, T.tensor([1., 2.5, 3.]))",
    "ac(T.tensor([1, 2, 3]), T.tensor([1, 4, 3]))",
    "ac(1.0, 1.5)", "ac(1, 2)", "ac(1, 1.0)", "ac(1, 1.0, check_dtype=False)",
    "ac(True, False)", "ac(True, True)", "ac(None, None)", "ac(None, 1)", "ac(1, None)",
    "ac(1 + 2j, 1 + 3j)", "ac(float('nan'), float('nan'))",
    "ac(float('nan'), float('nan'), equal_nan=True)", "ac(1.0, 1.0 + 1e-8)",
    "ac(np.float64(1.), np.float64(2.))", "ac(1.0, float('inf'))", "ac(0.0, 1e-6)",
    "ac(np.array([1., 2.]), np.array([1., 3.]))",
    "ac(np.array([1., 2.], dtype=np.float32), np.array([1., 2.5], dtype=np.float32))",
    "ac(np.array([1., 2.]), T.tensor([1., 2.]))", "ac(T.tensor([1.]), 1.)",
    "ac('a', 'a')", "ac([1, 2], [1, 2, 3])", "ac((1, 2), [1, 2])", "ac([1, 2], [1, 3])",
    "ac([T.tensor(1.), T.tensor(2.)], [T.tensor(1.), T.tensor(3.)])",
    "ac({'a': T.tensor(1.)}, {'b': T.tensor(1.)})",
    "ac({'a': 1, 'b': 2}, {'a': 1})", "ac({'a': 1}, {'a': 1, 'c': 2})",
    "ac([T.tensor([1.]), [T.tensor([1.]), {'x': T.tensor([2.])}]], "
    "[T.tensor([1.]), [T.tensor([1.]), {'x': T.tensor([3.])}]])",
    "ac([T.tensor([1.]), 'x'], [T.tensor([2.]), 'y'])",
    "ac(T.tensor([1.]), T.tensor([1.], dtype=T.float64))",
    "ac(T.tensor([1., 2.]), T.tensor([1., 2.], dtype=T.float64), check_dtype=False)",
    "ac(T.tensor([1., 2.]), T.tensor([1., 2.0001], dtype=T.float64), check_dtype=False)",
    "ac(T.tensor([1.]), T.tensor([1., 2.]))",
    "ac(T.tensor([[1., 2.]]), T.tensor([[1., 2.]]).t())",
    "ac(T.tensor([1.]), T.tensor([1.]), rtol=1)", "ac(T.tensor([1.]), T.tensor([1.]), atol=1)",
    "ac(T.tensor([1.]), T.tensor([1.1]), rtol=0.2, atol=0)",
    "ac(T.tensor([1.]), T.tensor([1.1]), rtol=0, atol=0.05)",
    "ac(T.tensor([float('nan')]), T.tensor([float('nan')]))",
    "ac(T.tensor([float('nan'), 1.]), T.tensor([float('nan'), 1.]), equal_nan=True)",
    "ac(T.tensor([float('nan'), 1.]), T.tensor([float('nan'), 2.]), equal_nan=True)",
    "ac(T.tensor([1., float('nan'), 5.]), T.tensor([2., 0., 0.]))",
    "ac(T.tensor([1.]), T.tensor([2.]), msg='custom')",
    "ac(T.tensor([1.]), T.tensor([2.]), msg=lambda m: '<' + m + '>')",
    "ac([T.tensor([1.])], [T.tensor([2.])], msg='custom')",
    "ac(T.tensor([1.]), T.tensor([1., 2.]), msg='custom')",
    "ac(T.tensor([[1., 2.], [3., 4.]]), T.tensor([[1., 2.], [3., 5.]]))",
    "ac(T.ones(3, 4).t(), T.ones(4, 3), check_stride=True)",
    "ac(T.ones(3, 4).t(), T.ones(4, 3))",
    "ac(T.tensor([True]), T.tensor([False]))",
    "ac(T.tensor([1 + 1j]), T.tensor([1 + 2j]))",
    "ac(T.tensor([1 + 1j], dtype=T.complex128), T.tensor([1 + 2j], dtype=T.complex128))",
    "ac(T.tensor([1., 0.]), T.tensor([0., 0.]))",
    "ac(T.tensor([float('inf')]), T.tensor([1.]))",
    "ac(T.tensor([float('inf')]), T.tensor([float('inf')]))",
    "ac(T.tensor([float('inf')]), T.tensor([-float('inf')]))",
    "ac(T.tensor([1e6, 0.]), T.tensor([1e6 + 1, 1e-4]))",
    "ac(T.tensor(1.), T.tensor(2.))", "ac(T.tensor(1), T.tensor(2))",
    "ac(T.tensor(1), T.tensor(2, dtype=T.uint8), check_dtype=False)",
    "ac(T.tensor([1, 2], dtype=T.uint8), T.tensor([3, 2], dtype=T.uint8))",
    "ac(T.tensor([1, 2], dtype=T.int8), T.tensor([-128, 2], dtype=T.int8))",
    "ac(T.tensor([1.], dtype=T.float16), T.tensor([1.001], dtype=T.float16))",
    "ac(T.tensor([1.], dtype=T.float16), T.tensor([1.01], dtype=T.float16))",
    "ac(T.tensor([1.], dtype=T.bfloat16), T.tensor([1.01], dtype=T.bfloat16))",
    "ac(T.tensor([1.], dtype=T.bfloat16), T.tensor([1.1], dtype=T.bfloat16))",
    "ac(T.tensor([1.], dtype=T.float64), T.tensor([1. + 1e-6], dtype=T.float64))",
    "ac(T.tensor([1.]), T.tensor([1.], requires_grad=True))",
    "ac(T.zeros(0), T.zeros(0))", "ac(T.zeros(0, 3), T.zeros(3, 0))",
    "ac(T.arange(6.).reshape(2, 3), T.arange(6.).reshape(2, 3) + T.tensor([0., 0., 1.]))",
    "ac(T.tensor([1.]), T.tensor([1.]), foo=1)",
    "ac(T.tensor([1.]), T.tensor([1.]), check_device=False, check_layout=False)",
    "T.testing.assert_allclose(T.tensor([1.]), T.tensor([2.]))",
    "T.testing.assert_allclose(T.tensor([1.]), T.tensor([1.00001]))",
    "T.testing.assert_allclose(T.tensor([1.]), [1.])",
    "T.testing.assert_allclose(T.tensor([1.]), T.tensor([1.], dtype=T.float64))",
    "T.testing.assert_allclose(T.tensor([1.], dtype=T.float64), T.tensor([2.], dtype=T.float64))",
    "T.testing.assert_allclose(T.tensor([float('nan')]), T.tensor([float('nan')]))",
    "T.testing.assert_allclose(T.tensor([1.]), T.tensor([2.]), msg='m')",
    "T.testing.make_tensor(3, dtype=T.float32, device='cpu', low=2, high=1)",
    "T.testing.make_tensor(3, dtype=T.float32, device='cpu', low=float('nan'))",
    "T.testing.make_tensor(3, dtype=T.float32, device='cpu', low=float('inf'))",
    "T.testing.make_tensor(3, dtype=T.int64, device='cpu', requires_grad=True)",
    "T.testing.make_tensor(3, dtype=T.bool, device='cpu', requires_grad=True)",
    "T.testing.make_tensor(2, 3, dtype=T.float32, device='cpu', noncontiguous=True, "
    "memory_format=T.channels_last)",
    "T.testing.make_tensor(2, 3, dtype=T.float32)",
    "T.testing.make_tensor(2, 3, device='cpu')",
    "T.testing.make_tensor(2, 3, dtype=T.float32, device='cpu', memory_format=T.channels_last)",
]

JIT = [
    "T.jit.trace(out_int, T.ones(2))", "T.jit.trace(out_mixed_list, T.ones(2))",
    "T.jit.trace(out_tensor_int, T.ones(2))", "T.jit.trace(out_list, T.ones(2))(T.ones(3))",
    "T.jit.trace(out_dict, T.ones(2))(T.ones(3))", "T.jit.trace(out_list, (T.ones(2),)).name",
    "T.jit.trace(out_dict, T.ones(2), check_inputs=[(T.ones(3),), (T.ones(1, 2),)])(T.ones(4))",
    "T.jit.trace(out_list, T.ones(2), check_inputs=[(3,)])",
    "type(T.jit.trace(out_list, T.ones(2))).__name__", "T.jit.script(out_list).name",
"T.jit.script(out_list)(T.ones(2))",
    "T.jit.freeze(lin)", "T.jit.freeze(T.jit.script(lin))",
    "T.jit.optimize_for_inference(lin)",
    "len(list(T.jit.freeze(T.jit.script(lin).eval()).parameters()))",
    "len(list(T.jit.freeze(T.jit.script(lin).eval(), preserved_attrs=['bias']).parameters()))",
    "len(list(T.jit.script(lin).parameters()))",
    "T.jit.script(lin).weight is lin.weight",
    "T.jit.trace_module(lin, T.ones(1, 2))",
    "repr(T.jit.trace_module(lin, {'forward': T.ones(1, 2)}))",
    "T.jit.is_scripting()", "T.jit.is_tracing()", "T.jit.annotate(int, 3)",
    "repr(T.jit.Attribute(3, int))", "T.jit.Final is typing.Final",
    "type(T.jit.script(lin)).__name__", "T.jit.script(lin).original_name",
    "repr(T.jit.script(lin))", "repr(T.jit.script(T.nn.Sequential(lin, T.nn.ReLU())))",
    "repr(T.jit.trace(lin, T.ones(1, 2)))", "type(T.jit.trace(lin, T.ones(1, 2))).__name__",
    "isinstance(T.jit.trace(lin, T.ones(1, 2)), T.jit.TracedModule)",
    "isinstance(T.jit.script(lin), T.jit.ScriptModule)",
    "isinstance(T.jit.trace(lin, T.ones(1, 2)), T.jit.ScriptModule)",
    "isinstance(T.jit.script(T.jit.script(lin)), T.jit.RecursiveScriptModule)",
    "T.jit.script(3)", "T.jit.script(int)",
    "T.jit.save(lin, io.BytesIO())",
    "T.jit.trace(lin)",
    "T.jit.trace(lin, T.ones(1, 2), example_kwarg_inputs={'input': T.ones(1, 2)})",
    "T.jit.wait(T.jit.fork(lambda x: x * 2, T.ones(2)))",
    "T.jit.fork(lambda: 1 / 0).wait()", "T.jit.script(T.jit.script(out_list)).name",
    "type(T.jit.fork(lambda x: x, 1)).__name__",
    "(T.jit.enable_onednn_fusion(True), T.jit.onednn_fusion_enabled(), "
    "T.jit.enable_onednn_fusion(False), T.jit.onednn_fusion_enabled())",
    "T.jit.load(io.BytesIO(saved_dict(T)))",
    "T.jit.load(io.BytesIO(torchscript_archive()))",
    "T.jit.isinstance([1, 2], typing.List[int])", "T.jit.isinstance(1, float)",
    # futures
    "(f := T.futures.Future(), f.done(), f.set_result(3), f.wait(), f.done())[1:]",
    "(f := T.futures.Future(), f.set_result(3), f.set_result(4))",
    "(f := T.futures.Future(), f.set_result(3), f.then(lambda x: x.wait() + 1).wait())[2]",
    "(f := T.futures.Future(), f.set_exception(ValueError('boom')), f.wait())",
    "(f := T.futures.Future(), f.set_exception(ValueError('boom')), f.done())[2]",
    "(f := T.futures.Future(), f.set_exception(ValueError('boom')), "
    "f.then(lambda x: 1).wait())[2]",
    "(f := T.futures.Future(), f.set_exception(ValueError('boom')), "
    "f.then(lambda x: x.wait()).wait())[2]",
    "(f := T.futures.Future(), f.set_result(1), g := T.futures.Future(), g.set_result(2), "
    "T.futures.wait_all([f, g]))[-1]",
    "(f := T.futures.Future(), f.set_result(1), "
    "[x.wait() for x in T.futures.collect_all([f]).wait()])[-1]",
    "(f := T.futures.Future(), seen := [], f.add_done_callback(lambda x: seen.append(x.value())), "
    "f.set_result(5), seen)[-1]",
    "T.futures.collect_all([]).wait()",
]

COMPILER = [
    "T.compiler.list_backends()", "T.compiler.list_backends(exclude_tags=('debug',))",
    "T.compiler.list_backends(exclude_tags=())[:3]", "T._dynamo.list_backends()",
    "T.compiler.is_compiling()", "T.compiler.is_dynamo_compiling()",
    "T.compiler.is_exporting()", "T.compiler.reset()", "T.compiler.cudagraph_mark_step_begin()",
    "T.compiler.disable(out_list) is out_list", "T.compiler.disable(out_list)(T.ones(2))",
    "T.compiler.disable(recursive=False)(out_list)(T.ones(2))",
    "T.compiler.disable(reason='x')(out_list) is out_list",
    "T.compiler.allow_in_graph(out_list) is out_list",
    "T.compiler.assume_constant_result(out_list) is out_list",
    "T.compiler.substitute_in_graph(out_tensor_int)(out_dict)(T.ones(2))",
    "T.compiler.set_stance('eager_on_recompile', force_backend='eager')",
    "type(T.compiler.set_stance('default', force_backend='eager')).__name__",
    "T.compiler.set_stance('force_eager')(out_list)(T.ones(2))",
    "T.compile(out_list, backend='nonexistent')",
    "type(T.compile(out_list, backend='nonexistent'))",
    "T.compile(out_list, mode='bogus')", "T.compile(out_list, mode='reduce-overhead', options={})",
    "T.compile(out_twice, backend='eager')(T.ones(2))",
    "T.compile(out_twice, mode='max-autotune')(T.ones(2))",
    "T.compile(out_twice)(T.ones(2))", "T.compile()(out_twice)(T.ones(2))",
    "T._dynamo.config.suppress_errors", "T._dynamo.config.cache_size_limit",
    "T._dynamo.config.recompile_limit", "T._dynamo.config.nonexistent_option",
    "setattr(T._dynamo.config, 'nonexistent_option', 1)",
    "(setattr(T._dynamo.config, 'suppress_errors', True), T._dynamo.config.suppress_errors, "
    "setattr(T._dynamo.config, 'suppress_errors', False))[1]",
    "T._dynamo.reset()", "T._dynamo.disable(out_list) is out_list", "T._dynamo.is_compiling()",
    "T._dynamo.mark_dynamic(T.ones(3), 0)", "T._dynamo.mark_static(T.ones(3), 0)",
    "T._dynamo.maybe_mark_dynamic(T.ones(3), 0)",
]

LIBRARY = [
    "lib_custom_op(T)", "lib_no_autograd(T)", "lib_autograd(T)", "lib_opcheck(T)",
    "lib_alias(T)", "lib_library_def(T)", "lib_impl_decorator(T)", "lib_schemas(T)",
    "lib_errors(T)",
    "T.ops.aten.add.Tensor(T.ones(2), T.ones(2))", "T.ops.aten.add(T.ones(2), 1)",
    "T.ops.aten.add.Scalar(T.ones(2), 2)", "T.ops.aten.mm.default(T.ones(2, 3), T.ones(3, 2))",
    "T.ops.aten.add.overloads()", "T.ops.aten.mm.overloads()", "T.ops.aten.nope",
    "T.ops.aten.add.nope", "str(T.ops.aten.add.Tensor)", "str(T.ops.aten.add)",
    "T.ops.aten.add.Tensor.name()", "T.ops.aten.sum.dim_IntList(T.ones(2, 3), [1])",
    "T.ops.aten.relu_.default(T.tensor([-1., 2.]))",
    "T.ops.aten.linalg_vector_norm.default(T.tensor([3., 4.]))",
    "T.ops.aten.softmax.int(T.tensor([1., 1.]), 0)", "repr(T.ops.mylib_unused)",
    "T.ops.aten.cat.default([T.ones(2), T.zeros(1)])",
    "T.ops.aten.where.self(T.tensor([True, False]), T.ones(2), T.zeros(2))",
]
ATTENTION = [
    "list(T.nn.attention.SDPBackend.__members__)",
    "[int(b) for b in T.nn.attention.SDPBackend]",
    "str(T.nn.attention.SDPBackend.MATH)", "repr(T.nn.attention.SDPBackend.FLASH_ATTENTION)",
    "T.nn.attention.sdpa_kernel('math').__enter__()",
    "(c := T.nn.attention.sdpa_kernel([1]), c.__enter__(), c.__exit__(None, None, None))[1]",
    "(c := T.nn.attention.sdpa_kernel(T.nn.attention.SDPBackend.MATH), c.__enter__(), "
    "c.__exit__(None, None, None))[1]",
] + [f"sdpa_run(T, {b!r}, {case!r})"
     for b in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION",
               "OVERRIDEABLE", "ERROR", "", "EFFICIENT_ATTENTION,MATH",
               "CUDNN_ATTENTION,FLASH_ATTENTION")
     for case in ("plain", "mask", "dropout", "float64", "2d", "5d", "vdim", "broadcast",
                  "causal", "gqa", "heads", "float_mask", "empty")] + [
    "flex_case(T, 'causal_bias')", "flex_case(T, 'empty_rows')", "flex_case(T, 'gqa')",
    "flex_case(T, 'captured')", "flex_case(T, 'and_or')", "flex_case(T, 'no_mask')",
    "flex_case(T, 'scale')", "flex_case(T, 'kv_batch1')",
    "flex_case(T, 'heads_mismatch')", "flex_case(T, '3d')", "flex_case(T, 'edim')",
    "block_mask_case(T, 2)", "block_mask_case(T, 128)", "block_mask_case(T, (1, 2))",
]


def _qkv(T, shapes, dtype=None):
    out = []
    for i, shape in enumerate(shapes):
        n = int(np.prod(shape))
        t = T.arange(n, dtype=T.float64).reshape(shape)
        out.append(((t * (0.37 + 0.11 * i)).sin() * 1.5).to(dtype or T.float32))
    return out


_SDPA_CASES = {
    "plain": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
    "mask": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {"mask": "bool"}),
    "dropout": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {"dropout_p": 0.5}),
    "float64": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {"dtype": "float64"}),
    "2d": ([(4, 8), (5, 8), (5, 8)], {}),
    "5d": ([(2, 2, 3, 4, 8), (2, 2, 3, 5, 8), (2, 2, 3, 5, 8)], {}),
    "vdim": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)], {}),
    "broadcast": ([(2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8)], {}),
    "causal": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {"is_causal": True}),
    "gqa": ([(2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)], {"enable_gqa": True}),
    "heads": ([(2, 4, 4, 8), (2, 1, 5, 8), (2, 1, 5, 8)], {}),
    "float_mask": ([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {"mask": "float"}),
    "empty": ([(2, 3, 0, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
}


def sdpa_run(T, backends, case):
    """F.scaled_dot_product_attention under sdpa_kernel(backends): the
    output's values (rounded) or the exception, and the warnings given."""
    shapes, opts = _SDPA_CASES[case]
    opts = dict(opts)
    dtype = getattr(T, opts.pop("dtype", "float32"))
    q, k, v = _qkv(T, shapes, dtype)
    mask = opts.pop("mask", None)
    if mask == "bool":
        opts["attn_mask"] = T.tensor([[i >= j for j in range(5)] for i in range(4)])
    elif mask == "float":
        opts["attn_mask"] = T.arange(20.).reshape(4, 5) / 10
    chosen = [getattr(T.nn.attention.SDPBackend, b) for b in backends.split(",") if b]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with T.nn.attention.sdpa_kernel(chosen):
                if opts.get("dropout_p"):
                    T.manual_seed(0)
                out = T.nn.functional.scaled_dot_product_attention(q, k, v, **opts)
            result = [list(out.shape)] if opts.get("dropout_p") else \
                np.round(out.double().numpy(), 5).tolist()
        except Exception as e:  # noqa: BLE001
            result = ["raises", type(e).__name__, str(e)]
    said = [str(w.message).split(" (Triggered internally")[0] for w in seen]
    return [result, said]


def _flex(T):
    import importlib
    return importlib.import_module(T.__name__ + ".nn.attention.flex_attention")


def flex_case(T, case):
    """flex_attention on fixed float64 inputs: output and lse (rounded)."""
    fx = _flex(T)
    q, k, v = _qkv(T, [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)], T.float64)
    kwargs = {}

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    if case == "causal_bias":
        kwargs = {"score_mod": lambda s, b, h, qi, ki: s + (qi - ki) * 0.1,
                  "block_mask": fx.create_block_mask(causal, None, None, 3, 5, device="cpu",
                                                     BLOCK_SIZE=2)}
    elif case == "empty_rows":
        kwargs = {"block_mask": fx.create_block_mask(lambda b, h, qi, ki: ki > qi + 2, 2, 2, 3,
                                                     5, device="cpu")}
    elif case == "gqa":
        k, v = k[:, :1], v[:, :1]
        kwargs = {"enable_gqa": True, "score_mod": lambda s, b, h, qi, ki: s * (h + 1)}
    elif case == "captured":
        bias = T.arange(10, dtype=T.float64).reshape(2, 5) / 7
        kwargs = {"score_mod": lambda s, b, h, qi, ki: s + bias[h, ki] - b * 0.5}
    elif case == "and_or":
        mask = fx.or_masks(fx.and_masks(causal, lambda b, h, qi, ki: ki > 0),
                           lambda b, h, qi, ki: ki == 4)
        kwargs = {"block_mask": fx.create_block_mask(mask, 1, 2, 3, 5, device="cpu")}
    elif case == "scale":
        kwargs = {"scale": 0.3}
    elif case == "kv_batch1":
        k, v = k[:1], v[:1]
    elif case == "heads_mismatch":
        k, v = k[:, :1], v[:, :1]
    elif case == "3d":
        q = q[0]
    elif case == "edim":
        q = q[..., :3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, aux = fx.flex_attention(q, k, v, return_aux=fx.AuxRequest(lse=True), **kwargs)
    return [np.round(out.numpy(), 8).tolist(), np.round(aux.lse.numpy(), 8).tolist()]


def block_mask_case(T, block):
    fx = _flex(T)

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    bm = fx.create_block_mask(causal, None, 2, 3, 5, device="cpu", BLOCK_SIZE=block)
    dense = fx.create_mask(causal, 1, 1, 3, 5, device="cpu")
    return [bm.to_dense().tolist(), str(bm.to_dense().dtype), bm.sparsity(), list(bm.shape),
            list(bm.seq_lengths), list(bm.BLOCK_SIZE), dense.tolist()]

EXTRAS = [
    "T.GradScaler is T.amp.GradScaler",
    "T.utils._pytree.tree_flatten({'a': (1, [2, 3]), 'b': collections.OrderedDict(x=4)})",
    "T.utils._pytree.tree_unflatten([5, 6, 7, 8], T.utils._pytree.tree_flatten("
    "{'a': (1, [2, 3]), 'b': collections.OrderedDict(x=4)})[1])",
    "str(T.utils._pytree.tree_structure({'a': (1, [2, 3]), 'b': [4]}))",
    "T.utils._pytree.tree_structure({'a': (1, [2, 3])}).num_nodes",
    "T.utils._pytree.tree_structure({'a': (1, [2, 3])}).num_leaves",
    "T.utils._pytree.tree_structure({'a': (1, [2, 3])}).type",
    "T.utils._pytree.tree_structure({'a': (1, [2, 3])}).context",
    "T.utils._pytree.tree_structure(1).is_leaf()",
    "T.utils._pytree.tree_leaves([1, (2, None), {'k': 3}])",
    "T.utils._pytree.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and "
    "len(x) == 2)",
    "T.utils._pytree.tree_map(lambda x: x * 2, {'a': [1, 2], 'b': (3,)})",
    "T.utils._pytree.tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])",
    "T.utils._pytree.tree_map_only(int, lambda x: x + 1, [1, 2.0, 'a'])",
    "T.utils._pytree.tree_all(lambda x: x > 0, [1, 2])",
    "T.utils._pytree.tree_any(lambda x: x > 1, [1, 2])",
    "T.utils._pytree.tree_unflatten([1], T.utils._pytree.tree_structure((1, 2)))",
    "T.utils._pytree.tree_flatten(collections.defaultdict(int, a=1))",
    "T.utils._pytree.tree_flatten(collections.deque([1, 2]))",
    "T.utils._pytree.tree_flatten(None)", "T.utils._pytree.tree_flatten(T.Size([2, 3]))",
    "T.utils._pytree.tree_flatten(Point(1, (2, 3)))",
    "pytree_register(T)",
    "hub_local(T)", "hub_errors(T)", "hub_files(T)", "hub_dirs(T)",
]

Point = collections.namedtuple("Point", ["x", "y"])


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


_registered = {}


def pytree_register(T):
    P = T.utils._pytree
    if Pair not in _registered.setdefault(T.__name__, set()):
        P.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"),
                               lambda xs, ctx: Pair(*xs), serialized_type_name="Pair")
        _registered[T.__name__].add(Pair)
    leaves, spec = P.tree_flatten([Pair(1, (2, 3)), 4])
    doubled = P.tree_map(lambda x: x * 2, Pair(1, 2))
    try:
        P.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda xs, ctx: Pair(*xs))
        again = "ok"
    except ValueError as e:
        again = str(e).replace(__name__, "MODULE")
    return [leaves, spec.num_leaves, spec.num_nodes, [doubled.a, doubled.b], again,
            P.tree_unflatten([9, 8, 7, 6], spec)[0].b]


_HUBCONF = """dependencies = ['numpy']
import helper


def tiny(scale=1, *, offset=0):
    "A tiny entry point."
    return helper.twice(scale) + offset


def _private():
    return 0


NOT_CALLABLE = 3
"""


def _temp_hub(T):
    d = tempfile.mkdtemp()
    repo = os.path.join(d, "repo")
    os.makedirs(repo)
    with open(os.path.join(repo, "hubconf.py"), "w") as f:
        f.write(_HUBCONF)
    with open(os.path.join(repo, "helper.py"), "w") as f:
        f.write("def twice(x):\n    return 2 * x\n")
    return d, repo


def hub_local(T):
    d, repo = _temp_hub(T)
    try:
        return [T.hub.load(repo, "tiny", source="local"),
                T.hub.load(repo, "tiny", 5, source="local", offset=1),
                T.hub.load(repo, "tiny", source="local", scale=2)]
    finally:
        shutil.rmtree(d)


def hub_errors(T):
    d, repo = _temp_hub(T)
    out = []
    bad = os.path.join(d, "bad")
    os.makedirs(bad)
    with open(os.path.join(bad, "hubconf.py"), "w") as f:
        f.write("dependencies = ['surely_not_a_package_xyz', 'numpy', 'nor_this_one']\n"
                "def m():\n    return 1\n")
    for call in (lambda: T.hub.load(repo, "tiny", source="gitlab"),
                 lambda: T.hub.load(repo, "missing", source="local"),
                 lambda: T.hub.load(repo, "NOT_CALLABLE", source="local"),
                 lambda: T.hub.load(repo, 3, source="local"),
                 lambda: T.hub.load(bad, "m", source="local"),
                 lambda: T.hub.load(d, "m", source="local")):
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e).replace(d, "<tmp>")])
    shutil.rmtree(d)
    return out


def hub_files(T):
    d = tempfile.mkdtemp()
    try:
        src = os.path.join(d, "weights.pt")
        T.save({"w": T.arange(4.)}, src)
        with open(src, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        url = "file://" + src
        out = []
        dst = os.path.join(d, "copy.pt")
        T.hub.download_url_to_file(url, dst, hash_prefix=digest[:10], progress=False)
        out.append(os.path.exists(dst))
        try:
            T.hub.download_url_to_file(url, os.path.join(d, "bad.pt"), hash_prefix="0000",
                                       progress=False)
        except RuntimeError as e:
            out.append(str(e).replace(digest, "<digest>"))
        out.append(os.path.exists(os.path.join(d, "bad.pt")))
        named = os.path.join(d, f"model-{digest[:8]}.pt")
        shutil.copy(src, named)
        sd = T.hub.load_state_dict_from_url("file://" + named, model_dir=os.path.join(d, "c"),
                                            check_hash=True, progress=False)
        out.append(sd["w"].tolist())
        out.append(sorted(os.listdir(os.path.join(d, "c"))) == [os.path.basename(named)])
        wrong = os.path.join(d, "model-abcdef12.pt")
        shutil.copy(src, wrong)
        try:
            T.hub.load_state_dict_from_url("file://" + wrong, model_dir=os.path.join(d, "c2"),
                                           check_hash=True, progress=False)
        except RuntimeError as e:
            out.append(str(e).replace(digest, "<digest>"))
        sd = T.hub.load_state_dict_from_url("file://" + src, model_dir=os.path.join(d, "c3"),
                                            file_name="renamed.pt", progress=False,
                                            weights_only=True)
        out.append([sorted(sd), os.listdir(os.path.join(d, "c3"))])
        return out
    finally:
        shutil.rmtree(d)


def hub_dirs(T):
    old = {k: os.environ.get(k) for k in ("TORCH_HOME", "XDG_CACHE_HOME")}
    saved = T.hub.get_dir()
    try:
        os.environ["TORCH_HOME"] = "/somewhere/th"
        a = T.hub.get_dir()
        del os.environ["TORCH_HOME"]
        os.environ["XDG_CACHE_HOME"] = "/xdg"
        b = T.hub.get_dir()
        T.hub.set_dir("/other/hub")
        c = T.hub.get_dir()
        return [a, b, c]
    finally:
        T.hub.set_dir(saved)
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_counts = {}


def _fresh(name):
    """A namespace name per scenario (each runs once per process)."""
    _counts[name] = _counts.get(name, -1) + 1
    return f"{name}{_counts[name]}" if _counts[name] else name


def _first_line(e):
    return [type(e).__name__, str(e).split("\n")[0]]


def _np_sin_op(T, ns):
    @T.library.custom_op(f"{ns}::np_sin", mutates_args=())
    def np_sin(x: T.Tensor, scale: float = 1.0) -> T.Tensor:
        return T.from_numpy(np.sin(x.numpy()) * scale)
    return np_sin


def _np_sin_autograd(T, op):
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos() * ctx.scale, None

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.scale = inputs[1]
    op.register_autograd(backward, setup_context=setup_context)


def lib_custom_op(T):
    ns = _fresh("golden_a")
    op = _np_sin_op(T, ns)
    x = T.tensor([0.5, 1.0], dtype=T.float64)
    space = getattr(T.ops, ns)
    return [op(x).tolist(), space.np_sin(x).tolist(), space.np_sin.default(x, 2.0).tolist(),
            str(space.np_sin.default._schema), space.np_sin.default.name(),
            space.np_sin.overloads(), str(space.np_sin), str(space.np_sin.default),
            repr(op).replace(ns, "NS"), type(op).__name__, op(x, scale=3.0).tolist(),
            op(x.requires_grad_()).requires_grad]


def lib_no_autograd(T):
    op = _np_sin_op(T, _fresh("golden_b"))
    y = op(T.tensor([0.5, 1.0], requires_grad=True))
    return [y.requires_grad, y.sum().backward()]


def lib_autograd(T):
    op = _np_sin_op(T, _fresh("golden_c"))
    _np_sin_autograd(T, op)
    x = T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True)
    op(x, 2.0).sum().backward()
    # 12 digits: the float64 cosine's last bit depends on the CPU's vector math
    return [[round(g, 12) for g in x.grad.tolist()], op(x).grad_fn is not None]


def lib_opcheck(T):
    op = _np_sin_op(T, _fresh("golden_d"))
    _np_sin_autograd(T, op)
    x = T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True)
    try:
        T.library.opcheck(op, (x,))
        first = "passed"
    except Exception as e:  # noqa: BLE001
        first = _first_line(e)
    op.register_fake(lambda x, scale=1.0: T.empty_like(x))
    return [first, T.library.opcheck(op, (x,)), T.library.opcheck(op, (x.detach(), 2.0))]


def lib_alias(T):
    ns = _fresh("golden_e")

    @T.library.custom_op(f"{ns}::same", mutates_args=())
    def same(x: T.Tensor) -> T.Tensor:
        return x

    try:
        same(T.ones(2))
    except RuntimeError as e:
        return str(e).split("): ", 1)[1]   # the module named before it differs


def lib_library_def(T):
    ns = _fresh("golden_f")
    lib = T.library.Library(ns, "DEF")
    out = [lib.define("twice(Tensor x, float a=2.) -> Tensor"),
           lib.define("pair.two(Tensor x) -> Tensor")]
    try:
        getattr(T.ops, ns).twice(T.ones(2))
    except NotImplementedError as e:
        out.append(_first_line(e)[1].split(".")[0])
    lib.impl("twice", lambda x, a=2.0: x * a, "CPU")
    lib.impl("pair.two", lambda x: x + 2, "CompositeImplicitAutograd")
    space = getattr(T.ops, ns)
    out += [space.twice(T.ones(2)).tolist(), space.twice.default(T.ones(2), 3.0).tolist(),
            space.pair.two(T.ones(1)).tolist(), space.pair.overloads(),
            str(space.twice.default._schema), str(space.pair.two._schema)]
    try:
        T.library.Library(ns, "DEF")
    except RuntimeError as e:
        out.append(str(e).split("  ")[0])   # then where each was registered
    try:
        T.library.Library(ns, "BAD")
    except ValueError as e:
        out.append(_first_line(e))
    frag = T.library.Library(ns, "FRAGMENT")
    out.append(frag.define("more(Tensor x) -> Tensor"))
    try:
        lib.impl("twice", lambda x, a=2.0: x, "CPU")
    except RuntimeError as e:
        out.append(_first_line(e)[0])
    x = T.tensor([1.0, 2.0], requires_grad=True)
    space.pair.two(x).sum().backward()          # CompositeImplicitAutograd: differentiable
    out.append(x.grad.tolist())
    return out


def lib_impl_decorator(T):
    ns = _fresh("golden_g")
    T.library.define(f"{ns}::cube", "(Tensor x) -> Tensor")

    @T.library.impl(f"{ns}::cube", "cpu")
    def cube(x):
        return x ** 3

    T.library.register_fake(f"{ns}::cube", lambda x: T.empty_like(x))

    def backward(ctx, grad):
        return grad * 3 * ctx.x ** 2

    def setup_context(ctx, inputs, output):
        ctx.x = inputs[0]

    T.library.register_autograd(f"{ns}::cube", backward, setup_context=setup_context)
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    space = getattr(T.ops, ns)
    y = space.cube(x)
    y.sum().backward()
    return [y.tolist(), x.grad.tolist(), T.library.opcheck(space.cube.default, (x,))]


def lib_schemas(T):
    ns = _fresh("golden_h")
    Optional, Sequence = typing.Optional, typing.Sequence

    def add_(x: T.Tensor, y: T.Tensor) -> None:
        x.add_(y)

    def many(x: T.Tensor, y: Optional[T.Tensor], n: int, s: Sequence[int], d: float = 0.5,
             b: bool = True, xs: Optional[typing.List[T.Tensor]] = None,
             ) -> typing.Tuple[T.Tensor, T.Tensor]:
        return x.clone(), x.clone()

    def listy(x: T.Tensor) -> typing.List[T.Tensor]:
        return [x.clone(), x * 2]

    def kw(x: T.Tensor, *, alpha: float = 1.0, dtype: Optional[T.dtype] = None) -> T.Tensor:
        return x * alpha

    out = []
    for fn, mut in ((add_, ("x",)), (many, ()), (listy, ()), (kw, ()), (add_, "unknown")):
        out.append(T.library.infer_schema(fn, mutates_args=mut))
    op = T.library.custom_op(f"{ns}::add_", mutates_args=("x",))(add_)
    x = T.ones(2)
    op(x, T.ones(2))
    out.append(x.tolist())
    lst = T.library.custom_op(f"{ns}::listy", mutates_args=())(listy)
    out.append([t.tolist() for t in lst(T.ones(1))])
    return out


def lib_errors(T):
    ns = _fresh("golden_i")
    out = []

    def noann(x):
        return x

    def ann(x: T.Tensor) -> T.Tensor:
        return x.clone()

    def noret(x: T.Tensor):
        return x

    def star(*xs: T.Tensor) -> T.Tensor:
        return xs[0]

    for fn, kwargs in ((noann, {"mutates_args": ()}), (ann, {}), (ann, {"mutates_args": ("z",)}),
                       (noret, {"mutates_args": ()}), (star, {"mutates_args": ()})):
        try:
            T.library.custom_op(f"{ns}::f{len(out)}", **kwargs)(fn)
            out.append("ok")
        except Exception as e:  # noqa: BLE001
            out.append(_first_line(e))
    T.library.custom_op(f"{ns}::dup", mutates_args=())(ann)
    try:
        T.library.custom_op(f"{ns}::dup", mutates_args=())(ann)
        out.append("ok")
    except Exception as e:  # noqa: BLE001
        out.append(type(e).__name__)
    return out


def out_int(x):
    return 3


def out_mixed_list(x):
    return (x, [x, {"a": x}])


def out_tensor_int(x):
    return (x, 1)


def out_list(x):
    return [x, x * 2]


def out_twice(x):
    return x * 2


def out_dict(x):
    return {"a": x, "b": (x, x + 1)}


def saved_dict(T):
    """The bytes of torch.save({'a': 1})."""
    buf = io.BytesIO()
    T.save({"a": 1}, buf)
    return buf.getvalue()


def torchscript_archive():
    """A TorchScript archive PyTorch wrote (tests/golden/jit_linear.pt)."""
    with open(os.path.join(GOLDEN, "jit_linear.pt"), "rb") as f:
        return f.read()


def describe(value):
    """A JSON form of a call's result: tensors by dtype, shape, strides."""
    if hasattr(value, "stride") and hasattr(value, "dtype"):
        return ["tensor", str(value.dtype), list(value.shape), list(value.stride())]
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def outcome(call, env):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return describe(eval(call, env))
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        text = str(e)
        if text.startswith("Got the following error when running the callback"):
            text = text.split("\n")[0]   # the rest is a traceback
        return ["raises", type(e).__name__, text]


def make_env(T):
    T.manual_seed(0)
    return {"T": T, "np": np, "ac": T.testing.assert_close, "io": io, "typing": typing,
            "lin": T.nn.Linear(2, 3), "saved_dict": saved_dict,
            "torchscript_archive": torchscript_archive, "out_int": out_int,
            "out_mixed_list": out_mixed_list, "out_tensor_int": out_tensor_int,
            "out_list": out_list, "out_dict": out_dict, "out_twice": out_twice,
            "collections": collections, "Point": Point, "pytree_register": pytree_register,
            "hub_local": hub_local, "hub_errors": hub_errors, "hub_files": hub_files,
            "hub_dirs": hub_dirs, "sdpa_run": sdpa_run, "flex_case": flex_case,
            "block_mask_case": block_mask_case,
            **{name: fn for name, fn in globals().items() if name.startswith("lib_")}}


GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                      "golden")
AREAS = {"testing": TESTING, "jit": JIT, "compiler": COMPILER, "library": LIBRARY,
         "attention": ATTENTION, "extras": EXTRAS}


def main():
    import torch
    import torch.testing  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch.nn.attention.flex_attention  # noqa: F401
    import torch.utils._pytree  # noqa: F401
    import torch.hub  # noqa: F401
    torch.manual_seed(0)
    archive = os.path.join(GOLDEN, "jit_linear.pt")
    if not os.path.exists(archive):   # (its bytes differ from run to run: written once)
        torch.jit.save(torch.jit.script(torch.nn.Linear(2, 3)), archive)
    out = {"torch": torch.__version__}
    for area, calls in AREAS.items():
        out[area] = [[call, outcome(call, make_env(torch))] for call in calls]
    path = os.path.join(GOLDEN, "api_modules.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")
    print(f"wrote {sum(len(v) for v in AREAS.values())} calls to {path}")


if __name__ == "__main__":
    main()
