"""torchlike.numpy.random against NumPy's Generator at 10^6 draws: the
distributions written as vectorised tensor code (gamma's rejection loop,
binomial's inversion and BTRS, choice with weights)."""
import numpy as np

import torchlike.numpy as tnp


def cases():
    n = 10 ** 6
    ours = tnp.random.default_rng(0, device="cpu")
    theirs = np.random.default_rng(0)
    for label, call in [
        ("normal(1, 2)", lambda r: r.normal(1.0, 2.0, n)),
        ("gamma(0.5)", lambda r: r.gamma(0.5, 1.0, n)),
        ("gamma(4)", lambda r: r.gamma(4.0, 1.0, n)),
        ("binomial(20, 0.3)", lambda r: r.binomial(20, 0.3, n)),
        ("binomial(1000, 0.4)", lambda r: r.binomial(1000, 0.4, n)),
        ("choice(1000, p)", lambda r, p=np.full(1000, 1e-3): r.choice(1000, n, p=p)),
        ("choice(10^6, replace=False)", lambda r: r.choice(n, n, replace=False)),
    ]:
        yield f"np.random {label} 10^6", (lambda c=call: c(ours)), (lambda c=call: c(theirs)), \
            "numpy"
