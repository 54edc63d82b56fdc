"""Record what PyTorch's autograd does with calls it cannot differentiate:
random draws from parameters that require grad (torch.normal(mean, std),
poisson, bernoulli, binomial, _standard_gamma), in-place draws into a tensor
in a graph (x.normal_(), x.bernoulli_(p) ...), the ops whose node raises in
backward (geqrf, heaviside, bincount, unique, linalg.ldl_*, histogram), and the bool
negation refusals (bool - number is not among them: torchlike takes NumPy's
meaning where PyTorch refuses, docs/elementwise.md); for
tests/test_grad_random.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_random_grad.py
writes tests/golden/random_grad.json: [call, outcome] pairs, the call a Python
expression over T (the library) and the inputs below, the outcome
["outputs", [[requires_grad, node class], ...], grads] with grads one entry
per input of GRAD_OF (None: no gradient; "zeros"; "nonzero"; or ["raises",
class, message]), or ["raises", class, message] when the call itself raises.
PyTorch's _standard_gamma_grad at fixed points goes under "gamma_grad", the
gradients of the piecewise activations at their kinks under "kinks"."""
import json
import os

from golden_calls import record


def inputs(T):
    f64 = T.float64
    m = T.tensor([0.5, 1.0, 1.5], dtype=f64, requires_grad=True)
    s = T.tensor([1.5, 2.0, 0.5], dtype=f64, requires_grad=True)
    p = T.tensor([0.2, 0.5, 0.9], dtype=f64, requires_grad=True)
    a = (T.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=f64)
         ).requires_grad_()
    return {"T": T, "D": T.distributions, "F": T.nn.functional, "m": m, "s": s, "p": p, "a": a,
            "f64": f64, "b": T.tensor([True, False])}


# the inputs whose gradients are recorded
GRAD_OF = ("m", "s", "p", "a")

CALLS = """T.normal(m, s)|T.normal(m, 2.0)|T.normal(1.0, s)|T.normal(m, s, generator=None)
T.poisson(s)|T.bernoulli(p)|p.bernoulli()|T.bernoulli(p, 0.3)|T.binomial(s * 3, p)
T.binomial(s.detach() * 3, p)|T._standard_gamma(s)|T.multinomial(p, 2)|T.rand_like(s)
T.randn_like(s)|T.randint_like(s, 5)|(s * 1).normal_()|(s * 1).normal_(2.0, 0.5)|(s * 1).uniform_()
(s * 1).uniform_(-1, 1)|(s * 1).random_()|(s * 1).random_(5)|(s * 1).random_(1, 5)
(s * 1).random_(to=5)|(s * 1).bernoulli_(0.5)|(s * 1).bernoulli_(p)
T.zeros(3, dtype=f64).bernoulli_(p)|T.zeros(3, dtype=f64).normal_()|(s * 1).exponential_()
(s * 1).cauchy_()|(s * 1).log_normal_()|(s * 1).geometric_(0.5)|s.normal_()|s.uniform_()
s.bernoulli_(0.5)|(lambda y: (y[1:].normal_(), y)[1])(s * 1)|(lambda y: (y[:2].uniform_(), y * m)[1])(s * 1)
D.Normal(m, s).sample()|D.Normal(m, s).rsample()|D.Poisson(s).sample()|D.Bernoulli(p).sample()
D.Gamma(s, m).sample()|D.Binomial(3, p).sample()|D.Gamma(s, m).rsample()|D.Chi2(s).rsample()
D.Beta(s, m).rsample()|D.Exponential(s).rsample()|D.LogNormal(m, s).rsample()
T.heaviside(m, s)|T.bincount(T.tensor([0, 1, 1]), weights=m)|T.bincount(T.tensor([0, 1, 1]))
T.unique(m)|T.unique(m, dim=0)|T.unique(m, return_counts=True)|T.unique_consecutive(m)|T.geqrf(a)
a.geqrf()|T.linalg.ldl_factor(a)|T.linalg.ldl_factor_ex(a)
T.linalg.ldl_solve(*T.linalg.ldl_factor(a.detach()), a)|T.histc(m, bins=3)|T.histogram(m, bins=3)
T.histogram(m.detach(), bins=3, weight=m)|m.histogram(bins=3)|T.histogramdd(a, bins=[2, 2, 2])
-b|T.neg(b)|b.neg()|T.negative(b)|T.positive(b)|+b|b.positive()|b - b""".replace(
    "\n", "|").split("|")


def describe_with(T):
    def describe(r):
        env = describe.env
        outs = r if isinstance(r, (tuple, list)) else (r,)
        shown = [[o.requires_grad, None if o.grad_fn is None else type(o.grad_fn).__name__]
                 for o in outs if isinstance(o, T.Tensor)]
        diff = [o for o in outs if isinstance(o, T.Tensor) and o.requires_grad]
        grads = None
        if diff:
            try:
                got = T.autograd.grad(diff[0].sum(), [env[k] for k in GRAD_OF], allow_unused=True)
                grads = [None if g is None else ("zeros" if bool((g == 0).all()) else "nonzero")
                         for g in got]
            except Exception as e:  # noqa: BLE001 - the exception is the answer
                grads = ["raises", type(e).__name__, str(e).splitlines()[0]]
        return ["outputs", shown, grads]
    return describe


# Activations at and beside their kinks: PyTorch's gradient there, out of
# place and in place (x.relu_() ...), under "kinks".
KINK_X = [-3.0, -1.0, 0.0, 1.0, 3.0, 6.0, -3.5, 3.5, 0.3]
KINKS = {
    "relu": "F.relu(y, inplace=w)", "relu6": "F.relu6(y, inplace=w)",
    "hardtanh": "F.hardtanh(y, inplace=w)", "hardsigmoid": "F.hardsigmoid(y, inplace=w)",
    "hardswish": "F.hardswish(y, inplace=w)", "leaky_relu": "F.leaky_relu(y, 0.1, inplace=w)",
    "threshold": "F.threshold(y, 0.3, -1.0, inplace=w)", "elu": "F.elu(y, inplace=w)",
}


def kink_grads(T):
    out = {}
    for name, call in KINKS.items():
        for w in (False, True):
            x = T.tensor(KINK_X, dtype=T.float64, requires_grad=True)
            env = {"F": T.nn.functional, "y": x * 1.0, "w": w}
            (g,) = T.autograd.grad(eval(call, env).sum(), x)
            out[f"{name}{'_' if w else ''}"] = g.tolist()
    return out


# Points (alpha, x) for _standard_gamma_grad, the derivative of a Gamma(alpha, 1)
# draw x with respect to alpha.
GAMMA_ALPHA = [0.3, 1.0, 2.5, 10.0, 0.05, 40.0]
GAMMA_X = [0.1, 0.8, 3.0, 9.0, 1e-4, 35.0]


if __name__ == "__main__":
    import torch
    describe = describe_with(torch)

    def env(T):
        describe.env = inputs(T)
        return describe.env
    record(CALLS, env, describe, "random_grad", messages=True)
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", "random_grad.json")
    with open(path) as f:
        data = json.load(f)
    a = torch.tensor(GAMMA_ALPHA, dtype=torch.float64)
    x = torch.tensor(GAMMA_X, dtype=torch.float64)
    data["gamma_grad"] = torch._standard_gamma_grad(a, x).tolist()
    data["kinks"] = kink_grads(torch)
    with open(path, "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
