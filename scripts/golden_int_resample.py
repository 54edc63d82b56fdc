"""Record PyTorch's answers to average pooling and interpolation of integer
inputs, for tests/test_nn_pool.py: int64 average pooling (sums divided,
truncating toward zero, wrapping as int64 does), uint8 interpolation (nearest
modes copied; bilinear and bicubic in PyTorch's fixed point, each pass
rounded to uint8), and the message of each refusal.

Run with an interpreter that has PyTorch:
    python scripts/golden_int_resample.py
writes tests/golden/int_resample.json: [call, outcome] pairs over T (the
library), F (its nn.functional) and the inputs that inputs() makes."""
import numpy as np

from golden_calls import record
from golden_pool_int import DTYPES, describe  # noqa: F401 - describe is the tests' too
from golden_pool_int import inputs as int_inputs


def inputs(T):
    """golden_pool_int's inputs (ties and the dtype's extremes: int64 sums
    that wrap), plus spread values: L<n> int64 of both signs, U<c> uint8
    images of c channels."""
    env = int_inputs(T)
    rng = np.random.default_rng(7)
    for n, shape in {1: (2, 3, 11), 2: (2, 3, 7, 8), 3: (1, 2, 5, 6, 7)}.items():
        env[f"L{n}"] = T.from_numpy(rng.integers(-1000, 1000, shape))
    for c in (1, 3, 5):
        env[f"U{c}"] = T.from_numpy(rng.integers(0, 256, (1, c, 9, 11)).astype(np.uint8))
    env["U1d"] = T.from_numpy(rng.integers(0, 256, (2, 3, 10)).astype(np.uint8))
    env["U3d"] = T.from_numpy(rng.integers(0, 256, (1, 2, 4, 5, 6)).astype(np.uint8))
    return env


CALLS = []
for x in [f"X{{n}}_{dt}" for dt in DTYPES] + ["L{n}"]:
    x1, x2, x3 = (x.format(n=n) for n in (1, 2, 3))
    CALLS += [
        f"F.avg_pool1d({x1}, 3, 2, 1)",
        f"F.avg_pool1d({x1}, 4, 3, 2, ceil_mode=True, count_include_pad=False)",
        f"F.avg_pool2d({x2}, 3, 2, 1)",
        f"F.avg_pool2d({x2}, (2, 3), (1, 2), (1, 0), ceil_mode=True, count_include_pad=False)",
        f"F.avg_pool2d({x2}, 2, divisor_override=3)",
        f"F.avg_pool2d({x2}.transpose(2, 3)[:, 1:], 3, 1, 1)",
        f"F.avg_pool3d({x3}, 2, 1, 1, count_include_pad=False)",
        f"F.avg_pool3d({x3}, (3, 2, 2), 2, divisor_override=7)",
        f"F.adaptive_avg_pool2d({x2}, 3)",
    ]
    if "int64" not in x and x != "L{n}":  # refusals only: PyTorch's float32 roots of sums
        # are not always correctly rounded, and NaNs (roots of wrapped sums) are never equal
        CALLS.append(f"F.lp_pool2d({x2}, 2, 2)")
CALLS += ["T.nn.AvgPool2d(2)(L2)", "F.avg_pool2d(L2[:0], 2)",
          "F.avg_pool2d(L2[0], 3, 1, 1, count_include_pad=False)"]

RESIZE = [
    "scale_factor=1.5", "scale_factor=0.6", "size=(4, 17)", "size=(9, 5)", "size=(9, 11)",
    "scale_factor=1.1", "scale_factor=(1.7, 0.45)", "size=(1, 2)",
]
for c in (1, 3, 5):
    for mode in ("bilinear", "bicubic"):
        for size in RESIZE:
            CALLS.append(f"F.interpolate(U{c}, {size}, mode='{mode}')")
        CALLS += [
            f"F.interpolate(U{c}, scale_factor=1.7, mode='{mode}', align_corners=True)",
            f"F.interpolate(U{c}, size=(3, 4), mode='{mode}', align_corners=True)",
            f"F.interpolate(U{c}, scale_factor=0.5, mode='{mode}', antialias=True)",
            f"F.interpolate(U{c}, size=(4, 3), mode='{mode}', antialias=True)",
            f"F.interpolate(U{c}, scale_factor=(2, 0.3), mode='{mode}', antialias=True)",
            f"F.interpolate(U{c}, scale_factor=0.4, mode='{mode}', antialias=True, "
            "align_corners=True)",
            f"F.interpolate(U{c}.transpose(2, 3), scale_factor=1.5, mode='{mode}')",
            f"F.interpolate(U{c}, scale_factor=1.5, mode='{mode}', recompute_scale_factor=True)",
        ]
for mode in ("nearest", "nearest-exact"):
    CALLS += [f"F.interpolate(U3, scale_factor=1.6, mode='{mode}')",
              f"F.interpolate(U5, size=(4, 7), mode='{mode}')",
              f"F.interpolate(U1d, scale_factor=2.5, mode='{mode}')",
              f"F.interpolate(U3d, size=(3, 7, 2), mode='{mode}')"]
CALLS += [
    "F.interpolate(U1d, scale_factor=2, mode='linear')",
    "F.interpolate(U3d, scale_factor=2, mode='trilinear')",
    "F.interpolate(X2_uint8, scale_factor=1.5, mode='bicubic')",
    "F.interpolate(X2_uint8, scale_factor=0.5, mode='bilinear', antialias=True)",
    "T.nn.Upsample(scale_factor=2, mode='bilinear')(U3)",
    "F.interpolate(U3[:0], scale_factor=2, mode='bilinear')",
]
for dt in DTYPES:
    if dt != "uint8":
        CALLS += [f"F.interpolate(X2_{dt}, scale_factor=2, mode='{m}')"
                  for m in ("nearest", "bilinear", "bicubic")]


def main():
    record(CALLS, inputs, describe, "int_resample", messages=True)


if __name__ == "__main__":
    main()
