"""Record PyTorch's vmap error wording and randomness semantics for
tests/test_func_vmap_batched.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_vmap_batched.py
writes tests/golden/vmap_batched.json:
  errors: [code, exception type, message] of calls that must fail;
  facts:  [code, value] where the code sets ``result`` to a Python bool or
          int describing the outcome (equal across the batch, shape ...).
The code runs with ``torch`` bound to the library, ``func``, ``F``, and
``x`` = zeros(4, 3), ``c`` = zeros(3)."""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "vmap_batched.json")

ERRORS = [
    "func.vmap(lambda a: c.add_(a))(x)",
    "func.vmap(lambda a, b: b.mul_(a), in_dims=(0, None))(x, c)",
    "func.vmap(lambda a: a + torch.randn(3))(x)",
    "func.vmap(lambda a: torch.rand_like(a))(x)",
    "func.vmap(lambda a: F.dropout(a, 0.5))(x)",
    "func.vmap(lambda a: a * 2, out_dims=None)(x)",
    "func.vmap(lambda a: 1.0)(x)",
    "func.vmap(lambda a: a.sum(2))(x)",
    "func.vmap(lambda a: c.normal_() + a, randomness='different')(x)",
]
FACTS = [
    "o = func.vmap(lambda a: a + torch.randn(3), randomness='same')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: a + torch.randn(3), randomness='different')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: torch.rand_like(a), randomness='same')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: F.dropout(a + 1, 0.5), randomness='same')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: torch.zeros(3).normal_() + a, randomness='same')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: a.clone().normal_(), randomness='same')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: a.clone().normal_(), randomness='different')(x); "
    "result = bool((o == o[0]).all())",
    "o = func.vmap(lambda a: c * 2)(x); result = list(o.shape)",
    "o = func.vmap(lambda a: (a.shape[0], a.dim()), out_dims=None)(x); result = list(o)",
    "o = func.vmap(lambda a: a.sum())(torch.zeros(0, 3)); result = list(o.shape)",
    "o = func.vmap(lambda a: a.softmax(0), chunk_size=3)(x + 1); result = list(o.shape)",
]


def run(lib, code, result_wanted):
    env = {"torch": lib, "func": lib.func, "F": lib.nn.functional,
           "x": lib.zeros(4, 3), "c": lib.zeros(3)}
    exec(("result = " + code) if not result_wanted else code, env)
    return env.get("result")


def main():
    import torch
    torch.manual_seed(0)
    errors = []
    for code in ERRORS:
        try:
            run(torch, code, False)
        except Exception as e:  # noqa: BLE001 -- recording what PyTorch raises
            errors.append([code, type(e).__name__, str(e)])
        else:
            raise AssertionError(f"no error from {code}")
    facts = [[code, run(torch, code, True)] for code in FACTS]
    with open(OUT, "w") as f:
        json.dump({"errors": errors, "facts": facts}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
