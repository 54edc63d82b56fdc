"""Record how PyTorch refuses creation and random-sampling calls, for
tests/test_creation_refusals.py: every creation function given a negative
size (and a size whose byte count overflows), and the random draws asked
for a dtype their distribution has no kernel for (integers and bool for
the continuous ones, complex for the integer ones), with the accepted
neighbours of each refusal (randint and randperm into floats, random_ and
bernoulli_ into integers).  Each outcome is PyTorch's exception class and
first line, or the dtype and shape of the result where PyTorch accepts
the call.

Run with an interpreter that has PyTorch:
    python scripts/golden_creation_refusals.py
writes tests/golden/creation_refusals.json: [call, outcome] pairs, the call
a Python expression over T (the library) and X, a float32 tensor of 2."""
from golden_calls import record

# ---- negative and overflowing sizes ------------------------------------------------------------

SIZES = ["-1", "2, -3", "(-1,)", "(2, -1, 3)", "-1, dtype=T.int64"]
SIZED = ["zeros", "ones", "empty", "rand", "randn"]

NEGATIVE = (
    [f"T.{f}({s})" for f in SIZED for s in SIZES] +
    [f"T.full({s}, 1.5)" for s in ("(-1,)", "(2, -3)", "[-2]")] +
    ["T.full((-1,), 7, dtype=T.int32)", "T.zeros(-1, out=T.empty(0))",
     "T.randint(5, (-1,))", "T.randint(0, 5, (2, -1))", "T.randint(-3, 5, (-2,), dtype=T.int32)",
     "T.randperm(-1)", "T.randperm(-2, dtype=T.float32)", "T.normal(0.0, 1.0, (-1,))",
     "T.normal(0.0, 1.0, (2, -1))", "T.empty_strided((-1,), (1,))",
     "T.empty_strided((2, -1), (1, 1))", "T.eye(-1)", "T.eye(2, -1)", "T.eye(-1, 2)",
     "T.linspace(0, 1, -1)", "T.logspace(0, 1, -1)", "T.arange(-1)", "T.Tensor(-1)",
     "T.Tensor(2, -1)"] +
    [f"X.{f}({s})" for f in ("new_zeros", "new_ones", "new_empty") for s in ("-1", "(2, -1)")] +
    ["X.new_full((-1,), 1.0)", "X.new_full((3, -2), 0)",
     "X.expand(-2)", "X.view(-2)", "X.reshape(-2)", "X.new_empty_strided((-1,), (1,))",
     "T.zeros(-1, device='meta')", "T.empty(2, -1, device='meta')",
     # the modules' parameters are made by the same factories
     "T.nn.Linear(-1, 2)", "T.nn.Embedding(-1, 2)", "T.nn.Conv2d(1, -1, 3)"])

# byte counts past int64 (no allocation is attempted)
HUGE = [f"T.{f}({s})" for f in ("zeros", "ones", "empty", "rand", "randn")
        for s in ("2 ** 62", "2 ** 40, 2 ** 40")] + [
    "T.full((2 ** 40, 2 ** 40), 1.0)", "T.randint(5, (2 ** 40, 2 ** 40))",
    "X.new_zeros((2 ** 40, 2 ** 40))"]

# ---- random draws by dtype ----------------------------------------------------------------------

DTYPES = ["T.int64", "T.int32", "T.int16", "T.int8", "T.uint8", "T.bool", "T.complex64",
          "T.float16", "T.float64"]


def _draws(dt):
    z = f"T.zeros(3, dtype={dt})"
    return [f"T.randn(3, dtype={dt})", f"T.rand(3, dtype={dt})",
            f"{z}.normal_()", f"{z}.uniform_()", f"{z}.exponential_()", f"{z}.cauchy_()",
            f"{z}.log_normal_()", f"{z}.geometric_(0.5)", f"{z}.random_()", f"{z}.random_(2)",
            f"{z}.random_(0, 2)", f"{z}.bernoulli_()", f"{z}.bernoulli_(0.5)",
            f"T.bernoulli({z})", f"{z}.bernoulli()", f"T.normal({z}, 1.0)",
            f"T.normal(0.0, {z})", f"T.normal(0.0, 1.0, (3,), dtype={dt})",
            f"T.poisson({z})", f"T.multinomial(T.ones(3, dtype={dt}), 1)",
            f"T.randn_like({z})", f"T.rand_like({z})", f"T.randint_like({z}, 2)",
            f"T.randint(0, 2, (3,), dtype={dt})", f"T.randperm(3, dtype={dt})"]


RANDOM = [c for dt in DTYPES for c in _draws(dt)] + [
    "T.randint(0, 5, (3,), dtype=T.bool)", "T.randint(0, 300, (3,), dtype=T.uint8)",
    "T.randint(-1, 2, (3,), dtype=T.uint8)", "T.randint(0, 5, (3,), dtype=T.float32)",
    "T.randperm(300, dtype=T.int8)"]

CALLS = NEGATIVE + HUGE + RANDOM


def inputs(T):
    return {"T": T, "X": T.zeros(2)}


def describe(r):
    """A result's dtype (its name, without the library's prefix) and shape."""
    return ["tensor", str(r.dtype).rsplit(".", 1)[-1], list(r.shape)]


def main():
    record(CALLS, inputs, describe, "creation_refusals", messages=True)


if __name__ == "__main__":
    main()
