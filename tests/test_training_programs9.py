"""A ninth round of ordinary PyTorch training programs run on torchlike,
66 of them, about the autograd machinery a training script leans on
beyond backward().

Grad modes: inference_mode(False) inside an inference region (recording
on, even under no_grad), no_grad / enable_grad / inference_mode as
decorators with and without parentheses, on generators, set_grad_enabled
as a call and a context, inference tensors reused for training.  Custom
Functions: several outputs, non-tensor outputs, set_materialize_grads,
setup_context with mark_non_differentiable, double backward,
once_differentiable, mark_dirty, wrong gradient counts and shapes,
needs_input_grad, a straight-through estimator.  Backward: inputs= with
non-leaves, its refusals, retained gradients under create_graph and
across passes, a WGAN-GP penalty, Hessian-vector products, gradient-norm
regularisers, grad_outputs and is_grads_batched, autograd.functional,
forward-mode duals, tensor / post-accumulate / module / saved-tensor
hooks, checkpointing, anomaly detection.  Optimizers: differentiable
steps (meta-learning an update through SGD with and without momentum,
and the adaptive ones), the options PyTorch refuses, param-group and
state keys in order, RAdam's checkpoint round trip, step and state-dict
hooks, a tensor lr, maximize and argument refusals, schedulers with
fractional epochs and momentum cycling, SWA.  AMP: autocast's warnings,
op dtypes and nested regions on the CPU, a bfloat16 training loop,
custom_fwd on a plain function and on a Function with custom_bwd,
GradScaler on the CPU.  Recurrent layers: an LSTM's hx in the wrong
forms, pad_sequence's padding_side, packed classifiers, pack/unpack and
unpad round trips, a bidirectional GRU tagger, projected LSTMs, truncated
BPTT by cells.  And torch.func training steps and per-sample gradients.

What they found, fixed with them:
- inference_mode(False) did nothing, where PyTorch turns inference mode
  off inside (recording on, even under no_grad; tensors made there
  ordinary; is_inference_mode_enabled False) (torchlike/autograd/grad_mode.py);
- enable_grad and inference_mode as decorators without parentheses were
  refused or taken for a mode;
- differentiable=True was kept but the step ran under no_grad: the update
  is now recorded (SGD's first momentum buffer detached as PyTorch's),
  and the adaptive optimizers' in-place operations on saved results go
  out of place when recorded (torchlike/optim);
- a Function's backward got gradients only for its tensor outputs, where
  PyTorch passes one per output (None for a non-tensor one);
- RAdam's param groups held decoupled_weight_decay before maximize;
- a gradient retained by retain_grad lost its history under
  create_graph=True (src/grad/py_engine.c);
- an LSTM given hx as one tensor or a 1-tuple, and a GRU given a tuple,
  failed with other errors than PyTorch's IndexError / AttributeError;
- autocast's warning for an unsupported dtype said "dtype of" (PyTorch:
  "dtypes of");
- custom_fwd(cast_inputs=...) on a plain function left its first
  argument uncast (PyTorch takes it for the ctx and casts it).

By design, left out or spelled so it does not show: the refusals whose
words name PyTorch's C++ tensor types are compared by their kind only
(_kind_raised); the bfloat16 training loop's losses are compared to two
decimals (the matmul's bfloat16 accumulation order differs).

The programs live in scripts/golden_training_programs9.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs9.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs9")
