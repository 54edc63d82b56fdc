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

FINFO_KEYS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]


def warned(fn):
    """The (category, message) of each warning fn() gives, and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return [[w.category.__name__, str(w.message)] for w in caught], result


def inputs(T):
    return {"A": T.tensor([1.0, -2.0, 3.5]), "M": T.arange(12.0).reshape(3, 4),
            "I": T.tensor([4, -6, 9]), "FINFO_KEYS": FINFO_KEYS, "warned": warned}


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike."""
    if type(r).__name__ == "Size":
        return ["size", [int(x) for x in r]]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    if type(r).__name__ == "Tensor":
        a = r.detach()
        a = (a.float() if str(a.dtype).endswith("bfloat16") else a).numpy()
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
