"""Python threads calling torchlike at once.

Kernels run without the GIL, so four threads really do run ops, autograd and
random draws side by side; each result must still equal NumPy's, or the one
the same call gives on a single thread.  Inputs are large enough (>= 2^16
elements, or long BLAS/LAPACK/sort calls) that every call lets go of the GIL.
"""
import sys
import threading
import time

import numpy as np
import pytest

import torchlike as tl

NTHREADS = 4


def run_threads(work, n=NTHREADS):
    """Run work(i) on n threads started together; re-raise the first failure."""
    barrier = threading.Barrier(n)
    errors = []

    def main(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    threads = [threading.Thread(target=main, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@pytest.fixture
def pool_threads():
    """Restore the intra-op thread count a test changes."""
    n = tl.get_num_threads()
    yield
    tl.set_num_threads(n)


def thread_inputs(i):
    rng = np.random.default_rng(100 + i)
    return {
        "x": rng.standard_normal(1 << 18).astype(np.float32),
        "y": rng.standard_normal(1 << 18).astype(np.float32),
        "m": rng.standard_normal((96, 96)),
        "k": rng.integers(-1000, 1000, 1 << 17).astype(np.int64),
        "idx": rng.integers(0, 1 << 18, 1 << 17),
    }


# (name, torchlike fn, NumPy fn, rtol) on the arrays of thread_inputs
OPS = [
    ("add", lambda t: t["x"] + t["y"], lambda a: a["x"] + a["y"], 0),
    ("exp_mul", lambda t: t["x"].exp() * t["y"], lambda a: np.exp(a["x"]) * a["y"], 1e-6),
    ("sum_dim", lambda t: t["x"].reshape(512, 512).sum(0),
     lambda a: a["x"].reshape(512, 512).sum(0, dtype=np.float64).astype(np.float32), 1e-5),
    ("mean_all", lambda t: t["x"].double().mean(), lambda a: a["x"].astype(np.float64).mean(),
     1e-12),
    ("cumsum", lambda t: t["k"].cumsum(0), lambda a: a["k"].cumsum(0), 0),
    ("matmul", lambda t: t["m"] @ t["m"].T, lambda a: a["m"] @ a["m"].T, 1e-12),
    ("inv", lambda t: tl.linalg.inv(t["m"]), lambda a: np.linalg.inv(a["m"]), 1e-8),
    ("sort", lambda t: t["k"].sort().values, lambda a: np.sort(a["k"]), 0),
    ("argsort_stable", lambda t: t["k"].argsort(stable=True),
     lambda a: np.argsort(a["k"], kind="stable"), 0),
    ("gather", lambda t: t["x"][t["idx"]], lambda a: a["x"][a["idx"]], 0),
    ("transpose_copy", lambda t: t["x"].reshape(512, 512).T.contiguous(),
     lambda a: np.ascontiguousarray(a["x"].reshape(512, 512).T), 0),
    ("cat", lambda t: tl.cat([t["x"], t["y"]]), lambda a: np.concatenate([a["x"], a["y"]]), 0),
    ("cast", lambda t: t["x"].double(), lambda a: a["x"].astype(np.float64), 0),
    ("argmax", lambda t: t["x"].argmax(), lambda a: a["x"].argmax(), 0),
]


def test_ops_from_four_threads_match_numpy():
    arrays = [thread_inputs(i) for i in range(NTHREADS)]
    expected = [{name: np_fn(a) for name, _, np_fn, _ in OPS} for a in arrays]

    def work(i):
        t = {k: tl.from_numpy(v.copy()) for k, v in arrays[i].items()}
        for _ in range(3):
            for name, tl_fn, _, rtol in OPS:
                got = np.asarray(tl_fn(t).cpu().numpy())
                want = expected[i][name]
                assert got.dtype == want.dtype, name
                np.testing.assert_allclose(got, want, rtol=rtol, atol=0, err_msg=name)

    run_threads(work)


def grad_graph(x, w, a):
    """loss = sum(exp(x) * w) + sum(a @ x.reshape(n, n)); returns (loss, grad of x)."""
    n = a.shape[0]
    loss = (x.exp() * w).sum() + (a @ x.reshape(n, n)).sum()
    loss.backward()
    return loss.item(), x.grad.cpu().numpy().copy()


def test_autograd_from_four_threads_matches_one_thread_and_numpy():
    n = 256
    rngs = [np.random.default_rng(i) for i in range(NTHREADS)]
    data = [(r.standard_normal(n * n) * 0.1, r.standard_normal(n * n), r.standard_normal((n, n)))
            for r in rngs]

    def one(i):
        x0, w0, a0 = data[i]
        x = tl.tensor(x0, dtype=tl.float64, requires_grad=True)
        return grad_graph(x, tl.tensor(w0), tl.tensor(a0))

    alone = [one(i) for i in range(NTHREADS)]
    for (x0, w0, a0), (loss, grad) in zip(data, alone):
        # d/dx [exp(x) w] = exp(x) w; d/dX sum(A X) = A^T 1 broadcast over columns
        want = np.exp(x0) * w0 + np.repeat(a0.sum(0), n)
        np.testing.assert_allclose(grad, want, rtol=1e-12)
        np.testing.assert_allclose(loss, (np.exp(x0) * w0).sum() + (a0 @ x0.reshape(n, n)).sum(),
                                   rtol=1e-12)
    together = [None] * NTHREADS

    def work(i):
        for _ in range(3):
            together[i] = one(i)
            assert together[i][0] == alone[i][0]
            np.testing.assert_array_equal(together[i][1], alone[i][1])

    run_threads(work)


def test_backward_of_one_shared_graph_from_four_threads():
    """Each thread runs backward on its own head of a graph whose leaf they share."""
    x = tl.tensor(np.linspace(-1, 1, 1 << 16), requires_grad=True)
    grads = [None] * NTHREADS

    def work(i):
        y = (x * (i + 1)).sin().sum()
        (g,) = tl.autograd.grad(y, x)
        grads[i] = g.cpu().numpy()

    run_threads(work)
    xs = np.linspace(-1, 1, 1 << 16)
    for i in range(NTHREADS):
        np.testing.assert_allclose(grads[i], (i + 1) * np.cos((i + 1) * xs), rtol=1e-12)


def draws(g):
    return [tl.rand(70_000, generator=g).cpu().numpy(),
            tl.randn(50_001, dtype=tl.float64, generator=g).cpu().numpy(),
            tl.randint(0, 1 << 40, (40_000,), generator=g).cpu().numpy(),
            tl.randperm(1000, generator=g).cpu().numpy()]


def test_generators_with_seeds_give_their_own_streams_across_threads():
    seeds = [7, 8, 9, 7]  # two threads share a seed: they must get equal streams
    got = [None] * NTHREADS

    def work(i):
        g = tl.Generator().manual_seed(seeds[i])
        got[i] = [d for _ in range(5) for d in draws(g)]

    run_threads(work)
    for i in range(NTHREADS):
        ref_g = tl.Generator().manual_seed(seeds[i])
        ref = [d for _ in range(5) for d in draws(ref_g)]
        assert len(got[i]) == len(ref)
        for a, b in zip(got[i], ref):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got[0][0], got[3][0])
    assert not np.array_equal(got[0][0], got[1][0])


def test_shared_generator_hands_out_disjoint_draws():
    """Four threads on one generator get exactly the draws one thread would,
    in some order: each draw reserves its own counters."""
    per_thread, n = 20, 1 << 16
    g = tl.Generator().manual_seed(123)
    got = [[] for _ in range(NTHREADS)]

    def work(i):
        for _ in range(per_thread):
            got[i].append(tl.randn(n, generator=g).cpu().numpy())

    run_threads(work)
    ref_g = tl.Generator().manual_seed(123)
    ref = [tl.randn(n, generator=ref_g).cpu().numpy() for _ in range(NTHREADS * per_thread)]
    by_first = {r[0]: r for r in ref}
    assert len(by_first) == len(ref)
    seen = set()
    for rows in got:
        for r in rows:
            assert r[0] in by_first and r[0] not in seen
            seen.add(r[0])
            np.testing.assert_array_equal(r, by_first[r[0]])
    np.testing.assert_array_equal(g.get_state().cpu().numpy(), ref_g.get_state().cpu().numpy())


def test_manual_seed_while_other_threads_draw():
    """Reseeding races with draws; every draw is still one of the streams."""
    g = tl.Generator().manual_seed(1)
    stop = threading.Event()
    starts = {tl.rand(1, generator=tl.Generator().manual_seed(s)).item() for s in (1, 2)}

    def work(i):
        if i == 0:
            for k in range(200):
                g.manual_seed(1 + k % 2)
            stop.set()
            return
        while not stop.is_set():
            tl.rand(1 << 15, generator=g)

    run_threads(work)
    g.manual_seed(2)
    assert tl.rand(1, generator=g).item() in starts


def test_set_num_threads_while_kernels_run(pool_threads):
    a = thread_inputs(0)
    want = {name: np_fn(a) for name, _, np_fn, _ in OPS}
    stop = threading.Event()

    def work(i):
        if i == 0:
            try:
                for k in range(60):
                    tl.set_num_threads(1 + k % 4)
                    assert tl.get_num_threads() == 1 + k % 4
            finally:
                stop.set()
            return
        t = {k: tl.from_numpy(v.copy()) for k, v in a.items()}
        while not stop.is_set():
            for name, tl_fn, _, rtol in OPS:
                np.testing.assert_allclose(np.asarray(tl_fn(t).cpu().numpy()), want[name], rtol=rtol,
                                           atol=0, err_msg=name)

    run_threads(work)


def test_concurrent_in_place_writes_keep_versions_exact():
    n, steps = 1 << 16, 50
    own = [tl.zeros(n) for _ in range(NTHREADS)]
    base = tl.zeros(NTHREADS, n)  # one storage, a row per thread
    v0 = base._version

    def work(i):
        row = base[i]
        for _ in range(steps):
            own[i].add_(1)
            row.mul_(1).add_(1)

    run_threads(work)
    for t in own:
        assert t._version == steps
        np.testing.assert_array_equal(t.cpu().numpy(), np.full(n, steps, np.float32))
    # every write to a view bumps the one shared counter: 2 per step per thread
    assert base._version - v0 == 2 * steps * NTHREADS
    np.testing.assert_array_equal(base.cpu().numpy(), np.full((NTHREADS, n), steps, np.float32))


def long_calls():
    """One call per kernel family, each ~0.05 s or more on one thread, inputs made
    beforehand so that the call is the kernel alone."""
    x = tl.full((1 << 22,), 0.5, dtype=tl.float64)
    big = tl.rand(1 << 24, dtype=tl.float64)
    m = tl.ones(900, 900, dtype=tl.float64)
    e = tl.eye(600, dtype=tl.float64) * 2
    s = tl.arange(1 << 21, 0, -1)
    c = tl.ones(2048, 4096)
    g = tl.Generator().manual_seed(0)
    return {
        "elementwise": lambda: x.lgamma(),
        "reduction": lambda: big.var(),
        "vector_norm": lambda: tl.linalg.vector_norm(x, 3.5),
        "matmul": lambda: m @ m,
        "lapack": lambda: tl.linalg.inv(e),
        "sort": lambda: s.sort(),
        "random": lambda: tl.randn(1 << 22, dtype=tl.float64, generator=g),
        "copy": lambda: c.T.contiguous(),
    }


def spins_during(fn):
    """How often the calling thread runs a Python loop while fn runs on another.

    Each turn of the loop lets go of the GIL for a moment (sleep(0)): the
    worker, back from a kernel that released it, takes it there at once,
    where a bare loop would make it wait out the whole switch interval."""
    started, done = threading.Event(), threading.Event()

    def worker():
        started.set()
        fn()
        done.set()

    t = threading.Thread(target=worker)
    count = 0
    t.start()
    started.wait()
    while not done.is_set():
        count += 1
        time.sleep(0)
    t.join()
    return count


def test_kernels_let_other_threads_run(pool_threads):
    """While one long call runs, another thread runs Python code.

    With a long switch interval a thread keeps the GIL it holds: the spinner
    can count at all during the call only if the call let go of it.  The
    control, a builtin that keeps the GIL, lets it count nothing.  The
    interval is far longer than any of the calls, even on a loaded machine
    (at 0.2 s the control's sort outlasted it there and let the spinner in)."""
    tl.set_num_threads(1)
    calls = long_calls()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        assert spins_during(lambda: sorted(range(400_000, 0, -1))) == 0
        for name, call in calls.items():
            assert spins_during(call) > 0, name
    finally:
        sys.setswitchinterval(interval)
