"""A ninth round of ordinary PyTorch training programs run on torchlike,
91 of them, about the autograd machinery a training script leans on
beyond backward().

Grad modes: inference_mode(False) inside an inference region (recording
on, even under no_grad), no_grad / enable_grad / inference_mode as
decorators with and without parentheses, on generators, set_grad_enabled
as a call and a context, enable_grad inside inference_mode, inference
tensors reused for training.  Custom
Functions: several outputs, non-tensor outputs, set_materialize_grads,
setup_context with mark_non_differentiable, double backward,
once_differentiable, mark_dirty, wrong gradient counts and shapes,
needs_input_grad, a jvp under forward AD, apply's edge cases, a
straight-through estimator, a Function inside a module, gradchecked.  Backward: inputs= with
non-leaves, its refusals, retained gradients under create_graph and
across passes, a WGAN-GP penalty, Hessian-vector products, gradient-norm
regularisers, grad_outputs and is_grads_batched, autograd.functional,
forward-mode duals, tensor / post-accumulate / module / saved-tensor
hooks (multi-grad, node pre-hooks, module backward pre-hooks, and their
refusals), graph walks, freed graphs, mutation on saved tensors,
checkpointing, anomaly detection.  Optimizers: differentiable
steps (meta-learning an update through SGD with and without momentum,
and the adaptive ones, amsgrad, Adamax, Rprop, one step and two), the
options PyTorch refuses, add_param_group's refusals, param-group and
state keys in order, RAdam's checkpoint round trip, step and state-dict
hooks, a tensor lr, maximize and argument refusals, schedulers with
fractional epochs and momentum cycling, ReduceLROnPlateau, SWA.  AMP: autocast's warnings,
op dtypes and nested regions on the CPU, a bfloat16 training loop,
autocast as a decorator, the CPU autocast op lists (lowered, float32
and promoting ops), custom_fwd on a plain function and on a
Function with custom_bwd, GradScaler on the CPU, over two optimizers,
and its state.  Optimizers built from named parameters (param_names),
steps over parameters without gradients.  Recurrent layers: an LSTM's hx in the wrong
forms, argument refusals, batch_first and unbatched hidden states,
pad_sequence's padding_side, packed classifiers and packing refusals,
pack/unpack and unpad round trips, a packed bidirectional LSTM with an
initial state, flatten_parameters and all_weights, a bidirectional GRU
tagger, projected LSTMs, truncated BPTT by cells.  And torch.func training steps and per-sample gradients.

What they found, fixed with them:
- inference_mode(False) did nothing, where PyTorch turns inference mode
  off inside (recording on, even under no_grad; tensors made there
  ordinary; is_inference_mode_enabled False); enable_grad inside
  inference_mode recorded, where PyTorch only reports grad mode on
  (torchlike/autograd/grad_mode.py);
- enable_grad and inference_mode as decorators without parentheses were
  refused or taken for a mode;
- differentiable=True was kept but the step ran under no_grad: the update
  is now recorded (SGD's first momentum buffer detached as PyTorch's), and
  the optimizers' in-place operations on what the tape saved (square
  roots, running maxima, Rprop's previous gradient) go out of place when
  recorded (torchlike/optim); div and the matmul family version-checked an
  operand that only the other operand's gradient reads, so a weight
  updated in place after a product failed a backward PyTorch runs
  (src/grad/formulas_elementwise.c, formulas_reduce.c);
- a Function's backward got gradients only for its tensor outputs, where
  PyTorch passes one per output (None for a non-tensor one); mark_dirty
  did not bump the version; an input returned unchanged by an unrecorded
  apply came back as itself, where PyTorch gives a view of it;
- RAdam's param groups held decoupled_weight_decay before maximize;
- backward(inputs=[non-leaf]) did not make it retain its grad
  (retains_grad, later passes), nor refuse an input without grad in
  retain_grad's words; its empty-inputs refusal lacked PyTorch's
  backquotes; a gradient retained by retain_grad lost its history under
  create_graph=True (src/grad/py_engine.c, torchlike/autograd);
- an LSTM given hx as one tensor or a 1-tuple, and a GRU given a tuple,
  failed with other errors than PyTorch's IndexError / AttributeError;
  pad_sequence refused an unknown padding_side with a ValueError (PyTorch:
  RuntimeError); RNN modules checked a string dropout before float() did;
- autocast's warning for an unsupported dtype said "dtype of" (PyTorch:
  "dtypes of"), and a non-bool enabled was refused when built, where
  PyTorch refuses it on entry, in set_autocast_enabled's words;
- custom_fwd(cast_inputs=...) on a plain function left its first
  argument uncast (PyTorch takes it for the ctx and casts it).

By design, left out or spelled so it does not show: the refusals whose
words name PyTorch's C++ tensor types or its list of device types are
compared by their kind only (_kind_raised), and those where torchlike adds
a parenthesised detail up to it (_raised_head; also the legacy Function
refusal, whose example link PyTorch adds); the bfloat16 training loop's
losses are compared to two decimals.  Left out as PyTorch's own
artefacts: pack_padded_sequence given a length beyond the padded size
(PyTorch reads past the tensor), and a bfloat16 autocast region nested in
a float16 one (PyTorch's cast cache hands the matmul a float16 weight and
it refuses the pair).  Not matched: a differentiable step's refusal on its
second step (amsgrad, Adamax, Rprop, centered RMSprop) is raised by both,
at other ops.

The programs live in scripts/golden_training_programs9.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs9.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs9")
