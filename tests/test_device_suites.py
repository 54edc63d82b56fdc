"""Test files run again with a device as the default device.

Each group of files runs in a subprocess with TORCHLIKE_TEST_DEVICE set
(tests/conftest.py), so every tensor the tests make lives on that device and
every op runs its device paths; results are compared through .cpu().  Here the
device is the emulated one (the fake test device given the CPU's kernels as
its device kernels, with its memory unreadable by the host outside them, as a
GPU's is); with a GPU present, CUDA too.  CUDA_LAUNCH_BLOCKING=1 makes a bad
index found by a device kernel raise at its op, where the tests expect it.
Tests marked host_only (host semantics: zero-copy sharing with ndarrays,
NumPy's own code on host views, errors raised before any write) are skipped
in these runs.

Emulated, on a 2-core machine, the groups take about 14 s (gradients), 24 s
(NumPy dispatch), 7 s (NumPy programs), 46 s (oracles), 7 s (training), 10 s
(training programs), 31 s (misc), 16 s (functions), 4 s (serialization), 19 s
(nn) and 42 s (nn kernels) of wall time, pytest's start included.  Not run here, on purpose: test_interop (zero-copy sharing, the buffer
protocol and DLPack of host memory), test_dispatch and test_create_device (the
fake device itself, with and without lent kernels, in processes of their own),
test_sort_long (the CPU sort's thread-pool internals; test_sort covers the op
on a device) and test_fuzz_ints (about 30 s for argument forms test_fuzz and
the oracle groups already reach)."""
import os
import subprocess
import sys

import pytest

import torchlike as T

HERE = os.path.dirname(os.path.abspath(__file__))

SUITES = {
    # every gradient file but the ones that are about the host or the registry
    "gradients": sorted(f for f in os.listdir(HERE)
                        if f.startswith("test_grad_") and f.endswith(".py")
                        and f not in ("test_grad_device.py", "test_grad_registry.py")),
    "numpy_dispatch": ["test_ufunc.py", "test_ufunc_ops.py", "test_array_function.py",
                       "test_numpy_namespace.py", "test_numpy_namespace_more.py",
                       "test_numpy_functions_on_grad_tensors.py", "test_ndarray_idioms.py",
                       "test_scipy_array_api.py", "test_numpy_random_api.py",
                       "test_numpy_random_dists.py", "test_numpy_ma.py",
                       "test_numpy_ma_more.py", "test_numpy_edge_semantics.py",
                       "test_mean_integer.py"],
    # NumPy programs run through torchlike.numpy on the device (host-only
    # steps: their refusal checked, then run on host copies; host_step)
    "numpy_programs": [f"test_numpy_programs{n}.py"
                       for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)],
    "training": ["test_optim.py", "test_optim_adafactor_muon.py", "test_nn_train.py",
                 "test_lr_scheduler.py", "test_optim_base.py", "test_optim_swa.py"],
    # ordinary PyTorch training programs, their data moved to the device
    # (about 12 s emulated, pytest's start included)
    "training_programs": [f"test_training_programs{n}.py" for n in ("", 2, 3, 4, 5, 7, 8, 9, 10, 11)],
    # the rest of the library (test_distributions_sampling: its sampling tests only; its
    # gradient checks take minutes here, the gamma ones thousands of small ops each)
    "misc": ["test_core.py", "test_creation.py", "test_legacy_types.py", "test_spread_args.py",
             "test_torch_api_compare.py", "test_composites.py", "test_fft.py",
             "test_special_erf.py", "test_scipy_special.py", "test_linalg_products.py",
             "test_linalg_nonfinite.py", "test_autograd_engine.py", "test_amp.py",
             "test_data.py", "test_data_golden.py", "test_distributions.py",
             "test_operators.py", "test_promotion.py", "test_printing.py",
             "test_create_args.py", "test_fuzz.py", "test_fuzz_regressions.py", "test_threads.py",
             "test_masked.py", "test_nested.py", "test_fx.py", "test_export.py", "test_aten_forms.py",
             "test_aten_rnn_forms.py", "test_complex_warning.py",
             *(f"test_distributions_sampling.py::{t}" for t in (
                 "test_sample_shape_dtype_and_support", "test_sample_moments",
                 "test_gamma_sampler_matches_the_gamma_distribution",
                 "test_float32_gamma_and_beta_samples_stay_float32_and_positive")),
             # test_distributions_more: all but its gradchecks (half its device time)
             "test_distributions_transforms_more.py",
             *(f"test_distributions_more.py::{t}" for t in (
                 "test_log_prob_and_shapes_match_pytorch", "test_expand_broadcasts_the_batch",
                 "test_moments_and_entropy_match_pytorch",
                 "test_cdf_matches_pytorch", "test_icdf_matches_pytorch_and_inverts_cdf",
                 "test_exponential_family_bregman_entropy_matches_pytorch",
                 "test_kl_divergence_matches_pytorch",
                 "test_exponential_family_bregman_kl_matches_pytorch_and_closed_form",
                 "test_kl_of_new_families_with_themselves_is_zero",
                 "test_samples_follow_the_distribution", "test_sample_shapes_dtypes_and_support",
                 "test_sample_means_match_moments", "test_bad_parameters_raise_pytorchs_value_error",
                 "test_bad_values_and_arguments_raise"))],
    "nn": ["test_nn_activation.py", "test_nn_loss.py", "test_nn_functional.py",
           "test_nn_norm.py", "test_nn_embedding.py", "test_nn_class_loss.py",
           "test_nn_module.py", "test_nn_utils.py", "test_nn_norm_loss_golden.py",
           "test_nn_golden.py", "test_nn_api_extra.py", "test_nn_pool.py",
           "test_nn_rnn_kernels.py", "test_nn_orthogonal.py", "test_nn_rnn_module_checks.py",
           "test_nn_layouts.py", "test_nn_conv_line.py", "test_pool_refusals.py",
           "test_loss_integer_operands.py"],
    # the nn kernels whose gradchecks make thousands of kernel calls, each of
    # them opening and closing the guard (one mprotect each way, cheap since
    # the guard maps huge pages)
    "nn_kernels": ["test_nn_conv.py", "test_nn_softmax.py", "test_nn_resample.py",
                   "test_nn_grid.py", "test_nn_attention.py", "test_nn_dropout.py",
                   "test_nn_rnn_layer.py"],
    # later functions: special functions, STFT, histograms, LU and LDL extras, the extra
    # torch-level functions, the API surface (test_ldl: LDL's refusal on the device), the
    # torch.func transforms
    "functions": ["test_special_functions.py", "test_stft.py", "test_histogram.py",
                  "test_lu_extra.py", "test_torch_extra_fns.py", "test_ldl.py",
                  "test_api_surface.py", "test_func_transforms.py", "test_torchlike_scipy.py"],
    # checkpoints: torch.save/load, pickling, the recorded PyTorch archives, safetensors
    "serialization": ["test_serialization.py", "test_serialization_golden.py",
                      "test_serialization_safetensors.py"],
    "oracles": ["test_elementwise.py", "test_reductions.py", "test_indexing.py",
                "test_index_ops.py", "test_shapes.py", "test_sort.py", "test_sort_short.py",
                "test_sort_values.py",
                "test_search.py", "test_linalg.py",
                "test_random.py", "test_creation_refusals.py"],
}

DEVICES = [
    "emulated",
    pytest.param("cuda", marks=pytest.mark.skipif(not T.cuda.is_available(),
                                                  reason="requires a CUDA device")),
]


@pytest.mark.parametrize("suite", sorted(SUITES))
@pytest.mark.parametrize("device", DEVICES)
def test_suite_runs_on_the_device(device, suite):
    env = dict(os.environ, TORCHLIKE_TEST_DEVICE=device, TORCHLIKE_FAKE_GUARD="1",
               CUDA_LAUNCH_BLOCKING="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                        *SUITES[suite]], cwd=HERE, env=env, capture_output=True, text=True,
                       timeout=1200)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
    assert " passed" in p.stdout and " failed" not in p.stdout, p.stdout[-2000:]
