"""Every op of the registry and every function of grad_fns.def either has a
derivative that some test gradchecks, or is listed here as not
differentiable (and then records no graph).  A new op without a derivative
or without a test fails here."""
import glob
import importlib.util
import os

import pytest

import torchlike as tl

# Outputs are integers or booleans, or the function is a step function that
# PyTorch does not differentiate either.
NON_DIFFERENTIABLE = {
    # comparisons and predicates
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "signbit", "logical_not", "logical_and", "logical_or", "logical_xor",
    # bitwise and integer ops
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift",
    # index-valued reductions and searches
    "argmax", "argmin", "all", "any", "count_nonzero", "argsort", "searchsorted", "bucketize",
    "nonzero", "argwhere", "unique", "unique_consecutive", "bincount", "histc",
    "gcd", "lcm", "_frexp_exponent",
    # recorded without a derivative: backward raises, as PyTorch's does
    # (tests/test_grad_random.py has PyTorch's nodes and errors)
    "heaviside", "_geqrf", "_linalg_ldl_factor_ex", "_linalg_ldl_solve", "_binomial", "histogram",
    "histogramdd", "_standard_gamma_grad",
    # random draws: recorded, with zero gradients as PyTorch's (bernoulli(p, float):
    # raises) -- tests/test_grad_random.py
    "normal", "bernoulli", "poisson", "uniform_", "normal_", "random_", "bernoulli_",
    "exponential_", "cauchy_", "log_normal_", "geometric_",
    # torch.special functions whose outputs PyTorch does not differentiate
    # (no graph is recorded; tests/test_special_functions.py checks that)
    "airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
    # fused backward kernels of src/nn: double backward goes through composed
    # formulas (create_graph=True), as PyTorch's does
    "_thnn_fused_lstm_cell_backward_impl", "_thnn_fused_gru_cell_backward", "_rnn_layer_backward",
    "_scaled_dot_product_flash_attention_for_cpu_backward",
    # backward ops that PyTorch has no derivative for either: their formula
    # raises its error (tests/test_nn_class_loss.py)
    "_multilabel_margin_loss_backward", "_ctc_loss_backward",
}


def _gradchecked():
    names = set()
    here = os.path.dirname(os.path.abspath(__file__))
    # the core's derivatives are tested in test_grad_*.py, src/nn's beside their kernels
    paths = glob.glob(os.path.join(here, "test_grad_*.py")) + glob.glob(os.path.join(here, "test_nn_*.py"))
    for path in sorted(paths):
        if path == os.path.abspath(__file__):
            continue
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        names |= set(getattr(module, "GRADCHECKED", ()))
    return names


def test_every_function_has_a_tested_derivative_or_is_not_differentiable():
    formulas = tl._C._grad_formulas()
    checked = _gradchecked()
    missing = sorted(n for n, has in formulas.items()
                     if n not in NON_DIFFERENTIABLE and not (has and n in checked))
    assert not missing, f"no derivative, or no gradcheck test, for: {missing}"


def test_gradchecked_names_exist():
    formulas = tl._C._grad_formulas()
    unknown = sorted(_gradchecked() - set(formulas))
    assert not unknown, f"GRADCHECKED names that are not recorded functions: {unknown}"


@pytest.mark.parametrize("name", sorted(NON_DIFFERENTIABLE))
def test_non_differentiable_names_are_recorded_functions(name):
    assert name in tl._C._grad_formulas()
