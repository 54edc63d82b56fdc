"""Record PyTorch's answers for torch.signal.windows (torchlike/signal/windows.py),
for tests/test_signal_windows.py: every window at lengths 0, 1, 2, 5, 8, both
sym= forms, float32 and float64, the parameters (std, tau, center, beta,
alpha, a), and the messages of bad calls.  Values keep full precision
(describe_exact), so the test can compare float64 windows to 1e-12.

Run with an interpreter that has PyTorch:
    python scripts/golden_signal_windows.py
writes tests/golden/signal_windows.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record


def describe(r):
    """A result as [kind, dtype, shape, values] with floats unrounded
    (complex values as [re, im]); tuples and other objects as in
    golden_composites."""
    if hasattr(r, "numpy") and hasattr(r, "dtype"):
        a = r.detach()
        vals = a.reshape(-1).tolist()
        if str(a.dtype).split(".")[-1].startswith("complex"):
            vals = [[v.real, v.imag] for v in vals]
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), vals]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(v) for v in r]]
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    return [type(r).__name__, r]


def inputs(T):
    return {"T": T, "W": T.signal.windows}


_PLAIN = ["bartlett", "blackman", "cosine", "hamming", "hann", "nuttall"]
CALLS = []
for _M in (0, 1, 2, 5, 8):
    for _sym in (True, False):
        for _name in _PLAIN + ["gaussian", "exponential", "kaiser"]:
            CALLS.append(f"W.{_name}({_M}, sym={_sym})")
        CALLS.append(f"W.general_cosine({_M}, a=[0.5, 0.3, 0.2], sym={_sym})")
        CALLS.append(f"W.general_hamming({_M}, sym={_sym})")
for _name in _PLAIN:
    CALLS.append(f"W.{_name}(7, dtype=T.float64)")
    CALLS.append(f"W.{_name}(6, sym=False, dtype=T.float64)")
CALLS += [
    "W.gaussian(7, std=2.5, dtype=T.float64)", "W.gaussian(6, std=0.7, sym=False)",
    "W.exponential(7, tau=3.0, dtype=T.float64)", "W.exponential(6, center=1.0, sym=False)",
    "W.exponential(6, center=2.5, tau=0.5, sym=False, dtype=T.float64)",
    "W.kaiser(7, beta=4.0, dtype=T.float64)", "W.kaiser(6, beta=0.0)",
    "W.kaiser(9, beta=30.0, sym=False, dtype=T.float64)",
    "W.general_hamming(7, alpha=0.6, dtype=T.float64)",
    "W.general_cosine(7, a=(1.0,), dtype=T.float64)",
    "W.general_cosine(7, a=[0.2, 0.3, 0.1, 0.4], sym=False, dtype=T.float64)",
    "W.hann(5, requires_grad=True).requires_grad", "W.hann(5).requires_grad",
    "W.hann(4, device='cpu')",
    # bad calls
    "W.hann(-1)", "W.bartlett(-2)", "W.hann(3, dtype=T.int32)", "W.cosine(3, dtype=T.float16)",
    "W.gaussian(3, std=0)", "W.gaussian(3, std=-1.5)", "W.exponential(3, center=1.0)",
    "W.exponential(3, tau=0)", "W.general_cosine(3, a=[])", "W.general_cosine(3, a=3)",
    "W.kaiser(3, beta=-1)", "W.kaiser(3, dtype=T.complex64)",
]


def main():
    record(CALLS, inputs, describe, "signal_windows", messages=True)


if __name__ == "__main__":
    main()
