"""Feed random arguments to every function and Tensor method the extension
exposes.  The only acceptable outcomes are a result or a Python exception:
a crash takes the test process down, which fails the suite.

The callables are found by introspection, so ops added later are fuzzed
without touching this file.  Sizes stay small: the point is argument
validation, not allocation."""
import random

import numpy as np
import pytest

import torchlike as tl


# A warning is an accepted answer of a fuzz call: deprecated functions
# (torch.lu, torch.range ...) and switches given a value that changes nothing
# warn as PyTorch's do.
pytestmark = [pytest.mark.filterwarnings("ignore:.* is deprecated:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*call has no effect:UserWarning")]

SEED = 1234
CALLS_PER_FUNCTION = 60

# Functions that take a long time or a lot of memory by design with any
# argument, or that change global state or write files named by their
# argument (x.dump("abc") would leave a file "abc"); none of them is
# skipped for being fragile.
SKIP = {"set_num_threads", "manual_seed", "seed", "set_default_dtype", "set_rng_state",
        "set_printoptions", "dump", "tofile"}


def tensor_pool():
    pool = []
    for dtype in [tl.bool, tl.uint8, tl.int8, tl.int32, tl.int64, tl.float16, tl.bfloat16,
                  tl.float32, tl.float64, tl.complex64, tl.complex128]:
        for shape in [(), (0,), (3,), (2, 3), (1, 3, 1), (2, 0, 2)]:
            t = tl.tensor(np.arange(int(np.prod(shape)) or 0).reshape(shape) % 3 - 1).to(dtype)
            pool.append(t)
    base = tl.arange(24, dtype=tl.float32).reshape(4, 6)
    pool += [base.T, base[:, ::2], base[::-1], base[1:, 1:].T]
    return pool


def value_pool(tensors):
    return tensors + [
        None, True, False, 0, 1, -1, 2, 3, -5, 2 ** 62, -2 ** 63, 2 ** 70, 0.5, -1.5,
        float("nan"), float("inf"), 1 + 2j, "abc", "sum", b"x", [], [1, 2], [[1], [2, 3]],
        (0,), (0, 1), (-1,), (5, 5), [True, False, True], (2, -1), object(), slice(None),
        Ellipsis, tl.float32, tl.int64, np.float32, np.arange(3), np.zeros((2, 3)),
        np.array(1.5), {"a": 1}, float,
    ]


KEYWORDS = ["dim", "keepdim", "dtype", "out", "alpha", "k", "largest", "descending", "p",
            "correction", "rounding_mode", "decimals", "min", "max", "value", "index", "src",
            "size", "device", "generator", "stable", "sorted", "return_inverse", "offset"]


def functions():
    seen = set()
    for name in sorted(dir(tl._C)):
        obj = getattr(tl._C, name)
        # _private hooks are the package's wiring, not user API
        if name.startswith("_") or name in SKIP or isinstance(obj, type) or not callable(obj):
            continue
        if id(obj) not in seen:
            seen.add(id(obj))
            yield name, obj


def methods():
    for name in sorted(dir(tl.Tensor)):
        if name.startswith("__") or name in SKIP:
            continue
        obj = getattr(tl.Tensor, name)
        if callable(obj):
            yield name


def random_call(rng, fn, values, tensors, first=None):
    nargs = rng.randint(0, 4)
    args = [rng.choice(values) for _ in range(nargs)]
    if first is not None:
        args.insert(0, first)
    elif rng.random() < 0.8:
        args.insert(0, rng.choice(tensors))
    kwargs = {}
    if rng.random() < 0.4:
        key = rng.choice(KEYWORDS)
        kwargs[key] = rng.choice(values + [tl.empty(0)])
    try:
        fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - any Python exception is an accepted answer
        pass


# A warning is an accepted answer too: the dtype objects (torchlike.numpy.int8(1j))
# give NumPy's own ComplexWarning, as NumPy does.
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("name,fn", list(functions()), ids=lambda x: x if isinstance(x, str) else "")
def test_module_function_survives_random_arguments(name, fn):
    rng = random.Random(f"{SEED}-{name}")
    tensors = tensor_pool()
    values = value_pool(tensors)
    for _ in range(CALLS_PER_FUNCTION):
        random_call(rng, fn, values, tensors)


@pytest.mark.parametrize("name", list(methods()))
def test_tensor_method_survives_random_arguments(name):
    rng = random.Random(f"{SEED}-method-{name}")
    tensors = tensor_pool()
    values = value_pool(tensors)
    for _ in range(CALLS_PER_FUNCTION // 2):
        self = rng.choice(tensors).clone()
        attr = getattr(self, name)
        if not callable(attr):
            continue
        random_call(rng, attr, values, tensors, first=None if rng.random() < 0.5 else rng.choice(values))


# np.remainder(tensor, 0) on integers warns as NumPy's own does
@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning")
def test_operators_survive_random_operands():
    import operator
    rng = random.Random(SEED)
    tensors = tensor_pool()
    values = value_pool(tensors)
    ops = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
           operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
           operator.lshift, operator.rshift, operator.lt, operator.le, operator.eq,
           operator.ne, operator.ge, operator.gt, operator.matmul, operator.getitem,
           operator.iadd, operator.imul, operator.isub, operator.itruediv]
    for _ in range(3000):
        op = rng.choice(ops)
        a = rng.choice(tensors).clone()
        b = rng.choice(values)
        for x, y in ((a, b), (b, a)):
            try:
                op(x, y)
            except Exception:  # noqa: BLE001
                pass
    for _ in range(500):
        a = rng.choice(tensors).clone()
        try:
            a[rng.choice(values)] = rng.choice(values)
        except Exception:  # noqa: BLE001
            pass
