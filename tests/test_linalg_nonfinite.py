"""LAPACK entry points on NaN and inf input.

LAPACK's drivers scale by the matrix norm first; a NaN or inf norm made them
print "** On entry to SGEEV parameter number 4 had an illegal value" on stdout,
leave their outputs unwritten (garbage returned to the user) or loop forever
(gesdd on a matrix holding -inf).  What each function does instead:

- torchlike.linalg follows PyTorch (recorded in tests/golden/linalg_nonfinite.json
  by scripts/golden_linalg_nonfinite.py), except where PyTorch itself crashes or
  answers garbage (DELIBERATE below);
- torchlike.numpy.linalg follows NumPy (checked against NumPy here);
- nothing ever reaches stdout.
"""
import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = json.loads((ROOT / "tests/golden/linalg_nonfinite.json").read_text())


def _recorded_cases():
    """The expressions the golden file was recorded with (one table, two users)."""
    spec = importlib.util.spec_from_file_location("golden_linalg_nonfinite",
                                                  ROOT / "scripts/golden_linalg_nonfinite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _recorded_cases()

# Where torchlike.linalg deliberately differs from the recorded PyTorch answer.
DELIBERATE = {
    # PyTorch's eigvals answers garbage (here 4, 3, 2) or segfaults inside MKL on
    # NaN input; ours answers NaN, as PyTorch's own eigvals does for inf.
    "eigvals/nan": {"raises": False, "value": ["nan"] * 6},
    # PyTorch's zeros come from U and V that LAPACK never finished: all NaN here.
    "pinv/inf": {"raises": False, "value": ["nan"] * 9},
    "pinv/-inf": {"raises": False, "value": ["nan"] * 9},
    # Every lstsq driver scales A first; an inf in A raises (as NumPy's lstsq and
    # PyTorch's gelsd driver do) instead of PyTorch's gelsy half-NaN solution.
    "lstsq/inf": {"raises": True},
    "lstsq/-inf": {"raises": True},
}


def _matrices(bad):
    A = tl.tensor([[4., 1., 0.5], [1., 3., 0.25], [0.5, 0.25, 2.]], dtype=tl.float64)
    A[2, 1] = bad
    B = tl.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=tl.float64)
    return A, B


def _flat_values(r):
    a = np.asarray(tl.as_tensor(r).cpu().numpy())
    if np.iscomplexobj(a):
        a = np.stack([a.real, a.imag], axis=-1)
    return a.astype(np.float64).reshape(-1)


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_torchlike_linalg_follows_pytorch_on_nonfinite_input(key, capfd):
    name, bad = key.split("/")
    want = DELIBERATE.get(key, GOLDEN[key])
    assert not want.get("crash")
    A, B = _matrices(float(bad))
    ok = False  # noqa: F841  (read by the recorded expressions)
    if want["raises"]:
        with pytest.raises(tl.linalg.LinAlgError):
            eval(CASES[name], {"torch": tl, "A": A, "B": B, "ok": False})
    else:
        got = _flat_values(eval(CASES[name], {"torch": tl, "A": A, "B": B, "ok": False}))
        expected = np.array([float(v) for v in want["value"]])
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, equal_nan=True)
    assert capfd.readouterr().out == ""


def _lapack_calls(a, b):
    """Every LAPACK-backed entry point, for a (m x n, maybe batched) and b (m x 2)."""
    L = tl.linalg
    square = a.shape[-1] == a.shape[-2]
    calls = {
        "qr": lambda: L.qr(a), "qr_complete": lambda: L.qr(a, mode="complete"),
        "svd": lambda: L.svd(a), "svd_reduced": lambda: L.svd(a, full_matrices=False),
        "svdvals": lambda: L.svdvals(a), "pinv": lambda: L.pinv(a),
        "matrix_rank": lambda: L.matrix_rank(a), "cond": lambda: L.cond(a),
        "np.svd": lambda: tnp.linalg.svd(a), "np.pinv": lambda: tnp.linalg.pinv(a),
        "np.lstsq": lambda: tnp.linalg.lstsq(a, b), "np.cond": lambda: tnp.linalg.cond(a),
        "np.matrix_rank": lambda: tnp.linalg.matrix_rank(a),
    }
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        calls["lstsq_" + driver] = lambda driver=driver: L.lstsq(a, b, driver=driver)
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        calls[f"matrix_norm_{ord}"] = lambda ord=ord: L.matrix_norm(a, ord)
    if square:
        calls.update({
            "det": lambda: L.det(a), "slogdet": lambda: L.slogdet(a), "inv": lambda: L.inv(a),
            "inv_ex": lambda: L.inv_ex(a), "solve": lambda: L.solve(a, b),
            "cholesky": lambda: L.cholesky(a), "cholesky_ex": lambda: L.cholesky_ex(a),
            "lu": lambda: L.lu(a), "lu_solve": lambda: L.lu_solve(*L.lu_factor(a), b),
            "eig": lambda: L.eig(a), "eigvals": lambda: L.eigvals(a),
            "eigh": lambda: L.eigh(a), "eigh_upper": lambda: L.eigh(a, UPLO="U"),
            "eigvalsh": lambda: L.eigvalsh(a), "pinv_hermitian": lambda: L.pinv(a, hermitian=True),
            "matrix_power": lambda: L.matrix_power(a, -2), "cond_fro": lambda: L.cond(a, "fro"),
            "np.eig": lambda: tnp.linalg.eig(a), "np.eigvals": lambda: tnp.linalg.eigvals(a),
            "np.slogdet": lambda: tnp.linalg.slogdet(a),
        })
    return calls


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.complex64, tl.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (5, 3), (3, 5)])
def test_no_lapack_text_and_no_garbage(dtype, shape, capfd):
    rng = np.random.default_rng(sum(shape))
    for trial, bad in enumerate([np.nan, np.inf, -np.inf]):
        a = tl.randn(*shape, dtype=dtype)
        for _ in range(1 + trial):
            a[tuple(int(rng.integers(s)) for s in shape)] = bad
        b = tl.randn(*shape[:-1], 2, dtype=dtype)
        for name, call in _lapack_calls(a, b).items():
            try:
                result = call()
            except (RuntimeError, ValueError, np.linalg.LinAlgError):
                continue
            # A result holds NaN/inf or finite numbers, never uninitialised memory:
            # a second call gives the very same bits.
            again = call()
            for x, y in zip(_leaves(result), _leaves(again)):
                assert np.array_equal(x, y, equal_nan=True), name
        assert capfd.readouterr().out == "", (dtype, shape, bad)


def _leaves(r):
    if isinstance(r, tl.Tensor):
        return [r.cpu().numpy()]
    if isinstance(r, (tuple, list)):
        return [x for item in r for x in _leaves(item)]
    return [np.asarray(r)]


def test_svd_of_a_matrix_with_minus_inf_ends():
    # gesdd looped forever on this one (float32, U and V asked for)
    program = ("import torchlike as tl\n"
               "a = tl.ones(3, 3); a[0, 0] = float('-inf')\n"
               "u, s, vh = tl.linalg.svd(a)\n"
               "assert s.isnan().all() and u.isnan().all() and vh.isnan().all()\n")
    subprocess.run([sys.executable, "-c", program], check=True, timeout=120, cwd=ROOT)


NUMPY_CALLS = {
    "svd": lambda la, x: la.svd(x), "svdvals": lambda la, x: la.svdvals(x),
    "pinv": lambda la, x: la.pinv(x), "matrix_rank": lambda la, x: la.matrix_rank(x),
    "lstsq": lambda la, x: la.lstsq(x, x[:, :1] * 0 + 1), "norm": lambda la, x: la.norm(x, 2),
    "cond": lambda la, x: la.cond(x),
}


@pytest.mark.parametrize("fn", sorted(NUMPY_CALLS))
def test_numpy_namespace_raises_numpys_linalg_error_on_nan(fn):
    """As the installed NumPy: LinAlgError where it raises, its values where
    it returns (NumPy 2.5's cond gives NaN for a matrix holding a NaN)."""
    a = np.eye(3)
    a[1, 2] = np.nan
    call = NUMPY_CALLS[fn]
    want = None
    if fn != "lstsq":  # NumPy's own gelsd never returns on this one
        try:
            want = call(np.linalg, a)  # the oracle
        except np.linalg.LinAlgError:
            pass
    for namespace in (np.linalg, tnp.linalg):  # np.linalg on a tensor: torchlike's function
        if want is None:
            with pytest.raises(np.linalg.LinAlgError):
                call(namespace, tl.tensor(a))
        else:
            np.testing.assert_array_equal(call(namespace, tl.tensor(a)).cpu().numpy(), want)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_numpy_eig_refuses_nonfinite_input_torchlike_eigvals_answers_nan(bad):
    a = np.eye(3)
    a[0, 1] = bad
    for fn in (np.linalg.eig, np.linalg.eigvals):
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            fn(a)
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            fn(tl.tensor(a))
    with pytest.raises(tl.linalg.LinAlgError, match="linalg.eig: input tensor should not"):
        tl.linalg.eig(tl.tensor(a))
    w = tl.linalg.eigvals(tl.tensor(a)).cpu().numpy()
    assert w.dtype == np.complex128 and np.isnan(w.real).all() and np.isnan(w.imag).all()


def test_batch_element_named_and_other_matrices_kept():
    a = tl.eye(3, dtype=tl.float64).repeat(3, 1, 1)
    a[1, 0, 2] = float("nan")
    with pytest.raises(tl.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        tl.linalg.svdvals(a)
    a[1, 0, 2] = float("inf")
    s = tl.linalg.svdvals(a).cpu().numpy()
    np.testing.assert_array_equal(s[[0, 2]], np.ones((2, 3)))
    assert np.isnan(s[1]).all()


def test_cholesky_nan_pivot_is_not_positive_definite():
    a = tl.eye(3, dtype=tl.float64)
    a[2, 1] = float("nan")  # the lower triangle, the one cholesky reads
    with pytest.raises(tl.linalg.LinAlgError, match="order 3 is not positive-definite"):
        tl.linalg.cholesky(a)
    assert tl.linalg.cholesky_ex(a).info.item() == 3


def test_linalg_error_is_both_runtime_error_and_numpys():
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    assert issubclass(tl.linalg.LinAlgError, np.linalg.LinAlgError)


# ---- cond --------------------------------------------------------------------------------

COND_ORDERS = [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]


@pytest.mark.parametrize("p", COND_ORDERS, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_cond_matches_numpy(p, dtype):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 4, 4)) + (1j * rng.standard_normal((2, 4, 4))
                                           if np.dtype(dtype).kind == "c" else 0)
    a = a.astype(dtype)
    expected = np.linalg.cond(a, p)
    for got in (tl.linalg.cond(tl.tensor(a), p), tnp.linalg.cond(tl.tensor(a), p)):
        got = got.cpu().numpy()
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4 if dtype in (np.float32, np.complex64)
                                   else 1e-10)


def test_cond_non_square_uses_singular_values():
    a = np.random.default_rng(3).standard_normal((3, 5))
    np.testing.assert_allclose(tl.linalg.cond(tl.tensor(a)).cpu().numpy(), np.linalg.cond(a))
    with pytest.raises(RuntimeError, match="square"):
        tl.linalg.cond(tl.tensor(a), "fro")


@pytest.mark.parametrize("p", ["fro", 1, -1, np.inf, -np.inf, "nuc"], ids=str)
def test_cond_of_singular_matrix_is_inf(p):
    a = tl.tensor([[1., 2.], [2., 4.]], dtype=tl.float64)
    assert tl.linalg.cond(a, p).item() == np.inf
    assert tnp.linalg.cond(a, p).item() == np.inf


def test_cond_empty_and_errors():
    assert tl.linalg.cond(tl.ones(2, 0, 0)).shape == (2,)
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        tnp.linalg.cond(tl.ones(0, 0))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tl.linalg.cond(tl.ones(3))
    with pytest.raises(TypeError, match="argument 'A' must be Tensor, not list"):
        tl.linalg.cond([[1.0]])


def test_cond_gradient():
    from torchlike.autograd import gradcheck
    a = tl.tensor(np.random.default_rng(5).standard_normal((3, 3)) + 3 * np.eye(3),
                  requires_grad=True)
    assert gradcheck(lambda x: tl.linalg.cond(x), (a,))
    assert gradcheck(lambda x: tl.linalg.cond(x, "fro"), (a,))
    assert gradcheck(lambda x: np.linalg.cond(x), (a,))  # NumPy's spelling is recorded too
