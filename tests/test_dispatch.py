"""The kernel table keyed by (op, device, dtype) and its one check.

* Every op of the registry (ops.def, with the decompositions, random draws,
  fills, subscripting and copy declared there for their families) is listed
  per device with the dtypes it has kernels for.
* On the fake device (host memory behind tagged pointers: a CPU loop touching
  them crashes, tests/test_backend.py) an op of every family raises the one
  NotImplementedError naming op, device and dtype.  The fake device's only
  kernel is its backend's byte copy.
* A test hook lends the fake device the CPU's kernels, which is sound since
  its memory is host memory; then every family must give its results on the
  fake device, with the CPU's values.
* Tensors on two devices raise PyTorch's error.

The fake-device surveys run in a subprocess, so a kernel that touched fake
memory fails the test with the op's name instead of killing the test run."""
import json
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlike
from torchlike import _C

_C._fake_enable()

# One call per op, on tensors the survey script defines (on the fake device or
# on the CPU): f float32 2x2, v float32 [2], c float32 [3], f3 float32 1x2x2,
# fi int64 2x2, i1 int64 [0], i2 int64 zeros 2x2, iv int64 [0, 1, 1],
# m bool 2x2, r float32 rates 2x2, lu float32 2x2 with pivots piv int32 [1, 2].
# Unary, binary and reduction ops are called as _C.<name>(f[, f]); the ops
# below need other arguments.
CALLS = {
    "bitwise_not": "C.bitwise_not(fi)", "bitwise_and": "C.bitwise_and(fi, fi)",
    "bitwise_or": "C.bitwise_or(fi, fi)", "bitwise_xor": "C.bitwise_xor(fi, fi)",
    "bitwise_left_shift": "C.bitwise_left_shift(fi, fi)",
    "bitwise_right_shift": "C.bitwise_right_shift(fi, fi)",
    "gcd": "C.gcd(fi, fi)", "lcm": "C.lcm(fi, fi)",
    "where": "C.where(m, f, f)", "clamp": "C.clamp(f, 0.0, 1.0)",
    "max": "C.max(f, 0)", "min": "C.min(f, 0)",
    "cumsum": "C.cumsum(f, 0)", "cumprod": "C.cumprod(f, 0)",
    # matrix products
    "matmul": "C.matmul(f, f)", "mm": "C.mm(f, f)", "bmm": "C.bmm(f3, f3)", "mv": "C.mv(f, v)",
    "dot": "C.dot(v, v)", "vdot": "C.vdot(v, v)", "inner": "C.inner(f, f)",
    "outer": "C.outer(v, v)", "ger": "C.ger(v, v)", "addmm": "C.addmm(f, f, f)",
    "addbmm": "C.addbmm(f, f3, f3)", "baddbmm": "C.baddbmm(f3, f3, f3)",
    "addmv": "C.addmv(v, f, v)", "addr": "C.addr(f, v, v)", "tensordot": "C.tensordot(f, f)",
    "kron": "C.kron(f, f)", "trace": "C.trace(f)",
    # sorting and searching
    "sort": "C.sort(f)", "argsort": "C.argsort(f)", "msort": "C.msort(f)", "_sort_values": "C._sort_values(f, 0, True)",
    "topk": "C.topk(f, 1)", "kthvalue": "C.kthvalue(f, 1)", "median": "C.median(f)",
    "nanmedian": "C.nanmedian(f)", "quantile": "C.quantile(f, 0.5)",
    "nanquantile": "C.nanquantile(f, 0.5)", "mode": "C.mode(f)", "cummax": "C.cummax(f, 0)",
    "cummin": "C.cummin(f, 0)", "unique": "C.unique(f)",
    "unique_consecutive": "C.unique_consecutive(f)", "searchsorted": "C.searchsorted(v, v)",
    "bucketize": "C.bucketize(v, v)", "bincount": "C.bincount(iv)", "histc": "C.histc(f)",
    # indexing
    "gather": "C.gather(f, 0, i2)", "scatter": "C.scatter(f, 0, i2, f)",
    "scatter_add": "C.scatter_add(f, 0, i2, f)",
    "scatter_reduce": "C.scatter_reduce(f, 0, i2, f, 'sum')",
    "index_select": "C.index_select(f, 0, i1)", "index_add": "C.index_add(f, 0, i1, f[:1])",
    "index_copy": "C.index_copy(f, 0, i1, f[:1])", "index_fill": "C.index_fill(f, 0, i1, 0.0)",
    "index_put": "C.index_put(f, (i1,), v)", "masked_fill": "C.masked_fill(f, m, 1.0)",
    "masked_scatter": "C.masked_scatter(f, m, f)", "masked_select": "C.masked_select(f, m)",
    "take": "C.take(f, i1)", "take_along_dim": "C.take_along_dim(f, i2, 0)",
    "put": "C.put(f, i1, v[:1])", "nonzero": "C.nonzero(f)", "argwhere": "C.argwhere(f)",
    "__getitem__": "f[i1]",
    # linear algebra
    "linalg.solve": "L.solve(f, f)", "linalg.inv": "L.inv(f)",
    "linalg.cholesky": "L.cholesky(f)", "linalg.det": "L.det(f)",
    "linalg.slogdet": "L.slogdet(f)", "logdet": "T.logdet(f)", "linalg.qr": "L.qr(f)",
    "geqrf": "T.geqrf(f)",
    "linalg.svd": "L.svd(f)", "linalg.eigh": "L.eigh(f)", "linalg.eig": "L.eig(f)",
    "linalg.lu_factor": "L.lu_factor(f)", "linalg.lu": "L.lu(f)",
    "linalg.lu_solve": "L.lu_solve(lu, piv, f)",
    "linalg.solve_triangular": "L.solve_triangular(f, f, upper=True)",
    "linalg_ldl_factor_ex": "L.ldl_factor_ex(f)", "linalg_ldl_solve": "L.ldl_solve(lu, piv, f)",
    "linalg.lstsq": "L.lstsq(f, f)", "linalg.vector_norm": "L.vector_norm(f)",
    "linalg.cross": "L.cross(c, c)",
    # random draws into an existing tensor, and from rates/weights
    "uniform_": "f.uniform_()", "normal_": "f.normal_()", "random_": "f.random_(0, 5)",
    "bernoulli_": "f.bernoulli_(0.5)", "exponential_": "f.exponential_()",
    "cauchy_": "f.cauchy_()", "log_normal_": "f.log_normal_()",
    "geometric_": "f.geometric_(0.5)", "poisson": "T.poisson(r)",
    "multinomial": "T.multinomial(r, 1)", "_standard_gamma": "T._standard_gamma(r)",
    "binomial": "T.binomial(r, r / 10)",
    # a copy with a cast
    "copy_": "f.copy_(fi)",
    # neural-network kernels (src/nn)
    "softmax": "C.softmax(f, 1)", "log_softmax": "C.log_softmax(f, 1)",
    "_softmax_backward_data": "C._softmax_backward_data(f, f, 1, T.float32)",
    "_log_softmax_backward_data": "C._log_softmax_backward_data(f, f, 1, T.float32)",
    **{n: f"C.{n}(f)" for n in ("relu", "silu", "mish", "softsign", "hardsigmoid", "hardswish",
                                "tanhshrink", "log_sigmoid", "gelu", "softplus", "hardtanh",
                                "hardshrink", "softshrink", "leaky_relu", "elu")},
    **{f"{n}_backward": f"C.{n}_backward(f, f)" for n in (
        "silu", "mish", "softsign", "hardsigmoid", "hardswish", "tanhshrink", "log_sigmoid",
        "gelu")},
    "threshold": "C.threshold(f, 0.5, 2.0)", "threshold_backward": "C.threshold_backward(f, f, 0.0)",
    "leaky_relu_backward": "C.leaky_relu_backward(f, f, 0.1)",
    "elu_backward": "C.elu_backward(f, f, 1.0, 1.0, 1.0)",
    "softplus_backward": "C.softplus_backward(f, f, 1.0, 20.0)",
    "hardtanh_backward": "C.hardtanh_backward(f, f, -1.0, 1.0)",
    "hardshrink_backward": "C.hardshrink_backward(f, f, 0.5)",
    "softshrink_backward": "C.softshrink_backward(f, f, 0.5)",
    "_prelu_kernel": "C._prelu_kernel(f, v)", "_prelu_kernel_backward": "C._prelu_kernel_backward(f, f, v)",
    "glu": "C.glu(f, 1)", "glu_backward": "C.glu_backward(v.reshape(2, 1), f, 1)",
    "_fused_dropout": "C._fused_dropout(f, 0.0)",
    "native_dropout_backward": "C.native_dropout_backward(f, m, 2.0)",
    "embedding": "C.embedding(f, iv)",
    "embedding_dense_backward": "C.embedding_dense_backward(f3[0], iv[:2], 3, -1, False)",
    "_embedding_bag": "C._embedding_bag(f, iv, i1)",
    "_embedding_bag_dense_backward":
        "C._embedding_bag_dense_backward(f[:1], iv, i2[0, :1].expand(3), T.tensor([3]).to(DEV), "
        "i2[:0], 2, 0)",
    "_max_pool": "C._max_pool(f, (2,), (1,))", "_avg_pool": "C._avg_pool(f, (2,), (1,))",
    "_adaptive_max_pool": "C._adaptive_max_pool(f, (1,))",
    "_adaptive_avg_pool": "C._adaptive_avg_pool(f, (1,))",
    "_adaptive_avg_pool_backward": "C._adaptive_avg_pool_backward(f, (3,))",
    "_fractional_max_pool": "C._fractional_max_pool(f3, (1, 1), (2, 2), f3[0, :1] / 4)",
    "_max_pool_backward": "C._max_pool_backward(f, i2, (2,))",
    "_max_unpool": "C._max_unpool(f, i2, (3,))",
    "_avg_pool_backward": "C._avg_pool_backward(f[:, :1], (2,), (2,), (1,))",
    "_upsample": "C._upsample(f, (3,), 'linear')",
    "_upsample_backward": "C._upsample_backward(f, (3,), 'cubic')",
    "grid_sampler": "C.grid_sampler(f3[None], f3[None] / 4, 0, 0, False)",
    "grid_sampler_backward":
        "C.grid_sampler_backward(f3[None, :, :1], f3[None], f3[None] / 4, 2, 2, True)",
    "affine_grid_generator": "C.affine_grid_generator(T.cat([f3, f3[..., :1]], 2), [1, 1, 2, 2], False)",
    "affine_grid_generator_backward":
        "C.affine_grid_generator_backward(f3[None].expand(1, 2, 2, 2), [1, 1, 2, 2], False)",
    "_local_response_norm": "C._local_response_norm(f3, 2)",
    "_local_response_norm_backward": "C._local_response_norm_backward(f3, f3, 2, 1e-4, 0.75, 1.0)",
    "_thnn_fused_lstm_cell": "C._thnn_fused_lstm_cell(f.repeat(1, 2), f.repeat(1, 2), f[:, :1])",
    "_thnn_fused_lstm_cell_backward_impl":
        "C._thnn_fused_lstm_cell_backward_impl(f[:, :1], f[:, :1], f[:, :1], f[:, :1], "
        "f.repeat(1, 2), True)",
    "_thnn_fused_gru_cell": "C._thnn_fused_gru_cell(c.repeat(2, 1), c.repeat(2, 1), f[:, :1])",
    "_thnn_fused_gru_cell_backward":
        "C._thnn_fused_gru_cell_backward(f[:, :1], T.cat([f, f, f[:, :1]], 1), True)",
    "_fused_rnn_cell": "C._fused_rnn_cell(f, f, v, v)",
    "_rnn_layer": "C._rnn_layer(f3, f, None, f, f, v, v, None, None, 2, False)",
    "_rnn_layer_backward":
        "C._rnn_layer_backward(f3, f, None, f3, f, f, None, T.cat([f, f], 1), None, 2, False, True)",
    "_scaled_dot_product_flash_attention_for_cpu":
        "C._scaled_dot_product_flash_attention_for_cpu(f3, f3, f3)",
    "_scaled_dot_product_flash_attention_for_cpu_backward":
        "C._scaled_dot_product_flash_attention_for_cpu_backward(f3, f3, f3, f3, f3, f3[..., 0], "
        "0.0, False)",
    "convolution": "C.convolution(f3, f3, None, 1, 0, 1, False, 0, 1)",
    "_convolution_backward_weight":
        "C._convolution_backward_weight(f3[:, :1, :1], f3, [1, 2, 2], 1, 0, 1, False, 1)",
    "im2col": "C.im2col(f3, 2, 1, 0, 1)", "col2im": "C.col2im(f3, [3], 2, 1, 0, 1)",
    "native_batch_norm": "C.native_batch_norm(f, v, v, None, None, True, 0.1, 1e-5)",
    "native_batch_norm_backward": "C.native_batch_norm_backward(f, f, v, v, v, True, 1e-5)",
    "native_layer_norm": "C.native_layer_norm(f, [2], v, v, 1e-5)",
    "native_layer_norm_backward":
        "C.native_layer_norm_backward(f, f, [2], v.reshape(2, 1), v.reshape(2, 1), v, v)",
    "native_group_norm": "C.native_group_norm(f, v, v, 2, 2, 1, 1, 1e-5)",
    "native_group_norm_backward":
        "C.native_group_norm_backward(f, f, v.reshape(2, 1), v.reshape(2, 1), v, 2, 2, 1, 1)",
    "_fused_rms_norm": "C._fused_rms_norm(f, [2], v, None)",
    "_fused_rms_norm_backward": "C._fused_rms_norm_backward(f, f, [2], v.reshape(2, 1), v)",
    "nll_loss_nd": "C.nll_loss_nd(f, iv[:2], v, 1, -100)",
    "nll_loss_backward": "C.nll_loss_backward(v.sum(), f, iv[:2], v, 1, -100, v.sum())",
    "_pointwise_loss": "C._pointwise_loss(f, r, None, None, 0, 0.0, 1)",
    "_pointwise_loss_backward": "C._pointwise_loss_backward(v.sum(), f, r, None, None, 0, 0.0, 1)",
    "_cross_entropy": "C._cross_entropy(f, iv[:2], v, 1, -100, 0.1)",
    "_cross_entropy_backward":
        "C._cross_entropy_backward(v.sum(), f, iv[:2], v, 1, -100, 0.1, v, v.sum())",
    "_multi_margin_loss": "C._multi_margin_loss(f, iv[:2], 2, 1.0, v, 1)",
    "_multi_margin_loss_backward": "C._multi_margin_loss_backward(v.sum(), f, iv[:2], 2, 1.0, v, 1)",
    "_multilabel_margin_loss": "C._multilabel_margin_loss(f, i2, 1)",
    "_multilabel_margin_loss_backward": "C._multilabel_margin_loss_backward(v.sum(), f, i2, 1, f)",
    "_ctc_loss": "C._ctc_loss(f3, iv[1:], [1, 1], [1, 1])",
    "_ctc_loss_backward": "C._ctc_loss_backward(v, f3, iv[1:], [1, 1], [1, 1], v, "
                          "T.full((2, 1, 3), -1.0, device=DEV), 0)",
    # creation: made on the device and filled there by its kernels
    "randperm": "T.randperm(3, device=DEV)", "arange": "T.arange(3, device=DEV)",
    "full": "T.full((2,), 1.5, device=DEV)", "linspace": "T.linspace(0, 1, 3, device=DEV)",
    "eye": "T.eye(2, device=DEV)",
}

SETUP = """
import json, sys
import numpy as np
import torchlike as T
from torchlike import _C as C
L = T.linalg
C._fake_enable()
DEV = sys.argv[1]
if sys.argv[2] == "lend":
    C._dispatch_lend_cpu_kernels("fake", True)

def make(dev):
    g = {"C": C, "L": L, "T": T, "DEV": dev}
    g["f"] = T.tensor([[2.0, -1.0], [1.0, 3.0]]).to(dev)
    g["v"] = T.tensor([1.0, 2.0]).to(dev)
    g["c"] = T.tensor([1.0, 2.0, 3.0]).to(dev)
    g["f3"] = T.tensor([[[2.0, -1.0], [1.0, 3.0]]]).to(dev)
    g["fi"] = T.tensor([[1, 2], [3, 4]]).to(dev)
    g["i1"] = T.tensor([0]).to(dev)
    g["i2"] = T.zeros(2, 2, dtype=T.int64).to(dev)
    g["iv"] = T.tensor([0, 1, 1]).to(dev)
    g["m"] = T.tensor([[True, False], [False, True]]).to(dev)
    g["r"] = T.tensor([[1.0, 2.0], [3.0, 4.0]]).to(dev)
    g["lu"] = T.tensor([[2.0, -1.0], [0.5, 3.5]]).to(dev)
    g["piv"] = T.tensor([1, 2], dtype=T.int32).to(dev)
    return g

def leaves(r):
    if isinstance(r, T.Tensor):
        return [r]
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in leaves(x)]
    return []

def values(t):
    if t.dtype in (T.bfloat16, T.float16):
        t = t.float()
    a = t.cpu().numpy()
    return (np.stack([a.real, a.imag], -1) if np.iscomplexobj(a) else a).tolist()

def describe(r):
    return [[str(t.device), values(t)] for t in leaves(r)]

for line in sys.stdin.read().splitlines():
    name, call = line.split("\\t")
    print("RUN " + name, flush=True)
    out = {}
    for dev in ("cpu", DEV):
        T.manual_seed(0)
        try:
            out[dev] = ["ok", describe(eval(call, make(dev)))]
        except Exception as e:
            out[dev] = ["raised", type(e).__name__, str(e)]
    print("DONE " + json.dumps([name, out[DEV], out["cpu"]]), flush=True)
"""


def table():
    return _C._dispatch_table()


def call_for(name, kind):
    if name in CALLS:
        return CALLS[name]
    if kind == "unary":
        return f"C.{name}(f)"
    if kind == "binary":
        return f"C.{name}(f, f)"
    if kind in ("reduce", "reduce_pair"):
        return f"C.{name}(f)"
    raise AssertionError(f"no call written for {name} ({kind})")


def survey(mode, names):
    """Run each op on the fake device and on the CPU in a subprocess; returns
    {name: (fake outcome, cpu outcome)}."""
    t = table()
    lines = [f"{n}\t{call_for(n, t[n][0])}" for n in names]
    p = subprocess.run([sys.executable, "-c", SETUP, "fake", mode], input="\n".join(lines),
                       capture_output=True, text=True, timeout=300)
    out = p.stdout.splitlines()
    if p.returncode != 0:
        running = [ln[4:] for ln in out if ln.startswith("RUN ")]
        pytest.fail(f"the survey died (code {p.returncode}) running {running[-1]!r}: a kernel "
                    f"touched fake memory\n{p.stderr[-3000:]}")
    done = [json.loads(ln[5:]) for ln in out if ln.startswith("DONE ")]
    assert len(done) == len(names)
    return {name: (fake, cpu) for name, fake, cpu in done}


# ---- the table ----------------------------------------------------------------------

def test_table_lists_every_registry_op_per_device():
    t = table()
    report = ["op kind cpu cuda fake (dtypes with a kernel)"]
    for name, (kind, row) in sorted(t.items()):
        counts = " ".join(str(len(row[d])) for d in ("cpu", "cuda", "fake"))
        report.append(f"{name} {kind} {counts}")
    print("\n".join(report))
    with_cpu = [n for n, (_, row) in t.items() if row["cpu"]]
    print(f"{len(with_cpu)} of {len(t)} ops have CPU kernels through the table")
    # Every op the registry declares has a CPU kernel, and the calls of this
    # file cover every one of them.
    assert sorted(with_cpu) == sorted(t)
    assert set(CALLS) >= {n for n, (k, _) in t.items()
                                           if k not in ("unary", "binary", "reduce")}
    # Every op of a function kind is a generated op function.
    for name, (kind, _) in t.items():
        if kind not in ("subscript", "linalg", "random", "fill", "copy"):
            assert type(getattr(_C, name)).__name__ == "op", name
    # The fake device has no kernels but its backend's byte copy; CUDA has its
    # own (test_cuda_kernels.py lists them) when it is built in.
    assert {n for n, (_, row) in t.items() if row["fake"]} == {"copy_"}
    cuda = {n for n, (_, row) in t.items() if row["cuda"]}
    assert cuda == {"copy_"} or cuda >= {"copy_", "full", "add", "exp", "where", "clamp"}


def test_table_dtypes_match_what_elementwise_ops_run():
    """A dtype listed for a unary or binary op runs on the CPU; an op whose CPU
    row lacks a dtype refuses it with a TypeError (float16 and bfloat16 run in
    float32 when they have no loop of their own)."""
    t = table()
    samples = {d: torchlike.tensor([1, 2]).to(getattr(torchlike, d)) for d in
               ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                "complex64", "complex128")}
    checked = 0
    for name, (kind, row) in t.items():
        if kind not in ("unary", "binary"):
            continue
        fn = getattr(_C, name)
        for dtype, x in samples.items():
            args = (x,) if kind == "unary" else (x, x)
            if dtype in row["cpu"]:
                fn(*args)  # must not raise
                checked += 1
    assert checked > 300


# ---- the fake device without kernels --------------------------------------------------

NO_KERNEL = re.compile(r"^([\w.]+)\(\): no kernel for device fake:0 and dtype (\w+)$")


def test_every_op_on_the_fake_device_raises_the_one_error():
    t = table()
    names = sorted(t)
    results = survey("own", names)
    wrong = {}
    for name in names:
        fake, cpu = results[name]
        assert cpu[0] == "ok", (name, cpu)
        if fake[0] != "raised" or fake[1] != "NotImplementedError":
            wrong[name] = fake
            continue
        m = NO_KERNEL.match(fake[2])
        if not m or m.group(1) not in t:
            wrong[name] = fake
    assert not wrong, wrong


def test_the_error_names_the_op_called():
    """Ops that are not composites refuse in their own name and input dtype."""
    t = table()
    names = ["exp", "add", "sum", "cumsum", "sort", "topk", "gather", "masked_fill", "mm",
             "matmul", "linalg.svd", "linalg.cholesky", "uniform_", "copy_", "index_fill",
             "bitwise_and", "__getitem__"]
    results = survey("own", names)
    for name in names:
        fake, _ = results[name]
        dtype = "int64" if name == "bitwise_and" else "float32"
        assert fake[2] == f"{name}(): no kernel for device fake:0 and dtype {dtype}", (name, fake)


# ---- the CPU's kernels lent to the fake device ---------------------------------------

def test_lent_kernels_put_every_familys_results_on_the_inputs_device():
    t = table()
    names = sorted(t)
    results = survey("lend", names)
    wrong = {}
    for name in names:
        fake, cpu = results[name]
        assert cpu[0] == "ok", (name, cpu)
        if fake[0] != "ok" or not fake[1] or any(d != "fake:0" for d, _ in fake[1]):
            wrong[name] = fake
            continue
        for (_, a), (_, b) in zip(fake[1], cpu[1]):
            if a is not None:
                np.testing.assert_array_equal(np.array(a), np.array(b), err_msg=name)
    assert not wrong, wrong


def test_lending_is_undone():
    code = textwrap.dedent("""
        import torchlike as T
        C = T._C
        C._fake_enable()
        C._dispatch_lend_cpu_kernels("fake", True)
        f = T.ones(2).to("fake")
        assert str((f + f).device) == "fake:0"
        C._dispatch_lend_cpu_kernels("fake", False)
        g = T.ones(2).to("fake")
        for x in (f, g):
            try:
                x + x
            except NotImplementedError as e:
                assert str(e) == "add(): no kernel for device fake:0 and dtype float32", e
            else:
                raise AssertionError("add ran on the fake device after lending ended")
        assert f.cpu().tolist() == [1.0, 1.0]
        assert C._dispatch_table()["add"][1]["fake"] == []
        print("ok")
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]


# ---- devices that mix -------------------------------------------------------------------

MIXED = [
    "f + c", "c + f", "T.mm(f, c)", "T.matmul(f, c)", "T.where(m, f, c)", "f.gather(0, ic)",
    "f.index_select(0, ic[0])", "f.masked_fill(mc, 1.0)", "T.searchsorted(f[0], c[0])",
    "f.copy_(c) if False else T.addmm(f, f, c)", "T.linalg.solve(f, c)", "f.add_(c)",
    "c.add_(f)", "T.cat([f, c])", "T.stack([f, c])", "f.scatter(0, ic, f)",
]


@pytest.mark.parametrize("lend", ["own", "lend"])
def test_mixing_devices_raises_pytorchs_error(lend):
    code = SETUP.split("for line in")[0] + textwrap.dedent("""
        g = make("fake")
        g["c"] = T.tensor([[1.0, 2.0], [3.0, 4.0]])
        g["ic"] = T.zeros(2, 2, dtype=T.int64)
        g["mc"] = T.ones(2, 2, dtype=T.bool)
        for call in sys.stdin.read().splitlines():
            try:
                eval(call, g)
                print(json.dumps([call, "ran"]))
            except Exception as e:
                print(json.dumps([call, type(e).__name__, str(e)]))
    """)
    p = subprocess.run([sys.executable, "-c", code, "fake", lend], input="\n".join(MIXED),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(p.stdout.splitlines()) == len(MIXED)
    for line in p.stdout.splitlines():
        call, *outcome = json.loads(line)
        assert outcome[0] == "RuntimeError", (call, outcome)
        assert re.fullmatch(r"Expected all tensors to be on the same device, but found at least "
                            r"two devices, (fake:0 and cpu|cpu and fake:0)!", outcome[1]), \
            (call, outcome)


def test_cpu_scalars_go_with_any_device():
    code = SETUP.split("for line in")[0] + textwrap.dedent("""
        g = make("fake")
        r = g["f"] + T.tensor(2.0)
        assert str(r.device) == "fake:0" and r.cpu().tolist() == [[4.0, 1.0], [3.0, 5.0]]
        r = g["f"].masked_fill(g["m"], T.tensor(0.5))
        assert str(r.device) == "fake:0" and r.cpu().tolist() == [[0.5, -1.0], [1.0, 0.5]]
        r = g["f"][[1, 0]]  # a CPU index list
        assert str(r.device) == "fake:0" and r.cpu().tolist() == [[1.0, 3.0], [2.0, -1.0]]
        print("ok")
    """)
    p = subprocess.run([sys.executable, "-c", code, "fake", "lend"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]
