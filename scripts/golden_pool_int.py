"""Record PyTorch's answers to max pooling of integer (and bool, complex)
inputs, for tests/test_nn_pool.py: which pooling ops take which dtypes,
their values and indices, and the message of each refusal.

Run with an interpreter that has PyTorch:
    python scripts/golden_pool_int.py
writes tests/golden/pool_int.json: [call, outcome] pairs, the call a Python
expression over T (the library), F (its nn.functional) and the inputs that
inputs() makes: X1_<dtype> (2, 3, 11), X2_<dtype> (2, 3, 7, 8) and
X3_<dtype> (1, 2, 5, 6, 7), with ties and the dtype's extremes."""
import numpy as np

from golden_calls import record

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "bool"]
SHAPES = {1: (2, 3, 11), 2: (2, 3, 7, 8), 3: (1, 2, 5, 6, 7)}


def _values(dtype, shape, seed):
    """Few distinct values (ties), the dtype's extremes among them; int64's
    differ in their last bits, which a float comparison would lose."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    if dtype == "int64":
        pool = np.array([info.min, -5, 0, 3, 2**62, 2**62 + 1, 2**62 + 3, info.max], np.int64)
    else:
        pool = np.array([info.min, info.min + 1, 0, 1, 7, info.max - 1, info.max], np.int64)
    return pool[rng.integers(0, len(pool), shape)].astype(dtype)


def inputs(T):
    env = {"T": T, "F": T.nn.functional}
    for i, dtype in enumerate(DTYPES):
        for n, shape in SHAPES.items():
            env[f"X{n}_{dtype}"] = T.from_numpy(_values(dtype, shape, 10 * i + n))
    return env


CALLS = []
for dt in DTYPES:
    CALLS += [
        f"F.max_pool1d(X1_{dt}, 3, 2, 1, return_indices=True)",
        f"F.max_pool1d(X1_{dt}, 3, 2, 1, dilation=2, ceil_mode=True, return_indices=True)",
        f"F.max_pool1d(X1_{dt}, 3)",
        f"F.max_pool2d(X2_{dt}, 3, 2, 1)",
        f"F.max_pool2d(X2_{dt}, (2, 3), (2, 2), (1, 0), (1, 2), ceil_mode=True, return_indices=True)",
        f"F.max_pool2d(X2_{dt}[0], 2, return_indices=True)",
        f"F.max_pool2d(X2_{dt}.transpose(2, 3), 3, 1, 1, return_indices=True)",
        f"F.max_pool3d(X3_{dt}, (2, 3, 2), (2, 2, 1), (1, 1, 0), return_indices=True)",
        f"F.max_pool3d(X3_{dt}, 3, 2, 1, ceil_mode=True)",
        f"F.adaptive_max_pool1d(X1_{dt}, 4)",
        f"F.adaptive_max_pool2d(X2_{dt}, (3, 5), return_indices=True)",
        f"F.adaptive_max_pool3d(X3_{dt}, 2)",
        f"F.fractional_max_pool2d(X2_{dt}, 2, output_size=3)",
        f"F.fractional_max_pool2d(X2_{dt}, 2, output_size=3, _random_samples=T.rand(2, 3, 2))",
        f"F.max_unpool2d(*F.max_pool2d(X2_{dt}, 2, return_indices=True), 2)",
    ]
CALLS += [
    "T.nn.MaxPool2d(2, return_indices=True)(X2_int32)",
    "T.nn.MaxPool1d(2)(X1_int64)",
    "T.nn.AdaptiveMaxPool2d(2)(X2_int16)",
    "F.max_pool2d(X2_int64.to(T.complex64), 2)",
    "F.max_pool1d(X1_int64.to(T.complex64), 2)",
    "F.adaptive_max_pool2d(X2_int64.to(T.complex64), 2)",
    "F.max_pool2d(X2_int64[:0], 2, return_indices=True)",
]


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike."""
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    a = r.detach().cpu().numpy()
    return ["tensor", str(r.dtype).split(".")[-1], list(a.shape), a.tolist()]


def main():
    record(CALLS, inputs, describe, "pool_int", messages=True)


if __name__ == "__main__":
    main()
