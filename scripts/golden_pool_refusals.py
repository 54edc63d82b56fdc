"""Record how PyTorch refuses bad pooling arguments, for
tests/test_pool_refusals.py: max/avg/lp pooling, adaptive pooling, unfold
and fold given a zero or negative kernel, stride or dilation, a padding
past half the kernel, an input too small for one window, an input of the
wrong rank, a kernel_size tuple of the wrong length, and adaptive output
sizes that are not positive.  Each outcome is PyTorch's exception class
and first line, or the shape of the result where PyTorch accepts the call
(the grid has a few accepted neighbours of each refusal).

Run with an interpreter that has PyTorch:
    python scripts/golden_pool_refusals.py
writes tests/golden/pool_refusals.json: [call, outcome] pairs, the call a
Python expression over T (the library), F (its nn.functional) and the
inputs inputs() makes."""
from golden_calls import record

F = "T.nn.functional"

# (function, input, the kernel's dims) for the windowed poolings
POOLS = [("max_pool1d", "X3", 1), ("max_pool2d", "X4", 2), ("max_pool3d", "X5", 3),
         ("avg_pool1d", "X3", 1), ("avg_pool2d", "X4", 2), ("avg_pool3d", "X5", 3),
         ("lp_pool1d", "X3", 1), ("lp_pool2d", "X4", 2), ("lp_pool3d", "X5", 3)]


def _pool_calls(name, x, dims):
    lp = "2.0, " if name.startswith("lp") else ""
    call = f"F.{name}({x}, {lp}" + "{}" + ")"
    calls = [call.format(a) for a in (
        "0", "-1", "(2,) * %d + (0,)" % (dims - 1) if dims > 1 else "(0,)",
        "2, stride=0", "2, stride=-1", "2, stride=(1,) * %d" % (dims + 1),
        "(2,) * %d" % (dims + 1), "(2,) * %d" % max(dims - 1, 2) if dims != 2 else "(2, 2, 2)",
        "9", "2, stride=1, padding=9", "3, stride=1, padding=2", "2, stride=1, padding=-1")]
    if not name.startswith("lp"):
        calls += [call.format("2, 1, 1"), call.format("4, 1, 2")]
    if name.startswith("max"):
        calls += [call.format(a) for a in ("2, dilation=0", "2, dilation=-1",
                                           "2, dilation=(1,) * %d" % (dims + 1),
                                           "3, dilation=4", "2, 1, 0, 2")]
    if name.startswith("avg"):
        calls += [call.format("2, divisor_override=0"), call.format("3, 1, 1, ceil_mode=True")]
    # the wrong rank: one dim short of unbatched, one past batched
    short = {"X3": "X1", "X4": "X2", "X5": "X3"}[x]
    long_ = {"X3": "X4", "X4": "X5", "X5": "X6"}[x]
    calls += [f"F.{name}({short}, {lp}1)", f"F.{name}({long_}, {lp}1)",
              f"F.{name}({x}[:, :, :0], {lp}1)", f"F.{name}({x}[:0], {lp}1)"]
    return calls


ADAPTIVE = [("adaptive_avg_pool1d", "X3", 1), ("adaptive_avg_pool2d", "X4", 2),
            ("adaptive_avg_pool3d", "X5", 3), ("adaptive_max_pool1d", "X3", 1),
            ("adaptive_max_pool2d", "X4", 2), ("adaptive_max_pool3d", "X5", 3)]


def _adaptive_calls(name, x, dims):
    short = {"X3": "X1", "X4": "X2", "X5": "X3"}[x]
    long_ = {"X3": "X4", "X4": "X5", "X5": "X6"}[x]
    sizes = ["0", "-1", "(2,) * %d" % (dims + 1), "(2,) * %d + (0,)" % (dims - 1)
             if dims > 1 else "(0,)", "(2,) * %d + (-2,)" % (dims - 1) if dims > 1 else "(-2,)",
             "1", "7"]
    if dims > 1:
        sizes += ["(None,) + (2,) * %d" % (dims - 1), "(2,) * %d" % (dims - 1)]
    return ([f"F.{name}({x}, {s})" for s in sizes] +
            [f"F.{name}({short}, 1)", f"F.{name}({long_}, 1)",
             f"F.{name}({x}[:, :, :0], 1)", f"F.{name}({x}[:0], 1)"])


UNFOLD = [f"F.unfold(X4, {a})" for a in (
    "0", "-1", "(2, 0)", "2, stride=0", "2, stride=-1", "2, dilation=0", "2, dilation=-1",
    "2, padding=-1", "(2, 2, 2)", "2, stride=(1, 1, 1)", "9", "3, padding=2", "2, padding=5",
    "3, dilation=4", "(2,)", "2, 1, 1, 2")] + [
    "F.unfold(X3, 2)", "F.unfold(X2, 2)", "F.unfold(X5, 2)", "F.unfold(X4[:0], 2)",
    "F.unfold(X4[:, :0], 2)", "F.unfold(X4[:, :, :0], 2)"]

FOLD = [f"F.fold(C, {a})" for a in (
    "(3, 3), 0", "(3, 3), -1", "(3, 3), (2, 0)", "(3, 3), 2, stride=0",
    "(3, 3), 2, stride=-1", "(3, 3), 2, dilation=0", "(3, 3), 2, padding=-1",
    "(3, 3), (2, 2, 2)", "(3, 3, 3), 2", "(0, 3), 2", "(-1, 3), 2", "(1, 1), 2",
    "(3, 3), 2, padding=5", "(4, 4), 2", "(3, 3), 2, stride=2", "(3, 3), 3",
    "(3, 3), 2", "(3,), 2", "3, 2")] + [
    "F.fold(C[0], (3, 3), 2)", "F.fold(C.reshape(-1), (3, 3), 2)",
    "F.fold(C.reshape(2, 1, 4, 4), (3, 3), 2)", "F.fold(C[:, :3], (3, 3), 2)",
    "F.fold(C[:0], (3, 3), 2)", "F.fold(C[:, :0], (3, 3), 2)"]

# padding tuples of the wrong length, a dilated window's padding past half
# the kernel, ceil_mode's last window, non-square inputs, adaptive pooling
# to sizes other than 1 of the wrong rank or with an empty dim
MORE = ["F.max_pool1d(X3, 2, 2, (0, 0))", "F.avg_pool1d(X3, 2, 2, (0, 0))",
        "F.max_pool2d(X4, 2, 2, (1, 1, 1))", "F.avg_pool2d(X4, 2, 2, (0, 0, 0))",
        "F.max_pool3d(X5, 2, 2, (0, 0))", "F.avg_pool3d(X5, 2, 2, (0, 0))",
        "F.max_pool1d(X3, 3, 1, 2, 2)", "F.max_pool2d(X4, 3, 1, 2, 2)",
        "F.max_pool3d(X5, 3, 1, 2, 2)", "F.max_pool2d(X4, 3, 2, 1, ceil_mode=True)",
        "F.max_pool2d(X4, 3, 1, 0, 2)", "F.max_pool1d(X3, 3, 3, 1, ceil_mode=True)",
        "F.avg_pool2d(X4, 3, 1, 1, ceil_mode=True, count_include_pad=False)",
        "F.avg_pool2d(X4, (1, 5))", "F.max_pool2d(X4, (5, 1))", "F.avg_pool3d(X5, (1, 1, 5))",
        "F.unfold(T.ones(1, 1, 3, 5), (4, 2))", "F.unfold(X4, 2, padding=(0, 0, 0))",
        "F.fold(C, (3, 3), 2, dilation=(1, 1, 1))", "F.fold(C, (3, 3), 2, padding=(0, 0, 0))",
        "F.adaptive_avg_pool2d(X4, 3)", "F.adaptive_avg_pool2d(X2, 2)",
        "F.adaptive_avg_pool2d(X5, 2)", "F.adaptive_avg_pool2d(X4[:, :, :0], 2)",
        "F.adaptive_avg_pool1d(X3[:, :, :0], 2)", "F.adaptive_avg_pool3d(X3, 2)",
        "F.adaptive_max_pool2d(X4, (None, 3))", "F.adaptive_max_pool1d(X3[:, :0], 2)",
        "F.adaptive_max_pool2d(X4[:0], 2)", "F.adaptive_avg_pool2d(X4, (3, None))"]

CALLS = ([c for spec in POOLS for c in _pool_calls(*spec)] +
         [c for spec in ADAPTIVE for c in _adaptive_calls(*spec)] + UNFOLD + FOLD + MORE)


def inputs(T):
    def x(*shape):
        n = 1
        for k in shape:
            n *= k
        return T.arange(float(n)).reshape(shape)
    return {"T": T, "F": T.nn.functional, "X1": x(4), "X2": x(2, 4), "X3": x(2, 3, 4),
            "X4": x(2, 3, 4, 4), "X5": x(1, 2, 4, 4, 4), "X6": x(1, 1, 2, 4, 4, 4),
            "C": x(2, 4, 4)}


def describe(r):
    """A result's shape (and the shapes of a tuple's members)."""
    if isinstance(r, tuple):
        return ["tuple", [describe(v) for v in r]]
    return ["shape", list(r.shape)]


def main():
    record(CALLS, inputs, describe, "pool_refusals", messages=True)


if __name__ == "__main__":
    main()
