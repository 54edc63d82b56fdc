"""grid_sample and affine_grid: the kernels of src/nn/grid.

Values against NumPy references (every mode and padding mode, 4-D and 5-D,
float32/float64, 0-size batches and grids, non-contiguous inputs), PyTorch's
recorded outputs and gradients (tests/golden/nn_grid, scripts/golden_grid.py),
gradients and second derivatives by finite differences, errors in PyTorch's
wording, and the kernels on the fake device."""
import itertools
import json
import math
import os

import numpy as np
import pytest

import torchlike as T
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from oracle import golden_eval
from nn_fake_device import run_on_fake_device

C = T._C

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"grid_sampler", "grid_sampler_backward", "affine_grid_generator",
               "affine_grid_generator_backward"}

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


# ---- NumPy references ---------------------------------------------------------------------

def np_reflect(c, low2, high2):
    if low2 == high2:
        return 0.0
    lo, span = low2 / 2, (high2 - low2) / 2
    d = abs(c - lo)
    extra = math.fmod(d, span)
    return extra + lo if int(math.floor(d / span)) % 2 == 0 else span - extra + lo


def np_pad(c, size, padding, align):
    if padding == "border":
        return min(max(c, 0.0), size - 1.0)
    if padding == "reflection":
        c = np_reflect(c, 0, 2 * (size - 1)) if align else np_reflect(c, -1, 2 * size - 1)
        return min(max(c, 0.0), size - 1.0)
    return c


def np_cubic(t, a=-0.75):
    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def np_grid_sample(x, grid, mode, padding, align):
    """A point at a time: x (N, C, *in), grid (N, *out, n)."""
    x, grid = np.asarray(x, np.float64), np.asarray(grid, np.float64)
    N, Cn = x.shape[:2]
    sizes = x.shape[2:][::-1]                    # along x, y(, z)
    n = len(sizes)
    out = np.zeros((N, Cn) + grid.shape[1:-1])
    for b in range(N):
        for o in itertools.product(*[range(s) for s in grid.shape[1:-1]]):
            coords = []
            for k, S in enumerate(sizes):
                g = grid[(b,) + o + (k,)]
                c = (g + 1) / 2 * (S - 1) if align else ((g + 1) * S - 1) / 2
                coords.append(c if mode == "bicubic" else np_pad(c, S, padding, align))

            def at(pos):
                if any(p < 0 or p > S - 1 for p, S in zip(pos, sizes)):
                    return np.zeros(Cn)
                return x[(b, slice(None)) + tuple(int(p) for p in pos[::-1])]
            if mode == "nearest":
                v = at([np.round(c) for c in coords])
            elif mode == "bilinear":
                v = 0
                for bits in itertools.product((0, 1), repeat=n):
                    w, pos = 1.0, []
                    for c, bit in zip(coords, bits):
                        f = math.floor(c)
                        pos.append(f + bit)
                        w *= (c - f) if bit else (f + 1 - c)
                    v = v + w * at(pos)
            else:
                fx, fy = math.floor(coords[0]), math.floor(coords[1])
                wx, wy = np_cubic(coords[0] - fx), np_cubic(coords[1] - fy)
                v = 0
                for j in range(4):
                    for i in range(4):
                        px = np_pad(fx - 1 + i, sizes[0], padding, align)
                        py = np_pad(fy - 1 + j, sizes[1], padding, align)
                        v = v + wx[i] * wy[j] * at([px, py])
            out[(b, slice(None)) + o] = v
    return out


def np_base(steps, align):
    if steps <= 1:
        return np.zeros(max(steps, 1))
    v = np.linspace(-1, 1, steps)
    return v if align else v * (steps - 1) / steps


def np_affine_grid(theta, size, align):
    sp = tuple(size[2:])
    mesh = list(np.meshgrid(*[np_base(s, align) for s in sp], indexing="ij"))[::-1]  # x, y(, z)
    base = np.stack(mesh + [np.ones(sp)], -1)                # (*sp, n + 1)
    return np.einsum("...k,njk->n...j", base, np.asarray(theta, np.float64))


rng = np.random.default_rng(11)


def grid_values(shape, spread=1.6):
    return rng.uniform(-spread, spread, shape)


# ---- values ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,padding,align", list(itertools.product(MODES, PADDINGS, (False, True))))
@pytest.mark.parametrize("dtype", [T.float64, T.float32])
def test_grid_sample_4d_matches_numpy(mode, padding, align, dtype):
    x, g = rng.standard_normal((2, 3, 5, 4)), grid_values((2, 3, 6, 2))
    y = F.grid_sample(T.tensor(x, dtype=dtype), T.tensor(g, dtype=dtype), mode=mode,
                      padding_mode=padding, align_corners=align)
    if dtype == T.float32:   # the coordinates of the float grid
        g = g.astype(np.float32)
    tol = 1e-12 if dtype == T.float64 else 2e-5
    np.testing.assert_allclose(y.double().cpu().numpy(), np_grid_sample(x, g, mode, padding, align),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("mode,padding,align",
                         list(itertools.product(("bilinear", "nearest"), PADDINGS, (False, True))))
def test_grid_sample_5d_matches_numpy(mode, padding, align):
    x, g = rng.standard_normal((2, 2, 3, 4, 5)), grid_values((2, 2, 3, 2, 3))
    y = F.grid_sample(T.tensor(x), T.tensor(g), mode=mode, padding_mode=padding,
                      align_corners=align)
    np.testing.assert_allclose(y.cpu().numpy(), np_grid_sample(x, g, mode, padding, align),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [T.float64, T.float32])
def test_grid_sample_many_points_across_kernel_blocks(mode, dtype):
    """More points than the kernel's block of 64 (and not a multiple of it),
    several samples (the threads' ranges cross samples): values and both
    gradients against the NumPy reference / finite differences."""
    for xs, gs in (((3, 4, 6, 5), (3, 7, 23, 2)), ((2, 3, 3, 4, 5), (2, 3, 5, 9, 3))):
        if mode == "bicubic" and len(xs) == 5:
            continue
        x, g = rng.standard_normal(xs), grid_values(gs, 1.2)
        y = F.grid_sample(T.tensor(x, dtype=dtype), T.tensor(g, dtype=dtype), mode=mode,
                          padding_mode="zeros", align_corners=False)
        gw = g.astype(np.float32) if dtype == T.float32 else g
        want = np_grid_sample(x.astype(np.float32) if dtype == T.float32 else x, gw, mode,
                              "zeros", False)
        tol = 1e-12 if dtype == T.float64 else 2e-5
        np.testing.assert_allclose(y.cpu().numpy(), want, rtol=tol, atol=tol)
    if dtype == T.float64 and mode != "nearest":
        xt = T.tensor(rng.standard_normal((2, 2, 5, 4)), requires_grad=True)
        gt = T.tensor(grid_values((2, 5, 17, 2), 1.2), requires_grad=True)
        assert gradcheck(lambda a, b: F.grid_sample(a, b, mode=mode, align_corners=True), (xt, gt))


def np_bilinear_grads(x, grid, go):
    """dx and dgrid of sum(go * grid_sample(x, grid)) for bilinear 2-D, zeros
    padding, align_corners=False (float64)."""
    N, Cn, H, W = x.shape
    cx, cy = ((grid[..., 0] + 1) * W - 1) / 2, ((grid[..., 1] + 1) * H - 1) / 2
    x0, y0 = np.floor(cx).astype(int), np.floor(cy).astype(int)
    wx, wy = [x0 + 1 - cx, cx - x0], [y0 + 1 - cy, cy - y0]
    dx, dgrid = np.zeros_like(x), np.zeros(grid.shape)
    n = np.arange(N)[:, None, None]
    for by, bx in itertools.product((0, 1), (0, 1)):
        iy, ix = y0 + by, x0 + bx
        inside = (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)
        iyc, ixc = np.where(inside, iy, 0), np.where(inside, ix, 0)
        for c in range(Cn):
            gv = np.where(inside, go[:, c], 0)
            np.add.at(dx[:, c], (np.broadcast_to(n, iy.shape), iyc, ixc), gv * wx[bx] * wy[by])
            v = gv * x[n, c, iyc, ixc]
            dgrid[..., 0] += v * (1 if bx else -1) * wy[by] * W / 2
            dgrid[..., 1] += v * (1 if by else -1) * wx[bx] * H / 2
    return dx, dgrid


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("N", [1, 3])
def test_grid_sample_bilinear_beyond_the_2048_point_block(threads, N):
    """Bilinear 2-D runs blocks of up to 2048 points: a grid of 2250 points per
    sample (two blocks, the second partial), one sample (the backward's
    channel blocks with partial dgrid sums) or three, split across threads:
    values and both gradients against NumPy, float64 and float32."""
    x, g = rng.standard_normal((N, 8, 9, 11)), grid_values((N, 45, 50, 2), 1.15)
    go = rng.standard_normal((N, 8, 45, 50))
    want = np_grid_sample(x, g, "bilinear", "zeros", False)
    want_dx, want_dg = np_bilinear_grads(x, g, go)
    old = T.get_num_threads()
    T.set_num_threads(threads)
    try:
        for dtype, tol in ((T.float64, 1e-12), (T.float32, 2e-4)):
            xt = T.tensor(x, dtype=dtype, requires_grad=True)
            gt = T.tensor(g, dtype=dtype, requires_grad=True)
            y = F.grid_sample(xt, gt, align_corners=False)
            y.backward(T.tensor(go, dtype=dtype))
            np.testing.assert_allclose(y.detach().cpu().numpy(), want, rtol=tol, atol=tol)
            np.testing.assert_allclose(xt.grad.cpu().numpy(), want_dx, rtol=tol, atol=tol)
            np.testing.assert_allclose(gt.grad.cpu().numpy(), want_dg, rtol=tol, atol=tol * 10)
    finally:
        T.set_num_threads(old)


def test_grid_sample_skipped_taps_do_not_read_inf():
    """Taps outside the image are skipped, never multiplied by 0: an inf in a
    pixel no point reads stays out of the values and the gradients."""
    x = rng.standard_normal((1, 2, 4, 5))
    x[:, :, 0, 0] = np.inf
    # x in (4, 4.5) pixels (the right neighbour outside), y in [1.5, 2.5]
    g = np.stack([rng.uniform(0.61, 0.79, (1, 9, 10)), rng.uniform(-0.25, 0.25, (1, 9, 10))], -1)
    xt, gt = T.tensor(x, requires_grad=True), T.tensor(g, requires_grad=True)
    y = F.grid_sample(xt, gt, align_corners=False)
    np.testing.assert_allclose(y.detach().cpu().numpy(), np_grid_sample(x, g, "bilinear", "zeros", False),
                               rtol=1e-12, atol=1e-12)
    y.sum().backward()
    assert np.isfinite(gt.grad.cpu().numpy()).all() and np.isfinite(xt.grad.cpu().numpy()).all()
    assert xt.grad.cpu().numpy()[:, :, 0, 0].sum() == 0


@pytest.mark.parametrize("dtype", [T.float64, T.float32])
def test_grid_sample_bilinear_channels_four_at_a_time_and_the_rest(dtype):
    """The bilinear 2-D forward samples four channels per pass over a block's
    taps, then the rest one at a time: 7 channels (a group and three), taps
    outside the image on every side, and an inf in channel 1's and channel
    5's corner pixel, which no point reads (a skipped tap reads a zero, so
    the inf stays out of every channel's values)."""
    x = rng.standard_normal((2, 7, 6, 5))
    x[:, [1, 5], 0, 0] = np.inf
    g = grid_values((2, 8, 9, 2), 1.3)
    # keep every point's taps off pixel (0, 0): x > 0.5 or y > 0.5 in pixel units
    near = ((g[..., 0] + 1) * 5 - 1) / 2 < 1.0
    near &= ((g[..., 1] + 1) * 6 - 1) / 2 < 1.0
    g[near] = 1.25
    y = F.grid_sample(T.tensor(x, dtype=dtype), T.tensor(g, dtype=dtype), align_corners=False)
    gw = g.astype(np.float32) if dtype == T.float32 else g
    want = np_grid_sample(x.astype(np.float32) if dtype == T.float32 else x, gw, "bilinear",
                          "zeros", False)
    tol = 1e-12 if dtype == T.float64 else 2e-5
    assert np.isfinite(y.cpu().numpy()).all()
    np.testing.assert_allclose(y.cpu().numpy(), want, rtol=tol, atol=tol)


def test_grid_sample_non_contiguous_inputs():
    x, g = rng.standard_normal((2, 5, 4, 3)), grid_values((3, 2, 4, 2))
    xt = T.tensor(x).permute(0, 3, 2, 1)                 # (2, 3, 4, 5) strided
    gt = T.tensor(g).transpose(0, 1)[:2]                 # (2, 3, 4, 2) strided
    want = np_grid_sample(x.transpose(0, 3, 2, 1), g.transpose(1, 0, 2, 3)[:2], "bilinear",
                          "reflection", False)
    y = F.grid_sample(xt, gt, padding_mode="reflection", align_corners=False)
    np.testing.assert_allclose(y.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_grid_sample_empty_batch_channels_and_grid():
    for xs, gs in (((0, 2, 3, 3), (0, 2, 2, 2)), ((2, 0, 3, 3), (2, 2, 2, 2)),
                   ((2, 3, 3, 3), (2, 0, 4, 2)), ((1, 2, 2, 3, 3), (1, 2, 0, 1, 3))):
        x = T.zeros(xs, requires_grad=True)
        g = T.zeros(gs, requires_grad=True)
        y = F.grid_sample(x, g, align_corners=True)
        assert y.shape == xs[:2] + gs[1:-1]
        y.sum().backward()
        assert x.grad.shape == xs and g.grad.shape == gs
        assert not x.grad.cpu().numpy().any() and not g.grad.cpu().numpy().any()


def test_grid_sample_far_and_nan_coordinates_read_zeros():
    x = T.ones(1, 1, 3, 3)
    g = T.tensor([[[[1e30, 0.0], [float("nan"), 0.0], [-7.0, 0.5]]]])
    for mode in MODES:
        y = F.grid_sample(x, g, mode=mode, align_corners=False)
        assert y.shape == (1, 1, 1, 3) and not y.cpu().numpy().any(), mode
    y = F.grid_sample(x, g[..., 2:, :], mode="bicubic", padding_mode="border", align_corners=False)
    np.testing.assert_allclose(y.cpu().numpy(), 1.0, rtol=1e-6)   # the border pixel, weights summing to 1


@pytest.mark.parametrize("padding", ["border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_point_on_the_border_has_no_gradient_across_it(padding, align):
    """PyTorch's kernels count a point exactly on the clipping border as
    clipped: the derivative by that coordinate is 0 (a spatial transformer
    whose grid reaches the edge gets its theta gradient from the rest).
    Along the other coordinate, inside, the gradient is zeros padding's."""
    x = T.tensor(rng.standard_normal((1, 2, 3, 4)))
    # the last column (x = W - 1) and the first (x = 0), y inside
    edge, first = (1.0, -1.0) if align else (0.75, -0.75)
    g = T.tensor([[[[edge, 0.3], [first, -0.2], [0.1, 0.4]]]], dtype=T.float64,
                 requires_grad=True)
    w = T.tensor([[[[1.0, -2.0, 0.5]], [[0.3, 1.5, -1.0]]]], dtype=T.float64)
    (F.grid_sample(x, g, padding_mode=padding, align_corners=align) * w).sum().backward()
    g0 = g.detach().clone().requires_grad_()
    (F.grid_sample(x, g0, padding_mode="zeros", align_corners=align) * w).sum().backward()
    got, inside = g.grad[0, 0].cpu().numpy(), g0.grad[0, 0].cpu().numpy()
    np.testing.assert_array_equal(got[:2, 0], [0.0, 0.0])
    np.testing.assert_allclose(got[:2, 1], inside[:2, 1], rtol=1e-12)
    np.testing.assert_allclose(got[2], inside[2], rtol=1e-12)   # strictly inside: as zeros


@pytest.mark.parametrize("n,align", list(itertools.product((2, 3), (False, True))))
@pytest.mark.parametrize("dtype", [T.float64, T.float32])
def test_affine_grid_matches_numpy(n, align, dtype):
    size = (3, 2, 4, 5) if n == 2 else (2, 1, 3, 4, 2)
    theta = rng.standard_normal((size[0], n, n + 1))
    grid = F.affine_grid(T.tensor(theta, dtype=dtype), size, align_corners=align)
    assert grid.shape == (size[0],) + size[2:] + (n,) and grid.dtype == dtype
    tol = 1e-12 if dtype == T.float64 else 1e-5
    np.testing.assert_allclose(grid.double().cpu().numpy(), np_affine_grid(theta, size, align),
                               rtol=tol, atol=tol)


def test_affine_grid_then_grid_sample_identity_keeps_the_image():
    x = T.tensor(rng.standard_normal((2, 3, 4, 5)))
    theta = T.tensor([[1.0, 0, 0], [0, 1.0, 0]]).double().expand(2, 2, 3)
    for align in (False, True):
        y = F.grid_sample(x, F.affine_grid(theta, x.shape, align_corners=align), align_corners=align)
        np.testing.assert_allclose(y.cpu().numpy(), x.cpu().numpy(), rtol=1e-12, atol=1e-12)


# ---- PyTorch's recorded values ------------------------------------------------------------

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "nn_grid")


def load_cases(folder):
    with open(os.path.join(folder, "cases.json")) as f:
        return json.load(f)


def run_golden(folder, case):
    """Evaluate PyTorch's expression with torchlike; compare the output and
    the gradients of sum(out * w) with what PyTorch recorded."""
    data = np.load(os.path.join(folder, "data.npz"))
    name = case["name"]
    env = {"F": F, "torch": T}
    for k in case["inputs"]:
        env[k] = T.from_numpy(np.ascontiguousarray(data[f"{name}/in/{k}"]))
        env[k].requires_grad_(k in case["grads"])
    out = golden_eval(case["expr"], env)
    exp = data[f"{name}/out"]
    tol = 2e-5 if exp.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(out.detach().cpu().numpy(), exp, rtol=tol, atol=tol, err_msg=name)
    grads = T.autograd.grad((out * T.from_numpy(data[f"{name}/w"])).sum(),
                            [env[k] for k in case["grads"]])
    for k, g in zip(case["grads"], grads):
        np.testing.assert_allclose(g.cpu().numpy(), data[f"{name}/grad/{k}"], rtol=tol * 10,
                                   atol=tol * 10, err_msg=f"{name} grad {k}")


@pytest.mark.parametrize("case", load_cases(GOLDEN), ids=lambda c: c["name"])
def test_matches_pytorchs_recorded_values(case):
    run_golden(GOLDEN, case)


def test_golden_covers_every_mode_padding_and_alignment():
    names = {c["name"] for c in load_cases(GOLDEN)}
    for nd, mode, pad, ac in itertools.product((2, 3), MODES, PADDINGS, ("ac", "noac")):
        if not (nd == 3 and mode == "bicubic"):
            assert f"grid{nd}d_{mode}_{pad}_{ac}" in names


# ---- derivatives ----------------------------------------------------------------------------

@pytest.mark.parametrize("nd,mode,padding", [(nd, m, p) for nd in (2, 3) for m in MODES
                                             for p in PADDINGS if not (nd == 3 and m == "bicubic")])
def test_gradients_and_second_derivatives(nd, mode, padding):
    xs = (2, 2, 3, 4) if nd == 2 else (1, 2, 2, 3, 3)
    gs = (2, 2, 3, 2) if nd == 2 else (1, 2, 2, 2, 3)
    x = T.tensor(rng.standard_normal(xs), requires_grad=True)
    # away from pixel borders, where the taps (and so the derivative) jump
    g = T.tensor(grid_values(gs, 1.4), requires_grad=True)
    for align in (False, True):
        def fn(a, b):
            return F.grid_sample(a, b, mode=mode, padding_mode=padding, align_corners=align)
        assert gradcheck(fn, (x, g))
        assert gradgradcheck(fn, (x, g))


def test_backward_op_on_its_own():
    x = T.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    g = T.tensor(grid_values((1, 2, 2, 2), 1.2), requires_grad=True)
    go = T.tensor(rng.standard_normal((1, 2, 2, 2)), requires_grad=True)
    assert gradcheck(lambda a, b, c: C.grid_sampler_backward(a, b, c, 2, 1, False), (go, x, g))


@pytest.mark.parametrize("n", [2, 3])
def test_affine_grid_gradients(n):
    size = (2, 1, 3, 4) if n == 2 else (2, 1, 2, 3, 2)
    theta = T.tensor(rng.standard_normal((2, n, n + 1)), requires_grad=True)
    for align in (False, True):
        assert gradcheck(lambda t: F.affine_grid(t, size, align_corners=align), (theta,))
        assert gradgradcheck(lambda t: F.affine_grid(t, size, align_corners=align), (theta,))
    gr = T.tensor(rng.standard_normal((2,) + size[2:] + (n,)), requires_grad=True)
    assert gradcheck(lambda a: C.affine_grid_generator_backward(a, list(size), False), (gr,))
    assert gradgradcheck(lambda a: C.affine_grid_generator_backward(a, list(size), False), (gr,))


# ---- errors ---------------------------------------------------------------------------------

def test_errors_name_the_problem():
    x, g = T.zeros(2, 3, 4, 5), T.zeros(2, 3, 3, 2)
    with pytest.raises(RuntimeError, match=r"same batch size, but got input with sizes "
                                           r"\[2, 3, 4, 5\] and grid with sizes \[3, 3, 3, 2\]"):
        F.grid_sample(x, T.zeros(3, 3, 3, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid to have size 2 in last dimension"):
        F.grid_sample(x, T.zeros(2, 3, 3, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="with dimension 2 being empty"):
        F.grid_sample(T.zeros(2, 3, 0, 5), g, align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(T.zeros(1, 1, 2, 2, 2), T.zeros(1, 1, 1, 1, 3), mode="bicubic",
                      align_corners=False)
    with pytest.raises(RuntimeError, match="expected 4D or 5D input"):
        F.grid_sample(T.zeros(2, 3, 4), T.zeros(2, 3, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.grid_sample(x, g.double(), align_corners=False)
    with pytest.raises(RuntimeError, match="not implemented for 'int64'"):
        F.grid_sample(x.long(), g.long(), align_corners=False)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(x, g, mode="foo")
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or"):
        F.grid_sample(x, g, padding_mode="foo")
    with pytest.raises(ValueError, match="interpolation_mode must be"):
        C.grid_sampler(x, g, 5, 0, False)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, g)
    with pytest.raises(ValueError, match="floating point type"):
        F.affine_grid(T.zeros(2, 2, 3, dtype=T.int64), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(ValueError, match=r"shape Nx2x3 for size \(2, 3, 4, 5\)"):
        F.affine_grid(T.zeros(2, 3, 3), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(ValueError, match="shape Nx3x4"):
        F.affine_grid(T.zeros(2, 3, 3), (2, 3, 4, 5, 6), align_corners=False)
    with pytest.raises(NotImplementedError, match="only supports 4D and 5D sizes"):
        F.affine_grid(T.zeros(2, 2, 3), (2, 3, 4), align_corners=False)
    with pytest.raises(ValueError, match="non-zero, positive output size"):
        F.affine_grid(T.zeros(2, 2, 3), (2, 3, 0, 4), align_corners=False)
    with pytest.raises(ValueError, match="for size"):
        C.affine_grid_generator(T.zeros(2, 2, 3), [3, 3, 4, 5], False)
    with pytest.raises(RuntimeError, match="expected grad_output of shape"):
        C.grid_sampler_backward(T.zeros(2, 3, 3, 4), x, g, 0, 0, False)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        x = T.ones(1, 2, 3, 3).to("fake")
        g = T.zeros(1, 2, 2, 2).to("fake")
        expect_no_kernel(lambda: C.grid_sampler(x, g, 0, 0, False), "grid_sampler")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(1, 2, 3, 3).to("fake").requires_grad_()
        g = (T.rand(1, 2, 2, 2) * 2 - 1).to("fake").requires_grad_()
        y = F.grid_sample(x, g, mode="bicubic", align_corners=True)
        assert str(y.device) == "fake:0"
        want = F.grid_sample(x.detach().cpu(), g.detach().cpu(), mode="bicubic", align_corners=True)
        np.testing.assert_allclose(y.detach().cpu().numpy(), want.cpu().numpy(), rtol=1e-6)
        y.sum().backward()
        assert str(x.grad.device) == "fake:0" and str(g.grad.device) == "fake:0"
        theta = T.randn(2, 2, 3).to("fake")
        grid = F.affine_grid(theta, (2, 1, 3, 4), align_corners=False)
        assert str(grid.device) == "fake:0"
        print("ok")
    """)
