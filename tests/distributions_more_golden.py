"""What the golden tests of the distribution families and transforms added
after the first set share: the recorded file (scripts/golden_distributions_more.py),
its tolerance, the names its expressions use, and the float64 default dtype
it was recorded under."""
import json
import os

import pytest

import torchlike
import torchlike.distributions as D

with open(os.path.join(os.path.dirname(__file__), "golden", "distributions", "more.json")) as f:
    GOLD = json.load(f)
TOL = dict(rtol=1e-9, atol=1e-11)
ENV = {"tensor": lambda v: torchlike.tensor(v, dtype=torchlike.float64), "constraints": D.constraints,
       "T": D.transforms, **{k: getattr(D, k) for k in D.__all__}}


@pytest.fixture(autouse=True)
def float64_default():
    """Recorded with float64 as the default dtype (it decides the dtype of
    parameters given as Python numbers)."""
    old = torchlike.get_default_dtype()
    torchlike.set_default_dtype(torchlike.float64)
    yield
    torchlike.set_default_dtype(old)


def ev(expr):
    return eval(expr, dict(ENV))  # noqa: S307 - the golden file's fixed expressions
