"""Record PyTorch's answers for torch.quasirandom.SobolEngine where torchlike's
engine must agree (torchlike/quasirandom.py): the first two dimensions,
whose direction numbers every Sobol' construction shares, drawn in pieces,
after fast_forward and reset, in both dtypes; repr; and the messages of bad
calls.  For tests/test_sobol.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_sobol.py
writes tests/golden/sobol.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record
from golden_signal_windows import describe  # noqa: F401  (full-precision values)


def inputs(T):
    return {"T": T, "S": T.quasirandom.SobolEngine}


CALLS = [
    "S(2).draw(70)", "S(1).draw(5, dtype=T.float64)", "S(2).draw(3)",
    "T.cat([S(2).draw(5), S(2).fast_forward(5).draw(9)])", "S(2).fast_forward(1000).draw(4)",
    "S(2).draw_base2(4)", "(lambda e: (e.draw(7), e.reset().draw(3)))(S(2))",
    "(lambda e: (e.draw_base2(2), e.draw_base2(2)))(S(2))",
    "(lambda e: (e.draw(3), e.num_generated))(S(2))", "(lambda e: (e.draw(2), e.draw(0)))(S(2))", "S(5).draw(1).shape",
    "S(21201).draw(2)[:, :2]", "repr(S(3))", "repr(S(3, scramble=True, seed=4))", "repr(S(3, seed=2))",
    "S(3).MAXDIM", "S(3).MAXBIT",
    "S(0)", "S(21202)", "(lambda e: (e.draw(3), e.draw_base2(2)))(S(2))",
]


def main():
    record(CALLS, inputs, describe, "sobol", messages=True)


if __name__ == "__main__":
    main()
